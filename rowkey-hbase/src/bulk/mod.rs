//! Bulk load: rows put in any order, sorted within a memory budget
//! (spilled to sorted runs on disk past it and merged), written as one
//! HFile per region and family, ready for HBase's own bulk load
//! (`BulkLoadHFiles`, `hbase completebulkload DIR TABLE`).
//!
//! ```no_run
//! use rowkey_core::prelude::*;
//! use rowkey_hbase::bulk::BulkLoad;
//!
//! #[derive(RowKey)]
//! #[salt(buckets = 8, by(user))]
//! struct Event {
//!     user: u64,
//!     #[desc_ts]
//!     ts: i64,
//! }
//!
//! let mut load = BulkLoad::new("/tmp/events-load")
//!     .split_points(&Event::split_points())
//!     .memory(256 << 20);
//! for user in 0..1_000u64 {
//!     let cell = ("d".to_string(), b"v".to_vec(), b"hello".to_vec());
//!     load.put_row(&Event { user, ts: 1_700_000_000_000 }, &[cell])?;
//! }
//! let summary = load.finish()?;
//! // /tmp/events-load/d/<one file per region>; then, on the cluster:
//! // hbase completebulkload /tmp/events-load events
//! println!("{} files, {} rows", summary.files.len(), summary.rows);
//! # Ok::<(), rowkey_hbase::bulk::BulkError>(())
//! ```
//!
//! The directory must be empty or new (as for HBase's `HFileOutputFormat2`),
//! so that `completebulkload` takes only this load's files, and the files
//! appear under their names only when [`BulkLoad::finish`] succeeds (they
//! are written in a hidden directory and moved into place at the end): a
//! load that failed leaves nothing a bulk load would take. Any error
//! writing or merging the sorted runs on disk ends the load: every later
//! call, and `finish`, returns [`BulkError::Failed`] naming it, so no load
//! ever finishes without rows it was given.
//!
//! The directory is local or on HDFS: `BulkLoad::new("hdfs://nn:8020/loads/day")`
//! (feature `hdfs`) writes the files straight there through `hdfs-native`,
//! its sorted runs spilling to the local temporary directory, and
//! [`Client::bulk_load`](crate::Client::bulk_load) loads them from there.
//! Rows come one at a time ([`BulkLoad::put_row`],
//! [`BulkLoad::put_raw_row`]) or as Arrow record batches (feature `arrow`:
//! `BulkLoad::put_batch` and the `arrow` module). For a new table of
//! unsalted keys, [`BulkLoad::sample`] keeps a bounded sample of the keys
//! and [`BulkLoad::sampled_split_points`] cuts it at equal row counts.
//!
//! Every cell of a load carries the same timestamp
//! ([`BulkLoad::timestamp`], by default the time [`BulkLoad::new`] ran),
//! so a cell put twice (same row, family and qualifier) is written once,
//! with the value put last, as a second put would have left it. A copy of
//! cells read with their own timestamps ([`BulkLoad::put_versioned_row`],
//! as a migration writes them) keeps them: versions of a column are each
//! written, newest first, and only a cell put twice with one timestamp is
//! written once.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use rowkey_core::hbase::to_string_binary;
use rowkey_core::RowKey;

use crate::bulk::fs::{Closing, Location};
use crate::bulk::hfile::{Bloom, Compression, HFileOptions, HFileWriter};
pub use crate::types::BulkLoadReport;
use crate::types::{Cell, RegionLocation, MAX_ROW_LENGTH};

#[cfg(feature = "arrow")]
pub mod arrow;
pub mod dirs;
mod error;
pub(crate) mod fs;
pub mod hfile;
#[cfg(feature = "index")]
mod indexed;
mod runs;
mod sample;

#[cfg(feature = "arrow")]
pub use arrow::{BadRow, CellEncoding, ColumnMap};
use error::io_at;
pub use error::BulkError;
#[cfg(feature = "index")]
pub use indexed::ColumnIndex;
use runs::{merge, Buffer, CellView, Record};
pub use sample::RESERVOIR;

