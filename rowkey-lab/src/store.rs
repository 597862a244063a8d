//! The sorted stores the lab writes to and scans: redb (embedded, the
//! default) and, with the `bigtable` feature, the Cloud Bigtable emulator.
//!
//! Each row is a design's key and the index of its event in the workload
//! (8 bytes, big-endian), so every answer can be checked against the
//! workload itself.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use redb::{Database, Durability, ReadableDatabase, TableDefinition};
use rowkey_core::{merge_salted_by, KeyFilter, Scan};

use crate::BoxError;

/// A sorted store: one table per design.
pub trait Store {
    /// Another handle on the same store for a second thread, which uses
    /// tables of its own; `None` (the default) where the store is not
    /// shared, and the lab then runs its designs one after another.
    fn fork(&self) -> Option<Box<dyn Store + Send>> {
        None
    }

    /// The store's name in reports.
    fn name(&self) -> &'static str;

    /// Creates (or empties) table `table`, pre-split at `splits` where the
    /// store supports it.
    fn create_table(&mut self, table: &str, splits: &[Vec<u8>]) -> Result<(), BoxError>;

    /// Writes rows `(key, event index)`.
    fn write(&mut self, table: &str, rows: &[(&[u8], u64)]) -> Result<(), BoxError>;

    /// Reads `scan`'s rows in key order (salted buckets merged in the order
    /// of the keys after the salt), calling `row` with each key and event
    /// index until it returns `false`.
    fn scan(
        &mut self,
        table: &str,
        scan: &Scan,
        row: &mut dyn FnMut(&[u8], u64) -> bool,
    ) -> Result<(), BoxError>;

    /// Reads the rows whose keys `filter` matches, in key order, calling
    /// `row` with each key and event index until it returns `false`, and
    /// says what that read: a skip scan, which seeks past every run of
    /// keys that cannot match. The default reads every row of the
    /// filter's ranges and keeps those that match: what a store that
    /// cannot seek pays.
    fn skip_scan(
        &mut self,
        table: &str,
        filter: &KeyFilter,
        row: &mut dyn FnMut(&[u8], u64) -> bool,
    ) -> Result<SkipRead, BoxError> {
        let mut rows_read = 0;
        self.scan(table, &filter.scan(), &mut |key, index| {
            rows_read += 1;
            !filter.matches(key) || row(key, index)
        })?;
        Ok(SkipRead {
            rows_read,
            seeks: 0,
        })
    }

    /// Whether [`scan_reverse`](Self::scan_reverse) works; when it does not,
    /// the lab runs a plan that reads backwards as a forward scan of every
    /// row of its ranges (what the query costs on such a store).
    fn reads_reversed(&self) -> bool {
        true
    }

    /// Reads `scan`'s ranges backwards, one after another (each from its
    /// last row to its first, as HBase's reversed scans do), calling `row`
    /// with the range's index, each key and its event index; `row` returns
    /// `false` to end that range.
    fn scan_reverse(
        &mut self,
        table: &str,
        scan: &Scan,
        row: &mut dyn FnMut(usize, &[u8], u64) -> bool,
    ) -> Result<(), BoxError> {
        let _ = (table, scan, row);
        Err(format!("{} has no reversed reads", self.name()).into())
    }

    /// Drops table `table`.
    fn drop_table(&mut self, table: &str) -> Result<(), BoxError>;

    /// The table's regions as the engine itself has them, in key order,
    /// each with the writes it has served so far; `None` (the default)
    /// where the engine does not report them, and the lab's region model
    /// stands alone.
    fn engine_regions(&mut self, table: &str) -> Option<Result<Vec<EngineRegion>, BoxError>> {
        let _ = table;
        None
    }
}

/// What a skip scan ([`Store::skip_scan`]) read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SkipRead {
    /// Rows read from the store, matching or not.
    pub rows_read: usize,
    /// Seeks: reads started again further on.
    pub seeks: usize,
}

/// One region as the engine reports it ([`Store::engine_regions`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineRegion {
    /// Its first key (empty for the first region).
    pub start: Vec<u8>,
    /// Its server.
    pub server: String,
    /// Write requests it has served since it opened.
    pub writes: u64,
}

/// redb's page cache per database (one per lane), in bytes: a design's
/// table of 500,000 rows takes 20 to 40 MB, and redb's default (1 GiB,
/// filled as the table grows) held most of it in each lane at once
/// (BENCHMARKS.md, "The lab's own cost").
const CACHE_BYTES: usize = 32 << 20;

/// redb, in one database file in a directory of the caller's; the file is
/// removed when the store is dropped. A fork is a second database file
/// beside it: redb runs one write transaction at a time per database, so
/// designs that ingest side by side each need their own.
pub struct RedbStore {
    db: Option<Database>,
    dir: PathBuf,
    path: PathBuf,
    /// Forks made so far, which name their files.
    forks: AtomicUsize,
}

