//! A record's put, delete and get, for blocking and async tables alike.

use alloc::vec::Vec;

use super::engine::{entry_rows, timestamp, Engine, Indexes, NewEntry, WriteOp};
use super::io::Steps;
use super::{Cell, IndexError, Record};
use crate::key::RowKey;

/// A record's data row: its value, or its cells for a record of
/// [`Record::CELLS`].
enum DataRow {
    Value(Vec<u8>),
    Cells(Vec<Cell>),
}

impl DataRow {
    fn of<R: Record>(record: &R) -> DataRow {
        if R::CELLS {
            DataRow::Cells(record.to_cells())
        } else {
            DataRow::Value(record.to_value())
        }
    }
}

/// Writes data rows (all of one kind: one table holds one record type).
async fn put_rows<T: Steps>(
    tx: &mut T,
    rows: Vec<(Vec<u8>, DataRow)>,
    ts: u64,
) -> Result<(), T::Error> {
    let mut values = Vec::new();
    let mut cells = Vec::new();
    for (key, row) in rows {
        match row {
            DataRow::Value(v) => values.push((key, v)),
            DataRow::Cells(c) => cells.push((key, c)),
        }
    }
    if !values.is_empty() {
        tx.put(&values, ts).await?;
    }
    if !cells.is_empty() {
        tx.put_cells(&cells, ts).await?;
    }
    Ok(())
}

/// A put's steps: see `IndexedTable::put`.
struct Put<'a, D> {
    key: &'a D,
    data_key: Vec<u8>,
    row: DataRow,
    new: Vec<NewEntry>,
    ts: u64,
}

impl<D: RowKey, R: Record> WriteOp<D, R> for Put<'_, D> {
    type Out = ();

    async fn run<T: Steps>(
        self,
        indexes: &Indexes<D, R>,
        tx: &mut T,
    ) -> Result<(), IndexError<T::Error>> {
        let Put {
            key,
            data_key,
            row,
            new,
            ts,
        } = self;
        let old = tx.get_stamped(&data_key).await?;
        // A previous record that does not decode keeps its entries: they
        // are stale now, dropped by queries and removed by `repair`.
        let (mut gone, stamp) = match &old {
            Some((old, stamp)) => match R::from_value(old) {
                Ok(old) => (indexes.all_entries(key, &old)?, *stamp),
                Err(_) => (Vec::new(), None),
            },
            None => (Vec::new(), None),
        };
        gone.retain(|e| !new.iter().any(|(k, _)| k == e));
        if !new.is_empty() {
            tx.put(&entry_rows(new, ts), ts).await?;
        }
        put_rows(tx, alloc::vec![(data_key, row)], ts).await?;
        if !gone.is_empty() {
            // The old record's versions only: a racing writer's newer
            // entry of the same row stays.
            tx.delete(&gone, stamp.map_or(ts, |s| s.min(ts))).await?;
        }
        Ok(())
    }
}

/// A delete's steps: the data row, then its entries.
struct Delete<'a, D> {
    key: &'a D,
    data_key: Vec<u8>,
    ts: u64,
}

impl<D: RowKey, R: Record> WriteOp<D, R> for Delete<'_, D> {
    type Out = bool;

    async fn run<T: Steps>(
        self,
        indexes: &Indexes<D, R>,
        tx: &mut T,
    ) -> Result<bool, IndexError<T::Error>> {
        let Some((old, stamp)) = tx.get_stamped(&self.data_key).await? else {
            return Ok(false);
        };
        tx.delete(core::slice::from_ref(&self.data_key), self.ts)
            .await?;
        if let Ok(old) = R::from_value(&old) {
            let entries = indexes.all_entries(self.key, &old)?;
            if !entries.is_empty() {
                // The deleted record's versions only (its stamp): a put
                // racing this delete wrote its entries later, and where
                // its data row outlives the delete (Bigtable applies a
                // delete once, it leaves no marker) they stay with it.
                let upto = stamp.map_or(self.ts, |s| s.min(self.ts));
                tx.delete(&entries, upto).await?;
            }
        }
        Ok(true)
    }
}

/// A row of a batch of puts: its key, data key, data row and new entries.
type BatchRow<'a, D> = (&'a D, Vec<u8>, DataRow, Vec<NewEntry>);

/// A batch of puts, none of one key twice: each step once for all rows
/// (see `IndexedTable::put_many`).
struct PutMany<'a, D> {
    rows: Vec<BatchRow<'a, D>>,
    ts: u64,
}

impl<D: RowKey, R: Record> WriteOp<D, R> for PutMany<'_, D> {
    type Out = ();

    async fn run<T: Steps>(
        self,
        indexes: &Indexes<D, R>,
        tx: &mut T,
    ) -> Result<(), IndexError<T::Error>> {
        let PutMany { rows, ts } = self;
        let keys: Vec<Vec<u8>> = rows.iter().map(|r| r.1.clone()).collect();
        let olds = tx.get_stamped_many(&keys).await?;
        let mut gone = Vec::new();
        for ((key, _, _, new), old) in rows.iter().zip(olds) {
            // As `Put`: an old record that does not decode keeps its
            // entries; the old record's versions only are removed.
            let Some((old, stamp)) = old else { continue };
            let Ok(old) = R::from_value(&old) else {
                continue;
            };
            let upto = stamp.map_or(ts, |s| s.min(ts));
            for entry in indexes.all_entries(*key, &old)? {
                if !new.iter().any(|(k, _)| *k == entry) {
                    gone.push((entry, upto));
                }
            }
        }
        let mut data = Vec::with_capacity(rows.len());
        let mut new = Vec::new();
        for (_, data_key, row, entries) in rows {
            data.push((data_key, row));
            new.extend(entries);
        }
        if !new.is_empty() {
            tx.put(&entry_rows(new, ts), ts).await?;
        }
        put_rows(tx, data, ts).await?;
        if !gone.is_empty() {
            tx.delete_each(&gone).await?;
        }
        Ok(())
    }
}

