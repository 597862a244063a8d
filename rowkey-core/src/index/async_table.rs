//! [`AsyncIndexedTable`]: [`IndexedTable`](super::IndexedTable) on an
//! async store, its methods `async fn`s running the same logic.

use alloc::vec::Vec;
use core::future::Future;
use core::marker::PhantomData;
use core::time::Duration;

use super::engine::{Engine, Indexes, WriteOp};
use super::io::Async;
use super::maintain::{self, Backfill, BackfillReport, IndexReport, RepairReport};
use super::query::{any_states, query_state, AnyState, CoveredState, QueryState, QueryStats};
use super::{ops, splits, AsyncStore, Covering, Index, IndexError, Page, Record};
use crate::key::{DecodeRowKey, RowKey};
use crate::scan::{KeyFilter, Scan};

/// [`IndexedTable`](super::IndexedTable) on an [`AsyncStore`] (Bigtable):
/// the same rows, write order, checks and maintenance, each method an
/// `async fn` (its future `Send` when the store's are, so it can be
/// spawned). A query is read with `while let Some(hit) = q.next().await`.
/// There is no transaction across rows: each step of a write is its own
/// call, and what a crash between them leaves is what queries drop and
/// [`repair`](Self::repair) mends.
pub struct AsyncIndexedTable<S, D, R> {
    store: S,
    indexes: Indexes<D, R>,
    types: PhantomData<fn(D) -> R>,
}

impl<S, D, R> Engine<D, R> for AsyncIndexedTable<S, D, R>
where
    S: AsyncStore,
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
        self.store.scan(from, stop, filter, limit)
    }

    fn get_many(
        &self,
        keys: &[Vec<u8>],
    ) -> impl Future<Output = Result<Vec<Option<Vec<u8>>>, S::Error>> {
        self.store.get_many(keys)
    }

    async fn write<O: WriteOp<D, R>>(&self, op: O) -> Result<O::Out, IndexError<S::Error>> {
        op.run(&self.indexes, &mut Async(&self.store)).await
    }
}

