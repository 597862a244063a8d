//! Reading through an index: index rows a page at a time, their data rows
//! fetched in one batch per page, each hit checked against its data row.

use alloc::collections::VecDeque;
use alloc::vec::Vec;
use std::collections::HashSet;

use super::async_table::AsyncIndexedTable;
use super::engine::{Engine, Indexes};
use super::io::ready;
use super::table::IndexedTable;
use super::{AsyncStore, IndexError, Record, Store};
use crate::key::{DecodeRowKey, RowKey};
use crate::layout::Layout;
use crate::scan::{KeyFilter, ScanRange};

/// Index rows read per page (and data rows fetched per batch).
pub(super) const PAGE: usize = 512;

/// What a [`Query`] has read and dropped so far. Counts, deterministic for
/// a given table and query.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct QueryStats {
    /// Rows the store read for the index rows (more than `index_rows` when
    /// its skip scan stepped over rows that do not match).
    pub store_rows_read: u64,
    /// Index rows returned by the store.
    pub index_rows: u64,
    /// Data rows fetched.
    pub data_gets: u64,
    /// Records returned.
    pub returned: u64,
    /// Hits whose data row does not exist (dropped).
    pub orphan: u64,
    /// Hits whose data row's record no longer has the entry (dropped).
    pub stale: u64,
    /// Index rows or data rows that do not decode (dropped).
    pub undecodable: u64,
    /// Hits of a record already returned (another entry of it).
    pub duplicate: u64,
}

/// A hit: its data key's bytes, the data key and the record.
type Hit<D, R> = (Vec<u8>, D, R);

/// A hit, or the error that stopped the query.
type HitResult<E, D, R> = Result<Hit<D, R>, IndexError<E>>;

/// Where a query through one index is: its ranges, the next page's
/// start, the hits of the last page not yet returned.
pub(super) struct QueryState<D, R> {
    index: &'static Layout,
    filter: Option<KeyFilter>,
    ranges: Vec<ScanRange>,
    /// The range being read, and where its next page starts.
    range: usize,
    from: Vec<u8>,
    hits: VecDeque<Hit<D, R>>,
    /// The data keys returned, so a record with several matching entries
    /// comes once.
    seen: HashSet<Vec<u8>>,
    stats: QueryStats,
    failed: bool,
}

impl<D, R> QueryState<D, R>
where
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    pub(super) fn new(
        index: &'static Layout,
        ranges: Vec<ScanRange>,
        filter: Option<KeyFilter>,
    ) -> Self {
        let from = ranges.first().map_or_else(Vec::new, |r| r.start().to_vec());
        QueryState {
            index,
            filter,
            ranges,
            range: 0,
            from,
            hits: VecDeque::new(),
            seen: HashSet::new(),
            stats: QueryStats::default(),
            failed: false,
        }
    }

    /// The next hit with its data key's bytes.
    async fn next_hit<E: Engine<D, R>>(&mut self, table: &E) -> Option<HitResult<E::Error, D, R>> {
        while self.hits.is_empty() {
            if self.failed || self.range >= self.ranges.len() {
                return None;
            }
            if let Err(e) = self.read_page(table).await {
                self.failed = true;
                return Some(Err(e));
            }
        }
        self.hits.pop_front().map(Ok)
    }

    /// Reads one page of index rows and keeps the hits that check out.
    async fn read_page<E: Engine<D, R>>(&mut self, table: &E) -> Result<(), IndexError<E::Error>> {
        let ix = table.indexes().find(self.index)?;
        let stop = self.ranges[self.range].stop().to_vec();
        let page = table
            .scan(&self.from, &stop, self.filter.as_ref(), PAGE)
            .await?;
        self.stats.store_rows_read += page.read;
        self.stats.index_rows += page.rows.len() as u64;
        if page.rows.len() < PAGE {
            self.range += 1;
            if let Some(next) = self.ranges.get(self.range) {
                self.from = next.start().to_vec();
            }
        } else if let Some((last, _)) = page.rows.last() {
            self.from.clone_from(last);
            self.from.push(0);
        }
        let mut entries = Vec::with_capacity(page.rows.len());
        let mut data_keys = Vec::with_capacity(page.rows.len());
        for (entry, _) in page.rows {
            let Ok(data) = (ix.data_key)(&entry) else {
                self.stats.undecodable += 1;
                continue;
            };
            let data_key = data.encode_to_vec().map_err(IndexError::Encode)?;
            entries.push((entry, data));
            data_keys.push(data_key);
        }
        if data_keys.is_empty() {
            return Ok(());
        }
        let values = table.get_many(&data_keys).await?;
        self.stats.data_gets += data_keys.len() as u64;
        for (((entry, data), data_key), value) in entries.into_iter().zip(data_keys).zip(values) {
            let Some(value) = value else {
                self.stats.orphan += 1;
                continue;
            };
            let Ok(record) = R::from_value(&value) else {
                self.stats.undecodable += 1;
                continue;
            };
            match (ix.entries)(&data, &record) {
                Ok(has) if has.contains(&entry) => {}
                _ => {
                    self.stats.stale += 1;
                    continue;
                }
            }
            if !self.seen.insert(data_key.clone()) {
                self.stats.duplicate += 1;
                continue;
            }
            self.stats.returned += 1;
            self.hits.push_back((data_key, data, record));
        }
        Ok(())
    }
}

/// The queries of a union, and the data keys returned.
pub(super) struct AnyState<D, R> {
    queries: Vec<QueryState<D, R>>,
    current: usize,
    seen: HashSet<Vec<u8>>,
}

impl<D, R> AnyState<D, R>
where
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    pub(super) fn new(queries: Vec<QueryState<D, R>>) -> Self {
        AnyState {
            queries,
            current: 0,
            seen: HashSet::new(),
        }
    }

    async fn next<E: Engine<D, R>>(
        &mut self,
        table: &E,
    ) -> Option<Result<(D, R), IndexError<E::Error>>> {
        loop {
            let query = self.queries.get_mut(self.current)?;
            match query.next_hit(table).await {
                None => self.current += 1,
                Some(Err(e)) => return Some(Err(e)),
                Some(Ok((key, d, r))) => {
                    if self.seen.insert(key) {
                        return Some(Ok((d, r)));
                    }
                }
            }
        }
    }

    fn stats(&self) -> Vec<QueryStats> {
        self.queries.iter().map(|q| q.stats).collect()
    }
}

/// The query states of `filters`, each through the index its layout names.
pub(super) fn any_states<D: RowKey + for<'de> DecodeRowKey<'de>, R: Record, E>(
    indexes: &Indexes<D, R>,
    filters: &[KeyFilter],
) -> Result<AnyState<D, R>, IndexError<E>> {
    let mut queries = Vec::with_capacity(filters.len());
    for filter in filters {
        let index = indexes.find(filter.layout())?.layout;
        let ranges = filter.scan().ranges().collect();
        queries.push(QueryState::new(index, ranges, Some(filter.clone())));
    }
    Ok(AnyState::new(queries))
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
        self.state.stats
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

/// [`Query`] on an [`AsyncIndexedTable`]: `while let Some(hit) =
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
        self.state.stats
    }
}

/// [`QueryAny`] on an [`AsyncIndexedTable`].
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
