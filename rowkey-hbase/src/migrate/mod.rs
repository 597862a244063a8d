//! Moving an HBase table to another key layout (feature `migrate`): the
//! copy, its verification and the table a service writes through
//! meanwhile; see [`rowkey_core::migrate`] for the [`Migration`] and the
//! rules every engine follows.
//!
//! [`migrate()`] reads the old table region by region, several regions at
//! once ([`MigrateOptions::workers`]), each row's cells with their
//! timestamps, and writes each row under its new key into the new table,
//! created pre-split at the new layout's split points when it is missing.
//! The rows go in as HFiles through [`BulkLoad`] and
//! [`Client::bulk_load`] ([`MigrateOptions::bulk_load`], a native client;
//! the sort within the load's memory budget) or as puts
//! ([`MigrateOptions::puts`], either client; for small tables). Cells
//! keep their families, qualifiers and timestamps, so a newer write of a
//! row through [`MigratingTable`] (a later timestamp) stays the one HBase
//! returns whatever the copy writes after it, and a delete masks the
//! older cells the copy brings.
//!
//! A checkpoint in the table `{to_table}.rowkey-migrate` records the
//! parts (the old table's regions when the first run began), which are
//! done and, with puts, the last row copied of a part under way: a
//! migration killed at any point resumes where it was when run again
//! (with a bulk load, from the parts of each worker's last load). Rows
//! written again after a crash are the same cells (same timestamps), so
//! nothing is doubled.
//!
//! A delete through [`MigratingTable`] masks the older cells of its row
//! that the copy writes after it, as HBase masks by timestamp; the new
//! table keeps its delete markers through major compactions for
//! [`KEEP_DELETES`], so that a compaction between the delete and the
//! copy's write cannot let those cells back.
//!
//! Times come from two clocks: the region servers stamped the old
//! table's cells, and [`MigratingTable`] stamps its writes with the
//! client's clock. A writer whose clock runs behind the region servers'
//! could write a cell older than the one it replaces; keep the clocks in
//! step (as HBase's own client timestamps need).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rowkey_core::clock::Clock;
use rowkey_core::migrate::{
    EachRow, Mark, MigrateError, MigrateReport, Migration, Phase, Progress, Route, Verifier,
    VerifyReport,
};
use rowkey_core::Scan;

use crate::bulk::BulkLoad;
use crate::{
    Cell, Client, Error, ReadOptions, TableOptions, VersionedCell, VersionedRow, WriteOptions,
};

/// How [`migrate()`] writes the new table.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum MigrateWrite {
    /// HFiles under this directory (local, or `hdfs://` with the `hdfs`
    /// feature), loaded by [`Client::bulk_load`]: each worker sorts the
    /// rows of the parts it reads into one load, loaded (and its parts
    /// checkpointed) at the end of a part once it holds 2,000,000 rows,
    /// and at the end. Needs a native client.
    BulkLoad(PathBuf),
    /// Puts of pages of rows ([`Client::write_versioned_rows`]).
    Puts,
}

/// How [`migrate()`] copies: the write, the parallelism, the pages.
#[derive(Clone, Debug)]
pub struct MigrateOptions {
    write: MigrateWrite,
    workers: usize,
    page_rows: usize,
    memory: usize,
    progress: Option<Arc<Progress>>,
}

impl MigrateOptions {
    /// Rows written as HFiles under `dir` and bulk-loaded: the fast way
    /// for a large table (a native client).
    pub fn bulk_load(dir: impl Into<PathBuf>) -> MigrateOptions {
        MigrateOptions {
            write: MigrateWrite::BulkLoad(dir.into()),
            workers: 4,
            page_rows: 5_000,
            memory: 256 << 20,
            progress: None,
        }
    }

    /// Rows written as puts: for a small table, or a gateway client.
    pub fn puts() -> MigrateOptions {
        MigrateOptions {
            write: MigrateWrite::Puts,
            ..MigrateOptions::bulk_load("")
        }
    }

