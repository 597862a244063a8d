//! The stores a table reads and writes: each runs a [`KeyFilter`]'s skip
//! scan (the one its typed API runs) and hands its rows to the caller one
//! at a time, and writes rows all at once.

use std::fmt;
use std::ops::ControlFlow;

use rowkey_core::scan::KeyFilter;

/// What a stored row holds besides its key.
pub(crate) trait Stored {
    /// The whole value (redb, fjall).
    fn whole(&self) -> Option<&[u8]>;
    /// One cell's value, its newest (HBase, Bigtable).
    fn cell(&self, family: &[u8], qualifier: &[u8]) -> Option<&[u8]>;
    /// The bytes of value the store sent for the row (EXPLAIN ANALYZE's
    /// `value_bytes`).
    fn value_bytes(&self) -> usize;
}

/// A row's whole value (redb, fjall).
#[cfg(any(feature = "redb", feature = "fjall"))]
pub(crate) struct Whole<'a>(pub(crate) &'a [u8]);

#[cfg(any(feature = "redb", feature = "fjall"))]
impl Stored for Whole<'_> {
    fn whole(&self) -> Option<&[u8]> {
        Some(self.0)
    }

    fn cell(&self, _: &[u8], _: &[u8]) -> Option<&[u8]> {
        None
    }

    fn value_bytes(&self) -> usize {
        self.0.len()
    }
}

/// A start key (inclusive) and a stop key (exclusive; empty: to the end).
pub(crate) type Bounds = (Vec<u8>, Vec<u8>);

/// A row as the store holds it: its key and what else it holds.
pub(crate) type Visit<'a> = dyn FnMut(&[u8], &dyn Stored) -> ControlFlow<()> + 'a;

/// A row to write: its key and its value, whole or as cells
/// `(family, qualifier, value)`.
#[derive(Debug)]
pub(crate) struct Written {
    pub(crate) key: Vec<u8>,
    pub(crate) whole: Vec<u8>,
    pub(crate) cells: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
}

/// Rows of cells whose families are named by text, as HBase's and
/// Bigtable's clients take them.
#[cfg(any(feature = "hbase", feature = "bigtable"))]
pub(crate) type NamedRow = (Vec<u8>, Vec<(String, Vec<u8>, Vec<u8>)>);

#[cfg(any(feature = "hbase", feature = "bigtable"))]
fn named_cells(rows: Vec<Written>) -> Result<Vec<NamedRow>, String> {
    rows.into_iter()
        .map(|row| {
            let cells = row
                .cells
                .into_iter()
                .map(|(f, q, v)| {
                    let family = String::from_utf8(f)
                        .map_err(|_| "a column family's name is UTF-8 text".to_owned())?;
                    Ok((family, q, v))
                })
                .collect::<Result<Vec<_>, String>>()?;
            Ok((row.key, cells))
        })
        .collect()
}

/// How a [`Source::scan`] reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct How<'a> {
    /// Only the rows within these bounds, which only a store with
    /// [`regions`](Source::regions) is given.
    pub(crate) within: Option<&'a Bounds>,
    /// Whether the values are read: without them, a store of cells sends
    /// each cell with an empty value (HBase's `KeyOnlyFilter`, Bigtable's
    /// `strip_value_transformer`); redb and fjall read a row's value with
    /// its key and pass it on anyway.
    pub(crate) values: bool,
    /// At most this many rows are visited (a `LIMIT`), which a store that
    /// sends rows ahead of the visits takes as its own limit.
    pub(crate) limit: Option<usize>,
}

/// A sorted store of key bytes.
pub(crate) trait Source: fmt::Debug + Send + Sync {
    /// `redb`, `fjall`, `hbase`, `bigtable`: for EXPLAIN.
    fn name(&self) -> &'static str;

    /// Whether its rows are cells (HBase, Bigtable) rather than one value.
    fn cells(&self) -> bool;

    /// The first keys of the store's parts that can be read apart (HBase's
    /// regions but the first; on Bigtable, at most `parts - 1` of the keys
    /// it samples, spread over them), in key order; none for one part.
    fn regions(&self, parts: usize) -> Result<Vec<Vec<u8>>, String> {
        let _ = parts;
        Ok(Vec::new())
    }

