//! Typed tables on [redb](https://docs.rs/redb) (feature `redb`): insert,
//! get and remove by a derived key, and run its generated [`Scan`]s (every
//! range, salt buckets merged into key order) getting decoded keys back.
//!
//! The table stores each key's bytes as a redb `&[u8]` key, so rows sort
//! exactly as the key format says, and decodes them when they are read. A
//! key that does not decode is an [`Error::Decode`] with its bytes, not a
//! panic: redb's own `Key`/`Value` traits have no way to fail, which is why
//! the key type is not a redb `Key` itself. Values are any redb [`Value`].
//!
#![cfg_attr(feature = "derive", doc = "```")]
#![cfg_attr(not(feature = "derive"), doc = "```ignore")]
//! use redb::{backends::InMemoryBackend, Database, ReadableDatabase};
//! use rowkey_core::prelude::*;
//! use rowkey_core::redb::KeyTableDefinition;
//!
//! #[derive(RowKey, Debug, PartialEq)]
//! #[salt(buckets = 4, by(user))]
//! struct Event {
//!     user: u32,
//!     #[desc_ts]
//!     ts: i64,
//! }
//!
//! const EVENTS: KeyTableDefinition<Event, &str> = KeyTableDefinition::new("events");
//!
//! let db = Database::builder().create_with_backend(InMemoryBackend::new())?;
//! let tx = db.begin_write()?;
//! {
//!     let mut events = EVENTS.open(&tx)?;
//!     events.insert(&Event { user: 7, ts: 100 }, "login")?;
//!     events.insert(&Event { user: 7, ts: 200 }, "click")?;
//!     events.insert(&Event { user: 8, ts: 150 }, "login")?;
//! }
//! tx.commit()?;
//!
//! let tx = db.begin_read()?;
//! let events = EVENTS.open_read(&tx)?;
//! // Newest first, for one user: one range in that user's bucket.
//! let mut rows = Vec::new();
//! for row in events.scan(&Event::scan_by_user(7))? {
//!     let (key, value) = row?;
//!     rows.push((key.ts, value.value().to_owned()));
//! }
//! assert_eq!(rows, [(200, "click".to_owned()), (100, "login".to_owned())]);
//! // Every user, merged across the 4 buckets in key order.
//! let users: Vec<u32> = events.scan(&Event::scan_all())?.map(|r| r.map(|(k, _)| k.user)).collect::<Result<_, _>>()?;
//! assert_eq!(users, [7, 7, 8]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use alloc::vec::Vec;
use core::marker::PhantomData;
use core::ops::Bound;

use redb::{
    AccessGuard, ReadTransaction, ReadableTable, StorageError, TableDefinition, Value,
    WriteTransaction,
};

use crate::key::{DecodeRowKey, RowKey};
use crate::scan::{merge_by_key, KeyFilter, KeyOf, MergeSalted, Scan};
use crate::store::{
    check_layout, decode_row, key_bytes, rest_of, Seek, SkipCost, SkipStream, StoredRow,
};

#[cfg(feature = "index")]
mod index;
#[cfg(feature = "index")]
pub use index::{IndexStore, IndexTx};
#[cfg(feature = "migrate")]
mod migrate;
#[cfg(feature = "migrate")]
pub use migrate::{checkpoint_table, migrate, verify, MigratingTable};

/// Why a typed-table operation failed: [`StoreError`](crate::store::StoreError)
/// with `redb::Error` for the store's own failures.
pub type Error = crate::store::StoreError<redb::Error>;

impl<E: Into<redb::Error>> From<E> for Error {
    fn from(e: E) -> Self {
        Error::Store(e.into())
    }
}

/// The definition of a table keyed by `K` (a `#[derive(RowKey)]` type)
/// with values `V`: a `const`, like redb's own `TableDefinition`.
pub struct KeyTableDefinition<K, V: Value + 'static> {
    name: &'static str,
    types: PhantomData<fn(K) -> V>,
}