impl<S, D, R> AsyncIndexedTable<S, D, R>
where
    S: AsyncStore,
    D: RowKey + for<'de> DecodeRowKey<'de> + Sync,
    R: Record,
{
    /// A table on `store` with no index yet (see
    /// [`IndexedTable::new`](super::IndexedTable::new)).
    pub fn new(store: S) -> Self {
        AsyncIndexedTable {
            store,
            indexes: Indexes::new(),
            types: PhantomData,
        }
    }

    /// The table with index `I` too.
    ///
    /// # Panics
    ///
    /// As [`IndexedTable::with_index`](super::IndexedTable::with_index).
    #[must_use]
    pub fn with_index<I: Index<Data = D, Record = R>>(mut self) -> Self {
        self.indexes.add::<I>();
        self
    }

    /// As [`IndexedTable::with_covering_index`](super::IndexedTable::with_covering_index).
    ///
    /// # Panics
    ///
    /// As [`IndexedTable::with_index`](super::IndexedTable::with_index).
    #[must_use]
    pub fn with_covering_index<I: Covering<Data = D, Record = R>>(mut self) -> Self {
        self.indexes.add_covering::<I>();
        self
    }

    /// As [`IndexedTable::split_points`](super::IndexedTable::split_points).
    pub fn split_points(&self) -> Vec<Vec<u8>> {
        self.indexes.split_points()
    }

    /// As [`IndexedTable::sampled_split_points`](super::IndexedTable::sampled_split_points).
    pub async fn sampled_split_points(
        &self,
        regions: usize,
    ) -> Result<Vec<Vec<u8>>, IndexError<S::Error>> {
        splits::sampled(self, regions).await
    }

    /// As [`IndexedTable::split_points_from`](super::IndexedTable::split_points_from).
    pub fn split_points_from<'r>(
        &self,
        records: impl IntoIterator<Item = (&'r D, &'r R)>,
        regions: usize,
    ) -> Result<Vec<Vec<u8>>, crate::format::error::EncodeError>
    where
        D: 'r,
        R: 'r,
    {
        splits::from_records(&self.indexes, records, regions)
    }

    /// As [`IndexedTable::check`](super::IndexedTable::check).
    pub fn check(&self) -> Vec<alloc::string::String> {
        super::table::unsalted_warnings(&self.indexes.unsalted())
    }

    /// The store underneath.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// As [`IndexedTable::put`](super::IndexedTable::put), step by step.
    pub async fn put(&self, key: &D, record: &R) -> Result<(), IndexError<S::Error>> {
        ops::put(self, key, record).await
    }

    /// As [`IndexedTable::delete`](super::IndexedTable::delete).
    pub async fn delete(&self, key: &D) -> Result<bool, IndexError<S::Error>> {
        ops::delete(self, key).await
    }

    /// As [`IndexedTable::put_many`](super::IndexedTable::put_many): each
    /// batch's previous records in one read
    /// ([`AsyncStore::get_stamped_many`]), their old entries removed in
    /// one call ([`AsyncStore::delete_each`]).
    pub async fn put_many(&self, rows: &[(D, R)]) -> Result<(), IndexError<S::Error>> {
        ops::put_many(self, rows).await
    }

    /// As [`IndexedTable::delete_many`](super::IndexedTable::delete_many).
    pub async fn delete_many(&self, keys: &[D]) -> Result<u64, IndexError<S::Error>> {
        ops::delete_many(self, keys).await
    }

    /// As [`IndexedTable::get`](super::IndexedTable::get).
    pub async fn get(&self, key: &D) -> Result<Option<R>, IndexError<S::Error>> {
        ops::get(self, key).await
    }

    /// As [`IndexedTable::query`](super::IndexedTable::query).
    pub fn query<I: Index<Data = D, Record = R>>(
        &self,
        filter: &KeyFilter,
    ) -> Result<AsyncQuery<'_, S, D, R>, IndexError<S::Error>> {
        Ok(AsyncQuery {
            table: self,
            state: query_state::<I, D, R, S::Error>(&self.indexes, filter)?,
        })
    }

    /// As [`IndexedTable::query_covered`](super::IndexedTable::query_covered).
    pub fn query_covered<I: Covering<Data = D, Record = R>>(
        &self,
        filter: &KeyFilter,
    ) -> Result<AsyncCoveredQuery<'_, S, I>, IndexError<S::Error>> {
        Ok(AsyncCoveredQuery {
            table: self,
            state: CoveredState::new(&self.indexes, filter)?,
        })
    }

    /// As [`IndexedTable::query_scan`](super::IndexedTable::query_scan).
    pub fn query_scan<I: Index<Data = D, Record = R>>(
        &self,
        scan: &Scan,
    ) -> Result<AsyncQuery<'_, S, D, R>, IndexError<S::Error>> {
        let index = self.indexes.find(I::LAYOUT)?.layout;
        Ok(AsyncQuery {
            table: self,
            state: QueryState::new(index, scan.ranges().collect(), None),
        })
    }

    /// As [`IndexedTable::query_any`](super::IndexedTable::query_any).
    pub fn query_any(
        &self,
        filters: &[KeyFilter],
    ) -> Result<AsyncQueryAny<'_, S, D, R>, IndexError<S::Error>> {
        Ok(AsyncQueryAny {
            table: self,
            state: any_states(&self.indexes, filters)?,
        })
    }

    /// As [`IndexedTable::backfill`](super::IndexedTable::backfill):
    /// `table.backfill::<I>()?.run().await`.
    pub fn backfill<I: Index<Data = D, Record = R>>(
        &self,
    ) -> Result<Backfill<'_, Self>, IndexError<S::Error>> {
        Ok(Backfill::new(self, self.indexes.find(I::LAYOUT)?.layout))
    }

    /// As [`IndexedTable::verify`](super::IndexedTable::verify).
    pub async fn verify<I: Index<Data = D, Record = R>>(
        &self,
    ) -> Result<IndexReport, IndexError<S::Error>> {
        maintain::verify(self, I::LAYOUT).await
    }

    /// As [`IndexedTable::repair`](super::IndexedTable::repair).
    pub async fn repair<I: Index<Data = D, Record = R>>(
        &self,
        grace: Duration,
    ) -> Result<RepairReport, IndexError<S::Error>> {
        maintain::repair(self, I::LAYOUT, grace).await
    }
}

