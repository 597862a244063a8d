//! The copy and the verification, written once over what an embedded
//! store gives: transactions that read the old table and write the new
//! one (the copy), and a snapshot of both (the verification). redb's and
//! fjall's modules implement the two traits.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use std::time::Instant;

use xxhash_rust::xxh3::xxh3_64;

use super::report::{MigrateReport, VerifyReport, MAX_EXAMPLES};
use super::{MigrateError, Migration};
use crate::format::binary::to_string_binary;

/// The rows a copy transaction reads per page: a page is one transaction,
/// so this bounds both the copy's memory and how long a service's write
/// waits behind it.
pub const PAGE_ROWS: usize = 2_000;

/// One write transaction of a copy: it reads the old table and writes the
/// new one and the checkpoint, all committed together or not at all.
pub trait CopyTx {
    /// Appends to `out` up to `limit` rows of the old table from `start`
    /// (included) to `end` (excluded; `None`: the table's end), in key
    /// order.
    fn old_rows(
        &mut self,
        start: &[u8],
        end: Option<&[u8]>,
        limit: usize,
        out: &mut Vec<(Vec<u8>, Vec<u8>)>,
    ) -> Result<(), MigrateError>;
    /// Writes (or replaces) a row of the new table.
    fn put_new(&mut self, key: &[u8], value: &[u8]) -> Result<(), MigrateError>;
    /// The checkpoint entry `name`.
    fn mark(&mut self, name: &str) -> Result<Option<Vec<u8>>, MigrateError>;
    /// Writes the checkpoint entry `name`.
    fn set_mark(&mut self, name: &str, value: &[u8]) -> Result<(), MigrateError>;
}

/// A store a copy runs on: each call of `transact` one write transaction,
/// committed when `f` returns `Ok`.
pub trait CopyStore {
    /// Runs `f` in one write transaction and commits it.
    fn transact(
        &self,
        f: &mut dyn FnMut(&mut dyn CopyTx) -> Result<(), MigrateError>,
    ) -> Result<(), MigrateError>;
}

/// Which of the two tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The old table.
    Old,
    /// The new table.
    New,
}

/// What [`Snapshot::for_each`] calls with each row's key and value.
pub type EachRow<'a> = dyn FnMut(&[u8], &[u8]) -> Result<(), MigrateError> + 'a;

