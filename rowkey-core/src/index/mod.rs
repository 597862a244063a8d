//! Secondary indexes kept in step with their data rows (feature `index`).
//!
//! A table holds data rows under one key family (a `#[derive(RowKey)]`
//! type with a prefix, the *data key*) and, beside them, the rows of its
//! indexes, each another key family whose key ends with the data key. An
//! index row's key is the whole entry: the indexed values, then the data
//! key, so two records with the same indexed values have two entries, and
//! a hit names its data row without reading the index row's value.
//!
//! - [`Index`] says which entries a record has ([`Index::entries`]: none,
//!   one or several, as an index on either of two columns has two) and
//!   reads the data key back from an entry ([`Index::data_key`]).
//! - [`Record`] is what a data row holds (with feature `index-serde`, any
//!   serde type, through [postcard](https://docs.rs/postcard)).
//! - [`IndexedTable`] writes a record and its entries in one order that a
//!   crash cannot turn into a wrong answer, answers queries through an
//!   index, and builds ([`backfill`](IndexedTable::backfill)), checks
//!   ([`verify`](IndexedTable::verify)) and mends
//!   ([`repair`](IndexedTable::repair)) an index.
//! - [`Store`] is the small trait a blocking engine implements:
//!   [`redb::IndexStore`](crate::redb::IndexStore) and
//!   [`fjall::IndexStore`](crate::fjall::IndexStore) here,
//!   `rowkey_hbase::IndexStore` for HBase. [`AsyncStore`] is its async
//!   twin (`rowkey_bigtable::IndexStore`), under an [`AsyncIndexedTable`]
//!   with the same methods as `async fn`s. Both tables run one
//!   implementation of the logic.
//!
//! # Why a hit is checked
//!
//! HBase and Bigtable write one row atomically, never two. A put writes
//! the new entries first (one timestamp for all), then the data row, then
//! removes the entries the new record no longer has; a delete removes the
//! data row first, then its entries. A crash between two steps leaves
//! entries that point at no data row (*orphans*) or at a data row whose
//! record no longer has them (*stale*), never a data row without its
//! entries. A query reads each hit's data row and returns it only when
//! the row exists and its record still has that entry, so a leftover is
//! dropped (and counted, [`QueryStats`]), never returned; `verify` counts
//! leftovers and `repair` removes them once they are older than a grace
//! period, so a write still in flight is not undone. On redb and fjall a
//! put is one transaction: nothing is left over.
//!
//! Each index row's value is the timestamp of the put that wrote it
//! (milliseconds since the Unix epoch, 8 bytes big-endian): how old a
//! leftover is, on every engine. Timestamps are strictly increasing within
//! a process; writers in several processes rely on their clocks agreeing
//! to within the gap between two writes of one row, as every HBase client
//! that stamps its own cells does.
//!
#![cfg_attr(feature = "derive", doc = "```")]
#![cfg_attr(not(feature = "derive"), doc = "```ignore")]
//! use rowkey_core::index::{Index, IndexedTable, Record};
//! use rowkey_core::prelude::*;
//! use rowkey_core::redb::IndexStore;
//!
//! #[derive(RowKey, Debug, Clone, PartialEq)]
//! #[rowkey(prefix = "D")]
//! struct Order { id: u64 }
//!
//! #[derive(Debug, Clone, PartialEq)]
//! struct OrderRecord { customer: String, total: u32 }
//!
//! impl Record for OrderRecord {
//!     fn to_value(&self) -> Vec<u8> {
//!         let mut v = self.total.to_be_bytes().to_vec();
//!         v.extend_from_slice(self.customer.as_bytes());
//!         v
//!     }
//!     fn from_value(bytes: &[u8]) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
//!         let (total, customer) = bytes.split_at_checked(4).ok_or("short record")?;
//!         Ok(OrderRecord {
//!             customer: String::from_utf8(customer.to_vec())?,
//!             total: u32::from_be_bytes(total.try_into()?),
//!         })
//!     }
//! }
//!
//! /// `I` + customer + the order: the orders of a customer.
//! #[derive(RowKey, Debug, Clone, PartialEq)]
//! #[rowkey(prefix = "I")]
//! struct ByCustomer { customer: String, order: Order }
//!
//! impl Index for ByCustomer {
//!     type Data = Order;
//!     type Record = OrderRecord;
//!     fn entries(order: &Order, record: &OrderRecord) -> impl IntoIterator<Item = Self> {
//!         [ByCustomer { customer: record.customer.clone(), order: order.clone() }]
//!     }
//!     fn data_key(&self) -> Order {
//!         self.order.clone()
//!     }
//! }
//!
//! let db = redb::Database::builder()
//!     .create_with_backend(redb::backends::InMemoryBackend::new())?;
//! let orders = IndexedTable::new(IndexStore::new(&db, "orders")).with_index::<ByCustomer>();
//! orders.put(&Order { id: 1 }, &OrderRecord { customer: "ann".into(), total: 30 })?;
//! orders.put(&Order { id: 2 }, &OrderRecord { customer: "bob".into(), total: 12 })?;
//! // Order 1 changes hands: its entry under "ann" is removed.
//! orders.put(&Order { id: 1 }, &OrderRecord { customer: "bob".into(), total: 30 })?;
//!
//! let bob = ByCustomer::filter().customer("bob").build()?;
//! let mut ids: Vec<u64> = orders
//!     .query::<ByCustomer>(&bob)?
//!     .map(|hit| hit.map(|(order, _)| order.id))
//!     .collect::<Result<_, _>>()?;
//! ids.sort();
//! assert_eq!(ids, [1, 2]);
//! assert_eq!(orders.verify::<ByCustomer>()?.valid, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod async_table;
mod cells;
mod engine;
mod error;
mod io;
mod maintain;
mod ops;
mod parallel;
mod query;
mod splits;
mod table;
pub mod testing;

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::future::Future;

