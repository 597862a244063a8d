//! Typed rowkey tables on Apache HBase: one [`Client`] over two backends,
//! HBase's own RPC to its masters and region servers (`Client::native`,
//! feature `native`: no gateway, Kerberos and TLS) or HBase's Thrift2
//! gateway ([`Client::connect`]: `org.apache.hadoop.hbase.thrift2.ThriftServer`,
//! the API non-Java clients such as happybase use), with the same answers.
//! The guide's chapters "Engines", "Secondary indexes" and "Changing a key
//! on a live table" (the book in `docs/` of rowkey's repository: `mdbook
//! serve docs`) show them at work.
//!
//! - [`Client::create_table`]: a table pre-split at `T::split_points()`, one
//!   region per salt bucket; [`Client::region_locations`] shows the regions.
//! - [`Client::write_rows`]: typed keys written in batches; every row HBase
//!   rejects is reported with its key while the others are written.
//! - [`Client::scan`] / [`Client::scan_typed`]: one server-side scanner per
//!   range of a [`Scan`](rowkey_core::Scan), read in batches and merged
//!   lazily into key order (the order after the salt), a limit pushed to
//!   every range; the `_reversed` forms read every range backwards and
//!   merge newest first.
//! - [`Client::filter`] / [`Client::filter_typed`]: skip scans, a
//!   [`KeyFilter`](rowkey_core::KeyFilter) sent as HBase's own
//!   `FuzzyRowFilter` or `MultiRowRangeFilter` so that the region servers
//!   seek past what cannot match.
//! - [`bulk::BulkLoad`]: rows in any order, sorted within a memory budget
//!   and written as one HFile per region and family
//!   ([`hfile::HFileWriter`], HBase's format byte for byte) for HBase's own
//!   bulk load (`hbase completebulkload DIR TABLE`).
//! - [`testing::HBase`]: a real HBase (standalone: ZooKeeper, master and
//!   region servers in one JVM, from HBase's own Maven Central artifacts)
//!   and its Thrift2 gateway on loopback ports, for tests.
//!
//! [`Client`] is blocking, like HBase's Java client, and shared like its
//! `Connection`: a cheap clone over a pool of gateway connections, every
//! call with a deadline, reads and timestamped writes retried on a fresh
//! connection, scans resumed after their last row
//! ([`Client::builder`] for its settings, [`Client::stats`] for its
//! counters, a `tracing` span per call). With the `tokio` feature,
//! `AsyncClient` offers the same calls as `async fn`s.
//!
//! ```no_run
//! use rowkey_core::prelude::*;
//! use rowkey_hbase::{Cell, Client};
//!
//! #[derive(RowKey, Debug)]
//! #[salt(buckets = 4, by(user_id))]
//! struct Event {
//!     user_id: u64,
//!     #[desc_ts]
//!     ts_millis: i64,
//! }
//!
//! # fn main() -> Result<(), rowkey_hbase::Error> {
//! let hbase = Client::connect("127.0.0.1:9090")?;
//! hbase.create_table("events", &["d"], &Event::split_points())?;
//! let cell: Cell = ("d".into(), b"v".to_vec(), b"hello".to_vec());
//! hbase.write_rows("events", [(Event { user_id: 7, ts_millis: 1_000 }, vec![cell])])?;
//! for row in hbase.scan_typed::<Event>("events", &Event::scan_by_user_id(7), Some(10))? {
//!     let (event, cells) = row?;
//!     println!("{event:?}: {} cells", cells.len());
//! }
//! # Ok(()) }
//! ```
// No unsafe code but one audited call into the system's Kerberos library
// (`kerberos::acquire`, feature `kerberos`), which allows it alone.
#![deny(unsafe_code)]
#![warn(missing_docs)]

// The face, written once over both backends: the client and its calls
// (`client`, `ops`, `write`, `scan`, `async_client`), how it reaches
// HBase (`settings`), rows and cells (`types`), errors (`error`). Each call goes to a backend: `gateway`
// (HBase's Thrift2 gateway) or `native` (HBase's own RPC), both following
// `shared` (retries, write timestamps, filters). Beside them: `bulk` (the
// loader and its HFile writer), `index`, `migrate` and `testing`.
#[cfg(feature = "tokio")]
mod async_client;
pub mod bulk;
mod client;
mod error;
mod gateway;
#[cfg(feature = "index")]
mod index;
#[cfg(feature = "migrate")]
pub mod migrate;
#[cfg(feature = "native")]
pub mod native;
mod ops;
mod scan;
mod settings;
mod shared;
pub mod testing;
mod types;
mod write;

/// The Thrift2 bindings, generated from HBase's own IDL by
/// `thrift/generate.sh` (HBase 2.6.1, thrift-compiler 0.17.0).
#[allow(missing_docs, clippy::all, clippy::pedantic, rust_2018_idioms)]
#[rustfmt::skip]
#[path = "thrift/hbase.rs"]
pub mod thrift;

#[cfg(feature = "tokio")]
pub use async_client::{AsyncClient, RowStream, TypedRowStream};
pub use bulk::hfile;
pub use client::{Client, ClientBuilder, Stats};
pub use error::{Error, RejectedRow, ThriftError};
#[cfg(feature = "index")]
pub use index::IndexStore;
pub use rowkey_core::clock::RetryPolicy;
pub use scan::{tscans, Rows, TypedRows, VersionedRows};
pub use settings::{Protocol, Tls, Transport};
pub use shared::filter::{filter_bytes, server_filter_bytes, Pushdown};
#[cfg(feature = "kerberos")]
pub use shared::kerberos::{Kerberos, Protection};
pub use shared::stamp::Timestamps;
pub use types::{
    Cell, ColumnDelete, ReadOptions, RegionLocation, Row, ServerStats, TableOptions, VersionedCell,
    VersionedRow, MAX_ROW_LENGTH,
};
pub use write::{Durability, WriteOptions};