impl<K, V: Value + 'static> Clone for KeyTableDefinition<K, V> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K, V: Value + 'static> Copy for KeyTableDefinition<K, V> {}

impl<K: RowKey, V: Value + 'static> KeyTableDefinition<K, V> {
    /// A table named `name`.
    pub const fn new(name: &'static str) -> Self {
        KeyTableDefinition {
            name,
            types: PhantomData,
        }
    }

    /// The table's name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The redb table underneath: keys as their bytes.
    pub const fn raw(&self) -> TableDefinition<'static, &'static [u8], V> {
        TableDefinition::new(self.name)
    }

    /// Opens (creating) the table in a write transaction.
    pub fn open<'txn>(&self, tx: &'txn WriteTransaction) -> Result<WriteTable<'txn, K, V>, Error> {
        Ok(KeyTable::new(tx.open_table(self.raw())?))
    }

    /// Opens the table in a read transaction.
    pub fn open_read(&self, tx: &ReadTransaction) -> Result<ReadTable<K, V>, Error> {
        Ok(KeyTable::new(tx.open_table(self.raw())?))
    }
}

/// A [`KeyTable`] open in a write transaction.
pub type WriteTable<'txn, K, V> = KeyTable<redb::Table<'txn, &'static [u8], V>, K, V>;

/// A [`KeyTable`] open in a read transaction.
pub type ReadTable<K, V> = KeyTable<redb::ReadOnlyTable<&'static [u8], V>, K, V>;

/// A redb table (`T`: a `Table` or `ReadOnlyTable`) seen through its key
/// type `K`.
pub struct KeyTable<T, K, V> {
    table: T,
    types: PhantomData<fn(K) -> V>,
}

impl<T, K, V> KeyTable<T, K, V> {
    /// Wraps an open redb table whose keys are `K`'s bytes.
    pub fn new(table: T) -> Self {
        KeyTable {
            table,
            types: PhantomData,
        }
    }

    /// The redb table, for what the wrapper does not cover.
    pub fn inner(&self) -> &T {
        &self.table
    }

    /// The redb table.
    pub fn into_inner(self) -> T {
        self.table
    }
}

impl<K: RowKey, V: Value + 'static> WriteTable<'_, K, V> {
    /// Inserts (or replaces) the row of `key`; returns whether a row was
    /// replaced.
    pub fn insert<'v>(
        &mut self,
        key: &K,
        value: impl core::borrow::Borrow<V::SelfType<'v>>,
    ) -> Result<bool, Error> {
        let bytes = key_bytes(key)?;
        Ok(self.table.insert(&bytes[..], value)?.is_some())
    }

    /// Removes the row of `key`; returns whether there was one.
    pub fn remove(&mut self, key: &K) -> Result<bool, Error> {
        let bytes = key_bytes(key)?;
        Ok(self.table.remove(&bytes[..])?.is_some())
    }
}

impl<T: ReadableTable<&'static [u8], V>, K: RowKey, V: Value + 'static> KeyTable<T, K, V> {
    /// The value of `key`'s row.
    pub fn get(&self, key: &K) -> Result<Option<AccessGuard<'_, V>>, Error> {
        let bytes = key_bytes(key)?;
        Ok(self.table.get(&bytes[..])?)
    }

    /// The rows `scan` selects, decoded, in key order: each of its ranges
    /// read lazily and a salted scan's buckets merged.
    pub fn scan(&self, scan: &Scan) -> Result<Rows<'_, K, V>, Error>
    where
        K: for<'de> DecodeRowKey<'de>,
    {
        let mut streams = Vec::with_capacity(scan.range_count());
        for r in scan.ranges() {
            let range = self.table.range::<&[u8]>(r.bounds())?;
            streams.push(Stream(range, false));
        }
        Ok(Rows {
            merged: merge_by_key(scan.head_len(), false, StreamKey, streams),
            key: PhantomData,
        })
    }

    /// The rows `scan` selects, decoded, in reverse key order, as HBase's
    /// reversed scan returns them: each range read lazily from its end and
    /// a salted scan's buckets merged largest key first, so taking N rows
    /// reads at most N per range ("the latest N" of an oldest-first key).
    pub fn scan_reversed(&self, scan: &Scan) -> Result<Rows<'_, K, V>, Error>
    where
        K: for<'de> DecodeRowKey<'de>,
    {
        let mut streams = Vec::with_capacity(scan.range_count());
        for r in scan.ranges() {
            let range = self.table.range::<&[u8]>(r.bounds())?;
            streams.push(Stream(range, true));
        }
        Ok(Rows {
            merged: merge_by_key(scan.head_len(), true, StreamKey, streams),
            key: PhantomData,
        })
    }
}

