//! What an indexed table's operation can fail with.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;

use crate::format::error::{DecodeError, EncodeError};
use crate::hbase::to_string_binary;

/// Why an [`IndexedTable`](super::IndexedTable) operation failed; `E` is
/// the store's own error.
#[derive(Debug)]
#[non_exhaustive]
pub enum IndexError<E> {
    /// The store failed.
    Store(E),
    /// A key (the data key, or an entry of an index) could not be encoded.
    Encode(EncodeError),
    /// A data row's key is not a key of the table's data type.
    Decode {
        /// The stored key.
        key: Vec<u8>,
        /// Why it does not decode.
        error: DecodeError,
    },
    /// A data row's value is not a record: its key and why.
    Record {
        /// The data row's key.
        key: Vec<u8>,
        /// What [`Record::from_value`](super::Record::from_value) said.
        error: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A query's filter is for keys of another layout than the index's.
    OtherLayout {
        /// The filter's key type.
        filter: &'static str,
        /// The index's key type.
        index: &'static str,
    },
    /// The index was not added to the table ([`with_index`](super::IndexedTable::with_index)).
    NotIndexed {
        /// The index's key type.
        index: &'static str,
    },
    /// A covered query through an index the table does not cover
    /// (added by `with_index`, not
    /// [`with_covering_index`](super::IndexedTable::with_covering_index)).
    NotCovering {
        /// The index's key type.
        index: &'static str,
    },
    /// An index row's covered values do not decode: its key and why.
    Covered {
        /// The index row's key.
        entry: Vec<u8>,
        /// What the covered values' `Record::from_value` said.
        error: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl<E> From<E> for IndexError<E> {
    fn from(e: E) -> Self {
        IndexError::Store(e)
    }
}

impl<E: fmt::Display> fmt::Display for IndexError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexError::Store(_) => f.write_str("the store failed"),
            IndexError::Encode(_) => f.write_str("cannot encode the key"),
            IndexError::Decode { key, .. } => {
                write!(f, "data row \"{}\" does not decode", to_string_binary(key))
            }
            IndexError::Record { key, .. } => write!(
                f,
                "data row \"{}\" does not hold a record",
                to_string_binary(key)
            ),
            IndexError::OtherLayout { filter, index } => write!(
                f,
                "the filter is for keys of `{filter}`, not of the index `{index}`"
            ),
            IndexError::NotIndexed { index } => write!(
                f,
                "`{index}` is not an index of this table (add it with `with_index`)"
            ),
            IndexError::NotCovering { index } => write!(
                f,
                "`{index}` covers nothing in this table (add it with `with_covering_index`)"
            ),
            IndexError::Covered { entry, .. } => write!(
                f,
                "index row \"{}\" does not hold its covered values (written before the index \
                 covered them? `repair` writes them)",
                to_string_binary(entry)
            ),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for IndexError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            IndexError::Store(e) => Some(e),
            IndexError::Encode(e) => Some(e),
            IndexError::Decode { error, .. } => Some(error),
            IndexError::Record { error, .. } | IndexError::Covered { error, .. } => Some(&**error),
            IndexError::OtherLayout { .. }
            | IndexError::NotIndexed { .. }
            | IndexError::NotCovering { .. } => None,
        }
    }
}
