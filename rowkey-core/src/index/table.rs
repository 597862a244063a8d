//! [`IndexedTable`]: a blocking store's table of data rows and their
//! indexes' rows, written in step.

use alloc::vec::Vec;
use core::future::Future;
use core::marker::PhantomData;

use super::engine::{Engine, Indexes, WriteOp};
use super::io::{ready, InTx};
use super::maintain::Backfill;
use super::query::{any_states, query_state, AnyState, CoveredState, QueryState, QueryStats};
use super::{ops, splits, Covering, Index, IndexError, Page, Record, Store};
use crate::format::error::EncodeError;
use crate::key::{DecodeRowKey, RowKey};
use crate::scan::{KeyFilter, Scan};

/// A table of data rows keyed by `D` holding records `R`, and the rows of
/// its indexes, on a blocking [`Store`]: see the [module docs](super).
/// [`AsyncIndexedTable`](super::AsyncIndexedTable) is the same on an
/// [`AsyncStore`](super::AsyncStore).
///
/// Methods take `&self`; the table can be shared between threads when its
/// store can.
pub struct IndexedTable<S, D, R> {
    pub(super) store: S,
    pub(super) indexes: Indexes<D, R>,
    types: PhantomData<fn(D) -> R>,
}

impl<S, D, R> Engine<D, R> for IndexedTable<S, D, R>
where
    S: Store,
    D: RowKey,
{
    type Error = S::Error;

    fn indexes(&self) -> &Indexes<D, R> {
        &self.indexes
    }

    fn scan(
        &self,
        from: &[u8],
        stop: &[u8],
        filter: Option<&KeyFilter>,
        limit: usize,
    ) -> impl Future<Output = Result<Page, S::Error>> {
        core::future::ready(self.store.scan(from, stop, filter, limit))
    }

    fn get_many(
        &self,
        keys: &[Vec<u8>],
    ) -> impl Future<Output = Result<Vec<Option<Vec<u8>>>, S::Error>> {
        core::future::ready(self.store.get_many(keys))
    }

    fn write<O: WriteOp<D, R>>(
        &self,
        op: O,
    ) -> impl Future<Output = Result<O::Out, IndexError<S::Error>>> {
        let indexes = &self.indexes;
        core::future::ready(self.store.write(|tx| ready(op.run(indexes, &mut InTx(tx)))))
    }
}