use crate::key::{DecodeRowKey, RowKey};
use crate::scan::KeyFilter;

pub use async_table::{AsyncCoveredQuery, AsyncIndexedTable, AsyncQuery, AsyncQueryAny};
pub use cells::{decode_cells, encode_cells, Cell};
pub use engine::{covered_value, entry_keys, entry_value};
pub use error::IndexError;
pub use maintain::{Backfill, BackfillReport, IndexReport, RepairReport};
pub use query::QueryStats;
pub use table::{CoveredQuery, IndexedTable, Query, QueryAny};

/// What a data row holds: its value's bytes, and back.
///
/// With feature `index-serde` every serde type is a `Record`, written with
/// [postcard](https://docs.rs/postcard) (compact, and stable across its
/// 1.x releases).
///
/// A record is one value (`to_value` / `from_value`, one cell on HBase and
/// Bigtable) or, with [`CELLS`](Self::CELLS), several cells of the
/// families and qualifiers you choose (`to_cells` / `from_cells`), so
/// that a Java or Go service reads the data row with its own client:
///
/// ```
/// use rowkey_core::index::{Cell, Record};
///
/// struct Reading { temp: i64, firmware: String }
///
/// impl Record for Reading {
///     const CELLS: bool = true;
///     fn to_cells(&self) -> Vec<Cell> {
///         vec![
///             ("d".into(), b"temp".to_vec(), self.temp.to_be_bytes().to_vec()), // Bytes.toBytes(long)
///             ("d".into(), b"fw".to_vec(), self.firmware.as_bytes().to_vec()),
///         ]
///     }
///     fn from_cells(cells: &[Cell]) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
///         let cell = |q: &[u8]| {
///             cells.iter().find(|c| c.1 == q).map(|c| c.2.as_slice()).ok_or("a cell is missing")
///         };
///         Ok(Reading {
///             temp: i64::from_be_bytes(cell(b"temp")?.try_into()?),
///             firmware: String::from_utf8(cell(b"fw")?.to_vec())?,
///         })
///     }
/// }
/// ```
pub trait Record: Sized {
    /// Whether the data row is the record's cells ([`to_cells`](Self::to_cells)),
    /// not one value: on HBase its cells are the row's columns (an
    /// `IndexStore`'s family and qualifier `v` excepted: that cell is
    /// refused), a put replacing the row's cells; on an engine without
    /// columns (redb, fjall) and on Bigtable's one-cell store, the value is
    /// the cells' frame ([`encode_cells`], FORMAT.md).
    const CELLS: bool = false;

