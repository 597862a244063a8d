//! [`IndexStore`]: an [`IndexedTable`](rowkey_core::index::IndexedTable)'s
//! rows in one family of an HBase table (feature `index`).

use rowkey_core::index::{encode_cells, Page, Store, StoreTx};
use rowkey_core::{KeyFilter, Scan};

use crate::client::Client;
use crate::error::Error;
use crate::types::Cell;
use crate::write::WriteOptions;

use crate::types::INDEX_QUALIFIER as QUALIFIER;

/// An indexed table's data and index rows in `table`, one cell each in
/// `family` (qualifier `v`), over a shared [`Client`].
///
/// HBase writes one row atomically, never two: each step of a put or a
/// delete is its own call, its cells stamped with the step's timestamp,
/// and a delete removes only the versions at or before its own timestamp,
/// so a racing writer's newer entry stays. A query's index rows are read
/// with [`Client::filter_in`]: the skip scan runs on the region servers
/// when the client sends rowkey's filter
/// ([`ClientBuilder::server_filter`](crate::ClientBuilder::server_filter)),
/// else as HBase's own filters allow. Reads and timestamped writes are
/// retried as the client's policy says (each is idempotent).
#[derive(Clone, Debug)]
pub struct IndexStore {
    client: Client,
    table: String,
    family: String,
}

impl IndexStore {
    /// The rows of `table` (which must exist, with `family`) through
    /// `client`.
    pub fn new(client: &Client, table: &str, family: &str) -> Self {
        IndexStore {
            client: client.clone(),
            table: table.into(),
            family: family.into(),
        }
    }

    /// The client underneath.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The table's name.
    pub fn table(&self) -> &str {
        &self.table
    }

    /// A row's value: its cell in the store's family (an index row's, or
    /// a record's of one value), or when it has none, the frame of all
    /// its cells (a record of [`Record::CELLS`](rowkey_core::index::Record::CELLS)).
    fn value(&self, mut cells: Vec<Cell>) -> Vec<u8> {
        match cells
            .iter()
            .position(|(f, q, _)| *f == self.family && q == QUALIFIER)
        {
            Some(i) => cells.swap_remove(i).2,
            None => encode_cells(&cells),
        }
    }

    fn options(ts: u64) -> WriteOptions {
        WriteOptions {
            timestamp: Some(i64::try_from(ts).unwrap_or(i64::MAX)),
            ..WriteOptions::default()
        }
    }
}

impl StoreTx for &IndexStore {
    type Error = Error;

    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, Error> {
        Ok(self
            .client
            .get_raw(&self.table, key)?
            .map(|cells| self.value(cells)))
    }

    fn get_many(&mut self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, Error> {
        Store::get_many(*self, keys)
    }

    fn put(&mut self, rows: &[(Vec<u8>, Vec<u8>)], ts: u64) -> Result<(), Error> {
        let rows = rows.iter().map(|(k, v)| {
            let cell: Cell = (self.family.clone(), QUALIFIER.to_vec(), v.clone());
            (k.clone(), vec![cell])
        });
        self.client
            .write_raw_rows_with(&self.table, rows, IndexStore::options(ts))
    }

    /// The records' cells as the rows' columns at `ts`, then every older
    /// version of the rows removed (a row delete at `ts - 1`), so a column
    /// the previous record had and this one has not is gone. A crash
    /// between the two leaves such a column until the row's next put (a
    /// reader of the row with its own client sees it; the record's
    /// `from_cells` is handed it).
    fn put_cells(&mut self, rows: &[(Vec<u8>, Vec<Cell>)], ts: u64) -> Result<(), Error> {
        for (key, cells) in rows {
            if cells.is_empty() {
                return Err(Error::Config(format!(
                    "the record under {} has no cells: HBase keeps no row without one",
                    rowkey_core::hbase::to_string_binary(key)
                )));
            }
            if cells
                .iter()
                .any(|(f, q, _)| *f == self.family && q == QUALIFIER)
            {
                return Err(Error::Config(format!(
                    "a record's cell {}:v: the index store keeps its one-value rows there; \
                     name the record's cells otherwise",
                    self.family
                )));
            }
        }
        self.client.write_raw_rows_with(
            &self.table,
            rows.iter().cloned(),
            IndexStore::options(ts),
        )?;
        let Some(before) = ts.checked_sub(1) else {
            return Ok(());
        };
        self.client.delete_raw_rows_with(
            &self.table,
            rows.iter().map(|(k, _)| k.clone()),
            IndexStore::options(before),
        )
    }

    fn delete(&mut self, keys: &[Vec<u8>], ts: u64) -> Result<(), Error> {
        self.client
            .delete_raw_rows_with(&self.table, keys.iter().cloned(), IndexStore::options(ts))
    }
}

impl Store for IndexStore {
    type Error = Error;

    fn scan(
        &self,
        from: &[u8],
        stop: &[u8],
        filter: Option<&KeyFilter>,
        limit: usize,
    ) -> Result<Page, Error> {
        let scan = Scan::from_bounds(from, stop);
        let rows = match filter {
            Some(f) => self.client.filter_in(&self.table, f, &scan, Some(limit))?,
            None => self.client.scan(&self.table, &scan, Some(limit))?,
        };
        let mut page = Page::default();
        let mut rows = rows;
        for row in rows.by_ref() {
            let (key, cells) = row?;
            page.rows.push((key, self.value(cells)));
        }
        page.read = rows.rows_read() as u64;
        Ok(page)
    }

    fn get_many(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, Error> {
        Ok(self
            .client
            .get_many_raw(&self.table, keys)?
            .into_iter()
            .map(|row| row.map(|cells| self.value(cells)))
            .collect())
    }

    /// The starts of the table's regions inside `[from, stop)`.
    fn split_hints(&self, from: &[u8], stop: &[u8]) -> Result<Vec<Vec<u8>>, Error> {
        Ok(self
            .client
            .region_locations(&self.table)?
            .into_iter()
            .map(|r| r.start)
            .filter(|s| s.as_slice() > from && (stop.is_empty() || s.as_slice() < stop))
            .collect())
    }

    fn write<R, E: From<Error>>(
        &self,
        steps: impl FnOnce(&mut dyn StoreTx<Error = Error>) -> Result<R, E>,
    ) -> Result<R, E> {
        steps(&mut &*self)
    }
}