/// One HFile a load wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BulkFile {
    /// `dir/<family>/<name>`.
    pub path: PathBuf,
    /// Its column family.
    pub family: String,
    /// The region it belongs to, an index into [`BulkSummary::regions`].
    pub region: usize,
    /// Rows with a cell in it.
    pub rows: u64,
    /// Cells in it.
    pub cells: u64,
    /// Its size in bytes.
    pub bytes: u64,
}

/// One region of a load: its key range and what was written for it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BulkRegion {
    /// Its first key (empty for the first region).
    pub start: Vec<u8>,
    /// The first key after it (empty for the last region).
    pub end: Vec<u8>,
    /// Rows written for it.
    pub rows: u64,
    /// Cells written for it.
    pub cells: u64,
    /// Bytes of its files.
    pub bytes: u64,
    /// Its files (one per family, more past the roll size).
    pub files: usize,
}

/// What [`BulkLoad::finish`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BulkSummary {
    /// Every file, in key order then family order.
    pub files: Vec<BulkFile>,
    /// Every region the boundaries give, in key order, with or without
    /// rows.
    pub regions: Vec<BulkRegion>,
    /// Distinct rows written.
    pub rows: u64,
    /// Cells written (a cell put twice counts once).
    pub cells: u64,
    /// Bytes of all files.
    pub bytes: u64,
    /// Sorted runs spilled to disk because the memory budget was full (0:
    /// the load was sorted in memory).
    pub spills: usize,
    /// Bytes written to sorted runs on disk, spills and their merges: at
    /// most the spilled bytes times one more than the merge levels
    /// (`log16` of the spills), never a rewrite of everything per spill.
    pub run_bytes: u64,
}

/// A bulk load in the making: [`put_row`](Self::put_row) in any order,
/// then [`finish`](Self::finish). See the [module docs](self).
pub struct BulkLoad {
    dir: PathBuf,
    /// Where `dir` is: a local directory or HDFS (or why it cannot be
    /// reached, returned by the first call that writes).
    location: Result<Location, String>,
    /// The regions' start keys after the first, ascending.
    boundaries: Vec<Vec<u8>>,
    compression: Compression,
    bloom: Bloom,
    block_size: usize,
    memory: usize,
    timestamp: i64,
    max_file_size: u64,
    buffer: Buffer,
    families: Vec<String>,
    /// Sorted runs on disk and their merge level, oldest first.
    runs: Vec<(u32, PathBuf)>,
    run_dir: Option<tempfile::TempDir>,
    /// Bytes written to runs.
    run_bytes: u64,
    /// The directory was found empty or new and created.
    dir_ready: bool,
    /// The error that ended the load.
    failed: Option<String>,
    /// Runs written so far (merged runs included): names them.
    run_count: usize,
    /// Spills of the buffer.
    spills: usize,
    /// A put's family indices, reused.
    scratch: Vec<u16>,
    /// A sample of the keys put (`sample`).
    sample: Option<sample::Sample>,
    /// The indexes whose entries `put_indexed` writes.
    #[cfg(feature = "index")]
    indexes: Vec<LoadIndex>,
    /// The family of an indexed table's rows (`index_family`).
    #[cfg(feature = "index")]
    index_family: Option<String>,
}

/// A record's entries in one index of a load, encoded, each with its
/// covered values (empty for an index that covers nothing); `None` when the
/// data key and record are not the index's types (`BulkLoad::index`).
#[cfg(feature = "index")]
type Entries = Option<Result<Vec<(Vec<u8>, Vec<u8>)>, rowkey_core::EncodeError>>;

/// An index of a load, its types erased (`BulkLoad::index`).
#[cfg(feature = "index")]
struct LoadIndex {
    name: &'static str,
    entries: fn(&dyn std::any::Any, &dyn std::any::Any) -> Entries,
}

/// Runs of one level merged at once into one of the next level: each row
/// is rewritten once per level (`log16` of the spills), and a load holds
/// at most 15 runs per level.
const FAN_IN: usize = 16;

