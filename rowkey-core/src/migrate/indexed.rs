//! A table with secondary indexes moved to another data key (features
//! `migrate` and `index`): [`MigratingIndexedTable`].

use alloc::string::ToString;

use crate::index::{IndexError, IndexedTable, Record, Store};
use crate::key::{DecodeRowKey, RowKey};

use super::{MigrateError, Migration, Phase, SharedPhase};

/// An [`IndexedTable`] being moved to a new data key, as a service writes
/// it meanwhile: records are given by their old keys, and the [`Phase`]
/// says which tables a put, a delete and a read go to. Each table keeps
/// its own indexes in step: a put writes the record and its entries in
/// the old table under the old key and in the new table under the new
/// key (each by [`IndexedTable::put`]'s crash-safe order), a delete
/// removes both.
///
/// The move itself: the engine's `migrate` copies the data rows (the old
/// data key's rows only: [`parts`](super::parts) stay within its
/// prefix, so the index rows beside them are not copied), then each index
/// of the new table is built over the copied rows with
/// [`IndexedTable::backfill`] (which is safe beside the puts this table
/// makes), and checked with [`IndexedTable::verify`]; the engine's
/// `verify` compares the data rows.
pub struct MigratingIndexedTable<'m, S, T, Old, New, R> {
    old: IndexedTable<S, Old, R>,
    new: IndexedTable<T, New, R>,
    migration: &'m Migration,
    phase: SharedPhase,
}

impl<'m, S, T, Old, New, R> MigratingIndexedTable<'m, S, T, Old, New, R>
where
    S: Store,
    T: Store,
    Old: RowKey + for<'de> DecodeRowKey<'de>,
    New: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    /// `old` moving to `new` by `migration` (a migration between `Old`'s
    /// and `New`'s layouts), starting in [`Phase::DualWrite`].
    pub fn new(
        old: IndexedTable<S, Old, R>,
        new: IndexedTable<T, New, R>,
        migration: &'m Migration,
    ) -> Result<Self, MigrateError> {
        for (want, got) in [
            (migration.from().layout(), Old::LAYOUT),
            (migration.to().layout(), New::LAYOUT),
        ] {
            if want.id() != got.id() {
                return Err(MigrateError::OtherLayout {
                    expected: want.to_string(),
                    got: got.to_string(),
                });
            }
        }
        Ok(MigratingIndexedTable {
            old,
            new,
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

    /// The old table.
    pub fn old_table(&self) -> &IndexedTable<S, Old, R> {
        &self.old
    }

    /// The new table: its indexes' backfill and verify, its queries.
    pub fn new_table(&self) -> &IndexedTable<T, New, R> {
        &self.new
    }

    /// The new key of the record under `old`.
    pub fn new_key(&self, old: &Old) -> Result<New, MigrateError> {
        let bytes = self.migration.rekey(&self.migration.old_key(old)?)?;
        New::decode(&bytes).map_err(|e| MigrateError::store("decode", "the new key", e))
    }

    /// Writes `record` under `key` (and its entries): in both tables, or
    /// ([`Phase::Done`]) in the new one only.
    pub fn put(&self, key: &Old, record: &R) -> Result<(), MigrateError> {
        let new_key = self.new_key(key)?;
        if self.phase() != Phase::Done {
            self.old
                .put(key, record)
                .map_err(failed("put", "the old table"))?;
        }
        self.new
            .put(&new_key, record)
            .map_err(failed("put", "the new table"))
    }

    /// Removes the record under `key` and its entries from the tables
    /// `put` writes; whether the table reads come from had one.
    pub fn delete(&self, key: &Old) -> Result<bool, MigrateError> {
        let new_key = self.new_key(key)?;
        let had_old = match self.phase() {
            Phase::Done => false,
            _ => self
                .old
                .delete(key)
                .map_err(failed("delete", "the old table"))?,
        };
        let had_new = self
            .new
            .delete(&new_key)
            .map_err(failed("delete", "the new table"))?;
        Ok(match self.phase() {
            Phase::DualWrite => had_old,
            _ => had_new,
        })
    }

    /// The record under `key`: from the old table in
    /// [`Phase::DualWrite`], from the new one after.
    pub fn get(&self, key: &Old) -> Result<Option<R>, MigrateError> {
        match self.phase() {
            Phase::DualWrite => self.old.get(key).map_err(failed("read", "the old table")),
            _ => self
                .new
                .get(&self.new_key(key)?)
                .map_err(failed("read", "the new table")),
        }
    }
}

/// An index error of `op` on `table` as a migration's.
fn failed<E: std::error::Error + Send + Sync + 'static>(
    op: &'static str,
    table: &'static str,
) -> impl Fn(IndexError<E>) -> MigrateError {
    move |e| MigrateError::store(op, table, e)
}
