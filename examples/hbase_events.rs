//! A salted, newest-first event table on HBase: define, pre-split, write
//! from four threads sharing one client, scan one user's last hour, scan all users merged, and the latest 10
//! events of everyone with a reversed scan.
//!
//! Run against an HBase Thrift2 gateway (`hbase thrift2 start`, port 9090):
//! `HBASE_THRIFT=127.0.0.1:9090 cargo run -p examples --example hbase_events`.
//! Its test starts a real standalone HBase (`rowkey_hbase::testing`).

use rowkey_core::prelude::*;
use rowkey_hbase::{Cell, Client};

/// Newest first within a user: "the last hour" is one forward range.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 8, by(user_id))]
struct UserEvent {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
    #[fixed(8)]
    kind: String,
}

/// Every event by time, oldest first: "the latest 10" is a reversed scan.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 8, by(user_id))]
struct ByTime {
    ts_millis: i64,
    user_id: u64,
}

fn run(addr: &str) -> Result<(), Box<dyn std::error::Error>> {
    let hbase = Client::connect(addr)?;
    let (events_table, time_table) = ("user_events", "events_by_time");

    // One region per bucket from the start.
    hbase.create_table(events_table, &["d"], &UserEvent::split_points())?;
    hbase.create_table(time_table, &["d"], &ByTime::split_points())?;
    let regions = hbase.region_locations(events_table)?;
    println!("{events_table}: {} regions", regions.len());
    for r in regions.iter().take(3) {
        println!("  {r}");
    }
    assert_eq!(regions.len(), UserEvent::split_points().len() + 1);

    let now = 1_700_000_000_000i64;
    let events: Vec<UserEvent> = (0..600i64)
        .map(|i| UserEvent {
            user_id: (i % 6) as u64,
            ts_millis: now - i * 30_000,
            kind: ["click", "view"][(i % 2) as usize].into(),
        })
        .collect();
    let cell = |e: &UserEvent| -> Vec<Cell> {
        vec![("d".into(), b"kind".to_vec(), e.kind.clone().into_bytes())]
    };
    // Four writers sharing one client: each clone is a handle on the same
    // pool of gateway connections.
    std::thread::scope(|s| -> Result<(), rowkey_hbase::Error> {
        let writers: Vec<_> = events
            .chunks(150)
            .map(|chunk| {
                let hbase = hbase.clone();
                s.spawn(move || {
                    hbase.write_rows(events_table, chunk.iter().map(|e| (e.clone(), cell(e))))
                })
            })
            .collect();
        for w in writers {
            w.join().expect("a writer panicked")?;
        }
        Ok(())
    })?;
    hbase.write_rows(
        time_table,
        events.iter().map(|e| {
            let key = ByTime {
                ts_millis: e.ts_millis,
                user_id: e.user_id,
            };
            (key, cell(e))
        }),
    )?;
    println!(
        "wrote {} events into {events_table} and {time_table}",
        events.len()
    );

    // User 3's last hour: one range in one bucket, newest first.
    let scan = UserEvent::range_by_user_id_ts_millis(3, now - 3_600_000..=now);
    let last_hour = hbase
        .scan_typed::<UserEvent>(events_table, &scan, None)?
        .collect::<Result<Vec<_>, _>>()?;
    println!(
        "user 3, last hour: {} events from {} range(s)",
        last_hour.len(),
        scan.range_count()
    );
    assert_eq!(last_hour.len(), 20, "every 6th event of 120 half-minutes");
    assert!(
        last_hour
            .windows(2)
            .all(|w| w[0].0.ts_millis > w[1].0.ts_millis),
        "newest first"
    );

    // Everyone: 8 scanners, merged lazily into (user, newest first).
    let all = hbase
        .scan_typed::<UserEvent>(events_table, &UserEvent::scan_all(), None)?
        .collect::<Result<Vec<_>, _>>()?;
    assert_eq!(all.len(), events.len());
    assert!(all
        .windows(2)
        .all(|w| (w[0].0.user_id, -w[0].0.ts_millis) < (w[1].0.user_id, -w[1].0.ts_millis)));
    println!("all users: {} events from 8 ranges, merged", all.len());

    // The latest 10 of everyone: every bucket read backwards, merged newest
    // first, at most 10 rows read per bucket.
    let mut latest =
        hbase.scan_typed_reversed::<ByTime>(time_table, &ByTime::scan_all(), Some(10))?;
    let newest: Vec<ByTime> = latest
        .by_ref()
        .map(|r| r.map(|(k, _)| k))
        .collect::<Result<_, _>>()?;
    println!(
        "latest 10: {:?} .. {:?}, {} rows read",
        newest[0].ts_millis,
        newest[9].ts_millis,
        latest.rows_read()
    );
    assert_eq!(newest.len(), 10);
    assert!(newest
        .iter()
        .enumerate()
        .all(|(i, e)| e.ts_millis == now - i as i64 * 30_000));
    assert!(latest.rows_read() <= 10 * ByTime::scan_all().range_count());
    drop(latest);

    hbase.drop_table(events_table)?;
    hbase.drop_table(time_table)?;
    Ok(())
}

fn main() {
    let Ok(addr) = std::env::var("HBASE_THRIFT") else {
        eprintln!("set HBASE_THRIFT to an HBase Thrift2 gateway, e.g. 127.0.0.1:9090");
        std::process::exit(2);
    };
    if let Err(e) = run(&addr) {
        eprintln!("hbase_events: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
#[test]
fn example_runs_against_a_real_hbase() {
    let hbase = rowkey_hbase::testing::HBase::start().expect("HBase starts");
    run(&hbase.thrift_addr().to_string()).unwrap();
}

/// The key layouts, frozen.
#[cfg(test)]
#[test]
fn layouts_are_frozen() {
    rowkey_core::assert_layout::<UserEvent>(0x66b66e5bcd33a5db, "[salt(user_id)/8 1][user_id u64 8][ts_millis desc_ts i64 8][kind fixed(8) String 8] = 25 bytes");
    rowkey_core::assert_layout::<ByTime>(
        0xc0b663259bc66193,
        "[salt(user_id)/8 1][ts_millis i64 8][user_id u64 8] = 17 bytes",
    );
}