    /// The data row's value. The default, for a record of
    /// [`CELLS`](Self::CELLS): the frame of its cells.
    fn to_value(&self) -> Vec<u8> {
        encode_cells(&self.to_cells())
    }

    /// A record from a data row's value, or why the bytes are not one. The
    /// default: the record of the cells of a frame.
    fn from_value(bytes: &[u8]) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Self::from_cells(&decode_cells(bytes)?)
    }

    /// The data row's cells, for a record of [`CELLS`](Self::CELLS): at
    /// least one (HBase has no row without cells). The default: none.
    fn to_cells(&self) -> Vec<Cell> {
        Vec::new()
    }

    /// A record from its data row's cells (as the engine returns them: on
    /// HBase every cell of the row, ordered by family and qualifier). The
    /// default: an error, for a record of one value.
    fn from_cells(cells: &[Cell]) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        let _ = cells;
        Err("this record is one value (Record::from_value), not cells".into())
    }
}

#[cfg(feature = "index-serde")]
impl<T: serde::Serialize + serde::de::DeserializeOwned> Record for T {
    /// The record in postcard's format.
    fn to_value(&self) -> Vec<u8> {
        // postcard fails only for a type whose `Serialize` fails or needs
        // a length it does not give (a serializer for `collect_str`-less
        // maps): a bug of the type, not of the data.
        postcard::to_allocvec(self).expect("a serde record postcard can write")
    }

    fn from_value(bytes: &[u8]) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(postcard::from_bytes(bytes)?)
    }
}

/// A secondary index: a key family whose key is an entry of the index,
/// ending with the data key it points at (a nested key), so entries are
/// unique and a hit names its data row.
///
/// The index's prefix (`#[rowkey(prefix = "...")]`) must differ from the
/// data key's and every other index's of the same table, neither a prefix
/// of another: [`IndexedTable::with_index`] panics otherwise.
pub trait Index: RowKey + for<'de> DecodeRowKey<'de> + Sized {
    /// The key of the data rows the index points at.
    type Data: RowKey + for<'de> DecodeRowKey<'de>;
    /// What the data rows hold.
    type Record: Record;
    /// The entries of a record: none (the record is not indexed), one, or
    /// several (an index on either of two columns yields one per column,
    /// so a query on one value finds records that hold it in either).
    fn entries(data: &Self::Data, record: &Self::Record) -> impl IntoIterator<Item = Self>;
    /// The data key this entry points at (its last field).
    fn data_key(&self) -> Self::Data;
}

