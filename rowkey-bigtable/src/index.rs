//! [`IndexStore`]: an [`AsyncIndexedTable`](rowkey_core::index::AsyncIndexedTable)'s
//! rows in one family of a Bigtable table (feature `index`).

use bigtable_rs::bigtable::RowCell;
use bigtable_rs::google::bigtable::v2::{
    mutate_rows_request, mutation, Mutation, ReadRowsRequest, RowSet, TimestampRange,
};
use futures_util::StreamExt;
use rowkey_core::index::{AsyncStore, Page, Stamped};
use rowkey_core::{KeyFilter, Scan};

use crate::stream::{stream_filter_in, stream_scan};
use crate::write::{entry, send_batch, Cell};
use crate::{Client, Error};

/// The qualifier of the one cell each row has.
const QUALIFIER: &[u8] = b"v";

/// An indexed table's data and index rows in `table`, one cell each in
/// `family` (qualifier `v`), for an
/// [`AsyncIndexedTable`](rowkey_core::index::AsyncIndexedTable).
///
/// Bigtable writes one row atomically, never two: each step of a put or a
/// delete is its own `MutateRows` call, its cells stamped with the step's
/// timestamp (milliseconds, written as Bigtable's microseconds), and a
/// delete removes only the cells at or before its timestamp
/// (`DeleteFromColumn` with a time range), so a racing writer's newer
/// entry stays; the entries of a record a put replaces or a delete
/// removes are removed up to that record's own timestamp
/// ([`get_stamped`](AsyncStore::get_stamped)), so a put racing a delete
/// keeps its entries with its data row. A row's value is its newest cell, whatever the family's
/// garbage-collection rule keeps. A query's index rows are read with
/// [`stream_filter_in`]: the row-key regex runs on the server. Not retried
/// beyond what each read's policy does: a failed write is an error, and
/// what it left is what queries drop and `repair` mends.
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

    /// A row's value: its newest cell in the store's family.
    fn value(&self, cells: Vec<RowCell>) -> Vec<u8> {
        self.newest(cells).map(|c| c.value).unwrap_or_default()
    }

    /// A row's newest cell in the store's family.
    fn newest(&self, cells: Vec<RowCell>) -> Option<RowCell> {
        cells
            .into_iter()
            .filter(|c| c.family_name == self.family && c.qualifier == QUALIFIER)
            .max_by_key(|c| c.timestamp_micros)
    }

    /// The rows of `keys` as Bigtable has them, within the client's
    /// deadlines and retries.
    async fn read(&self, keys: &[Vec<u8>]) -> Result<Vec<(Vec<u8>, Vec<RowCell>)>, Error> {
        let request = ReadRowsRequest {
            table_name: self.client.table_name(&self.table),
            rows: Some(RowSet {
                row_keys: keys.to_vec(),
                row_ranges: Vec::new(),
            }),
            ..Default::default()
        };
        // Within the client's deadlines, retried: a stalled read ends.
        crate::stream::read_all(&self.client, request).await
    }

    /// Sends `entries` (each a row's mutations) in one request: an error
    /// when any is not applied.
    async fn mutate(&self, entries: Vec<mutate_rows_request::Entry>) -> Result<(), Error> {
        let positions: Vec<usize> = (0..entries.len()).collect();
        let outcome = send_batch(&self.client, &self.table, entries, &positions).await;
        if let Some(e) = outcome.failed {
            return Err(e);
        }
        if !outcome.rejected.is_empty() {
            return Err(Error::Rejected {
                rejected: outcome.rejected,
            });
        }
        Ok(())
    }
}

/// Bigtable's timestamp (microseconds) of a write at `ts` milliseconds.
fn micros(ts: u64) -> i64 {
    i64::try_from(ts.saturating_mul(1000)).unwrap_or(i64::MAX)
}

impl AsyncStore for IndexStore {
    type Error = Error;