impl BulkLoad {
    /// A load into `dir` (created if missing): one region (call
    /// [`split_points`](Self::split_points) or [`regions`](Self::regions)
    /// for the table's), no compression, a ROW Bloom filter, 64 KiB blocks, a 256 MiB sort
    /// budget, files rolled past 10 GiB (HBase's
    /// `hbase.hregion.max.filesize`), the current time as every cell's
    /// timestamp.
    pub fn new(dir: impl AsRef<Path>) -> BulkLoad {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        BulkLoad {
            dir: dir.as_ref().to_path_buf(),
            location: Location::new(dir.as_ref()).map_err(|e| e.to_string()),
            boundaries: Vec::new(),
            compression: Compression::None,
            bloom: Bloom::Row,
            block_size: 64 * 1024,
            memory: 256 << 20,
            timestamp: now,
            max_file_size: 10 << 30,
            buffer: Buffer::default(),
            families: Vec::new(),
            runs: Vec::new(),
            run_dir: None,
            run_bytes: 0,
            dir_ready: false,
            failed: None,
            run_count: 0,
            spills: 0,
            scratch: Vec::new(),
            sample: None,
            #[cfg(feature = "index")]
            indexes: Vec::new(),
            #[cfg(feature = "index")]
            index_family: None,
        }
    }

    /// Cuts the files at these keys (each the first key of a region, as
    /// `T::split_points()` gives them and `create_table` pre-splits).
    pub fn split_points(mut self, points: &[Vec<u8>]) -> BulkLoad {
        let mut b: Vec<Vec<u8>> = points.iter().filter(|p| !p.is_empty()).cloned().collect();
        b.sort();
        b.dedup();
        self.boundaries = b;
        self
    }

    /// Cuts the files at the table's regions, as
    /// [`Client::region_locations`](crate::Client::region_locations) lists
    /// them.
    pub fn regions(self, regions: &[RegionLocation]) -> BulkLoad {
        let starts: Vec<Vec<u8>> = regions.iter().map(|r| r.start.clone()).collect();
        self.split_points(&starts)
    }

    /// How blocks are compressed.
    pub fn compression(mut self, compression: Compression) -> BulkLoad {
        self.compression = compression;
        self
    }

    /// Each file's Bloom filter: by default [`Bloom::Row`], HBase's default
    /// for a column family (`BLOOMFILTER => 'ROW'`), so that a get skips
    /// the files without its row.
    pub fn bloom(mut self, bloom: Bloom) -> BulkLoad {
        self.bloom = bloom;
        self
    }

    /// The uncompressed size at which a data block ends.
    pub fn block_size(mut self, bytes: usize) -> BulkLoad {
        self.block_size = bytes.max(1);
        self
    }

    /// The sort budget: the bytes of rows held in memory before they are
    /// spilled to a sorted run on disk. A single row larger than the
    /// budget is still taken.
    pub fn memory(mut self, bytes: usize) -> BulkLoad {
        self.memory = bytes;
        self
    }

    /// Every cell's timestamp, in milliseconds.
    ///
    /// # Panics
    ///
    /// If `ts` is negative or `i64::MAX` (HBase's "latest" placeholder,
    /// which a region server would replace by its own clock on a put but
    /// keeps as it is in a loaded file).
    pub fn timestamp(mut self, ts: i64) -> BulkLoad {
        assert!(
            (0..i64::MAX).contains(&ts),
            "a bulk load's timestamp must be from 0 to i64::MAX - 1, not {ts}"
        );
        self.timestamp = ts;
        self
    }

    /// The size past which a region's file for a family is closed and
    /// another begins, at the next row (a row is never split).
    pub fn max_file_size(mut self, bytes: u64) -> BulkLoad {
        self.max_file_size = bytes.max(1);
        self
    }

    /// Keeps a sample of the keys put: each row with probability
    /// `fraction` (clamped to `(0, 1]`), at most [`RESERVOIR`] keys, for
    /// [`sampled_split_points`](Self::sampled_split_points). `seed` makes
    /// loads of different shares sample independently.
    pub fn sample(mut self, fraction: f64, seed: u64) -> BulkLoad {
        self.sample = Some(sample::Sample::new(fraction, seed));
        self
    }

    /// Cuts the files at these keys from now on, as
    /// [`split_points`](Self::split_points) does: for a load whose regions
    /// are known only once its rows are in (a table pre-split from its
    /// sample).
    pub fn set_split_points(&mut self, points: &[Vec<u8>]) {
        let mut b: Vec<Vec<u8>> = points.iter().filter(|p| !p.is_empty()).cloned().collect();
        b.sort();
        b.dedup();
        self.boundaries = b;
    }