    /// Regions copied at once (4 by default; at least 1).
    #[must_use]
    pub fn workers(mut self, n: usize) -> MigrateOptions {
        self.workers = n.max(1);
        self
    }

    /// With puts, the rows of a page: written together, then
    /// checkpointed (5,000 by default; at least 1).
    #[must_use]
    pub fn page_rows(mut self, n: usize) -> MigrateOptions {
        self.page_rows = n.max(1);
        self
    }

    /// With a bulk load, the sort budget of all workers together (each
    /// load gets its share; 256 MiB by default): the copy's memory.
    #[must_use]
    pub fn memory(mut self, bytes: usize) -> MigrateOptions {
        self.memory = bytes;
        self
    }

    /// Counts the copy as it goes into `progress`, for a watcher (a
    /// progress bar) to read.
    #[must_use]
    pub fn progress(mut self, progress: Arc<Progress>) -> MigrateOptions {
        self.progress = Some(progress);
        self
    }

    /// The write this copy uses.
    pub fn write(&self) -> &MigrateWrite {
        &self.write
    }
}

/// The table of a migration's checkpoint: `{to_table}.rowkey-migrate`.
pub fn checkpoint_table(to_table: &str) -> String {
    format!("{to_table}.rowkey-migrate")
}

/// The checkpoint's one family.
const MARKS: &str = "m";

/// Copies the rows of `from_table` into `to_table`, each re-keyed by
/// `migration`, as `options` says; see the [module documentation](self).
pub fn migrate(
    client: &Client,
    from_table: &str,
    to_table: &str,
    migration: &Migration,
    options: &MigrateOptions,
) -> Result<MigrateReport, MigrateError> {
    migration.check()?;
    let started = Instant::now();
    if matches!(options.write, MigrateWrite::BulkLoad(_)) && !client.is_native() {
        return Err(MigrateError::store(
            "bulk load",
            to_table,
            "a bulk load needs a native client (Client::native); use MigrateOptions::puts with a gateway",
        ));
    }
    let old_regions = client
        .region_locations(from_table)
        .map_err(store("open", from_table))?;
    create_target(client, from_table, to_table, migration)?;
    let marks = Marks::open(client, to_table)?;
    let parts = marks.parts(migration, &old_regions)?;
    let report = options.progress.clone().unwrap_or_default();
    report.set_parts(parts.len() as u64);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let first_error = Mutex::new(None);
    let new_regions = match options.write {
        MigrateWrite::BulkLoad(_) => client
            .region_locations(to_table)
            .map_err(store("open", to_table))?,
        MigrateWrite::Puts => Vec::new(),
    };
    let copy = Copy {
        client,
        from: from_table,
        to: to_table,
        migration,
        options,
        marks: &marks,
        report: &report,
        new_regions: &new_regions,
    };
    std::thread::scope(|s| {
        for _ in 0..options.workers.min(parts.len()) {
            s.spawn(|| {
                let fail = |e| {
                    stop.store(true, Ordering::Release);
                    first_error
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .get_or_insert(e);
                };
                let mut pending = None;
                while !stop.load(Ordering::Acquire) {
                    let i = next.fetch_add(1, Ordering::AcqRel);
                    let Some(part) = parts.get(i) else { break };
                    if let Err(e) = copy.part(i, part, &mut pending) {
                        return fail(e);
                    }
                    if pending.as_ref().is_some_and(|p| p.rows >= LOAD_ROWS) {
                        if let Err(e) = pending.take().map_or(Ok(()), |p| copy.commit(p)) {
                            return fail(e);
                        }
                    }
                }
                if stop.load(Ordering::Acquire) {
                    return;
                }
                if let Err(e) = pending.map_or(Ok(()), |p| copy.commit(p)) {
                    fail(e);
                }
            });
        }
    });
    if let Some(e) = first_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let mut out = report.report();
    out.elapsed = started.elapsed();
    Ok(out)
}

