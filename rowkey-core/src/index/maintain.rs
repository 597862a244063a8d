//! Building, checking and mending an index: [`IndexedTable::backfill`],
//! [`IndexedTable::verify`] and [`IndexedTable::repair`].

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::ops::ControlFlow;
use core::time::Duration;

use super::query::PAGE;
use super::table::{entry_rows, entry_timestamp, family, timestamp, IndexedTable, Registered};
use super::{Index, IndexError, Record, Store, StoreTx};
use crate::key::{DecodeRowKey, RowKey};

/// What [`IndexedTable::verify`] found, reading both sides of an index.
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
    /// Index rows whose key does not decode, and data rows whose key or
    /// record does not.
    pub undecodable: u64,
}

impl IndexReport {
    /// No entry missing, orphan or stale, and nothing undecodable.
    pub fn is_clean(&self) -> bool {
        self.missing == 0 && self.orphan == 0 && self.stale == 0 && self.undecodable == 0
    }
}

/// What [`IndexedTable::repair`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RepairReport {
    /// What `verify` found before the repair.
    pub found: IndexReport,
    /// Missing entries written.
    pub written: u64,
    /// Orphan and stale entries removed.
    pub removed: u64,
    /// Orphan and stale entries left because they are younger than the
    /// grace period (a write may still be in flight).
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
struct Leftovers {
    /// `(entry, data key)` of every missing entry.
    missing: Vec<(Vec<u8>, Vec<u8>)>,
    /// `(entry, its timestamp, data key)` of every orphan or stale entry.
    wrong: Vec<(Vec<u8>, u64, Vec<u8>)>,
}

/// A backfill's progress callback.
type Progress<'t> = Box<dyn FnMut(&BackfillReport) -> ControlFlow<()> + 't>;

/// A run of [`IndexedTable::backfill`]: set where to start, the page size
/// and a progress callback, then [`run`](Self::run) it.
#[must_use = "a backfill does nothing until it is run"]
pub struct Backfill<'t, S, D, R> {
    table: &'t IndexedTable<S, D, R>,
    index: usize,
    resume: Option<Vec<u8>>,
    page: usize,
    progress: Option<Progress<'t>>,
}

impl<'t, S, D, R> Backfill<'t, S, D, R>
where
    S: Store,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
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

    /// Calls `f` after each page with the report so far; when it returns
    /// `ControlFlow::Break`, the backfill stops there (its report's
    /// checkpoint says where to resume).
    pub fn on_progress(mut self, f: impl FnMut(&BackfillReport) -> ControlFlow<()> + 't) -> Self {
        self.progress = Some(Box::new(f));
        self
    }

    /// Reads the data rows from the start (or the checkpoint) and writes
    /// each record's entries, one write per page. Each data row is read
    /// again inside the write and indexed only if it is unchanged, so a
    /// put that races the backfill is not undone (a store without
    /// transactions narrows that window to the row's read and write).
    pub fn run(mut self) -> Result<BackfillReport, IndexError<S::Error>> {
        let table = self.table;
        let ix = &table.indexes[self.index];
        let (start, stop) = family(D::LAYOUT);
        let mut from = match self.resume.take() {
            Some(mut after) => {
                after.push(0);
                after
            }
            None => start,
        };
        let mut report = BackfillReport::default();
        loop {
            let page = table.store.scan(&from, &stop, None, self.page)?;
            let full = page.rows.len() == self.page;
            let Some((last, _)) = page.rows.last() else {
                report.complete = true;
                return Ok(report);
            };
            from.clone_from(last);
            from.push(0);
            let last = last.clone();
            let mut todo = Vec::with_capacity(page.rows.len());
            for (key, value) in page.rows {
                report.data_rows += 1;
                match decode_row::<D, R>(&key, &value) {
                    Some((data, record)) => {
                        let entries = (ix.entries)(&data, &record).map_err(IndexError::Encode)?;
                        todo.push((key, value, entries));
                    }
                    None => report.undecodable += 1,
                }
            }
            let ts = timestamp();
            report.entries += table.store.write(|tx| {
                let mut written = 0;
                for (key, value, entries) in &todo {
                    if entries.is_empty() || tx.get(key)?.as_deref() != Some(value.as_slice()) {
                        continue;
                    }
                    tx.put(&entry_rows(entries, ts), ts)?;
                    written += entries.len() as u64;
                }
                Ok::<_, IndexError<S::Error>>(written)
            })?;
            report.checkpoint = Some(last);
            if !full {
                report.complete = true;
                return Ok(report);
            }
            if let Some(progress) = self.progress.as_mut() {
                if progress(&report).is_break() {
                    return Ok(report);
                }
            }
        }
    }
}

/// A data row's key and record, or `None` when either does not decode.
fn decode_row<D: for<'de> DecodeRowKey<'de>, R: Record>(
    key: &[u8],
    value: &[u8],
) -> Option<(D, R)> {
    Some((D::decode(key).ok()?, R::from_value(value).ok()?))
}

