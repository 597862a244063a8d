//! A real HBase for tests and local use: HBase's own artifacts from Maven
//! Central (the version pinned in `java/pom.xml`), run in standalone mode in
//! one JVM and its Thrift2 gateway in another, on free loopback ports.
//!
//! The first use builds the filter and the launcher (`java/`: two Maven
//! modules) with `mvn`, under Cargo's target directory
//! ([`java_build_dir`]), resolving HBase into Maven's local repository;
//! later uses start at once. Needs `java` (17) and `mvn` on `PATH`.
//!
//! ```no_run
//! let hbase = rowkey_hbase::testing::HBase::start()?;
//! let client = hbase.client()?;
//! client.create_table("t", &["d"], &[])?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fs::File;
use std::io::Write as _;
use std::io::{self, BufRead, BufReader};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::Instant;

use crate::{Client, ClientBuilder, Error, Protocol, Tls, Transport};

mod certs;
mod hfiles;
#[cfg(feature = "kerberos")]
mod kdc;
mod requests;

#[cfg(feature = "kerberos")]
pub use requests::Kdc;
pub use requests::{FilterReads, RegionWrites, StoreFiles};
mod jvm;
pub use hfiles::{
    pretty_print_hfile, read_hfile, read_hfiles, write_hfile_with_hbase, HFileCell, HFileRead,
};
use jvm::{Jvm, START_TIMEOUT};

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

/// rowkey-hbase's Maven projects (`java/`: the filter and the launcher).
fn java_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("java")
}

/// Where the Maven projects are built: `rowkey-hbase-java` under Cargo's
/// target directory (the one holding the running binary, found by its
/// `CACHEDIR.TAG`), so the crate's own folder is never written to and a
/// read-only checkout works; `ROWKEY_JAVA_BUILD` overrides it, and the
/// system's temporary folder is the last resort.
pub fn java_build_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("ROWKEY_JAVA_BUILD") {
        return PathBuf::from(dir);
    }
    let exe = std::env::current_exe().ok();
    let target = exe
        .as_deref()
        .into_iter()
        .flat_map(Path::ancestors)
        .find(|d| d.join("CACHEDIR.TAG").is_file());
    match target {
        Some(t) => t.join("rowkey-hbase-java"),
        None => std::env::temp_dir().join("rowkey-hbase-java"),
    }
}

