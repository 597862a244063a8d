//! Why a migration could not be built, run or verified.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::MapError;
use crate::dynamic::LayoutError;
use crate::format::binary::to_string_binary;
use crate::format::error::EncodeError;

/// Why a migration could not be built, run or verified: what failed in
/// `Display`, the cause (a store's error, a mapping's) in `source()`.
#[derive(Debug)]
#[non_exhaustive]
pub enum MigrateError {
    /// A layout the run-time layouts cannot read (`side` is `old` or
    /// `new`).
    Layout {
        /// `old` or `new`.
        side: &'static str,
        /// Why.
        error: LayoutError,
    },
    /// A key family: a migration moves the keys of one layout; migrate
    /// each member.
    Family {
        /// `old` or `new`.
        side: &'static str,
        /// The family's name.
        name: &'static str,
    },
    /// A field of the old layout the new one lacks.
    Dropped {
        /// The field.
        field: &'static str,
    },
    /// A field whose type changes in a way re-encoding cannot carry.
    TypeChanged {
        /// The field.
        field: &'static str,
        /// Its old type.
        from: &'static str,
        /// Its new type.
        to: &'static str,
    },
    /// A field only the new layout has, given no value.
    Unset {
        /// The field.
        field: &'static str,
    },
    /// [`Migration::set`](super::Migration::set) given a field it cannot
    /// set.
    SetWhat {
        /// The name it was given.
        field: String,
        /// Why it cannot.
        why: &'static str,
    },
    /// A typed key of another layout than the migration's old one.
    OtherLayout {
        /// The old layout.
        expected: String,
        /// The key's layout.
        got: String,
    },
    /// A typed key that does not encode.
    Encode(EncodeError),
    /// A row whose key could not be re-keyed: it does not decode as the
    /// old layout, the mapping refused it, or its new values do not
    /// encode.
    Rekey {
        /// The old key.
        key: Vec<u8>,
        /// Why.
        cause: MapError,
    },
    /// The new table holds a checkpoint of another migration (other
    /// layouts), or one that cannot be read.
    Checkpoint {
        /// The new table.
        table: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The store failed.
    Store {
        /// What was being done: `read`, `write`, `open`...
        op: &'static str,
        /// The table.
        table: String,
        /// The store's error.
        cause: MapError,
    },
}

impl MigrateError {
    /// A store's failure of `op` on `table`.
    pub fn store(op: &'static str, table: &str, cause: impl Into<MapError>) -> MigrateError {
        MigrateError::Store {
            op,
            table: table.into(),
            cause: cause.into(),
        }
    }
}

impl fmt::Display for MigrateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MigrateError::Layout { side, .. } => write!(f, "the {side} layout cannot be read"),
            MigrateError::Family { side, name } => write!(
                f,
                "the {side} layout `{name}` is a key family: migrate each member's rows with a migration of its own"
            ),
            MigrateError::Dropped { field } => write!(
                f,
                "field `{field}` of the old layout is not in the new one: map the old values with Migration::mapped to drop it"
            ),
            MigrateError::TypeChanged { field, from, to } => write!(
                f,
                "field `{field}` changes type from {from} to {to}: map the old values with Migration::mapped"
            ),
            MigrateError::Unset { field } => write!(
                f,
                "field `{field}` of the new layout has no value: give it one with Migration::set, or map the old values with Migration::mapped"
            ),
            MigrateError::SetWhat { field, why } => {
                write!(f, "Migration::set(\"{field}\"): {why}")
            }
            MigrateError::OtherLayout { expected, got } => write!(
                f,
                "a key of layout {got} given to a migration from layout {expected}"
            ),
            MigrateError::Encode(_) => f.write_str("the key does not encode"),
            MigrateError::Rekey { key, .. } => {
                write!(f, "the row {} cannot be re-keyed", to_string_binary(key))
            }
            MigrateError::Checkpoint { table, problem } => {
                write!(f, "the checkpoint of table `{table}`: {problem}")
            }
            MigrateError::Store { op, table, .. } => write!(f, "{op} of table `{table}` failed"),
        }
    }
}

impl std::error::Error for MigrateError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MigrateError::Layout { error, .. } => Some(error),
            MigrateError::Encode(error) => Some(error),
            MigrateError::Rekey { cause, .. } | MigrateError::Store { cause, .. } => {
                Some(cause.as_ref())
            }
            _ => None,
        }
    }
}
