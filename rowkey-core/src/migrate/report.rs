//! What a copy did and what a verification found.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::sync::atomic::{AtomicU64, Ordering};
use core::time::Duration;

/// The most example keys a [`VerifyReport`] keeps of each kind.
pub const MAX_EXAMPLES: usize = 100;

/// What a migration's copy did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MigrateReport {
    /// The parts of the old table (its salt buckets or regions) the copy
    /// went through.
    pub parts: u64,
    /// Parts a checkpoint said were done before this run: not read again.
    pub parts_skipped: u64,
    /// Parts a checkpoint said were started: read from after their last
    /// copied row.
    pub parts_resumed: u64,
    /// Rows read from the old table.
    pub rows_read: u64,
    /// Rows written to the new table.
    pub rows_written: u64,
    /// Key and value bytes read.
    pub bytes_read: u64,
    /// Key and value bytes written (the new keys' lengths may differ).
    pub bytes_written: u64,
    /// How long the copy took.
    pub elapsed: Duration,
}

impl fmt::Display for MigrateReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.elapsed.as_secs_f64();
        write!(
            f,
            "{} rows copied ({} read, {} bytes written) in {:.2} s ({:.0} rows/s); {} parts, {} done before, {} resumed",
            self.rows_written,
            self.rows_read,
            self.bytes_written,
            secs,
            if secs > 0.0 { self.rows_written as f64 / secs } else { 0.0 },
            self.parts,
            self.parts_skipped,
            self.parts_resumed,
        )
    }
}

/// A copy's counts as it goes, shared between the copy's workers and
/// whoever watches it (a progress bar): the HBase and Bigtable copies,
/// which run parts in parallel, add to the one their
/// `MigrateOptions::progress` gives, and [`report`](Self::report) reads
/// it at any time.
#[derive(Debug, Default)]
pub struct Progress {
    parts: AtomicU64,
    parts_done: AtomicU64,
    parts_skipped: AtomicU64,
    parts_resumed: AtomicU64,
    rows_read: AtomicU64,
    rows_written: AtomicU64,
    bytes_read: AtomicU64,
    bytes_written: AtomicU64,
}

impl Progress {
    /// The copy goes through `n` parts.
    pub fn set_parts(&self, n: u64) {
        self.parts.store(n, Ordering::Relaxed);
    }

    /// A part is done (copied now, or before this run).
    pub fn part_done(&self) {
        self.parts_done.fetch_add(1, Ordering::Relaxed);
    }

    /// A part a checkpoint said was done: not read again (and done).
    pub fn part_skipped(&self) {
        self.parts_skipped.fetch_add(1, Ordering::Relaxed);
        self.part_done();
    }

    /// A part a checkpoint said was started: read from its mark.
    pub fn part_resumed(&self) {
        self.parts_resumed.fetch_add(1, Ordering::Relaxed);
    }

    /// A row read from the old table: its key and value (or cells) bytes,
    /// and the same row's bytes under its new key.
    pub fn row_read(&self, old_bytes: u64, new_bytes: u64) {
        self.rows_read.fetch_add(1, Ordering::Relaxed);
        self.bytes_read.fetch_add(old_bytes, Ordering::Relaxed);
        self.bytes_written.fetch_add(new_bytes, Ordering::Relaxed);
    }

    /// `n` rows the new table has taken.
    pub fn rows_written(&self, n: u64) {
        self.rows_written.fetch_add(n, Ordering::Relaxed);
    }

    /// The parts done so far.
    pub fn parts_done(&self) -> u64 {
        self.parts_done.load(Ordering::Relaxed)
    }

    /// The counts so far (`elapsed` zero: the copy's own report sets it).
    pub fn report(&self) -> MigrateReport {
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        MigrateReport {
            parts: load(&self.parts),
            parts_skipped: load(&self.parts_skipped),
            parts_resumed: load(&self.parts_resumed),
            rows_read: load(&self.rows_read),
            rows_written: load(&self.rows_written),
            bytes_read: load(&self.bytes_read),
            bytes_written: load(&self.bytes_written),
            elapsed: Duration::ZERO,
        }
    }
}

/// What `verify` found comparing the old table, re-keyed, with the new.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct VerifyReport {
    /// Rows in the old table.
    pub rows_old: u64,
    /// Rows in the new table.
    pub rows_new: u64,
    /// Rows of the old table whose new key the new table lacks (or that
    /// could not be re-keyed).
    pub missing: u64,
    /// Rows of the new table no row of the old table gives.
    pub extra: u64,
    /// Rows in both whose values (cells) differ.
    pub differing: u64,
    /// Up to [`MAX_EXAMPLES`] keys of each kind, decoded.
    pub examples: Examples,
}

/// Example keys of a [`VerifyReport`], decoded with the new layout
/// (`(user_id=42, ts=1700000000000)`), or in HBase's `toStringBinary`
/// form where they do not decode.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Examples {
    /// Rows missing from the new table.
    pub missing: Vec<String>,
    /// Rows only the new table has.
    pub extra: Vec<String>,
    /// Rows whose values differ.
    pub differing: Vec<String>,
}

impl VerifyReport {
    /// Whether the new table holds exactly the old table's rows.
    pub fn is_clean(&self) -> bool {
        self.missing == 0 && self.extra == 0 && self.differing == 0
    }
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} rows old, {} new: {} missing, {} extra, {} differing",
            self.rows_old, self.rows_new, self.missing, self.extra, self.differing
        )?;
        for (kind, keys) in [
            ("missing", &self.examples.missing),
            ("extra", &self.examples.extra),
            ("differing", &self.examples.differing),
        ] {
            for key in keys {
                write!(f, "\n  {kind} {key}")?;
            }
        }
        Ok(())
    }
}