/// The launcher's classpath (its jar, the filter's jar, then HBase's), built with `mvn` when
/// a jar is missing or older than its sources. One process builds at a
/// time (a file lock); the others wait and use its result.
pub fn classpath() -> io::Result<String> {
    let dir = java_dir();
    let build = java_build_dir();
    std::fs::create_dir_all(&build)?;
    let lock = File::create(build.join(".build.lock"))?;
    lock.lock()?;
    let jar = build.join("rowkey-hbase-launcher/rowkey-hbase-launcher-0.1.0.jar");
    let deps = build.join("rowkey-hbase-launcher/classpath.txt");
    let sources = [
        dir.join("pom.xml"),
        dir.join("filter/pom.xml"),
        dir.join("launcher/pom.xml"),
        dir.join("launcher/src/main/java/rowkey/hbase/Launcher.java"),
        dir.join("launcher/src/main/java/org/apache/hadoop/hbase/ipc/RowkeyRpcGolden.java"),
        dir.join("filter/src/main/java/rowkey/hbase/KeyFilter.java"),
        dir.join("filter/src/test/java/rowkey/hbase/KeyFilterTest.java"),
        dir.join("launcher/src/main/resources/log4j.properties"),
        dir.join("launcher/src/main/resources/hbase-site.xml"),
    ];
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let built = [&jar, &filter_jar()]
        .into_iter()
        .map(|j| modified(j))
        .min()
        .flatten()
        .filter(|_| deps.exists());
    let fresh = built.is_some_and(|b| sources.iter().all(|s| modified(s).is_some_and(|m| m <= b)));
    if !fresh {
        let out = Command::new("mvn")
            .current_dir(&dir)
            .args(["-B", "-q", "package"])
            .arg(format!("-Drowkey.build={}", build.display()))
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
    Ok(format!(
        "{}:{}:{}",
        jar.display(),
        filter_jar().display(),
        deps.trim()
    ))
}

/// rowkey's region-server filter (`rowkey.hbase.KeyFilter`) in its own jar
/// (the Maven module `rowkey-hbase-filter`, Java 8 bytecode), as a cluster
/// deploys it (in HBase's `lib/`): built by [`classpath`], which puts it on
/// the test servers' classpath.
pub fn filter_jar() -> PathBuf {
    java_build_dir().join("rowkey-hbase-filter/rowkey-hbase-filter-0.1.0.jar")
}

/// [`classpath`] without rowkey's filter jar: a JVM that has never heard of
/// `rowkey.hbase.KeyFilter` (a gateway not yet given the jar).
fn classpath_without_filter() -> io::Result<String> {
    let filter = filter_jar().display().to_string();
    Ok(classpath()?
        .split(':')
        .filter(|p| *p != filter)
        .collect::<Vec<_>>()
        .join(":"))
}

/// A `java` command on the launcher's classpath, with the options HBase
/// needs on Java 17, running `rowkey.hbase.Launcher` with `args`: the
/// server (`serve`) or the interop oracle (`interop`, see the launcher's
/// source). `jvm` are further JVM options (`-Xmx1g`).
pub fn launcher(jvm: &[&str], args: &[&str]) -> io::Result<Command> {
    launcher_on(classpath()?, jvm, args)
}

/// A `java` command running `main` on `first` (a classpath: the caller's
/// own classes, say), then the test servers' classpath (HBase's client and
/// server jars), with the options HBase needs on Java 17: a Java program
/// using HBase's own client against a test [`HBase`]
/// ([`HBase::zookeeper_port`]).
pub fn java(first: &str, jvm: &[&str], main: &str) -> io::Result<Command> {
    Ok(java_on(format!("{first}:{}", classpath()?), jvm, main))
}

fn launcher_on(classpath: String, jvm: &[&str], args: &[&str]) -> io::Result<Command> {
    let mut java = java_on(classpath, jvm, "rowkey.hbase.Launcher");
    java.args(args);
    Ok(java)
}

/// `java` with the options HBase needs on Java 17, running `main` on
/// `classpath`.
fn java_on(classpath: String, jvm: &[&str], main: &str) -> Command {
    let mut java = Command::new("java");
    java.args(JAVA17_OPTIONS)
        .args(jvm)
        .arg("-cp")
        .arg(classpath)
        .arg(main);
    java
}

/// The launcher's `interop` mode's answers to `requests` (one line each;
/// see the launcher's source), from one JVM with a heap of `heap` (`512m`):
/// HBase's own Java code, and rowkey's Java filter, as the oracle of the
/// interop tests.
pub fn ask_interop(requests: &[String], heap: &str) -> io::Result<Vec<String>> {
    let mut java = launcher(&[&format!("-Xmx{heap}")], &["interop"])?
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut stdin = java.stdin.take().expect("piped");
    let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let answers: io::Result<Vec<String>> = BufReader::new(java.stdout.take().expect("piped"))
        .lines()
        .collect();
    let written = writer
        .join()
        .map_err(|_| io::Error::other("the writer panicked"))?;
    let status = java.wait()?;
    let answers = answers?;
    written?;
    if !status.success() {
        return Err(io::Error::other(format!(
            "the interop oracle failed: {status}"
        )));
    }
    if answers.len() != requests.len() {
        return Err(io::Error::other(format!(
            "{} answers to {} requests",
            answers.len(),
            requests.len()
        )));
    }
    Ok(answers)
}

/// The gateway's classpath: with or without rowkey's filter jar.
fn gateway_classpath(options: &HBaseBuilder) -> io::Result<String> {
    if options.gateway_without_filter {
        classpath_without_filter()
    } else {
        classpath()
    }
}

pub(crate) fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n") + "\n"
}

