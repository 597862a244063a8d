//! Typed rowkey scans on Google Cloud Bigtable, over its v2 gRPC API on a
//! channel sized for merged streaming reads ([`Client`]).
//!
//! The guide's chapter "Engines" (the book in `docs/` of rowkey's
//! repository: `mdbook serve docs`) shows it beside the HBase clients;
//! "Secondary indexes" and "Changing a key on a live table" run on it too.
//!
//! - [`row_set`] / [`row_range`]: a [`Scan`] as Bigtable `RowSet`/`RowRange`s
//!   (start key closed, stop key open, no end key for "to the end").
//! - [`create_table`]: a table pre-split at `T::split_points()` through the
//!   table admin API's `initial_splits`, so a salted table starts with one
//!   tablet per bucket.
//! - [`read_scan`] / [`read_typed`]: one `ReadRows` request per range, run
//!   concurrently, merged back into key order with
//!   [`merge_salted`](rowkey_core::merge_salted) when the scan fans out over
//!   salt buckets, decoded into typed keys.
//! - [`stream_scan`] and its kin: the same, streamed, each range retried
//!   from its last row after a transient failure or a stall.
//! - [`write_rows`]: typed keys written with `MutateRows` in requests cut by
//!   mutations and bytes, every entry's status checked.
//! - [`BulkWriter`] (`client.bulk_writer(table)`): rows pushed one at a
//!   time and sent concurrently within a budget of bytes and requests in
//!   flight, retried safely.
//! - [`ClientOptions`] ([`Client::connect_lazy_with`]): deadlines per
//!   attempt, between rows and without progress, HTTP/2 keepalive, an app
//!   profile, the retry policy; `Client::connect_google` (feature `google`)
//!   for Bigtable itself.
//!
//! The bounds are rowkey's own: `bigtable_rs`'s prefix helper is not used
//! (it computes a wrong end key for prefixes that end in `0xFF`; rowkey drops
//! trailing `0xFF` bytes before incrementing, as HBase does).

use std::collections::HashMap;

use bigtable_rs::bigtable::RowCell;
use bigtable_rs::google::bigtable::v2::row_range::{EndKey, StartKey};
use bigtable_rs::google::bigtable::v2::{ReadRowsRequest, RowRange, RowSet};
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin;
use rowkey_core::hbase::to_string_binary;
use rowkey_core::{DecodeError, DecodeRowKey, EncodeError, RowKey, Scan, ScanRange};

mod bulk;
mod chunks;
mod client;
pub mod emulator;
#[cfg(feature = "google")]
mod google;
#[cfg(feature = "index")]
mod index;
#[cfg(feature = "migrate")]
pub mod migrate;
mod options;
mod retry;
mod stream;
mod write;

pub use bulk::{BulkReport, BulkWriter};
pub use client::{feature_flags_header, Client, CONNECTION_WINDOW, STREAM_WINDOW};
#[cfg(feature = "google")]
pub use google::{GoogleOptions, DATA_SCOPE, GOOGLE_ENDPOINT};
#[cfg(feature = "index")]
pub use index::IndexStore;
pub use options::ClientOptions;
pub use write::{write_raw_rows, write_rows, Cell, MAX_KEY_LEN, MAX_MUTATIONS, MAX_REQUEST_BYTES};

pub use rowkey_core::clock::RetryPolicy;
pub use stream::{
    stream_filter, stream_filter_in, stream_filter_keys_in, stream_filter_typed, stream_scan,
    stream_scan_reversed, stream_scan_with, stream_typed, stream_typed_reversed, Row, RowStream,
};

pub use bigtable_rs;
pub use googleapis_tonic_google_bigtable_admin_v2 as admin_api;

/// The table admin client over a tonic channel.
pub type AdminClient =
    admin::bigtable_table_admin_client::BigtableTableAdminClient<tonic::transport::Channel>;

