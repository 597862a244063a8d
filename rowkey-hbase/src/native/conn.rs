//! One multiplexed connection to an HBase server (a master or a region
//! server) for one service: calls numbered and written by one task,
//! answers read by another and matched to their calls in any order, each
//! call ended by its own deadline, at most [`MAX_IN_FLIGHT`] at once.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use prost::Message;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot, Semaphore};
use tokio::time::Instant;

use rowkey_hbase_protocol::pb;
use rowkey_hbase_protocol::wire::{self, Answer, WireError};

use super::retry::Settings;

/// A connection's read side (a socket's, or its TLS session's).
type ReadHalf = Box<dyn AsyncRead + Send + Unpin>;
/// A connection's write side.
type WriteHalf = Box<dyn AsyncWrite + Send + Unpin>;

/// The most calls a connection has in flight; a call past it waits for a
/// slot within its deadline.
pub const MAX_IN_FLIGHT: usize = 256;

/// Why a call on a connection failed.
#[derive(Debug, Clone)]
pub enum CallError {
    /// The server answered with an exception.
    Remote(pb::ExceptionResponse),
    /// No answer by the deadline (the connection stays: other calls on it
    /// go on, and a late answer is dropped).
    Timeout,
    /// The connection failed or the server sent bytes that are not HBase's
    /// RPC; every call on it fails so, and it is discarded.
    Broken(String),
    /// The connection's security was refused (a certificate, a server that
    /// does not speak TLS, a Kerberos login, a server that wants one):
    /// trying again cannot help.
    Refused(String),
}

type Waiter = oneshot::Sender<Result<Answer, CallError>>;

/// What the reader and the callers share.
struct Shared {
    pending: Mutex<HashMap<u32, Waiter>>,
    /// Why the connection failed, once it has.
    broken: Mutex<Option<CallError>>,
    closed: AtomicBool,
}

impl Shared {
    /// Fails every call waiting, and every later one, with `why`.
    fn fail(&self, why: String) {
        self.fail_with(CallError::Broken(why));
    }

    /// Fails every call waiting, and every later one, with `why`
    /// ([`CallError::Broken`] or [`CallError::Refused`]).
    fn fail_with(&self, why: CallError) {
        self.closed.store(true, Ordering::SeqCst);
        let mut broken = self.broken.lock().unwrap_or_else(|e| e.into_inner());
        let why = broken.get_or_insert_with(|| why).clone();
        drop(broken);
        let waiting: Vec<Waiter> = self
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain()
            .map(|(_, w)| w)
            .collect();
        for w in waiting {
            let _ = w.send(Err(why.clone()));
        }
    }
}

/// A connection to one server for one service. Cheap to share
/// (`Arc<Conn>`); dropping the last handle ends its tasks.
pub struct Conn {
    frames: mpsc::Sender<Vec<u8>>,
    shared: Arc<Shared>,
    next_id: AtomicU32,
    slots: Semaphore,
}

impl Conn {
    /// Connects to `addr` (TLS first when the settings have it), sends the
    /// preamble and the connection header for `service` as the settings'
    /// user, by `deadline`.
    pub async fn open(
        addr: &str,
        service: &str,
        settings: &Settings,
        deadline: Instant,
    ) -> Result<Conn, CallError> {
        let connect = async {
            let stream = TcpStream::connect(addr)
                .await
                .map_err(|e| CallError::Broken(format!("connecting: {e}")))?;
            stream
                .set_nodelay(true)
                .map_err(|e| CallError::Broken(e.to_string()))?;
            let (mut read, mut write) = secure(stream, addr, settings).await?;
            let (hello, layer) = login(&mut read, &mut write, addr, service, settings).await?;
            write
                .write_all(&hello)
                .await
                .map_err(|e| CallError::Broken(format!("sending the connection header: {e}")))?;
            Ok((read, write, layer))
        };
        let (read, write, layer) = match tokio::time::timeout_at(deadline, connect).await {
            Ok(stream) => stream?,
            Err(_) => return Err(CallError::Timeout),
        };
        let shared = Arc::new(Shared {
            pending: Mutex::new(HashMap::new()),
            broken: Mutex::new(None),
            closed: AtomicBool::new(false),
        });
        let (frames, outgoing) = mpsc::channel::<Vec<u8>>(64);
        tokio::spawn(write_frames(
            write,
            outgoing,
            layer.clone(),
            Arc::clone(&shared),
        ));
        // A plaintext connection dropped unanswered may be a TLS server's.
        #[cfg(feature = "tls")]
        let plaintext = settings.tls.is_none();
        #[cfg(not(feature = "tls"))]
        let plaintext = true;
        tokio::spawn(read_frames(read, layer, plaintext, Arc::clone(&shared)));
        Ok(Conn {
            frames,
            shared,
            next_id: AtomicU32::new(1),
            slots: Semaphore::new(MAX_IN_FLIGHT),
        })
    }

