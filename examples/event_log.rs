//! An event log keyed for HBase/Bigtable: salted by user so a user's events
//! stay in one region and writes spread over 16, newest first within a user.
//!
//! Run: `cargo run --example event_log`

use rowkey_core::hbase::{create_table_statement, to_string_binary};
use rowkey_core::merge_salted;
use rowkey_core::prelude::*;
use std::collections::BTreeMap;

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 16, by(user_id))]
struct UserEvent {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
    #[fixed(8)]
    kind: String,
}

fn main() {
    let now = 1_700_000_000_000i64;
    let kinds = ["click", "view", "purchase"];
    // A sorted store: a BTreeMap stands in for the table here (see the
    // README's main command for redb and region statistics).
    let mut table: BTreeMap<Vec<u8>, u32> = BTreeMap::new();
    for i in 0..300u32 {
        let event = UserEvent {
            user_id: u64::from(i % 5),
            ts_millis: now - i64::from(i) * 60_000,
            kind: kinds[i as usize % 3].to_string(),
        };
        let key = event.try_encode().expect("kinds fit in 8 bytes");
        table.insert(key.to_vec(), i);
    }

    println!(
        "{}",
        create_table_statement("events", &["d"], &UserEvent::split_points())
    );
    let sample = UserEvent {
        user_id: 3,
        ts_millis: now,
        kind: "click".into(),
    };
    let key = sample.try_encode().unwrap();
    println!(
        "key of {sample:?}:\n  {}  ({} bytes, bucket {})",
        to_string_binary(&key),
        key.len(),
        key[0]
    );
    assert_eq!(UserEvent::decode(&key).unwrap(), sample);

    // User 3's last hour, newest first: one range in one bucket.
    let scan = UserEvent::range_by_user_id_ts_millis(3, now - 3_600_000..=now);
    assert_eq!(scan.range_count(), 1);
    let range = scan.ranges().next().unwrap();
    println!("scan {:?}", range);
    let last_hour: Vec<UserEvent> = table
        .range::<[u8], _>(range.bounds())
        .map(|(k, _)| UserEvent::decode(k).unwrap())
        .collect();
    for e in &last_hour {
        println!("  user {} at {} {}", e.user_id, e.ts_millis, e.kind);
    }
    assert_eq!(
        last_hour.len(),
        12,
        "one event a minute for 60 minutes, every 5th for user 3"
    );
    assert!(
        last_hour
            .windows(2)
            .all(|w| w[0].ts_millis > w[1].ts_millis),
        "newest first"
    );

    // Every user, merged across the 16 buckets back into (user, newest) order.
    let all = UserEvent::scan_all();
    let streams = all.ranges().map(|r| {
        table
            .range::<[u8], _>(r.bounds())
            .map(|(k, v)| (k.clone(), *v))
            .collect::<Vec<_>>()
            .into_iter()
    });
    let merged: Vec<UserEvent> = merge_salted(streams)
        .map(|(k, _)| UserEvent::decode(&k).unwrap())
        .collect();
    assert_eq!(merged.len(), 300);
    assert!(merged
        .windows(2)
        .all(|w| (w[0].user_id, -w[0].ts_millis) < (w[1].user_id, -w[1].ts_millis)));
    println!(
        "scan_all: {} ranges, {} rows merged in (user, newest first) order",
        all.range_count(),
        merged.len()
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
    rowkey_core::assert_layout::<UserEvent>(0x1c91113669b500a3, "[salt(user_id)/16 1][user_id u64 8][ts_millis desc_ts i64 8][kind fixed(8) String 8] = 25 bytes");
}