/// What can go wrong talking to Bigtable with typed keys. As the Rust API
/// guidelines ask (C-GOOD-ERR), `{}` says what failed and
/// [`source`](std::error::Error::source) is the error that made it fail
/// (a gRPC status's code and message, the transport's error, the key's
/// encoding), so [`rowkey_core::error_chain`] prints the whole story
/// once. `rowkey-hbase`'s errors follow the same rule.
///
/// ```
/// use std::error::Error as _;
/// use rowkey_core::DecodeError;
///
/// let e = rowkey_bigtable::Error::Decode(DecodeError::TrailingBytes { count: 3 });
/// assert_eq!(e.to_string(), "decoding a row key");
/// assert!(e.source().unwrap().to_string().contains("3 bytes"));
/// assert!(rowkey_core::error_chain(&e).starts_with("decoding a row key: "));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The data API failed.
    #[error("bigtable")]
    Bigtable(#[source] DataError),
    /// The admin API failed.
    #[error("bigtable admin")]
    Admin(#[source] Status),
    /// An endpoint (the data or the admin API's) is not a valid URI.
    #[error("bigtable endpoint {endpoint:?}")]
    Endpoint {
        /// The endpoint as given.
        endpoint: String,
        /// Why it is not valid.
        #[source]
        cause: tonic::codegen::http::uri::InvalidUri,
    },
    /// The admin endpoint could not be reached.
    #[error("connecting to bigtable admin at {endpoint}")]
    Connect {
        /// The endpoint.
        endpoint: String,
        /// The transport's error.
        #[source]
        cause: tonic::transport::Error,
    },
    /// Some rows of a [`write_rows`] call were rejected; every other row was
    /// written.
    #[error("bigtable rejected {} of the rows written (first: {})", .rejected.len(), .rejected.first().map_or("", |r| r.key.as_str()))]
    Rejected {
        /// Each rejected row, in the order of the input.
        rejected: Vec<RejectedRow>,
    },
    /// A write stopped part-way: a request failed as a whole (the
    /// connection lost, its deadline passed). `written` rows were written;
    /// the rows at `unwritten` (positions in the input) were not, or not
    /// for certain; `rejected` were refused by the server or before sending.
    #[error("bigtable write stopped part-way: {written} rows written, {} not written, {} rejected", .unwritten.len(), .rejected.len())]
    Incomplete {
        /// Rows written.
        written: usize,
        /// The positions in the input of the rows not written.
        unwritten: Vec<usize>,
        /// Rows refused, each with its position, key and reason.
        rejected: Vec<RejectedRow>,
        /// Why the write stopped.
        #[source]
        cause: Box<Error>,
    },
    /// Connecting to Google failed before any call: credentials, TLS.
    #[error("{0}")]
    Google(String),
    /// A call made no progress within its deadline
    /// ([`ClientOptions::total_timeout`]), its retries included.
    #[error("bigtable {call}: no progress within {deadline:?} ({retries} retries{})", .last.as_ref().map_or(String::new(), |l| format!("; the last error: {l}")))]
    Timeout {
        /// `ReadRows` or `MutateRows`.
        call: &'static str,
        /// The deadline that passed.
        deadline: std::time::Duration,
        /// The retries made before it passed.
        retries: u32,
        /// The last error an attempt met, if any.
        last: Option<String>,
    },
    /// A key could not be encoded.
    #[error("encoding a row key")]
    Encode(#[source] EncodeError),
    /// A stored key is not a key of this type.
    #[error("decoding a row key")]
    Decode(#[source] DecodeError),
    /// A row read by a typed stream whose key is not a key of the type
    /// (written by another program, say); the stream goes on after it.
    #[error("row {key} is not a key of this type")]
    ForeignRow {
        /// The key in HBase's `toStringBinary` form.
        key: String,
        /// Why it does not decode.
        #[source]
        cause: DecodeError,
    },
}

impl From<bigtable_rs::bigtable::Error> for Error {
    fn from(e: bigtable_rs::bigtable::Error) -> Self {
        Error::Bigtable(DataError(e))
    }
}

/// The data API's error under an [`Error::Bigtable`], printed with all it
/// knows: a gRPC status as its code and message (and the transport's
/// error under a status the client made itself), a chunk error with its
/// message (bigtable_rs's own `Display` leaves both out).
#[derive(Debug)]
pub struct DataError(bigtable_rs::bigtable::Error);

impl DataError {
    /// bigtable_rs's error.
    pub fn get_ref(&self) -> &bigtable_rs::bigtable::Error {
        &self.0
    }

    /// The gRPC status, where the server (or the client's transport)
    /// answered with one.
    pub fn status(&self) -> Option<&tonic::Status> {
        match &self.0 {
            bigtable_rs::bigtable::Error::RpcError(s) => Some(s),
            _ => None,
        }
    }
}

impl std::fmt::Display for DataError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&data_error(&self.0))
    }
}

