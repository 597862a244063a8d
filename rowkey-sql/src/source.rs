//! The stores a table reads: each runs a [`KeyFilter`]'s skip scan (the
//! typed tables' own) and hands its rows to the caller one at a time.

use std::fmt;
use std::ops::ControlFlow;

use rowkey_core::scan::KeyFilter;

/// A row as the store holds it: key bytes and the whole value.
pub(crate) type Visit<'a> = dyn FnMut(&[u8], &[u8]) -> ControlFlow<()> + 'a;

/// A sorted store of key bytes.
pub(crate) trait Source: fmt::Debug + Send + Sync {
    /// `redb`, `fjall`: for EXPLAIN.
    fn name(&self) -> &'static str;

    /// The rows `filter` matches, in key order, until `visit` breaks;
    /// the rows read from the store (matches and those stepped over).
    fn scan(&self, filter: &KeyFilter, visit: &mut Visit<'_>) -> Result<u64, String>;
}

#[cfg(feature = "redb")]
pub(crate) use self::redb_source::Redb;

#[cfg(feature = "redb")]
mod redb_source {
    use std::sync::Arc;

    use redb::{ReadableDatabase, TableDefinition};
    use rowkey_core::scan::KeyFilter;

    use super::{Source, Visit};

    /// A redb table of `&[u8]` keys and `&[u8]` values.
    pub(crate) struct Redb {
        pub(crate) db: Arc<redb::Database>,
        pub(crate) table: String,
    }

    impl std::fmt::Debug for Redb {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "redb table `{}`", self.table)
        }
    }

    impl Source for Redb {
        fn name(&self) -> &'static str {
            "redb"
        }

        fn scan(&self, filter: &KeyFilter, visit: &mut Visit<'_>) -> Result<u64, String> {
            let e = |e: &dyn std::fmt::Display| format!("redb table `{}`: {e}", self.table);
            let tx = self.db.begin_read().map_err(|x| e(&x))?;
            let def = TableDefinition::<&[u8], &[u8]>::new(&self.table);
            let table = match tx.open_table(def) {
                Ok(t) => t,
                // A table never written to holds no rows.
                Err(redb::TableError::TableDoesNotExist(_)) => return Ok(0),
                Err(x) => return Err(e(&x)),
            };
            let rows = rowkey_core::redb::filter_raw(&table, filter).map_err(|x| e(&x))?;
            let cost = rows.cost().clone();
            for row in rows {
                let (key, value) = row.map_err(|x| e(&x))?;
                if visit(key.as_ref(), value.value()).is_break() {
                    break;
                }
            }
            Ok(cost.rows_read())
        }
    }
}

#[cfg(feature = "fjall")]
pub(crate) use self::fjall_source::Fjall;

#[cfg(feature = "fjall")]
mod fjall_source {
    use rowkey_core::scan::KeyFilter;

    use super::{Source, Visit};

    /// A fjall keyspace of key bytes.
    pub(crate) struct Fjall {
        pub(crate) keyspace: fjall::Keyspace,
    }

    impl std::fmt::Debug for Fjall {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("fjall keyspace")
        }
    }

    impl Source for Fjall {
        fn name(&self) -> &'static str {
            "fjall"
        }

        fn scan(&self, filter: &KeyFilter, visit: &mut Visit<'_>) -> Result<u64, String> {
            let rows = rowkey_core::fjall::filter_raw(&self.keyspace, filter);
            let cost = rows.cost().clone();
            for row in rows {
                let (key, value) = row.map_err(|e| format!("fjall keyspace: {e}"))?;
                if visit(key.as_ref(), &value).is_break() {
                    break;
                }
            }
            Ok(cost.rows_read())
        }
    }
}
