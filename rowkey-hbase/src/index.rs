//! [`IndexStore`]: an [`IndexedTable`](rowkey_core::index::IndexedTable)'s
//! rows in one family of an HBase table (feature `index`).

use rowkey_core::index::{Page, Store, StoreTx};
use rowkey_core::{KeyFilter, Scan};

use crate::client::Client;
use crate::error::Error;
use crate::types::Cell;
use crate::write::WriteOptions;

/// The qualifier of the one cell each row has.
pub(crate) const QUALIFIER: &[u8] = b"v";

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

    /// A row's value: its cell in the store's family.
    fn value(&self, cells: Vec<Cell>) -> Vec<u8> {
        cells
            .into_iter()
            .find(|(f, q, _)| *f == self.family && q == QUALIFIER)
            .map(|c| c.2)
            .unwrap_or_default()
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

    fn write<R, E: From<Error>>(
        &self,
        steps: impl FnOnce(&mut dyn StoreTx<Error = Error>) -> Result<R, E>,
    ) -> Result<R, E> {
        steps(&mut &*self)
    }
}