impl std::error::Error for DataError {}

/// The admin API's gRPC status under an [`Error::Admin`], printed as its
/// code and message (tonic's own `Display` prints its metadata too).
#[derive(Debug)]
pub struct Status(tonic::Status);

impl Status {
    /// tonic's status.
    pub fn get_ref(&self) -> &tonic::Status {
        &self.0
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&status_text(&self.0))
    }
}

impl std::error::Error for Status {}

impl From<tonic::Status> for Status {
    fn from(s: tonic::Status) -> Self {
        Status(s)
    }
}

pub(crate) use rowkey_core::error_chain as chain;

/// A gRPC status as its code and message (and the transport's error
/// under it, for a status the client made itself).
fn status_text(s: &tonic::Status) -> String {
    let mut text = format!("{:?}: {}", s.code(), s.message());
    if let Some(cause) = std::error::Error::source(s) {
        text.push_str(": ");
        text.push_str(&chain(cause));
    }
    text
}

/// bigtable_rs's error with all it knows (its own `Display` leaves out a
/// chunk error's message and a status's details).
fn data_error(e: &bigtable_rs::bigtable::Error) -> String {
    use bigtable_rs::bigtable::Error as E;
    match e {
        E::RpcError(s) => status_text(s),
        E::ChunkError(m) => format!("ReadRows chunks: {m}"),
        E::TransportError(t) => format!("transport: {}", chain(t)),
        other => chain(other),
    }
}

impl Error {
    /// The call passed its deadline: [`Error::Timeout`], or a
    /// `DEADLINE_EXCEEDED` status from the server.
    pub fn is_timeout(&self) -> bool {
        match self {
            Error::Timeout { .. } => true,
            Error::Bigtable(e) => e
                .status()
                .is_some_and(|s| s.code() == tonic::Code::DeadlineExceeded),
            _ => false,
        }
    }
}

/// A row that [`write_rows`] could not write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RejectedRow {
    /// The row's position in the input.
    pub index: usize,
    /// The row key in HBase's `toStringBinary` form.
    pub key: String,
    /// The gRPC status code.
    pub code: i32,
    /// The status message.
    pub message: String,
}

/// One scan range as a Bigtable row range: the start key closed, the stop
/// key open, no end key when the stop row is empty ("to the end").
///
/// ```
/// use rowkey_bigtable::row_range;
/// use rowkey_bigtable::bigtable_rs::google::bigtable::v2::row_range::{EndKey, StartKey};
/// use rowkey_core::Scan;
///
/// let scan = Scan::from_bounds(&[0x12, 0x23], &[0x12, 0x24]);
/// let r = row_range(&scan.ranges().next().unwrap());
/// assert_eq!(r.start_key, Some(StartKey::StartKeyClosed(vec![0x12, 0x23])));
/// assert_eq!(r.end_key, Some(EndKey::EndKeyOpen(vec![0x12, 0x24])));
/// ```
pub fn row_range(r: &ScanRange) -> RowRange {
    RowRange {
        start_key: Some(StartKey::StartKeyClosed(r.start().to_vec())),
        end_key: (!r.stop().is_empty()).then(|| EndKey::EndKeyOpen(r.stop().to_vec())),
    }
}

/// The whole scan as one Bigtable row set, or `None` for a scan that matches
/// no row: Bigtable reads an empty row set as *the whole table*, so an empty
/// scan must not become a request.
pub fn row_set(scan: &Scan) -> Option<RowSet> {
    if scan.range_count() == 0 {
        return None;
    }
    Some(RowSet {
        row_keys: Vec::new(),
        row_ranges: scan.ranges().map(|r| row_range(&r)).collect(),
    })
}