    /// Up to `regions - 1` keys cutting the rows of `loads` into `regions`
    /// parts of about equal row counts, from their samples (see
    /// [`sample`](Self::sample); loads without one are left out): each
    /// load's sample weighted by the rows it stands for. Fewer when the
    /// samples hold fewer distinct keys; none for one region.
    pub fn sampled_split_points(loads: &[&BulkLoad], regions: usize) -> Vec<Vec<u8>> {
        let samples: Vec<&sample::Sample> =
            loads.iter().filter_map(|l| l.sample.as_ref()).collect();
        sample::split_points(&samples, regions)
    }

    /// Sorted runs spilled to disk so far (the memory budget was full).
    pub fn spills(&self) -> usize {
        self.spills
    }

    /// Puts a typed row: its key encoded, its cells
    /// `(family, qualifier, value)`.
    pub fn put_row<K: RowKey>(&mut self, key: &K, cells: &[Cell]) -> Result<(), BulkError> {
        let mut row = [0u8; 256];
        if key.encoded_len() <= row.len() {
            let n = key.encode_into(&mut row)?;
            self.put_raw_row(&row[..n], cells)
        } else {
            self.put_raw_row(&key.encode_to_vec()?, cells)
        }
    }

    /// Puts a row by its key's bytes.
    pub fn put_raw_row(&mut self, key: &[u8], cells: &[Cell]) -> Result<(), BulkError> {
        let ts = self.timestamp;
        self.put_stamped(key, cells, |_| ts)
    }

    /// Puts a row by its key's bytes, each cell with its own timestamp
    /// (as [`Client::scan_versions`](crate::Client::scan_versions) reads
    /// them) instead of the load's: a copy of a table that keeps its
    /// cells' times. A timestamp below 0 or of `i64::MAX` is
    /// [`BulkError::BadTimestamp`].
    pub fn put_versioned_row(
        &mut self,
        key: &[u8],
        cells: &[crate::VersionedCell],
    ) -> Result<(), BulkError> {
        if let Some(c) = cells.iter().find(|c| !(0..i64::MAX).contains(&c.timestamp)) {
            return Err(BulkError::BadTimestamp {
                key: to_string_binary(key),
                ts: c.timestamp,
            });
        }
        self.put_stamped(key, cells, |i| cells[i].timestamp)
    }

    /// A row, its `i`th cell stamped `stamp(i)`.
    fn put_stamped<C: CellView>(
        &mut self,
        key: &[u8],
        cells: &[C],
        stamp: impl Fn(usize) -> i64,
    ) -> Result<(), BulkError> {
        self.alive()?;
        if key.is_empty() || key.len() > MAX_ROW_LENGTH {
            return Err(BulkError::BadRow {
                key: to_string_binary(key),
                len: key.len(),
            });
        }
        if cells.is_empty() {
            return Err(BulkError::NoCells {
                key: to_string_binary(key),
            });
        }
        let mut families = std::mem::take(&mut self.scratch);
        families.clear();
        for c in cells {
            // A family HBase refuses, or a cell too long for an HFile,
            // refused now rather than at the end of the load.
            let checked = self.family(c.family()).and_then(|i| {
                crate::bulk::hfile::check_cell(key, c.family(), c.qualifier(), c.value())?;
                Ok(i)
            });
            match checked {
                Ok(i) => families.push(i),
                Err(e) => {
                    self.scratch = families;
                    return Err(e);
                }
            }
        }
        // Spill before the row when it would take the buffer past the
        // budget (a row alone past it is still taken).
        let need = Buffer::need(key, cells);
        if !self.buffer.is_empty() && self.buffer.used() + need > self.memory {
            if let Err(e) = self.spill() {
                self.scratch = families;
                return Err(self.fail(e));
            }
        }
        self.buffer.put(
            key,
            cells,
            (0..cells.len()).map(stamp),
            &families,
            self.memory,
        );
        if let Some(sample) = &mut self.sample {
            sample.offer(key);
        }
        self.scratch = families;
        Ok(())
    }

