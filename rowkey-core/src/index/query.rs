//! Reading through an index: index rows a page at a time, their data rows
//! fetched in one batch per page, each hit checked against its data row.

use alloc::collections::VecDeque;
use alloc::vec::Vec;
use std::collections::HashSet;

use super::engine::{Engine, Indexes};
use super::{Covering, Index, IndexError, Record};
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

/// Where a read of an index's rows is: its ranges and filter, the range
/// being read and where its next page starts.
struct Cursor {
    index: &'static Layout,
    filter: Option<KeyFilter>,
    ranges: Vec<ScanRange>,
    range: usize,
    from: Vec<u8>,
}

impl Cursor {
    fn new(index: &'static Layout, ranges: Vec<ScanRange>, filter: Option<KeyFilter>) -> Self {
        let from = ranges.first().map_or_else(Vec::new, |r| r.start().to_vec());
        Cursor {
            index,
            filter,
            ranges,
            range: 0,
            from,
        }
    }

    /// Whether every range has been read.
    fn done(&self) -> bool {
        self.range >= self.ranges.len()
    }

    /// The next page of index rows (counted in `stats`), the cursor moved
    /// past it.
    async fn next_page<D, R, E: Engine<D, R>>(
        &mut self,
        table: &E,
        stats: &mut QueryStats,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>, IndexError<E::Error>> {
        let stop = self.ranges[self.range].stop().to_vec();
        let page = table
            .scan(&self.from, &stop, self.filter.as_ref(), PAGE)
            .await?;
        stats.store_rows_read += page.read;
        stats.index_rows += page.rows.len() as u64;
        if page.rows.len() < PAGE {
            self.range += 1;
            if let Some(next) = self.ranges.get(self.range) {
                self.from = next.start().to_vec();
            }
        } else if let Some((last, _)) = page.rows.last() {
            self.from.clone_from(last);
            self.from.push(0);
        }
        Ok(page.rows)
    }
}

/// Where a query through one index is: where its read is, the hits of
/// the last page not yet returned.
pub(super) struct QueryState<D, R> {
    cursor: Cursor,
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
        QueryState {
            cursor: Cursor::new(index, ranges, filter),
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
            if self.failed || self.cursor.done() {
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
        let ix = table.indexes().find(self.cursor.index)?;
        let rows = self.cursor.next_page(table, &mut self.stats).await?;
        let mut entries = Vec::with_capacity(rows.len());
        let mut data_keys = Vec::with_capacity(rows.len());
        for (entry, _) in rows {
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

/// Where a covered query through index `I` is: where its read is, the
/// hits of the last page not yet returned.
pub(super) struct CoveredState<I: Covering> {
    cursor: Cursor,
    hits: VecDeque<(I, I::Covered)>,
    /// The data keys returned, so a record with several matching entries
    /// comes once.
    seen: HashSet<Vec<u8>>,
    stats: QueryStats,
    failed: bool,
}

impl<I: Covering> CoveredState<I> {
    /// A covered query's state through `I` with `filter`, checked to be of
    /// `I`, an index the table covers.
    pub(super) fn new<E>(
        indexes: &Indexes<I::Data, I::Record>,
        filter: &KeyFilter,
    ) -> Result<Self, IndexError<E>> {
        let ix = indexes.find(I::LAYOUT)?;
        if ix.covered.is_none() {
            return Err(IndexError::NotCovering {
                index: I::LAYOUT.name(),
            });
        }
        if filter.layout().id() != I::LAYOUT.id() {
            return Err(IndexError::OtherLayout {
                filter: filter.layout().name(),
                index: I::LAYOUT.name(),
            });
        }
        let ranges = filter.scan().ranges().collect();
        Ok(CoveredState {
            cursor: Cursor::new(ix.layout, ranges, Some(filter.clone())),
            hits: VecDeque::new(),
            seen: HashSet::new(),
            stats: QueryStats::default(),
            failed: false,
        })
    }

    /// What the query has read and dropped so far.
    pub(super) fn stats(&self) -> QueryStats {
        self.stats
    }

    /// The next entry and what it covers.
    pub(super) async fn next<E: Engine<I::Data, I::Record>>(
        &mut self,
        table: &E,
    ) -> Option<Result<(I, I::Covered), IndexError<E::Error>>> {
        while self.hits.is_empty() {
            if self.failed || self.cursor.done() {
                return None;
            }
            if let Err(e) = self.read_page(table).await {
                self.failed = true;
                return Some(Err(e));
            }
        }
        self.hits.pop_front().map(Ok)
    }

    /// Reads one page of index rows: each entry once per record, with its
    /// covered values; an entry whose covered values do not decode is an
    /// error naming it.
    async fn read_page<E: Engine<I::Data, I::Record>>(
        &mut self,
        table: &E,
    ) -> Result<(), IndexError<E::Error>> {
        for (key, value) in self.cursor.next_page(table, &mut self.stats).await? {
            let Ok(entry) = I::decode(&key) else {
                self.stats.undecodable += 1;
                continue;
            };
            let covered = value
                .get(8..)
                .ok_or_else(|| "no covered values (an index row of 8 bytes or fewer)".into())
                .and_then(I::Covered::from_value)
                .map_err(|error| IndexError::Covered {
                    entry: key.clone(),
                    error,
                })?;
            let data_key = entry
                .data_key()
                .encode_to_vec()
                .map_err(IndexError::Encode)?;
            if !self.seen.insert(data_key) {
                self.stats.duplicate += 1;
                continue;
            }
            self.stats.returned += 1;
            self.hits.push_back((entry, covered));
        }
        Ok(())
    }
}
