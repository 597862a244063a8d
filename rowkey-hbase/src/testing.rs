//! A real HBase for tests and local use: HBase's own artifacts from Maven
//! Central (the version pinned in `java/pom.xml`), run in standalone mode in
//! one JVM with the Thrift2 gateway, on free loopback ports.
//!
//! The first use builds the launcher (`java/`: one class and a `pom.xml`)
//! with `mvn`, which resolves HBase into Maven's local repository; later
//! uses start at once. Needs `java` (17) and `mvn` on `PATH`.
//!
//! ```no_run
//! let hbase = rowkey_hbase::testing::HBase::start()?;
//! let mut client = hbase.client()?;
//! client.create_table("t", &["d"], &[])?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::VecDeque;
use std::fs::File;
use std::io::Write as _;
use std::io::{self, BufRead, BufReader, Read};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::{Client, Error};

/// How long [`HBase::start`] waits for a table to be creatable.
const START_TIMEOUT: Duration = Duration::from_secs(240);

/// The JVM options HBase's own `bin/hbase` adds on Java 17.
const JAVA17_OPTIONS: &[&str] = &[
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.util=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/java.net=ALL-UNNAMED",
    "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
    "--add-exports=java.base/sun.net.dns=ALL-UNNAMED",
    "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
    "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
    "-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true",
];

/// The launcher's Maven project.
fn java_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("java")
}

/// The launcher's classpath (its jar, then HBase's), built with `mvn` when
/// the jar is missing or older than its sources. One process builds at a
/// time (a file lock); the others wait and use its result.
pub fn classpath() -> io::Result<String> {
    let dir = java_dir();
    let target = dir.join("target");
    std::fs::create_dir_all(&target)?;
    let lock = File::create(target.join(".build.lock"))?;
    lock.lock()?;
    let jar = target.join("rowkey-hbase-launcher-0.1.0.jar");
    let deps = target.join("classpath.txt");
    let sources = [
        dir.join("pom.xml"),
        dir.join("src/main/java/rowkey/hbase/Launcher.java"),
        dir.join("src/main/resources/log4j.properties"),
    ];
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let built = modified(&jar).filter(|_| deps.exists());
    let fresh = built.is_some_and(|b| sources.iter().all(|s| modified(s).is_some_and(|m| m <= b)));
    if !fresh {
        let out = Command::new("mvn")
            .current_dir(&dir)
            .args(["-B", "-q", "package", "dependency:build-classpath"])
            .arg(format!("-Dmdep.outputFile={}", deps.display()))
            .stdin(Stdio::null())
            .output()
            .map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("cannot run mvn (Maven) in {}: {e}", dir.display()),
                )
            })?;
        if !out.status.success() {
            return Err(io::Error::other(format!(
                "mvn package in {} failed ({}):\n{}{}",
                dir.display(),
                out.status,
                tail(&String::from_utf8_lossy(&out.stdout), 40),
                tail(&String::from_utf8_lossy(&out.stderr), 40),
            )));
        }
    }
    let deps = std::fs::read_to_string(&deps)?;
    Ok(format!("{}:{}", jar.display(), deps.trim()))
}

/// A `java` command on the launcher's classpath, with the options HBase
/// needs on Java 17, running `rowkey.hbase.Launcher` with `args`: the
/// server (`serve`) or the interop oracle (`interop`, see the launcher's
/// source). `jvm` are further JVM options (`-Xmx1g`).
pub fn launcher(jvm: &[&str], args: &[&str]) -> io::Result<Command> {
    let mut java = Command::new("java");
    java.args(JAVA17_OPTIONS)
        .args(jvm)
        .arg("-cp")
        .arg(classpath()?)
        .arg("rowkey.hbase.Launcher")
        .args(args);
    Ok(java)
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n") + "\n"
}

fn free_port() -> io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// A running standalone HBase (ZooKeeper, a master and region servers in
/// one JVM, data in a temporary directory) with its Thrift2 gateway, all on
/// 127.0.0.1. Dropping it kills and reaps the JVM and removes the data; the
/// JVM also exits by itself when this process goes away (its standard
/// input closes).
pub struct HBase {
    child: Child,
    /// The launcher's requests and its answers' lines. Held open: closing
    /// stdin stops the JVM.
    requests: Mutex<(ChildStdin, mpsc::Receiver<String>)>,
    thrift: SocketAddr,
    log: Arc<Mutex<VecDeque<String>>>,
    _dir: tempfile::TempDir,
}

impl HBase {
    /// Starts HBase with one region server.
    pub fn start() -> io::Result<HBase> {
        HBase::start_with(1)
    }

    /// Starts HBase with `region_servers` region servers (besides the
    /// master) and waits, up to four minutes, until a table can be created.
    pub fn start_with(region_servers: usize) -> io::Result<HBase> {
        HBase::start_configured(region_servers, &[])
    }

    /// [`start_with`](Self::start_with), with `settings` in HBase's
    /// configuration (`("hbase.hregion.max.filesize", "65536")`, say: small
    /// regions that split during a test).
    pub fn start_configured(region_servers: usize, settings: &[(&str, &str)]) -> io::Result<HBase> {
        HBase::start_on(free_port()?, region_servers, settings)
    }