impl<S, D, R> IndexedTable<S, D, R>
where
    S: Store,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    /// Builds index `I` over the rows already written (after
    /// [`with_index`](Self::with_index) added it, so new puts write it
    /// too): resumable from a checkpoint, interruptible from its progress
    /// callback, and idempotent.
    pub fn backfill<I: Index<Data = D, Record = R>>(
        &self,
    ) -> Result<Backfill<'_, S, D, R>, IndexError<S::Error>> {
        Ok(Backfill {
            table: self,
            index: self.registered(I::LAYOUT)?,
            resume: None,
            page: PAGE,
            progress: None,
        })
    }

    /// Reads every entry of index `I` and every data row, and counts
    /// entries valid, missing, orphan and stale, and rows that do not
    /// decode. A write running meanwhile can make a count off by its own
    /// entries; run it again, or [`repair`](Self::repair), which checks
    /// each leftover again before it acts.
    pub fn verify<I: Index<Data = D, Record = R>>(
        &self,
    ) -> Result<IndexReport, IndexError<S::Error>> {
        let index = &self.indexes[self.registered(I::LAYOUT)?];
        Ok(self.check(index)?.0)
    }

    /// Mends index `I`: writes its missing entries and removes its orphan
    /// and stale entries that are older than `grace` (younger ones may
    /// belong to a write in flight, and are left: [`RepairReport::spared`]).
    /// Each leftover is checked again against its data row, inside the
    /// write that mends it. Undecodable rows are left alone (they are
    /// counted in the report's `found`). A repair after a repair with
    /// nothing written in between changes nothing.
    pub fn repair<I: Index<Data = D, Record = R>>(
        &self,
        grace: Duration,
    ) -> Result<RepairReport, IndexError<S::Error>> {
        let index = &self.indexes[self.registered(I::LAYOUT)?];
        let (found, left) = self.check(index)?;
        let mut report = RepairReport {
            found,
            ..RepairReport::default()
        };
        let now = timestamp();
        let cutoff = now.saturating_sub(grace.as_millis() as u64);
        for chunk in left.missing.chunks(PAGE) {
            let (written, changed) = self.store.write(|tx| {
                let (mut written, mut changed) = (0, 0);
                for (entry, data_key) in chunk {
                    if self.has_entry(tx, index, data_key, entry)? == Some(true) {
                        tx.put(&entry_rows(core::slice::from_ref(entry), now), now)?;
                        written += 1;
                    } else {
                        changed += 1;
                    }
                }
                Ok::<_, IndexError<S::Error>>((written, changed))
            })?;
            report.written += written;
            report.changed += changed;
        }
        let (old, young): (Vec<_>, Vec<_>) =
            left.wrong.into_iter().partition(|(_, ts, _)| *ts <= cutoff);
        report.spared = young.len() as u64;
        for chunk in old.chunks(PAGE) {
            let (removed, changed) = self.store.write(|tx| {
                let (mut removed, mut changed) = (0, 0);
                for (entry, ts, data_key) in chunk {
                    if self.has_entry(tx, index, data_key, entry)? == Some(true) {
                        changed += 1;
                    } else {
                        tx.delete(core::slice::from_ref(entry), *ts)?;
                        removed += 1;
                    }
                }
                Ok::<_, IndexError<S::Error>>((removed, changed))
            })?;
            report.removed += removed;
            report.changed += changed;
        }
        Ok(report)
    }

    /// Whether the data row under `data_key` has `entry`, as `tx` sees it:
    /// `None` when the row's record does not decode.
    fn has_entry(
        &self,
        tx: &mut dyn StoreTx<Error = S::Error>,
        index: &Registered<D, R>,
        data_key: &[u8],
        entry: &[u8],
    ) -> Result<Option<bool>, IndexError<S::Error>> {
        let Some(value) = tx.get(data_key)? else {
            return Ok(Some(false));
        };
        let Some((data, record)) = decode_row::<D, R>(data_key, &value) else {
            return Ok(None);
        };
        let entries = (index.entries)(&data, &record).map_err(IndexError::Encode)?;
        Ok(Some(entries.iter().any(|e| e == entry)))
    }

    /// Both sides of an index: the report, and the leftovers to mend.
    fn check(
        &self,
        index: &Registered<D, R>,
    ) -> Result<(IndexReport, Leftovers), IndexError<S::Error>> {
        let mut report = IndexReport::default();
        let mut left = Leftovers::default();
        // The index's side: does each entry's data row exist and have it?
        let (mut from, stop) = family(index.layout);
        loop {
            let page = self.store.scan(&from, &stop, None, PAGE)?;
            let mut hits = Vec::with_capacity(page.rows.len());
            for (entry, value) in &page.rows {
                let ts = entry_timestamp(value);
                match (index.data_key)(entry).map(|d| d.encode_to_vec()) {
                    Ok(Ok(data_key)) => hits.push((entry, ts, data_key)),
                    Ok(Err(e)) => return Err(IndexError::Encode(e)),
                    Err(_) => report.undecodable += 1,
                }
            }
            let keys: Vec<Vec<u8>> = hits.iter().map(|h| h.2.clone()).collect();
            let values = if keys.is_empty() {
                Vec::new()
            } else {
                self.store.get_many(&keys)?
            };
            for ((entry, ts, data_key), value) in hits.into_iter().zip(values) {
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
                } else {
                    report.stale += 1;
                    left.wrong.push((entry.clone(), ts, data_key));
                }
            }
            match page.rows.last() {
                Some((last, _)) if page.rows.len() == PAGE => {
                    from.clone_from(last);
                    from.push(0);
                }
                _ => break,
            }
        }
        // The data side: does the index have each record's entries?
        let (mut from, stop) = family(D::LAYOUT);
        loop {
            let page = self.store.scan(&from, &stop, None, PAGE)?;
            let mut wanted = Vec::new();
            for (key, value) in &page.rows {
                let Some((data, record)) = decode_row::<D, R>(key, value) else {
                    report.undecodable += 1;
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
                self.store.get_many(&entries)?
            };
            for (w, found) in wanted.into_iter().zip(found) {
                if found.is_none() {
                    report.missing += 1;
                    left.missing.push(w);
                }
            }
            match page.rows.last() {
                Some((last, _)) if page.rows.len() == PAGE => {
                    from.clone_from(last);
                    from.push(0);
                }
                _ => break,
            }
        }
        Ok((report, left))
    }
}
