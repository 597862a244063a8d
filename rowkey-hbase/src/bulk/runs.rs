//! The sort's machinery: rows in memory (one arena, an entry per cell),
//! sorted runs on disk, and the merge of both in HBase's order.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use super::error::{io_at, BulkError};
use crate::types::Cell;

/// Merges sorted runs on disk and the sorted buffer: `emit` gets every
/// cell in order, a cell put more than once (one column and timestamp)
/// only as it was put last.
pub(super) fn merge(
    runs: &[PathBuf],
    buffer: Option<&Buffer>,
    mut emit: impl FnMut(&Record) -> Result<(), BulkError>,
) -> Result<(), BulkError> {
    let mut sources: Vec<Source<'_>> = Vec::with_capacity(runs.len() + 1);
    for path in runs {
        let file = File::open(path).map_err(io_at(path))?;
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
        // Equal cells (one column, one timestamp) come latest put first:
        // the first one wins. Versions of a column (other timestamps) are
        // each kept, newest first, as HBase orders them.
        let duplicate = !first
            && record.row == last.row
            && record.family == last.family
            && record.qualifier == last.qualifier
            && record.ts == last.ts;
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
pub(super) struct Buffer {
    pub(super) arena: Vec<u8>,
    entries: Vec<Entry>,
    /// Puts so far: a cell's sequence number (a later put wins).
    pub(super) seq: u64,
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
    /// The cell's timestamp (ms).
    ts: i64,
    seq: u64,
}

impl Buffer {
    /// Whether it holds no cell.
    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The bytes a row takes in the buffer.
    pub(super) fn need<C: CellView>(key: &[u8], cells: &[C]) -> usize {
        let bytes: usize = cells
            .iter()
            .map(|c| c.qualifier().len() + c.value().len())
            .sum();
        key.len() + bytes + cells.len() * std::mem::size_of::<Entry>()
    }

    /// The bytes held: the arena's and the entries'.
    pub(super) fn used(&self) -> usize {
        self.arena.len() + self.entries.len() * std::mem::size_of::<Entry>()
    }

    /// Adds a row, its cells stamped `stamps` (one per cell, or repeated:
    /// the iterator is zipped with the cells), the two vectors growing by
    /// doubling but never, both counted by capacity, past `memory` (unless
    /// this row alone needs more).
    pub(super) fn put(
        &mut self,
        key: &[u8],
        cells: &[impl CellView],
        stamps: impl Iterator<Item = i64>,
        families: &[u16],
        memory: usize,
    ) {
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
        for ((c, family), ts) in cells.iter().zip(families).zip(stamps) {
            let (qualifier, value) = (c.qualifier(), c.value());
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
                ts,
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

    /// Merge order: row, family, qualifier, the newest timestamp first,
    /// then the latest put first.
    pub(super) fn sort(&mut self) {
        let mut entries = std::mem::take(&mut self.entries);
        entries.sort_unstable_by(|a, b| {
            a.head
                .cmp(&b.head)
                .then_with(|| self.row(a).cmp(self.row(b)))
                .then_with(|| a.family.cmp(&b.family))
                .then_with(|| self.qualifier(a).cmp(self.qualifier(b)))
                .then_with(|| b.ts.cmp(&a.ts))
                .then_with(|| b.seq.cmp(&a.seq))
        });
        self.entries = entries;
    }

    /// Copies entry `*i` (of the sorted buffer) into `record`.
    pub(super) fn next(&self, i: &mut usize, record: &mut Record) -> bool {
        let Some(e) = self.entries.get(*i) else {
            return false;
        };
        *i += 1;
        record.set(
            self.row(e),
            e.family,
            self.qualifier(e),
            self.value(e),
            e.ts,
            e.seq,
        );
        true
    }

    pub(super) fn clear(&mut self) {
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
pub(super) struct Record {
    pub(super) row: Vec<u8>,
    pub(super) family: u16,
    pub(super) qualifier: Vec<u8>,
    pub(super) value: Vec<u8>,
    pub(super) ts: i64,
    pub(super) seq: u64,
}

impl Record {
    pub(super) fn set(
        &mut self,
        row: &[u8],
        family: u16,
        qualifier: &[u8],
        value: &[u8],
        ts: i64,
        seq: u64,
    ) {
        self.row.clear();
        self.row.extend_from_slice(row);
        self.family = family;
        self.qualifier.clear();
        self.qualifier.extend_from_slice(qualifier);
        self.value.clear();
        self.value.extend_from_slice(value);
        self.ts = ts;
        self.seq = seq;
    }

    /// A run's record: lengths as u32 (family u16, timestamp i64, seq
    /// u64), big-endian.
    /// Writes the record to a run; the bytes written.
    pub(super) fn write(&self, out: &mut impl Write) -> io::Result<u64> {
        out.write_all(&(self.row.len() as u32).to_be_bytes())?;
        out.write_all(&self.row)?;
        out.write_all(&self.family.to_be_bytes())?;
        out.write_all(&(self.qualifier.len() as u32).to_be_bytes())?;
        out.write_all(&self.qualifier)?;
        out.write_all(&(self.value.len() as u32).to_be_bytes())?;
        out.write_all(&self.value)?;
        out.write_all(&self.ts.to_be_bytes())?;
        out.write_all(&self.seq.to_be_bytes())?;
        Ok((4 + self.row.len() + 2 + 4 + self.qualifier.len() + 4 + self.value.len() + 16) as u64)
    }

    /// Reads the next record of a run; false at its end.
    pub(super) fn read(&mut self, input: &mut impl Read) -> io::Result<bool> {
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
        let mut ts = [0u8; 8];
        input.read_exact(&mut ts)?;
        self.ts = i64::from_be_bytes(ts);
        let mut seq = [0u8; 8];
        input.read_exact(&mut seq)?;
        self.seq = u64::from_be_bytes(seq);
        Ok(true)
    }

    pub(super) fn order(&self, other: &Record) -> Ordering {
        self.row
            .cmp(&other.row)
            .then_with(|| self.family.cmp(&other.family))
            .then_with(|| self.qualifier.cmp(&other.qualifier))
            .then_with(|| other.ts.cmp(&self.ts))
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
            Source::Run(input, path) => record.read(input).map_err(io_at(path)),
            Source::Memory(buffer, i) => Ok(buffer.next(i, record)),
        }
    }
}

/// A cell as the loader reads it: a [`Cell`] (stamped by the load) or a
/// [`VersionedCell`](crate::VersionedCell) (with its own timestamp),
/// taken without a copy.
pub(super) trait CellView {
    fn family(&self) -> &str;
    fn qualifier(&self) -> &[u8];
    fn value(&self) -> &[u8];
}

impl CellView for Cell {
    fn family(&self) -> &str {
        &self.0
    }
    fn qualifier(&self) -> &[u8] {
        &self.1
    }
    fn value(&self) -> &[u8] {
        &self.2
    }
}

impl CellView for crate::VersionedCell {
    fn family(&self) -> &str {
        &self.family
    }
    fn qualifier(&self) -> &[u8] {
        &self.qualifier
    }
    fn value(&self) -> &[u8] {
        &self.value
    }
}
