//! What can go wrong talking to HBase, and which of it a caller may retry.

use std::time::Duration;

use rowkey_core::hbase::to_string_binary;
use rowkey_core::{DecodeError, EncodeError};
use thrift::{ApplicationErrorKind, TransportErrorKind};

use crate::thrift::{TIOError, TIllegalArgument};

/// What can go wrong talking to HBase. Every variant names the table it
/// was about and, where there is one, the row key in HBase's
/// `toStringBinary` form. As the Rust API guidelines ask (C-GOOD-ERR),
/// `{}` says what failed and [`source`](std::error::Error::source) is the
/// error that made it fail (the socket's, the Thrift transport's, the
/// key's encoding), so [`rowkey_core::error_chain`] prints the whole
/// story once. A cause that is HBase's own text (a refusal's message) is
/// no error of its own and is part of `{}`. `rowkey-bigtable`'s errors
/// follow the same rule.
///
/// ```
/// use rowkey_hbase::{Error, RejectedRow};
///
/// let e = Error::Rejected {
///     table: "events".into(),
///     rejected: vec![RejectedRow { index: 3, key: r"\x00\x01".into(), message: "no family x".into() }],
/// };
/// assert_eq!(e.to_string(), r"HBase rejected 1 of the rows written to table events (first: \x00\x01: no family x)");
/// assert!(!e.is_retryable());
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The gateway could not be reached (the connection was refused, the
    /// address does not resolve, the TLS handshake failed).
    #[error("connecting to the HBase Thrift2 gateway at {addr}")]
    Connect {
        /// The address as given.
        addr: String,
        /// The socket's error.
        #[source]
        cause: std::io::Error,
    },
    /// The call did not finish within its deadline
    /// ([`ClientBuilder::request_timeout`](crate::ClientBuilder::request_timeout),
    /// or [`connect_timeout`](crate::ClientBuilder::connect_timeout) for
    /// `connect`). The connection it used is discarded.
    #[error("HBase {op} on table {table}: no answer within {deadline:?}")]
    Timeout {
        /// The Thrift2 call (`connect` for a connection that could not be
        /// opened in time, `checkout` for a pool that had no free
        /// connection in time).
        op: &'static str,
        /// The table.
        table: String,
        /// The deadline that passed.
        deadline: Duration,
    },
    /// HBase refused a call (an unknown table or family, a table that
    /// exists already, a region server that failed, an argument the
    /// gateway could not use): HBase's own message, its first line.
    #[error("HBase {op} on table {table}{}: {message}", at(.key))]
    Server {
        /// The Thrift2 call.
        op: &'static str,
        /// The table.
        table: String,
        /// The row concerned, in `toStringBinary` form.
        key: Option<String>,
        /// HBase's message (`TIOError` or `TIllegalArgument`).
        message: String,
        /// HBase said the call may succeed if sent again (`TIOError.canRetry`,
        /// false for HBase's `DoNotRetryIOException`s: a missing table or
        /// family).
        can_retry: bool,
    },
    /// The connection to the gateway failed, or the gateway answered
    /// something that is not the answer to the call (it went away
    /// mid-scan, a reply out of sequence). The connection is discarded.
    #[error("HBase {op} on table {table}{}: the gateway connection failed", at(.key))]
    Thrift {
        /// The Thrift2 call.
        op: &'static str,
        /// The table.
        table: String,
        /// The row concerned, in `toStringBinary` form.
        key: Option<String>,
        /// The transport's or protocol's error.
        #[source]
        cause: ThriftError,
    },
    /// The native client's connection to an HBase server failed, or the
    /// server sent bytes that are not HBase's RPC (feature `native`). The
    /// connection is discarded; every call on it ends so.
    #[error("HBase {op} on table {table}{}: {cause}", failed_at(.server))]
    Connection {
        /// The RPC method (`Get`, `Multi`, `Scan`, ...), or `connect`.
        op: &'static str,
        /// The table.
        table: String,
        /// The server, `host:port` (empty when the operation failed across
        /// several, as regions moved).
        server: String,
        /// What failed.
        cause: String,
    },
    /// HBase's access control refused the call
    /// (`hbase.security.authorization=true`, HBase's
    /// `AccessDeniedException`): the user has no right to do `action` on
    /// the table. Never tried again: a grant (`grant 'user', 'RW',
    /// 'table'` in HBase's shell) is what changes it.
    #[error("HBase {op} on table {table}: access denied: user {user} may not {action} (HBase's message: {message})")]
    AccessDenied {
        /// The call.
        op: &'static str,
        /// The user as HBase's message names it (its short name, `alice`,
        /// or for some calls its whole principal, `alice@EXAMPLE.COM`), or
        /// `unknown` when the message does not say.
        user: String,
        /// The table.
        table: String,
        /// The right missing, as HBase names it (`READ`, `WRITE`,
        /// `CREATE`, `ADMIN`, `EXEC`), or `unknown`.
        action: String,
        /// HBase's message, its first line.
        message: String,
    },
    /// A native client's connection to an HBase server was refused at its
    /// security: a certificate refused by either side, a server that does
    /// not speak the TLS the client asked for. Never tried again: the
    /// cause says what to change.
    #[error("HBase {op} on table {table}: the connection to {server} was refused: {cause}")]
    Security {
        /// The RPC method, or `connect`.
        op: &'static str,
        /// The table.
        table: String,
        /// The server, `host:port`.
        server: String,
        /// What was refused, and what to change.
        cause: String,
    },
    /// Some rows of a [`Client::write_rows`](crate::Client::write_rows)
    /// call were rejected; every other row was written.
    #[error(
        "HBase rejected {} of the rows written to table {table} (first: {})",
        .rejected.len(),
        .rejected.first().map_or(String::new(), |r| format!("{}: {}", r.key, r.message))
    )]
    Rejected {
        /// The table.
        table: String,
        /// Each rejected row, in the order of the input.
        rejected: Vec<RejectedRow>,
    },
    /// A key could not be encoded; the rows of its batch were not sent.
    #[error("encoding a row key for table {table}")]
    Encode {
        /// The table.
        table: String,
        /// Which field could not be encoded.
        #[source]
        cause: EncodeError,
    },
    /// A row read by a typed scan whose key is not a key of the type
    /// (written by another program, say); the scan goes on after it.
    #[error("row {key} of table {table} is not a key of {type_name}")]
    ForeignRow {
        /// The table.
        table: String,
        /// The key in `toStringBinary` form.
        key: String,
        /// The key type it was decoded as.
        type_name: &'static str,
        /// Why it does not decode.
        #[source]
        cause: DecodeError,
    },
    /// The client's settings cannot be used (a certificate that is not
    /// PEM, a transport without the address it needs).
    #[error("HBase client settings: {0}")]
    Config(String),
    /// The table does not exist: the one error every call gives for it
    /// (HBase's gateway says so in a different way for each call: a scan's
    /// first batch, a get and a delete name the table alone, a write
    /// `TableNotFoundException`, a region lookup gives no regions), found
    /// when the call fails, or the scan opens, and confirmed with
    /// `tableExists`.
    #[error("HBase {op} on table {table}: TableNotFoundException: table {table} does not exist")]
    TableNotFound {
        /// The call that found it.
        op: &'static str,
        /// The table.
        table: String,
    },
    /// A bulk load's files could not be read, split or named
    /// ([`Client::bulk_load`](crate::Client::bulk_load)): a file that is
    /// not an HFile, a family the table does not have, a directory that
    /// cannot be listed.
    #[error("bulk load into {table}: {cause}")]
    BulkLoad {
        /// The table.
        table: String,
        /// What is wrong, naming the file or family.
        cause: String,
    },
}