    /// [`start`](Self::start) asking ZooKeeper for port `zk` of 127.0.0.1:
    /// when something else holds it, ZooKeeper takes the next free port and
    /// the servers use the one it took (for the test of that).
    #[doc(hidden)]
    pub fn start_with_zookeeper_port(zk: u16) -> io::Result<HBase> {
        HBase::start_on(zk, 1, &[])
    }

    fn start_on(zk: u16, region_servers: usize, settings: &[(&str, &str)]) -> io::Result<HBase> {
        let dir = tempfile::Builder::new().prefix("rowkey-hbase-").tempdir()?;
        let thrift = free_port()?;
        let mut args = vec![
            "serve".to_string(),
            dir.path().display().to_string(),
            zk.to_string(),
            thrift.to_string(),
            region_servers.to_string(),
        ];
        args.extend(settings.iter().map(|(k, v)| format!("{k}={v}")));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut child = launcher(&["-Xmx1g"], &args)?
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| io::Error::new(e.kind(), format!("cannot start java: {e}")))?;
        let log = Arc::new(Mutex::new(VecDeque::new()));
        keep_tail(child.stderr.take().expect("piped"), Arc::clone(&log));
        let (ready_tx, ready) = mpsc::channel();
        let (lines_tx, lines) = mpsc::channel();
        let stdout = child.stdout.take().expect("piped");
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                match line {
                    Ok(l) if l == "READY" => {
                        let _ = ready_tx.send(());
                    }
                    Ok(l) => {
                        let _ = lines_tx.send(l);
                    }
                    Err(_) => break,
                }
            }
        });
        let stdin = child.stdin.take().expect("piped");
        let mut hbase = HBase {
            requests: Mutex::new((stdin, lines)),
            child,
            thrift: SocketAddr::from(([127, 0, 0, 1], thrift)),
            log,
            _dir: dir,
        };
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            match ready.recv_timeout(Duration::from_millis(200)) {
                Ok(()) => return Ok(hbase),
                Err(mpsc::RecvTimeoutError::Timeout) if Instant::now() < deadline => {}
                Err(_) => {}
            }
            if let Some(status) = hbase.child.try_wait()? {
                return Err(io::Error::other(format!(
                    "HBase exited ({status}) before it was ready; its log ends:\n{}",
                    hbase.log_tail()
                )));
            }
            if Instant::now() >= deadline {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "HBase was not ready within {START_TIMEOUT:?}; its log ends:\n{}",
                        hbase.log_tail()
                    ),
                ));
            }
        }
    }

    /// The Thrift2 gateway's address.
    pub fn thrift_addr(&self) -> SocketAddr {
        self.thrift
    }

    /// A new client of the gateway.
    pub fn client(&self) -> Result<Client, Error> {
        Client::connect(self.thrift)
    }

    /// The JVM's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills the JVM now (for tests of a server that goes away) and reaps
    /// it; dropping the value afterwards only removes the data.
    pub fn kill(&mut self) -> io::Result<()> {
        self.child.kill()?;
        self.child.wait().map(|_| ())
    }

    /// Every region of `table` in key order, with its server and the write
    /// requests it has served, as HBase's region servers count them (their
    /// `RegionMetrics`): what the table looks like on the engine itself.
    pub fn region_writes(&self, table: &str) -> io::Result<Vec<RegionWrites>> {
        let mut guard = self.requests.lock().unwrap_or_else(|e| e.into_inner());
        let (stdin, lines) = &mut *guard;
        writeln!(stdin, "regions {table}")?;
        stdin.flush()?;
        let mut regions = Vec::new();
        loop {
            let line = lines
                .recv_timeout(Duration::from_secs(60))
                .map_err(|_| io::Error::other(format!("HBase did not answer `regions {table}`")))?;
            let parts: Vec<&str> = line.split(' ').collect();
            match parts.as_slice() {
                ["END"] => return Ok(regions),
                ["region", start, end, server, writes] => regions.push(RegionWrites {
                    start: unhex(start)?,
                    end: unhex(end)?,
                    server: (*server).to_string(),
                    writes: writes.parse().map_err(io::Error::other)?,
                }),
                _ => {
                    // Read to the END of the answer, then report it.
                    while lines
                        .recv_timeout(Duration::from_secs(60))
                        .is_ok_and(|l| l != "END")
                    {}
                    return Err(io::Error::other(format!("regions of {table}: {line}")));
                }
            }
        }
    }

    /// The last lines HBase logged (warnings and errors).
    pub fn log_tail(&self) -> String {
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// One region as [`HBase::region_writes`] reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionWrites {
    /// The region's first key (empty for the first region).
    pub start: Vec<u8>,
    /// The first key after it (empty for the last region).
    pub end: Vec<u8>,
    /// Its region server, `host:port` (`-` while it moves).
    pub server: String,
    /// Write requests it has served since it opened.
    pub writes: u64,
}

fn unhex(s: &str) -> io::Result<Vec<u8>> {
    if s == "-" {
        return Ok(Vec::new());
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            s.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| io::Error::other(format!("not hex: {s}")))
        })
        .collect()
}

/// Keeps the last 60 lines of `from` in `log`.
fn keep_tail(from: impl Read + Send + 'static, log: Arc<Mutex<VecDeque<String>>>) {
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
            if log.len() == 60 {
                log.pop_front();
            }
            log.push_back(line);
        }
    });
}

impl Drop for HBase {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