/// How long the new table keeps a delete marker through major
/// compactions ([`TableOptions::keep_deletes`]): a week. A row deleted
/// through [`MigratingTable`] while the copy holds its old cells stays
/// deleted when the copy writes them after a compaction, as long as the
/// copy writes them within this time of the delete.
pub const KEEP_DELETES: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);

/// Creates `to_table`, when it is missing, with `from_table`'s families
/// and their settings ([`Client::create_table_like`]), pre-split at the new layout's split points (one region per salt
/// bucket), its delete markers kept for [`KEEP_DELETES`]. [`migrate()`] and [`MigratingTable::new`] call it: the new
/// table exists before the first write of either.
pub fn create_target(
    client: &Client,
    from_table: &str,
    to_table: &str,
    migration: &Migration,
) -> Result<(), MigrateError> {
    if client
        .table_exists(to_table)
        .map_err(store("open", to_table))?
    {
        return Ok(());
    }
    let options = TableOptions {
        keep_deletes: Some(KEEP_DELETES),
        ..TableOptions::default()
    };
    let splits = migration.to().split_points();
    match client.create_table_like(to_table, from_table, &splits, options) {
        // Created meanwhile by another caller.
        Err(_) if client.table_exists(to_table).unwrap_or(false) => Ok(()),
        other => other.map_err(store("create", to_table)),
    }
}

/// A store error of `op` on `table`.
fn store<'a>(op: &'static str, table: &'a str) -> impl Fn(Error) -> MigrateError + 'a {
    move |e| MigrateError::store(op, table, e)
}

/// The key and cells' bytes of a row.
fn row_bytes(key: &[u8], cells: &[VersionedCell]) -> u64 {
    let cells: usize = cells
        .iter()
        .map(|c| c.family.len() + c.qualifier.len() + c.value.len() + 8)
        .sum();
    (key.len() + cells) as u64
}

/// The checkpoint table.
struct Marks<'a> {
    client: &'a Client,
    table: String,
}

/// A part of the old key space: `[start, end)`, `end` empty for the last.
type Part = (Vec<u8>, Vec<u8>);

