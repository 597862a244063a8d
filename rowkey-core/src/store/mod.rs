//! What the typed tables on redb and fjall share: their error, the key
//! bytes of an operation, and the decoding of a stored row. The top layer
//! with the HBase helpers: it builds on keys and scans.

#[cfg(feature = "fjall")]
pub mod fjall;
#[cfg(feature = "redb")]
pub mod redb;

use alloc::vec::Vec;
use core::fmt;

use crate::format::error::{DecodeError, EncodeError};
use crate::key::{DecodeRowKey, RowKey};
use crate::scan::KeyBuf;

/// Why a typed-table operation failed; `E` is the store's own error
/// (`rowkey_core::redb::Error` is `StoreError<redb::Error>`).
#[derive(Debug)]
#[non_exhaustive]
pub enum StoreError<E> {
    /// The key could not be encoded.
    Encode(EncodeError),
    /// A stored key is not a key of the table's type (written by other
    /// code, or by an older layout): its bytes and why.
    Decode {
        /// The stored key's bytes.
        key: Vec<u8>,
        /// Why they do not decode.
        error: DecodeError,
    },
    /// The store failed.
    Store(E),
    /// A skip scan's filter was built for keys of another layout than the
    /// table's (`Other::filter()` on a table of `T`).
    OtherLayout {
        /// The filter's key type.
        filter: &'static str,
        /// The table's key type.
        table: &'static str,
    },
}

impl<E: fmt::Display> fmt::Display for StoreError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Encode(e) => write!(f, "cannot encode the key: {e}"),
            StoreError::Decode { key, error } => write!(
                f,
                "stored key \"{}\" is not a key of this table: {error}",
                crate::hbase::to_string_binary(key)
            ),
            StoreError::Store(e) => write!(f, "the store failed: {e}"),
            StoreError::OtherLayout { filter, table } => write!(
                f,
                "the filter is for keys of `{filter}`, the table's keys are `{table}` (another layout)"
            ),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for StoreError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Encode(e) => Some(e),
            StoreError::Decode { error, .. } => Some(error),
            StoreError::Store(e) => Some(e),
            StoreError::OtherLayout { .. } => None,
        }
    }
}

impl<E> From<EncodeError> for StoreError<E> {
    fn from(e: EncodeError) -> Self {
        StoreError::Encode(e)
    }
}

/// `key`'s bytes for a get, insert or remove: on the stack up to 64 bytes.
pub(crate) fn key_bytes<K: RowKey>(key: &K) -> Result<KeyBuf, EncodeError> {
    let mut buf = KeyBuf::zeroed(key.encoded_len());
    let n = key.encode_into(&mut buf)?;
    debug_assert_eq!(n, buf.len());
    Ok(buf)
}

/// A stored row with its key decoded, or the key's bytes and why not.
pub(crate) fn decode_row<K, V, E>(key: &[u8], value: V) -> Result<(K, V), StoreError<E>>
where
    K: for<'de> DecodeRowKey<'de>,
{
    match K::decode(key) {
        Ok(k) => Ok((k, value)),
        Err(error) => Err(StoreError::Decode {
            key: key.to_vec(),
            error,
        }),
    }
}

/// A filter for the keys of a table of `K`, or the error naming both.
pub(crate) fn check_layout<K: RowKey, E>(
    filter: &crate::scan::KeyFilter,
) -> Result<(), StoreError<E>> {
    if filter.layout().id() == K::LAYOUT.id() {
        Ok(())
    } else {
        Err(StoreError::OtherLayout {
            filter: filter.layout().name(),
            table: K::LAYOUT.name(),
        })
    }
}

/// What a skip scan ([`redb`] and [`fjall`]
/// tables' `filter`) has cost so far: rows read from the store (matches
/// and the rows it stepped on before seeking) and seeks. Shared by the
/// scan's ranges and its iterator, so it can be read while or after it
/// runs.
#[derive(Clone, Debug, Default)]
pub struct SkipCost(alloc::sync::Arc<[core::sync::atomic::AtomicU64; 2]>);

impl SkipCost {
    /// Rows read from the store.
    pub fn rows_read(&self) -> u64 {
        self.0[0].load(core::sync::atomic::Ordering::Relaxed)
    }

    /// Seeks: each a new range read from a [`seek_hint`](crate::KeyFilter::seek_hint).
    pub fn seeks(&self) -> u64 {
        self.0[1].load(core::sync::atomic::Ordering::Relaxed)
    }

    fn add(&self, i: usize) {
        self.0[i].fetch_add(1, core::sync::atomic::Ordering::Relaxed);
    }
}

/// A stored row as a store's range gives it, or the store's error.
pub type StoredRow<K, V, E> = Result<(K, V), E>;

/// A range's start and end.
pub(crate) type Bounds = (core::ops::Bound<Vec<u8>>, core::ops::Bound<Vec<u8>>);

/// A store's range that can start again further on: what a skip scan
/// needs of it.
#[doc(hidden)]
pub trait Seek {
    /// A stored key.
    type Key: AsRef<[u8]>;
    /// A stored value.
    type Value;
    /// The store's error.
    type Error;
    /// The next row of the range.
    fn next_row(&mut self) -> Option<StoredRow<Self::Key, Self::Value, Self::Error>>;
    /// Continues the range from `from` (inclusive) to its end; `from` is
    /// after every row read so far.
    fn seek(&mut self, from: &[u8]) -> Result<(), Self::Error>;
}

/// One range of a skip scan: the rows that match, reading a row past each
/// run that cannot and seeking to the filter's hint.
#[doc(hidden)]
pub struct SkipStream<'f, S> {
    range: S,
    filter: &'f crate::scan::KeyFilter,
    cost: SkipCost,
}

impl<'f, S> SkipStream<'f, S> {
    pub(crate) fn new(range: S, filter: &'f crate::scan::KeyFilter, cost: SkipCost) -> Self {
        SkipStream {
            range,
            filter,
            cost,
        }
    }
}

impl<S: Seek> Iterator for SkipStream<'_, S> {
    type Item = Result<(S::Key, S::Value), S::Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let row = match self.range.next_row()? {
                Ok(row) => row,
                Err(e) => return Some(Err(e)),
            };
            self.cost.add(0);
            let key = row.0.as_ref();
            if self.filter.matches(key) {
                return Some(Ok(row));
            }
            // Nothing after this key can match: the range is done.
            let mut hint = self.filter.seek_hint(key)?;
            // A seek goes forwards, past `key`: a hint at or before it
            // would read the same rows again, forever.
            debug_assert!(
                hint.as_slice() > key,
                "a skip scan's hint must be past the key it is for"
            );
            if hint.as_slice() <= key {
                hint.clear();
                hint.extend_from_slice(key);
                hint.push(0);
            }
            self.cost.add(1);
            if let Err(e) = self.range.seek(&hint) {
                return Some(Err(e));
            }
        }
    }
}

/// `[from, end)` of a range whose end is `end`; `None` when `from` is at
/// or past the end (the range is done).
pub(crate) fn rest_of(from: &[u8], end: &core::ops::Bound<Vec<u8>>) -> Option<Bounds> {
    use core::ops::Bound;
    let past = match end {
        Bound::Excluded(e) => from >= e.as_slice(),
        Bound::Included(e) => from > e.as_slice(),
        Bound::Unbounded => false,
    };
    (!past).then(|| (Bound::Included(from.to_vec()), end.clone()))
}
