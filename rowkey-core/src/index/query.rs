//! Reading through an index: index rows a page at a time, their data rows
//! fetched in one batch per page, each hit checked against its data row.

use alloc::collections::VecDeque;
use alloc::vec::Vec;
use std::collections::HashSet;

use super::table::IndexedTable;
use super::{IndexError, Record, Store};
use crate::key::{DecodeRowKey, RowKey};
use crate::scan::{KeyFilter, ScanRange};

/// Index rows read per page (and data rows fetched per batch).
pub(super) const PAGE: usize = 512;

/// A hit: its data key's bytes, the data key and the record.
pub(super) type Hit<D, R> = (Vec<u8>, D, R);

/// A hit, or the error that stopped the query.
pub(super) type HitResult<S, D, R> = Result<Hit<D, R>, IndexError<<S as Store>::Error>>;

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

/// The records a query through an index finds: `(data key, record)`, or
/// the error that stopped it. See [`IndexedTable::query`].
pub struct Query<'t, S: Store, D, R> {
    table: &'t IndexedTable<S, D, R>,
    index: usize,
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

impl<'t, S, D, R> Query<'t, S, D, R>
where
    S: Store,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    pub(super) fn new(
        table: &'t IndexedTable<S, D, R>,
        index: usize,
        ranges: Vec<ScanRange>,
        filter: Option<KeyFilter>,
    ) -> Self {
        let from = ranges.first().map_or_else(Vec::new, |r| r.start().to_vec());
        Query {
            table,
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

    /// What the query has read and dropped so far.
    pub fn stats(&self) -> QueryStats {
        self.stats
    }

    /// The next hit with its data key's bytes.
    pub(super) fn next_hit(&mut self) -> Option<HitResult<S, D, R>> {
        while self.hits.is_empty() {
            if self.failed || self.range >= self.ranges.len() {
                return None;
            }
            if let Err(e) = self.read_page() {
                self.failed = true;
                return Some(Err(e));
            }
        }
        self.hits.pop_front().map(Ok)
    }

    /// Reads one page of index rows and keeps the hits that check out.
    fn read_page(&mut self) -> Result<(), IndexError<S::Error>> {
        let store = &self.table.store;
        let ix = &self.table.indexes[self.index];
        let stop = self.ranges[self.range].stop().to_vec();
        let page = store.scan(&self.from, &stop, self.filter.as_ref(), PAGE)?;
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
        let values = store.get_many(&data_keys)?;
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

impl<S, D, R> Iterator for Query<'_, S, D, R>
where
    S: Store,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    type Item = Result<(D, R), IndexError<S::Error>>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(self.next_hit()?.map(|(_, d, r)| (d, r)))
    }
}

/// The records any of several queries finds, each once: see
/// [`IndexedTable::query_any`].
pub struct QueryAny<'t, S: Store, D, R> {
    queries: Vec<Query<'t, S, D, R>>,
    current: usize,
    seen: HashSet<Vec<u8>>,
}

impl<'t, S, D, R> QueryAny<'t, S, D, R>
where
    S: Store,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    pub(super) fn new(queries: Vec<Query<'t, S, D, R>>) -> Self {
        QueryAny {
            queries,
            current: 0,
            seen: HashSet::new(),
        }
    }

    /// Each query's counts so far, in the order of the filters. A record
    /// that two queries find is counted as returned by both.
    pub fn stats(&self) -> Vec<QueryStats> {
        self.queries.iter().map(Query::stats).collect()
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
        loop {
            let query = self.queries.get_mut(self.current)?;
            match query.next_hit() {
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
}
