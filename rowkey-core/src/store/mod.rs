//! What the typed tables on redb and fjall share: their error, the key
//! bytes of an operation, the decoding of a stored row and the skip scan
//! (`skip`). The top layer with the HBase helpers: it builds on keys and
//! scans.

#[cfg(feature = "fjall")]
pub mod fjall;
#[cfg(feature = "redb")]
pub mod redb;
mod skip;

use alloc::vec::Vec;
use core::fmt;

use crate::format::error::{DecodeError, EncodeError};
use crate::key::{DecodeRowKey, RowKey};
use crate::scan::KeyBuf;

#[doc(hidden)]
pub use skip::{Seek, SkipStream};
pub use skip::{SkipCost, StoredRow};

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
            StoreError::Encode(_) => f.write_str("cannot encode the key"),
            StoreError::Decode { key, .. } => write!(
                f,
                "stored key \"{}\" is not a key of this table",
                crate::hbase::to_string_binary(key)
            ),
            StoreError::Store(_) => f.write_str("the store failed"),
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

/// A range's start and end.
pub(crate) type Bounds = (core::ops::Bound<Vec<u8>>, core::ops::Bound<Vec<u8>>);

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