/// `args` as the launcher takes them.
fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

fn free_port() -> io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// A running standalone HBase (ZooKeeper, a master and region servers in
/// one JVM, data in a temporary directory) and its Thrift2 gateway in a
/// JVM of its own (as `hbase thrift2` runs in production), all on
/// 127.0.0.1. Dropping it kills and reaps both JVMs and removes the data;
/// the JVMs also exit by themselves when this process goes away (their
/// standard input closes).
pub struct HBase {
    cluster: Mutex<Jvm>,
    /// `None`: started with no gateway ([`HBaseBuilder::gateway`]).
    gateway: Mutex<Option<Jvm>>,
    /// The gateway's arguments, to start it again.
    gateway_args: Vec<String>,
    /// The gateway JVM's flags.
    gateway_jvm: Vec<String>,
    thrift: SocketAddr,
    zookeeper: u16,
    /// The master's RPC address, `host:port`.
    master: String,
    /// HDFS's address, `hdfs://127.0.0.1:port`, when HBase runs on it.
    hdfs: Option<String>,
    options: HBaseBuilder,
    /// The TLS gateway's certificate, PEM.
    cert: Option<Vec<u8>>,
    /// The certificates of a cluster serving TLS on its RPC port.
    #[cfg(feature = "tls")]
    rpc_tls: Option<certs::RpcTls>,
    /// A kerberized cluster's KDC.
    #[cfg(feature = "kerberos")]
    kdc: Option<kdc::KdcInfo>,
    _dir: tempfile::TempDir,
}

/// Settings of a test [`HBase`]: [`HBase::builder`].
///
/// ```no_run
/// use rowkey_hbase::testing::HBase;
///
/// // A gateway in HTTP mode behind TLS, with a certificate made for the test.
/// let hbase = HBase::builder().tls(true).start()?;
/// let client = hbase.client()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct HBaseBuilder {
    region_servers: Option<usize>,
    framed: bool,
    compact: bool,
    http: bool,
    tls: bool,
    settings: Vec<(String, String)>,
    zookeeper_port: Option<u16>,
    gateway_without_filter: bool,
    no_gateway: bool,
    hdfs: bool,
    authorization: bool,
    #[cfg(feature = "tls")]
    rpc_tls: bool,
    #[cfg(feature = "kerberos")]
    kerberos: Option<KerberosOptions>,
}

/// A kerberized cluster's settings.
#[cfg(feature = "kerberos")]
#[derive(Clone, Debug, Default)]
struct KerberosOptions {
    protection: Option<crate::Protection>,
    ticket_lifetime: Option<std::time::Duration>,
}

impl HBaseBuilder {
    /// Whether a Thrift2 gateway is started (default `true`): `false` is a
    /// cluster as many run in production, reached only by HBase's own RPC,
    /// whose [`HBase::client`] is a native one
    /// ([`Client::native`](crate::Client::native) on
    /// [`HBase::bootstrap`]).
    #[cfg(feature = "native")]
    pub fn gateway(mut self, on: bool) -> Self {
        self.no_gateway = !on;
        self
    }

    /// Whether HBase runs on a real HDFS (default `false`: the local
    /// filesystem): Hadoop's `MiniDFSCluster`, a NameNode and a DataNode in
    /// the cluster's JVM on loopback, holding HBase's root directory, so
    /// the region servers read bulk-loaded files from HDFS as in
    /// production. Its address is [`HBase::hdfs_url`].
    pub fn hdfs(mut self, on: bool) -> Self {
        self.hdfs = on;
        self
    }

