//! Why a table could not be made or read.

use rowkey_core::LayoutError;

/// Why a [`KeyTable`](crate::KeyTable) could not be made, or a row not be
/// read into its columns.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The layout's text did not read back as a layout.
    #[error("layout `{layout}`")]
    Layout {
        /// The layout's name.
        layout: &'static str,
        /// Why.
        #[source]
        source: LayoutError,
    },
    /// A key family is many tables: one per member.
    #[error(
        "`{family}` is a key family: choose a member with KeyTable::member (one of {members})"
    )]
    Family {
        /// The family's name.
        family: &'static str,
        /// Its members, comma-separated.
        members: String,
    },
    /// `member` named no member of the family.
    #[error("`{family}` has no member `{name}` (its members: {members})")]
    NoMember {
        /// The family's name.
        family: &'static str,
        /// The name asked for.
        name: String,
        /// Its members, comma-separated.
        members: String,
    },
    /// `member` on a layout that is not a family.
    #[error("`{layout}` is not a key family")]
    NotFamily {
        /// The layout's name.
        layout: &'static str,
    },
    /// A layout whose keys have no filter (ordered-code keys).
    #[error("layout `{layout}`: SQL reads binary and text keys, which have filters; {why}")]
    NoFilter {
        /// The layout's name.
        layout: &'static str,
        /// Why its filter could not be built.
        why: String,
    },
    /// The store's table could not be opened.
    #[error("{0}")]
    Open(String),
    /// Two columns of one name.
    #[error("two columns named `{0}`")]
    DuplicateColumn(String),
    /// A value column of a kind the source does not have.
    #[error("value column `{column}`: {why}")]
    ValueColumn {
        /// The column.
        column: String,
        /// Why.
        why: &'static str,
    },
    /// A decoded key field's value is not of its column's kind.
    #[error("key column `{column}`: decoded a {got}")]
    Decoded {
        /// The column.
        column: &'static str,
        /// The value's kind.
        got: &'static str,
    },
}
