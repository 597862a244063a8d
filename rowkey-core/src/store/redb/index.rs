//! [`IndexStore`]: an [`IndexedTable`](crate::index::IndexedTable)'s rows
//! in one redb table (feature `index`).

use alloc::string::String;
use alloc::vec::Vec;
use core::ops::Bound;

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition, TableError};

use super::SeekRange;
use crate::index::{Page, Store, StoreTx};
use crate::scan::KeyFilter;
use crate::store::{SkipCost, SkipStream};

/// The table's definition: keys and values as bytes.
type Raw<'a> = TableDefinition<'a, &'static [u8], &'static [u8]>;

/// An indexed table's data and index rows in the redb table `table` of
/// `db`: a put, a delete, a backfill page and a repair page are each one
/// write transaction (redb runs one at a time), and a query's index rows
/// are read by the same skip scan as
/// [`KeyTable::filter`](super::KeyTable::filter).
///
/// ```
/// # use rowkey_core::redb::IndexStore;
/// let db = redb::Database::builder()
///     .create_with_backend(redb::backends::InMemoryBackend::new())?;
/// let store = IndexStore::new(&db, "orders");
/// assert_eq!(store.table_name(), "orders");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct IndexStore<'db> {
    db: &'db Database,
    name: String,
}

impl<'db> IndexStore<'db> {
    /// The rows of table `table` in `db` (created by the first write).
    pub fn new(db: &'db Database, table: &str) -> Self {
        IndexStore {
            db,
            name: table.into(),
        }
    }

    /// The table's name.
    pub fn table_name(&self) -> &str {
        &self.name
    }

    /// The redb table underneath (keys and values as bytes), for reading
    /// or writing it by hand.
    pub fn definition(&self) -> Raw<'_> {
        TableDefinition::new(&self.name)
    }
}

/// A write of an [`IndexStore`]: its table, open in one transaction.
pub struct IndexTx<'a>(redb::Table<'a, &'static [u8], &'static [u8]>);

impl StoreTx for IndexTx<'_> {
    type Error = redb::Error;

    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, redb::Error> {
        Ok(self.0.get(key)?.map(|v| v.value().to_vec()))
    }

    fn put(&mut self, rows: &[(Vec<u8>, Vec<u8>)], _ts: u64) -> Result<(), redb::Error> {
        for (k, v) in rows {
            self.0.insert(k.as_slice(), v.as_slice())?;
        }
        Ok(())
    }

    fn delete(&mut self, keys: &[Vec<u8>], _ts: u64) -> Result<(), redb::Error> {
        for k in keys {
            self.0.remove(k.as_slice())?;
        }
        Ok(())
    }
}

impl Store for IndexStore<'_> {
    type Error = redb::Error;

    fn scan(
        &self,
        from: &[u8],
        stop: &[u8],
        filter: Option<&KeyFilter>,
        limit: usize,
    ) -> Result<Page, redb::Error> {
        let tx = self.db.begin_read()?;
        let table = match tx.open_table(self.definition()) {
            Ok(t) => t,
            Err(TableError::TableDoesNotExist(_)) => return Ok(Page::default()),
            Err(e) => return Err(e.into()),
        };
        let end = if stop.is_empty() {
            Bound::Unbounded
        } else {
            Bound::Excluded(stop)
        };
        let range = table.range::<&[u8]>((Bound::Included(from), end))?;
        let mut page = Page::default();
        match filter {
            None => {
                for row in range.take(limit) {
                    let (k, v) = row?;
                    page.rows.push((k.value().to_vec(), v.value().to_vec()));
                }
                page.read = page.rows.len() as u64;
            }
            Some(filter) => {
                let cost = SkipCost::default();
                let seek = SeekRange {
                    table: &table,
                    range: Some(range),
                    end: end.map(<[u8]>::to_vec),
                };
                let mut stream = SkipStream::new(seek, filter, cost.clone());
                for row in stream.by_ref().take(limit) {
                    let (k, v) = row?;
                    page.rows.push((k.as_ref().to_vec(), v.value().to_vec()));
                }
                drop(stream);
                page.read = cost.rows_read();
            }
        }
        Ok(page)
    }

    fn get_many(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, redb::Error> {
        let tx = self.db.begin_read()?;
        let table = match tx.open_table(self.definition()) {
            Ok(t) => t,
            Err(TableError::TableDoesNotExist(_)) => {
                return Ok(keys.iter().map(|_| None).collect())
            }
            Err(e) => return Err(e.into()),
        };
        keys.iter()
            .map(|k| Ok(table.get(k.as_slice())?.map(|v| v.value().to_vec())))
            .collect()
    }

    fn write<R, E: From<redb::Error>>(
        &self,
        steps: impl FnOnce(&mut dyn StoreTx<Error = Self::Error>) -> Result<R, E>,
    ) -> Result<R, E> {
        let tx = self.db.begin_write().map_err(|e| E::from(e.into()))?;
        let result = {
            let table = tx
                .open_table(self.definition())
                .map_err(|e| E::from(e.into()))?;
            steps(&mut IndexTx(table))
        };
        match result {
            Ok(r) => {
                tx.commit().map_err(|e| E::from(e.into()))?;
                Ok(r)
            }
            Err(e) => {
                tx.abort().map_err(|e| E::from(e.into()))?;
                Err(e)
            }
        }
    }
}