    /// Whether the connection failed (a new one is needed).
    pub fn is_broken(&self) -> bool {
        self.shared.closed.load(Ordering::SeqCst)
    }

    /// Calls `method` with `request` (and `cellblock`) and decodes the
    /// answer as `R`, by `deadline`; the server is told the time left.
    pub async fn call<R: Message + Default>(
        &self,
        method: &str,
        request: &impl Message,
        cellblock: &[u8],
        deadline: Instant,
    ) -> Result<(R, Vec<u8>), CallError> {
        if self.is_broken() {
            return Err(self.broken());
        }
        let _slot = match tokio::time::timeout_at(deadline, self.slots.acquire()).await {
            Ok(Ok(slot)) => slot,
            Ok(Err(_)) => return Err(self.broken()),
            Err(_) => return Err(CallError::Timeout),
        };
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) & 0x7fff_ffff;
        let left = deadline.saturating_duration_since(Instant::now());
        let timeout_ms = u32::try_from(left.as_millis()).unwrap_or(u32::MAX).max(1);
        let frame = wire::call(id, method, request, cellblock, timeout_ms);
        let (tx, rx) = oneshot::channel();
        self.shared
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, tx);
        // The connection may have failed between the check and the insert.
        if self.is_broken() {
            self.forget(id);
            return Err(self.broken());
        }
        let sent = tokio::time::timeout_at(deadline, self.frames.send(frame)).await;
        match sent {
            Ok(Ok(())) => {}
            Ok(Err(_)) => {
                self.forget(id);
                return Err(self.broken());
            }
            Err(_) => {
                self.forget(id);
                return Err(CallError::Timeout);
            }
        }
        let answer = match tokio::time::timeout_at(deadline, rx).await {
            Ok(Ok(answer)) => answer?,
            Ok(Err(_)) => return Err(self.broken()),
            Err(_) => {
                self.forget(id);
                return Err(CallError::Timeout);
            }
        };
        let message = R::decode(answer.message.as_slice()).map_err(|e| {
            CallError::Broken(
                WireError::Protobuf {
                    what: "response message",
                    cause: e.to_string(),
                }
                .to_string(),
            )
        })?;
        Ok((message, answer.cellblock))
    }

    fn forget(&self, id: u32) {
        self.shared
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
    }

    fn broken(&self) -> CallError {
        let why = self
            .shared
            .broken
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        why.unwrap_or_else(|| CallError::Broken("the connection closed".to_owned()))
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        // The writer ends when the channel closes; the reader when the
        // socket does (the writer's half shuts down).
        self.shared.closed.store(true, Ordering::SeqCst);
    }
}

/// The SASL security layer of a kerberized connection asking integrity
/// or privacy (feature `kerberos`): every message both ways is
/// `int32 length + gss_wrap(message)`.
#[derive(Clone)]
#[cfg_attr(not(feature = "kerberos"), allow(dead_code))]
struct Layer {
    #[cfg(feature = "kerberos")]
    gss: crate::shared::kerberos::Gss,
    /// Privacy: encrypted as well as signed.
    #[cfg(feature = "kerberos")]
    encrypt: bool,
}

