//! Secondary indexes at the seeds' scale on the test HBase (two region
//! servers, the native client), in one run:
//!
//! 1. 200,000 records written from 8 threads by plain `write_raw_rows`
//!    (one cell per row, no index): the baseline;
//! 2. the same records through an `IndexedTable` with two indexes by
//!    `put_many` (1,000 records per call), from 8 threads, and 8,000 by
//!    single `put`s for the rate the batches replace;
//! 3. 1,200,000 data rows written plainly, then a third index backfilled
//!    over them (stopped once after 100 pages and resumed from its
//!    checkpoint), then `verify` of it.
//!
//! `cargo bench -p rowkey-hbase --features native,index --bench index`
//! (a few minutes). Wall-clock figures on a shared machine: read the
//! ratios, and see BENCHMARKS.md for the run they come from.

use std::ops::ControlFlow;
use std::time::Instant;

use rowkey_core::index::{Index, IndexedTable, Record};
use rowkey_core::RowKey;
use rowkey_hbase::testing::HBase;
use rowkey_hbase::{Cell, Client, IndexStore};

const THREADS: u64 = 8;
const ROWS: u64 = 200_000;
const SINGLE: u64 = 8_000;
const BACKFILL: u64 = 1_200_000;

/// A data row's key.
#[derive(RowKey, Clone, Copy, Debug, PartialEq)]
#[rowkey(prefix = "D")]
struct Reading {
    id: u64,
}

/// A data row's record: 20 bytes.
#[derive(Clone, Debug, PartialEq)]
struct Sample {
    device: u32,
    kind: u32,
    value: u64,
    firmware: u32,
}

impl Record for Sample {
    fn to_value(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(20);
        v.extend_from_slice(&self.device.to_be_bytes());
        v.extend_from_slice(&self.kind.to_be_bytes());
        v.extend_from_slice(&self.value.to_be_bytes());
        v.extend_from_slice(&self.firmware.to_be_bytes());
        v
    }

    fn from_value(b: &[u8]) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        let b: &[u8; 20] = b.try_into().map_err(|_| "a sample is 20 bytes")?;
        let u32_at = |i: usize| u32::from_be_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        Ok(Sample {
            device: u32_at(0),
            kind: u32_at(4),
            value: u64::from_be_bytes(b[8..16].try_into().expect("8 bytes")),
            firmware: u32_at(16),
        })
    }
}

fn sample(id: u64) -> Sample {
    Sample {
        device: (id % 5_000) as u32,
        kind: (id % 7) as u32,
        value: id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40,
        firmware: (id % 3) as u32,
    }
}

/// `I1` + the device's salt + device + the reading.
#[derive(RowKey, Clone, Debug, PartialEq)]
#[rowkey(prefix = "I1")]
#[salt(buckets = 4, by(device))]
struct ByDevice {
    device: u32,
    reading: Reading,
}

impl Index for ByDevice {
    type Data = Reading;
    type Record = Sample;
    fn entries(r: &Reading, s: &Sample) -> impl IntoIterator<Item = Self> {
        [ByDevice {
            device: s.device,
            reading: *r,
        }]
    }
    fn data_key(&self) -> Reading {
        self.reading
    }
}

/// `I2` + the kind's salt + kind + firmware + the reading.
#[derive(RowKey, Clone, Debug, PartialEq)]
#[rowkey(prefix = "I2")]
#[salt(buckets = 4, by(reading))]
struct ByKind {
    kind: u32,
    firmware: u32,
    reading: Reading,
}

impl Index for ByKind {
    type Data = Reading;
    type Record = Sample;
    fn entries(r: &Reading, s: &Sample) -> impl IntoIterator<Item = Self> {
        [ByKind {
            kind: s.kind,
            firmware: s.firmware,
            reading: *r,
        }]
    }
    fn data_key(&self) -> Reading {
        self.reading
    }
}

/// `I3` + the value's salt + value + the reading: the index backfilled.
#[derive(RowKey, Clone, Debug, PartialEq)]
#[rowkey(prefix = "I3")]
#[salt(buckets = 4, by(value))]
struct ByValue {
    value: u64,
    reading: Reading,
}

impl Index for ByValue {
    type Data = Reading;
    type Record = Sample;
    fn entries(r: &Reading, s: &Sample) -> impl IntoIterator<Item = Self> {
        [ByValue {
            value: s.value,
            reading: *r,
        }]
    }
    fn data_key(&self) -> Reading {
        self.reading
    }
}

