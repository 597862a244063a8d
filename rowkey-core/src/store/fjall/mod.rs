//! Typed keyspaces on [fjall](https://docs.rs/fjall) (feature `fjall`), an
//! LSM-tree store like HBase's own storage engine: insert, get and remove
//! by a derived key, and run its generated [`Scan`]s (every range, salt
//! buckets merged into key order) getting decoded keys back.
//!
//! Keys are stored as their bytes and decoded when read: a stored key that
//! does not decode is an [`Error::Decode`] with its bytes, not a panic.
//! Values are fjall's byte values ([`fjall::UserValue`]).
//!
#![cfg_attr(feature = "derive", doc = "```")]
#![cfg_attr(not(feature = "derive"), doc = "```ignore")]
//! use fjall::{Database, KeyspaceCreateOptions};
//! use rowkey_core::fjall::KeyTable;
//! use rowkey_core::prelude::*;
//!
//! #[derive(RowKey, Debug, PartialEq)]
//! #[salt(buckets = 4, by(user))]
//! struct Event {
//!     user: u32,
//!     #[desc_ts]
//!     ts: i64,
//! }
//!
//! let dir = tempfile::tempdir()?;
//! let db = Database::builder(dir.path()).open()?;
//! let events: KeyTable<Event> = KeyTable::new(db.keyspace("events", KeyspaceCreateOptions::default)?);
//! events.insert(&Event { user: 7, ts: 100 }, "login")?;
//! events.insert(&Event { user: 7, ts: 200 }, "click")?;
//! events.insert(&Event { user: 8, ts: 150 }, "login")?;
//!
//! let newest: Vec<(i64, Vec<u8>)> = events
//!     .scan(&Event::scan_by_user(7))
//!     .map(|r| r.map(|(k, v)| (k.ts, v.to_vec())))
//!     .collect::<Result<_, _>>()?;
//! assert_eq!(newest, [(200, b"click".to_vec()), (100, b"login".to_vec())]);
//! assert_eq!(events.get(&Event { user: 8, ts: 150 })?.as_deref(), Some(&b"login"[..]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use alloc::vec::Vec;
use core::marker::PhantomData;
use core::ops::Bound;

use fjall::{Keyspace, UserKey, UserValue};

use crate::key::{DecodeRowKey, RowKey};
use crate::scan::{KeyFilter, MergeSalted, Scan};
use crate::store::{check_layout, decode_row, key_bytes, rest_of, Seek, SkipCost, SkipStream};

#[cfg(feature = "index")]
mod index;
#[cfg(feature = "index")]
pub use index::{IndexStore, IndexTx};
#[cfg(feature = "migrate")]
mod migrate;
#[cfg(feature = "migrate")]
pub use migrate::{checkpoint_keyspace, migrate, verify, MigratingTable};

/// Why a typed-table operation failed: [`StoreError`](crate::store::StoreError)
/// with `fjall::Error` for the store's own failures.
pub type Error = crate::store::StoreError<fjall::Error>;

impl From<fjall::Error> for Error {
    fn from(e: fjall::Error) -> Self {
        Error::Store(e)
    }
}

/// A fjall keyspace seen through its key type `K` (a `#[derive(RowKey)]`
/// type).
pub struct KeyTable<K> {
    keyspace: Keyspace,
    key: PhantomData<fn(K) -> K>,
}

impl<K> Clone for KeyTable<K> {
    fn clone(&self) -> Self {
        KeyTable {
            keyspace: self.keyspace.clone(),
            key: PhantomData,
        }
    }
}

impl<K> KeyTable<K> {
    /// Wraps an open keyspace whose keys are `K`'s bytes.
    pub fn new(keyspace: Keyspace) -> Self {
        KeyTable {
            keyspace,
            key: PhantomData,
        }
    }

    /// The keyspace, for what the wrapper does not cover.
    pub fn inner(&self) -> &Keyspace {
        &self.keyspace
    }
}

impl<K: RowKey> KeyTable<K> {
    /// Inserts (or replaces) the row of `key`.
    pub fn insert(&self, key: &K, value: impl Into<UserValue>) -> Result<(), Error> {
        let bytes = key_bytes(key)?;
        self.keyspace.insert(&bytes[..], value)?;
        Ok(())
    }