/// An index whose entries carry some of their record's values (Phoenix's
/// `INCLUDE` columns), so that a query asking only for them reads the
/// index rows and no data row: [`IndexedTable::query_covered`].
///
/// Add it with [`IndexedTable::with_covering_index`] (not `with_index`,
/// which writes entries that cover nothing). Each entry's value is its
/// write's timestamp followed by [`Covering::covered`]'s
/// [`Record::to_value`] (FORMAT.md), written again by every put of its
/// record, so an entry covers what its record's last put wrote.
///
/// A covered answer is the index's alone: a put that stopped between its
/// steps (a crash, on HBase or Bigtable) can leave an entry, or covered
/// values, that its data row does not have, until
/// [`repair`](IndexedTable::repair) mends it ([`verify`](IndexedTable::verify)
/// counts them: [`IndexReport::orphan`], [`IndexReport::stale`],
/// [`IndexReport::stale_covered`]). [`query`](IndexedTable::query) checks
/// each hit against its data row instead.
///
#[cfg_attr(feature = "derive", doc = "```")]
#[cfg_attr(not(feature = "derive"), doc = "```ignore")]
/// use rowkey_core::index::{Covering, Index, IndexedTable, Record};
/// use rowkey_core::prelude::*;
/// use rowkey_core::redb::IndexStore;
///
/// #[derive(RowKey, Debug, Clone, PartialEq)]
/// #[rowkey(prefix = "D")]
/// struct Order { id: u64 }
///
/// #[derive(Debug, Clone, PartialEq)]
/// struct OrderRecord { customer: u32, total: u32 }
/// # impl Record for OrderRecord {
/// #     fn to_value(&self) -> Vec<u8> {
/// #         [self.customer.to_be_bytes(), self.total.to_be_bytes()].concat()
/// #     }
/// #     fn from_value(b: &[u8]) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
/// #         let (c, t) = b.split_at_checked(4).ok_or("short")?;
/// #         Ok(OrderRecord { customer: u32::from_be_bytes(c.try_into()?), total: u32::from_be_bytes(t.try_into()?) })
/// #     }
/// # }
///
/// /// What the entries carry: the order's total.
/// #[derive(Debug, Clone, PartialEq)]
/// struct Total(u32);
///
/// impl Record for Total {
///     fn to_value(&self) -> Vec<u8> {
///         self.0.to_be_bytes().to_vec()
///     }
///     fn from_value(bytes: &[u8]) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
///         Ok(Total(u32::from_be_bytes(bytes.try_into()?)))
///     }
/// }
///
/// /// `C` + customer + the order, covering the order's total.
/// #[derive(RowKey, Debug, Clone, PartialEq)]
/// #[rowkey(prefix = "C")]
/// struct ByCustomer { customer: u32, order: Order }
///
/// impl Index for ByCustomer {
///     type Data = Order;
///     type Record = OrderRecord;
///     fn entries(order: &Order, record: &OrderRecord) -> impl IntoIterator<Item = Self> {
///         [ByCustomer { customer: record.customer, order: order.clone() }]
///     }
///     fn data_key(&self) -> Order {
///         self.order.clone()
///     }
/// }
///
/// impl Covering for ByCustomer {
///     type Covered = Total;
///     fn covered(_: &Order, record: &OrderRecord) -> Total {
///         Total(record.total)
///     }
/// }
///
/// let db = redb::Database::builder()
///     .create_with_backend(redb::backends::InMemoryBackend::new())?;
/// let orders = IndexedTable::new(IndexStore::new(&db, "orders"))
///     .with_covering_index::<ByCustomer>();
/// orders.put(&Order { id: 1 }, &OrderRecord { customer: 7, total: 30 })?;
/// orders.put(&Order { id: 2 }, &OrderRecord { customer: 7, total: 12 })?;
///
/// let customer = ByCustomer::filter().customer(7).build()?;
/// let mut query = orders.query_covered::<ByCustomer>(&customer)?;
/// let totals: Vec<u32> = query.by_ref().map(|hit| hit.map(|(_, t)| t.0)).collect::<Result<_, _>>()?;
/// assert_eq!(totals, [30, 12]);
/// assert_eq!(query.stats().data_gets, 0); // no data row read
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Covering: Index {
    /// What each entry carries of its record.
    type Covered: Record;
    /// The values of `record` its entries carry.
    fn covered(data: &Self::Data, record: &Self::Record) -> Self::Covered;
}

/// A page of rows read from a [`Store`]: keys and values in key order, and
/// how many rows the store read to find them (more than returned when a
/// filter skipped rows).
#[derive(Debug, Default)]
pub struct Page {
    /// The rows, in key order.
    pub rows: Vec<(Vec<u8>, Vec<u8>)>,
    /// Rows the store read for them.
    pub read: u64,
}

/// The engine under an [`IndexedTable`]: one table of the store, read by
/// pages and written in transactions of single-row steps.
///
/// A store whose engine writes several rows atomically (redb, fjall)
/// commits a [`write`](Self::write) at its end, or nothing when it fails; a
/// store over HBase or Bigtable applies each step as it comes, and its
/// cells carry the step's timestamp.
pub trait Store {
    /// The engine's error.
    type Error: std::error::Error + Send + Sync + 'static;

