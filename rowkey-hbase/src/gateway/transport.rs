//! One gateway connection: the socket (or HTTP agent) under the Thrift2
//! protocol, with the deadline of the call it serves. Every read and write
//! checks the deadline and waits at most until it, so a call ends by its
//! deadline whatever the server does (never answers, answers half a frame,
//! stops reading a large write); the connection then says it timed out and
//! is discarded.

use std::io::{self, Cursor, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use thrift::protocol::{
    TBinaryOutputProtocol, TCompactOutputProtocol, TInputProtocol, TOutputProtocol,
};
use thrift::transport::{TBufferedReadTransport, TBufferedWriteTransport, TFramedWriteTransport};

use crate::gateway::bounded::{BinaryIn, Budget, CompactIn, Counted, FramedRead, MAX_REPLY};
use crate::settings::{Protocol, Tls, Transport};
use crate::thrift::THBaseServiceSyncClient;

/// The Thrift2 client of one connection.
pub(crate) type Thrift =
    THBaseServiceSyncClient<Box<dyn TInputProtocol + Send>, Box<dyn TOutputProtocol + Send>>;

/// Where and how to open connections: fixed when the client is built.
pub(crate) struct Endpoint {
    /// The address as given (for errors).
    pub(crate) addr: String,
    kind: EndpointKind,
    protocol: Protocol,
    connect_timeout: Duration,
}

enum EndpointKind {
    Socket {
        addrs: Vec<SocketAddr>,
        framed: bool,
    },
    Http {
        url: String,
        agent: ureq::Agent,
        /// SPNEGO: each request's `Authorization: Negotiate` header.
        #[cfg(feature = "kerberos")]
        negotiate: Option<Arc<Negotiate>>,
    },
}

/// A Kerberos login to an HTTP gateway (SPNEGO) and the host its
/// principal names.
#[cfg(feature = "kerberos")]
pub(crate) struct Negotiate {
    login: crate::shared::kerberos::KerberosLogin,
    host: String,
}

impl Endpoint {
    pub(crate) fn new(
        addr: &str,
        transport: Transport,
        protocol: Protocol,
        connect_timeout: Duration,
        tls: Option<&Tls>,
    ) -> Result<Endpoint, crate::Error> {
        let kind = match transport {
            Transport::Buffered | Transport::Framed => {
                if tls.is_some() {
                    return Err(crate::Error::Config(
                        "TLS needs Transport::Http: HBase's Thrift gateway serves TLS only in its HTTP mode".into(),
                    ));
                }
                let addrs = addr
                    .to_socket_addrs()
                    .map_err(|cause| crate::Error::Connect {
                        addr: addr.to_string(),
                        cause,
                    })?
                    .collect();
                EndpointKind::Socket {
                    addrs,
                    framed: transport == Transport::Framed,
                }
            }
            Transport::Http => {
                if tls.is_some() && addr.starts_with("http://") {
                    return Err(crate::Error::Config(format!(
                        "{addr}: TLS settings with an http:// address would send in plaintext; use https://"
                    )));
                }
                let url = if addr.starts_with("http://") || addr.starts_with("https://") {
                    addr.to_string()
                } else if tls.is_some() {
                    format!("https://{addr}/")
                } else {
                    format!("http://{addr}/")
                };
                let mut config = ureq::Agent::config_builder()
                    .http_status_as_error(false)
                    .timeout_connect(Some(connect_timeout))
                    .user_agent("rowkey-hbase");
                if let Some(tls) = tls {
                    config = config.tls_config(tls.config().map_err(crate::Error::Config)?);
                }
                EndpointKind::Http {
                    url,
                    agent: config.build().into(),
                    #[cfg(feature = "kerberos")]
                    negotiate: None,
                }
            }
        };
        Ok(Endpoint {
            addr: addr.to_string(),
            kind,
            protocol,
            connect_timeout,
        })
    }

    /// The same endpoint logging in to an HTTP gateway with Kerberos
    /// (SPNEGO, the gateway's `hbase.thrift.spnego.*`): each request
    /// carries a fresh `Authorization: Negotiate` token for
    /// `HTTP/host@REALM`. The binary gateway's SASL is not supported.
    #[cfg(feature = "kerberos")]
    pub(crate) fn with_negotiate(
        mut self,
        kerberos: crate::Kerberos,
    ) -> Result<Endpoint, crate::Error> {
        let EndpointKind::Http { url, negotiate, .. } = &mut self.kind else {
            return Err(crate::Error::Config(format!(
                "{}: a Kerberos login to the Thrift2 gateway needs Transport::Http \
                 (SPNEGO, hbase.regionserver.thrift.http); the binary gateway's SASL \
                 is not supported (or reach HBase with Client::native)",
                self.addr
            )));
        };
        let rest = url.split_once("://").map_or(url.as_str(), |(_, rest)| rest);
        let authority = rest.split(['/', '?']).next().unwrap_or_default();
        let host = match authority.rsplit_once(':') {
            Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) => host,
            _ => authority,
        };
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        *negotiate = Some(Arc::new(Negotiate {
            login: crate::shared::kerberos::KerberosLogin::new(kerberos),
            host,
        }));
        Ok(self)
    }

    /// Opens a connection, waiting at most the connect timeout and at most
    /// until `deadline`. An `io::ErrorKind::TimedOut` error means it did
    /// not connect in time.
    pub(crate) fn open(&self, deadline: Instant) -> io::Result<Conn> {
        let clock = Arc::new(Clock::default());
        let (read, write): (Box<dyn Read + Send>, Box<dyn Write + Send>) = match &self.kind {
            EndpointKind::Socket { addrs, framed } => {
                let stream = self.connect(addrs, deadline)?;
                stream.set_nodelay(true)?;
                let read = Socket {
                    stream: stream.try_clone()?,
                    clock: Arc::clone(&clock),
                };
                let write = Socket {
                    stream,
                    clock: Arc::clone(&clock),
                };
                if *framed {
                    (
                        Box::new(FramedRead::new(TBufferedReadTransport::new(read))),
                        Box::new(TFramedWriteTransport::new(write)),
                    )
                } else {
                    (
                        Box::new(TBufferedReadTransport::new(read)),
                        Box::new(TBufferedWriteTransport::new(write)),
                    )
                }
            }
            EndpointKind::Http {
                url,
                agent,
                #[cfg(feature = "kerberos")]
                negotiate,
            } => {
                let shared = Arc::new(Mutex::new(Exchange {
                    agent: agent.clone(),
                    url: url.clone(),
                    #[cfg(feature = "kerberos")]
                    negotiate: negotiate.clone(),
                    clock: Arc::clone(&clock),
                    request: Vec::new(),
                    response: Cursor::new(Vec::new()),
                }));
                (
                    Box::new(HttpRead(Arc::clone(&shared))),
                    Box::new(HttpWrite(shared)),
                )
            }
        };
        // Every reply read with its sizes checked against its budget.
        let budget = Arc::new(Budget::default());
        let read = Counted::new(read, Arc::clone(&budget));
        let (input, output): (
            Box<dyn TInputProtocol + Send>,
            Box<dyn TOutputProtocol + Send>,
        ) = match self.protocol {
            Protocol::Binary => (
                Box::new(BinaryIn::new(read)),
                Box::new(TBinaryOutputProtocol::new(write, true)),
            ),
            Protocol::Compact => (
                Box::new(CompactIn::new(read)),
                Box::new(TCompactOutputProtocol::new(write)),
            ),
        };
        Ok(Conn {
            thrift: THBaseServiceSyncClient::new(input, output),
            clock,
            budget,
        })
    }

    /// The first address that accepts, each tried until the connect timeout
    /// or the deadline, whichever is sooner.
    fn connect(&self, addrs: &[SocketAddr], deadline: Instant) -> io::Result<TcpStream> {
        let mut last = io::Error::new(io::ErrorKind::NotFound, "the address resolves to nothing");
        for addr in addrs {
            let wait = self
                .connect_timeout
                .min(deadline.saturating_duration_since(Instant::now()));
            if wait.is_zero() {
                return Err(io::Error::new(io::ErrorKind::TimedOut, "connect timed out"));
            }
            match TcpStream::connect_timeout(addr, wait) {
                Ok(stream) => return Ok(stream),
                Err(e) => last = e,
            }
        }
        Err(last)
    }
}