/// An admin client for a plaintext endpoint such as the emulator's
/// (`http://127.0.0.1:8086`). Production Bigtable needs TLS and credentials
/// on the channel: build the channel yourself and use `AdminClient::new`.
pub async fn connect_admin(endpoint: &str) -> Result<AdminClient, Error> {
    let channel = tonic::transport::Channel::from_shared(endpoint.to_string())
        .map_err(|cause| Error::Endpoint {
            endpoint: endpoint.to_string(),
            cause,
        })?
        .connect()
        .await
        .map_err(|cause| Error::Connect {
            endpoint: endpoint.to_string(),
            cause,
        })?;
    Ok(AdminClient::new(channel))
}

/// The resource name of instance `instance` of project `project`,
/// `projects/{project}/instances/{instance}`: what [`create_table`] takes,
/// for the same `project` and `instance` as [`emulator::client_at`] and
/// [`Emulator::client`](emulator::Emulator::client).
///
/// ```
/// assert_eq!(rowkey_bigtable::instance_name("p", "i"), "projects/p/instances/i");
/// ```
pub fn instance_name(project: &str, instance: &str) -> String {
    format!("projects/{project}/instances/{instance}")
}

/// Creates `table_id` in the instance whose resource name is `instance`
/// (`projects/P/instances/I`, see [`instance_name`]) with the given column
/// families, pre-split at `split_points` (for a salted key:
/// `T::split_points()`, one tablet per bucket).
pub async fn create_table(
    admin_client: &mut AdminClient,
    instance: &str,
    table_id: &str,
    families: &[&str],
    split_points: &[Vec<u8>],
) -> Result<(), Error> {
    let request = create_table_request(instance, table_id, families, split_points);
    admin_client
        .create_table(request)
        .await
        .map_err(|s| Error::Admin(s.into()))?;
    Ok(())
}

/// The `CreateTable` request that [`create_table`] sends.
///
/// ```
/// use rowkey_bigtable::create_table_request;
/// let r = create_table_request("projects/p/instances/i", "events", &["d"], &[vec![1], vec![2]]);
/// assert_eq!(r.initial_splits.iter().map(|s| s.key.clone()).collect::<Vec<_>>(), [vec![1], vec![2]]);
/// assert!(r.table.unwrap().column_families.contains_key("d"));
/// ```
pub fn create_table_request(
    instance: &str,
    table_id: &str,
    families: &[&str],
    split_points: &[Vec<u8>],
) -> admin::CreateTableRequest {
    let column_families: HashMap<String, admin::ColumnFamily> = families
        .iter()
        .map(|f| (f.to_string(), admin::ColumnFamily::default()))
        .collect();
    admin::CreateTableRequest {
        parent: instance.to_string(),
        table_id: table_id.to_string(),
        table: Some(admin::Table {
            column_families,
            ..Default::default()
        }),
        initial_splits: split_points
            .iter()
            .map(|key| admin::create_table_request::Split { key: key.clone() })
            .collect(),
    }
}

/// [`create_table`] for keys of type `K`: pre-split at `K::split_points()`
/// (one tablet per salt bucket) and, for a text key or an ordered-code key
/// (`#[rowkey(ordered_code)]`), with `K`'s row-key schema
/// ([`row_key_schema`]) as the table's `row_key_schema`, so that
/// Bigtable's SQL reads the key's fields as columns.
///
/// The request is [`create_table_request_for`]. The emulator accepts the
/// schema and does not keep it (its `GetTable` answers without one).
pub async fn create_table_for<K: RowKey>(
    admin_client: &mut AdminClient,
    instance: &str,
    table_id: &str,
    families: &[&str],
) -> Result<(), Error> {
    let request = create_table_request_for::<K>(instance, table_id, families);
    admin_client
        .create_table(request)
        .await
        .map_err(|s| Error::Admin(s.into()))?;
    Ok(())
}

