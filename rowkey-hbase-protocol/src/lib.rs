//! HBase's RPC with no I/O, as `postgres-protocol` is to tokio-postgres:
//! the protobuf messages of the calls a client makes ([`pb`], generated
//! from HBase 2.6.1's own `.proto` files), and the bytes around them
//! ([`wire`]: the connection preamble and header, call and response
//! frames, `KeyValueCodec` cellblocks). `rowkey-hbase`'s native client
//! runs it over tokio; the golden bytes it is checked against are HBase's
//! own classes' (`rowkey-hbase/tests/native_wire.rs`), and a fuzz target
//! feeds arbitrary bytes to its readers
//! (`fuzz/fuzz_targets/native_response.rs`).
//!
//! The client over it is `rowkey-hbase`'s native client: the guide's
//! chapter "Engines" (the book in `docs/` of rowkey's repository: `mdbook
//! serve docs`).
//!
//! ```
//! use rowkey_hbase_protocol::{pb, wire};
//!
//! let get = pb::GetRequest {
//!     region: pb::RegionSpecifier {
//!         r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
//!         value: b"t,,1.abc.".to_vec(),
//!     },
//!     get: pb::Get { row: b"r1".to_vec(), ..Default::default() },
//! };
//! let frame = wire::call(7, "Get", &get, &[], 5_000);
//! // The total length, then the delimited header and request.
//! assert_eq!(u32::from_be_bytes(frame[..4].try_into()?) as usize, frame.len() - 4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// HBase's RPC messages, generated from HBase 2.6.1's own `.proto` files
/// by `proto/generate.sh` (prost-build 0.14.4): the RPC headers,
/// `ClientService` and `ClientMetaService` and what they import.
#[allow(missing_docs, clippy::all, clippy::pedantic, rust_2018_idioms)]
#[rustfmt::skip]
pub mod pb;
pub mod wire;
