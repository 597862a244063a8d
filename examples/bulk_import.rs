//! The import rowkey's design grew from: a day of log records bulk-loaded
//! into one pre-split table that holds the data rows (`D`) and two indexes
//! (`I1`: group, guid, date, one entry for each of a record's two guids, so
//! that a query on a guid finds it under either; `I2`: group, code, date),
//! then queried through the indexes.
//!
//! The rows are put in the order they come (by time), sorted by the bulk
//! loader within its memory budget, written as one HFile per region and
//! loaded by HBase's own tool, in seconds where puts through the gateway
//! take minutes (`BENCHMARKS.md`).
//!
//! Run: `cargo run --release -p examples --example bulk_import [ROWS]`
//! (starts a standalone HBase: Java 17 and Maven; 100,000 rows by
//! default). On a cluster, copy the directory to HDFS and run
//! `hbase completebulkload DIR TABLE`.

use std::time::Instant;

use rowkey_core::prelude::*;
use rowkey_hbase::bulk::BulkLoad;
use rowkey_hbase::testing::HBase;
use rowkey_hbase::Cell;

/// `D` + salt + record id: one log record.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "D")]
#[salt(buckets = 8, by(record_id))]
struct LogRow {
    record_id: u64,
}

/// `I1` + salt + group + guid + day + the data row: a record under one of
/// its guids.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "I1")]
#[salt(buckets = 8, by(group_id, guid))]
struct ByGuid {
    group_id: u32,
    #[fixed(16)]
    guid: String,
    day: u32,
    record: LogRow,
}

/// `I2` + salt + group + code + day + the data row.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "I2")]
#[salt(buckets = 8, by(group_id, code))]
struct ByCode {
    group_id: u32,
    code: u32,
    day: u32,
    record: LogRow,
}

/// Any row of the table.
#[derive(RowKey, Debug, PartialEq)]
enum Row {
    Log(LogRow),
    ByGuid(ByGuid),
    ByCode(ByCode),
}

const DAY: u32 = 20_261_126;
const GROUPS: u64 = 50;

/// Record `i` of the day: its group, two guids and code.
fn record(i: u64) -> (u32, String, String, u32) {
    let group = (i % GROUPS) as u32;
    let guid = |n: u64| format!("g{:015}", n % 5_000);
    (
        group,
        guid(i.wrapping_mul(2_654_435_761)),
        guid(i.wrapping_mul(40_503) + 7),
        (i % 97) as u32,
    )
}

/// What the import did and how long each part took.
#[derive(Debug)]
struct Report {
    rows: u64,
    files: usize,
    spills: usize,
    write_secs: f64,
    load_secs: f64,
}