    /// Whether the masters' and region servers' RPC serves TLS, and only
    /// TLS (default `false`): HBase 2.6's `hbase.server.netty.tls.enabled`
    /// with `supportplaintext` off, a server certificate for `127.0.0.1`
    /// signed by a CA made for the test ([`HBase::rpc_tls_root_pem`]),
    /// client certificates not asked for (a test asks with
    /// `.setting("hbase.server.netty.tls.client.auth.mode", "NEED")` and
    /// presents [`HBase::rpc_tls_client_identity`]). The cluster's own
    /// connections between its servers use TLS too.
    #[cfg(feature = "tls")]
    pub fn rpc_tls(mut self, on: bool) -> Self {
        self.rpc_tls = on;
        self
    }

    /// Whether the cluster is kerberized (default `false`): a KDC (Hadoop's
    /// MiniKdc, on loopback, in the cluster's JVM; [`HBase::kdc`] makes
    /// principals) and `hbase.security.authentication=kerberos` on every
    /// server, each logged in as `hbase/localhost@REALM` and registered as
    /// `localhost` (a client's server principal is then HBase's default,
    /// `hbase/_HOST@REALM`); `admin` is the superuser. The servers offer
    /// every protection (`hbase.rpc.protection`
    /// `authentication,integrity,privacy`) unless
    /// [`protection`](Self::protection) names one.
    #[cfg(feature = "kerberos")]
    pub fn kerberos(mut self, on: bool) -> Self {
        self.kerberos = on.then(|| self.kerberos.take().unwrap_or_default());
        self
    }

    /// The one protection a kerberized cluster's servers offer
    /// (`hbase.rpc.protection`); implies [`kerberos`](Self::kerberos).
    #[cfg(feature = "kerberos")]
    pub fn protection(mut self, protection: crate::Protection) -> Self {
        self.kerberos
            .get_or_insert_with(Default::default)
            .protection = Some(protection);
        self
    }

    /// The lifetime of the tickets clients of a kerberized cluster ask for
    /// (default one hour; the KDC grants down to 5 s), written in
    /// [`Kdc::krb5_conf`]: a test of a ticket that expires. Implies
    /// [`kerberos`](Self::kerberos).
    #[cfg(feature = "kerberos")]
    pub fn ticket_lifetime(mut self, lifetime: std::time::Duration) -> Self {
        self.kerberos
            .get_or_insert_with(Default::default)
            .ticket_lifetime = Some(lifetime);
        self
    }

    /// Whether HBase's access control is on (default `false`):
    /// `hbase.security.authorization` with the `AccessController`
    /// coprocessor on the master and region servers, and the
    /// `TokenProvider` coprocessor that answers
    /// [`Client::whoami`](crate::Client::whoami). The user the cluster
    /// runs as is its superuser; any other has no rights until
    /// [`HBase::grant`] gives them.
    pub fn authorization(mut self, on: bool) -> Self {
        self.authorization = on;
        self
    }

    /// Whether the cluster is kerberized.
    fn kerberized(&self) -> bool {
        #[cfg(feature = "kerberos")]
        return self.kerberos.is_some();
        #[cfg(not(feature = "kerberos"))]
        false
    }

    /// Whether the Thrift2 gateway has rowkey's filter jar on its classpath
    /// (default `true`; the region servers always have it): `false` is a
    /// cluster whose gateway was not given the jar, which fails scans that
    /// send the filter.
    pub fn gateway_filter_jar(mut self, on: bool) -> Self {
        self.gateway_without_filter = !on;
        self
    }

    /// Region servers besides the master (default 1).
    pub fn region_servers(mut self, n: usize) -> Self {
        self.region_servers = Some(n);
        self
    }

    /// A framed gateway (`hbase.regionserver.thrift.framed`).
    pub fn framed(mut self, on: bool) -> Self {
        self.framed = on;
        self
    }

    /// A gateway on Thrift's compact protocol
    /// (`hbase.regionserver.thrift.compact`).
    pub fn compact(mut self, on: bool) -> Self {
        self.compact = on;
        self
    }