/// The Thrift library's error under an [`Error::Thrift`], printed with
/// its message (the library's own `Display` of a transport or protocol
/// error prints only its kind: "transport error").
#[derive(Debug)]
pub struct ThriftError(thrift::Error);

impl ThriftError {
    /// The Thrift library's error.
    pub fn get_ref(&self) -> &thrift::Error {
        &self.0
    }

    /// The Thrift library's error, owned.
    pub fn into_inner(self) -> thrift::Error {
        self.0
    }
}

impl std::fmt::Display for ThriftError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (kind, message) = match &self.0 {
            thrift::Error::Transport(t) => (t.to_string(), &t.message),
            thrift::Error::Protocol(p) => (p.to_string(), &p.message),
            thrift::Error::Application(a) => (a.to_string(), &a.message),
            thrift::Error::User(u) => return write!(f, "{u}"),
        };
        if message.is_empty() || message == &kind {
            f.write_str(&kind)
        } else {
            write!(f, "{kind}: {message}")
        }
    }
}

impl std::error::Error for ThriftError {}

fn at(key: &Option<String>) -> String {
    key.as_ref()
        .map_or(String::new(), |k| format!(" at row {k}"))
}

impl Error {
    /// A failed Thrift call as an [`Error`]: a call past its deadline
    /// (`timed_out`) as [`Error::Timeout`]; HBase's exceptions (`TIOError`,
    /// `TIllegalArgument`, the gateway's own application errors) as
    /// [`Error::Server`] with the first line of their message (HBase puts
    /// its stack trace after it); the rest, and the protocol errors the
    /// thrift library raises itself (a reply out of sequence, say), as
    /// [`Error::Thrift`].
    pub(crate) fn call(
        op: &'static str,
        table: &str,
        key: Option<&[u8]>,
        e: thrift::Error,
        timed_out: Option<Duration>,
    ) -> Error {
        let table = table.to_string();
        if let Some(deadline) = timed_out {
            return Error::Timeout {
                op,
                table,
                deadline,
            };
        }
        let key = key.map(to_string_binary);
        let server = |message: String, can_retry: bool| {
            let message = message.lines().next().unwrap_or_default().to_string();
            if let Some(denied) = Error::access_denied(op, &table, &message) {
                return denied;
            }
            let can_retry = can_retry && !permanent(&message);
            Error::Server {
                op,
                table: table.clone(),
                key: key.clone(),
                message,
                can_retry,
            }
        };
        match &e {
            thrift::Error::User(u) => {
                if let Some(io) = u.downcast_ref::<TIOError>() {
                    let message = io.message.clone().unwrap_or_else(|| u.to_string());
                    return server(message, io.can_retry.unwrap_or(false));
                }
                if let Some(a) = u.downcast_ref::<TIllegalArgument>() {
                    return server(a.message.clone().unwrap_or_else(|| u.to_string()), false);
                }
                server(u.to_string(), false)
            }
            // The gateway answered with an exception of its own (an
            // argument HBase's client refused before sending it, say); the
            // kinds the thrift library raises when a reply does not match
            // its call mean the connection is out of step.
            thrift::Error::Application(a) if !out_of_step(a.kind) => {
                server(a.message.clone(), false)
            }
            _ => Error::Thrift {
                op,
                table,
                key,
                cause: ThriftError(e),
            },
        }
    }