impl<'a> Marks<'a> {
    fn open(client: &'a Client, to_table: &str) -> Result<Marks<'a>, MigrateError> {
        let table = checkpoint_table(to_table);
        if !client.table_exists(&table).map_err(store("open", &table))? {
            client
                .create_table(&table, &[MARKS], &[])
                .map_err(store("create", &table))?;
        }
        Ok(Marks { client, table })
    }

    fn get(&self, name: &str) -> Result<Option<Vec<u8>>, MigrateError> {
        let row = self
            .client
            .get_raw(&self.table, name.as_bytes())
            .map_err(store("read", &self.table))?;
        Ok(row.and_then(|cells| cells.into_iter().next().map(|(_, _, v)| v)))
    }

    fn set(&self, name: &str, value: Vec<u8>) -> Result<(), MigrateError> {
        let cell: Cell = (MARKS.into(), b"v".to_vec(), value);
        self.client
            .write_raw_rows(&self.table, [(name.as_bytes().to_vec(), vec![cell])])
            .map_err(store("write", &self.table))
    }

    /// The parts of this migration: the old table's regions as the first
    /// run found them, recorded then; refused when the checkpoint is
    /// another migration's.
    fn parts(
        &self,
        migration: &Migration,
        regions: &[crate::RegionLocation],
    ) -> Result<Vec<Part>, MigrateError> {
        let [from, to] = [migration.from().layout().id(), migration.to().layout().id()];
        let mut id = from.to_be_bytes().to_vec();
        id.extend_from_slice(&to.to_be_bytes());
        match self.get("migration")? {
            Some(found) if found == id => {}
            Some(_) => {
                return Err(MigrateError::Checkpoint {
                    table: self.table.clone(),
                    problem: "it belongs to a migration between other layouts; drop it, or copy into another table".into(),
                })
            }
            None => {
                // Each region's part of the old layout's rows (its
                // prefix): a table's other rows are not copied.
                let mut bounds = Vec::new();
                for (start, end) in clip(regions, migration.from().layout().prefix()) {
                    put_bytes(&mut bounds, &start);
                    put_bytes(&mut bounds, &end);
                }
                self.set("parts", bounds)?;
                self.set("migration", id)?;
            }
        }
        let bounds = self.get("parts")?.unwrap_or_default();
        let mut parts = Vec::new();
        let mut at = &bounds[..];
        while !at.is_empty() {
            let (start, end);
            (start, at) = take_bytes(at).ok_or_else(|| self.corrupt("parts"))?;
            (end, at) = take_bytes(at).ok_or_else(|| self.corrupt("parts"))?;
            parts.push((start.to_vec(), end.to_vec()));
        }
        if parts.is_empty() {
            return Err(self.corrupt("parts"));
        }
        Ok(parts)
    }

    fn corrupt(&self, what: &str) -> MigrateError {
        MigrateError::Checkpoint {
            table: self.table.clone(),
            problem: format!("its `{what}` row is not one a migration writes"),
        }
    }
}

/// Each region's part of the keys under `prefix`, `[start, end)` (`end`
/// empty: to the end of the table); regions outside it left out.
fn clip(regions: &[crate::RegionLocation], prefix: &[u8]) -> Vec<Part> {
    let stop = rowkey_core::scan::prefix_stop(prefix).unwrap_or_default();
    let mut parts = Vec::new();
    for r in regions {
        let start = r.start.as_slice().max(prefix);
        let end = match (r.end.is_empty(), stop.is_empty()) {
            (true, _) => stop.as_slice(),
            (false, true) => r.end.as_slice(),
            (false, false) => r.end.as_slice().min(stop.as_slice()),
        };
        if end.is_empty() || start < end {
            parts.push((start.to_vec(), end.to_vec()));
        }
    }
    parts
}

/// `bytes` length-prefixed (u32, big-endian).
fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    out.extend_from_slice(bytes);
}

/// The length-prefixed bytes at the start of `at`, and the rest.
fn take_bytes(at: &[u8]) -> Option<(&[u8], &[u8])> {
    let (len, rest) = at.split_first_chunk::<4>()?;
    let len = u32::from_be_bytes(*len) as usize;
    (rest.len() >= len).then(|| rest.split_at(len))
}

/// What every worker shares.
struct Copy<'a> {
    client: &'a Client,
    from: &'a str,
    to: &'a str,
    migration: &'a Migration,
    options: &'a MigrateOptions,
    marks: &'a Marks<'a>,
    report: &'a Progress,
    new_regions: &'a [crate::RegionLocation],
}

/// A worker's bulk load under way: its rows of the parts it read, which
/// are marked done once the load is in the table.
struct Pending {
    load: BulkLoad,
    dir: PathBuf,
    parts: Vec<usize>,
    rows: u64,
}

/// The rows after which a worker loads its HFiles and checkpoints its
/// parts (at the end of a part), rather than at the end of the copy: what
/// a copy killed in bulk-load mode reads again at most, per worker.
const LOAD_ROWS: u64 = 2_000_000;