    /// At most `limit` rows from `from` (inclusive) to `stop` (exclusive;
    /// empty: to the end of the table), in key order, those `filter`
    /// matches when there is one (a skip scan where the engine has one).
    /// Fewer than `limit` rows: nothing more in the range.
    fn scan(
        &self,
        from: &[u8],
        stop: &[u8],
        filter: Option<&KeyFilter>,
        limit: usize,
    ) -> Result<Page, Self::Error>;

    /// The values of `keys`, in their order (`None`: no such row).
    fn get_many(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, Self::Error>;

    /// Where the store's own parts (HBase's regions) start inside `[from,
    /// stop)`: a check ([`IndexedTable::verify`], `repair`) reads each part
    /// on a thread of its own, as it does each salt bucket. The default:
    /// none (the range is read whole).
    fn split_hints(&self, from: &[u8], stop: &[u8]) -> Result<Vec<Vec<u8>>, Self::Error> {
        let _ = (from, stop);
        Ok(Vec::new())
    }

    /// Runs `steps` as one write: committed when it returns `Ok` on an
    /// engine with transactions (nothing written when it returns `Err`);
    /// step by step on one without.
    fn write<R, E: From<Self::Error>>(
        &self,
        steps: impl FnOnce(&mut dyn StoreTx<Error = Self::Error>) -> Result<R, E>,
    ) -> Result<R, E>;
}

/// A store shared by several tables (an [`IndexedTable`] over `&store`).
impl<S: Store> Store for &S {
    type Error = S::Error;

    fn scan(
        &self,
        from: &[u8],
        stop: &[u8],
        filter: Option<&KeyFilter>,
        limit: usize,
    ) -> Result<Page, Self::Error> {
        (**self).scan(from, stop, filter, limit)
    }

    fn get_many(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, Self::Error> {
        (**self).get_many(keys)
    }

    fn split_hints(&self, from: &[u8], stop: &[u8]) -> Result<Vec<Vec<u8>>, Self::Error> {
        (**self).split_hints(from, stop)
    }

    fn write<R, E: From<Self::Error>>(
        &self,
        steps: impl FnOnce(&mut dyn StoreTx<Error = Self::Error>) -> Result<R, E>,
    ) -> Result<R, E> {
        (**self).write(steps)
    }
}

/// The steps of a [`Store::write`]: each one single-row atomic at least.
pub trait StoreTx {
    /// The engine's error.
    type Error;
    /// A row's value, as this write sees it.
    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, Self::Error>;
    /// The values of `keys`, in their order, as this write sees them: one
    /// call for a batch where the engine has one (the default asks
    /// [`get`](Self::get) for each).
    fn get_many(&mut self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, Self::Error> {
        keys.iter().map(|k| self.get(k)).collect()
    }
    /// Writes `rows`, their cells at timestamp `ts` (milliseconds since the
    /// Unix epoch) where the engine has cell timestamps.
    fn put(&mut self, rows: &[(Vec<u8>, Vec<u8>)], ts: u64) -> Result<(), Self::Error>;
    /// Writes data rows of a [`Record::CELLS`] record, each row's cells
    /// replacing the row's (at `ts`, as [`put`](Self::put)). The default,
    /// for an engine without columns: each row's value is its cells'
    /// frame ([`encode_cells`]).
    fn put_cells(&mut self, rows: &[(Vec<u8>, Vec<Cell>)], ts: u64) -> Result<(), Self::Error> {
        let rows: Vec<(Vec<u8>, Vec<u8>)> = rows
            .iter()
            .map(|(key, cells)| (key.clone(), encode_cells(cells)))
            .collect();
        self.put(&rows, ts)
    }
    /// Removes `keys`: where the engine has cell timestamps, only the
    /// versions written at or before `ts`, so a newer write of the same
    /// key (a racing writer's) stays.
    fn delete(&mut self, keys: &[Vec<u8>], ts: u64) -> Result<(), Self::Error>;
}

/// A row's value and, where the engine keeps one, its cell's timestamp
/// in milliseconds ([`AsyncStore::get_stamped`]); `None`: no such row.
pub type Stamped = Option<(Vec<u8>, Option<u64>)>;

/// The engine under an [`AsyncIndexedTable`]: [`Store`]'s reads and a
/// write's steps as `async fn`s, for an engine whose client is async
/// (Bigtable). It has no transaction across rows: each step is its own
/// call, its cells stamped with the step's timestamp (milliseconds since
/// the Unix epoch), and a delete removes only the versions at or before
/// its timestamp.
pub trait AsyncStore: Sync {
    /// The engine's error.
    type Error: std::error::Error + Send + Sync + 'static;

