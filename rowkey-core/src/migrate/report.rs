//! What a copy did and what a verification found.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
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
