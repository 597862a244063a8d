//! Secondary indexes at the seeds' scale on the test HBase (two region
//! servers, the native client), in one run:
//!
//! 1. 200,000 records written from 8 threads by plain `write_raw_rows`
//!    (one cell per row, no index): the baseline;
//! 2. the same records through an `IndexedTable` by `put_many` (1,000
//!    records per call) from 8 threads, with two indexes and with one, and
//!    8,000 by single `put`s for the rate the batches replace;
//! 3. 1,200,000 records and their entries in two indexes written by one
//!    bulk load, both indexes verified, an OR query across them checked
//!    against a model, then a third index backfilled over them (stopped
//!    once after 100 pages and resumed from its checkpoint) and verified.
//!
//! `cargo bench -p rowkey-hbase --features native,index --bench index`
//! (a few minutes). Wall-clock figures on a shared machine: read the
//! ratios, and see BENCHMARKS.md for the run they come from.

use std::ops::ControlFlow;
use std::time::Instant;

use rowkey_core::index::{Index, IndexedTable, Record};
use rowkey_core::RowKey;
use rowkey_hbase::bulk::BulkLoad;
use rowkey_hbase::testing::HBase;
use rowkey_hbase::{Cell, Client, IndexStore};

const THREADS: u64 = 8;
const ROWS: u64 = 200_000;
const SINGLE: u64 = 8_000;
const BIG: u64 = 1_200_000;

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

/// `I2` + the tag's salt + tag + the reading: two entries a record, its
/// kind (0 to 6) and 100 + its firmware (as the seed's guid index has an
/// entry per guid field), so one query on a tag finds either.
#[derive(RowKey, Clone, Debug, PartialEq)]
#[rowkey(prefix = "I2")]
#[salt(buckets = 4, by(reading))]
struct ByTag {
    tag: u32,
    reading: Reading,
}

impl Index for ByTag {
    type Data = Reading;
    type Record = Sample;
    fn entries(r: &Reading, s: &Sample) -> impl IntoIterator<Item = Self> {
        [s.kind, 100 + s.firmware].map(|tag| ByTag { tag, reading: *r })
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
        .with_index::<ByTag>()
}

/// Creates `name` pre-split as `t` says, each unsalted family (the data
/// rows, `ByValue`) cut into 8 regions at points sampled from every 100th
/// of the `ids` records (`IndexedTable::split_points_from`).
fn create(client: &Client, name: &str, t: &Table, ids: u64) {
    let records: Vec<(Reading, Sample)> = (0..ids)
        .step_by(100)
        .map(|id| (Reading { id }, sample(id)))
        .collect();
    let splits = t
        .split_points_from(records.iter().map(|(k, r)| (k, r)), 8)
        .unwrap();
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

    // 2. put_many with two indexes (three rows a record) and with one
    // (two rows), then single puts.
    let put_many = |t: &Table| {
        threads(ROWS, |from, to| {
            let rows: Vec<(Reading, Sample)> =
                (from..to).map(|id| (Reading { id }, sample(id))).collect();
            for chunk in rows.chunks(1_000) {
                t.put_many(chunk).unwrap();
            }
        })
    };
    let t = indexed(&client, "indexed");
    create(&client, "indexed", &t, ROWS);
    let many = put_many(&t);
    println!(
        "put_many: {ROWS} records, 2 indexes (3 rows each), from {THREADS} threads, {many:.0} records/s \
         ({:.2}x write_raw_rows; {:.2}x in rows written)",
        many / plain,
        3.0 * many / plain
    );
    let one = IndexedTable::new(IndexStore::new(&client, "one", "d")).with_index::<ByDevice>();
    create(&client, "one", &one, ROWS);
    let many_one = put_many(&one);
    println!(
        "put_many: {ROWS} records, 1 index (2 rows each), {many_one:.0} records/s ({:.2}x write_raw_rows)",
        many_one / plain
    );
    let single = threads(SINGLE, |from, to| {
        for id in from..to {
            t.put(&Reading { id: ROWS + id }, &sample(id)).unwrap();
        }
    });
    println!(
        "put: {SINGLE} records, 2 indexes, from {THREADS} threads, {single:.0} records/s (put_many {:.1}x)",
        many / single
    );
    for report in [
        t.verify::<ByDevice>().unwrap(),
        t.verify::<ByTag>().unwrap(),
    ] {
        assert!(report.is_clean(), "{report:?}");
    }

    // 3. 1.2 million records and both indexes in one bulk load; verify;
    // the OR query; a third index backfilled (stopped once and resumed)
    // and verified.
    let t = indexed(&client, "big").with_index::<ByValue>();
    create(&client, "big", &t, BIG);
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut load = BulkLoad::new(dir.path().join("load"))
        .split_points(&t.split_points())
        .index_family("d")
        .index::<ByDevice>()
        .index::<ByTag>();
    for id in 0..BIG {
        load.put_indexed(&Reading { id }, &sample(id)).unwrap();
    }
    let summary = load.finish().unwrap();
    client.bulk_load(dir.path().join("load"), "big").unwrap();
    println!(
        "bulk load: {BIG} records and their 3 entries in {} rows, one load, {:.1} s",
        summary.rows,
        started.elapsed().as_secs_f64()
    );
    let started = Instant::now();
    let device = t.verify::<ByDevice>().unwrap();
    let tag = t.verify::<ByTag>().unwrap();
    assert!(device.is_clean() && tag.is_clean(), "{device:?} {tag:?}");
    assert_eq!((device.valid, tag.valid), (BIG, 2 * BIG));
    println!(
        "verify of both: {} entries in {:.1} s",
        device.valid + tag.valid,
        started.elapsed().as_secs_f64()
    );
    let either = [
        ByDevice::filter().device(42).build().unwrap(),
        ByTag::filter().tag(101).build().unwrap(),
    ];
    let started = Instant::now();
    let mut got: Vec<u64> = t
        .query_any(&either)
        .unwrap()
        .map(|hit| hit.unwrap().0.id)
        .collect();
    got.sort_unstable();
    let want: Vec<u64> = (0..BIG)
        .filter(|&id| {
            let s = sample(id);
            // Tag 101 is firmware 1 (kinds are 0 to 6).
            s.device == 42 || s.firmware == 1
        })
        .collect();
    assert_eq!(got, want, "device 42 or tag 101");
    println!(
        "query device 42 OR tag 101: {} records in {:.1} s",
        got.len(),
        started.elapsed().as_secs_f64()
    );
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
    assert_eq!(first.data_rows + rest.data_rows, BIG);
    assert_eq!(first.entries + rest.entries, BIG);
    println!(
        "backfill: {BIG} rows in {secs:.1} s, {:.0} rows/s (stopped after {} rows, resumed)",
        BIG as f64 / secs,
        first.data_rows
    );
    let started = Instant::now();
    let report = t.verify::<ByValue>().unwrap();
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(report.valid, BIG);
    println!(
        "verify: {BIG} entries in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