/// A gateway connection and the deadline of the call it serves.
pub(crate) struct Conn {
    pub(crate) thrift: Thrift,
    clock: Arc<Clock>,
    /// What is left of the reply's bytes ([`MAX_REPLY`]).
    budget: Arc<Budget>,
}

impl Conn {
    /// Sets the deadline of the next call, and its reply's budget.
    pub(crate) fn begin(&self, deadline: Instant) {
        self.budget.reset();
        *self
            .clock
            .deadline
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(deadline);
        self.clock.timed_out.store(false, Ordering::Relaxed);
    }

    /// A read or write of the call passed its deadline.
    pub(crate) fn timed_out(&self) -> bool {
        self.clock.timed_out.load(Ordering::Relaxed)
    }
}

/// The deadline shared by a connection's read and write halves.
#[derive(Default)]
struct Clock {
    deadline: Mutex<Option<Instant>>,
    timed_out: AtomicBool,
}

impl Clock {
    /// The time left until the deadline, or a `TimedOut` error once it has
    /// passed.
    fn left(&self) -> io::Result<Option<Duration>> {
        let deadline = *self.deadline.lock().unwrap_or_else(|e| e.into_inner());
        match deadline {
            None => Ok(None),
            Some(d) => match d.checked_duration_since(Instant::now()) {
                Some(left) if !left.is_zero() => Ok(Some(left)),
                _ => Err(self.expired()),
            },
        }
    }