    /// A gateway in HTTP mode (`hbase.regionserver.thrift.http`).
    pub fn http(mut self, on: bool) -> Self {
        self.http = on;
        self
    }

    /// A gateway in HTTP mode behind TLS (`hbase.thrift.ssl.*`), with a
    /// self-signed certificate for 127.0.0.1 in a keystore made by `keytool`
    /// for this server ([`HBase::tls_root_pem`]).
    pub fn tls(mut self, on: bool) -> Self {
        self.tls = on;
        self
    }

    /// `key=value` in the cluster's configuration
    /// (`("hbase.hregion.max.filesize", "65536")`, say: small regions that
    /// split during a test).
    pub fn setting(mut self, key: &str, value: &str) -> Self {
        self.settings.push((key.to_string(), value.to_string()));
        self
    }

    /// Starts HBase and its gateway and waits, up to four minutes, until a
    /// table can be created and the gateway accepts.
    pub fn start(self) -> io::Result<HBase> {
        HBase::launch(self)
    }
}

impl HBase {
    /// Starts HBase with one region server.
    pub fn start() -> io::Result<HBase> {
        HBase::builder().start()
    }

    /// Settings for a test HBase.
    pub fn builder() -> HBaseBuilder {
        HBaseBuilder::default()
    }

    /// Starts HBase with `region_servers` region servers (besides the
    /// master) and waits, up to four minutes, until a table can be created.
    pub fn start_with(region_servers: usize) -> io::Result<HBase> {
        HBase::builder().region_servers(region_servers).start()
    }

    /// [`start_with`](Self::start_with), with `settings` in HBase's
    /// configuration (`("hbase.hregion.max.filesize", "65536")`, say: small
    /// regions that split during a test).
    pub fn start_configured(region_servers: usize, settings: &[(&str, &str)]) -> io::Result<HBase> {
        settings
            .iter()
            .fold(
                HBase::builder().region_servers(region_servers),
                |b, (k, v)| b.setting(k, v),
            )
            .start()
    }

    /// [`start`](Self::start) asking ZooKeeper for port `zk` of 127.0.0.1:
    /// when something else holds it, ZooKeeper takes the next free port and
    /// the servers use the one it took (for the test of that).
    #[doc(hidden)]
    pub fn start_with_zookeeper_port(zk: u16) -> io::Result<HBase> {
        let mut b = HBase::builder();
        b.zookeeper_port = Some(zk);
        b.start()
    }

