//! Building, checking and mending an index:
//! [`backfill`](super::IndexedTable::backfill),
//! [`verify`](super::IndexedTable::verify) and
//! [`repair`](super::IndexedTable::repair), for blocking and async tables
//! alike.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::ops::ControlFlow;
use core::time::Duration;

use super::engine::{
    entry_rows, entry_timestamp, family, timestamp, Engine, Indexes, NewEntry, Registered, WriteOp,
};
use super::io::Steps;
use super::query::PAGE;
use super::{IndexError, Record};
use crate::key::{DecodeRowKey, RowKey};
use crate::layout::Layout;

/// What [`verify`](super::IndexedTable::verify) found, reading both sides of an index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct IndexReport {
    /// Entries whose data row exists and has them.
    pub valid: u64,
    /// Entries that a data row's record has and the index lacks.
    pub missing: u64,
    /// Entries whose data row does not exist.
    pub orphan: u64,
    /// Entries whose data row exists but whose record no longer has them.
    pub stale: u64,
    /// Entries of a [`Covering`](super::Covering) index whose data row
    /// has them but whose covered values are not the record's (a put that
    /// stopped after writing its entries; an entry written before the
    /// index covered anything): counted in `valid` too.
    pub stale_covered: u64,
    /// Index rows whose key does not decode, and data rows whose key or
    /// record does not.
    pub undecodable: u64,
}

impl IndexReport {
    /// No entry missing, orphan or stale (its covered values included),
    /// and nothing undecodable.
    pub fn is_clean(&self) -> bool {
        self.missing == 0
            && self.orphan == 0
            && self.stale == 0
            && self.stale_covered == 0
            && self.undecodable == 0
    }
}

/// What [`repair`](super::IndexedTable::repair) did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RepairReport {
    /// What `verify` found before the repair.
    pub found: IndexReport,
    /// Missing entries written, and entries written again with their
    /// record's covered values.
    pub written: u64,
    /// Orphan and stale entries removed.
    pub removed: u64,
    /// Orphan and stale entries, and entries of stale covered values, left
    /// because they are younger than the grace period (a write may still
    /// be in flight).
    pub spared: u64,
    /// Leftovers that a write since `verify` made right (left as they are).
    pub changed: u64,
}

/// What a [`Backfill`] did: rows read, entries written, and where to
/// resume.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BackfillReport {
    /// Data rows read (in this run).
    pub data_rows: u64,
    /// Entries written (in this run; writing an entry that exists again is
    /// harmless).
    pub entries: u64,
    /// Data rows whose key or record does not decode (skipped).
    pub undecodable: u64,
    /// The last data key done: pass it to [`Backfill::resume_from`] to go
    /// on after an interruption.
    pub checkpoint: Option<Vec<u8>>,
    /// Whether every data row was read.
    pub complete: bool,
}

/// What the scans of `verify` collect for `repair`.
#[derive(Default)]
pub(super) struct Leftovers {
    /// `(entry, data key)` of every missing entry.
    missing: Vec<(Vec<u8>, Vec<u8>)>,
    /// `(entry, its timestamp, data key)` of every orphan or stale entry.
    wrong: Vec<(Vec<u8>, u64, Vec<u8>)>,
    /// `(entry, its timestamp, data key)` of every entry of stale covered
    /// values.
    uncovered: Vec<(Vec<u8>, u64, Vec<u8>)>,
}

/// A backfill's progress callback.
type Progress<'t> = Box<dyn FnMut(&BackfillReport) -> ControlFlow<()> + Send + 't>;

/// A run of a table's `backfill`: set where to start, the page size and a
/// progress callback, then run it (`run()` on an
/// [`IndexedTable`](super::IndexedTable), `run().await` on an
/// [`AsyncIndexedTable`](super::AsyncIndexedTable)).
#[must_use = "a backfill does nothing until it is run"]
pub struct Backfill<'t, T> {
    pub(super) table: &'t T,
    pub(super) index: &'static Layout,
    pub(super) resume: Option<Vec<u8>>,
    pub(super) page: usize,
    pub(super) progress: Option<Progress<'t>>,
    pub(super) workers: usize,
}

impl<'t, T> Backfill<'t, T> {
    pub(super) fn new(table: &'t T, index: &'static Layout) -> Self {
        Backfill {
            table,
            index,
            resume: None,
            page: PAGE,
            progress: None,
            workers: 4,
        }
    }

