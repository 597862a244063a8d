//! [`IndexedTable`]: a store's table of data rows and their indexes'
//! rows, written in step.

use alloc::vec::Vec;
use core::marker::PhantomData;

use super::query::{Query, QueryAny};
use super::{Index, IndexError, Record, Store};
use crate::format::error::{DecodeError, EncodeError};
use crate::key::{DecodeRowKey, RowKey};
use crate::layout::Layout;
use crate::scan::{KeyFilter, Scan, ScanRange};

/// A record's entries in one index, encoded, each once.
pub(super) type EntriesFn<D, R> = fn(&D, &R) -> Result<Vec<Vec<u8>>, EncodeError>;

/// An index as the table keeps it: its layout and its two functions, with
/// the index's type erased.
pub(super) struct Registered<D, R> {
    pub(super) layout: &'static Layout,
    /// The record's entries, encoded, each once.
    pub(super) entries: EntriesFn<D, R>,
    /// The data key an entry's bytes point at.
    pub(super) data_key: fn(&[u8]) -> Result<D, DecodeError>,
}

fn entries_of<I: Index>(data: &I::Data, record: &I::Record) -> Result<Vec<Vec<u8>>, EncodeError> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    for entry in I::entries(data, record) {
        let key = entry.encode_to_vec()?;
        if !out.contains(&key) {
            out.push(key);
        }
    }
    Ok(out)
}

fn data_key_of<I: Index>(entry: &[u8]) -> Result<I::Data, DecodeError> {
    Ok(I::decode(entry)?.data_key())
}

/// The rows of one key family: from its prefix to the key after every key
/// that starts with it (empty: the end of the table).
pub(super) fn family(layout: &Layout) -> (Vec<u8>, Vec<u8>) {
    let start = layout.prefix().to_vec();
    let mut stop = start.clone();
    while let Some(last) = stop.pop() {
        if last < 0xFF {
            stop.push(last + 1);
            break;
        }
    }
    (start, stop)
}

/// The timestamp of a write: milliseconds since the Unix epoch (HBase's
/// cell timestamps), and strictly after every timestamp this process gave
/// before, so two puts of one row in one millisecond are still ordered
/// (and a put is never hidden by the delete marker of an earlier write at
/// the same timestamp, as HBase would hide it). Under more than a thousand
/// writes a second it runs ahead of the clock, by as much as it must.
pub(super) fn timestamp() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static LAST: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let mut last = LAST.load(Ordering::Relaxed);
    loop {
        let ts = now.max(last + 1);
        match LAST.compare_exchange_weak(last, ts, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return ts,
            Err(seen) => last = seen,
        }
    }
}

/// An index row's value: the timestamp of the write.
pub(super) fn entry_rows(entries: &[Vec<u8>], ts: u64) -> Vec<(Vec<u8>, Vec<u8>)> {
    entries
        .iter()
        .map(|e| (e.clone(), ts.to_be_bytes().to_vec()))
        .collect()
}

/// The timestamp an index row's value holds (0 when it holds none: a row
/// written by other code, as old as can be).
pub(super) fn entry_timestamp(value: &[u8]) -> u64 {
    value
        .get(..8)
        .map_or(0, |b| u64::from_be_bytes(b.try_into().expect("8 bytes")))
}

