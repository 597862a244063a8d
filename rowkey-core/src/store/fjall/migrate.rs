//! Moving a fjall keyspace to another key layout (feature `migrate`): the
//! copy, its verification and the table a service writes through
//! meanwhile, on a [`SingleWriterTxDatabase`] (the copy's pages and the
//! service's writes are each one transaction over both keyspaces).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::ops::Bound;

use fjall::{
    KeyspaceCreateOptions, Readable, SingleWriterTxDatabase, SingleWriterTxKeyspace,
    SingleWriterWriteTx,
};

use crate::key::RowKey;
use crate::migrate::{
    self, CopyStore, CopyTx, EachRow, MigrateError, MigrateReport, Migration, Phase, SharedPhase,
    Snapshot, Source, VerifyReport,
};

/// The keyspace of a migration's checkpoint: `{to_table}.rowkey-migrate`.
pub fn checkpoint_keyspace(to_table: &str) -> String {
    format!("{to_table}.rowkey-migrate")
}

/// Copies the rows of keyspace `from_table` into keyspace `to_table` of
/// `db` (created if it is missing), each re-keyed by `migration`; see
/// [`crate::migrate`] and [`redb::migrate`](crate::redb::migrate), whose
/// pages, checkpoint and guarantees these are. The old keyspace must
/// exist.
pub fn migrate(
    db: &SingleWriterTxDatabase,
    from_table: &str,
    to_table: &str,
    migration: &Migration,
) -> Result<MigrateReport, MigrateError> {
    migration.check()?;
    let marks = checkpoint_keyspace(to_table);
    let store = Copy {
        db,
        old: (from_table, existing(db, from_table)?),
        new: (to_table, open(db, to_table)?),
        marks: (&marks, open(db, &marks)?),
    };
    migrate::copy(&store, to_table, migration)
}

/// Compares keyspace `from_table`, re-keyed by `migration`, with keyspace
/// `to_table` (both read from one snapshot); see [`crate::migrate`].
pub fn verify(
    db: &SingleWriterTxDatabase,
    from_table: &str,
    to_table: &str,
    migration: &Migration,
) -> Result<VerifyReport, MigrateError> {
    let snapshot = Both {
        old: (from_table, existing(db, from_table)?),
        new: (to_table, existing(db, to_table)?),
        snapshot: db.read_tx(),
    };
    migrate::verify(&snapshot, migration)
}

fn open(db: &SingleWriterTxDatabase, name: &str) -> Result<SingleWriterTxKeyspace, MigrateError> {
    db.keyspace(name, KeyspaceCreateOptions::default)
        .map_err(|e| MigrateError::store("open", name, e))
}

/// A keyspace that must exist already (opening creates one).
fn existing(
    db: &SingleWriterTxDatabase,
    name: &str,
) -> Result<SingleWriterTxKeyspace, MigrateError> {
    if !db.keyspace_exists(name) {
        return Err(MigrateError::store("open", name, "no such keyspace"));
    }
    open(db, name)
}

type Named<'a> = (&'a str, SingleWriterTxKeyspace);

/// The copy's transactions.
struct Copy<'a> {
    db: &'a SingleWriterTxDatabase,
    old: Named<'a>,
    new: Named<'a>,
    marks: Named<'a>,
}

struct Tx<'a, 't> {
    tx: &'t mut SingleWriterWriteTx<'a>,
    copy: &'t Copy<'a>,
}

impl CopyStore for Copy<'_> {
    fn transact(
        &self,
        f: &mut dyn FnMut(&mut dyn CopyTx) -> Result<(), MigrateError>,
    ) -> Result<(), MigrateError> {
        let mut tx = self.db.write_tx();
        f(&mut Tx {
            tx: &mut tx,
            copy: self,
        })?;
        tx.commit()
            .map_err(|e| MigrateError::store("commit", self.new.0, e))
    }
}

impl CopyTx for Tx<'_, '_> {
    fn old_rows(
        &mut self,
        start: &[u8],
        end: Option<&[u8]>,
        limit: usize,
        out: &mut Vec<(Vec<u8>, Vec<u8>)>,
    ) -> Result<(), MigrateError> {
        let (name, keyspace) = &self.copy.old;
        let end = end.map_or(Bound::Unbounded, Bound::Excluded);
        for guard in self
            .tx
            .range::<&[u8], _>(keyspace, (Bound::Included(start), end))
            .take(limit)
        {
            let (k, v) = guard
                .into_inner()
                .map_err(|e| MigrateError::store("read", name, e))?;
            out.push((k.to_vec(), v.to_vec()));
        }
        Ok(())
    }

    fn put_new(&mut self, key: &[u8], value: &[u8]) -> Result<(), MigrateError> {
        self.tx.insert(&self.copy.new.1, key, value);
        Ok(())
    }