    /// Starts after `checkpoint` (a [`BackfillReport::checkpoint`]) instead
    /// of at the first data row.
    pub fn resume_from(mut self, checkpoint: &[u8]) -> Self {
        self.resume = Some(checkpoint.to_vec());
        self
    }

    /// Data rows read and indexed per write (512 unless set; at least 1).
    pub fn page_size(mut self, rows: usize) -> Self {
        self.page = rows.max(1);
        self
    }

    /// Pages written at once (4 unless set; at least 1), each by a thread
    /// of its own, while the next pages are read, on a blocking table (an
    /// async one writes one page at a time). The checkpoint is the last
    /// key of the pages done without a gap, so a resumed backfill writes
    /// again at most the pages that were in flight.
    pub fn workers(mut self, pages: usize) -> Self {
        self.workers = pages.max(1);
        self
    }

    /// Calls `f` after each page with the report so far; when it returns
    /// `ControlFlow::Break`, the backfill stops there (its report's
    /// checkpoint says where to resume).
    pub fn on_progress(
        mut self,
        f: impl FnMut(&BackfillReport) -> ControlFlow<()> + Send + 't,
    ) -> Self {
        self.progress = Some(Box::new(f));
        self
    }
}

impl<T> Backfill<'_, T> {
    /// Where the backfill starts reading: after its checkpoint, or at
    /// `start`, the first data key.
    pub(super) fn first_key(&mut self, start: Vec<u8>) -> Vec<u8> {
        match self.resume.take() {
            Some(mut after) => {
                after.push(0);
                after
            }
            None => start,
        }
    }
}

/// Moves `from` past the last row of a page of `limit` rows that came
/// full: whether more may follow (a page short of `limit` was the last).
pub(super) fn next_page(rows: &[(Vec<u8>, Vec<u8>)], limit: usize, from: &mut Vec<u8>) -> bool {
    match rows.last() {
        Some((last, _)) if rows.len() == limit => {
            from.clone_from(last);
            from.push(0);
            true
        }
        _ => false,
    }
}

/// A data row's key and record, or `None` when either does not decode.
fn decode_row<D: for<'de> DecodeRowKey<'de>, R: Record>(
    key: &[u8],
    value: &[u8],
) -> Option<(D, R)> {
    Some((D::decode(key).ok()?, R::from_value(value).ok()?))
}

/// A data row to index: its key, the value read, its entries.
type ToIndex = (Vec<u8>, Vec<u8>, Vec<NewEntry>);

/// A backfill page's write: its data rows read again (one read for the
/// page), and the entries of those unchanged written (one write).
pub(super) struct IndexPage {
    rows: Vec<ToIndex>,
    ts: u64,
}

impl<D, R> WriteOp<D, R> for IndexPage {
    type Out = u64;

    async fn run<T: Steps>(
        self,
        _: &Indexes<D, R>,
        tx: &mut T,
    ) -> Result<u64, IndexError<T::Error>> {
        let rows: Vec<ToIndex> = self.rows.into_iter().filter(|r| !r.2.is_empty()).collect();
        if rows.is_empty() {
            return Ok(0);
        }
        let keys: Vec<Vec<u8>> = rows.iter().map(|r| r.0.clone()).collect();
        let now = tx.get_stamped_many(&keys).await?;
        let mut entries = Vec::new();
        for ((_, value, row_entries), now) in rows.into_iter().zip(now) {
            if now.is_some_and(|(v, _)| v == value) {
                entries.extend(row_entries);
            }
        }
        let written = entries.len() as u64;
        if !entries.is_empty() {
            tx.put(&entry_rows(entries, self.ts), self.ts).await?;
        }
        Ok(written)
    }
}

/// A page of data rows to index: each row's entries (a row that does not
/// decode counted and left out), stamped now.
pub(super) fn index_page<D, R, E>(
    ix: &Registered<D, R>,
    rows: Vec<(Vec<u8>, Vec<u8>)>,
    report: &mut BackfillReport,
) -> Result<IndexPage, IndexError<E>>
where
    D: for<'de> DecodeRowKey<'de>,
    R: Record,
{
    let mut out = Vec::with_capacity(rows.len());
    for (key, value) in rows {
        report.data_rows += 1;
        match decode_row::<D, R>(&key, &value) {
            Some((data, record)) => {
                let entries = ix.new_entries(&data, &record)?;
                out.push((key, value, entries));
            }
            None => report.undecodable += 1,
        }
    }
    Ok(IndexPage {
        rows: out,
        ts: timestamp(),
    })
}

