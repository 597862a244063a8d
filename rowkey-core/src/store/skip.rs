//! The skip scan over a sorted store's range ([`SkipStream`]): return the
//! rows that match, and past a row that does not, either read on or seek to
//! the filter's hint, whichever the scan has found cheaper so far.
//!
//! - **Runs of matches.** On a fixed-width layout, the first match of a run
//!   gives the key below which every key of the layout's length matches
//!   ([`KeyFilter::run_end`]): the rows after it are compared with that key,
//!   not matched part by part.
//! - **Runs that do not match.** A seek costs about what reading
//!   [`SEEK_COST`] rows does (a new range in redb or fjall). Where the runs
//!   of rows that do not match are short (many prefixes with a few rows
//!   each), reading on to the next match is cheaper than seeking; where
//!   they are long, seeking is. The stream keeps a moving average of the
//!   runs' lengths it has seen (each capped at [`READ_ON`] rows): below
//!   `SEEK_COST` it reads on, up to `READ_ON` rows, before it seeks; above
//!   it, it seeks at once, reading on (up to `SEEK_COST` rows) only once
//!   every [`PROBE_EVERY`] runs to keep measuring. (RocksDB reads a fixed
//!   `max_sequential_skip_in_iterations` before it seeks; a fixed number
//!   was measured to make the lab's per-user "last minute" worse.)

use crate::scan::KeyFilter;

/// What a seek costs, in rows read (redb and fjall, measured by the
/// `skip_scan` benchmark: a seek costs about what ten rows do).
pub(crate) const SEEK_COST: u32 = 8;
/// The most rows read on past a row that does not match before seeking.
pub(crate) const READ_ON: u32 = 16;
/// While seeking at once, one run in this many is read on (up to
/// [`SEEK_COST`] rows), to measure it.
pub(crate) const PROBE_EVERY: u32 = 64;

/// What a skip scan ([`redb`](crate::redb) and [`fjall`](crate::fjall)
/// tables' `filter`) has cost so far: rows read from the store (matches
/// and the rows it stepped on before seeking) and seeks. Shared by the
/// scan's ranges and its iterator, so it can be read while or after it
/// runs; each range adds its counts when it seeks, when it ends and every
/// 64 rows, so while it runs they may lag by that much.
#[derive(Clone, Debug, Default)]
pub struct SkipCost(alloc::sync::Arc<[core::sync::atomic::AtomicU64; 2]>);

impl SkipCost {
    /// Rows read from the store.
    pub fn rows_read(&self) -> u64 {
        self.0[0].load(core::sync::atomic::Ordering::Relaxed)
    }

    /// Seeks: each a new range read from a [`seek_hint`](crate::KeyFilter::seek_hint).
    pub fn seeks(&self) -> u64 {
        self.0[1].load(core::sync::atomic::Ordering::Relaxed)
    }

    fn add(&self, rows: u64, seeks: u64) {
        use core::sync::atomic::Ordering::Relaxed;
        if rows > 0 {
            self.0[0].fetch_add(rows, Relaxed);
        }
        if seeks > 0 {
            self.0[1].fetch_add(seeks, Relaxed);
        }
    }
}

/// A stored row as a store's range gives it, or the store's error.
pub type StoredRow<K, V, E> = Result<(K, V), E>;

/// A store's range that can start again further on: what a skip scan
/// needs of it.
#[doc(hidden)]
pub trait Seek {
    /// A stored key.
    type Key: AsRef<[u8]>;
    /// A stored value.
    type Value;
    /// The store's error.
    type Error;
    /// The next row of the range.
    fn next_row(&mut self) -> Option<StoredRow<Self::Key, Self::Value, Self::Error>>;
    /// Continues the range from `from` (inclusive) to its end; `from` is
    /// after every row read so far.
    fn seek(&mut self, from: &[u8]) -> Result<(), Self::Error>;
}

/// The moving average of the runs of rows that do not match, in
/// sixteenths of a row, and how many runs there were.
struct Runs {
    mean: u32,
    count: u32,
}

impl Runs {
    /// Rows to read on past a row that does not match before seeking.
    fn read_on(&self) -> u32 {
        if self.mean < SEEK_COST * 16 {
            READ_ON
        } else if self.count % PROBE_EVERY == 0 {
            SEEK_COST
        } else {
            0
        }
    }

    /// A run of `rows` rows read on (at most [`READ_ON`]: the run may be
    /// longer).
    fn record(&mut self, rows: u32) {
        // An average over the last eight runs or so.
        self.mean = self.mean - self.mean / 8 + rows * 16 / 8;
        self.sought();
    }