impl<S, D, R> IndexedTable<S, D, R>
where
    S: Store,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    /// A table on `store` with no index yet. Its data rows are the key
    /// family of `D`, which must have a prefix.
    pub fn new(store: S) -> Self {
        IndexedTable {
            store,
            indexes: Indexes::new(),
            types: PhantomData,
        }
    }

    /// The table with index `I` too: every put from now on writes its
    /// entries (build them for the rows already written with
    /// [`backfill`](Self::backfill)).
    ///
    /// # Panics
    ///
    /// When the data key or `I` has no prefix, or `I`'s prefix and the data
    /// key's or another index's are equal or one starts the other (their
    /// rows would mix): a mistake in the types, as an out-of-bounds index
    /// is.
    #[must_use]
    pub fn with_index<I: Index<Data = D, Record = R>>(mut self) -> Self {
        self.indexes.add::<I>();
        self
    }

    /// The table with the [`Covering`] index `I` too: as
    /// [`with_index`](Self::with_index), each entry holding its record's
    /// covered values, for [`query_covered`](Self::query_covered). Entries
    /// written before (by a table without it) hold none: `repair` writes
    /// them.
    ///
    /// # Panics
    ///
    /// As [`with_index`](Self::with_index).
    #[must_use]
    pub fn with_covering_index<I: Covering<Data = D, Record = R>>(mut self) -> Self {
        self.indexes.add_covering::<I>();
        self
    }

    /// The store underneath.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Where the table should start split (`create_table(table, families,
    /// &indexed.split_points())` on HBase or Bigtable): the start of the
    /// data rows and of each index's rows (their prefixes), so that no two
    /// families share a region, and each salted family's salt buckets.
    /// An unsalted family still lands in one region: [`check`](Self::check)
    /// names it, and [`sampled_split_points`](Self::sampled_split_points)
    /// cuts it where its rows fall.
    pub fn split_points(&self) -> Vec<Vec<u8>> {
        self.indexes.split_points()
    }

    /// [`split_points`](Self::split_points), with each family without a
    /// salt (the data rows, an index) cut into `regions` regions of about
    /// as many rows, at boundaries sampled from the table's data rows and
    /// their entries (one read of the data rows; up to 20,000 keys kept
    /// per family): for a new table that will hold these rows, or this
    /// one's `split` / merge plan.
    pub fn sampled_split_points(
        &self,
        regions: usize,
    ) -> Result<Vec<Vec<u8>>, IndexError<S::Error>> {
        ready(splits::sampled(self, regions))
    }

    /// [`sampled_split_points`](Self::sampled_split_points) sampled from
    /// `records` instead (the input of a bulk load, before its table
    /// exists).
    pub fn split_points_from<'r>(
        &self,
        records: impl IntoIterator<Item = (&'r D, &'r R)>,
        regions: usize,
    ) -> Result<Vec<Vec<u8>>, EncodeError>
    where
        D: 'r,
        R: 'r,
    {
        splits::from_records(&self.indexes, records, regions)
    }

    /// What a table pre-split at [`split_points`](Self::split_points)
    /// would do badly, one line each: a family (the data rows or an index)
    /// without a salt, whose writes all land in one region until HBase or
    /// Bigtable splits it under load. Empty when every family is salted.
    pub fn check(&self) -> Vec<alloc::string::String> {
        unsalted_warnings(&self.indexes.unsalted())
    }

    /// Writes `record` under `key`, with its entries in every index, and
    /// removes the entries its previous record had and this one has not.
    ///
    /// The steps, in order, all at one timestamp: the new entries, the
    /// data row, the old entries' removal (only the versions at or before
    /// that timestamp, where the engine has cell timestamps). A crash
    /// between steps leaves entries that queries drop and
    /// [`repair`](Self::repair) removes, never a data row without its
    /// entries. A previous record that does not decode has its entries
    /// left (queries drop them as stale). On redb and fjall the put is one
    /// transaction.
    pub fn put(&self, key: &D, record: &R) -> Result<(), IndexError<S::Error>> {
        ready(ops::put(self, key, record))
    }

    /// Removes the data row under `key`, then its entries; whether there
    /// was one. A crash between the two leaves orphan entries, which
    /// queries drop and [`repair`](Self::repair) removes.
    pub fn delete(&self, key: &D) -> Result<bool, IndexError<S::Error>> {
        ready(ops::delete(self, key))
    }

    /// [`put`](Self::put) of many records, a few calls per thousand rows
    /// instead of three per row: for each batch of up to 1,000 rows, their
    /// previous records are read in one call, then the steps of `put`
    /// run once for the whole batch, in its order (every row's new
    /// entries, then every data row, then every old entry's removal), all
    /// at one timestamp. A crash between steps leaves what it leaves after
    /// a single put, row by row: entries that queries drop and
    /// [`repair`](Self::repair) removes, never a data row without its
    /// entries.
    ///
    /// A key given twice is written twice, the later record last (its
    /// second write starts a new batch). On redb and fjall each batch is
    /// one transaction; a failure leaves the batches before it written.
    pub fn put_many(&self, rows: &[(D, R)]) -> Result<(), IndexError<S::Error>> {
        ready(ops::put_many(self, rows))
    }

    /// [`delete`](Self::delete) of many keys, by batches of up to 1,000:
    /// the data rows, then their entries, one call each per batch. The
    /// number of keys that had a row.
    pub fn delete_many(&self, keys: &[D]) -> Result<u64, IndexError<S::Error>> {
        ready(ops::delete_many(self, keys))
    }

    /// The record under `key`, if there is one.
    pub fn get(&self, key: &D) -> Result<Option<R>, IndexError<S::Error>> {
        ready(ops::get(self, key))
    }

    /// The records whose entries in index `I` `filter` matches (a filter
    /// built with `I::filter()`): the index rows are read (a skip scan
    /// where the store has one), their data rows fetched a page at a time,
    /// and a record returned only when its data row exists and still has
    /// that entry; each record once, in the order of the index's ranges
    /// (a salted index's buckets one after another). [`Query::stats`]
    /// counts what was read and what was dropped.
    pub fn query<I: Index<Data = D, Record = R>>(
        &self,
        filter: &KeyFilter,
    ) -> Result<Query<'_, S, D, R>, IndexError<S::Error>> {
        Ok(Query {
            table: self,
            state: query_state::<I, D, R, S::Error>(&self.indexes, filter)?,
        })
    }

    /// The entries of the [`Covering`] index `I` that `filter` matches, each
    /// with its covered values, from the index rows alone (no data row
    /// read: [`CoveredQuery::stats`]'s `data_gets` stays 0); one entry per
    /// record, in the order of the index's ranges. Unlike
    /// [`query`](Self::query)'s hits these are not checked against their
    /// data rows: see [`Covering`] for what a crash can leave until
    /// `repair`.
    pub fn query_covered<I: Covering<Data = D, Record = R>>(
        &self,
        filter: &KeyFilter,
    ) -> Result<CoveredQuery<'_, S, I>, IndexError<S::Error>> {
        Ok(CoveredQuery {
            table: self,
            state: CoveredState::new(&self.indexes, filter)?,
        })
    }

    /// [`query`](Self::query) over the entries of a [`Scan`] of `I` (one
    /// of its generated `scan_by_*` / `range_by_*` scans).
    pub fn query_scan<I: Index<Data = D, Record = R>>(
        &self,
        scan: &Scan,
    ) -> Result<Query<'_, S, D, R>, IndexError<S::Error>> {
        let index = self.indexes.find(I::LAYOUT)?.layout;
        Ok(Query {
            table: self,
            state: QueryState::new(index, scan.ranges().collect(), None),
        })
    }

    /// The union of several queries, each a filter of one of the table's
    /// indexes (found by the filter's layout): every record that any of
    /// them finds, once.
    pub fn query_any(
        &self,
        filters: &[KeyFilter],
    ) -> Result<QueryAny<'_, S, D, R>, IndexError<S::Error>> {
        Ok(QueryAny {
            table: self,
            state: any_states(&self.indexes, filters)?,
        })
    }

    /// Builds index `I` over the rows already written (after
    /// [`with_index`](Self::with_index) added it, so new puts write it
    /// too): resumable from a checkpoint, interruptible from its progress
    /// callback, and idempotent. Each page of data rows is read again
    /// inside the write that indexes it, and a row indexed only if it is
    /// unchanged, so a put that races the backfill is not undone (on a
    /// store without transactions that narrows the window to the row's
    /// read and write).
    pub fn backfill<I: Index<Data = D, Record = R>>(
        &self,
    ) -> Result<Backfill<'_, Self>, IndexError<S::Error>> {
        Ok(Backfill::new(self, self.indexes.find(I::LAYOUT)?.layout))
    }
}

