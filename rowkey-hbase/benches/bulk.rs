//! Bulk load, in one run:
//!
//! 1. rowkey's HFile writer against HBase's own (`HFile.getWriterFactory`,
//!    in its JVM, timed from its creation to its close, the JVM's start
//!    and the cells' transfer left out) on the same million cells, plain
//!    and gzip: cells per second, MB per second of input, the ratio;
//! 2. a million rows end to end into a pre-split table of the test HBase:
//!    `BulkLoad` (sort, write) and HBase's bulk load (without
//!    `hbase.hstore.bulkload.verify`, HBase's default), against
//!    `Client::write_rows` through the Thrift gateway;
//! 3. the peak memory of a load of ten times its sort budget (bytes
//!    allocated at the most, counted by this program's allocator).
//!
//! `cargo bench -p rowkey-hbase --bench bulk` (several minutes, most of it
//! the puts through the gateway). Wall-clock figures on a shared machine:
//! read the ratios, and see BENCHMARKS.md for the run they come from.
#![allow(unsafe_code)] // The counting allocator below.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use rowkey_core::prelude::*;
use rowkey_hbase::bulk::BulkLoad;
use rowkey_hbase::hfile::{Compression, HFileOptions, HFileWriter};
use rowkey_hbase::testing::{write_hfile_with_hbase, HBase};
use rowkey_hbase::{Cell, WriteOptions};

/// The system allocator, counting the bytes held and their peak.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged; only
// counters are updated beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let held = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(held, Ordering::Relaxed);
        // SAFETY: the caller's layout, as GlobalAlloc requires.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: ptr was allocated by System with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let held = HELD.fetch_add(new_size - layout.size(), Ordering::Relaxed)
                + (new_size - layout.size());
            PEAK.fetch_max(held, Ordering::Relaxed);
        } else {
            HELD.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: as System.realloc requires, from our caller.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 16, by(user_id))]
struct Event {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
}

const ROWS: u64 = 1_000_000;

fn event(i: u64) -> Event {
    Event {
        user_id: i.wrapping_mul(2_654_435_761) % 100_000,
        ts_millis: 1_700_000_000_000 + i as i64,
    }
}

/// 100 bytes of a row's value.
fn value(i: u64) -> Vec<u8> {
    (0..100u64).map(|j| (i + j) as u8).collect()
}

fn main() {
    let dir = tempfile::tempdir().unwrap();

    // 1. The writers, on the same million sorted cells.
    let mut rows: Vec<(Vec<u8>, Vec<u8>)> = (0..ROWS)
        .map(|i| (event(i).encode_to_vec().unwrap(), value(i)))
        .collect();
    rows.sort();
    rows.dedup_by(|a, b| a.0 == b.0);
    let input_mb = rows
        .iter()
        .map(|(k, v)| k.len() + v.len() + 1)
        .sum::<usize>() as f64
        / 1e6;
    println!(
        "== HFile writers, {} cells ({input_mb:.0} MB of keys and values)",
        rows.len()
    );
    for compression in [
        Compression::None,
        Compression::Gzip,
        Compression::Snappy,
        Compression::Zstd,
    ] {
        let ours = dir.path().join("ours");
        let start = Instant::now();
        let mut w = HFileWriter::create(
            &ours,
            HFileOptions {
                compression,
                ..HFileOptions::new("d")
            },
        )
        .unwrap();
        for (row, v) in &rows {
            w.append(row, b"v", 1, v).unwrap();
        }
        let summary = w.finish().unwrap();
        let rowkey = start.elapsed();
        let theirs = dir.path().join("theirs");
        let hbase = write_hfile_with_hbase(
            &theirs,
            &HFileOptions {
                compression,
                ..HFileOptions::new("d")
            },
            rows.iter()
                .map(|(r, v)| (r.as_slice(), &b"v"[..], 1, v.as_slice())),
        )
        .unwrap();
        let per_sec = |d: std::time::Duration| rows.len() as f64 / d.as_secs_f64();
        println!(
            "{:5}: rowkey {:>9.0} cells/s {:>6.1} MB/s ({} bytes) | HBase {:>9.0} cells/s {:>6.1} MB/s ({} bytes) | rowkey {:.2}x",
            compression.hbase_name(),
            per_sec(rowkey),
            input_mb / rowkey.as_secs_f64(),
            summary.bytes,
            per_sec(hbase),
            input_mb / hbase.as_secs_f64(),
            std::fs::metadata(&theirs).unwrap().len(),
            hbase.as_secs_f64() / rowkey.as_secs_f64(),
        );
    }
    drop(rows);

    // 2. A million rows end to end, against puts through the gateway.
    // HBase's default: a loaded file is not read through first (the tests
    // turn the check on).
    let hbase = HBase::builder()
        .setting("hbase.hstore.bulkload.verify", "false")
        .start()
        .unwrap();
    let client = hbase.client().unwrap();
    println!("== a million rows into a table pre-split in 16 regions");
    client
        .create_table("bulk", &["d"], &Event::split_points())
        .unwrap();
    let start = Instant::now();
    let out = dir.path().join("load");
    let mut load = BulkLoad::new(&out)
        .regions(&client.region_locations("bulk").unwrap())
        .timestamp(1);
    for i in 0..ROWS {
        let cell: Cell = ("d".into(), b"v".to_vec(), value(i));
        load.put_row(&event(i), &[cell]).unwrap();
    }
    let summary = load.finish().unwrap();
    let written = start.elapsed();
    hbase.bulk_load(&out, "bulk").unwrap();
    let bulk = start.elapsed();
    println!(
        "bulk load: {} rows, sorted and written in {:.1} s, loaded in {:.1} s: {:.1} s, {:.0} rows/s",
        summary.rows,
        written.as_secs_f64(),
        (bulk - written).as_secs_f64(),
        bulk.as_secs_f64(),
        summary.rows as f64 / bulk.as_secs_f64()
    );
    client
        .create_table("puts", &["d"], &Event::split_points())
        .unwrap();
    let start = Instant::now();
    client
        .write_rows_with(
            "puts",
            (0..ROWS).map(|i| (event(i), vec![("d".to_string(), b"v".to_vec(), value(i))])),
            WriteOptions {
                timestamp: Some(1),
                ..WriteOptions::default()
            },
        )
        .unwrap();
    let puts = start.elapsed();
    println!(
        "write_rows through the gateway: {:.1} s, {:.0} rows/s | bulk load {:.1}x faster",
        puts.as_secs_f64(),
        ROWS as f64 / puts.as_secs_f64(),
        puts.as_secs_f64() / bulk.as_secs_f64()
    );
    drop(hbase);

    // 3. Peak memory of a load ten times its budget.
    let budget = 16usize << 20;
    let before = HELD.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let mut load = BulkLoad::new(dir.path().join("peak"))
        .split_points(&Event::split_points())
        .memory(budget);
    let mut input = 0usize;
    let mut i = 0u64;
    while input < 10 * budget {
        let cell: Cell = ("d".into(), b"v".to_vec(), value(i));
        input += 8 + 1 + 16 + cell.2.len() + 1;
        load.put_row(&event(i), &[cell]).unwrap();
        i += 1;
    }
    let summary = load.finish().unwrap();
    let peak = PEAK.load(Ordering::Relaxed) - before;
    println!(
        "== peak memory: {} MB of rows ({} rows) under a {} MiB budget: {} spills, peak {:.1} MiB allocated ({:.2}x the budget)",
        input / 1_000_000,
        summary.rows,
        budget >> 20,
        summary.spills,
        peak as f64 / f64::from(1 << 20),
        peak as f64 / budget as f64
    );
}
