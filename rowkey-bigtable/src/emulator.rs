//! The Cloud Bigtable emulator for tests: started on a free loopback port,
//! killed and reaped when dropped (also when a test panics).

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{connect_admin, AdminClient, Client, Error};

/// A running `cbtemulator`.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let emulator = rowkey_bigtable::emulator::Emulator::start()?;
/// let client = emulator.client("my-project", "my-instance")?;
/// let mut admin = emulator.admin().await?;
/// # Ok(()) }
/// ```
pub struct Emulator {
    child: Child,
    port: u16,
}

/// The emulator's binary: `$CBTEMULATOR`, else under `gcloud info`'s SDK
/// root, else the Debian package's path.
pub fn binary() -> String {
    if let Ok(path) = std::env::var("CBTEMULATOR") {
        return path;
    }
    let sdk_root = Command::new("gcloud")
        .args(["info", "--format=value(installation.sdk_root)"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "/usr/lib/google-cloud-sdk".to_string());
    format!("{sdk_root}/platform/bigtable-emulator/cbtemulator")
}

impl Emulator {
    /// Starts the emulator on a free port of 127.0.0.1 and waits (up to 30
    /// seconds) until it accepts connections.
    pub fn start() -> std::io::Result<Emulator> {
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let binary = binary();
        let child = Command::new(&binary)
            .args(["-host", "127.0.0.1", "-port", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    format!("cannot start the Bigtable emulator {binary}: {e} (Debian package google-cloud-cli-bigtable-emulator)"),
                )
            })?;
        let emulator = Emulator { child, port };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "the emulator did not listen within 30 s",
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(emulator)
    }

    /// Kills the emulator now (for tests of a server that goes away); the
    /// process is reaped here, and dropping the value afterwards is a no-op.
    pub fn kill(&mut self) -> std::io::Result<()> {
        self.child.kill()?;
        self.child.wait().map(|_| ())
    }

    /// `127.0.0.1:PORT`, the value for `BIGTABLE_EMULATOR_HOST`.
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// A data client for `project`/`instance` on the emulator.
    pub fn client(&self, project: &str, instance: &str) -> Result<Client, Error> {
        client_at(&self.host(), project, instance)
    }

    /// An admin client on the emulator.
    pub async fn admin(&self) -> Result<AdminClient, Error> {
        admin_at(&self.host()).await
    }
}

/// A data client for `project`/`instance` on an emulator already running at
/// `host` (`127.0.0.1:8086`, the form of `BIGTABLE_EMULATOR_HOST`).
pub fn client_at(host: &str, project: &str, instance: &str) -> Result<Client, Error> {
    Client::connect_lazy(&format!("http://{host}"), project, instance)
}

/// An admin client on an emulator already running at `host`.
pub async fn admin_at(host: &str) -> Result<AdminClient, Error> {
    connect_admin(&format!("http://{host}")).await
}

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