    /// The rows `filter` matches, read as `how` says, in key order, until
    /// `visit` breaks; the rows read from the store (matches and those
    /// stepped over).
    fn scan(&self, filter: &KeyFilter, how: How<'_>, visit: &mut Visit<'_>) -> Result<u64, String>;

    /// Writes `rows`: all of them or (on redb and fjall) none.
    fn write(&self, rows: Vec<Written>) -> Result<(), String>;
}

#[cfg(feature = "redb")]
pub(crate) use self::redb_source::Redb;

#[cfg(feature = "redb")]
mod redb_source {
    use std::sync::Arc;

    use redb::{ReadableDatabase, TableDefinition};
    use rowkey_core::scan::KeyFilter;

    use super::{How, Source, Visit, Whole, Written};

    /// A redb table of `&[u8]` keys and `&[u8]` values.
    pub(crate) struct Redb {
        pub(crate) db: Arc<redb::Database>,
        pub(crate) table: String,
    }

    impl std::fmt::Debug for Redb {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "redb table `{}`", self.table)
        }
    }

    impl Redb {
        fn def(&self) -> TableDefinition<'_, &'static [u8], &'static [u8]> {
            TableDefinition::new(&self.table)
        }

        fn error(&self, e: impl std::fmt::Display) -> String {
            format!("redb table `{}`: {e}", self.table)
        }
    }

    impl Source for Redb {
        fn name(&self) -> &'static str {
            "redb"
        }

        fn cells(&self) -> bool {
            false
        }

        fn scan(
            &self,
            filter: &KeyFilter,
            _how: How<'_>,
            visit: &mut Visit<'_>,
        ) -> Result<u64, String> {
            let tx = self.db.begin_read().map_err(|e| self.error(e))?;
            let table = match tx.open_table(self.def()) {
                Ok(t) => t,
                // A table never written to holds no rows.
                Err(redb::TableError::TableDoesNotExist(_)) => return Ok(0),
                Err(e) => return Err(self.error(e)),
            };
            let rows = rowkey_core::redb::filter_raw(&table, filter).map_err(|e| self.error(e))?;
            let cost = rows.cost().clone();
            for row in rows {
                let (key, value) = row.map_err(|e| self.error(e))?;
                if visit(key.as_ref(), &Whole(value.value())).is_break() {
                    break;
                }
            }
            Ok(cost.rows_read())
        }

        fn write(&self, rows: Vec<Written>) -> Result<(), String> {
            // One transaction: every row, or none.
            let tx = self.db.begin_write().map_err(|e| self.error(e))?;
            {
                let mut table = tx.open_table(self.def()).map_err(|e| self.error(e))?;
                for row in &rows {
                    table
                        .insert(row.key.as_slice(), row.whole.as_slice())
                        .map_err(|e| self.error(e))?;
                }
            }
            tx.commit().map_err(|e| self.error(e))
        }
    }
}

#[cfg(feature = "fjall")]
pub(crate) use self::fjall_source::Fjall;

#[cfg(feature = "fjall")]
mod fjall_source {
    use rowkey_core::scan::KeyFilter;

    use super::{How, Source, Visit, Whole, Written};

    /// A fjall keyspace of key bytes, in its database (whose batches
    /// write all of their rows or none).
    pub(crate) struct Fjall {
        pub(crate) db: fjall::Database,
        pub(crate) keyspace: fjall::Keyspace,
    }

    impl std::fmt::Debug for Fjall {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("fjall keyspace")
        }
    }

    impl Source for Fjall {
        fn name(&self) -> &'static str {
            "fjall"
        }

        fn cells(&self) -> bool {
            false
        }

        fn scan(
            &self,
            filter: &KeyFilter,
            _how: How<'_>,
            visit: &mut Visit<'_>,
        ) -> Result<u64, String> {
            let rows = rowkey_core::fjall::filter_raw(&self.keyspace, filter);
            let cost = rows.cost().clone();
            for row in rows {
                let (key, value) = row.map_err(|e| format!("fjall keyspace: {e}"))?;
                if visit(key.as_ref(), &Whole(&value)).is_break() {
                    break;
                }
            }
            Ok(cost.rows_read())
        }

        fn write(&self, rows: Vec<Written>) -> Result<(), String> {
            let mut batch = self.db.batch();
            for row in rows {
                batch.insert(&self.keyspace, row.key, row.whole);
            }
            batch.commit().map_err(|e| format!("fjall keyspace: {e}"))
        }
    }
}

