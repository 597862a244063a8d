//! [`IndexStore`]: an [`IndexedTable`](crate::index::IndexedTable)'s rows
//! in one keyspace of a fjall transactional database (feature `index`).

use alloc::vec::Vec;
use core::ops::Bound;

use fjall::{KeyspaceCreateOptions, Readable, SingleWriterTxDatabase, SingleWriterTxKeyspace};

use super::SeekRange;
use crate::index::{Page, Store, StoreTx};
use crate::scan::KeyFilter;
use crate::store::{SkipCost, SkipStream};

/// An indexed table's data and index rows in the keyspace `table` of a
/// fjall [`SingleWriterTxDatabase`]: a put, a delete, a backfill page and a
/// repair page are each one write transaction (one at a time), and a
/// query's index rows are read by the same skip scan as
/// [`KeyTable::filter`](super::KeyTable::filter).
#[derive(Clone)]
pub struct IndexStore {
    db: SingleWriterTxDatabase,
    keyspace: SingleWriterTxKeyspace,
}

impl IndexStore {
    /// The rows of keyspace `table` in `db`, opened (or created) now.
    pub fn new(db: &SingleWriterTxDatabase, table: &str) -> Result<Self, fjall::Error> {
        Ok(IndexStore {
            db: db.clone(),
            keyspace: db.keyspace(table, KeyspaceCreateOptions::default)?,
        })
    }

    /// The keyspace underneath, for reading or writing it by hand.
    pub fn keyspace(&self) -> &SingleWriterTxKeyspace {
        &self.keyspace
    }
}

/// A write of an [`IndexStore`]: one fjall write transaction.
pub struct IndexTx<'a> {
    tx: fjall::SingleWriterWriteTx<'a>,
    keyspace: &'a SingleWriterTxKeyspace,
}

impl StoreTx for IndexTx<'_> {
    type Error = fjall::Error;

    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, fjall::Error> {
        Ok(self.tx.get(self.keyspace, key)?.map(|v| v.to_vec()))
    }

    fn put(&mut self, rows: &[(Vec<u8>, Vec<u8>)], _ts: u64) -> Result<(), fjall::Error> {
        for (k, v) in rows {
            self.tx.insert(self.keyspace, k.as_slice(), v.as_slice());
        }
        Ok(())
    }

    fn delete(&mut self, keys: &[Vec<u8>], _ts: u64) -> Result<(), fjall::Error> {
        for k in keys {
            self.tx.remove(self.keyspace, k.as_slice());
        }
        Ok(())
    }
}

impl Store for IndexStore {
    type Error = fjall::Error;

    fn scan(
        &self,
        from: &[u8],
        stop: &[u8],
        filter: Option<&KeyFilter>,
        limit: usize,
    ) -> Result<Page, fjall::Error> {
        let keyspace = self.keyspace.inner();
        let end = if stop.is_empty() {
            Bound::Unbounded
        } else {
            Bound::Excluded(stop)
        };
        let range = keyspace.range::<&[u8], _>((Bound::Included(from), end));
        let mut page = Page::default();
        match filter {
            None => {
                for guard in range.take(limit) {
                    let (k, v) = guard.into_inner()?;
                    page.rows.push((k.to_vec(), v.to_vec()));
                }
                page.read = page.rows.len() as u64;
            }
            Some(filter) => {
                let cost = SkipCost::default();
                let seek = SeekRange {
                    keyspace: keyspace.clone(),
                    range: Some(range),
                    end: end.map(<[u8]>::to_vec),
                };
                let mut stream = SkipStream::new(seek, filter, cost.clone());
                for row in stream.by_ref().take(limit) {
                    let (k, v) = row?;
                    page.rows.push((k.as_ref().to_vec(), v.to_vec()));
                }
                drop(stream);
                page.read = cost.rows_read();
            }
        }
        Ok(page)
    }

    fn get_many(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, fjall::Error> {
        let snapshot = self.db.read_tx();
        keys.iter()
            .map(|k| Ok(snapshot.get(&self.keyspace, k)?.map(|v| v.to_vec())))
            .collect()
    }

    fn write<R, E: From<fjall::Error>>(
        &self,
        steps: impl FnOnce(&mut dyn StoreTx<Error = Self::Error>) -> Result<R, E>,
    ) -> Result<R, E> {
        let mut tx = IndexTx {
            tx: self.db.write_tx(),
            keyspace: &self.keyspace,
        };
        let result = steps(&mut tx)?;
        tx.tx.commit()?;
        Ok(result)
    }
}