    async fn scan(
        &self,
        from: &[u8],
        stop: &[u8],
        filter: Option<&KeyFilter>,
        limit: usize,
    ) -> Result<Page, Error> {
        let scan = Scan::from_bounds(from, stop);
        let limit = Some(limit as u64);
        let mut rows = match filter {
            Some(f) => stream_filter_in(&self.client, &self.table, f, &scan, limit).await?,
            None => stream_scan(&self.client, &self.table, &scan, limit).await?,
        };
        let mut page = Page::default();
        while let Some(row) = rows.next().await {
            let (key, cells) = row?;
            page.rows.push((key, self.value(cells)));
        }
        page.read = rows.rows_received();
        Ok(page)
    }

    async fn get_many(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, Error> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let rows = self.read(keys).await?;
        // Each row once, though a key be asked for twice (two entries of
        // one record point at one data row).
        let found: std::collections::HashMap<Vec<u8>, Vec<u8>> = rows
            .into_iter()
            .map(|(k, cells)| (k, self.value(cells)))
            .collect();
        Ok(keys.iter().map(|k| found.get(k).cloned()).collect())
    }

    async fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Error> {
        Ok(self.get_many(&[key.to_vec()]).await?.pop().flatten())
    }

    /// The row's newest cell and its timestamp in milliseconds (Bigtable's
    /// microseconds, rounded down: a delete up to it covers the cell).
    async fn get_stamped(&self, key: &[u8]) -> Result<Stamped, Error> {
        Ok(self
            .get_stamped_many(&[key.to_vec()])
            .await?
            .pop()
            .flatten())
    }

    /// As [`get_stamped`](Self::get_stamped), for all `keys` in one read.
    async fn get_stamped_many(&self, keys: &[Vec<u8>]) -> Result<Vec<Stamped>, Error> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let mut found: std::collections::HashMap<Vec<u8>, Vec<RowCell>> =
            self.read(keys).await?.into_iter().collect();
        // As `get`: a row without the store's cell is an empty value.
        Ok(keys
            .iter()
            .map(|k| {
                found.remove(k).map(|cells| match self.newest(cells) {
                    Some(c) => (c.value, u64::try_from(c.timestamp_micros / 1000).ok()),
                    None => (Vec::new(), None),
                })
            })
            .collect())
    }

    async fn put(&self, rows: &[(Vec<u8>, Vec<u8>)], ts: u64) -> Result<(), Error> {
        let entries = rows
            .iter()
            .map(|(k, v)| {
                let cell: Cell = (self.family.clone(), QUALIFIER.to_vec(), v.clone());
                entry(k.clone(), vec![cell], micros(ts))
            })
            .collect();
        self.mutate(entries).await
    }

    async fn delete(&self, keys: &[Vec<u8>], ts: u64) -> Result<(), Error> {
        let entries = keys.iter().map(|k| self.removal(k, ts)).collect();
        self.mutate(entries).await
    }

    /// Every key's removal up to its own timestamp, in one `MutateRows`.
    async fn delete_each(&self, keys: &[(Vec<u8>, u64)]) -> Result<(), Error> {
        let entries = keys.iter().map(|(k, ts)| self.removal(k, *ts)).collect();
        self.mutate(entries).await
    }
}

impl IndexStore {
    /// The mutation removing `key`'s cells written at or before `ts`.
    fn removal(&self, key: &[u8], ts: u64) -> mutate_rows_request::Entry {
        mutate_rows_request::Entry {
            row_key: key.to_vec(),
            mutations: vec![Mutation {
                mutation: Some(mutation::Mutation::DeleteFromColumn(
                    mutation::DeleteFromColumn {
                        family_name: self.family.clone(),
                        column_qualifier: QUALIFIER.to_vec(),
                        // The end is exclusive: every cell up to `ts`.
                        time_range: Some(TimestampRange {
                            start_timestamp_micros: 0,
                            end_timestamp_micros: micros(ts.saturating_add(1)),
                        }),
                    },
                )),
            }],
            ..Default::default()
        }
    }
}