impl<T: ReadableTable<&'static [u8], V>, K: RowKey, V: Value + 'static> KeyTable<T, K, V> {
    /// The rows whose keys `filter` matches, decoded, in key order: a skip
    /// scan. Each of the filter's ranges ([`KeyFilter::scan`]) is read
    /// until a key does not match; the read then starts again at the
    /// filter's [`seek_hint`](KeyFilter::seek_hint), skipping every key
    /// that cannot match, and a salted table's buckets are merged.
    /// [`Filtered::cost`] says how many rows it read and how often it
    /// sought. A filter built for another key layout is an
    /// [`Error::OtherLayout`](crate::store::StoreError::OtherLayout).
    ///
    #[cfg_attr(feature = "derive", doc = "```")]
    #[cfg_attr(not(feature = "derive"), doc = "```ignore")]
    /// use redb::{backends::InMemoryBackend, Database, ReadableDatabase};
    /// use rowkey_core::prelude::*;
    /// use rowkey_core::redb::KeyTableDefinition;
    ///
    /// #[derive(RowKey, Debug, PartialEq)]
    /// struct Reading {
    ///     sensor: u16,
    ///     minute: u32,
    /// }
    ///
    /// const READINGS: KeyTableDefinition<Reading, u64> = KeyTableDefinition::new("readings");
    /// let db = Database::builder().create_with_backend(InMemoryBackend::new())?;
    /// let tx = db.begin_write()?;
    /// {
    ///     let mut t = READINGS.open(&tx)?;
    ///     for sensor in 0..100 {
    ///         for minute in 0..100 {
    ///             t.insert(&Reading { sensor, minute }, 0)?;
    ///         }
    ///     }
    /// }
    /// tx.commit()?;
    ///
    /// // Minute 42 of every sensor: 100 rows out of 10,000.
    /// let filter = Reading::filter().minute(42).build()?;
    /// let tx = db.begin_read()?;
    /// let t = READINGS.open_read(&tx)?;
    /// let rows = t.filter(&filter)?;
    /// let cost = rows.cost().clone();
    /// assert_eq!(rows.count(), 100);
    /// // One row read before each match (the sensor's minute 0) and one
    /// // after it (minute 43), each followed by a seek.
    /// assert!(cost.rows_read() <= 300, "{}", cost.rows_read());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn filter<'f>(&'f self, filter: &'f KeyFilter) -> Result<Filtered<'f, T, K, V>, Error>
    where
        K: for<'de> DecodeRowKey<'de>,
    {
        check_layout::<K, _>(filter)?;
        Ok(Filtered {
            rows: filter_raw(&self.table, filter)?,
            key: PhantomData,
        })
    }
}

/// [`KeyTable::filter`] on a redb table of key bytes, for keys whose type
/// is not known at compile time: the matching rows' key bytes and values,
/// undecoded, in merged key order.
pub fn filter_raw<'f, T, V>(
    table: &'f T,
    filter: &'f KeyFilter,
) -> Result<RawFiltered<'f, T, V>, Error>
where
    T: ReadableTable<&'static [u8], V>,
    V: Value + 'static,
{
    let scan = filter.scan();
    let cost = SkipCost::default();
    let mut streams = Vec::with_capacity(scan.range_count());
    for r in scan.ranges() {
        let range = SeekRange {
            table,
            range: Some(table.range::<&[u8]>(r.bounds())?),
            end: r.bounds().1.map(<[u8]>::to_vec),
        };
        streams.push(SkipStream::new(range, filter, cost.clone()));
    }
    Ok(RawFiltered {
        merged: scan.merge(streams),
        cost,
    })
}