    /// Removes the row of `key` (nothing happens when there is none).
    pub fn remove(&self, key: &K) -> Result<(), Error> {
        let bytes = key_bytes(key)?;
        self.keyspace.remove(&bytes[..])?;
        Ok(())
    }

    /// The value of `key`'s row.
    pub fn get(&self, key: &K) -> Result<Option<UserValue>, Error> {
        let bytes = key_bytes(key)?;
        Ok(self.keyspace.get(&bytes[..])?)
    }

    /// The rows `scan` selects, decoded, in key order: each of its ranges
    /// read lazily and a salted scan's buckets merged.
    pub fn scan(&self, scan: &Scan) -> Rows<K>
    where
        K: for<'de> DecodeRowKey<'de>,
    {
        let streams: Vec<Stream> = scan
            .ranges()
            .map(|r| Stream(self.keyspace.range::<&[u8], _>(r.bounds()), false))
            .collect();
        Rows {
            merged: scan.merge(streams),
            key: PhantomData,
        }
    }

    /// The rows `scan` selects, decoded, in reverse key order, as HBase's
    /// reversed scan returns them: each range read lazily from its end and
    /// a salted scan's buckets merged largest key first, so taking N rows
    /// reads at most N per range ("the latest N" of an oldest-first key).
    pub fn scan_reversed(&self, scan: &Scan) -> Rows<K>
    where
        K: for<'de> DecodeRowKey<'de>,
    {
        let streams: Vec<Stream> = scan
            .ranges()
            .map(|r| Stream(self.keyspace.range::<&[u8], _>(r.bounds()), true))
            .collect();
        Rows {
            merged: scan.merge_reversed(streams),
            key: PhantomData,
        }
    }
}

impl<K: RowKey> KeyTable<K> {
    /// The rows whose keys `filter` matches, decoded, in key order: a skip
    /// scan, as [`redb`](crate::redb::KeyTable::filter)'s: each of the
    /// filter's ranges read until a key does not match, then again from
    /// the filter's [`seek_hint`](KeyFilter::seek_hint), a salted table's
    /// buckets merged. [`Filtered::cost`] counts rows read and seeks. A
    /// filter built for another key layout is an
    /// [`Error::OtherLayout`](crate::store::StoreError::OtherLayout).
    pub fn filter<'f>(&self, filter: &'f KeyFilter) -> Result<Filtered<'f, K>, Error>
    where
        K: for<'de> DecodeRowKey<'de>,
    {
        check_layout::<K, _>(filter)?;
        Ok(Filtered {
            rows: filter_raw(&self.keyspace, filter),
            key: PhantomData,
        })
    }
}

/// [`KeyTable::filter`] on a keyspace of key bytes, for keys whose type is
/// not known at compile time: the matching rows' key bytes and values,
/// undecoded, in merged key order.
pub fn filter_raw<'f>(keyspace: &Keyspace, filter: &'f KeyFilter) -> RawFiltered<'f> {
    let scan = filter.scan();
    let cost = SkipCost::default();
    let streams: Vec<SkipStream<'f, SeekRange>> = scan
        .ranges()
        .map(|r| {
            let range = SeekRange {
                keyspace: keyspace.clone(),
                range: Some(keyspace.range::<&[u8], _>(r.bounds())),
                end: r.bounds().1.map(<[u8]>::to_vec),
            };
            SkipStream::new(range, filter, cost.clone())
        })
        .collect();
    RawFiltered {
        merged: scan.merge(streams),
        cost,
    }
}

/// The rows of [`filter_raw`]: `(key, value)`, or the error that stopped
/// a row; [`cost`](Self::cost) counts what the skip scan read.
pub struct RawFiltered<'f> {
    merged: MergeSalted<SkipStream<'f, SeekRange>>,
    cost: SkipCost,
}

impl RawFiltered<'_> {
    /// Rows read and seeks so far (a handle: clone it to read it after the
    /// iterator is consumed).
    pub fn cost(&self) -> &SkipCost {
        &self.cost
    }
}