/// The backfill of `b.index`: see `IndexedTable::backfill`.
pub(super) async fn backfill<E, D, R>(
    b: &mut Backfill<'_, E>,
) -> Result<BackfillReport, IndexError<E::Error>>
where
    E: Engine<D, R>,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    let table = b.table;
    let ix = table.indexes().find(b.index)?;
    let (start, stop) = family(D::LAYOUT);
    let mut from = b.first_key(start);
    let mut report = BackfillReport::default();
    loop {
        let page = table.scan(&from, &stop, None, b.page).await?;
        let full = page.rows.len() == b.page;
        let Some((last, _)) = page.rows.last() else {
            report.complete = true;
            return Ok(report);
        };
        from.clone_from(last);
        from.push(0);
        let last = last.clone();
        let page = index_page(ix, page.rows, &mut report)?;
        report.entries += table.write(page).await?;
        report.checkpoint = Some(last);
        if !full {
            report.complete = true;
            return Ok(report);
        }
        if let Some(progress) = b.progress.as_mut() {
            if progress(&report).is_break() {
                return Ok(report);
            }
        }
    }
}

/// The data row under `data_key`'s entry `entry` (with what it covers),
/// as `tx` sees it: `Ok(None)` when the row does not have it, `Err(())`
/// when its record does not decode.
async fn entry_of<T: Steps, D, R>(
    tx: &mut T,
    index: &Registered<D, R>,
    data_key: &[u8],
    entry: &[u8],
) -> Result<Result<Option<NewEntry>, ()>, IndexError<T::Error>>
where
    D: for<'de> DecodeRowKey<'de>,
    R: Record,
{
    let Some(value) = tx.get(data_key).await? else {
        return Ok(Ok(None));
    };
    let Some((data, record)) = decode_row::<D, R>(data_key, &value) else {
        return Ok(Err(()));
    };
    let entries = index.new_entries(&data, &record)?;
    Ok(Ok(entries.into_iter().find(|(e, _)| e == entry)))
}

/// A repair's write: missing entries written, wrong ones removed, each
/// checked again against its data row first. Returns what it did and how
/// many it found already made right.
enum Mend<'a> {
    Write {
        index: &'static Layout,
        missing: &'a [(Vec<u8>, Vec<u8>)],
        ts: u64,
    },
    Remove {
        index: &'static Layout,
        wrong: &'a [(Vec<u8>, u64, Vec<u8>)],
    },
}

impl<D, R> WriteOp<D, R> for Mend<'_>
where
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    type Out = (u64, u64);

    async fn run<T: Steps>(
        self,
        indexes: &Indexes<D, R>,
        tx: &mut T,
    ) -> Result<(u64, u64), IndexError<T::Error>> {
        let (mut done, mut changed) = (0, 0);
        match self {
            Mend::Write { index, missing, ts } => {
                let ix = indexes.find(index)?;
                for (entry, data_key) in missing {
                    if let Ok(Some(entry)) = entry_of(tx, ix, data_key, entry).await? {
                        tx.put(&entry_rows(alloc::vec![entry], ts), ts).await?;
                        done += 1;
                    } else {
                        changed += 1;
                    }
                }
            }
            Mend::Remove { index, wrong } => {
                let ix = indexes.find(index)?;
                for (entry, ts, data_key) in wrong {
                    if let Ok(Some(_)) = entry_of(tx, ix, data_key, entry).await? {
                        changed += 1;
                    } else {
                        tx.delete(core::slice::from_ref(entry), *ts).await?;
                        done += 1;
                    }
                }
            }
        }
        Ok((done, changed))
    }
}

/// The verify of `index`: see `IndexedTable::verify`.
pub(super) async fn verify<E, D, R>(
    table: &E,
    index: &'static Layout,
) -> Result<IndexReport, IndexError<E::Error>>
where
    E: Engine<D, R>,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    Ok(check(table, index, false).await?.0)
}

