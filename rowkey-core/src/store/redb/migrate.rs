//! Moving a redb table to another key layout (feature `migrate`): the
//! copy, its verification and the table a service writes through
//! meanwhile. Tables of `&[u8]` keys and `&[u8]` values, as a
//! [`KeyTableDefinition<K, &[u8]>`](super::KeyTableDefinition) writes
//! them.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::ops::Bound;

use redb::{
    Database, ReadOnlyTable, ReadableDatabase, ReadableTable, Table, TableDefinition,
    WriteTransaction,
};

use crate::key::RowKey;
use crate::migrate::{
    self, CopyStore, CopyTx, EachRow, MigrateError, MigrateReport, Migration, Phase, SharedPhase,
    Snapshot, Source, VerifyReport,
};

type Rows<'a> = TableDefinition<'a, &'static [u8], &'static [u8]>;

/// The table of a migration's checkpoint: `{to_table}.rowkey-migrate`.
pub fn checkpoint_table(to_table: &str) -> String {
    format!("{to_table}.rowkey-migrate")
}

/// Copies the rows of table `from_table` into table `to_table` of `db`,
/// each re-keyed by `migration`; see [`crate::migrate`].
///
/// Each page of [`PAGE_ROWS`](crate::migrate::PAGE_ROWS) rows is one
/// write transaction that reads the old rows, writes the new ones and the
/// checkpoint (in [`checkpoint_table`]`(to_table)`): a copy killed at any
/// point resumes after its last committed page when run again, and a
/// [`MigratingTable`]'s writes, each a transaction too, are never
/// overwritten by an older copy of the row. The old table must exist.
///
#[cfg_attr(feature = "derive", doc = "```")]
#[cfg_attr(not(feature = "derive"), doc = "```ignore")]
/// use redb::{backends::InMemoryBackend, Database};
/// use rowkey_core::migrate::Migration;
/// use rowkey_core::prelude::*;
/// use rowkey_core::redb::{self as store, KeyTableDefinition};
///
/// #[derive(RowKey)]
/// struct Old { user: u32, ts: i64 }
/// #[derive(RowKey)]
/// #[salt(buckets = 4, by(user))]
/// struct New { user: u32, #[desc_ts] ts: i64 }
///
/// let db = Database::builder().create_with_backend(InMemoryBackend::new())?;
/// let tx = db.begin_write()?;
/// {
///     let mut old = KeyTableDefinition::<Old, &[u8]>::new("events").open(&tx)?;
///     for ts in 0..10 {
///         old.insert(&Old { user: 7, ts }, &b"click"[..])?;
///     }
/// }
/// tx.commit()?;
///
/// let migration = Migration::new(Old::LAYOUT, New::LAYOUT)?;
/// let copied = store::migrate(&db, "events", "events_v2", &migration)?;
/// assert_eq!(copied.rows_written, 10);
/// assert!(store::verify(&db, "events", "events_v2", &migration)?.is_clean());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn migrate(
    db: &Database,
    from_table: &str,
    to_table: &str,
    migration: &Migration,
) -> Result<MigrateReport, MigrateError> {
    migration.check()?;
    exists(db, from_table)?;
    let marks = checkpoint_table(to_table);
    let store = Copy {
        db,
        old: from_table,
        new: to_table,
        marks: &marks,
    };
    migrate::copy(&store, to_table, migration)
}

/// Compares table `from_table`, re-keyed by `migration`, with table
/// `to_table` (both read in one read transaction); see
/// [`crate::migrate`].
pub fn verify(
    db: &Database,
    from_table: &str,
    to_table: &str,
    migration: &Migration,
) -> Result<VerifyReport, MigrateError> {
    let tx = db
        .begin_read()
        .map_err(|e| MigrateError::store("read", from_table, e))?;
    let open = |name: &str| {
        tx.open_table(Rows::new(name))
            .map_err(|e| MigrateError::store("open", name, e))
    };
    let snapshot = Both {
        old: (from_table, open(from_table)?),
        new: (to_table, open(to_table)?),
    };
    migrate::verify(&snapshot, migration)
}

/// The error of a table that does not exist, before a copy creates it
/// empty by opening it for writing.
fn exists(db: &Database, table: &str) -> Result<(), MigrateError> {
    let tx = db
        .begin_read()
        .map_err(|e| MigrateError::store("read", table, e))?;
    tx.open_table(Rows::new(table))
        .map(drop)
        .map_err(|e| MigrateError::store("open", table, e))
}