/// A batch of deletes, none of one key twice: the data rows, then their
/// entries, each step once for all rows. The number of rows there were.
struct DeleteMany<'a, D> {
    keys: Vec<(&'a D, Vec<u8>)>,
    ts: u64,
}

impl<D: RowKey, R: Record> WriteOp<D, R> for DeleteMany<'_, D> {
    type Out = u64;

    async fn run<T: Steps>(
        self,
        indexes: &Indexes<D, R>,
        tx: &mut T,
    ) -> Result<u64, IndexError<T::Error>> {
        let DeleteMany { keys, ts } = self;
        let data: Vec<Vec<u8>> = keys.iter().map(|k| k.1.clone()).collect();
        let olds = tx.get_stamped_many(&data).await?;
        let mut there = Vec::new();
        let mut entries = Vec::new();
        for ((key, data_key), old) in keys.into_iter().zip(olds) {
            let Some((old, stamp)) = old else { continue };
            there.push(data_key);
            if let Ok(old) = R::from_value(&old) {
                // As `Delete`: the deleted record's versions only.
                let upto = stamp.map_or(ts, |s| s.min(ts));
                entries.extend(
                    indexes
                        .all_entries(key, &old)?
                        .into_iter()
                        .map(|e| (e, upto)),
                );
            }
        }
        if there.is_empty() {
            return Ok(0);
        }
        tx.delete(&there, ts).await?;
        if !entries.is_empty() {
            tx.delete_each(&entries).await?;
        }
        Ok(there.len() as u64)
    }
}

/// Rows per write of `put_many` and `delete_many`: a few calls of this
/// many rows each, small enough for one request to a region server.
pub(super) const BATCH: usize = 1_000;

/// A batch's items, each with its data key.
type Batch<'a, T> = Vec<(&'a T, Vec<u8>)>;

/// `items` cut into batches of at most [`BATCH`], a batch ending before a
/// data key it already holds (so that a key's later write is a later
/// batch, as two puts would be): the batches' `(item, data key)`s.
fn batches<'a, T, D: RowKey + 'a>(
    items: &'a [T],
    key: impl Fn(&'a T) -> &'a D,
) -> Result<Vec<Batch<'a, T>>, crate::format::error::EncodeError> {
    let mut out = Vec::new();
    let mut batch: Vec<(&T, Vec<u8>)> = Vec::new();
    let mut seen = alloc::collections::BTreeSet::new();
    for item in items {
        let data_key = key(item).encode_to_vec()?;
        if batch.len() == BATCH || seen.contains(&data_key) {
            out.push(core::mem::take(&mut batch));
            seen.clear();
        }
        seen.insert(data_key.clone());
        batch.push((item, data_key));
    }
    if !batch.is_empty() {
        out.push(batch);
    }
    Ok(out)
}

pub(super) async fn put_many<E: Engine<D, R>, D: RowKey, R: Record>(
    table: &E,
    rows: &[(D, R)],
) -> Result<(), IndexError<E::Error>> {
    for batch in batches(rows, |r| &r.0).map_err(IndexError::Encode)? {
        let mut op = PutMany {
            rows: Vec::with_capacity(batch.len()),
            ts: timestamp(),
        };
        for ((key, record), data_key) in batch {
            let new = table.indexes().new_entries(key, record)?;
            op.rows.push((key, data_key, DataRow::of(record), new));
        }
        table.write(op).await?;
    }
    Ok(())
}

pub(super) async fn delete_many<E: Engine<D, R>, D: RowKey, R: Record>(
    table: &E,
    keys: &[D],
) -> Result<u64, IndexError<E::Error>> {
    let mut deleted = 0;
    for batch in batches(keys, |k| k).map_err(IndexError::Encode)? {
        let op = DeleteMany {
            keys: batch,
            ts: timestamp(),
        };
        deleted += table.write(op).await?;
    }
    Ok(deleted)
}

pub(super) async fn put<E: Engine<D, R>, D: RowKey, R: Record>(
    table: &E,
    key: &D,
    record: &R,
) -> Result<(), IndexError<E::Error>> {
    let data_key = key.encode_to_vec().map_err(IndexError::Encode)?;
    let new = table.indexes().new_entries(key, record)?;
    let op = Put {
        key,
        data_key,
        row: DataRow::of(record),
        new,
        ts: timestamp(),
    };
    table.write(op).await
}

pub(super) async fn delete<E: Engine<D, R>, D: RowKey, R: Record>(
    table: &E,
    key: &D,
) -> Result<bool, IndexError<E::Error>> {
    let data_key = key.encode_to_vec().map_err(IndexError::Encode)?;
    let op = Delete {
        key,
        data_key,
        ts: timestamp(),
    };
    table.write(op).await
}

pub(super) async fn get<E: Engine<D, R>, D: RowKey, R: Record>(
    table: &E,
    key: &D,
) -> Result<Option<R>, IndexError<E::Error>> {
    let data_key = key.encode_to_vec().map_err(IndexError::Encode)?;
    let mut values = table.get_many(core::slice::from_ref(&data_key)).await?;
    match values.pop().flatten() {
        None => Ok(None),
        Some(v) => R::from_value(&v)
            .map(Some)
            .map_err(|error| IndexError::Record {
                key: data_key,
                error,
            }),
    }
}