    fn expired(&self) -> io::Error {
        self.timed_out.store(true, Ordering::Relaxed);
        io::Error::new(io::ErrorKind::TimedOut, "the call's deadline passed")
    }

    /// A socket timeout (`WouldBlock` on Unix, `TimedOut` on Windows) as
    /// the deadline passing.
    fn check<T>(&self, r: io::Result<T>) -> io::Result<T> {
        match r {
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                Err(self.expired())
            }
            r => r,
        }
    }
}

/// One half of a TCP connection, every read and write bounded by the
/// call's deadline.
struct Socket {
    stream: TcpStream,
    clock: Arc<Clock>,
}

impl Read for Socket {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.clock.left()?;
        self.stream.set_read_timeout(left)?;
        let r = self.stream.read(buf);
        self.clock.check(r)
    }
}

impl Write for Socket {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let left = self.clock.left()?;
        self.stream.set_write_timeout(left)?;
        let r = self.stream.write(buf);
        self.clock.check(r)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.stream.flush()
    }
}

/// An HTTP connection's call in progress: the message being written, then
/// the answer being read.
struct Exchange {
    agent: ureq::Agent,
    url: String,
    #[cfg(feature = "kerberos")]
    negotiate: Option<Arc<Negotiate>>,
    clock: Arc<Clock>,
    request: Vec<u8>,
    response: Cursor<Vec<u8>>,
}