    /// A run sought past at once: counted, not measured.
    fn sought(&mut self) {
        self.count = self.count.wrapping_add(1);
    }
}

/// One range of a skip scan: the rows that match, reading on past a run
/// that cannot or seeking to the filter's hint (see the module docs).
#[doc(hidden)]
pub struct SkipStream<'f, S> {
    range: S,
    filter: &'f KeyFilter,
    cost: SkipCost,
    /// Rows read and seeks not yet added to `cost`.
    rows: u64,
    seeks: u64,
    /// Keys of `run_len` bytes below `run_end` match (unbounded when
    /// `run_bounded` is false); `run_len` 0: no run.
    run_end: alloc::vec::Vec<u8>,
    run_bounded: bool,
    run_len: usize,
    runs: Runs,
}

impl<'f, S> SkipStream<'f, S> {
    pub(crate) fn new(range: S, filter: &'f KeyFilter, cost: SkipCost) -> Self {
        SkipStream {
            range,
            filter,
            cost,
            rows: 0,
            seeks: 0,
            run_end: alloc::vec::Vec::new(),
            run_bounded: false,
            run_len: 0,
            // At first, seek at once (probing the first run, which decides
            // alone whether to read on).
            runs: Runs {
                mean: SEEK_COST * 16,
                count: 0,
            },
        }
    }

    /// Adds the counts so far to the shared cost.
    fn flush(&mut self) {
        self.cost.add(self.rows, self.seeks);
        self.rows = 0;
        self.seeks = 0;
    }

    /// Whether `key` is in the current run of matches.
    #[inline]
    fn in_run(&self, key: &[u8]) -> bool {
        self.run_len == key.len() && (!self.run_bounded || key < self.run_end.as_slice())
    }

    /// Whether `key` matches the filter; a match starts a run (on a
    /// fixed-width layout).
    fn starts_run(&mut self, key: &[u8]) -> bool {
        if !self.filter.matches(key) {
            return false;
        }
        match self.filter.run_end(key, &mut self.run_end) {
            Some(bounded) => {
                self.run_bounded = bounded;
                self.run_len = key.len();
            }
            None => self.run_len = 0,
        }
        true
    }

    /// Whether `key` matches: inside the current run, or by the filter.
    fn matches(&mut self, key: &[u8]) -> bool {
        self.in_run(key) || self.starts_run(key)
    }
}

impl<S> Drop for SkipStream<'_, S> {
    fn drop(&mut self) {
        self.flush();
    }
}

impl<S: Seek> Iterator for SkipStream<'_, S> {
    type Item = Result<(S::Key, S::Value), S::Error>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let mut row = match self.next_read() {
            Some(Ok(row)) => row,
            other => return other,
        };
        loop {
            if self.matches(row.0.as_ref()) {
                return Some(Ok(row));
            }
            // A run that does not match: read on through it, or seek.
            let limit = self.runs.read_on();
            let mut read = 0;
            while read < limit {
                row = match self.next_read() {
                    Some(Ok(next)) => next,
                    other => {
                        // The range ended (or failed) inside the run.
                        self.runs.record(read);
                        return other;
                    }
                };
                read += 1;
                if self.matches(row.0.as_ref()) {
                    self.runs.record(read);
                    return Some(Ok(row));
                }
            }
            if limit > 0 {
                self.runs.record(READ_ON);
            } else {
                self.runs.sought();
            }
            let key = row.0.as_ref();
            // Nothing after this key can match: the range is done.
            let Some(mut hint) = self.filter.seek_hint(key) else {
                self.flush();
                return None;
            };
            // A seek goes forwards, past `key`: a hint at or before it
            // would read the same rows again, forever.
            debug_assert!(
                hint.as_slice() > key,
                "a skip scan's hint must be past the key it is for"
            );
            if hint.as_slice() <= key {
                hint.clear();
                hint.extend_from_slice(key);
                hint.push(0);
            }
            self.seeks += 1;
            self.flush();
            if let Err(e) = self.range.seek(&hint) {
                return Some(Err(e));
            }
            row = match self.next_read() {
                Some(Ok(next)) => next,
                other => return other,
            };
        }
    }
}

impl<S: Seek> SkipStream<'_, S> {
    /// The range's next row, counted; at its end, the counts are added.
    #[inline]
    fn next_read(&mut self) -> Option<StoredRow<S::Key, S::Value, S::Error>> {
        match self.range.next_row() {
            Some(row) => {
                self.rows += 1;
                if self.rows == 64 {
                    self.flush();
                }
                Some(row)
            }
            None => {
                self.flush();
                None
            }
        }
    }
}