/// The copy's transactions.
struct Copy<'a> {
    db: &'a Database,
    old: &'a str,
    new: &'a str,
    marks: &'a str,
}

struct Tx<'t> {
    old: (&'t str, Table<'t, &'static [u8], &'static [u8]>),
    new: (&'t str, Table<'t, &'static [u8], &'static [u8]>),
    marks: (&'t str, Table<'t, &'static str, &'static [u8]>),
}

impl CopyStore for Copy<'_> {
    fn transact(
        &self,
        f: &mut dyn FnMut(&mut dyn CopyTx) -> Result<(), MigrateError>,
    ) -> Result<(), MigrateError> {
        let tx = self
            .db
            .begin_write()
            .map_err(|e| MigrateError::store("write", self.new, e))?;
        {
            let open = |name: &'_ str| {
                tx.open_table(Rows::new(name))
                    .map_err(|e| MigrateError::store("open", name, e))
            };
            let mut t = Tx {
                old: (self.old, open(self.old)?),
                new: (self.new, open(self.new)?),
                marks: (
                    self.marks,
                    tx.open_table(TableDefinition::<&str, &[u8]>::new(self.marks))
                        .map_err(|e| MigrateError::store("open", self.marks, e))?,
                ),
            };
            f(&mut t)?;
        }
        tx.commit()
            .map_err(|e| MigrateError::store("commit", self.new, e))
    }
}

impl CopyTx for Tx<'_> {
    fn old_rows(
        &mut self,
        start: &[u8],
        end: Option<&[u8]>,
        limit: usize,
        out: &mut Vec<(Vec<u8>, Vec<u8>)>,
    ) -> Result<(), MigrateError> {
        let (name, table) = &self.old;
        let end = end.map_or(Bound::Unbounded, Bound::Excluded);
        let read = |e| MigrateError::store("read", name, e);
        for row in table
            .range::<&[u8]>((Bound::Included(start), end))
            .map_err(read)?
            .take(limit)
        {
            let (k, v) = row.map_err(read)?;
            out.push((k.value().to_vec(), v.value().to_vec()));
        }
        Ok(())
    }

    fn put_new(&mut self, key: &[u8], value: &[u8]) -> Result<(), MigrateError> {
        let (name, table) = &mut self.new;
        table
            .insert(key, value)
            .map(drop)
            .map_err(|e| MigrateError::store("write", name, e))
    }

    fn mark(&mut self, name: &str) -> Result<Option<Vec<u8>>, MigrateError> {
        let (table_name, table) = &self.marks;
        let found = table
            .get(name)
            .map_err(|e| MigrateError::store("read", table_name, e))?;
        Ok(found.map(|v| v.value().to_vec()))
    }

    fn set_mark(&mut self, name: &str, value: &[u8]) -> Result<(), MigrateError> {
        let (table_name, table) = &mut self.marks;
        table
            .insert(name, value)
            .map(drop)
            .map_err(|e| MigrateError::store("write", table_name, e))
    }
}

/// Both tables in one read transaction.
struct Both<'a> {
    old: (&'a str, ReadOnlyTable<&'static [u8], &'static [u8]>),
    new: (&'a str, ReadOnlyTable<&'static [u8], &'static [u8]>),
}

impl Both<'_> {
    fn table(&self, source: Source) -> &(&str, ReadOnlyTable<&'static [u8], &'static [u8]>) {
        match source {
            Source::Old => &self.old,
            Source::New => &self.new,
        }
    }
}

impl Snapshot for Both<'_> {
    fn for_each(&self, source: Source, f: &mut EachRow<'_>) -> Result<(), MigrateError> {
        let (name, table) = self.table(source);
        let read = |e| MigrateError::store("read", name, e);
        for row in table.iter().map_err(read)? {
            let (k, v) = row.map_err(read)?;
            f(k.value(), v.value())?;
        }
        Ok(())
    }

    fn get(&self, source: Source, key: &[u8]) -> Result<Option<Vec<u8>>, MigrateError> {
        let (name, table) = self.table(source);
        let found = table
            .get(key)
            .map_err(|e| MigrateError::store("read", name, e))?;
        Ok(found.map(|v| v.value().to_vec()))
    }
}

/// A table being moved to a new layout, as a service writes it meanwhile:
/// rows are given by their old keys, and the [`Phase`] says which tables
/// a write, a delete and a read go to. Each write or delete is one redb
/// write transaction over both tables, so it is never half done and
/// never overtaken by an older copy of its row ([`migrate()`]).
///
/// It can be shared between threads (`&self` methods; the phase is an
/// atomic).
pub struct MigratingTable<'a> {
    db: &'a Database,
    old: String,
    new: String,
    migration: &'a Migration,
    phase: SharedPhase,
}