impl RedbStore {
    /// Creates the database `rowkey-lab-PID.redb` in `dir`.
    pub fn create(dir: &Path) -> Result<Self, BoxError> {
        Self::create_named(dir, format!("rowkey-lab-{}.redb", std::process::id()))
    }

    fn create_named(dir: &Path, name: String) -> Result<Self, BoxError> {
        let path = dir.join(name);
        let _ = std::fs::remove_file(&path);
        let db = Database::builder()
            .set_cache_size(CACHE_BYTES)
            .create(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(RedbStore {
            db: Some(db),
            dir: dir.to_owned(),
            path,
            forks: AtomicUsize::new(0),
        })
    }

    fn db(&self) -> &Database {
        self.db.as_ref().expect("open until dropped")
    }
}

impl Drop for RedbStore {
    fn drop(&mut self) {
        drop(self.db.take());
        let _ = std::fs::remove_file(&self.path);
    }
}

fn table(name: &str) -> TableDefinition<'_, &'static [u8], u64> {
    TableDefinition::new(name)
}

impl Store for RedbStore {
    fn name(&self) -> &'static str {
        "redb"
    }

    fn fork(&self) -> Option<Box<dyn Store + Send>> {
        let n = self.forks.fetch_add(1, Ordering::Relaxed) + 1;
        let name = format!("rowkey-lab-{}-{n}.redb", std::process::id());
        let fork = RedbStore::create_named(&self.dir, name).ok()?;
        Some(Box::new(fork))
    }

    fn create_table(&mut self, name: &str, _splits: &[Vec<u8>]) -> Result<(), BoxError> {
        let tx = self.db().begin_write()?;
        tx.delete_table(table(name))?;
        tx.open_table(table(name))?;
        tx.commit()?;
        Ok(())
    }

    fn write(&mut self, name: &str, rows: &[(&[u8], u64)]) -> Result<(), BoxError> {
        let mut tx = self.db().begin_write()?;
        tx.set_durability(Durability::None)?;
        {
            let mut t = tx.open_table(table(name))?;
            for (key, value) in rows {
                t.insert(*key, value)?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    fn scan(
        &mut self,
        name: &str,
        scan: &Scan,
        row: &mut dyn FnMut(&[u8], u64) -> bool,
    ) -> Result<(), BoxError> {
        let tx = self.db().begin_read()?;
        let t = tx.open_table(table(name))?;
        if scan.range_count() == 1 {
            // One range: read in place, no merge and no key copies.
            for r in scan.ranges() {
                for entry in t.range::<&[u8]>(r.bounds())? {
                    let (k, v) = entry?;
                    if !row(k.value(), v.value()) {
                        break;
                    }
                }
            }
            return Ok(());
        }
        // redb's rows merged as they come: keys read in place, no copies.
        let streams = scan
            .ranges()
            .map(|r| t.range::<&[u8]>(r.bounds()))
            .collect::<Result<Vec<_>, _>>()?;
        let merged = merge_salted_by(
            scan.head_len(),
            |entry| entry.as_ref().ok().map(|(k, _)| k.value()),
            streams,
        );
        for item in merged {
            let (k, v) = item?;
            if !row(k.value(), v.value()) {
                break;
            }
        }
        Ok(())
    }

    fn skip_scan(
        &mut self,
        name: &str,
        filter: &KeyFilter,
        row: &mut dyn FnMut(&[u8], u64) -> bool,
    ) -> Result<SkipRead, BoxError> {
        let tx = self.db().begin_read()?;
        let t = tx.open_table(table(name))?;
        let mut rows = rowkey_core::redb::filter_raw(&t, filter)?;
        for item in rows.by_ref() {
            let (key, value) = item?;
            if !row(key.as_ref(), value.value()) {
                break;
            }
        }
        let cost = rows.cost();
        Ok(SkipRead {
            rows_read: cost.rows_read() as usize,
            seeks: cost.seeks() as usize,
        })
    }

    fn scan_reverse(
        &mut self,
        name: &str,
        scan: &Scan,
        row: &mut dyn FnMut(usize, &[u8], u64) -> bool,
    ) -> Result<(), BoxError> {
        let tx = self.db().begin_read()?;
        let t = tx.open_table(table(name))?;
        for (i, r) in scan.ranges().enumerate() {
            for entry in t.range::<&[u8]>(r.bounds())?.rev() {
                let (k, v) = entry?;
                if !row(i, k.value(), v.value()) {
                    break;
                }
            }
        }
        Ok(())
    }

    fn drop_table(&mut self, name: &str) -> Result<(), BoxError> {
        let tx = self.db().begin_write()?;
        tx.delete_table(table(name))?;
        tx.commit()?;
        Ok(())
    }
}
