//! A blocking table's `verify`, `repair` and `backfill` on several
//! threads: a check reads its ranges (each family cut where its salt
//! buckets and the store's regions start) side by side; a backfill writes several pages at once
//! while it reads the next.

use alloc::vec::Vec;
use core::time::Duration;
use std::sync::{mpsc, Mutex};

use super::engine::{family, Engine, Registered};
use super::io::ready;
use super::maintain::{
    self, Backfill, BackfillReport, IndexPage, IndexReport, Leftovers, RepairReport, Sides,
};
use super::{Index, IndexError, IndexedTable, Record, Store};
use crate::key::{DecodeRowKey, RowKey};
use crate::layout::Layout;

impl<S, D, R> IndexedTable<S, D, R>
where
    S: Store + Sync,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    /// Reads every entry of index `I` and every data row, and counts
    /// entries valid, missing, orphan and stale, and rows that do not
    /// decode: the index's rows with a batched get of their data rows, the
    /// data rows by a scan alone (their entries counted: the missing ones
    /// are those the valid ones do not account for), each family's salt
    /// buckets and the store's parts ([`Store::split_hints`]: HBase's
    /// regions) on threads of their own (up to 8). A write running
    /// meanwhile can make a count off by its own entries; run it again, or
    /// [`repair`](Self::repair), which checks each leftover again before it
    /// acts.
    pub fn verify<I: Index<Data = D, Record = R>>(
        &self,
    ) -> Result<IndexReport, IndexError<S::Error>> {
        Ok(check(self, I::LAYOUT, false)?.0)
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
        let (found, left) = check(self, I::LAYOUT, true)?;
        ready(maintain::mend(self, I::LAYOUT, grace, found, left))
    }
}

impl<S, D, R> Backfill<'_, IndexedTable<S, D, R>>
where
    S: Store + Sync,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    /// Reads the data rows from the start (or the checkpoint) and writes
    /// each record's entries, one write per page,
    /// [`workers`](Backfill::workers) pages at once.
    pub fn run(mut self) -> Result<BackfillReport, IndexError<S::Error>> {
        backfill(&mut self)
    }
}

/// Threads of a check (at most: one per range).
const CHECK_THREADS: usize = 8;

/// A range's start (inclusive) and stop (exclusive; empty: the end).
type Bounds = (Vec<u8>, Vec<u8>);

/// A family's rows cut where its salt buckets and the store's own parts
/// (HBase's regions) start: ranges a check reads side by side (one range
/// when it has neither).
fn parts<S: Store>(store: &S, layout: &Layout) -> Result<Vec<Bounds>, S::Error> {
    let (start, stop) = family(layout);
    let mut cuts: Vec<Vec<u8>> = layout
        .split_points()
        .into_iter()
        .chain(store.split_hints(&start, &stop)?)
        .filter(|p| *p > start && (stop.is_empty() || *p < stop))
        .collect();
    cuts.sort();
    cuts.dedup();
    let mut out = Vec::with_capacity(cuts.len() + 1);
    let mut from = start;
    for cut in cuts {
        out.push((core::mem::replace(&mut from, cut.clone()), cut));
    }
    out.push((from, stop));
    Ok(out)
}

/// A range of one side of a check.
enum Part {
    Index(Vec<u8>, Vec<u8>),
    Data(Vec<u8>, Vec<u8>),
}