    /// As [`Store::scan`].
    fn scan(
        &self,
        from: &[u8],
        stop: &[u8],
        filter: Option<&KeyFilter>,
        limit: usize,
    ) -> impl Future<Output = Result<Page, Self::Error>> + Send;

    /// As [`Store::get_many`].
    fn get_many(
        &self,
        keys: &[Vec<u8>],
    ) -> impl Future<Output = Result<Vec<Option<Vec<u8>>>, Self::Error>> + Send;

    /// A row's value (`None`: no such row).
    fn get(&self, key: &[u8]) -> impl Future<Output = Result<Option<Vec<u8>>, Self::Error>> + Send;

    /// A row's value and the timestamp (milliseconds) its cell was written
    /// at, where the engine keeps one (`None` otherwise: the default,
    /// [`get`](Self::get)'s value alone).
    ///
    /// A put or a delete removes the previous record's index entries only
    /// at or before that record's timestamp, not its own: on an engine
    /// whose deletes are not markers (Bigtable), a racing put's entry
    /// written in between, at a later timestamp, stays, and its data row
    /// keeps its entries. A store wrapping another forwards this.
    fn get_stamped(&self, key: &[u8]) -> impl Future<Output = Result<Stamped, Self::Error>> + Send {
        let value = self.get(key);
        async move { Ok(value.await?.map(|v| (v, None))) }
    }

    /// [`get_stamped`](Self::get_stamped) of each of `keys`, in their
    /// order: one call where the engine reads many rows at once (the
    /// default asks for each in turn).
    fn get_stamped_many(
        &self,
        keys: &[Vec<u8>],
    ) -> impl Future<Output = Result<Vec<Stamped>, Self::Error>> + Send {
        async move {
            let mut out = Vec::with_capacity(keys.len());
            for key in keys {
                out.push(self.get_stamped(key).await?);
            }
            Ok(out)
        }
    }

    /// As [`StoreTx::put`].
    fn put(
        &self,
        rows: &[(Vec<u8>, Vec<u8>)],
        ts: u64,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send;

    /// As [`StoreTx::delete`].
    fn delete(
        &self,
        keys: &[Vec<u8>],
        ts: u64,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send;

    /// Removes each key's versions at or before its own timestamp: one
    /// call where the engine writes many rows at once (the default calls
    /// [`delete`](Self::delete) once per distinct timestamp).
    fn delete_each(
        &self,
        keys: &[(Vec<u8>, u64)],
    ) -> impl Future<Output = Result<(), Self::Error>> + Send {
        async move {
            for (ts, keys) in by_timestamp(keys) {
                self.delete(&keys, ts).await?;
            }
            Ok(())
        }
    }
}

/// `keys` grouped by their timestamps, in the order of the timestamps.
pub(crate) fn by_timestamp(keys: &[(Vec<u8>, u64)]) -> Vec<(u64, Vec<Vec<u8>>)> {
    let mut groups = alloc::collections::BTreeMap::<u64, Vec<Vec<u8>>>::new();
    for (key, ts) in keys {
        groups.entry(*ts).or_default().push(key.clone());
    }
    groups.into_iter().collect()
}
