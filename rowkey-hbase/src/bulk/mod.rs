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
//! Every cell of a load carries the same timestamp
//! ([`BulkLoad::timestamp`], by default the time [`BulkLoad::new`] ran),
//! so a cell put twice (same row, family and qualifier) is written once,
//! with the value put last, as a second put would have left it.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use rowkey_core::hbase::to_string_binary;
use rowkey_core::RowKey;

use crate::hfile::{Bloom, Compression, HFileOptions, HFileWriter};
pub use crate::types::BulkLoadReport;
use crate::types::{Cell, RegionLocation, MAX_ROW_LENGTH};

#[cfg(feature = "arrow")]
mod arrow;
mod error;
mod sample;

#[cfg(feature = "arrow")]
pub use arrow::{BadRow, CellEncoding, ColumnMap};
pub use error::BulkError;
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
        for (family, qualifier, value) in cells {
            // A family HBase refuses, or a cell too long for an HFile,
            // refused now rather than at the end of the load.
            let checked = self.family(family).and_then(|i| {
                crate::hfile::check_cell(key, family, qualifier, value)?;
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
        if !self.buffer.entries.is_empty() && self.buffer.used() + need > self.memory {
            if let Err(e) = self.spill() {
                self.scratch = families;
                return Err(self.fail(e));
            }
        }
        self.buffer.put(key, cells, &families, self.memory);
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
            && name.len() <= crate::hfile::MAX_FAMILY
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
        move |cause| BulkError::Io {
            path: path.to_path_buf(),
            cause,
        }
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
        match std::fs::read_dir(&self.dir) {
            Ok(mut entries) => {
                if entries.next().is_some() {
                    return Err(BulkError::NotEmpty {
                        path: self.dir.clone(),
                    });
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                std::fs::create_dir_all(&self.dir).map_err(Self::io(&self.dir))?;
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
            // `.`). Removed when the load ends, whatever way it ends.
            let run_dir = tempfile::Builder::new()
                .prefix(".rowkey-sort-")
                .tempdir_in(&self.dir)
                .map_err(Self::io(&self.dir))?;
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
        let staging = tempfile::Builder::new()
            .prefix(".rowkey-files-")
            .tempdir_in(&self.dir)
            .map_err(Self::io(&self.dir))?;
        let runs: Vec<PathBuf> = self.runs.iter().map(|(_, p)| p.clone()).collect();
        let mut out = Output::new(&self, staging.path());
        merge(&runs, Some(&self.buffer), |record| out.cell(record))?;
        let mut summary = out.finish()?;
        summary.spills = self.spills;
        summary.run_bytes = self.run_bytes;
        // Each family's folder moved into place whole (the load's
        // directory held nothing else).
        let mut moved: Vec<String> = Vec::new();
        for file in &mut summary.files {
            if !moved.contains(&file.family) {
                let from = staging.path().join(&file.family);
                let to = self.dir.join(&file.family);
                std::fs::rename(&from, &to).map_err(Self::io(&to))?;
                moved.push(file.family.clone());
            }
            let name = file.path.file_name().map(PathBuf::from).unwrap_or_default();
            file.path = self.dir.join(&file.family).join(name);
        }
        Ok(summary)
    }
}

/// Merges sorted runs on disk and the sorted buffer: `emit` gets every
/// cell in order, a cell put more than once only as it was put last.
fn merge(
    runs: &[PathBuf],
    buffer: Option<&Buffer>,
    mut emit: impl FnMut(&Record) -> Result<(), BulkError>,
) -> Result<(), BulkError> {
    let mut sources: Vec<Source<'_>> = Vec::with_capacity(runs.len() + 1);
    for path in runs {
        let file = File::open(path).map_err(BulkLoad::io(path))?;
        sources.push(Source::Run(BufReader::with_capacity(1 << 16, file), path));
    }
    if let Some(buffer) = buffer {
        sources.push(Source::Memory(buffer, 0));
    }
    let mut heap = BinaryHeap::with_capacity(sources.len());
    for (i, source) in sources.iter_mut().enumerate() {
        let mut record = Record::default();
        if source.next(&mut record)? {
            heap.push(Head(record, i));
        }
    }
    let mut last = Record::default();
    let mut first = true;
    while let Some(Head(mut record, i)) = heap.pop() {
        // Equal cells come latest put first: the first one wins.
        let duplicate = !first
            && record.row == last.row
            && record.family == last.family
            && record.qualifier == last.qualifier;
        if !duplicate {
            emit(&record)?;
            first = false;
            std::mem::swap(&mut last, &mut record);
        }
        if sources[i].next(&mut record)? {
            heap.push(Head(record, i));
        }
    }
    Ok(())
}

/// Rows in memory: their bytes in one arena, one entry per cell.
#[derive(Default)]
struct Buffer {
    arena: Vec<u8>,
    entries: Vec<Entry>,
    /// Puts so far: a cell's sequence number (a later put wins).
    seq: u64,
}

/// One cell in the arena: its row, then qualifier and value back to back.
#[derive(Clone, Copy)]
struct Entry {
    /// The row's first 8 bytes, big-endian (zeros past its end): most
    /// comparisons of the sort end on it.
    head: u64,
    row: usize,
    cell: usize,
    row_len: u32,
    qualifier_len: u32,
    value_len: u32,
    family: u16,
    seq: u64,
}

impl Buffer {
    /// The bytes a row takes in the buffer.
    fn need(key: &[u8], cells: &[Cell]) -> usize {
        let bytes: usize = cells.iter().map(|(_, q, v)| q.len() + v.len()).sum();
        key.len() + bytes + cells.len() * std::mem::size_of::<Entry>()
    }

    /// The bytes held: the arena's and the entries'.
    fn used(&self) -> usize {
        self.arena.len() + self.entries.len() * std::mem::size_of::<Entry>()
    }

    /// Adds a row, the two vectors growing by doubling but never, both
    /// counted by capacity, past `memory` (unless this row alone needs
    /// more).
    fn put(&mut self, key: &[u8], cells: &[Cell], families: &[u16], memory: usize) {
        const E: usize = std::mem::size_of::<Entry>();
        let bytes = Self::need(key, cells) - cells.len() * E;
        let room = memory.saturating_sub(self.entries.capacity() * E);
        grow(&mut self.arena, bytes, room);
        let room = memory.saturating_sub(self.arena.capacity()) / E;
        grow(&mut self.entries, cells.len(), room);
        let row = self.arena.len();
        self.arena.extend_from_slice(key);
        let mut first = [0u8; 8];
        let n = key.len().min(8);
        first[..n].copy_from_slice(&key[..n]);
        let head = u64::from_be_bytes(first);
        for ((_, qualifier, value), family) in cells.iter().zip(families) {
            let cell = self.arena.len();
            self.arena.extend_from_slice(qualifier);
            self.arena.extend_from_slice(value);
            self.seq += 1;
            self.entries.push(Entry {
                head,
                row,
                cell,
                row_len: key.len() as u32,
                qualifier_len: qualifier.len() as u32,
                value_len: value.len() as u32,
                family: *family,
                seq: self.seq,
            });
        }
    }

    fn row(&self, e: &Entry) -> &[u8] {
        &self.arena[e.row..e.row + e.row_len as usize]
    }

    fn qualifier(&self, e: &Entry) -> &[u8] {
        &self.arena[e.cell..e.cell + e.qualifier_len as usize]
    }

    fn value(&self, e: &Entry) -> &[u8] {
        let start = e.cell + e.qualifier_len as usize;
        &self.arena[start..start + e.value_len as usize]
    }

    /// Merge order: row, family, qualifier, then the latest put first.
    fn sort(&mut self) {
        let mut entries = std::mem::take(&mut self.entries);
        entries.sort_unstable_by(|a, b| {
            a.head
                .cmp(&b.head)
                .then_with(|| self.row(a).cmp(self.row(b)))
                .then_with(|| a.family.cmp(&b.family))
                .then_with(|| self.qualifier(a).cmp(self.qualifier(b)))
                .then_with(|| b.seq.cmp(&a.seq))
        });
        self.entries = entries;
    }

    /// Copies entry `*i` (of the sorted buffer) into `record`.
    fn next(&self, i: &mut usize, record: &mut Record) -> bool {
        let Some(e) = self.entries.get(*i) else {
            return false;
        };
        *i += 1;
        record.set(
            self.row(e),
            e.family,
            self.qualifier(e),
            self.value(e),
            e.seq,
        );
        true
    }

    fn clear(&mut self) {
        self.arena.clear();
        self.entries.clear();
    }
}

/// Makes room for `additional` more elements: double the capacity, but
/// not past `room` elements (unless `additional` alone needs more).
fn grow<T>(v: &mut Vec<T>, additional: usize, room: usize) {
    if v.capacity() - v.len() >= additional {
        return;
    }
    let need = v.len() + additional;
    let target = (v.capacity() * 2).max(64).min(room).max(need);
    v.reserve_exact(target - v.len());
}

/// One cell in merge order, its buffers reused from cell to cell.
#[derive(Default)]
struct Record {
    row: Vec<u8>,
    family: u16,
    qualifier: Vec<u8>,
    value: Vec<u8>,
    seq: u64,
}

impl Record {
    fn set(&mut self, row: &[u8], family: u16, qualifier: &[u8], value: &[u8], seq: u64) {
        self.row.clear();
        self.row.extend_from_slice(row);
        self.family = family;
        self.qualifier.clear();
        self.qualifier.extend_from_slice(qualifier);
        self.value.clear();
        self.value.extend_from_slice(value);
        self.seq = seq;
    }

    /// A run's record: lengths as u32 (family u16, seq u64), big-endian.
    /// Writes the record to a run; the bytes written.
    fn write(&self, out: &mut impl Write) -> io::Result<u64> {
        out.write_all(&(self.row.len() as u32).to_be_bytes())?;
        out.write_all(&self.row)?;
        out.write_all(&self.family.to_be_bytes())?;
        out.write_all(&(self.qualifier.len() as u32).to_be_bytes())?;
        out.write_all(&self.qualifier)?;
        out.write_all(&(self.value.len() as u32).to_be_bytes())?;
        out.write_all(&self.value)?;
        out.write_all(&self.seq.to_be_bytes())?;
        Ok((4 + self.row.len() + 2 + 4 + self.qualifier.len() + 4 + self.value.len() + 8) as u64)
    }

    /// Reads the next record of a run; false at its end.
    fn read(&mut self, input: &mut impl Read) -> io::Result<bool> {
        let mut len = [0u8; 4];
        match input.read_exact(&mut len) {
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(false),
            other => other?,
        }
        read_bytes(input, u32::from_be_bytes(len), &mut self.row)?;
        let mut family = [0u8; 2];
        input.read_exact(&mut family)?;
        self.family = u16::from_be_bytes(family);
        input.read_exact(&mut len)?;
        read_bytes(input, u32::from_be_bytes(len), &mut self.qualifier)?;
        input.read_exact(&mut len)?;
        read_bytes(input, u32::from_be_bytes(len), &mut self.value)?;
        let mut seq = [0u8; 8];
        input.read_exact(&mut seq)?;
        self.seq = u64::from_be_bytes(seq);
        Ok(true)
    }

    fn order(&self, other: &Record) -> Ordering {
        self.row
            .cmp(&other.row)
            .then_with(|| self.family.cmp(&other.family))
            .then_with(|| self.qualifier.cmp(&other.qualifier))
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

fn read_bytes(input: &mut impl Read, len: u32, into: &mut Vec<u8>) -> io::Result<()> {
    into.resize(len as usize, 0);
    input.read_exact(into)
}

/// A record at the head of its source, in the merge's heap (smallest
/// first).
struct Head(Record, usize);

impl PartialEq for Head {
    fn eq(&self, other: &Head) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Head {}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Head) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Head {
    /// Reversed: `BinaryHeap` pops its greatest.
    fn cmp(&self, other: &Head) -> Ordering {
        other.0.order(&self.0)
    }
}

/// A sorted source of the merge: a run on disk or the sorted buffer.
enum Source<'a> {
    Run(BufReader<File>, &'a Path),
    Memory(&'a Buffer, usize),
}

impl Source<'_> {
    fn next(&mut self, record: &mut Record) -> Result<bool, BulkError> {
        match self {
            Source::Run(input, path) => record.read(input).map_err(BulkLoad::io(path)),
            Source::Memory(buffer, i) => Ok(buffer.next(i, record)),
        }
    }
}

/// The files being written: the current region's, one per family.
struct Output<'a> {
    load: &'a BulkLoad,
    /// Where the files are written.
    dir: &'a Path,
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
}

struct Open {
    writer: HFileWriter,
    path: PathBuf,
    rows: u64,
}

impl<'a> Output<'a> {
    fn new(load: &'a BulkLoad, dir: &'a Path) -> Output<'a> {
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
        open.writer.append(
            &record.row,
            &record.qualifier,
            self.load.timestamp,
            &record.value,
        )?;
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
        std::fs::create_dir_all(&dir).map_err(BulkLoad::io(&dir))?;
        // HBase takes store file names of hex digits.
        let path = dir.join(format!("{:016x}{:016x}", self.id, self.next_file));
        self.next_file += 1;
        let writer = HFileWriter::create(
            &path,
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
        let written = open.writer.finish()?;
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
        Ok(self.summary)
    }
}