/// The repair of `index`: see `IndexedTable::repair`.
pub(super) async fn repair<E, D, R>(
    table: &E,
    index: &'static Layout,
    grace: Duration,
) -> Result<RepairReport, IndexError<E::Error>>
where
    E: Engine<D, R>,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    let (found, left) = check(table, index, true).await?;
    mend(table, index, grace, found, left).await
}

/// A repair's writes, from what a check found: see `IndexedTable::repair`.
pub(super) async fn mend<E, D, R>(
    table: &E,
    index: &'static Layout,
    grace: Duration,
    found: IndexReport,
    left: Leftovers,
) -> Result<RepairReport, IndexError<E::Error>>
where
    E: Engine<D, R>,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    let mut report = RepairReport {
        found,
        ..RepairReport::default()
    };
    let now = timestamp();
    let cutoff = now.saturating_sub(grace.as_millis() as u64);
    // An entry of stale covered values is written again with its record's,
    // as a missing one is (after the grace period: a put may be between
    // its entries and its data row).
    let (old, young): (Vec<_>, Vec<_>) = left
        .uncovered
        .into_iter()
        .partition(|(_, ts, _)| *ts <= cutoff);
    report.spared = young.len() as u64;
    let mut write = left.missing;
    write.extend(old.into_iter().map(|(e, _, d)| (e, d)));
    for missing in write.chunks(PAGE) {
        let (written, changed) = table
            .write(Mend::Write {
                index,
                missing,
                ts: now,
            })
            .await?;
        report.written += written;
        report.changed += changed;
    }
    let (old, young): (Vec<_>, Vec<_>) =
        left.wrong.into_iter().partition(|(_, ts, _)| *ts <= cutoff);
    report.spared += young.len() as u64;
    for wrong in old.chunks(PAGE) {
        let (removed, changed) = table.write(Mend::Remove { index, wrong }).await?;
        report.removed += removed;
        report.changed += changed;
    }
    Ok(report)
}

/// Both sides of an index: the report, and the leftovers to mend.
///
/// The index's rows are scanned and each entry's data row fetched (a
/// batched get per page); the data rows are scanned and their entries
/// counted: each valid entry is one of them, so the missing ones are the
/// difference, with no read of the index by key. Only when some are
/// missing and `list_missing` asks which (a repair) are the data rows'
/// entries looked up, a batched get per page.
pub(super) async fn check<E, D, R>(
    table: &E,
    layout: &'static Layout,
    list_missing: bool,
) -> Result<(IndexReport, Leftovers), IndexError<E::Error>>
where
    E: Engine<D, R>,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    let index = table.indexes().find(layout)?;
    let mut sides = Sides::default();
    let (from, stop) = family(layout);
    index_side(table, index, from, &stop, &mut sides).await?;
    let (from, stop) = family(D::LAYOUT);
    data_side(table, index, from, &stop, &mut sides).await?;
    finish_check(table, index, sides, list_missing).await
}

/// What the two sides of a check counted, over all their ranges.
#[derive(Default)]
pub(super) struct Sides {
    pub(super) report: IndexReport,
    pub(super) left: Leftovers,
    /// The entries the data rows' records have.
    pub(super) wanted: u64,
}

impl Sides {
    /// Both counts, as one check over the ranges of both.
    pub(super) fn add(&mut self, other: Sides) {
        let (r, o) = (&mut self.report, other.report);
        r.valid += o.valid;
        r.missing += o.missing;
        r.orphan += o.orphan;
        r.stale += o.stale;
        r.stale_covered += o.stale_covered;
        r.undecodable += o.undecodable;
        self.left.missing.extend(other.left.missing);
        self.left.wrong.extend(other.left.wrong);
        self.left.uncovered.extend(other.left.uncovered);
        self.wanted += other.wanted;
    }
}

/// The missing entries from both sides' counts, listed when asked for.
pub(super) async fn finish_check<E, D, R>(
    table: &E,
    index: &Registered<D, R>,
    sides: Sides,
    list_missing: bool,
) -> Result<(IndexReport, Leftovers), IndexError<E::Error>>
where
    E: Engine<D, R>,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    let Sides {
        mut report,
        mut left,
        wanted,
    } = sides;
    report.missing = wanted.saturating_sub(report.valid);
    if report.missing > 0 && list_missing {
        let (from, stop) = family(D::LAYOUT);
        report.missing = list_missing_entries(table, index, from, &stop, &mut left).await?;
    }
    Ok((report, left))
}