    fn launch(options: HBaseBuilder) -> io::Result<HBase> {
        let dir = tempfile::Builder::new().prefix("rowkey-hbase-").tempdir()?;
        let zk = match options.zookeeper_port {
            Some(port) => port,
            None => free_port()?,
        };
        let mut args = vec![
            "serve".to_string(),
            dir.path().display().to_string(),
            zk.to_string(),
            options.region_servers.unwrap_or(1).to_string(),
        ];
        // The TLS settings first: a test's own settings come after them
        // and win.
        #[cfg(feature = "tls")]
        let rpc_tls = match options.rpc_tls {
            true => Some(certs::rpc_tls(dir.path())?),
            false => None,
        };
        #[cfg(feature = "tls")]
        let tls_settings = rpc_tls.iter().flat_map(|t| &t.settings);
        #[cfg(not(feature = "tls"))]
        let tls_settings = std::iter::empty::<&(String, String)>();
        let tls_settings: Vec<String> = tls_settings.map(|(k, v)| format!("{k}={v}")).collect();
        args.extend(tls_settings.iter().cloned());
        #[cfg(feature = "kerberos")]
        if let Some(k) = &options.kerberos {
            let protection = match k.protection {
                Some(p) => p.name(),
                None => "authentication,integrity,privacy",
            };
            args.push("rowkey.kerberos=true".to_string());
            args.push(format!("hbase.rpc.protection={protection}"));
        }
        if options.authorization {
            const ACCESS: &str = "org.apache.hadoop.hbase.security.access.AccessController";
            const TOKENS: &str = "org.apache.hadoop.hbase.security.token.TokenProvider";
            args.extend([
                "hbase.security.authorization=true".to_string(),
                format!("hbase.coprocessor.master.classes={ACCESS}"),
                format!("hbase.coprocessor.regionserver.classes={ACCESS}"),
                format!("hbase.coprocessor.region.classes={TOKENS},{ACCESS}"),
            ]);
        }
        args.extend(options.settings.iter().map(|(k, v)| format!("{k}={v}")));
        if options.hdfs {
            args.push("rowkey.hdfs=true".to_string());
        }
        let deadline = Instant::now() + START_TIMEOUT;
        let mut cluster = Jvm::start(launcher_on(classpath()?, &["-Xmx1g"], &strs(&args))?)?;
        // ZooKeeper is up (and its port known) long before the cluster:
        // the gateway's JVM starts then, beside the cluster's startup.
        let mut bound = None;
        let mut kdc_line = None;
        cluster.wait_for("HBase's ZooKeeper", deadline, |line| {
            if let Some(kdc) = line.strip_prefix("KDC ") {
                kdc_line = Some(kdc.to_string());
            }
            match line.strip_prefix("ZK ") {
                Some(port) => {
                    bound = port.parse::<u16>().ok();
                    true
                }
                None => false,
            }
        })?;
        let zk = bound.ok_or_else(|| io::Error::other("HBase did not say its ZooKeeper port"))?;
        #[cfg(feature = "kerberos")]
        let kdc = match (&options.kerberos, kdc_line) {
            (Some(k), Some(line)) => Some(kdc::KdcInfo::new(
                &line,
                dir.path(),
                k.ticket_lifetime
                    .unwrap_or(std::time::Duration::from_secs(3_600)),
            )?),
            (Some(_), None) => return Err(io::Error::other("HBase did not say where its KDC is")),
            (None, _) => None,
        };
        #[cfg(not(feature = "kerberos"))]
        let _ = kdc_line;
        let thrift = if options.no_gateway { 0 } else { free_port()? };
        let mut gateway_args = vec!["gateway".to_string(), zk.to_string(), thrift.to_string()];
        // The gateway is a client of a TLS cluster.
        gateway_args.extend(tls_settings);
        #[cfg_attr(not(feature = "kerberos"), allow(unused_mut))]
        let mut gateway_jvm = vec!["-Xmx256m".to_string()];
        // A kerberized cluster's gateway: logged in, SPNEGO in HTTP mode.
        #[cfg(feature = "kerberos")]
        if let Some(kdc) = &kdc {
            gateway_args.extend(kdc.gateway_settings());
            gateway_jvm.push(kdc.jvm_flag());
        }
        let http = options.http || options.tls || options.kerberized();
        let mut flag = |key: &str, on: bool| {
            if on {
                gateway_args.push(format!("{key}=true"));
            }
        };
        flag("hbase.regionserver.thrift.framed", options.framed);
        flag("hbase.regionserver.thrift.compact", options.compact);
        flag("hbase.regionserver.thrift.http", http);
        let cert = if options.tls {
            let (settings, pem) = certs::keystore(dir.path())?;
            gateway_args.extend(settings);
            Some(pem)
        } else {
            None
        };
        let mut gateway = if options.no_gateway {
            None
        } else {
            Some(Jvm::start(launcher_on(
                gateway_classpath(&options)?,
                &strs(&gateway_jvm),
                &strs(&gateway_args),
            )?)?)
        };
        let mut master = None;
        let mut hdfs = None;
        cluster.wait_for("HBase", deadline, |line| {
            if let Some(url) = line.strip_prefix("HDFS ") {
                hdfs = Some(url.to_string());
            }
            if let Some(addr) = line.strip_prefix("MASTER ") {
                master = Some(addr.to_string());
            }
            line == "READY"
        })?;
        let master =
            master.ok_or_else(|| io::Error::other("HBase did not say its master's address"))?;
        if options.hdfs && hdfs.is_none() {
            return Err(io::Error::other("HBase did not say its HDFS address"));
        }
        if let Some(gateway) = &mut gateway {
            gateway.wait_for("The Thrift2 gateway", deadline, |l| l == "READY")?;
        }
        Ok(HBase {
            cluster: Mutex::new(cluster),
            gateway: Mutex::new(gateway),
            gateway_args,
            gateway_jvm,
            thrift: SocketAddr::from(([127, 0, 0, 1], thrift)),
            zookeeper: zk,
            master,
            hdfs,
            options,
            cert,
            #[cfg(feature = "tls")]
            rpc_tls,
            #[cfg(feature = "kerberos")]
            kdc,
            _dir: dir,
        })
    }