#[cfg_attr(not(feature = "kerberos"), allow(dead_code, clippy::unnecessary_wraps))]
impl Layer {
    /// `frame` wrapped and framed by its length.
    fn wrap(&self, frame: &[u8]) -> Result<Vec<u8>, String> {
        #[cfg(feature = "kerberos")]
        {
            let wrapped = self.gss.wrap(self.encrypt, frame)?;
            let mut out = Vec::with_capacity(4 + wrapped.len());
            out.extend_from_slice(&(wrapped.len() as u32).to_be_bytes());
            out.extend_from_slice(&wrapped);
            Ok(out)
        }
        #[cfg(not(feature = "kerberos"))]
        Ok(frame.to_vec())
    }

    /// A wrapped message's contents.
    fn unwrap(&self, wrapped: &[u8]) -> Result<Vec<u8>, String> {
        #[cfg(feature = "kerberos")]
        return self.gss.unwrap(wrapped);
        #[cfg(not(feature = "kerberos"))]
        Ok(wrapped.to_vec())
    }
}

/// The login on a fresh connection (Kerberos when the settings have it),
/// and the preamble and connection header to send after it, and the
/// security layer of the messages after them.
async fn login(
    read: &mut ReadHalf,
    write: &mut WriteHalf,
    addr: &str,
    service: &str,
    settings: &Settings,
) -> Result<(Vec<u8>, Option<Layer>), CallError> {
    #[cfg(feature = "kerberos")]
    if let Some(kerberos) = &settings.kerberos {
        use super::sasl::{LoginError, Outcome};
        let outcome = super::sasl::login(read, write, addr, kerberos)
            .await
            .map_err(|e| match e {
                LoginError::Refused(why) => CallError::Refused(why),
                LoginError::Broken(why) => CallError::Broken(why),
            })?;
        return Ok(match outcome {
            // The preamble went with the login.
            Outcome::Secured { gss, user, wrap } => {
                let header = wire::connection_header(&user, service);
                match wrap {
                    None => (header, None),
                    Some(encrypt) => {
                        let layer = Layer { gss, encrypt };
                        (
                            layer.wrap(&header).map_err(CallError::Refused)?,
                            Some(layer),
                        )
                    }
                }
            }
            Outcome::Simple => (wire::connection_header(&settings.user, service), None),
        });
    }
    let _ = (read, write, addr);
    let mut hello = wire::PREAMBLE_SIMPLE.to_vec();
    hello.extend_from_slice(&wire::connection_header(&settings.user, service));
    Ok((hello, None))
}

/// The stream's two sides, after a TLS handshake when the settings have
/// TLS.
async fn secure(
    stream: TcpStream,
    addr: &str,
    settings: &Settings,
) -> Result<(ReadHalf, WriteHalf), CallError> {
    #[cfg(feature = "tls")]
    if let Some(tls) = &settings.tls {
        use super::tls::HandshakeError;
        let stream = tls.handshake(stream, addr).await.map_err(|e| match e {
            HandshakeError::Refused(why) => CallError::Refused(why),
            HandshakeError::Broken(why) => CallError::Broken(why),
        })?;
        let (read, write) = tokio::io::split(stream);
        return Ok((Box::new(read), Box::new(write)));
    }
    let _ = (addr, settings);
    let (read, write) = stream.into_split();
    Ok((Box::new(read), Box::new(write)))
}

async fn write_frames(
    mut write: WriteHalf,
    mut frames: mpsc::Receiver<Vec<u8>>,
    layer: Option<Layer>,
    shared: Arc<Shared>,
) {
    while let Some(frame) = frames.recv().await {
        let frame = match &layer {
            None => frame,
            Some(layer) => match layer.wrap(&frame) {
                Ok(wrapped) => wrapped,
                Err(e) => {
                    shared.fail(e);
                    return;
                }
            },
        };
        if let Err(e) = write.write_all(&frame).await {
            shared.fail(format!("writing a call: {e}"));
            return;
        }
    }
    let _ = write.shutdown().await;
}