/// The `CreateTable` request that [`create_table_for`] sends.
///
/// ```
/// use rowkey_bigtable::create_table_request_for;
/// use rowkey_core::prelude::*;
///
/// #[derive(RowKey)]
/// #[rowkey(text, sep = "#")]
/// #[salt(buckets = 4, hash = "java")]
/// struct Call {
///     #[digits(11)]
///     phone: u64,
///     #[desc_ts]
///     ts: i64,
/// }
///
/// let r = create_table_request_for::<Call>("projects/p/instances/i", "calls", &["d"]);
/// let table = r.table.unwrap();
/// let schema = table.row_key_schema.unwrap();
/// let names: Vec<&str> = schema.fields.iter().map(|f| f.field_name.as_str()).collect();
/// assert_eq!(names, ["salt", "phone", "ts"]);
/// assert_eq!(r.initial_splits.len(), 3);
/// ```
pub fn create_table_request_for<K: RowKey>(
    instance: &str,
    table_id: &str,
    families: &[&str],
) -> admin::CreateTableRequest {
    let mut request = create_table_request(instance, table_id, families, &K::LAYOUT.split_points());
    if let Some(table) = &mut request.table {
        table.row_key_schema = row_key_schema(K::LAYOUT);
    }
    request
}

/// A key layout's row-key schema as the admin API's `Type.Struct`: for a
/// text key, every part (prefix, salt, fields) a UTF-8 string field joined
/// by the separator with `DelimitedBytes`; for an ordered-code key
/// (`#[rowkey(ordered_code)]`), `Int64`, `String` and `Bytes` fields (the
/// prefix a `Bytes` field, the salt an `Int64`) with `OrderedCodeBytes`.
/// `None` for a binary key, a key family and an ordered-code key with a
/// `#[desc]` field, which Bigtable's struct encodings cannot describe.
///
/// It is [`Layout::bigtable_row_key_schema`](rowkey_core::Layout::bigtable_row_key_schema)
/// (the JSON for `gcloud`) read into the admin API's type, so the two
/// forms cannot disagree.
///
/// # Panics
///
/// Only if rowkey-core's JSON is not the schema it documents (a bug in
/// rowkey, never the layout's or the user's data).
pub fn row_key_schema(layout: &rowkey_core::Layout) -> Option<admin::r#type::Struct> {
    use admin::r#type::{self as ty, bytes, int64, r#struct, string};
    use base64::Engine as _;
    const JSON: &str = "rowkey-core's row-key schema JSON";
    let json: serde_json::Value =
        serde_json::from_str(&layout.bigtable_row_key_schema()?).expect(JSON);
    let kind = |t: &serde_json::Value| -> ty::Kind {
        if t == &serde_json::json!({"stringType": {"encoding": {"utf8Bytes": {}}}}) {
            ty::Kind::StringType(ty::String {
                encoding: Some(string::Encoding {
                    encoding: Some(string::encoding::Encoding::Utf8Bytes(
                        string::encoding::Utf8Bytes {},
                    )),
                }),
            })
        } else if t == &serde_json::json!({"int64Type": {"encoding": {"orderedCodeBytes": {}}}}) {
            ty::Kind::Int64Type(ty::Int64 {
                encoding: Some(int64::Encoding {
                    encoding: Some(int64::encoding::Encoding::OrderedCodeBytes(
                        int64::encoding::OrderedCodeBytes {},
                    )),
                }),
            })
        } else if t == &serde_json::json!({"bytesType": {"encoding": {"raw": {}}}}) {
            ty::Kind::BytesType(ty::Bytes {
                encoding: Some(bytes::Encoding {
                    encoding: Some(bytes::encoding::Encoding::Raw(bytes::encoding::Raw {})),
                }),
            })
        } else {
            panic!("{JSON}: a field type {t}")
        }
    };
    let fields = json["fields"]
        .as_array()
        .expect(JSON)
        .iter()
        .map(|f| r#struct::Field {
            field_name: f["fieldName"].as_str().expect(JSON).to_string(),
            r#type: Some(admin::Type {
                kind: Some(kind(&f["type"])),
            }),
        })
        .collect();
    let encoding = if json["encoding"]["orderedCodeBytes"].is_object() {
        r#struct::encoding::Encoding::OrderedCodeBytes(r#struct::encoding::OrderedCodeBytes {})
    } else {
        let delimiter = base64::engine::general_purpose::STANDARD
            .decode(
                json["encoding"]["delimitedBytes"]["delimiter"]
                    .as_str()
                    .expect(JSON),
            )
            .expect(JSON);
        r#struct::encoding::Encoding::DelimitedBytes(r#struct::encoding::DelimitedBytes {
            delimiter,
        })
    };
    Some(ty::Struct {
        fields,
        encoding: Some(r#struct::Encoding {
            encoding: Some(encoding),
        }),
    })
}

