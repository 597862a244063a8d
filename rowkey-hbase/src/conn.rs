//! The connection below the client's calls and its scans: the Thrift2
//! channel, the types of rows and cells, and the errors. `client.rs` (the
//! calls) and `scan.rs` (the scanners) both build on it, and neither
//! imports the other's caller.

use std::fmt;

use rowkey_core::hbase::to_string_binary;
use rowkey_core::{DecodeError, EncodeError};
use thrift::protocol::{TBinaryInputProtocol, TBinaryOutputProtocol};
use thrift::transport::{
    ReadHalf, TBufferedReadTransport, TBufferedWriteTransport, TTcpChannel, WriteHalf,
};

use crate::thrift::{TColumnValue, THBaseServiceSyncClient, TIOError, TIllegalArgument};

/// A cell to write or a cell read: `(family, qualifier, value)`, as in
/// `rowkey-bigtable`.
pub type Cell = (String, Vec<u8>, Vec<u8>);

/// A row read by an untyped scan: its key and its cells.
pub type Row = (Vec<u8>, Vec<Cell>);

pub(crate) type Thrift = THBaseServiceSyncClient<
    TBinaryInputProtocol<TBufferedReadTransport<ReadHalf<TTcpChannel>>>,
    TBinaryOutputProtocol<TBufferedWriteTransport<WriteHalf<TTcpChannel>>>,
>;

/// What can go wrong talking to HBase. Every variant names the table it
/// was about and, where there is one, the row key in HBase's
/// `toStringBinary` form.
///
/// ```
/// use rowkey_hbase::{Error, RejectedRow};
///
/// let e = Error::Rejected {
///     table: "events".into(),
///     rejected: vec![RejectedRow { index: 3, key: r"\x00\x01".into(), message: "no family x".into() }],
/// };
/// assert_eq!(e.to_string(), r"HBase rejected 1 of the rows written to table events (first: \x00\x01: no family x)");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The gateway could not be reached.
    #[error("connecting to the HBase Thrift2 gateway at {addr}")]
    Connect {
        /// The address as given.
        addr: String,
        /// The socket's error.
        #[source]
        source: std::io::Error,
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
    },
    /// The connection to the gateway failed or the gateway answered
    /// something that is not Thrift2 (it went away mid-scan, say).
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
        source: thrift::Error,
    },
    /// Some rows of a [`Client::write_rows`] call were rejected; every other
    /// row was written.
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
    /// A key could not be encoded; nothing was sent.
    #[error("encoding a row key for table {table}")]
    Encode {
        /// The table.
        table: String,
        /// Which field could not be encoded.
        #[source]
        source: EncodeError,
    },
    /// A row read by a typed scan whose key is not a key of the type
    /// (written by another program, say); the scan goes on after it.
    #[error("row {key} of table {table} is not a key of this type")]
    ForeignRow {
        /// The table.
        table: String,
        /// The key in `toStringBinary` form.
        key: String,
        /// Why it does not decode.
        #[source]
        source: DecodeError,
    },
}

fn at(key: &Option<String>) -> String {
    key.as_ref()
        .map_or(String::new(), |k| format!(" at row {k}"))
}

impl Error {
    /// A failed Thrift call as an [`Error`]: HBase's exceptions (`TIOError`,
    /// `TIllegalArgument`, the gateway's own application errors) as
    /// [`Error::Server`] with the first line of their message (HBase puts
    /// its stack trace after it), the rest as [`Error::Thrift`].
    pub(crate) fn call(
        op: &'static str,
        table: &str,
        key: Option<&[u8]>,
        e: thrift::Error,
    ) -> Error {
        let table = table.to_string();
        let key = key.map(to_string_binary);
        let message = match &e {
            thrift::Error::User(u) => {
                if let Some(io) = u.downcast_ref::<TIOError>() {
                    io.message.clone()
                } else {
                    u.downcast_ref::<TIllegalArgument>()
                        .and_then(|a| a.message.clone())
                }
            }
            // The gateway answered, with an exception of its own (an
            // argument HBase's client refused before sending it, say).
            thrift::Error::Application(a) => Some(a.message.clone()),
            _ => None,
        };
        match (message, &e) {
            (Some(message), _) => Error::Server {
                op,
                table,
                key,
                message: message.lines().next().unwrap_or_default().to_string(),
            },
            (None, thrift::Error::User(u)) => Error::Server {
                op,
                table,
                key,
                message: u.to_string(),
            },
            (None, _) => Error::Thrift {
                op,
                table,
                key,
                source: e,
            },
        }
    }

    /// HBase refused the call (as opposed to the connection failing).
    pub fn is_server(&self) -> bool {
        matches!(self, Error::Server { .. })
    }
}

/// A row that [`Client::write_rows`] could not write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RejectedRow {
    /// The row's position in the input.
    pub index: usize,
    /// The row key in HBase's `toStringBinary` form.
    pub key: String,
    /// HBase's message.
    pub message: String,
}

/// One region of a table, as [`Client::region_locations`] lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionLocation {
    /// The first key of the region (empty for the first region).
    pub start: Vec<u8>,
    /// The first key after the region (empty for the last region).
    pub end: Vec<u8>,
    /// The region server holding it, `host:port`.
    pub server: String,
}

impl fmt::Display for RegionLocation {
    /// `[start, end) on server`, keys in `toStringBinary` form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}, {}) on {}",
            to_string_binary(&self.start),
            to_string_binary(&self.end),
            self.server
        )
    }
}

/// A blocking client of HBase's Thrift2 gateway: one connection, one call at
/// a time (a scan borrows the client until it is dropped).
pub struct Client {
    pub(crate) thrift: Thrift,
    pub(crate) scan_batch: usize,
    pub(crate) write_batch: usize,
}

/// HBase's limit on a row key's length (`HConstants.MAX_ROW_LENGTH`,
/// `Short.MAX_VALUE`).
pub const MAX_ROW_LENGTH: usize = 32_767;

impl Client {
    pub(crate) fn scan_batch(&self) -> usize {
        self.scan_batch
    }

    pub(crate) fn thrift(&mut self) -> &mut Thrift {
        &mut self.thrift
    }
}

pub(crate) fn cell(c: TColumnValue) -> Cell {
    (
        String::from_utf8_lossy(&c.family).into_owned(),
        c.qualifier,
        c.value,
    )
}
