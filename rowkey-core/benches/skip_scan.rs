//! Skip scans on redb (`KeyTable::filter`) against the two other ways to
//! answer "a window of the second field, for every value of the first":
//! a full scan checking every key with `KeyFilter::matches`, and one
//! `range_by_*` per distinct prefix (the best case, when the prefixes are
//! known in advance). The key is `[series u32][ts u32]`, 400,000 rows; the
//! number of distinct series (the prefixes a skip scan must skip over)
//! and the window's share of each series' rows (the selectivity) vary.
//!
//! Before the timings it prints, per case, the rows each way reads and the
//! skip scan's seeks (deterministic); the floor of a skip scan is the rows
//! it returns plus one seek per distinct prefix. See BENCHMARKS.md.
//!
//! Under `cargo test` (no `--bench` argument) each case runs once, on
//! 4,000 rows.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use redb::{Database, ReadableDatabase, ReadableTable};
use rowkey_core::prelude::*;
use rowkey_core::redb::KeyTableDefinition;
use rowkey_core::KeyFilter;

#[derive(RowKey, Debug, Clone, Copy, PartialEq)]
struct Point {
    series: u32,
    ts: u32,
}

const POINTS: KeyTableDefinition<Point, ()> = KeyTableDefinition::new("points");

fn measuring() -> bool {
    std::env::args().any(|a| a == "--bench")
}

/// `series × per_series` points, `ts` 0.. in each series.
fn database(series: u32, per_series: u32) -> Database {
    let db = Database::builder()
        .create_with_backend(redb::backends::InMemoryBackend::new())
        .unwrap();
    let tx = db.begin_write().unwrap();
    {
        let mut t = POINTS.open(&tx).unwrap();
        for s in 0..series {
            for ts in 0..per_series {
                t.insert(&Point { series: s, ts }, ()).unwrap();
            }
        }
    }
    tx.commit().unwrap();
    db
}

/// Rows a full scan reads and keeps.
fn full(db: &Database, filter: &KeyFilter) -> (u64, u64) {
    let tx = db.begin_read().unwrap();
    let t = POINTS.open_read(&tx).unwrap();
    let (mut read, mut kept) = (0, 0);
    for row in t.inner().iter().unwrap() {
        let (k, _) = row.unwrap();
        read += 1;
        kept += u64::from(filter.matches(k.value()));
    }
    (read, kept)
}

/// Rows the skip scan returns, reads, and its seeks.
fn skip(db: &Database, filter: &KeyFilter) -> (u64, u64, u64) {
    let tx = db.begin_read().unwrap();
    let t = POINTS.open_read(&tx).unwrap();
    let rows = t.filter(filter).unwrap();
    let cost = rows.cost().clone();
    let mut kept = 0;
    for row in rows {
        black_box(row.unwrap().0.ts);
        kept += 1;
    }
    (kept, cost.rows_read(), cost.seeks())
}

/// Rows one `range_by_series_ts` per series reads.
fn per_prefix(db: &Database, series: u32, window: std::ops::Range<u32>) -> u64 {
    let tx = db.begin_read().unwrap();
    let t = POINTS.open_read(&tx).unwrap();
    let mut n = 0;
    for s in 0..series {
        for row in t
            .scan(&Point::range_by_series_ts(s, window.clone()))
            .unwrap()
        {
            black_box(row.unwrap());
            n += 1;
        }
    }
    n
}

fn skip_scans(c: &mut Criterion) {
    let total: u32 = if measuring() { 400_000 } else { 4_000 };
    println!(
        "{:>8} {:>9} {:>9} {:>10} {:>10} {:>8} {:>10}",
        "series", "window", "returned", "full read", "skip read", "seeks", "prefix read"
    );
    for series in [10u32, 1_000, 100_000] {
        let per = total / series;
        if per < 4 {
            continue;
        }
        let db = database(series, per);
        // The window's share of each series: 1%, 10%, 50% (at least 1 row).
        for share in [100u32, 10, 2] {
            let width = (per / share).max(1);
            let window = per / 3..per / 3 + width;
            let filter = Point::filter().ts(window.clone()).build().unwrap();
            let (full_read, full_kept) = full(&db, &filter);
            let (kept, read, seeks) = skip(&db, &filter);
            let prefix = per_prefix(&db, series, window.clone());
            assert_eq!(
                (full_kept, prefix),
                (kept, kept),
                "every way returns the same rows"
            );
            println!(
                "{series:>8} {:>8}% {kept:>9} {full_read:>10} {read:>10} {seeks:>8} {prefix:>10}",
                100 / share
            );
            let mut g = c.benchmark_group(format!("skip_scan/{series}_series/{}pct", 100 / share));
            g.sample_size(10);
            g.throughput(Throughput::Elements(u64::from(total)));
            g.bench_function("full scan + matches", |b| b.iter(|| full(&db, &filter)));
            g.bench_function("skip scan", |b| b.iter(|| skip(&db, &filter)));
            g.bench_function("range per prefix", |b| {
                b.iter(|| per_prefix(&db, series, window.clone()))
            });
            g.finish();
        }
    }
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(1))
}

criterion_group! { name = benches; config = config(); targets = skip_scans }
criterion_main!(benches);
