//! HBase's own RPC, spoken to its masters and region servers with no
//! Thrift gateway (feature `native`), in layers as tokio-postgres has
//! them: the protocol with no I/O is the crate `rowkey-hbase-protocol`
//! (re-exported here as [`pb`] and [`wire`]), checked against the bytes
//! HBase's classes write; a connection multiplexes calls to one server
//! over it; [`NativeClient`] finds regions and sends each call where its
//! rows are.

mod admin;
mod backend;
mod bulkload;
mod client;
mod conn;
mod convert;
mod multiget;
mod regions;
mod retry;
#[cfg(feature = "kerberos")]
mod sasl;
mod scanner;
#[cfg(feature = "tls")]
mod tls;
mod write;
#[cfg(feature = "zookeeper")]
mod zk;

pub(crate) use backend::NativeBackend;
pub use client::NativeClient;
pub use conn::MAX_IN_FLIGHT;
pub(crate) use convert::Write;
pub(crate) use retry::native_retry;
pub use rowkey_hbase_protocol::{pb, wire};
pub use scanner::{NativeScanner, ScanOptions};
