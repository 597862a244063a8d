//! The copy and the verification, written once over what an embedded
//! store gives: transactions that read the old table and write the new
//! one (the copy), and a snapshot of both (the verification). redb's and
//! fjall's modules implement the two traits.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::{String, ToString};
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
        // A part's mark: `[1]` done, `[0] key` copied up to the key.
        let mut from = match state.as_deref() {
            Some([1]) => {
                report.parts_skipped += 1;
                continue;
            }
            Some([0, last @ ..]) => {
                report.parts_resumed += 1;
                let mut next = last.to_vec();
                next.push(0);
                next
            }
            None => start.clone(),
            Some(_) => {
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
                    (false, Some((last, _))) => {
                        let mut mark = Vec::with_capacity(last.len() + 1);
                        mark.push(0);
                        mark.extend_from_slice(last);
                        tx.set_mark(&name, &mark)
                    }
                    _ => tx.set_mark(&name, &[1]),
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

/// The parts of the old key space: from each of the old layout's split
/// points (its salt buckets) to the next, the first from the start.
fn parts(migration: &Migration) -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
    let splits = migration.from().layout().split_points();
    let mut starts = Vec::with_capacity(splits.len() + 1);
    starts.push(Vec::new());
    starts.extend(splits);
    let ends = starts.iter().skip(1).cloned().map(Some).chain([None]);
    starts.clone().into_iter().zip(ends).collect()
}

/// What a checkpoint records of its migration: both layouts' fingerprints
/// and the number of parts.
fn checkpoint_id(migration: &Migration, parts: usize) -> Vec<u8> {
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
/// 8-byte hash of each expected new key of those parts.
pub fn verify(
    snapshot: &dyn Snapshot,
    migration: &Migration,
) -> Result<VerifyReport, MigrateError> {
    let at = migration.to().layout().prefix().len();
    let part = |key: &[u8]| key.get(at).copied().unwrap_or(0) as usize;
    let mut report = VerifyReport::default();
    let (mut old, mut new) = ([Digest::default(); 256], [Digest::default(); 256]);
    let mut scratch = Vec::new();
    let mut unmapped: Vec<String> = Vec::new();
    snapshot.for_each(Source::Old, &mut |key, value| {
        report.rows_old += 1;
        match migration.rekey(key) {
            Ok(new_key) => old[part(&new_key)].add(row_hash(&mut scratch, &new_key, value)),
            Err(e) => {
                report.missing += 1;
                if unmapped.len() < MAX_EXAMPLES {
                    unmapped.push(format!(
                        "{} (cannot be re-keyed: {})",
                        to_string_binary(key),
                        chain(&e)
                    ));
                }
            }
        }
        Ok(())
    })?;
    snapshot.for_each(Source::New, &mut |key, value| {
        report.rows_new += 1;
        new[part(key)].add(row_hash(&mut scratch, key, value));
        Ok(())
    })?;
    report.examples.missing = unmapped;
    let bad: Vec<bool> = old.iter().zip(&new).map(|(o, n)| o != n).collect();
    if !bad.contains(&true) {
        return Ok(report);
    }
    // Row by row in the parts that differ.
    let mut expected = BTreeSet::new();
    snapshot.for_each(Source::Old, &mut |key, value| {
        let Ok(new_key) = migration.rekey(key) else {
            return Ok(());
        };
        if !bad[part(&new_key)] {
            return Ok(());
        }
        expected.insert(xxh3_64(&new_key));
        match snapshot.get(Source::New, &new_key)? {
            None => {
                report.missing += 1;
                example(&mut report.examples.missing, migration, &new_key);
            }
            Some(found) if found != value => {
                report.differing += 1;
                example(&mut report.examples.differing, migration, &new_key);
            }
            Some(_) => {}
        }
        Ok(())
    })?;
    snapshot.for_each(Source::New, &mut |key, _| {
        if bad[part(key)] && !expected.contains(&xxh3_64(key)) {
            report.extra += 1;
            example(&mut report.examples.extra, migration, key);
        }
        Ok(())
    })?;
    Ok(report)
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

/// An error and its causes, `: `-separated.
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = format!("{e}");
    let mut cause = e.source();
    while let Some(c) = cause {
        out.push_str(": ");
        out.push_str(&c.to_string());
        cause = c.source();
    }
    out
}
