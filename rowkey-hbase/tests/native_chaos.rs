//! The native client while the cluster changes under it: HBase with no
//! Thrift gateway at all, three region servers, a table of 16 pre-split
//! regions and 100,000 rows. A typed merged scan, a reversed scan, a
//! filtered (skip) scan and a plain scan each read the whole table while,
//! half-way through, a region is split, every region is moved, a region
//! server is stopped (and another started), and the consumer sleeps past
//! the scanner lease; each must equal the model, row for row, in order (no
//! gap, no duplicate). Then 10,000 rows are written in one call while the
//! regions move, and every one reads back.

use std::collections::BTreeMap;
use std::time::Duration;

use rowkey_core::prelude::*;
use rowkey_hbase::testing::HBase;
use rowkey_hbase::{Cell, Client};

#[derive(RowKey, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[salt(buckets = 16, by(device))]
struct Reading {
    device: u32,
    #[desc_ts]
    ts: i64,
}

const ROWS: i64 = 100_000;
const DEVICES: i64 = 500;
const T0: i64 = 1_700_000_000_000;
/// The scanner lease the region servers give (HBase's default is 60 s).
const LEASE_MS: u64 = 3_000;

fn reading(i: i64) -> (Reading, Vec<Cell>) {
    (
        Reading {
            device: (i % DEVICES) as u32,
            ts: T0 + i,
        },
        vec![("d".into(), b"v".to_vec(), i.to_be_bytes().to_vec())],
    )
}

/// What a merged scan returns: devices in order, each newest first.
fn merged_order(rows: &BTreeMap<Vec<u8>, i64>) -> Vec<(u32, i64)> {
    let mut all: Vec<(u32, i64)> = rows
        .values()
        .map(|&i| {
            let (r, _) = reading(i);
            (r.device, r.ts)
        })
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    all
}

/// Reads `rows` to the end, running `disrupt` once `at` rows were taken.
fn read_through<T>(
    rows: impl Iterator<Item = Result<T, rowkey_hbase::Error>>,
    at: usize,
    what: &str,
    mut disrupt: impl FnMut(),
) -> Vec<T> {
    let mut out = Vec::new();
    for (n, row) in rows.enumerate() {
        if n == at {
            disrupt();
        }
        out.push(row.unwrap_or_else(|e| panic!("{what}: row {n}: {e}")));
    }
    out
}

