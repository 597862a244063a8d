//! A record's put, delete and get, for blocking and async tables alike.

use alloc::vec::Vec;

use super::engine::{entry_rows, timestamp, Engine, Indexes, WriteOp};
use super::io::Steps;
use super::{IndexError, Record};
use crate::key::RowKey;

/// A put's steps: see `IndexedTable::put`.
struct Put<'a, D> {
    key: &'a D,
    data_key: Vec<u8>,
    value: Vec<u8>,
    new: Vec<Vec<u8>>,
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
            value,
            new,
            ts,
        } = self;
        let old = tx.get_stamped(&data_key).await?;
        if !new.is_empty() {
            tx.put(&entry_rows(&new, ts), ts).await?;
        }
        tx.put(&[(data_key, value)], ts).await?;
        // A previous record that does not decode keeps its entries: they
        // are stale now, dropped by queries and removed by `repair`.
        let (mut gone, stamp) = match &old {
            Some((old, stamp)) => match R::from_value(old) {
                Ok(old) => (indexes.all_entries(key, &old)?, *stamp),
                Err(_) => (Vec::new(), None),
            },
            None => (Vec::new(), None),
        };
        gone.retain(|e| !new.contains(e));
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

pub(super) async fn put<E: Engine<D, R>, D: RowKey, R: Record>(
    table: &E,
    key: &D,
    record: &R,
) -> Result<(), IndexError<E::Error>> {
    let data_key = key.encode_to_vec().map_err(IndexError::Encode)?;
    let new = table.indexes().all_entries(key, record)?;
    let op = Put {
        key,
        data_key,
        value: record.to_value(),
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