/// One frame as the server sent it (`int32 length + bytes`), its length
/// checked; `hint` says whether a connection dropped now may be a TLS
/// server's (a plaintext one with no answer yet: a server serving TLS only
/// drops it without a word).
async fn read_frame(read: &mut ReadHalf, hint: bool) -> Result<Vec<u8>, String> {
    let mut prefix = [0u8; 4];
    if let Err(e) = read.read_exact(&mut prefix).await {
        let dropped = matches!(
            e.kind(),
            std::io::ErrorKind::UnexpectedEof | std::io::ErrorKind::ConnectionReset
        );
        if dropped && hint {
            return Err(
                "the server closed the connection before answering anything \
                        (if it serves TLS only, HBase's hbase.server.netty.tls.enabled, \
                        the client needs ClientBuilder::tls)"
                    .to_owned(),
            );
        }
        return Err(format!("reading an answer: {e}"));
    }
    let len = wire::frame_len(prefix).map_err(|e| e.to_string())?;
    // Read in steps, so a length that lies costs no more memory than the
    // bytes that actually came.
    let mut frame = Vec::with_capacity(len.min(1 << 20));
    let mut chunk = read.take(len as u64);
    match chunk.read_to_end(&mut frame).await {
        Ok(n) if n == len => Ok(frame),
        Ok(n) => Err(format!("an answer cut short: {n} of {len} bytes")),
        Err(e) => Err(format!("reading an answer: {e}")),
    }
}

/// The next whole frame of unwrapped bytes, taken off `pending`.
fn take_frame(pending: &mut Vec<u8>) -> Result<Option<Vec<u8>>, String> {
    let Some(prefix) = pending.first_chunk::<4>() else {
        return Ok(None);
    };
    let len = wire::frame_len(*prefix).map_err(|e| e.to_string())?;
    if pending.len() < 4 + len {
        return Ok(None);
    }
    let frame = pending[4..4 + len].to_vec();
    pending.drain(..4 + len);
    Ok(Some(frame))
}

async fn read_frames(
    mut read: ReadHalf,
    layer: Option<Layer>,
    plaintext: bool,
    shared: Arc<Shared>,
) {
    let mut answered = false;
    // Unwrapped bytes not yet a whole frame (a security layer's messages
    // need not end where frames do).
    let mut pending = Vec::new();
    let why = loop {
        let frame = match &layer {
            None => read_frame(&mut read, plaintext && !answered).await,
            Some(layer) => loop {
                match take_frame(&mut pending) {
                    Ok(Some(frame)) => break Ok(frame),
                    Ok(None) => {}
                    Err(e) => break Err(e),
                }
                match read_frame(&mut read, plaintext && !answered).await {
                    Ok(wrapped) => match layer.unwrap(&wrapped) {
                        Ok(bytes) => pending.extend_from_slice(&bytes),
                        Err(e) => break Err(e),
                    },
                    Err(e) => break Err(e),
                }
            },
        };
        let frame = match frame {
            Ok(frame) => frame,
            Err(e) => break CallError::Broken(e),
        };
        answered = true;
        let response = match wire::response(&frame) {
            Ok(r) => r,
            Err(e) => break CallError::Broken(e.to_string()),
        };
        let waiter = shared
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&response.call_id);
        match (waiter, response.body) {
            (Some(w), body) => {
                let _ = w.send(body.map_err(CallError::Remote));
            }
            // An answer to no call (id -1): the server refused the
            // connection itself, and closes it.
            (None, Err(e)) if response.call_id == u32::MAX => break refusal(&e),
            // A call that timed out has no waiter: its late answer is
            // dropped.
            (None, _) => {}
        }
    };
    shared.fail_with(why);
}

/// The server's refusal of a connection (its preamble or its connection
/// header): what it said and what to do.
fn refusal(e: &pb::ExceptionResponse) -> CallError {
    let class = e.exception_class_name.as_deref().unwrap_or("an exception");
    let message = e
        .stack_trace
        .as_deref()
        .and_then(|t| t.lines().next())
        .filter(|line| !line.is_empty())
        .unwrap_or(class);
    let hint = if message.contains("Authentication is required") {
        " (the cluster is kerberized, hbase.security.authentication=kerberos: \
         log in with ClientBuilder::kerberos)"
    } else {
        ""
    };
    CallError::Refused(format!(
        "the server refused the connection: {message}{hint}"
    ))
}