    /// ZooKeeper's port on 127.0.0.1: where HBase's own Java client finds
    /// the cluster (`hbase.zookeeper.quorum` 127.0.0.1,
    /// `hbase.zookeeper.property.clientPort` this).
    pub fn zookeeper_port(&self) -> u16 {
        self.zookeeper
    }

    /// Where a native client starts: the master's RPC address
    /// (`127.0.0.1:port`), which serves HBase's registry
    /// (`ClientMetaService`).
    pub fn bootstrap(&self) -> String {
        self.master.clone()
    }

    /// HDFS's address, `hdfs://127.0.0.1:PORT` (HBase's root directory is
    /// `/hbase` on it), for a cluster started with
    /// [`HBaseBuilder::hdfs`]; `None` on the local filesystem.
    pub fn hdfs_url(&self) -> Option<&str> {
        self.hdfs.as_deref()
    }

    /// The Thrift2 gateway's address.
    ///
    /// # Panics
    /// If the server was started with no gateway
    /// (`HBaseBuilder::gateway`).
    pub fn thrift_addr(&self) -> SocketAddr {
        assert!(
            !self.options.no_gateway,
            "this test HBase was started with no Thrift gateway"
        );
        self.thrift
    }

    /// The gateway's address as a [`Client`] takes it: `host:port`, or its
    /// URL in HTTP mode.
    pub fn gateway_addr(&self) -> String {
        // A kerberized gateway's SPNEGO principal is HTTP/localhost: its
        // clients name it so.
        if self.options.kerberized() {
            return format!("http://localhost:{}/", self.thrift.port());
        }
        match (self.options.tls, self.options.http) {
            (true, _) => format!("https://{}/", self.thrift),
            (false, true) => format!("http://{}/", self.thrift),
            (false, false) => self.thrift.to_string(),
        }
    }

    /// The TLS gateway's certificate (PEM), the root a client trusts.
    pub fn tls_root_pem(&self) -> Option<&[u8]> {
        self.cert.as_deref()
    }