fn run(hbase: &HBase, records: u64, memory: usize) -> Result<Report, Box<dyn std::error::Error>> {
    let client = hbase.client()?;
    let table = "logs";
    client.create_table(table, &["d"], &Row::split_points())?;

    let dir = tempfile::tempdir()?;
    let started = Instant::now();
    let mut load = BulkLoad::new(dir.path().join("load"))
        .regions(&client.region_locations(table)?)
        .memory(memory);
    let empty: [Cell; 1] = [("d".into(), Vec::new(), Vec::new())];
    for i in 0..records {
        let (group_id, guid1, guid2, code) = record(i);
        let data = LogRow { record_id: i };
        let message = format!("record {i} of group {group_id}: {guid1} {guid2} code {code}");
        load.put_row(
            &data,
            &[
                ("d".into(), b"msg".to_vec(), message.into_bytes()),
                ("d".into(), b"code".to_vec(), code.to_be_bytes().to_vec()),
            ],
        )?;
        for guid in [guid1, guid2] {
            let entry = ByGuid {
                group_id,
                guid,
                day: DAY,
                record: data.clone(),
            };
            load.put_row(&entry, &empty)?;
        }
        let entry = ByCode {
            group_id,
            code,
            day: DAY,
            record: data,
        };
        load.put_row(&entry, &empty)?;
    }
    let summary = load.finish()?;
    let write_secs = started.elapsed().as_secs_f64();
    let started = Instant::now();
    hbase.bulk_load(&dir.path().join("load"), table)?;
    let load_secs = started.elapsed().as_secs_f64();

    // Group 7's records under guid `g000000000000042`, by either guid: one
    // index range, then a get of each data row.
    let (group, guid) = (7, format!("g{:015}", 42));
    let hits: Vec<ByGuid> = client
        .scan_typed::<ByGuid>(
            table,
            &ByGuid::scan_by_group_id_guid_day(group, &guid, DAY)?,
            None,
        )?
        .map(|r| r.map(|(k, _)| k))
        .collect::<Result<_, _>>()?;
    let want: Vec<u64> = (0..records)
        .filter(|&i| {
            let (g, a, b, _) = record(i);
            g == group && (a == guid || b == guid)
        })
        .collect();
    let mut found: Vec<u64> = hits.iter().map(|h| h.record.record_id).collect();
    found.sort_unstable();
    found.dedup();
    assert_eq!(found, want, "the index finds every record with that guid");
    for hit in &hits {
        let cells = client.get(table, &hit.record)?.expect("the data row");
        let msg = cells.iter().find(|(_, q, _)| q == b"msg").expect("msg");
        assert!(String::from_utf8_lossy(&msg.2).contains(&guid));
    }
    println!(
        "group {group}, guid {guid}: {} records through {} index rows",
        found.len(),
        hits.len()
    );

    // Every row of the table decodes as one of its three kinds.
    let mut counts = std::collections::BTreeMap::new();
    for row in client.scan(table, &Row::scan_all(), None)? {
        *counts.entry(Row::decode(&row?.0)?.family()).or_insert(0u64) += 1;
    }
    assert_eq!(
        counts,
        std::collections::BTreeMap::from([
            ("ByCode", records),
            ("ByGuid", summary.rows - 2 * records),
            ("Log", records),
        ])
    );
    Ok(Report {
        rows: summary.rows,
        files: summary.files.len(),
        spills: summary.spills,
        write_secs,
        load_secs,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let records = match std::env::args().nth(1) {
        Some(n) => n.parse()?,
        None => 100_000,
    };
    let hbase = HBase::start()?;
    let report = run(&hbase, records, 256 << 20)?;
    println!(
        "{records} records: {} rows in {} files ({} spills), sorted and written in {:.1} s, loaded in {:.1} s",
        report.rows, report.files, report.spills, report.write_secs, report.load_secs
    );
    Ok(())
}

#[cfg(test)]
#[test]
fn a_small_import_loads_and_answers_through_its_indexes() {
    let hbase = HBase::start().expect("HBase starts");
    // A budget small enough to spill.
    let report = run(&hbase, 5_000, 256 << 10).unwrap();
    assert!(report.spills > 0, "{report:?}");
    // Data, two indexes: 8 salt buckets each, one region and one file each
    // (the table's first region, before `D`, gets none).
    assert_eq!(report.files, 24, "{report:?}");
}

/// The key layouts, frozen.
#[cfg(test)]
#[test]
fn layouts_are_frozen() {
    rowkey_core::assert_layout::<LogRow>(
        0x46cc710c75192a80,
        "[prefix \"D\" 1][salt(record_id)/8 1][record_id u64 8] = 10 bytes",
    );
    rowkey_core::assert_layout::<ByGuid>(0x1821f1468bb61163, "[prefix \"I1\" 2][salt(group_id, guid)/8 1][group_id u32 4][guid fixed(16) String 16][day u32 4][record LogRow 10] = 37 bytes");
    rowkey_core::assert_layout::<ByCode>(0xf26670eb4e6f798b, "[prefix \"I2\" 2][salt(group_id, code)/8 1][group_id u32 4][code u32 4][day u32 4][record LogRow 10] = 25 bytes");
}