impl Iterator for RawFiltered<'_> {
    type Item = Result<(Key, UserValue), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(self.merged.next()?.map_err(Into::into))
    }

    /// The merge's own loop (see [`MergeSalted`]'s `fold`).
    fn fold<B, F: FnMut(B, Self::Item) -> B>(self, init: B, mut f: F) -> B {
        self.merged
            .fold(init, |acc, row| f(acc, row.map_err(Into::into)))
    }
}

/// One range of a skip scan on fjall: reopened from a hint on each seek.
#[doc(hidden)]
pub struct SeekRange {
    keyspace: Keyspace,
    range: Option<fjall::Iter>,
    end: Bound<Vec<u8>>,
}

impl Seek for SeekRange {
    type Key = Key;
    type Value = UserValue;
    type Error = fjall::Error;

    fn next_row(&mut self) -> Option<Result<(Key, UserValue), fjall::Error>> {
        let guard = self.range.as_mut()?.next()?;
        Some(guard.into_inner().map(|(k, v)| (Key(k), v)))
    }

    fn seek(&mut self, from: &[u8]) -> Result<(), fjall::Error> {
        self.range = rest_of(from, &self.end).map(|(a, b)| {
            let bounds = (a.as_ref().map(Vec::as_slice), b.as_ref().map(Vec::as_slice));
            self.keyspace.range::<&[u8], _>(bounds)
        });
        Ok(())
    }
}

/// The rows of [`KeyTable::filter`]: `(key, value)`, or the error that
/// stopped a row; [`cost`](Self::cost) counts what the skip scan read.
pub struct Filtered<'f, K> {
    rows: RawFiltered<'f>,
    key: PhantomData<fn() -> K>,
}

impl<K> Filtered<'_, K> {
    /// Rows read and seeks so far (a handle: clone it to read it after the
    /// iterator is consumed).
    pub fn cost(&self) -> &SkipCost {
        self.rows.cost()
    }
}

impl<K: for<'de> DecodeRowKey<'de>> Iterator for Filtered<'_, K> {
    type Item = Result<(K, UserValue), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        self.rows.next().map(decode_filtered)
    }

    /// The merge's own loop (see [`MergeSalted`]'s `fold`).
    fn fold<B, F: FnMut(B, Self::Item) -> B>(self, init: B, mut f: F) -> B {
        self.rows
            .fold(init, |acc, row| f(acc, decode_filtered(row)))
    }
}

/// A row of [`RawFiltered`] with its key decoded.
#[inline]
fn decode_filtered<K: for<'de> DecodeRowKey<'de>>(
    row: Result<(Key, UserValue), Error>,
) -> Result<(K, UserValue), Error> {
    let (key, value) = row?;
    decode_row(key.as_ref(), value)
}

/// One range's rows, read forwards or (`true`) backwards.
#[doc(hidden)]
pub struct Stream(fjall::Iter, bool);

/// A stored key, as the merge compares it.
#[doc(hidden)]
pub struct Key(UserKey);

impl AsRef<[u8]> for Key {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl Iterator for Stream {
    type Item = Result<(Key, UserValue), fjall::Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let guard = if self.1 {
            self.0.next_back()
        } else {
            self.0.next()
        };
        guard.map(|guard| guard.into_inner().map(|(k, v)| (Key(k), v)))
    }
}

/// The rows of [`KeyTable::scan`]: `(key, value)`, or the error that
/// stopped a row.
pub struct Rows<K> {
    merged: MergeSalted<Stream>,
    key: PhantomData<fn() -> K>,
}

impl<K: for<'de> DecodeRowKey<'de>> Iterator for Rows<K> {
    type Item = Result<(K, UserValue), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        self.merged.next().map(decode_stream_row)
    }

    /// The merge's own loop (see [`MergeSalted`]'s `fold`).
    fn fold<B, F: FnMut(B, Self::Item) -> B>(self, init: B, mut f: F) -> B {
        self.merged
            .fold(init, |acc, row| f(acc, decode_stream_row(row)))
    }
}

/// A row of a [`Stream`] with its key decoded.
fn decode_stream_row<K: for<'de> DecodeRowKey<'de>>(
    row: Result<(Key, UserValue), fjall::Error>,
) -> Result<(K, UserValue), Error> {
    let (key, value) = row?;
    decode_row(&key.0, value)
}