    /// A family's index, interned on first sight.
    fn family(&mut self, name: &str) -> Result<u16, BulkError> {
        if let Some(i) = self.families.iter().position(|f| f == name) {
            return Ok(i as u16);
        }
        let legal = !name.is_empty()
            && name.len() <= crate::bulk::hfile::MAX_FAMILY
            && !name.starts_with('.')
            && !name
                .chars()
                .any(|c| matches!(c, ':' | '/' | '\\') || c.is_control());
        if !legal || self.families.len() >= usize::from(u16::MAX) {
            return Err(BulkError::BadFamily {
                family: name.to_string(),
            });
        }
        self.families.push(name.to_string());
        Ok((self.families.len() - 1) as u16)
    }

    fn io(path: &Path) -> impl FnOnce(io::Error) -> BulkError + '_ {
        io_at(path)
    }

    /// `Err(Failed)` once an error ended the load.
    fn alive(&self) -> Result<(), BulkError> {
        match &self.failed {
            Some(cause) => Err(BulkError::Failed {
                cause: cause.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Ends the load with `e`: every later call returns it.
    fn fail(&mut self, e: BulkError) -> BulkError {
        self.failed = Some(e.to_string());
        e
    }

    /// Creates the load's directory, or checks that it is empty, once.
    fn ready(&mut self) -> Result<(), BulkError> {
        if self.dir_ready {
            return Ok(());
        }
        let location = self.location()?;
        match location.read_dir() {
            Ok(entries) => {
                if !entries.is_empty() {
                    return Err(BulkError::NotEmpty {
                        path: self.dir.clone(),
                    });
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                location.create_dir_all().map_err(Self::io(&self.dir))?;
            }
            Err(e) => return Err(Self::io(&self.dir)(e)),
        }
        self.dir_ready = true;
        Ok(())
    }

    /// A new run file in the load's scratch directory.
    fn new_run(&mut self) -> Result<(PathBuf, BufWriter<File>), BulkError> {
        if self.run_dir.is_none() {
            self.ready()?;
            // A hidden directory in the load's own: the same filesystem,
            // and a name HBase's bulk load skips (no family starts with
            // `.`). Removed when the load ends, whatever way it ends. A
            // load onto HDFS sorts in the local temporary directory.
            let local = if self.location()?.is_hdfs() {
                std::env::temp_dir()
            } else {
                self.dir.clone()
            };
            let run_dir = tempfile::Builder::new()
                .prefix(".rowkey-sort-")
                .tempdir_in(&local)
                .map_err(Self::io(&local))?;
            self.run_dir = Some(run_dir);
        }
        let dir = self
            .run_dir
            .as_ref()
            .map_or_else(|| self.dir.clone(), |d| d.path().to_path_buf());
        let path = dir.join(format!("run-{}", self.run_count));
        self.run_count += 1;
        let file = File::create(&path).map_err(Self::io(&path))?;
        Ok((path, BufWriter::with_capacity(1 << 16, file)))
    }

    /// Sorts the buffer and writes it to a run file of level 0, then
    /// merges the last [`FAN_IN`] runs into one of the next level while
    /// they share a level (a counter in base 16: each row is rewritten
    /// once per level). A run is removed only after the run merged from it
    /// is whole on disk; any error ends the load (the caller's
    /// [`fail`](Self::fail)).
    fn spill(&mut self) -> Result<(), BulkError> {
        let (path, mut out) = self.new_run()?;
        self.buffer.sort();
        let mut written = 0;
        merge(&[], Some(&self.buffer), |record| {
            written += record.write(&mut out).map_err(Self::io(&path))?;
            Ok(())
        })?;
        out.flush().map_err(Self::io(&path))?;
        self.run_bytes += written;
        self.buffer.clear();
        self.runs.push((0, path));
        self.spills += 1;
        while self.runs.len() >= FAN_IN {
            let level = self.runs[self.runs.len() - 1].0;
            let from = self.runs.len() - FAN_IN;
            if self.runs[from..].iter().any(|(l, _)| *l != level) {
                break;
            }
            let inputs: Vec<PathBuf> = self.runs[from..].iter().map(|(_, p)| p.clone()).collect();
            let (path, mut out) = self.new_run()?;
            let mut written = 0;
            merge(&inputs, None, |record| {
                written += record.write(&mut out).map_err(Self::io(&path))?;
                Ok(())
            })?;
            out.flush().map_err(Self::io(&path))?;
            self.run_bytes += written;
            self.runs.truncate(from);
            self.runs.push((level + 1, path));
            for run in &inputs {
                std::fs::remove_file(run).map_err(Self::io(run))?;
            }
        }
        Ok(())
    }

    /// Sorts what is left, merges it with the runs on disk, and writes the
    /// files: `dir/<family>/<name>`, one per region and family (more past
    /// [`max_file_size`](Self::max_file_size)).
    ///
    /// The files are written in a hidden directory of the load's and moved
    /// to their names when all are whole: an error leaves none behind.
    pub fn finish(mut self) -> Result<BulkSummary, BulkError> {
        self.alive()?;
        self.ready()?;
        self.buffer.sort();
        let location = self.location()?;
        // A local staging directory goes with its guard; one on HDFS is
        // removed below, whatever happened.
        let (guard, staging) = if location.is_hdfs() {
            let id = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            let staging = location.join(&format!(".rowkey-files-{id:016x}-{}", std::process::id()));
            staging.create_dir_all().map_err(Self::io(staging.path()))?;
            (None, staging)
        } else {
            let guard = tempfile::Builder::new()
                .prefix(".rowkey-files-")
                .tempdir_in(&self.dir)
                .map_err(Self::io(&self.dir))?;
            let staging = Location::new(guard.path()).map_err(Self::io(guard.path()))?;
            (Some(guard), staging)
        };
        let written = self.write_files(&location, &staging);
        if guard.is_none() {
            let _ = staging.remove_all();
        }
        written
    }

    /// Writes the files into `staging`, then moves each family's folder
    /// into the load's directory whole (it held nothing else).
    fn write_files(
        &self,
        location: &Location,
        staging: &Location,
    ) -> Result<BulkSummary, BulkError> {
        let runs: Vec<PathBuf> = self.runs.iter().map(|(_, p)| p.clone()).collect();
        let mut out = Output::new(self, staging.clone());
        merge(&runs, Some(&self.buffer), |record| out.cell(record))?;
        let mut summary = out.finish()?;
        summary.spills = self.spills;
        summary.run_bytes = self.run_bytes;
        let mut moved: Vec<String> = Vec::new();
        for file in &mut summary.files {
            let family = location.join(&file.family);
            if !moved.contains(&file.family) {
                staging
                    .join(&file.family)
                    .rename(&family)
                    .map_err(Self::io(family.path()))?;
                moved.push(file.family.clone());
            }
            let name = file
                .path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            file.path = family.join(&name).path().to_path_buf();
        }
        Ok(summary)
    }

    /// Where the load's directory is, or why it cannot be reached.
    fn location(&self) -> Result<Location, BulkError> {
        self.location.clone().map_err(|cause| BulkError::Io {
            path: self.dir.clone(),
            cause: io::Error::other(cause),
        })
    }
}

/// The files being written: the current region's, one per family.
struct Output<'a> {
    load: &'a BulkLoad,
    /// Where the files are written.
    dir: Location,
    /// `load.families[i]`'s open file in the current region.
    open: Vec<Option<Open>>,
    region: usize,
    /// The last row written, in any family, and the last cell's family.
    last_row: Vec<u8>,
    last_family: u16,
    summary: BulkSummary,
    /// For file names: this load's id and a counter.
    id: u64,
    next_file: u64,
    /// Files written and still closing (on HDFS, until their last block
    /// is reported), oldest first.
    closing: Vec<(PathBuf, Closing)>,
}

/// Files closing at once, at most.
const CLOSING: usize = 64;

struct Open {
    writer: HFileWriter,
    path: PathBuf,
    rows: u64,
}

impl<'a> Output<'a> {
    fn new(load: &'a BulkLoad, dir: Location) -> Output<'a> {
        let mut regions = Vec::with_capacity(load.boundaries.len() + 1);
        let mut start = Vec::new();
        for end in load.boundaries.iter().chain(std::iter::once(&Vec::new())) {
            regions.push(BulkRegion {
                start: std::mem::replace(&mut start, end.clone()),
                end: end.clone(),
                rows: 0,
                cells: 0,
                bytes: 0,
                files: 0,
            });
        }
        let id = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
            ^ u64::from(std::process::id()) << 40;
        Output {
            load,
            dir,
            open: (0..load.families.len()).map(|_| None).collect(),
            region: 0,
            last_row: Vec::new(),
            last_family: 0,
            summary: BulkSummary {
                files: Vec::new(),
                regions,
                rows: 0,
                cells: 0,
                bytes: 0,
                spills: 0,
                run_bytes: 0,
            },
            id,
            next_file: 0,
            closing: Vec::new(),
        }
    }

    fn cell(&mut self, record: &Record) -> Result<(), BulkError> {
        // The region changes only with the row.
        let row_changed = self.summary.cells == 0 || self.last_row != record.row;
        if row_changed {
            let region = self
                .load
                .boundaries
                .partition_point(|b| b.as_slice() <= record.row.as_slice());
            if region != self.region {
                self.close_all()?;
                self.region = region;
            }
        }
        let family = usize::from(record.family);
        // The row's first cell in this family's file (a row's cells come
        // family by family): count the row, and roll the file past its
        // size (never inside a row).
        let new_row = row_changed || self.last_family != record.family;
        if new_row {
            let full = self.open[family]
                .as_ref()
                .is_some_and(|o| o.writer.bytes_written() >= self.load.max_file_size);
            if full {
                self.close(family)?;
            }
        }
        if self.open[family].is_none() {
            self.open[family] = Some(self.create(family)?);
        }
        let Some(open) = self.open[family].as_mut() else {
            unreachable!("opened above")
        };
        open.writer
            .append(&record.row, &record.qualifier, record.ts, &record.value)?;
        if new_row {
            open.rows += 1;
        }
        let region = &mut self.summary.regions[self.region];
        region.cells += 1;
        self.summary.cells += 1;
        if row_changed {
            region.rows += 1;
            self.summary.rows += 1;
            self.last_row.clear();
            self.last_row.extend_from_slice(&record.row);
        }
        self.last_family = record.family;
        Ok(())
    }

    fn create(&mut self, family: usize) -> Result<Open, BulkError> {
        let name = &self.load.families[family];
        let dir = self.dir.join(name);
        dir.create_dir_all().map_err(BulkLoad::io(dir.path()))?;
        // HBase takes store file names of hex digits.
        let file = dir.join(&format!("{:016x}{:016x}", self.id, self.next_file));
        self.next_file += 1;
        let path = file.path().to_path_buf();
        let target = file.create().map_err(BulkLoad::io(&path))?;
        let writer = HFileWriter::to_target(
            target,
            path.clone(),
            HFileOptions {
                block_size: self.load.block_size,
                compression: self.load.compression,
                bloom: self.load.bloom,
                ..HFileOptions::new(name)
            },
        )?;
        Ok(Open {
            writer,
            path,
            rows: 0,
        })
    }

    fn close(&mut self, family: usize) -> Result<(), BulkError> {
        let Some(open) = self.open[family].take() else {
            return Ok(());
        };
        let (written, closing) = open.writer.finish_closing()?;
        self.settle(CLOSING - 1)?;
        self.closing.push((open.path.clone(), closing));
        let region = &mut self.summary.regions[self.region];
        region.bytes += written.bytes;
        region.files += 1;
        self.summary.bytes += written.bytes;
        self.summary.files.push(BulkFile {
            path: open.path,
            family: self.load.families[family].clone(),
            region: self.region,
            rows: open.rows,
            cells: written.cells,
            bytes: written.bytes,
        });
        Ok(())
    }

    /// Ends the current region: its files closed.
    fn close_all(&mut self) -> Result<(), BulkError> {
        for family in 0..self.open.len() {
            self.close(family)?;
        }
        Ok(())
    }

    fn finish(mut self) -> Result<BulkSummary, BulkError> {
        self.close_all()?;
        self.settle(0)?;
        Ok(self.summary)
    }

    /// Waits for files still closing until at most `left` are.
    fn settle(&mut self, left: usize) -> Result<(), BulkError> {
        while self.closing.len() > left {
            let (path, closing) = self.closing.remove(0);
            closing().map_err(BulkLoad::io(&path))?;
        }
        Ok(())
    }
}