impl<S, D, R> Backfill<'_, AsyncIndexedTable<S, D, R>>
where
    S: AsyncStore,
    D: RowKey + for<'de> DecodeRowKey<'de> + Sync,
    R: Record,
{
    /// As [`run`](Backfill::run) on a blocking table.
    pub async fn run(mut self) -> Result<BackfillReport, IndexError<S::Error>> {
        maintain::backfill(&mut self).await
    }
}

/// [`Query`](super::Query) on an [`AsyncIndexedTable`]: `while let Some(hit) =
/// query.next().await`.
pub struct AsyncQuery<'t, S, D, R> {
    pub(super) table: &'t AsyncIndexedTable<S, D, R>,
    pub(super) state: QueryState<D, R>,
}

impl<S, D, R> AsyncQuery<'_, S, D, R>
where
    S: AsyncStore,
    D: RowKey + for<'de> DecodeRowKey<'de> + Sync,
    R: Record,
{
    /// The next record, `None` at the end.
    pub async fn next(&mut self) -> Option<Result<(D, R), IndexError<S::Error>>> {
        let hit = self.state.next_hit(self.table).await?;
        Some(hit.map(|(_, d, r)| (d, r)))
    }

    /// Every record left, or the first error.
    pub async fn collect(mut self) -> Result<Vec<(D, R)>, IndexError<S::Error>> {
        let mut out = Vec::new();
        while let Some(hit) = self.next().await {
            out.push(hit?);
        }
        Ok(out)
    }

    /// What the query has read and dropped so far.
    pub fn stats(&self) -> QueryStats {
        self.state.stats()
    }
}

/// [`CoveredQuery`](super::CoveredQuery) on an [`AsyncIndexedTable`].
pub struct AsyncCoveredQuery<'t, S, I: Covering> {
    pub(super) table: &'t AsyncIndexedTable<S, I::Data, I::Record>,
    pub(super) state: CoveredState<I>,
}

impl<S, I> AsyncCoveredQuery<'_, S, I>
where
    S: AsyncStore,
    I: Covering,
    I::Data: Sync,
{
    /// The next entry and its covered values, `None` at the end.
    pub async fn next(&mut self) -> Option<Result<(I, I::Covered), IndexError<S::Error>>> {
        self.state.next(self.table).await
    }

    /// Every entry left, or the first error.
    pub async fn collect(mut self) -> Result<Vec<(I, I::Covered)>, IndexError<S::Error>> {
        let mut out = Vec::new();
        while let Some(hit) = self.next().await {
            out.push(hit?);
        }
        Ok(out)
    }

    /// What the query has read and dropped so far.
    pub fn stats(&self) -> QueryStats {
        self.state.stats()
    }
}

/// [`QueryAny`](super::QueryAny) on an [`AsyncIndexedTable`].
pub struct AsyncQueryAny<'t, S, D, R> {
    pub(super) table: &'t AsyncIndexedTable<S, D, R>,
    pub(super) state: AnyState<D, R>,
}

impl<S, D, R> AsyncQueryAny<'_, S, D, R>
where
    S: AsyncStore,
    D: RowKey + for<'de> DecodeRowKey<'de> + Sync,
    R: Record,
{
    /// The next record, `None` at the end.
    pub async fn next(&mut self) -> Option<Result<(D, R), IndexError<S::Error>>> {
        self.state.next(self.table).await
    }

    /// Every record left, or the first error.
    pub async fn collect(mut self) -> Result<Vec<(D, R)>, IndexError<S::Error>> {
        let mut out = Vec::new();
        while let Some(hit) = self.next().await {
            out.push(hit?);
        }
        Ok(out)
    }

    /// Each query's counts so far, in the order of the filters.
    pub fn stats(&self) -> Vec<QueryStats> {
        self.state.stats()
    }
}