impl Exchange {
    /// POSTs the message written so far; its answer is what is read next.
    fn send(&mut self) -> io::Result<()> {
        let body = std::mem::take(&mut self.request);
        let left = self.clock.left()?;
        let request = self
            .agent
            .post(&self.url)
            .config()
            .timeout_global(left)
            .build()
            .header("Content-Type", "application/x-thrift")
            .header("Accept", "application/x-thrift");
        #[cfg(feature = "kerberos")]
        let request = match &self.negotiate {
            Some(n) => {
                let header = n.login.negotiate(&n.host).map_err(|e| {
                    io::Error::new(
                        io::ErrorKind::PermissionDenied,
                        format!("POST {}: {e}", self.url),
                    )
                })?;
                request.header("Authorization", header)
            }
            None => request,
        };
        let mut response = match request.send(&body[..]) {
            Ok(r) => r,
            Err(ureq::Error::Timeout(_)) => return Err(self.clock.expired()),
            Err(ureq::Error::Io(e)) => return self.clock.check(Err(e)),
            Err(e) => return Err(io::Error::other(format!("POST {}: {e}", self.url))),
        };
        let status = response.status();
        if status == 401 || status == 403 {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "POST {}: the gateway refused the login (HTTP {status}): a kerberized \
                     gateway (hbase.thrift.spnego.*) needs ClientBuilder::kerberos",
                    self.url
                ),
            ));
        }
        if !status.is_success() {
            return Err(io::Error::other(format!(
                "POST {}: the gateway answered HTTP {status}",
                self.url
            )));
        }
        let bytes = response
            .body_mut()
            .with_config()
            .limit(MAX_REPLY)
            .read_to_vec()
            .map_err(|e| match e {
                ureq::Error::Timeout(_) => self.clock.expired(),
                e => io::Error::other(format!("POST {}: reading the answer: {e}", self.url)),
            })?;
        self.response = Cursor::new(bytes);
        Ok(())
    }
}

struct HttpRead(Arc<Mutex<Exchange>>);
struct HttpWrite(Arc<Mutex<Exchange>>);

impl Read for HttpRead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .response
            .read(buf)
    }
}

impl Write for HttpWrite {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut exchange = self.0.lock().unwrap_or_else(|e| e.into_inner());
        exchange.request.extend_from_slice(buf);
        Ok(buf.len())
    }

    /// The end of a message: it is sent.
    fn flush(&mut self) -> io::Result<()> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).send()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CERT: &[u8] = include_bytes!("../../tests/data/other-root.pem");
    const KEY: &[u8] = include_bytes!("../../tests/data/other-root.key");

    /// TLS settings with an `http://` address: refused, never plaintext;
    /// `{:?}` of the settings shows no key material.
    #[test]
    fn tls_is_never_plaintext_and_never_printed() {
        let tls = Tls::root_pem(CERT).client_identity(CERT, KEY);
        let e = Endpoint::new(
            "http://gateway:9090/",
            Transport::Http,
            Protocol::Binary,
            Duration::from_secs(1),
            Some(&tls),
        )
        .err()
        .expect("refused");
        assert!(e.to_string().contains("plaintext"), "{e}");
        let shown = format!("{tls:?}");
        let key = String::from_utf8_lossy(KEY);
        let secret = key.lines().nth(1).unwrap();
        assert!(
            !shown.contains(secret) && !shown.contains("PRIVATE"),
            "{shown}"
        );
        assert!(shown.contains("not shown"), "{shown}");
    }

    #[test]
    fn certificates_and_keys_are_read_or_named() {
        assert!(Tls::root_pem(CERT).config().is_ok());
        assert!(Tls::root_pem(CERT)
            .client_identity(CERT, KEY)
            .config()
            .is_ok());
        let e = Tls::root_pem(&b"-----BEGIN NOTHING-----"[..])
            .config()
            .unwrap_err();
        assert!(e.starts_with("the root certificate"), "{e}");
        let e = Tls::root_pem(CERT)
            .client_identity(KEY, KEY)
            .config()
            .unwrap_err();
        assert!(e.starts_with("the client certificate:"), "{e}");
        let e = Tls::root_pem(CERT)
            .client_identity(CERT, CERT)
            .config()
            .unwrap_err();
        assert!(e.starts_with("the client certificate's private key"), "{e}");
    }
}