impl Copy<'_> {
    /// Copies part `i` from where its checkpoint says: with puts, page by
    /// page; with a bulk load, into the worker's `pending` load (created
    /// on its first part), committed by [`commit`](Self::commit).
    fn part(
        &self,
        i: usize,
        (start, end): &Part,
        pending: &mut Option<Pending>,
    ) -> Result<(), MigrateError> {
        let name = format!("part/{i}");
        let mut from = match self.marks.get(&name)?.as_deref().map(Mark::parse) {
            Some(Some(Mark::Done)) => {
                self.report.part_skipped();
                return Ok(());
            }
            Some(Some(Mark::After(last))) => {
                self.report.part_resumed();
                Mark::next_key(last)
            }
            None => start.clone(),
            Some(None) => return Err(self.marks.corrupt(&name)),
        };
        let scan = Scan::from_bounds(&from, end);
        let rows = self
            .client
            .scan_versions(self.from, &scan, None, &ReadOptions::new())
            .map_err(store("read", self.from))?;
        match &self.options.write {
            MigrateWrite::Puts => {
                let mut page: Vec<VersionedRow> = Vec::with_capacity(self.options.page_rows);
                for row in rows {
                    let (key, cells) = row.map_err(store("read", self.from))?;
                    let bytes = row_bytes(&key, &cells);
                    from = key;
                    let new_key = self.migration.rekey(&from)?;
                    self.report
                        .row_read(bytes, bytes + new_key.len() as u64 - from.len() as u64);
                    page.push((new_key, cells));
                    if page.len() == self.options.page_rows {
                        self.write_page(&mut page, &name, Some(&from))?;
                    }
                }
                self.write_page(&mut page, &name, None)
            }
            MigrateWrite::BulkLoad(dir) => {
                let pending = pending.get_or_insert_with(|| {
                    let share = self.options.memory / self.options.workers.max(1);
                    let dir = load_dir(dir);
                    Pending {
                        load: BulkLoad::new(&dir)
                            .regions(self.new_regions)
                            .memory(share.max(1 << 20)),
                        dir,
                        parts: Vec::new(),
                        rows: 0,
                    }
                });
                for row in rows {
                    let (key, cells) = row.map_err(store("read", self.from))?;
                    let bytes = row_bytes(&key, &cells);
                    let new_key = self.migration.rekey(&key)?;
                    pending
                        .load
                        .put_versioned_row(&new_key, &cells)
                        .map_err(|e| MigrateError::store("bulk load", self.to, e))?;
                    self.report
                        .row_read(bytes, bytes + new_key.len() as u64 - key.len() as u64);
                    pending.rows += 1;
                }
                pending.parts.push(i);
                Ok(())
            }
        }
    }

    /// Loads a worker's pending HFiles into the new table, then marks
    /// their parts done.
    fn commit(&self, pending: Pending) -> Result<(), MigrateError> {
        if pending.rows > 0 {
            pending
                .load
                .finish()
                .map_err(|e| MigrateError::store("bulk load", self.to, e))?;
            self.client
                .bulk_load(&pending.dir, self.to)
                .map_err(store("bulk load", self.to))?;
        }
        self.report.rows_written(pending.rows);
        for i in pending.parts {
            self.marks
                .set(&format!("part/{i}"), Mark::Done.to_bytes())?;
            self.report.part_done();
        }
        Ok(())
    }

    /// Writes a page of puts, then its checkpoint: the last old key
    /// copied, or (`last` none) the part done.
    fn write_page(
        &self,
        page: &mut Vec<VersionedRow>,
        name: &str,
        last: Option<&[u8]>,
    ) -> Result<(), MigrateError> {
        let n = page.len() as u64;
        if !page.is_empty() {
            self.client
                .write_versioned_rows(self.to, page.drain(..))
                .map_err(store("write", self.to))?;
        }
        self.report.rows_written(n);
        let mark = last.map_or(Mark::Done, Mark::After);
        self.marks.set(name, mark.to_bytes())?;
        if last.is_none() {
            self.report.part_done();
        }
        Ok(())
    }
}

/// A fresh directory for a worker's load under `dir` (a load writes into
/// an empty one; each load and a run after a failure get another).
fn load_dir(dir: &std::path::Path) -> PathBuf {
    static LOADS: AtomicUsize = AtomicUsize::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let n = LOADS.fetch_add(1, Ordering::Relaxed);
    dir.join(format!("load-{now}-{n}"))
}

