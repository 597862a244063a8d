//! A user activity log: the user id reversed (sequential ids spread over the
//! key space instead of piling into the newest region), then newest first.
//!
//! Run: `cargo run --example user_activity`

use std::collections::{BTreeMap, BTreeSet};

use rowkey_core::prelude::*;

#[derive(RowKey, Debug, Clone, PartialEq)]
struct Activity {
    /// New accounts get increasing ids; reversed, the low byte leads.
    #[reverse]
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
    #[fixed(12)]
    action: String,
}

fn main() {
    let now = 1_700_000_000_000i64;
    let mut table = BTreeMap::new();
    for user_id in 1_000..1_256u64 {
        for (i, action) in ["login", "view_page", "logout"].iter().enumerate() {
            let a = Activity {
                user_id,
                ts_millis: now - (i as i64) * 1_000 - user_id as i64,
                action: action.to_string(),
            };
            table.insert(a.try_encode().unwrap().to_vec(), ());
        }
    }

    // 256 consecutive ids start with 256 different first bytes.
    let first_bytes: BTreeSet<u8> = table.keys().map(|k| k[0]).collect();
    println!(
        "256 sequential users -> {} distinct leading bytes",
        first_bytes.len()
    );
    assert_eq!(first_bytes.len(), 256);

    // One user's activity is still contiguous and newest first.
    let scan = Activity::scan_by_user_id(1_042);
    let range = scan.ranges().next().unwrap();
    let rows: Vec<Activity> = table
        .range::<[u8], _>(range.bounds())
        .map(|(k, _)| Activity::decode(k).unwrap())
        .collect();
    for r in &rows {
        println!("  user {} {} {}", r.user_id, r.ts_millis, r.action);
    }
    let actions: Vec<&str> = rows.iter().map(|r| r.action.as_str()).collect();
    assert_eq!(actions, ["login", "view_page", "logout"], "newest first");

    // The user's last 1.5 seconds.
    let t = now - 1_042;
    let recent = Activity::range_by_user_id_ts_millis(1_042, t - 1_500..=t);
    let r = recent.ranges().next().unwrap();
    let n = table.range::<[u8], _>(r.bounds()).count();
    assert_eq!(n, 2);
    println!("events in the last 1.5 s: {n}");
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
    rowkey_core::assert_layout::<Activity>(
        0xe308f2f55ed8e742,
        "[user_id reverse u64 8][ts_millis desc_ts i64 8][action fixed(12) String 12] = 28 bytes",
    );
}