type Table = IndexedTable<IndexStore, Reading, Sample>;

fn indexed(client: &Client, name: &str) -> Table {
    IndexedTable::new(IndexStore::new(client, name, "d"))
        .with_index::<ByDevice>()
        .with_index::<ByKind>()
}

/// Creates `name` pre-split as `t` says, with the data rows' family also
/// split in 8 by id.
fn create(client: &Client, name: &str, t: &Table, ids: u64) {
    let mut splits = t.split_points();
    for part in 1..8 {
        splits.push(Reading { id: ids * part / 8 }.encode_to_vec().unwrap());
    }
    splits.sort();
    client.create_table(name, &["d"], &splits).unwrap();
}

/// Runs `f(first id, last id)` for each thread's share of `rows`, and the
/// rows per second of the whole.
fn threads(rows: u64, f: impl Fn(u64, u64) + Sync) -> f64 {
    let started = Instant::now();
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let f = &f;
            s.spawn(move || f(rows * t / THREADS, rows * (t + 1) / THREADS));
        }
    });
    rows as f64 / started.elapsed().as_secs_f64()
}

fn cells(id: u64) -> (Vec<u8>, Vec<Cell>) {
    let key = Reading { id }.encode_to_vec().unwrap();
    (
        key,
        vec![("d".into(), b"v".to_vec(), sample(id).to_value())],
    )
}

fn main() {
    let hbase = HBase::start_with(2).expect("HBase starts");
    let client = Client::native(hbase.bootstrap()).build().expect("client");

    // 1. Plain writes, the baseline.
    create(&client, "plain", &indexed(&client, "plain"), ROWS);
    let plain = threads(ROWS, |from, to| {
        client
            .write_raw_rows("plain", (from..to).map(cells))
            .unwrap();
    });
    println!("write_raw_rows: {ROWS} rows from {THREADS} threads, {plain:.0} rows/s");

    // 2. put_many, then single puts.
    let t = indexed(&client, "indexed");
    create(&client, "indexed", &t, ROWS);
    let many = threads(ROWS, |from, to| {
        let rows: Vec<(Reading, Sample)> =
            (from..to).map(|id| (Reading { id }, sample(id))).collect();
        for chunk in rows.chunks(1_000) {
            t.put_many(chunk).unwrap();
        }
    });
    println!(
        "put_many: {ROWS} records, 2 indexes, from {THREADS} threads, {many:.0} rows/s ({:.2}x write_raw_rows)",
        many / plain
    );
    let single = threads(SINGLE, |from, to| {
        for id in from..to {
            t.put(&Reading { id: ROWS + id }, &sample(id)).unwrap();
        }
    });
    println!(
        "put: {SINGLE} records from {THREADS} threads, {single:.0} rows/s (put_many {:.1}x)",
        many / single
    );
    for report in [
        t.verify::<ByDevice>().unwrap(),
        t.verify::<ByKind>().unwrap(),
    ] {
        assert!(report.is_clean(), "{report:?}");
        assert_eq!(report.valid, ROWS + SINGLE);
    }

    // 3. A third index over 1.2 million rows: backfill, stopped once and
    // resumed, then verify.
    let t = indexed(&client, "big").with_index::<ByValue>();
    create(&client, "big", &t, BACKFILL);
    threads(BACKFILL, |from, to| {
        client.write_raw_rows("big", (from..to).map(cells)).unwrap();
    });
    let started = Instant::now();
    let mut pages = 0;
    let first = t
        .backfill::<ByValue>()
        .unwrap()
        .on_progress(|_| {
            pages += 1;
            if pages == 100 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .run()
        .unwrap();
    assert!(!first.complete);
    let rest = t
        .backfill::<ByValue>()
        .unwrap()
        .resume_from(first.checkpoint.as_deref().expect("a checkpoint"))
        .run()
        .unwrap();
    assert!(rest.complete);
    let secs = started.elapsed().as_secs_f64();
    assert_eq!(first.data_rows + rest.data_rows, BACKFILL);
    assert_eq!(first.entries + rest.entries, BACKFILL);
    println!(
        "backfill: {BACKFILL} rows in {secs:.1} s, {:.0} rows/s (stopped after {} rows, resumed)",
        BACKFILL as f64 / secs,
        first.data_rows
    );
    let started = Instant::now();
    let report = t.verify::<ByValue>().unwrap();
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(report.valid, BACKFILL);
    println!(
        "verify: {BACKFILL} entries in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