/// `maintain::check` with the ranges of both sides read by up to
/// [`CHECK_THREADS`] threads.
pub(super) fn check<S, D, R>(
    table: &IndexedTable<S, D, R>,
    layout: &'static Layout,
    list_missing: bool,
) -> Result<(IndexReport, Leftovers), IndexError<S::Error>>
where
    S: Store + Sync,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    let index = table.indexes().find(layout)?;
    let store = table.store();
    let mut jobs: Vec<Part> = parts(store, layout)?
        .into_iter()
        .map(|(f, s)| Part::Index(f, s))
        .collect();
    jobs.extend(
        parts(store, D::LAYOUT)?
            .into_iter()
            .map(|(f, s)| Part::Data(f, s)),
    );
    let threads = jobs.len().min(CHECK_THREADS);
    let mut shares: Vec<Vec<Part>> = (0..threads).map(|_| Vec::new()).collect();
    for (i, job) in jobs.into_iter().enumerate() {
        shares[i % threads].push(job);
    }
    let results: Vec<Result<Sides, IndexError<S::Error>>> = std::thread::scope(|s| {
        let handles: Vec<_> = shares
            .into_iter()
            .map(|share| s.spawn(move || read_parts(table, index, share)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    let mut sides = Sides::default();
    for result in results {
        sides.add(result?);
    }
    ready(maintain::finish_check(table, index, sides, list_missing))
}

fn read_parts<S, D, R>(
    table: &IndexedTable<S, D, R>,
    index: &Registered<D, R>,
    share: Vec<Part>,
) -> Result<Sides, IndexError<S::Error>>
where
    S: Store,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    let mut sides = Sides::default();
    for part in share {
        match part {
            Part::Index(from, stop) => {
                ready(maintain::index_side(table, index, from, &stop, &mut sides))?
            }
            Part::Data(from, stop) => {
                ready(maintain::data_side(table, index, from, &stop, &mut sides))?
            }
        }
    }
    Ok(sides)
}

/// A page handed to a writer: its place in the read order and its write.
type Job = (u64, IndexPage);

/// A page's place and what writing it did.
type Done<E> = (u64, Result<u64, IndexError<E>>);

/// `maintain::backfill` with `b.workers` pages written at once while the
/// next are read. The checkpoint advances over the pages done without a
/// gap; on a stop (the progress callback's `Break`) or an error, the
/// pages in flight are finished first.
pub(super) fn backfill<S, D, R>(
    b: &mut Backfill<'_, IndexedTable<S, D, R>>,
) -> Result<BackfillReport, IndexError<S::Error>>
where
    S: Store + Sync,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    if b.workers <= 1 {
        return ready(maintain::backfill(b));
    }
    let table = b.table;
    let ix = table.indexes().find(b.index)?;
    let (start, stop) = family(D::LAYOUT);
    let mut from = b.first_key(start);
    let (jobs, queue) = mpsc::sync_channel::<Job>(b.workers);
    let queue = Mutex::new(queue);
    let (done_tx, done) = mpsc::channel::<Done<S::Error>>();
    std::thread::scope(|s| {
        for _ in 0..b.workers {
            let (queue, done_tx) = (&queue, done_tx.clone());
            s.spawn(move || loop {
                // A poisoned lock or a closed queue: no more pages.
                let Ok(Ok((seq, page))) = queue.lock().map(|q| q.recv()) else {
                    return;
                };
                if done_tx.send((seq, ready(table.write(page)))).is_err() {
                    return;
                }
            });
        }
        drop(done_tx);
        let mut run = Run::default();
        loop {
            while let Ok(done) = done.try_recv() {
                run.take(done);
            }
            if run.advance() {
                if let Some(progress) = b.progress.as_mut() {
                    run.stopped = progress(&run.report).is_break();
                }
            }
            if run.failed.is_some() || run.stopped {
                break;
            }
            let page = match ready(table.scan(&from, &stop, None, b.page)) {
                Ok(page) => page,
                Err(e) => {
                    run.failed = Some(IndexError::Store(e));
                    break;
                }
            };
            let full = page.rows.len() == b.page;
            let Some((last, _)) = page.rows.last() else {
                run.report.complete = true;
                break;
            };
            from.clone_from(last);
            from.push(0);
            let last = last.clone();
            let job = match maintain::index_page(ix, page.rows, &mut run.report) {
                Ok(job) => job,
                Err(e) => {
                    run.failed = Some(e);
                    break;
                }
            };
            run.lasts.insert(run.sent, last);
            if jobs.send((run.sent, job)).is_err() {
                break;
            }
            run.sent += 1;
            if !full {
                run.report.complete = true;
                break;
            }
        }
        drop(jobs);
        // The pages in flight finish; their results come in.
        for done in done.iter() {
            run.take(done);
        }
        run.advance();
        let Run {
            mut report,
            failed,
            sent,
            next,
            ..
        } = run;
        if next < sent {
            report.complete = false;
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(report),
        }
    })
}

/// A parallel backfill's bookkeeping.
struct Run<E> {
    report: BackfillReport,
    /// Pages sent to the writers.
    sent: u64,
    /// The first page not known done.
    next: u64,
    /// Pages done after `next`.
    finished: alloc::collections::BTreeSet<u64>,
    /// The last key of each page sent and not passed by the checkpoint.
    lasts: alloc::collections::BTreeMap<u64, Vec<u8>>,
    failed: Option<IndexError<E>>,
    stopped: bool,
}

impl<E> Default for Run<E> {
    fn default() -> Self {
        Run {
            report: BackfillReport::default(),
            sent: 0,
            next: 0,
            finished: Default::default(),
            lasts: Default::default(),
            failed: None,
            stopped: false,
        }
    }
}

impl<E> Run<E> {
    /// A page's result.
    fn take(&mut self, (seq, result): Done<E>) {
        match result {
            Ok(n) => {
                self.report.entries += n;
                self.finished.insert(seq);
            }
            Err(e) => {
                self.failed.get_or_insert(e);
            }
        }
    }

    /// Moves the checkpoint over the pages done without a gap: whether it
    /// moved.
    fn advance(&mut self) -> bool {
        let mut moved = false;
        while self.finished.remove(&self.next) {
            if let Some(last) = self.lasts.remove(&self.next) {
                self.report.checkpoint = Some(last);
            }
            self.next += 1;
            moved = true;
        }
        moved
    }
}