    fn mark(&mut self, name: &str) -> Result<Option<Vec<u8>>, MigrateError> {
        let (table, keyspace) = &self.copy.marks;
        let found = self
            .tx
            .get(keyspace, name)
            .map_err(|e| MigrateError::store("read", table, e))?;
        Ok(found.map(|v| v.to_vec()))
    }

    fn set_mark(&mut self, name: &str, value: &[u8]) -> Result<(), MigrateError> {
        self.tx.insert(&self.copy.marks.1, name, value);
        Ok(())
    }
}

/// Both keyspaces in one snapshot.
struct Both<'a> {
    old: Named<'a>,
    new: Named<'a>,
    snapshot: fjall::Snapshot,
}

impl Both<'_> {
    fn keyspace(&self, source: Source) -> &Named<'_> {
        match source {
            Source::Old => &self.old,
            Source::New => &self.new,
        }
    }
}

impl Snapshot for Both<'_> {
    fn for_each(&self, source: Source, f: &mut EachRow<'_>) -> Result<(), MigrateError> {
        let (name, keyspace) = self.keyspace(source);
        for guard in self.snapshot.iter(keyspace) {
            let (k, v) = guard
                .into_inner()
                .map_err(|e| MigrateError::store("read", name, e))?;
            f(&k, &v)?;
        }
        Ok(())
    }

    fn get(&self, source: Source, key: &[u8]) -> Result<Option<Vec<u8>>, MigrateError> {
        let (name, keyspace) = self.keyspace(source);
        let found = self
            .snapshot
            .get(keyspace, key)
            .map_err(|e| MigrateError::store("read", name, e))?;
        Ok(found.map(|v| v.to_vec()))
    }
}

/// A keyspace being moved to a new layout, as a service writes it
/// meanwhile: rows are given by their old keys, and the [`Phase`] says
/// which keyspaces a write, a delete and a read go to. Each write or
/// delete is one write transaction over both, so it is never half done
/// and never overtaken by an older copy of its row ([`migrate()`]). See
/// [`redb::MigratingTable`](crate::redb::MigratingTable), its twin.
pub struct MigratingTable<'a> {
    db: SingleWriterTxDatabase,
    old: (String, SingleWriterTxKeyspace),
    new: (String, SingleWriterTxKeyspace),
    migration: &'a Migration,
    phase: SharedPhase,
}

impl<'a> MigratingTable<'a> {
    /// Keyspace `from_table` moving to `to_table` (created if missing) by
    /// `migration`, starting in [`Phase::DualWrite`].
    pub fn new(
        db: &SingleWriterTxDatabase,
        from_table: &str,
        to_table: &str,
        migration: &'a Migration,
    ) -> Result<Self, MigrateError> {
        Ok(MigratingTable {
            db: db.clone(),
            old: (from_table.into(), open(db, from_table)?),
            new: (to_table.into(), open(db, to_table)?),
            migration,
            phase: SharedPhase::default(),
        })
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
        let mut tx = self.db.write_tx();
        if self.phase() != Phase::Done {
            tx.insert(&self.old.1, old_key, value);
        }
        tx.insert(&self.new.1, new_key, value);
        tx.commit()
            .map_err(|e| MigrateError::store("write", &self.new.0, e))
    }

    /// [`put`](Self::put) of a derived key of the old layout.
    pub fn insert<K: RowKey>(&self, key: &K, value: &[u8]) -> Result<(), MigrateError> {
        self.put(&self.migration.old_key(key)?, value)
    }

    /// Removes the row of `old_key` from the keyspaces `put` writes.
    pub fn delete(&self, old_key: &[u8]) -> Result<(), MigrateError> {
        let new_key = self.migration.rekey(old_key)?;
        let mut tx = self.db.write_tx();
        if self.phase() != Phase::Done {
            tx.remove(&self.old.1, old_key);
        }
        tx.remove(&self.new.1, new_key);
        tx.commit()
            .map_err(|e| MigrateError::store("delete", &self.new.0, e))
    }

    /// [`delete`](Self::delete) of a derived key of the old layout.
    pub fn remove<K: RowKey>(&self, key: &K) -> Result<(), MigrateError> {
        self.delete(&self.migration.old_key(key)?)
    }

    /// The value of `old_key`'s row: from the old keyspace in
    /// [`Phase::DualWrite`], from the new one (under its new key) after.
    pub fn get(&self, old_key: &[u8]) -> Result<Option<Vec<u8>>, MigrateError> {
        let ((name, keyspace), key) = match self.phase() {
            Phase::DualWrite => (&self.old, old_key.to_vec()),
            _ => (&self.new, self.migration.rekey(old_key)?),
        };
        let found = keyspace
            .get(&key)
            .map_err(|e| MigrateError::store("read", name, e))?;
        Ok(found.map(|v| v.to_vec()))
    }
}