    /// [`Error::AccessDenied`] for HBase's message (its first line) when
    /// it is an `AccessDeniedException`'s, with the user and the action
    /// read from it. HBase words it two ways: `Insufficient permissions
    /// for user 'alice' (table=t, action=READ)`, and `Insufficient
    /// permissions (user=alice, scope=default:t, ..., action=WRITE)`.
    pub(crate) fn access_denied(op: &'static str, table: &str, message: &str) -> Option<Error> {
        const CLASS: &str = "org.apache.hadoop.hbase.security.AccessDeniedException";
        if !message.contains(CLASS) {
            return None;
        }
        let after = |marker: &str, end: &[char]| {
            let from = message.find(marker)? + marker.len();
            let rest = &message[from..];
            let to = rest.find(end).unwrap_or(rest.len());
            Some(rest[..to].trim().to_owned()).filter(|s| !s.is_empty())
        };
        let user = after("for user '", &['\''])
            .or_else(|| after("user=", &[',', ')']))
            .unwrap_or_else(|| "unknown".into());
        let action = after("action=", &[',', ')', ' ']).unwrap_or_else(|| "unknown".into());
        Some(Error::AccessDenied {
            op,
            user,
            table: table.into(),
            action,
            message: message.to_owned(),
        })
    }

    /// The refusal of a write whose rows `rejected` (sorted by place) are
    /// some of `total`: [`Error::AccessDenied`] when HBase's access control
    /// refused every row (a right missing on the table is no row's own
    /// fault), else [`Error::Rejected`] naming each.
    pub(crate) fn rejected(
        op: &'static str,
        table: &str,
        rejected: Vec<RejectedRow>,
        total: usize,
    ) -> Error {
        if rejected.len() == total {
            let denied: Option<Vec<Error>> = rejected
                .iter()
                .map(|r| Error::access_denied(op, table, &r.message))
                .collect();
            if let Some(first) = denied.and_then(|d| d.into_iter().next()) {
                return first;
            }
        }
        Error::Rejected {
            table: table.to_string(),
            rejected,
        }
    }