/// A consistent view of both tables, for `verify`.
pub trait Snapshot {
    /// Calls `f` with every row of `source`, in key order.
    fn for_each(&self, source: Source, f: &mut EachRow<'_>) -> Result<(), MigrateError>;
    /// The value of `key` in `source`.
    fn get(&self, source: Source, key: &[u8]) -> Result<Option<Vec<u8>>, MigrateError>;
}

/// Copies the old table's rows, re-keyed by `migration`, into the new
/// table `new_table` of `store`, part by part with a checkpoint per page.
pub fn copy(
    store: &dyn CopyStore,
    new_table: &str,
    migration: &Migration,
) -> Result<MigrateReport, MigrateError> {
    migration.check()?;
    let started = Instant::now();
    let parts = parts(migration);
    let mut report = MigrateReport {
        parts: parts.len() as u64,
        ..MigrateReport::default()
    };
    let id = checkpoint_id(migration, parts.len());
    store.transact(&mut |tx| match tx.mark("migration")? {
        Some(found) if found == id => Ok(()),
        Some(_) => Err(MigrateError::Checkpoint {
            table: new_table.into(),
            problem: "it belongs to a migration between other layouts; copy into an empty table, or clear its checkpoint".into(),
        }),
        None => tx.set_mark("migration", &id),
    })?;
    let mut rows = Vec::with_capacity(PAGE_ROWS);
    for (i, (start, end)) in parts.iter().enumerate() {
        let name = format!("part/{i}");
        let mut state = None;
        store.transact(&mut |tx| {
            state = tx.mark(&name)?;
            Ok(())
        })?;
        let mut from = match state.as_deref().map(Mark::parse) {
            Some(Some(Mark::Done)) => {
                report.parts_skipped += 1;
                continue;
            }
            Some(Some(Mark::After(last))) => {
                report.parts_resumed += 1;
                Mark::next_key(last)
            }
            None => start.clone(),
            Some(None) => {
                return Err(MigrateError::Checkpoint {
                    table: new_table.into(),
                    problem: format!("its mark of part {i} is not one a copy writes"),
                })
            }
        };
        loop {
            let mut done = false;
            store.transact(&mut |tx| {
                rows.clear();
                tx.old_rows(&from, end.as_deref(), PAGE_ROWS, &mut rows)?;
                for (key, value) in &rows {
                    let new_key = migration.rekey(key)?;
                    tx.put_new(&new_key, value)?;
                    report.bytes_read += (key.len() + value.len()) as u64;
                    report.bytes_written += (new_key.len() + value.len()) as u64;
                }
                done = rows.len() < PAGE_ROWS;
                match (done, rows.last()) {
                    (false, Some((last, _))) => tx.set_mark(&name, &Mark::After(last).to_bytes()),
                    _ => tx.set_mark(&name, &Mark::Done.to_bytes()),
                }
            })?;
            report.rows_read += rows.len() as u64;
            report.rows_written += rows.len() as u64;
            if done {
                break;
            }
            if let Some((last, _)) = rows.last() {
                from.clear();
                from.extend_from_slice(last);
                from.push(0);
            }
        }
    }
    report.elapsed = started.elapsed();
    Ok(report)
}

/// A part's checkpoint mark: done, or copied up to a key of the old
/// table. Stored as `[1]`, or `[0]` followed by the key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark<'a> {
    /// The whole part is copied.
    Done,
    /// The part is copied up to this old key, included.
    After(&'a [u8]),
}

impl<'a> Mark<'a> {
    /// The mark stored as `bytes`; `None` when they are not a mark.
    pub fn parse(bytes: &'a [u8]) -> Option<Mark<'a>> {
        match bytes {
            [1] => Some(Mark::Done),
            [0, key @ ..] => Some(Mark::After(key)),
            _ => None,
        }
    }

    /// The mark as it is stored.
    pub fn to_bytes(self) -> Vec<u8> {
        match self {
            Mark::Done => alloc::vec![1],
            Mark::After(key) => {
                let mut out = Vec::with_capacity(key.len() + 1);
                out.push(0);
                out.extend_from_slice(key);
                out
            }
        }
    }

    /// The first key after `key`: where a part copied up to `key` goes on.
    pub fn next_key(key: &[u8]) -> Vec<u8> {
        let mut next = Vec::with_capacity(key.len() + 1);
        next.extend_from_slice(key);
        next.push(0);
        next
    }
}

/// The parts of the old key space a copy goes through: from each of the
/// old layout's split points (its salt buckets) to the next, the first
/// from the layout's prefix, the last to the end of the prefix (`None`:
/// to the end of the table). Only the old layout's rows are copied: a
/// table that holds other rows beside them (an indexed table's index
/// rows, under their own prefixes) keeps them out of the copy.
pub fn parts(migration: &Migration) -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
    let layout = migration.from().layout();
    let splits = layout.split_points();
    let mut starts = Vec::with_capacity(splits.len() + 1);
    starts.push(layout.prefix().to_vec());
    starts.extend(splits);
    let last = crate::scan::prefix_stop(layout.prefix());
    let ends = starts.iter().skip(1).cloned().map(Some).chain([last]);
    starts.clone().into_iter().zip(ends).collect()
}

/// What a checkpoint records of its migration: both layouts' fingerprints
/// and the number of parts. A run whose checkpoint holds another is
/// refused (it would mix two migrations in one table).
pub fn checkpoint_id(migration: &Migration, parts: usize) -> Vec<u8> {
    let [from, to] = migration.ids();
    let mut id = Vec::with_capacity(24);
    id.extend_from_slice(&from.to_be_bytes());
    id.extend_from_slice(&to.to_be_bytes());
    id.extend_from_slice(&(parts as u64).to_be_bytes());
    id
}

/// An order-independent digest of a set of rows.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Digest {
    rows: u64,
    sum: u64,
    xor: u64,
}

