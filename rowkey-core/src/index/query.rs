//! Reading through an index: index rows a page at a time, their data rows
//! fetched in one batch per page, each hit checked against its data row.

use alloc::collections::VecDeque;
use alloc::vec::Vec;
use std::collections::HashSet;

use super::engine::{Engine, Indexes};
use super::{Index, IndexError, Record};
use crate::key::{DecodeRowKey, RowKey};
use crate::layout::Layout;
use crate::scan::{KeyFilter, ScanRange};

/// Index rows read per page (and data rows fetched per batch).
pub(super) const PAGE: usize = 512;

/// What a [`Query`](super::Query) has read and dropped so far. Counts, deterministic for
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
pub(super) type Hit<D, R> = (Vec<u8>, D, R);

/// A hit, or the error that stopped the query.
pub(super) type HitResult<E, D, R> = Result<Hit<D, R>, IndexError<E>>;

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

impl<D, R> QueryState<D, R> {
    /// What the query has read and dropped so far.
    pub(super) fn stats(&self) -> QueryStats {
        self.stats
    }
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
    pub(super) async fn next_hit<E: Engine<D, R>>(
        &mut self,
        table: &E,
    ) -> Option<HitResult<E::Error, D, R>> {
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

    pub(super) async fn next<E: Engine<D, R>>(
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

    pub(super) fn stats(&self) -> Vec<QueryStats> {
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

/// A query's state through index `I` with `filter`, checked to be of `I`.
pub(super) fn query_state<I, D, R, E>(
    indexes: &Indexes<D, R>,
    filter: &KeyFilter,
) -> Result<QueryState<D, R>, IndexError<E>>
where
    I: Index<Data = D, Record = R>,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    let index = indexes.find(I::LAYOUT)?.layout;
    if filter.layout().id() != I::LAYOUT.id() {
        return Err(IndexError::OtherLayout {
            filter: filter.layout().name(),
            index: I::LAYOUT.name(),
        });
    }
    Ok(QueryState::new(
        index,
        filter.scan().ranges().collect(),
        Some(filter.clone()),
    ))
}
