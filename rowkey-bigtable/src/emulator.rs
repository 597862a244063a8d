//! The Cloud Bigtable emulator for tests: started on a free loopback port,
//! killed and reaped when dropped (also when a test panics).

use std::io::{BufRead, BufReader, Read};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
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
        Emulator::start_on(port)
    }

    /// Starts the emulator on `port` of 127.0.0.1. Ready means the
    /// emulator itself said it listens (its `running on` line), not that
    /// something answers on the port: an emulator that exits (the port
    /// taken, a bad binary) is an error naming why, never a client of
    /// whatever else holds the port.
    pub fn start_on(port: u16) -> std::io::Result<Emulator> {
        let binary = binary();
        let mut child = Command::new(&binary)
            .args(["-host", "127.0.0.1", "-port", &port.to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    format!("cannot start the Bigtable emulator {binary}: {e} (Debian package google-cloud-cli-bigtable-emulator)"),
                )
            })?;
        // Its first line says where it listens; its standard error, why
        // it stopped. Read on threads, so the wait has a deadline.
        let (lines, said) = mpsc::channel();
        let stdout = child.stdout.take();
        std::thread::spawn(move || {
            // Read to the end (a closed pipe would stop the emulator), the
            // lines after the first to nobody.
            for line in stdout.into_iter().flat_map(|o| BufReader::new(o).lines()) {
                let Ok(line) = line else { break };
                let _ = lines.send(line);
            }
        });
        let stderr = child.stderr.take();
        let why = std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut e) = stderr {
                let _ = e.read_to_string(&mut text);
            }
            text
        });
        let emulator = Emulator { child, port };
        let want = format!("running on 127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match said.recv_timeout(left) {
                Ok(line) if line.contains(&want) => break,
                Ok(_) => continue,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "the emulator did not listen within 30 s",
                    ))
                }
                // Its output closed: it exited.
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    drop(emulator);
                    let why = why.join().unwrap_or_default();
                    return Err(std::io::Error::other(format!(
                        "the Bigtable emulator {binary} exited before it listened on port {port}: {}",
                        why.trim()
                    )));
                }
            }
        }
        // The port is the emulator's: it answers.
        TcpStream::connect(("127.0.0.1", port))?;
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
