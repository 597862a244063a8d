//! What can go wrong in a bulk load.

use std::io;
use std::path::{Path, PathBuf};

use rowkey_core::EncodeError;

use crate::bulk::hfile::HFileError;
#[cfg(doc)]
use crate::types::MAX_ROW_LENGTH;

/// What can go wrong in a bulk load.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BulkError {
    /// Reading or writing a file of the load failed.
    #[error("bulk load, {path}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The error.
        #[source]
        cause: io::Error,
    },
    /// Writing an HFile failed.
    #[error(transparent)]
    HFile(#[from] HFileError),
    /// A typed key did not encode.
    #[error("bulk load: a row key does not encode")]
    Encode(#[source] EncodeError),
    /// A row HBase cannot store: an empty key or one over
    /// [`MAX_ROW_LENGTH`] bytes.
    #[error("bulk load: a row key of {len} bytes ({key}): HBase takes 1 to 32767")]
    BadRow {
        /// The key, `toStringBinary`.
        key: String,
        /// Its length.
        len: usize,
    },
    /// A family name HBase refuses (empty, over 127 bytes, starting with
    /// `.`, or holding `:`, `/`, `\` or a control character): it names the
    /// directory of its files.
    #[error("bulk load: {family:?} is not a column family name HBase takes")]
    BadFamily {
        /// The family.
        family: String,
    },
    /// A cell whose timestamp HBase would not keep as it is: negative, or
    /// `i64::MAX` (HBase's "latest" placeholder).
    #[error("bulk load: row {key} has a cell stamped {ts} (from 0 to i64::MAX - 1)")]
    BadTimestamp {
        /// The key, `toStringBinary`.
        key: String,
        /// The timestamp.
        ts: i64,
    },
    /// A row put without cells: HBase has no such row.
    #[error("bulk load: row {key} has no cells")]
    NoCells {
        /// The key, `toStringBinary`.
        key: String,
    },
    /// The load's directory holds files already: a load writes into an
    /// empty or new directory, so a bulk load of it takes only this load's
    /// files (HBase's `HFileOutputFormat2` refuses an existing one).
    #[error("bulk load: {path} is not empty (a load writes into an empty or new directory)")]
    NotEmpty {
        /// The directory.
        path: PathBuf,
    },
    /// An earlier error (writing or merging the sorted runs on disk) ended
    /// the load: rows it was given are lost, so it cannot finish.
    #[error("bulk load: an earlier error ended this load: {cause}")]
    Failed {
        /// The earlier error.
        cause: String,
    },
    /// An indexed record cannot be put: the load has no index family, or
    /// no index over its data key and record (the message says which).
    #[error("{0}")]
    Indexes(String),
    /// A record batch's columns do not fit its `ColumnMap`: a column
    /// missing, or of a type it cannot read (the message names it).
    #[error("bulk load: {0}")]
    Columns(String),
    /// One input row is bad: its row in the batch, the column and why.
    #[error("bulk load: row {row}, column `{column}`: {reason}")]
    BadInput {
        /// The row's index in its batch.
        row: usize,
        /// The column (empty: the key as a whole).
        column: String,
        /// What is wrong with it.
        reason: String,
    },
}

impl From<EncodeError> for BulkError {
    fn from(e: EncodeError) -> Self {
        BulkError::Encode(e)
    }
}

impl BulkError {
    /// Whether a put failed for its row alone (a key HBase cannot store,
    /// a cell too big for an HFile, no cell at all): the load can go on
    /// without the row. Any other error ends it.
    pub fn is_row_fault(&self) -> bool {
        matches!(
            self,
            BulkError::BadRow { .. }
                | BulkError::HFile(_)
                | BulkError::NoCells { .. }
                | BulkError::BadTimestamp { .. }
        )
    }
}

/// An I/O error at `path`, as [`BulkError::Io`].
pub(super) fn io_at(path: &Path) -> impl FnOnce(io::Error) -> BulkError + '_ {
    move |cause| BulkError::Io {
        path: path.to_path_buf(),
        cause,
    }
}