#[test]
fn scans_and_writes_equal_the_model_while_the_cluster_changes() {
    let hbase = HBase::builder()
        .gateway(false)
        .region_servers(3)
        .setting("hbase.client.scanner.timeout.period", &LEASE_MS.to_string())
        // Regions stay where the test puts them.
        .setting("hbase.balancer.period", "3600000")
        // Quotas, applied a second after they are set.
        .setting("hbase.quota.enabled", "true")
        .setting("hbase.quota.refresh.period", "1000")
        .start()
        .unwrap_or_else(|e| panic!("HBase starts: {e}"));
    let client = hbase
        .client_builder()
        .scan_batch(700)
        .write_batch(2_000)
        .build()
        .unwrap();
    assert!(
        client.is_native(),
        "a server with no gateway is reached natively"
    );
    let table = "chaos";
    client
        .create_table(table, &["d"], &Reading::split_points())
        .unwrap();
    assert_eq!(client.region_locations(table).unwrap().len(), 16);

    let rows: Vec<(Reading, Vec<Cell>)> = (0..ROWS).map(reading).collect();
    client.write_rows(table, rows.clone()).unwrap();
    let model: BTreeMap<Vec<u8>, i64> = (0..ROWS)
        .map(|i| (reading(i).0.encode_to_vec().unwrap(), i))
        .collect();
    let value = |cells: &[Cell]| -> i64 {
        match cells {
            [(f, q, v)] if f == "d" && q == b"v" => {
                i64::from_be_bytes(v.as_slice().try_into().expect("8 bytes"))
            }
            _ => panic!("unexpected cells {cells:?}"),
        }
    };
    // A row's key and cells as (device, ts), checked against each other.
    let decoded = |key: &[u8], cells: &[Cell]| -> (u32, i64) {
        let (r, _) = reading(value(cells));
        assert_eq!(key, r.encode_to_vec().unwrap(), "a row's cells are its own");
        (r.device, r.ts)
    };
    let half = (ROWS / 2) as usize;

    // 1. A typed merged scan over the 16 buckets; a region splits.
    let split_at = reading(4_321).0.encode_to_vec().unwrap();
    let got = read_through(
        client
            .scan_typed::<Reading>(table, &Reading::scan_all(), None)
            .unwrap(),
        half,
        "merged scan, split",
        || hbase.split_region(table, &split_at).unwrap(),
    );
    assert_eq!(client.region_locations(table).unwrap().len(), 17);
    let got: Vec<(u32, i64)> = got
        .iter()
        .map(|(r, cells)| {
            assert_eq!(reading(value(cells)).0, *r, "a row's cells are its own");
            (r.device, r.ts)
        })
        .collect();
    assert!(got == merged_order(&model), "merged scan across a split");

    // 2. A reversed scan; every region moves.
    let got = read_through(
        client
            .scan_reversed(table, &Reading::scan_all(), None)
            .unwrap(),
        half,
        "reversed scan, move",
        || hbase.move_regions(table).unwrap(),
    );
    // Merged over the buckets, highest first.
    let mut want = merged_order(&model);
    want.reverse();
    let got: Vec<(u32, i64)> = got.into_iter().map(|(k, c)| decoded(&k, &c)).collect();
    assert!(
        got == want,
        "reversed scan across moves: {} rows",
        got.len()
    );

    // 3. A skip scan on the region servers; a region server stops, and
    // another starts.
    let window = Reading::filter()
        .ts(T0 + 10_000..T0 + 90_000)
        .build()
        .unwrap();
    let want: Vec<(u32, i64)> = merged_order(&model)
        .into_iter()
        .filter(|&(_, ts)| (T0 + 10_000..T0 + 90_000).contains(&ts))
        .collect();
    let stopped = std::cell::RefCell::new(String::new());
    let got = read_through(
        client.filter(table, &window, None).unwrap(),
        want.len() / 2,
        "skip scan, region server stopped",
        || {
            *stopped.borrow_mut() = hbase.stop_region_server(0).unwrap();
            hbase.start_region_server().unwrap();
        },
    );
    let got: Vec<(u32, i64)> = got.into_iter().map(|(k, c)| decoded(&k, &c)).collect();
    assert!(
        got == want,
        "skip scan across a stopped region server: {} rows of {}",
        got.len(),
        want.len()
    );
    let stopped = stopped.into_inner();
    // The stopped server's calls failed, and the client counted them by
    // server.
    let per_server = client.server_stats();
    assert!(
        per_server
            .iter()
            .any(|s| s.server == stopped && s.failures > 0),
        "{per_server:?}"
    );
    assert_eq!(
        per_server.iter().map(|s| s.calls).sum::<u64>(),
        client.stats().calls
    );
    assert!(
        client
            .region_locations(table)
            .unwrap()
            .iter()
            .all(|r| r.server != stopped),
        "no region left on {stopped}"
    );

    // 4. A plain scan whose consumer sleeps past the scanner lease.
    let before = client.stats().retries;
    let got = read_through(
        client
            .scan(table, &rowkey_core::Scan::from_bounds(b"", b""), None)
            .unwrap(),
        half,
        "scan, lease expired",
        || std::thread::sleep(Duration::from_millis(LEASE_MS * 2)),
    );
    let got: Vec<(Vec<u8>, i64)> = got.into_iter().map(|(k, c)| (k, value(&c))).collect();
    let want: Vec<(Vec<u8>, i64)> = model.iter().map(|(k, &i)| (k.clone(), i)).collect();
    assert!(
        got == want,
        "scan across an expired lease: {} rows",
        got.len()
    );
    assert!(
        client.stats().retries > before,
        "the expired scanner was resumed, and counted"
    );

    // 5. 10,000 rows in one call while every region moves.
    let more: Vec<(Reading, Vec<Cell>)> = (ROWS..ROWS + 10_000).map(reading).collect();
    std::thread::scope(|s| {
        let writer = s.spawn(|| client.write_rows(table, more.clone()));
        std::thread::sleep(Duration::from_millis(20));
        hbase.move_regions(table).unwrap();
        writer.join().unwrap().unwrap();
    });
    let keys: Vec<Reading> = more.iter().map(|(r, _)| r.clone()).collect();
    let read = client.get_many(table, &keys).unwrap();
    for ((r, want), got) in more.iter().zip(&read) {
        assert_eq!(got.as_deref(), Some(want.as_slice()), "{r:?}");
    }
    let total = client
        .scan(table, &rowkey_core::Scan::from_bounds(b"", b""), None)
        .unwrap()
        .count();
    assert_eq!(total, (ROWS + 10_000) as usize);

    // 6. A user over its quota: the region servers refuse its calls
    // (RpcThrottlingException), and the client sends them again after a
    // pause until they pass; every answer right.
    hbase.throttle_user("throttled", 20).unwrap();
    let throttled = Client::native(hbase.bootstrap())
        .user("throttled")
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let mut n = 0;
    while throttled.stats().retries == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no call was throttled in 30 s: {:?}",
            throttled.stats()
        );
        for (r, want) in more.iter().skip(n % 1_000).take(10) {
            assert_eq!(throttled.get(table, r).unwrap().as_ref(), Some(want));
        }
        n += 10;
    }
    for (r, want) in more.iter().take(60) {
        assert_eq!(throttled.get(table, r).unwrap().as_ref(), Some(want));
    }
    assert!(throttled.stats().retries > 0);
}