/// A table of data rows keyed by `D` holding records `R`, and the rows of
/// its indexes, on a [`Store`]: see the [module docs](super).
///
/// Methods take `&self`; the table can be shared between threads when its
/// store can.
pub struct IndexedTable<S, D, R> {
    pub(super) store: S,
    pub(super) indexes: Vec<Registered<D, R>>,
    types: PhantomData<fn(D) -> R>,
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
            indexes: Vec::new(),
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
        let data = D::LAYOUT.prefix();
        let prefix = I::LAYOUT.prefix();
        assert!(
            !data.is_empty(),
            "the data key `{}` needs a prefix (#[rowkey(prefix = \"...\")]) to share a table with indexes",
            D::LAYOUT.name()
        );
        assert!(
            !prefix.is_empty(),
            "the index `{}` needs a prefix (#[rowkey(prefix = \"...\")]) of its own",
            I::LAYOUT.name()
        );
        let others = core::iter::once(D::LAYOUT).chain(self.indexes.iter().map(|r| r.layout));
        for other in others {
            let p = other.prefix();
            assert!(
                !(p.starts_with(prefix) || prefix.starts_with(p)),
                "the prefixes of `{}` and `{}` overlap: their rows would mix",
                I::LAYOUT.name(),
                other.name()
            );
        }
        self.indexes.push(Registered {
            layout: I::LAYOUT,
            entries: entries_of::<I>,
            data_key: data_key_of::<I>,
        });
        self
    }

    /// The store underneath.
    pub fn store(&self) -> &S {
        &self.store
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
        let data_key = key.encode_to_vec().map_err(IndexError::Encode)?;
        let value = record.to_value();
        let mut new = Vec::new();
        for ix in &self.indexes {
            new.extend((ix.entries)(key, record).map_err(IndexError::Encode)?);
        }
        let ts = timestamp();
        self.store.write(|tx| {
            let old = tx.get(&data_key)?;
            if !new.is_empty() {
                tx.put(&entry_rows(&new, ts), ts)?;
            }
            tx.put(&[(data_key.clone(), value)], ts)?;
            let mut gone = match old.as_deref().map(R::from_value) {
                Some(Ok(old)) => self.all_entries(key, &old)?,
                _ => Vec::new(),
            };
            gone.retain(|e| !new.contains(e));
            if !gone.is_empty() {
                tx.delete(&gone, ts)?;
            }
            Ok(())
        })
    }

    /// Removes the data row under `key`, then its entries; whether there
    /// was one. A crash between the two leaves orphan entries, which
    /// queries drop and [`repair`](Self::repair) removes.
    pub fn delete(&self, key: &D) -> Result<bool, IndexError<S::Error>> {
        let data_key = key.encode_to_vec().map_err(IndexError::Encode)?;
        let ts = timestamp();
        self.store.write(|tx| {
            let Some(old) = tx.get(&data_key)? else {
                return Ok(false);
            };
            tx.delete(core::slice::from_ref(&data_key), ts)?;
            if let Ok(old) = R::from_value(&old) {
                let entries = self.all_entries(key, &old)?;
                if !entries.is_empty() {
                    tx.delete(&entries, ts)?;
                }
            }
            Ok(true)
        })
    }

    /// The record under `key`, if there is one.
    pub fn get(&self, key: &D) -> Result<Option<R>, IndexError<S::Error>> {
        let data_key = key.encode_to_vec().map_err(IndexError::Encode)?;
        let mut values = self.store.get_many(core::slice::from_ref(&data_key))?;
        match values.pop().flatten() {
            None => Ok(None),
            Some(v) => R::from_value(&v)
                .map(Some)
                .map_err(|error| IndexError::Record {
                    key: data_key,
                    error,
                }),
        }
    }

    /// The records whose entries in index `I` `filter` matches (a filter
    /// built with `I::filter()`): the index rows are read (a skip scan
    /// where the store has one), their data rows fetched a page at a time,
    /// and a record returned only when its data row exists and still has
    /// that entry; each record once, in the order of the index's ranges
    /// (a salted index's buckets one after another). [`Query::stats`]
    /// counts what was read and what was dropped.
    pub fn query<'t, I: Index<Data = D, Record = R>>(
        &'t self,
        filter: &KeyFilter,
    ) -> Result<Query<'t, S, D, R>, IndexError<S::Error>> {
        let index = self.registered(I::LAYOUT)?;
        if filter.layout().id() != I::LAYOUT.id() {
            return Err(IndexError::OtherLayout {
                filter: filter.layout().name(),
                index: I::LAYOUT.name(),
            });
        }
        let ranges = filter.scan().ranges().collect();
        Ok(Query::new(self, index, ranges, Some(filter.clone())))
    }

    /// [`query`](Self::query) over the entries of a [`Scan`] of `I` (one
    /// of its generated `scan_by_*` / `range_by_*` scans).
    pub fn query_scan<'t, I: Index<Data = D, Record = R>>(
        &'t self,
        scan: &Scan,
    ) -> Result<Query<'t, S, D, R>, IndexError<S::Error>> {
        let index = self.registered(I::LAYOUT)?;
        let ranges: Vec<ScanRange> = scan.ranges().collect();
        Ok(Query::new(self, index, ranges, None))
    }

    /// The union of several queries, each a filter of one of the table's
    /// indexes (found by the filter's layout): every record that any of
    /// them finds, once.
    pub fn query_any<'t>(
        &'t self,
        filters: &[KeyFilter],
    ) -> Result<QueryAny<'t, S, D, R>, IndexError<S::Error>> {
        let mut queries = Vec::with_capacity(filters.len());
        for filter in filters {
            let index = self.registered(filter.layout())?;
            let ranges = filter.scan().ranges().collect();
            queries.push(Query::new(self, index, ranges, Some(filter.clone())));
        }
        Ok(QueryAny::new(queries))
    }

    /// The position of the index with `layout` among the table's.
    pub(super) fn registered(
        &self,
        layout: &'static Layout,
    ) -> Result<usize, IndexError<S::Error>> {
        self.indexes
            .iter()
            .position(|r| r.layout.id() == layout.id())
            .ok_or(IndexError::NotIndexed {
                index: layout.name(),
            })
    }

    /// Every index's entries of `record`.
    fn all_entries(&self, key: &D, record: &R) -> Result<Vec<Vec<u8>>, IndexError<S::Error>> {
        let mut out = Vec::new();
        for ix in &self.indexes {
            out.extend((ix.entries)(key, record).map_err(IndexError::Encode)?);
        }
        Ok(out)
    }
}
