//! SQL over typed row keys: a rowkey layout's table as an
//! [Apache DataFusion](https://datafusion.apache.org) table, its key
//! predicates pushed down as the scans rowkey plans for the typed API.
//!
//! The guide: the book in `docs/` of rowkey's repository (its SQL chapter).
//!
//! A [`KeyTable`] is one table of one layout (`K::LAYOUT`, or a
//! `DynLayout`'s `layout()`): a column per key field, named as the field
//! and typed as Arrow types its values, then the value columns a user
//! names ([`ValueColumn`]).
//!
//! ```
//! use std::sync::Arc;
//! use rowkey_core::prelude::*;
//! use rowkey_sql::datafusion::prelude::SessionContext;
//! use rowkey_sql::{KeyTable, ValueColumn, ValueType};
//!
//! #[derive(RowKey)]
//! #[salt(buckets = 4, by(user_id))]
//! struct Event { user_id: u64, #[desc_ts] ts_millis: i64, #[fixed(8)] kind: String }
//!
//! # let dir = tempfile::tempdir()?;
//! let db = Arc::new(redb::Database::create(dir.path().join("events.redb"))?);
//! let def = redb::TableDefinition::<&[u8], &[u8]>::new("events");
//! let tx = db.begin_write()?;
//! {
//!     let mut t = tx.open_table(def)?;
//!     for user_id in 0..100 {
//!         for ts in 0..10 {
//!             let key = Event { user_id, ts_millis: 1_700_000_000_000 + ts, kind: "click".into() };
//!             t.insert(key.encode_to_vec()?.as_slice(), &b"{}"[..])?;
//!         }
//!     }
//! }
//! tx.commit()?;
//!
//! let table = KeyTable::redb(db, "events", Event::LAYOUT)?
//!     .value(ValueColumn::whole("body", ValueType::Json))?;
//! let ctx = SessionContext::new();
//! ctx.register_table("events", Arc::new(table))?;
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! let rows = ctx
//!     .sql("SELECT count(*) AS n FROM events WHERE user_id = 42 AND ts_millis >= 1700000000005")
//!     .await?
//!     .collect()
//!     .await?;
//! # let n = rows[0].column(0).as_any().downcast_ref::<rowkey_sql::datafusion::arrow::array::Int64Array>().unwrap().value(0);
//! # assert_eq!(n, 5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Columns
//! Integers, `bool` and floats as Arrow's own types; strings and `char`s
//! as `Utf8`; byte strings, IP addresses, UUIDs, ULIDs and types the
//! runtime does not know as `Binary` (their key bytes); timestamps
//! (`#[ts(unit)]`) as `Timestamp(unit, "UTC")`; a `KeyField` enum as its
//! variant's name (`Utf8`); `u128` and `i128` as their decimal digits
//! (`Utf8`); an `Option` field's column is nullable. A key family is one
//! table per member ([`KeyTable::member`]).
//!
//! # What is pushed down
//! `=`, `IN`, `<`, `<=`, `>`, `>=`, `BETWEEN`, `IS NULL` and
//! `LIKE 'prefix%'` on key columns, combined with `AND` and `OR`, become
//! a `KeyFilter` per `OR` branch (the filter the typed API's `filter()`
//! builds from the same predicates): the key's leading fields fixed give a
//! range, the rest a skip scan, a salted layout's buckets read side by
//! side. A filter is reported `Exact` to DataFusion where the scan returns
//! exactly its rows, and `Inexact` where DataFusion must check it again:
//! a float field (SQL's `NaN` and `-0` are not the key's order) and a
//! range on an `Option` field. A `desc` field, a desc timestamp and a
//! timestamp compared with `now() - INTERVAL '1' HOUR` are planned as
//! `range_by_*` plans them. `LIMIT` stops the scan once the filters are
//! exact. EXPLAIN shows each scan's plan: the pushdown, its branches and
//! ranges, which filters were exact, and `keys only` where no value is
//! read; `EXPLAIN ANALYZE` the rows read (`rows_read`) and the bytes of
//! value sent (`value_bytes`) beside the rows returned (`output_rows`).
//!
//! # Partitions and order
//! One read per salt bucket of each `OR` branch, cut again at an HBase
//! table's regions or at the keys Bigtable samples from a table
//! (`SampleRowKeys`, its tablets' ends), dealt in runs to at most DataFusion's
//! `target_partitions` partitions. A scan of one branch in one bucket
//! declares the key's order in each partition (the leading fields up to
//! the first float, `Option`, enum or reversed one), so `ORDER BY` them
//! with a `LIMIT` reads no more rows per partition than the limit.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(not(any(
    feature = "redb",
    feature = "fjall",
    feature = "hbase",
    feature = "bigtable"
)))]
compile_error!(
    "rowkey-sql reads a store: turn on one of its features redb, fjall, hbase, bigtable"
);

// The layers, bottom to top: `error`; `columns` (key fields as Arrow
// columns, value columns, the array builders); `source` (the stores'
// skip scans and writes); `pushdown` (filters to plans); `exec` (the
// physical scan); `insert` (INSERT's sink); `table` (the TableProvider).
mod columns;
mod error;
mod exec;
mod insert;
mod pushdown;
mod source;
mod table;

pub use datafusion;

pub use columns::{ValueColumn, ValueType};
pub use error::Error;
pub use table::KeyTable;

/// The guide's SQL chapter, its code compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/src/sql.md")]
pub struct Guide;