impl<'a> MigratingTable<'a> {
    /// Table `from_table` moving to `to_table` by `migration`, starting in
    /// [`Phase::DualWrite`].
    pub fn new(
        db: &'a Database,
        from_table: &str,
        to_table: &str,
        migration: &'a Migration,
    ) -> Self {
        MigratingTable {
            db,
            old: from_table.into(),
            new: to_table.into(),
            migration,
            phase: SharedPhase::default(),
        }
    }

    /// Where writes and reads go now.
    pub fn phase(&self) -> Phase {
        self.phase.get()
    }

    /// Moves to `phase`, for the calls that start after this one.
    pub fn set_phase(&self, phase: Phase) {
        self.phase.set(phase);
    }

    /// Writes (or replaces) the row of `old_key`: under its old key and its
    /// new one, or ([`Phase::Done`]) its new one only.
    pub fn put(&self, old_key: &[u8], value: &[u8]) -> Result<(), MigrateError> {
        let new_key = self.migration.rekey(old_key)?;
        self.write(|old, new| {
            if let Some(old) = old {
                old.1
                    .insert(old_key, value)
                    .map_err(|e| MigrateError::store("write", old.0, e))?;
            }
            new.1
                .insert(new_key.as_slice(), value)
                .map(drop)
                .map_err(|e| MigrateError::store("write", new.0, e))
        })
    }

    /// [`put`](Self::put) of a derived key of the old layout.
    pub fn insert<K: RowKey>(&self, key: &K, value: &[u8]) -> Result<(), MigrateError> {
        self.put(&self.migration.old_key(key)?, value)
    }

    /// Removes the row of `old_key` from the tables `put` writes.
    pub fn delete(&self, old_key: &[u8]) -> Result<(), MigrateError> {
        let new_key = self.migration.rekey(old_key)?;
        self.write(|old, new| {
            if let Some(old) = old {
                old.1
                    .remove(old_key)
                    .map_err(|e| MigrateError::store("delete", old.0, e))?;
            }
            new.1
                .remove(new_key.as_slice())
                .map(drop)
                .map_err(|e| MigrateError::store("delete", new.0, e))
        })
    }

    /// [`delete`](Self::delete) of a derived key of the old layout.
    pub fn remove<K: RowKey>(&self, key: &K) -> Result<(), MigrateError> {
        self.delete(&self.migration.old_key(key)?)
    }

    /// The value of `old_key`'s row: from the old table in
    /// [`Phase::DualWrite`], from the new one (under its new key) after.
    pub fn get(&self, old_key: &[u8]) -> Result<Option<Vec<u8>>, MigrateError> {
        let (table, key) = match self.phase() {
            Phase::DualWrite => (self.old.as_str(), old_key.to_vec()),
            _ => (self.new.as_str(), self.migration.rekey(old_key)?),
        };
        let tx = self
            .db
            .begin_read()
            .map_err(|e| MigrateError::store("read", table, e))?;
        let rows = match tx.open_table(Rows::new(table)) {
            Ok(rows) => rows,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(MigrateError::store("open", table, e)),
        };
        let found = rows
            .get(key.as_slice())
            .map_err(|e| MigrateError::store("read", table, e))?;
        Ok(found.map(|v| v.value().to_vec()))
    }

    /// One write transaction over the old table (but in [`Phase::Done`])
    /// and the new one.
    fn write(
        &self,
        steps: impl FnOnce(Option<&mut Named<'_>>, &mut Named<'_>) -> Result<(), MigrateError>,
    ) -> Result<(), MigrateError> {
        let tx: WriteTransaction = self
            .db
            .begin_write()
            .map_err(|e| MigrateError::store("write", &self.new, e))?;
        {
            let open = |name: &str| {
                tx.open_table(Rows::new(name))
                    .map_err(|e| MigrateError::store("open", name, e))
            };
            let mut old = match self.phase() {
                Phase::Done => None,
                _ => Some((self.old.as_str(), open(&self.old)?)),
            };
            let mut new = (self.new.as_str(), open(&self.new)?);
            steps(old.as_mut(), &mut new)?;
        }
        tx.commit()
            .map_err(|e| MigrateError::store("commit", &self.new, e))
    }
}

/// A table and its name, for errors.
type Named<'t> = (&'t str, Table<'t, &'static [u8], &'static [u8]>);