    /// HBase refused the call (as opposed to the connection failing).
    pub fn is_server(&self) -> bool {
        matches!(self, Error::Server { .. })
    }

    /// The call passed its deadline.
    pub fn is_timeout(&self) -> bool {
        matches!(self, Error::Timeout { .. })
    }

    /// Whether sending the same call again may succeed: a connection that
    /// failed or timed out, or a refusal HBase marks as retryable. The
    /// client has already retried reads, and writes stamped with one
    /// timestamp, as far as its [`RetryPolicy`](crate::RetryPolicy) and
    /// deadline allow; a caller that retries a write of its own must keep
    /// its timestamp ([`WriteOptions::timestamp`](crate::WriteOptions)).
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Connect { .. } | Error::Timeout { .. } | Error::Connection { .. } => true,
            Error::Thrift { cause, .. } => !matches!(
                cause.get_ref(),
                thrift::Error::Transport(t) if t.kind == TransportErrorKind::SizeLimit
            ),
            Error::Server { can_retry, .. } => *can_retry,
            _ => false,
        }
    }

    /// The connection the call used may be used again: HBase answered.
    pub(crate) fn keeps_connection(&self) -> bool {
        matches!(self, Error::Server { .. } | Error::TableNotFound { .. })
    }

    /// A refusal that may say the table is missing (the gateway's messages
    /// for it: the table's name alone, `TableNotFoundException`, a batch's
    /// "Failed N action: TABLE: ..."): worth asking HBase whether the
    /// table exists. A disabled table's refusal also names it alone, so
    /// the message alone decides nothing.
    pub(crate) fn may_be_missing_table(&self) -> bool {
        let Error::Server { table, message, .. } = self else {
            return false;
        };
        let named = |m: &str| m == table || m.strip_prefix("default:") == Some(table.as_str());
        named(message.trim())
            || message.contains("TableNotFoundException")
            || (message.starts_with("Failed ") && message.contains(&format!(": {table}: ")))
    }
}

/// Application errors the thrift library raises on the client when a reply
/// is not the answer to the call sent: the connection is out of step.
fn out_of_step(kind: ApplicationErrorKind) -> bool {
    matches!(
        kind,
        ApplicationErrorKind::BadSequenceId
            | ApplicationErrorKind::WrongMethodName
            | ApplicationErrorKind::InvalidMessageType
            | ApplicationErrorKind::ProtocolError
            | ApplicationErrorKind::InvalidTransform
            | ApplicationErrorKind::InvalidProtocol
            | ApplicationErrorKind::UnsupportedClientType
    )
}

/// HBase's failures that no retry of ours mends, whatever `canRetry` says:
/// the gateway's own HBase client has already retried a batch it reports
/// as `RetriesExhaustedWithDetailsException` ("Failed N actions: ...",
/// which it marks as retryable; a missing table or family among them).
pub(crate) fn permanent(message: &str) -> bool {
    (message.starts_with("Failed ") && message.contains(" action"))
        || [
            "TableNotFoundException",
            "NoSuchColumnFamilyException",
            "DoNotRetryIOException",
            "TableNotEnabledException",
            "TableExistsException",
        ]
        .iter()
        .any(|name| message.contains(name))
}

/// A row that [`Client::write_rows`](crate::Client::write_rows) could not
/// write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RejectedRow {
    /// The row's position in the input.
    pub index: usize,
    /// The row key in HBase's `toStringBinary` form.
    pub key: String,
    /// HBase's message.
    pub message: String,
}

