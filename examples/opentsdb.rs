//! An OpenTSDB-style metric row key: salt, 3-byte metric UID, 4-byte base
//! hour, tag UID pairs; salted with the Java hash over metric and tags (not
//! the hour), so the salts are those OpenTSDB itself writes.
//!
//! Run: `cargo run --example opentsdb`

use std::collections::BTreeMap;

use rowkey_core::hbase::to_string_binary;
use rowkey_core::merge_salted;
use rowkey_core::prelude::*;

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 20, by(metric, tags), hash = "java")]
struct MetricRow {
    metric: [u8; 3],
    base_hour: u32,
    /// (tagk, tagv) UID pairs, 3 bytes each, sorted by tagk.
    tags: Vec<u8>,
}

fn main() {
    // The row of OpenTSDB's own tests (TestRowKey): sys.cpu.user host=web01,
    // hour 1356998400, salt 0x08 with 20 buckets.
    let row = MetricRow {
        metric: [0, 0, 1],
        base_hour: 1_356_998_400,
        tags: vec![0, 0, 1, 0, 0, 1],
    };
    let key = row.encode_to_vec().unwrap();
    println!("OpenTSDB row: {}", to_string_binary(&key));
    assert_eq!(
        key,
        [0x08, 0, 0, 1, 0x50, 0xE2, 0x27, 0x00, 0, 0, 1, 0, 0, 1]
    );

    // Three series of one metric over 24 hours.
    let mut table = BTreeMap::new();
    for host in 1..=3u8 {
        for h in 0..24u32 {
            let r = MetricRow {
                metric: [0, 0, 1],
                base_hour: 1_356_998_400 + h * 3600,
                tags: vec![0, 0, 1, 0, 0, host],
            };
            table.insert(r.encode_to_vec().unwrap(), u32::from(host) * 100 + h);
        }
    }
    // Every hour of a series is in the series' bucket.
    let series_buckets: Vec<u8> = (1..=3u8)
        .map(|host| {
            MetricRow {
                metric: [0, 0, 1],
                base_hour: 0,
                tags: vec![0, 0, 1, 0, 0, host],
            }
            .bucket()
        })
        .collect();
    println!("buckets of host=1..3: {series_buckets:?}");

    // A query for the metric over hours 6..12 fans out over the 20 buckets
    // (the metric is fixed, the tags are not) and merges back in key order.
    let from = 1_356_998_400 + 6 * 3600;
    let scan = MetricRow::range_by_metric_base_hour([0, 0, 1], from..from + 6 * 3600);
    assert_eq!(scan.range_count(), 20);
    let streams = scan.ranges().map(|r| {
        table
            .range::<[u8], _>(r.bounds())
            .map(|(k, v)| (k.clone(), *v))
            .collect::<Vec<_>>()
            .into_iter()
    });
    let rows: Vec<MetricRow> = merge_salted(streams)
        .map(|(k, _)| MetricRow::decode(&k).unwrap())
        .collect();
    assert_eq!(rows.len(), 3 * 6);
    assert!(rows
        .windows(2)
        .all(|w| (w[0].base_hour, &w[0].tags) <= (w[1].base_hour, &w[1].tags)));
    println!(
        "hours 6..12 of the metric: {} rows from {} ranges, in (hour, tags) order",
        rows.len(),
        scan.range_count()
    );
}

#[cfg(test)]
#[test]
fn example_runs() {
    main();
}

/// The key layouts, frozen: a change to a key's fields, types, order or
/// attributes fails this test, showing the old and the new layout.
#[test]
fn layouts_are_frozen() {
    rowkey_core::assert_layout::<MetricRow>(0xed9f3817f9de7503, "[salt(metric, tags)/20 java 1][metric [u8; 3] 3][base_hour u32 4][tags Vec<u8> >=0] >= 8 bytes");
}