/// The index's side over `[from, stop)`: does each entry's data row exist
/// and have it?
pub(super) async fn index_side<E, D, R>(
    table: &E,
    index: &Registered<D, R>,
    mut from: Vec<u8>,
    stop: &[u8],
    sides: &mut Sides,
) -> Result<(), IndexError<E::Error>>
where
    E: Engine<D, R>,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    let (report, left) = (&mut sides.report, &mut sides.left);
    loop {
        let page = table.scan(&from, stop, None, PAGE).await?;
        let mut hits = Vec::with_capacity(page.rows.len());
        for (entry, value) in &page.rows {
            let ts = entry_timestamp(value);
            match (index.data_key)(entry).map(|d| d.encode_to_vec()) {
                Ok(Ok(data_key)) => hits.push((entry, value, ts, data_key)),
                Ok(Err(e)) => return Err(IndexError::Encode(e)),
                Err(_) => report.undecodable += 1,
            }
        }
        let keys: Vec<Vec<u8>> = hits.iter().map(|h| h.3.clone()).collect();
        let values = if keys.is_empty() {
            Vec::new()
        } else {
            table.get_many(&keys).await?
        };
        for ((entry, entry_value, ts, data_key), value) in hits.into_iter().zip(values) {
            let Some(value) = value else {
                report.orphan += 1;
                left.wrong.push((entry.clone(), ts, data_key));
                continue;
            };
            // A record that does not decode is counted on the data side.
            let Some((data, record)) = decode_row::<D, R>(&data_key, &value) else {
                continue;
            };
            let entries = (index.entries)(&data, &record).map_err(IndexError::Encode)?;
            if entries.contains(entry) {
                report.valid += 1;
                if let Some(covered) = index.covered {
                    if entry_value.get(8..) != Some(covered(&data, &record).as_slice()) {
                        report.stale_covered += 1;
                        left.uncovered.push((entry.clone(), ts, data_key));
                    }
                }
            } else {
                report.stale += 1;
                left.wrong.push((entry.clone(), ts, data_key));
            }
        }
        if !next_page(&page.rows, PAGE, &mut from) {
            return Ok(());
        }
    }
}

/// The data side over `[from, stop)`: how many entries the records have
/// (and which rows do not decode).
pub(super) async fn data_side<E, D, R>(
    table: &E,
    index: &Registered<D, R>,
    mut from: Vec<u8>,
    stop: &[u8],
    sides: &mut Sides,
) -> Result<(), IndexError<E::Error>>
where
    E: Engine<D, R>,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    loop {
        let page = table.scan(&from, stop, None, PAGE).await?;
        for (key, value) in &page.rows {
            match decode_row::<D, R>(key, value) {
                Some((data, record)) => {
                    let entries = (index.entries)(&data, &record).map_err(IndexError::Encode)?;
                    sides.wanted += entries.len() as u64;
                }
                None => sides.report.undecodable += 1,
            }
        }
        if !next_page(&page.rows, PAGE, &mut from) {
            return Ok(());
        }
    }
}

/// Which entries of the records over `[from, stop)` the index lacks (a
/// batched get per page), added to `left`; how many.
async fn list_missing_entries<E, D, R>(
    table: &E,
    index: &Registered<D, R>,
    mut from: Vec<u8>,
    stop: &[u8],
    left: &mut Leftovers,
) -> Result<u64, IndexError<E::Error>>
where
    E: Engine<D, R>,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    let mut missing = 0;
    loop {
        let page = table.scan(&from, stop, None, PAGE).await?;
        let mut wanted = Vec::new();
        for (key, value) in &page.rows {
            let Some((data, record)) = decode_row::<D, R>(key, value) else {
                continue;
            };
            for entry in (index.entries)(&data, &record).map_err(IndexError::Encode)? {
                wanted.push((entry, key.clone()));
            }
        }
        let entries: Vec<Vec<u8>> = wanted.iter().map(|w| w.0.clone()).collect();
        let found = if entries.is_empty() {
            Vec::new()
        } else {
            table.get_many(&entries).await?
        };
        for (w, found) in wanted.into_iter().zip(found) {
            if found.is_none() {
                missing += 1;
                left.missing.push(w);
            }
        }
        if !next_page(&page.rows, PAGE, &mut from) {
            return Ok(missing);
        }
    }
}