#[cfg(feature = "hbase")]
pub(crate) use self::hbase_source::HBase;

#[cfg(feature = "hbase")]
mod hbase_source {
    use rowkey_core::scan::KeyFilter;

    use super::{How, Source, Stored, Visit, Written};

    /// An HBase table, through either of rowkey's clients.
    pub(crate) struct HBase {
        pub(crate) client: rowkey_hbase::Client,
        pub(crate) table: String,
    }

    impl std::fmt::Debug for HBase {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "HBase table `{}`", self.table)
        }
    }

    struct Cells<'a>(&'a [rowkey_hbase::Cell]);

    impl Stored for Cells<'_> {
        fn whole(&self) -> Option<&[u8]> {
            None
        }

        fn cell(&self, family: &[u8], qualifier: &[u8]) -> Option<&[u8]> {
            self.0
                .iter()
                .find(|(f, q, _)| f.as_bytes() == family && q == qualifier)
                .map(|(_, _, v)| v.as_slice())
        }

        fn value_bytes(&self) -> usize {
            self.0.iter().map(|(_, _, v)| v.len()).sum()
        }
    }

    impl Source for HBase {
        fn name(&self) -> &'static str {
            "hbase"
        }

        fn cells(&self) -> bool {
            true
        }

        /// Every region: they are the parts HBase reads apart, whatever
        /// `parts` (the scan deals them out in runs).
        fn regions(&self, _parts: usize) -> Result<Vec<Vec<u8>>, String> {
            let regions = self
                .client
                .region_locations(&self.table)
                .map_err(|e| rowkey_core::error_chain(&e))?;
            let mut starts: Vec<Vec<u8>> = regions
                .into_iter()
                .map(|r| r.start)
                .filter(|s| !s.is_empty())
                .collect();
            starts.sort();
            Ok(starts)
        }

        fn scan(
            &self,
            filter: &KeyFilter,
            how: How<'_>,
            visit: &mut Visit<'_>,
        ) -> Result<u64, String> {
            let part = match how.within {
                Some((start, stop)) => rowkey_core::Scan::from_bounds(start, stop),
                None => filter.scan(),
            };
            let rows = if how.values {
                self.client.filter_in(&self.table, filter, &part, how.limit)
            } else {
                self.client
                    .filter_keys_in(&self.table, filter, &part, how.limit)
            };
            let mut rows = rows.map_err(|e| rowkey_core::error_chain(&e))?;
            for row in rows.by_ref() {
                let (key, cells) = row.map_err(|e| rowkey_core::error_chain(&e))?;
                if visit(&key, &Cells(&cells)).is_break() {
                    break;
                }
            }
            Ok(rows.rows_read() as u64)
        }

        fn write(&self, rows: Vec<Written>) -> Result<(), String> {
            let out = super::named_cells(rows)?;
            self.client
                .write_raw_rows(&self.table, out)
                .map_err(|e| rowkey_core::error_chain(&e))
        }
    }
}

#[cfg(feature = "bigtable")]
pub(crate) use self::bigtable_source::Bigtable;

#[cfg(feature = "bigtable")]
mod bigtable_source {
    use futures::StreamExt;
    use rowkey_bigtable::bigtable_rs::bigtable::RowCell;
    use rowkey_core::scan::KeyFilter;

    use super::{How, Source, Stored, Visit, Written};

    /// A Bigtable table. Its client is async: a scan runs on the thread
    /// DataFusion gave it, driving the client on the runtime it runs in.
    pub(crate) struct Bigtable {
        pub(crate) client: rowkey_bigtable::Client,
        pub(crate) table: String,
    }