/// Compares `from_table`, re-keyed by `migration`, with `to_table` as
/// [`rowkey_core::migrate::verify`] does (the newest version of each
/// column, with its timestamp): each table read region by region, four
/// regions at once, only its layout's rows (an indexed table's index rows
/// are not compared); in the parts whose digests differ, the new rows
/// looked up by key. Run it when writes have stopped or are going to
/// both tables ([`Phase::DualWrite`] or [`Phase::Cutover`]): the reads
/// are not one snapshot.
pub fn verify(
    client: &Client,
    from_table: &str,
    to_table: &str,
    migration: &Migration,
) -> Result<VerifyReport, MigrateError> {
    let (old, new) = (migration.from().layout(), migration.to().layout());
    let mut v = Verifier::new(migration);
    each_row(client, from_table, old.prefix(), &mut |k, cells| {
        v.old_row(k, cells);
        Ok(())
    })?;
    each_row(client, to_table, new.prefix(), &mut |k, cells| {
        v.new_row(k, cells);
        Ok(())
    })?;
    if !v.differs() {
        return Ok(v.finish());
    }
    each_row(client, from_table, old.prefix(), &mut |k, cells| {
        if let Some(new_key) = v.wanted(k) {
            let found = client
                .get_versions_raw(to_table, &new_key, &ReadOptions::new())
                .map_err(store("read", to_table))?;
            v.compare(&new_key, cells, found.map(cells_bytes).as_deref());
        }
        Ok(())
    })?;
    each_row(client, to_table, new.prefix(), &mut |k, _| {
        v.extra_row(k);
        Ok(())
    })?;
    Ok(v.finish())
}

/// The regions read at once by [`verify`].
const VERIFY_WORKERS: usize = 4;