/// One range of a skip scan on redb: reopened from a hint on each seek.
#[doc(hidden)]
pub struct SeekRange<'a, T, V: Value + 'static> {
    table: &'a T,
    range: Option<redb::Range<'a, &'static [u8], V>>,
    end: Bound<Vec<u8>>,
}

impl<'a, T: ReadableTable<&'static [u8], V>, V: Value + 'static> Seek for SeekRange<'a, T, V> {
    type Key = StoredKey<'a>;
    type Value = AccessGuard<'a, V>;
    type Error = StorageError;

    fn next_row(&mut self) -> Option<StoredRow<StoredKey<'a>, AccessGuard<'a, V>, StorageError>> {
        let row = self.range.as_mut()?.next()?;
        Some(row.map(|(k, v)| (StoredKey(k), v)))
    }

    fn seek(&mut self, from: &[u8]) -> Result<(), StorageError> {
        self.range = match rest_of(from, &self.end) {
            None => None,
            Some((a, b)) => {
                let bounds = (a.as_ref().map(Vec::as_slice), b.as_ref().map(Vec::as_slice));
                Some(self.table.range::<&[u8]>(bounds)?)
            }
        };
        Ok(())
    }
}

/// The rows of [`filter_raw`]: `(key, value)`, the key read in place
/// through redb's guard ([`StoredKey`]), or the error that
/// stopped a row; [`cost`](Self::cost) counts what the skip scan read.
pub struct RawFiltered<'a, T: ReadableTable<&'static [u8], V>, V: Value + 'static> {
    merged: MergeSalted<SkipStream<'a, SeekRange<'a, T, V>>>,
    cost: SkipCost,
}

impl<T: ReadableTable<&'static [u8], V>, V: Value + 'static> RawFiltered<'_, T, V> {
    /// Rows read and seeks so far (a handle: clone it to read it after the
    /// iterator is consumed).
    pub fn cost(&self) -> &SkipCost {
        &self.cost
    }
}

impl<'a, T: ReadableTable<&'static [u8], V>, V: Value + 'static> Iterator
    for RawFiltered<'a, T, V>
{
    type Item = Result<(StoredKey<'a>, AccessGuard<'a, V>), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(self.merged.next()?.map_err(Into::into))
    }

    /// The merge's own loop (see [`MergeSalted`]'s `fold`).
    fn fold<B, F: FnMut(B, Self::Item) -> B>(self, init: B, mut f: F) -> B {
        self.merged
            .fold(init, |acc, row| f(acc, row.map_err(Into::into)))
    }
}

/// The rows of [`KeyTable::filter`]: `(key, value)`, or the error that
/// stopped a row; [`cost`](Self::cost) counts what the skip scan read.
pub struct Filtered<'a, T: ReadableTable<&'static [u8], V>, K, V: Value + 'static> {
    rows: RawFiltered<'a, T, V>,
    key: PhantomData<fn() -> K>,
}

impl<T: ReadableTable<&'static [u8], V>, K, V: Value + 'static> Filtered<'_, T, K, V> {
    /// Rows read and seeks so far (a handle: clone it to read it after the
    /// iterator is consumed).
    pub fn cost(&self) -> &SkipCost {
        self.rows.cost()
    }
}

impl<'a, T, K, V> Iterator for Filtered<'a, T, K, V>
where
    T: ReadableTable<&'static [u8], V>,
    K: for<'de> DecodeRowKey<'de>,
    V: Value + 'static,
{
    type Item = Result<(K, AccessGuard<'a, V>), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        self.rows.next().map(decode_stored)
    }

    /// The merge's own loop (see [`MergeSalted`]'s `fold`).
    fn fold<B, F: FnMut(B, Self::Item) -> B>(self, init: B, mut f: F) -> B {
        self.rows.fold(init, |acc, row| f(acc, decode_stored(row)))
    }
}