impl Digest {
    fn add(&mut self, h: u64) {
        self.rows += 1;
        self.sum = self.sum.wrapping_add(h);
        self.xor ^= h.rotate_left(17).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A row's hash: its key and value, the key's length first so that no two
/// rows' bytes run together.
fn row_hash(scratch: &mut Vec<u8>, key: &[u8], value: &[u8]) -> u64 {
    scratch.clear();
    scratch.extend_from_slice(&(key.len() as u64).to_be_bytes());
    scratch.extend_from_slice(key);
    scratch.extend_from_slice(value);
    xxh3_64(scratch)
}

/// Compares the old table, re-keyed by `migration`, with the new one.
///
/// A first pass digests both tables per part of the new key space (the
/// byte after the new layout's prefix: its salt bucket when salted);
/// only parts whose digests differ are compared row by row, keeping the
/// 8-byte hash of each expected new key of those parts. [`Verifier`] is
/// the same comparison fed row by row, for an engine whose reads are
/// async.
pub fn verify(
    snapshot: &dyn Snapshot,
    migration: &Migration,
) -> Result<VerifyReport, MigrateError> {
    let mut v = Verifier::new(migration);
    snapshot.for_each(Source::Old, &mut |key, value| {
        v.old_row(key, value);
        Ok(())
    })?;
    snapshot.for_each(Source::New, &mut |key, value| {
        v.new_row(key, value);
        Ok(())
    })?;
    if !v.differs() {
        return Ok(v.finish());
    }
    snapshot.for_each(Source::Old, &mut |key, value| {
        if let Some(new_key) = v.wanted(key) {
            let found = snapshot.get(Source::New, &new_key)?;
            v.compare(&new_key, value, found.as_deref());
        }
        Ok(())
    })?;
    snapshot.for_each(Source::New, &mut |key, _| {
        v.extra_row(key);
        Ok(())
    })?;
    Ok(v.finish())
}

/// The comparison [`verify`] makes, fed row by row in two passes:
///
/// 1. every row of the old table to [`old_row`](Self::old_row) and every
///    row of the new one to [`new_row`](Self::new_row) (in any order);
/// 2. when [`differs`](Self::differs), every old row again to
///    [`wanted`](Self::wanted), which gives the new key to look up when
///    its part differs, the row found (or not) to
///    [`compare`](Self::compare), then every new key to
///    [`extra_row`](Self::extra_row);
///
/// and [`finish`](Self::finish) gives the report. A row's value is the
/// engine's own bytes for it (its cells with their timestamps, for
/// HBase and Bigtable), the same for both tables.
pub struct Verifier<'m> {
    migration: &'m Migration,
    report: VerifyReport,
    old: [Digest; 256],
    new: [Digest; 256],
    scratch: Vec<u8>,
    unmapped: Vec<String>,
    bad: [bool; 256],
    expected: BTreeSet<u64>,
}

impl<'m> Verifier<'m> {
    /// A comparison of the two tables of `migration`.
    pub fn new(migration: &'m Migration) -> Verifier<'m> {
        Verifier {
            migration,
            report: VerifyReport::default(),
            old: [Digest::default(); 256],
            new: [Digest::default(); 256],
            scratch: Vec::new(),
            unmapped: Vec::new(),
            bad: [false; 256],
            expected: BTreeSet::new(),
        }
    }

    /// Whether `key` is one of the new layout's (under its prefix).
    fn is_new(&self, key: &[u8]) -> bool {
        key.starts_with(self.migration.to().layout().prefix())
    }

    /// The part of the new key space `key` is in.
    fn part(&self, key: &[u8]) -> usize {
        let at = self.migration.to().layout().prefix().len();
        key.get(at).copied().unwrap_or(0) as usize
    }

    /// First pass: a row of the old table (one outside the old layout's
    /// prefix, an index row beside the data rows, is not compared).
    pub fn old_row(&mut self, key: &[u8], value: &[u8]) {
        if !key.starts_with(self.migration.from().layout().prefix()) {
            return;
        }
        self.report.rows_old += 1;
        match self.migration.rekey(key) {
            Ok(new_key) => {
                let h = row_hash(&mut self.scratch, &new_key, value);
                self.old[self.part(&new_key)].add(h);
            }
            Err(e) => {
                self.report.missing += 1;
                if self.unmapped.len() < MAX_EXAMPLES {
                    self.unmapped.push(format!(
                        "{} (cannot be re-keyed: {})",
                        to_string_binary(key),
                        crate::error_chain(&e)
                    ));
                }
            }
        }
    }

    /// First pass: a row of the new table (one outside the new layout's
    /// prefix is not compared).
    pub fn new_row(&mut self, key: &[u8], value: &[u8]) {
        if !self.is_new(key) {
            return;
        }
        self.report.rows_new += 1;
        let h = row_hash(&mut self.scratch, key, value);
        self.new[self.part(key)].add(h);
    }

    /// After the first pass: whether any part's digests differ, so that
    /// the second pass is needed.
    pub fn differs(&mut self) -> bool {
        for (i, (o, n)) in self.old.iter().zip(&self.new).enumerate() {
            self.bad[i] = o != n;
        }
        self.bad.contains(&true)
    }

    /// Second pass: an old row's new key, when its part differs (look it
    /// up in the new table and give it to [`compare`](Self::compare));
    /// `None` when its part agrees or it cannot be re-keyed (counted in
    /// the first pass).
    pub fn wanted(&mut self, old_key: &[u8]) -> Option<Vec<u8>> {
        if !old_key.starts_with(self.migration.from().layout().prefix()) {
            return None;
        }
        let new_key = self.migration.rekey(old_key).ok()?;
        if !self.bad[self.part(&new_key)] {
            return None;
        }
        self.expected.insert(xxh3_64(&new_key));
        Some(new_key)
    }

    /// Second pass: what the new table holds under `new_key` (from
    /// [`wanted`](Self::wanted)) against the old row's value.
    pub fn compare(&mut self, new_key: &[u8], old_value: &[u8], found: Option<&[u8]>) {
        match found {
            None => {
                self.report.missing += 1;
                example(&mut self.report.examples.missing, self.migration, new_key);
            }
            Some(found) if found != old_value => {
                self.report.differing += 1;
                example(&mut self.report.examples.differing, self.migration, new_key);
            }
            Some(_) => {}
        }
    }

    /// Second pass, after every old row: a key of the new table, counted
    /// extra when no old row maps to it.
    pub fn extra_row(&mut self, key: &[u8]) {
        if self.is_new(key) && self.bad[self.part(key)] && !self.expected.contains(&xxh3_64(key)) {
            self.report.extra += 1;
            example(&mut self.report.examples.extra, self.migration, key);
        }
    }

    /// The report.
    pub fn finish(mut self) -> VerifyReport {
        let mut missing = core::mem::take(&mut self.unmapped);
        missing.append(&mut self.report.examples.missing);
        missing.truncate(MAX_EXAMPLES);
        self.report.examples.missing = missing;
        self.report
    }
}

/// Keeps `key`, decoded with the new layout, as an example.
fn example(examples: &mut Vec<String>, migration: &Migration, key: &[u8]) {
    if examples.len() >= MAX_EXAMPLES {
        return;
    }
    let to = migration.to();
    examples.push(match to.decode(key) {
        Ok(values) => {
            let fields: Vec<String> = to
                .field_names()
                .zip(&values)
                .map(|(name, v)| format!("{name}={v}"))
                .collect();
            format!("({})", fields.join(", "))
        }
        Err(_) => to_string_binary(key),
    });
}
