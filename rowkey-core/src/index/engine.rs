//! What the logic of an indexed table needs of its table, blocking or
//! async ([`Engine`]), the indexes it keeps ([`Indexes`]), and the rows'
//! bytes (families, timestamps, index rows' values).

use alloc::vec::Vec;
use core::future::Future;

use super::io::Steps;
use super::{Covering, Index, IndexError, Page, Record};
use crate::format::error::{DecodeError, EncodeError};
use crate::key::RowKey;
use crate::layout::Layout;
use crate::scan::{KeyFilter, Scan};

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
    /// What each entry of a record covers, for a [`Covering`] index.
    pub(super) covered: Option<CoveredFn<D, R>>,
}

/// A record's covered values in a [`Covering`] index, encoded.
pub(super) type CoveredFn<D, R> = fn(&D, &R) -> Vec<u8>;

/// An entry to write: its row key, and the covered values its row's value
/// holds after the timestamp (empty for an index that covers nothing).
pub(super) type NewEntry = (Vec<u8>, Vec<u8>);

impl<D, R> Registered<D, R> {
    /// `record`'s entries in this index, each with what it covers.
    pub(super) fn new_entries<E>(
        &self,
        key: &D,
        record: &R,
    ) -> Result<Vec<NewEntry>, IndexError<E>> {
        let keys = (self.entries)(key, record).map_err(IndexError::Encode)?;
        let covered = self.covered.map_or_else(Vec::new, |c| c(key, record));
        Ok(keys.into_iter().map(|k| (k, covered.clone())).collect())
    }
}

/// The row keys of `record`'s entries in index `I`, each once: the index
/// rows an indexed table writes for it (a bulk load of indexed rows writes
/// the same, with [`entry_value`] as their value).
pub fn entry_keys<I: Index>(
    data: &I::Data,
    record: &I::Record,
) -> Result<Vec<Vec<u8>>, EncodeError> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    for entry in I::entries(data, record) {
        let key = entry.encode_to_vec()?;
        if !out.contains(&key) {
            out.push(key);
        }
    }
    Ok(out)
}

/// The value of an index row written at `ts` (milliseconds since the Unix
/// epoch): the timestamp, 8 bytes big-endian. `repair` spares an entry
/// younger than its grace period by it. An entry of a [`Covering`] index
/// holds its [`covered_value`] after these 8 bytes.
pub fn entry_value(ts: u64) -> [u8; 8] {
    ts.to_be_bytes()
}

/// What each entry of `record` in the [`Covering`] index `I` holds after
/// its timestamp ([`entry_value`]): `I::covered(data, record)`'s
/// [`Record::to_value`](super::Record::to_value).
pub fn covered_value<I: Covering>(data: &I::Data, record: &I::Record) -> Vec<u8> {
    I::covered(data, record).to_value()
}

fn data_key_of<I: Index>(entry: &[u8]) -> Result<I::Data, DecodeError> {
    Ok(I::decode(entry)?.data_key())
}

/// The indexes of a table of data keys `D` and records `R`.
pub(super) struct Indexes<D, R>(Vec<Registered<D, R>>);

impl<D: RowKey, R> Indexes<D, R> {
    pub(super) fn new() -> Self {
        Indexes(Vec::new())
    }

    /// Where a table of the data rows and these indexes' rows starts
    /// split: each family's start (its prefix), so that no two families
    /// share a region, and each salted family's buckets; sorted, the empty
    /// key left out.
    pub(super) fn split_points(&self) -> Vec<Vec<u8>> {
        let mut points = alloc::collections::BTreeSet::new();
        for layout in self.layouts() {
            points.insert(layout.prefix().to_vec());
            points.extend(layout.split_points());
        }
        points.remove(&Vec::new());
        points.into_iter().collect()
    }

    /// The data key's layout, then each index's.
    fn layouts(&self) -> impl Iterator<Item = &'static Layout> + '_ {
        core::iter::once(D::LAYOUT).chain(self.0.iter().map(|r| r.layout))
    }

    /// The unsalted families with where they are: `None` for the data
    /// rows, an index's position otherwise.
    pub(super) fn unsalted_positions(&self) -> Vec<(&'static Layout, Option<usize>)> {
        core::iter::once((D::LAYOUT, None))
            .chain(self.0.iter().enumerate().map(|(i, r)| (r.layout, Some(i))))
            .filter(|(l, _)| l.salt().is_none())
            .collect()
    }

    /// The entries of `record` in the index at position `index`.
    pub(super) fn entries_of(
        &self,
        index: usize,
        key: &D,
        record: &R,
    ) -> Result<Vec<Vec<u8>>, EncodeError> {
        self.0
            .get(index)
            .map_or(Ok(Vec::new()), |ix| (ix.entries)(key, record))
    }