/// A row of [`RawFiltered`] with its key decoded.
#[inline]
fn decode_stored<'a, K, V>(
    row: Result<(StoredKey<'a>, AccessGuard<'a, V>), Error>,
) -> Result<(K, AccessGuard<'a, V>), Error>
where
    K: for<'de> DecodeRowKey<'de>,
    V: Value + 'static,
{
    let (key, value) = row?;
    decode_row(key.as_ref(), value)
}

/// A key as redb stores it, read through its guard: the merge compares
/// keys in place, with no copy and no allocation per row.
pub struct StoredKey<'a>(AccessGuard<'a, &'static [u8]>);

impl<'a> From<AccessGuard<'a, &'static [u8]>> for StoredKey<'a> {
    /// A key guard from a redb range of key bytes, for
    /// [`merge_salted`](crate::merge_salted) over ranges read by hand
    /// ([`merge_salted_by`](crate::merge_salted_by) with a function reading
    /// the key guard merges redb's rows without rebuilding them).
    fn from(guard: AccessGuard<'a, &'static [u8]>) -> Self {
        StoredKey(guard)
    }
}

impl AsRef<[u8]> for StoredKey<'_> {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        self.0.value()
    }
}

/// One range's rows, read forwards or (`true`) backwards.
#[doc(hidden)]
pub struct Stream<'a, V: Value + 'static>(redb::Range<'a, &'static [u8], V>, bool);

/// What a redb range yields.
type RedbRow<'a, V> = Result<(AccessGuard<'a, &'static [u8]>, AccessGuard<'a, V>), StorageError>;

/// How the merge reads a [`Stream`]'s row's key: in place, through redb's
/// guard. The row goes through the merge as redb returned it, not wrapped
/// (a redb row is about 200 bytes, and each wrapping moved it once more).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct StreamKey;

impl<V: Value + 'static> KeyOf<RedbRow<'_, V>> for StreamKey {
    #[inline]
    fn key_of<'a>(&self, row: &'a RedbRow<'_, V>) -> Option<&'a [u8]> {
        row.as_ref().ok().map(|(k, _)| k.value())
    }
}

impl<'a, V: Value + 'static> Iterator for Stream<'a, V> {
    type Item = RedbRow<'a, V>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.1 {
            self.0.next_back()
        } else {
            self.0.next()
        }
    }
}

/// The rows of [`KeyTable::scan`]: `(key, value)`, or the error that
/// stopped a row.
pub struct Rows<'a, K, V: Value + 'static> {
    merged: MergeSalted<Stream<'a, V>, StreamKey>,
    key: PhantomData<fn() -> K>,
}

impl<'a, K: for<'de> DecodeRowKey<'de>, V: Value + 'static> Iterator for Rows<'a, K, V> {
    type Item = Result<(K, AccessGuard<'a, V>), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        self.merged.next().map(decode_stream_row)
    }

    /// The merge's own loop (see [`MergeSalted`]'s `fold`): a row goes
    /// from redb to `f` without the copy `next` makes through its return
    /// slot, so `for_each`, `sum` and `count` read a little faster than a
    /// `for` loop.
    fn fold<B, F: FnMut(B, Self::Item) -> B>(self, init: B, mut f: F) -> B {
        self.merged
            .fold(init, |acc, row| f(acc, decode_stream_row(row)))
    }
}

/// A row of a [`Stream`] with its key decoded.
#[inline]
fn decode_stream_row<'a, K, V>(row: RedbRow<'a, V>) -> Result<(K, AccessGuard<'a, V>), Error>
where
    K: for<'de> DecodeRowKey<'de>,
    V: Value + 'static,
{
    let (key, value) = row?;
    decode_row(key.value(), value)
}