/// Where an [`Error::Connection`] failed, for its message.
fn failed_at(server: &str) -> String {
    if server.is_empty() {
        " failed".into()
    } else {
        format!(": the connection to {server} failed")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// HBase 2.6's two wordings (AccessChecker's and AuthResult's), as a
    /// region server's exception and as the gateway's `TIOError` carry them.
    #[test]
    fn access_denied_names_user_and_action() {
        let class = "org.apache.hadoop.hbase.security.AccessDeniedException";
        let cases = [
            (
                format!("{class}: Insufficient permissions for user 'bob' (table=t1, action=READ)"),
                "bob",
                "READ",
            ),
            (
                format!(
                    "{class}: Insufficient permissions (user=alice@EXAMPLE.COM, scope=default:t1, \
                     family=d:n, params=[table=default:t1,family=d:n],action=WRITE)"
                ),
                "alice@EXAMPLE.COM",
                "WRITE",
            ),
            (format!("{class}: something else"), "unknown", "unknown"),
        ];
        for (message, user, action) in cases {
            match Error::access_denied("Get", "t1", &message) {
                Some(Error::AccessDenied {
                    user: u, action: a, ..
                }) => assert_eq!((u.as_str(), a.as_str()), (user, action), "{message}"),
                other => panic!("{message}: {other:?}"),
            }
        }
        assert!(Error::access_denied("Get", "t1", "java.io.IOException: no").is_none());
        let gateway = Error::call(
            "get",
            "t1",
            None,
            thrift::Error::User(Box::new(TIOError::new(
                format!("{class}: Insufficient permissions for user 'bob' (table=t1, action=READ)\n\tat ..."),
                false,
            ))),
            None,
        );
        assert!(matches!(gateway, Error::AccessDenied { .. }), "{gateway:?}");
        assert!(!gateway.is_retryable());
    }

    /// The rule both engine crates follow (C-GOOD-ERR): `Display` says
    /// what failed, `source()` is the cause (a thrift error's message
    /// included, which its own `Display` leaves out), and the chain
    /// printer shows the cause once.
    #[test]
    fn errors_print_their_cause_once() {
        use std::error::Error as _;
        let thrift = thrift::Error::Transport(thrift::TransportError::new(
            TransportErrorKind::EndOfFile,
            "the gateway hung up",
        ));
        let errors = [
            (
                Error::call("get", "t", Some(b"k"), thrift, None),
                "the gateway hung up",
            ),
            (
                Error::Connect {
                    addr: "127.0.0.1:1".into(),
                    cause: std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused"),
                },
                "refused",
            ),
            (
                Error::Encode {
                    table: "t".into(),
                    cause: EncodeError::TooLong {
                        field: "f",
                        len: 9,
                        max: 4,
                    },
                },
                "longer than #[fixed(4)]",
            ),
            (
                Error::ForeignRow {
                    table: "t".into(),
                    key: "k".into(),
                    type_name: "K",
                    cause: DecodeError::TrailingBytes { count: 3 },
                },
                "3 bytes",
            ),
        ];
        for (e, cause) in errors {
            let shown = e.to_string();
            assert!(!shown.contains(cause), "{shown}");
            let source = e.source().expect("the cause").to_string();
            assert!(source.contains(cause), "{source}");
            let chain = rowkey_core::error_chain(&e);
            assert_eq!(chain.matches(cause).count(), 1, "{chain}");
            assert!(chain.starts_with(&shown), "{chain}");
        }
    }

    #[test]
    fn replies_out_of_sequence_are_transport_errors_not_refusals() {
        let e = thrift::Error::Application(thrift::ApplicationError::new(
            ApplicationErrorKind::BadSequenceId,
            "expected 3 got 2",
        ));
        let e = Error::call("get", "t", None, e, None);
        assert!(matches!(e, Error::Thrift { .. }) && e.is_retryable() && !e.is_server());
        let refused = thrift::Error::Application(thrift::ApplicationError::new(
            ApplicationErrorKind::InternalError,
            "Internal error processing get\nat ...",
        ));
        let e = Error::call("get", "t", None, refused, None);
        assert!(e.is_server() && !e.is_retryable(), "{e:?}");
        assert_eq!(
            e.to_string(),
            "HBase get on table t: Internal error processing get"
        );
    }

    #[test]
    fn can_retry_is_honoured_except_for_failures_no_retry_mends() {
        let io = |message: &str, can_retry| {
            thrift::Error::User(Box::new(TIOError::new(message.to_string(), can_retry)))
        };
        let busy = Error::call(
            "put",
            "t",
            None,
            io("RegionTooBusyException: x", true),
            None,
        );
        assert!(busy.is_retryable());
        let no = Error::call("put", "t", None, io("RegionTooBusyException", false), None);
        assert!(!no.is_retryable());
        let family = io(
            "Failed 1 action: org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: x",
            true,
        );
        assert!(!Error::call("putMultiple", "t", None, family, None).is_retryable());
        let late = Error::call(
            "get",
            "t",
            None,
            io("x", false),
            Some(Duration::from_secs(2)),
        );
        assert!(late.is_timeout() && late.is_retryable());
        assert_eq!(
            late.to_string(),
            "HBase get on table t: no answer within 2s"
        );
    }
}