    /// The families (data or index) without a salt: a table pre-split at
    /// [`split_points`](Self::split_points) holds each in one region.
    pub(super) fn unsalted(&self) -> Vec<&'static Layout> {
        self.layouts().filter(|l| l.salt().is_none()).collect()
    }

    /// Adds the [`Covering`] index `I`, as [`add`](Self::add), its
    /// entries holding their covered values.
    pub(super) fn add_covering<I: Covering<Data = D, Record = R>>(&mut self) {
        self.add::<I>();
        if let Some(ix) = self.0.last_mut() {
            ix.covered = Some(covered_value::<I>);
        }
    }

    /// Adds `I`, or panics when its prefix would mix its rows with the
    /// data rows or another index's (see `with_index`).
    pub(super) fn add<I: Index<Data = D, Record = R>>(&mut self) {
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
        let others = core::iter::once(D::LAYOUT).chain(self.0.iter().map(|r| r.layout));
        for other in others {
            let p = other.prefix();
            assert!(
                !(p.starts_with(prefix) || prefix.starts_with(p)),
                "the prefixes of `{}` and `{}` overlap: their rows would mix",
                I::LAYOUT.name(),
                other.name()
            );
        }
        self.0.push(Registered {
            layout: I::LAYOUT,
            entries: entry_keys::<I>,
            data_key: data_key_of::<I>,
            covered: None,
        });
    }

    /// The index with `layout`, or the error naming it.
    pub(super) fn find<E>(
        &self,
        layout: &'static Layout,
    ) -> Result<&Registered<D, R>, IndexError<E>> {
        self.0
            .iter()
            .find(|r| r.layout.id() == layout.id())
            .ok_or(IndexError::NotIndexed {
                index: layout.name(),
            })
    }

    /// Every index's entries of `record`, each with what it covers.
    pub(super) fn new_entries<E>(
        &self,
        key: &D,
        record: &R,
    ) -> Result<Vec<NewEntry>, IndexError<E>> {
        let mut out = Vec::new();
        for ix in &self.0 {
            out.extend(ix.new_entries(key, record)?);
        }
        Ok(out)
    }

    /// Every index's entries of `record`.
    pub(super) fn all_entries<E>(
        &self,
        key: &D,
        record: &R,
    ) -> Result<Vec<Vec<u8>>, IndexError<E>> {
        let mut out = Vec::new();
        for ix in &self.0 {
            out.extend((ix.entries)(key, record).map_err(IndexError::Encode)?);
        }
        Ok(out)
    }
}

/// A write the logic runs as one [`Store::write`](super::Store::write) on
/// a blocking store, step by step on an async one.
pub(super) trait WriteOp<D, R> {
    type Out;
    fn run<T: Steps>(
        self,
        indexes: &Indexes<D, R>,
        tx: &mut T,
    ) -> impl Future<Output = Result<Self::Out, IndexError<T::Error>>>;
}

/// A table as the logic sees it: its indexes, its reads and its writes.
pub(super) trait Engine<D, R> {
    type Error;
    fn indexes(&self) -> &Indexes<D, R>;
    fn scan(
        &self,
        from: &[u8],
        stop: &[u8],
        filter: Option<&KeyFilter>,
        limit: usize,
    ) -> impl Future<Output = Result<Page, Self::Error>>;
    fn get_many(
        &self,
        keys: &[Vec<u8>],
    ) -> impl Future<Output = Result<Vec<Option<Vec<u8>>>, Self::Error>>;
    fn write<O: WriteOp<D, R>>(
        &self,
        op: O,
    ) -> impl Future<Output = Result<O::Out, IndexError<Self::Error>>>;
}

/// The rows of one key family: from its prefix to the key after every key
/// that starts with it (empty: the end of the table), as
/// [`Scan::prefixed`] reads them.
pub(super) fn family(layout: &Layout) -> (Vec<u8>, Vec<u8>) {
    let scan = Scan::prefixed(layout.prefix());
    let range = scan.ranges().next().expect("a prefix scan has one range");
    (range.start().to_vec(), range.stop().to_vec())
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

/// Index rows: each entry with the timestamp of the write as its value,
/// followed by what the entry covers.
pub(super) fn entry_rows(entries: Vec<NewEntry>, ts: u64) -> Vec<(Vec<u8>, Vec<u8>)> {
    entries
        .into_iter()
        .map(|(key, covered)| {
            let mut value = Vec::with_capacity(8 + covered.len());
            value.extend_from_slice(&entry_value(ts));
            value.extend_from_slice(&covered);
            (key, value)
        })
        .collect()
}

/// The timestamp an index row's value holds (0 when it holds none: a row
/// written by other code, as old as can be).
pub(super) fn entry_timestamp(value: &[u8]) -> u64 {
    value
        .get(..8)
        .map_or(0, |b| u64::from_be_bytes(b.try_into().expect("8 bytes")))
}