/// The records a query through an index finds: `(data key, record)`, or
/// the error that stopped it. See [`IndexedTable::query`].
pub struct Query<'t, S, D, R> {
    pub(super) table: &'t IndexedTable<S, D, R>,
    pub(super) state: QueryState<D, R>,
}

impl<S, D, R> Query<'_, S, D, R> {
    /// What the query has read and dropped so far.
    pub fn stats(&self) -> QueryStats {
        self.state.stats()
    }
}

impl<S, D, R> Iterator for Query<'_, S, D, R>
where
    S: Store,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    type Item = Result<(D, R), IndexError<S::Error>>;

    fn next(&mut self) -> Option<Self::Item> {
        let hit = ready(self.state.next_hit(self.table))?;
        Some(hit.map(|(_, d, r)| (d, r)))
    }
}

/// The entries a covered query finds, with their covered values, or the
/// error that stopped it. See [`IndexedTable::query_covered`].
pub struct CoveredQuery<'t, S, I: Covering> {
    pub(super) table: &'t IndexedTable<S, I::Data, I::Record>,
    pub(super) state: CoveredState<I>,
}

impl<S, I: Covering> CoveredQuery<'_, S, I> {
    /// What the query has read and dropped so far.
    pub fn stats(&self) -> QueryStats {
        self.state.stats()
    }
}

impl<S: Store, I: Covering> Iterator for CoveredQuery<'_, S, I> {
    type Item = Result<(I, I::Covered), IndexError<S::Error>>;

    fn next(&mut self) -> Option<Self::Item> {
        ready(self.state.next(self.table))
    }
}

/// The records any of several queries finds, each once: see
/// [`IndexedTable::query_any`].
pub struct QueryAny<'t, S, D, R> {
    pub(super) table: &'t IndexedTable<S, D, R>,
    pub(super) state: AnyState<D, R>,
}

impl<S, D, R> QueryAny<'_, S, D, R>
where
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    /// Each query's counts so far, in the order of the filters. A record
    /// that two queries find is counted as returned by both.
    pub fn stats(&self) -> Vec<QueryStats> {
        self.state.stats()
    }
}

impl<S, D, R> Iterator for QueryAny<'_, S, D, R>
where
    S: Store,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    type Item = Result<(D, R), IndexError<S::Error>>;

    fn next(&mut self) -> Option<Self::Item> {
        ready(self.state.next(self.table))
    }
}

/// [`IndexedTable::check`]'s lines for the unsalted families.
pub(super) fn unsalted_warnings(
    layouts: &[&'static crate::layout::Layout],
) -> Vec<alloc::string::String> {
    layouts
        .iter()
        .map(|l| {
            alloc::format!(
                "`{}` (prefix \"{}\") has no salt: a table pre-split at split_points() holds all its rows in one region, \
                 and its writes land there until the engine splits it under load; salt it (#[salt(buckets = N, by(...))]) \
                 if its writes are heavy, or pre-split it at sampled_split_points()",
                l.name(),
                crate::format::binary::to_string_binary(l.prefix())
            )
        })
        .collect()
}