/// Rows read for a scan: the row key and its cells.
pub type Rows = Vec<(Vec<u8>, Vec<RowCell>)>;

/// Reads every row of `scan` from `table`: one `ReadRows` request per range,
/// each read to its end, concurrently, then merged into the order of the
/// keys after the salt when the scan fans out over buckets. It does not
/// retry: a failure of any range ends the read with its error (never a
/// short result). [`stream_scan`] retries transient failures from after the
/// last row returned, pushes a limit down and holds one row per range.
pub async fn read_scan(client: &Client, table: &str, scan: &Scan) -> Result<Rows, Error> {
    let table_name = client.table_name(table);
    let requests = scan.ranges().map(|r| {
        let request = ReadRowsRequest {
            table_name: table_name.clone(),
            rows: Some(RowSet {
                row_keys: Vec::new(),
                row_ranges: vec![row_range(&r)],
            }),
            ..Default::default()
        };
        async move {
            let response = client.read_rows(request).await?;
            chunks::collect(response, false).await
        }
    });
    let per_range = futures_util::future::try_join_all(requests).await?;
    Ok(scan
        .merge(per_range.into_iter().map(Vec::into_iter))
        .collect())
}

/// The most sample keys [`sample_row_keys`] returns.
pub const MAX_SAMPLE_KEYS: usize = 10_000;

/// The row keys Bigtable samples from `table` (`SampleRowKeys`), in key
/// order, each with its byte offset: each key ends a part of the table
/// that can be read apart (on Bigtable, a tablet's last key; the emulator
/// picks about one row in a hundred, and the last). A key that is empty
/// (the end of the table) is left out. Past [`MAX_SAMPLE_KEYS`], every
/// other key is dropped until they fit: the memory stays bounded whatever
/// the server sends, and the keys still spread over the table. Not
/// retried.
pub async fn sample_row_keys(client: &Client, table: &str) -> Result<Vec<(Vec<u8>, i64)>, Error> {
    let request = bigtable_rs::google::bigtable::v2::SampleRowKeysRequest {
        table_name: client.table_name(table),
        ..Default::default()
    };
    let mut responses = client.sample_row_keys(request).await?;
    // Every `stride`-th key is kept; past the limit, every other one kept
    // so far goes and the stride doubles.
    let (mut keys, mut stride, mut seen) = (Vec::new(), 1usize, 0usize);
    while let Some(sample) = responses
        .message()
        .await
        .map_err(|s| Error::from(bigtable_rs::bigtable::Error::RpcError(s)))?
    {
        if sample.row_key.is_empty() {
            continue;
        }
        if seen % stride == 0 {
            keys.push((sample.row_key, sample.offset_bytes));
        }
        seen += 1;
        if keys.len() > MAX_SAMPLE_KEYS {
            let mut i = 0;
            keys.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            stride *= 2;
        }
    }
    Ok(keys)
}

/// [`read_scan`] with each row key decoded as a `T`. A row whose key is not
/// a `T` (written by another program) ends the read with
/// [`Error::ForeignRow`] naming its key; [`stream_typed`] instead yields
/// that error and goes on with the next row.
pub async fn read_typed<T>(
    client: &Client,
    table: &str,
    scan: &Scan,
) -> Result<Vec<(T, Vec<RowCell>)>, Error>
where
    T: for<'a> DecodeRowKey<'a>,
{
    read_scan(client, table, scan)
        .await?
        .into_iter()
        .map(|(k, cells)| match T::decode(&k) {
            Ok(t) => Ok((t, cells)),
            Err(cause) => Err(Error::ForeignRow {
                key: to_string_binary(&k),
                cause,
            }),
        })
        .collect()
}