/// Calls `f` with every row of `table` under `prefix` (its key and
/// [`cells_bytes`]), in no particular order: the regions read by
/// [`VERIFY_WORKERS`] threads, their rows handed over in batches through
/// a bounded channel (memory: a few batches per worker).
fn each_row(
    client: &Client,
    table: &str,
    prefix: &[u8],
    f: &mut EachRow<'_>,
) -> Result<(), MigrateError> {
    let regions = client
        .region_locations(table)
        .map_err(store("open", table))?;
    let parts = clip(&regions, prefix);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    type Batch = Result<Vec<(Vec<u8>, Vec<u8>)>, MigrateError>;
    let (tx, rx) = std::sync::mpsc::sync_channel::<Batch>(2 * VERIFY_WORKERS);
    std::thread::scope(|s| {
        for _ in 0..VERIFY_WORKERS.min(parts.len()) {
            let tx = tx.clone();
            let (next, stop, parts) = (&next, &stop, &parts);
            s.spawn(move || {
                let read = |(start, end): &Part| -> Result<(), MigrateError> {
                    let rows = client
                        .scan_versions(
                            table,
                            &Scan::from_bounds(start, end),
                            None,
                            &ReadOptions::new(),
                        )
                        .map_err(store("read", table))?;
                    let mut batch = Vec::with_capacity(1_000);
                    for row in rows {
                        if stop.load(Ordering::Acquire) {
                            return Ok(());
                        }
                        let (key, cells) = row.map_err(store("read", table))?;
                        batch.push((key, cells_bytes(cells)));
                        if batch.len() == 1_000 {
                            let full = std::mem::replace(&mut batch, Vec::with_capacity(1_000));
                            if tx.send(Ok(full)).is_err() {
                                return Ok(());
                            }
                        }
                    }
                    if !batch.is_empty() {
                        let _ = tx.send(Ok(batch));
                    }
                    Ok(())
                };
                while let Some(part) = parts.get(next.fetch_add(1, Ordering::AcqRel)) {
                    if let Err(e) = read(part) {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            });
        }
        drop(tx);
        let mut result = Ok(());
        for batch in rx.iter() {
            let done = batch.and_then(|rows| rows.iter().try_for_each(|(k, c)| f(k, c)));
            if let Err(e) = done {
                stop.store(true, Ordering::Release);
                result = Err(e);
                break;
            }
        }
        // The workers stop at their next row or send; what they still
        // send is dropped with the receiver.
        drop(rx);
        result
    })
}

/// A row's cells as the digest reads them: sorted, each family,
/// qualifier, timestamp and value length-prefixed.
fn cells_bytes(mut cells: Vec<VersionedCell>) -> Vec<u8> {
    cells.sort();
    let mut out = Vec::new();
    for c in cells {
        put_bytes(&mut out, c.family.as_bytes());
        put_bytes(&mut out, &c.qualifier);
        out.extend_from_slice(&c.timestamp.to_be_bytes());
        put_bytes(&mut out, &c.value);
    }
    out
}

/// A table being moved to a new layout, as a service writes it meanwhile:
/// rows are given by their old keys, and the [`Phase`] says which tables
/// a write, a delete and a read go to. A write to both tables stamps both
/// with one timestamp from the table's own clock (the wall clock in ms,
/// strictly increasing), so it is newer than any cell the copy brings
/// from before it; a delete removes what is older than its timestamp in
/// both. The two tables are written one after the other (HBase has no
/// write across tables): a write that fails may have reached the old
/// table alone, and is to be retried as any failed write is.
///
/// A cheap handle to share (`&self` methods; the phase is an atomic).
pub struct MigratingTable<'a> {
    client: Client,
    route: Route<'a>,
    clock: Clock,
}

impl<'a> MigratingTable<'a> {
    /// `from_table` moving to `to_table` by `migration`, starting in
    /// [`Phase::DualWrite`]; `to_table` is created as [`create_target`]
    /// says when it is missing.
    pub fn new(
        client: &Client,
        from_table: &str,
        to_table: &str,
        migration: &'a Migration,
    ) -> Result<Self, MigrateError> {
        create_target(client, from_table, to_table, migration)?;
        Ok(MigratingTable {
            client: client.clone(),
            route: Route::new(from_table, to_table, migration),
            clock: Clock::default(),
        })
    }

    /// Where writes and reads go now.
    pub fn phase(&self) -> Phase {
        self.route.phase()
    }

    /// Moves to `phase`, for the calls that start after this one.
    pub fn set_phase(&self, phase: Phase) {
        self.route.set_phase(phase);
    }

    /// Writes `cells` to the row of `old_key`: under its old key and its
    /// new one, or ([`Phase::Done`]) its new one only, one timestamp for
    /// both.
    pub fn put(&self, old_key: &[u8], cells: Vec<Cell>) -> Result<(), MigrateError> {
        let options = WriteOptions {
            timestamp: Some(self.clock.next()),
            ..WriteOptions::default()
        };
        for (table, key) in self.route.writes(old_key)? {
            self.client
                .write_raw_rows_with(table, [(key, cells.clone())], options)
                .map_err(store("write", table))?;
        }
        Ok(())
    }

    /// Deletes the row of `old_key` (every cell older than now) from the
    /// tables `put` writes.
    pub fn delete(&self, old_key: &[u8]) -> Result<(), MigrateError> {
        let options = WriteOptions {
            timestamp: Some(self.clock.next()),
            ..WriteOptions::default()
        };
        for (table, key) in self.route.writes(old_key)? {
            self.client
                .delete_raw_rows_with(table, [key], options)
                .map_err(store("delete", table))?;
        }
        Ok(())
    }

    /// The cells of `old_key`'s row: from the old table in
    /// [`Phase::DualWrite`], from the new one (under its new key) after.
    pub fn get(&self, old_key: &[u8]) -> Result<Option<Vec<Cell>>, MigrateError> {
        let (table, key) = self.route.read(old_key)?;
        self.client
            .get_raw(table, &key)
            .map_err(store("read", table))
    }
}