    impl std::fmt::Debug for Bigtable {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "Bigtable table `{}`", self.table)
        }
    }

    struct Cells<'a>(&'a [RowCell]);

    impl Stored for Cells<'_> {
        fn whole(&self) -> Option<&[u8]> {
            None
        }

        /// The newest version: Bigtable sends a column's versions newest
        /// first.
        fn cell(&self, family: &[u8], qualifier: &[u8]) -> Option<&[u8]> {
            self.0
                .iter()
                .find(|c| c.family_name.as_bytes() == family && c.qualifier == qualifier)
                .map(|c| c.value.as_slice())
        }

        fn value_bytes(&self) -> usize {
            self.0.iter().map(|c| c.value.len()).sum()
        }
    }

    fn runtime() -> Result<tokio::runtime::Handle, String> {
        tokio::runtime::Handle::try_current()
            .map_err(|_| "a Bigtable table is read inside a tokio runtime".to_owned())
    }

    impl Source for Bigtable {
        fn name(&self) -> &'static str {
            "bigtable"
        }

        fn cells(&self) -> bool {
            true
        }

        /// A sample key ends a part (a tablet on Bigtable), so the key
        /// after it starts the next; at most `parts - 1` of them, evenly
        /// spread over the samples.
        fn regions(&self, parts: usize) -> Result<Vec<Vec<u8>>, String> {
            let samples = runtime()?.block_on(async {
                rowkey_bigtable::sample_row_keys(&self.client, &self.table)
                    .await
                    .map_err(|e| rowkey_core::error_chain(&e))
            })?;
            let n = samples.len();
            let cuts = parts.saturating_sub(1).min(n);
            let mut starts: Vec<Vec<u8>> = (1..=cuts)
                .map(|i| {
                    let mut start = samples[i * n / (cuts + 1)].0.clone();
                    start.push(0);
                    start
                })
                .collect();
            starts.dedup();
            Ok(starts)
        }

        /// The stream runs as a task on the runtime, handing rows over a
        /// channel to this thread, which visits them: a visit may block
        /// (DataFusion's own channel), which a runtime's thread must not.
        fn scan(
            &self,
            filter: &KeyFilter,
            how: How<'_>,
            visit: &mut Visit<'_>,
        ) -> Result<u64, String> {
            let error = |e: rowkey_bigtable::Error| rowkey_core::error_chain(&e);
            let runtime = runtime()?;
            let (tx, mut rx) = tokio::sync::mpsc::channel(64);
            let (client, table, filter) = (self.client.clone(), self.table.clone(), filter.clone());
            let scan = match how.within {
                Some((start, stop)) => rowkey_core::Scan::from_bounds(start, stop),
                None => filter.scan(),
            };
            let (values, limit) = (how.values, how.limit.map(|n| n as u64));
            let task = runtime.spawn(async move {
                let rows = if values {
                    rowkey_bigtable::stream_filter_in(&client, &table, &filter, &scan, limit).await
                } else {
                    rowkey_bigtable::stream_filter_keys_in(&client, &table, &filter, &scan, limit)
                        .await
                };
                let mut rows = rows.map_err(error)?;
                while let Some(row) = rows.next().await {
                    let failed = row.is_err();
                    if tx.send(row.map_err(error)).await.is_err() || failed {
                        break;
                    }
                }
                Ok::<u64, String>(rows.rows_received())
            });
            while let Some(row) = rx.blocking_recv() {
                let (key, cells) = row?;
                if visit(&key, &Cells(&cells)).is_break() {
                    break;
                }
            }
            drop(rx);
            runtime
                .block_on(task)
                .map_err(|e| format!("Bigtable table `{}`: the scan stopped: {e}", self.table))?
        }

        fn write(&self, rows: Vec<Written>) -> Result<(), String> {
            let out = super::named_cells(rows)?;
            runtime()?.block_on(async {
                rowkey_bigtable::write_raw_rows(&self.client, &self.table, out)
                    .await
                    .map_err(|e| rowkey_core::error_chain(&e))
            })
        }
    }
}
