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
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for StoreError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Encode(e) => Some(e),
            StoreError::Decode { error, .. } => Some(error),
            StoreError::Store(e) => Some(e),
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