    /// The KDC of a kerberized cluster ([`HBaseBuilder::kerberos`]).
    ///
    /// # Panics
    /// If the cluster is not kerberized.
    #[cfg(feature = "kerberos")]
    pub fn kdc(&self) -> Kdc<'_> {
        let info = self
            .kdc
            .as_ref()
            .expect("this test HBase was started without Kerberos (HBaseBuilder::kerberos)");
        Kdc { hbase: self, info }
    }

    /// The root certificate (PEM) of a cluster serving TLS on its RPC port
    /// ([`HBaseBuilder::rpc_tls`]): the CA that signed its servers'
    /// certificates.
    #[cfg(feature = "tls")]
    pub fn rpc_tls_root_pem(&self) -> Option<&[u8]> {
        self.rpc_tls.as_ref().map(|t| t.root.as_slice())
    }

    /// A client certificate (PEM) and its private key (PKCS#8 PEM) signed
    /// by [`rpc_tls_root_pem`](Self::rpc_tls_root_pem)'s CA, for mutual
    /// TLS ([`Tls::client_identity`]).
    #[cfg(feature = "tls")]
    pub fn rpc_tls_client_identity(&self) -> Option<(&[u8], &[u8])> {
        self.rpc_tls
            .as_ref()
            .map(|t| (t.client.0.as_slice(), t.client.1.as_slice()))
    }

    /// Settings for a client of the gateway: its address, transport,
    /// protocol and certificate; for a server started with no gateway, a
    /// native client's (`Client::native` on
    /// [`bootstrap`](Self::bootstrap), trusting the cluster's root
    /// certificate when it serves TLS).
    pub fn client_builder(&self) -> ClientBuilder {
        let o = &self.options;
        #[cfg(feature = "native")]
        if o.no_gateway {
            let b = Client::native(self.bootstrap());
            #[cfg(feature = "tls")]
            if let Some(pem) = self.rpc_tls_root_pem() {
                return b.tls(Tls::root_pem(pem));
            }
            return b;
        }
        let mut b = Client::builder(self.gateway_addr())
            .transport(match (o.http || o.tls || o.kerberized(), o.framed) {
                (true, _) => Transport::Http,
                (false, true) => Transport::Framed,
                (false, false) => Transport::Buffered,
            })
            .protocol(if o.compact {
                Protocol::Compact
            } else {
                Protocol::Binary
            });
        if let Some(pem) = &self.cert {
            b = b.tls(Tls::root_pem(pem.clone()));
        }
        b
    }

    /// A new client of the gateway.
    pub fn client(&self) -> Result<Client, Error> {
        self.client_builder().build()
    }

    /// The cluster JVM's process id.
    pub fn pid(&self) -> u32 {
        self.cluster
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .child
            .id()
    }

    /// The gateway JVM's process id.
    ///
    /// # Panics
    /// If the server was started with no gateway.
    pub fn gateway_pid(&self) -> u32 {
        self.gateway
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .expect("this test HBase was started with no Thrift gateway")
            .child
            .id()
    }

    /// Kills both JVMs now (for tests of a server that goes away) and
    /// reaps them; dropping the value afterwards only removes the data.
    pub fn kill(&mut self) -> io::Result<()> {
        if let Some(gateway) = self.gateway.get_mut().unwrap_or_else(|e| e.into_inner()) {
            gateway.stop();
        }
        let cluster = self.cluster.get_mut().unwrap_or_else(|e| e.into_inner());
        cluster.child.kill()?;
        cluster.child.wait().map(|_| ())
    }

    /// Stops the Thrift gateway (its JVM killed: every connection cut,
    /// every scanner gone) and starts it again on the same port, while
    /// HBase keeps its data; returns once it accepts again.
    pub fn restart_gateway(&self) -> io::Result<()> {
        let mut gateway = self.gateway.lock().unwrap_or_else(|e| e.into_inner());
        let Some(running) = gateway.as_mut() else {
            return Err(io::Error::other(
                "this test HBase was started with no Thrift gateway",
            ));
        };
        running.stop();
        let mut fresh = Jvm::start(launcher_on(
            gateway_classpath(&self.options)?,
            &strs(&self.gateway_jvm),
            &strs(&self.gateway_args),
        )?)?;
        fresh.wait_for(
            "The restarted Thrift2 gateway",
            Instant::now() + START_TIMEOUT,
            |l| l == "READY",
        )?;
        *gateway = Some(fresh);
        Ok(())
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "-".to_string();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn unhex(s: &str) -> io::Result<Vec<u8>> {
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

impl Drop for HBase {
    fn drop(&mut self) {
        if let Some(gateway) = self.gateway.get_mut().unwrap_or_else(|e| e.into_inner()) {
            gateway.stop();
        }
        self.cluster
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .stop();
    }
}
