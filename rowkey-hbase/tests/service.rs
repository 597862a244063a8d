//! The shared client on a real HBase: scans that come through a gateway
//! restart, a region split and a region move with exactly the model's
//! rows; 32 threads sharing one `Client` and 64 tasks sharing one
//! `AsyncClient`, every answer checked, on a gateway client and then on a
//! native one (`tests/native_chaos.rs` takes the native client through
//! splits, moves and a stopped region server).

use std::sync::atomic::{AtomicUsize, Ordering};

use futures::StreamExt;
use rowkey_core::prelude::*;
use rowkey_hbase::testing::HBase;
use rowkey_hbase::{AsyncClient, Cell, Client, WriteOptions};

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 4, by(user_id))]
struct Event {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
}

fn cells(v: u64) -> Vec<Cell> {
    vec![("d".into(), b"v".to_vec(), v.to_be_bytes().to_vec())]
}

fn events(users: std::ops::Range<u64>, per_user: i64) -> Vec<(Event, Vec<Cell>)> {
    users
        .flat_map(|u| {
            (0..per_user).map(move |t| {
                let e = Event {
                    user_id: u,
                    ts_millis: 1_700_000_000_000 + t,
                };
                (e, cells(u * 1_000_000 + t as u64))
            })
        })
        .collect()
}

/// The rows in merged key order (the order after the salt byte),
/// backwards when `reversed`.
fn model(rows: &[(Event, Vec<Cell>)], reversed: bool) -> Vec<(Event, Vec<Cell>)> {
    let mut sorted = rows.to_vec();
    sorted.sort_by_key(|(e, _)| e.encode_to_vec().unwrap()[1..].to_vec());
    if reversed {
        sorted.reverse();
    }
    sorted
}

fn start(region_servers: usize) -> HBase {
    HBase::start_with(region_servers).unwrap_or_else(|e| panic!("HBase starts: {e}"))
}

/// A scan read `first` rows, then `disturb` runs, then the rest is read:
/// every row of the model, in order, none twice. Returns the scan's
/// resumptions.
fn scan_through(
    c: &Client,
    table: &str,
    reversed: bool,
    limit: Option<usize>,
    first: usize,
    disturb: impl FnOnce(),
) -> (Vec<(Event, Vec<Cell>)>, usize) {
    let scan = Event::scan_all();
    let mut rows = if reversed {
        c.scan_typed_reversed::<Event>(table, &scan, limit)
    } else {
        c.scan_typed::<Event>(table, &scan, limit)
    }
    .unwrap();
    let mut got: Vec<_> = rows.by_ref().take(first).map(Result::unwrap).collect();
    disturb();
    for row in rows.by_ref() {
        got.push(row.unwrap_or_else(|e| panic!("after {} rows: {e}", got.len())));
    }
    (got, rows.retries())
}

#[test]
fn scans_come_through_a_gateway_restart_a_split_and_a_move() {
    let hbase = start(2);
    let c = hbase.client_builder().scan_batch(100).build().unwrap();
    c.create_table("moving", &["d"], &Event::split_points())
        .unwrap();
    let rows = events(0..40, 100);
    c.write_rows("moving", rows.clone()).unwrap();

    // A gateway restart mid-scan, forwards and backwards (with a limit):
    // each range resumes after its last row.
    let (got, retries) = scan_through(&c, "moving", false, None, 700, || {
        hbase.restart_gateway().unwrap();
    });
    assert_eq!(got.len(), rows.len());
    assert!(got == model(&rows, false), "forward scan after a restart");
    assert!(retries > 0, "the scan resumed on a new connection");

    let (got, retries) = scan_through(&c, "moving", true, Some(3_000), 1_000, || {
        hbase.restart_gateway().unwrap();
    });
    let want: Vec<_> = model(&rows, true).into_iter().take(3_000).collect();
    assert_eq!(got.len(), want.len());
    assert!(got == want, "reversed, limited scan after a restart");
    assert!(retries > 0);

    // A region split and every region moved mid-scan.
    let before = c.region_locations("moving").unwrap().len();
    let split_at = Event {
        user_id: 7,
        ts_millis: 1_700_000_000_050,
    }
    .encode_to_vec()
    .unwrap();
    let (got, _) = scan_through(&c, "moving", false, None, 500, || {
        hbase.split_region("moving", &split_at).unwrap();
        hbase.move_regions("moving").unwrap();
    });
    assert!(got == model(&rows, false), "scan across a split and a move");
    let after = c.region_locations("moving").unwrap();
    assert_eq!(after.len(), before + 1, "{after:?}");
    assert!(after.iter().any(|r| r.start == split_at));

    // Gets and writes on the same client after all that.
    assert_eq!(
        c.get("moving", &rows[5].0).unwrap().as_deref(),
        Some(&rows[5].1[..])
    );
    let stats = c.stats();
    assert!(stats.reconnects > 0 && stats.retries > 0, "{stats:?}");
}

/// Thread or task `t`'s work, checked: its own users' rows written, read
/// back by get, get_many and a scan, some deleted, and a neighbour's rows
/// scanned while it may be writing them.
fn rows_of(t: u64) -> Vec<(Event, Vec<Cell>)> {
    events(t * 10..t * 10 + 3, 20)
}

#[test]
fn threads_and_tasks_share_one_client() {
    let hbase = start(1);
    let c = hbase.client_builder().pool_size(8).build().unwrap();
    share_one_client(&c, "shared");
    assert!(c.stats().connections <= 8, "a pool of 8: {:?}", c.stats());
    // The same work on one native client of the same HBase.
    #[cfg(feature = "native")]
    {
        let native = Client::native(hbase.bootstrap()).build().unwrap();
        share_one_client(&native, "shared_native");
        assert!(native.stats().calls > 0);
    }
}

/// 32 threads sharing `c`, then 64 tasks sharing one `AsyncClient` over
/// it, each checking its own rows in a table `table` it creates.
fn share_one_client(c: &Client, table: &'static str) {
    c.create_table(table, &["d"], &Event::split_points())
        .unwrap();

    let checked = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for t in 0..32u64 {
            let c = c.clone();
            let checked = &checked;
            s.spawn(move || {
                let rows = rows_of(t);
                c.write_rows(table, rows.clone()).unwrap();
                for (e, cells) in &rows {
                    assert_eq!(c.get(table, e).unwrap().as_ref(), Some(cells));
                }
                let keys: Vec<Event> = rows.iter().map(|(e, _)| e.clone()).collect();
                let many = c.get_many(table, &keys).unwrap();
                assert!(many
                    .iter()
                    .zip(&rows)
                    .all(|(m, (_, cells))| m.as_ref() == Some(cells)));
                let user = t * 10 + 1;
                let scanned: Vec<_> = c
                    .scan_typed::<Event>(table, &Event::scan_by_user_id(user), None)
                    .unwrap()
                    .map(Result::unwrap)
                    .collect();
                let want: Vec<_> = model(&rows, false)
                    .into_iter()
                    .filter(|(e, _)| e.user_id == user)
                    .collect();
                assert_eq!(scanned, want);
                let gone: Vec<Event> = keys.iter().take(5).cloned().collect();
                c.delete_rows(table, gone.clone()).unwrap();
                for e in &gone {
                    assert_eq!(c.get(table, e).unwrap(), None);
                }
                checked.fetch_add(1, Ordering::Relaxed);
            });
        }
    });
    assert_eq!(checked.load(Ordering::Relaxed), 32);

    // 64 tasks on a multi-threaded runtime, one AsyncClient.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let hbase_async = AsyncClient::new(c.clone());
    runtime.block_on(async {
        let tasks: Vec<_> = (100..164u64)
            .map(|t| {
                let c = hbase_async.clone();
                tokio::spawn(async move {
                    let rows = rows_of(t);
                    c.write_rows(table, rows.clone(), WriteOptions::default())
                        .await
                        .unwrap();
                    let (e, cells) = &rows[3];
                    assert_eq!(c.get(table, e).await.unwrap().as_ref(), Some(cells));
                    let keys: Vec<Event> = rows.iter().map(|(e, _)| e.clone()).collect();
                    let many = c.get_many(table, &keys).await.unwrap();
                    assert!(many
                        .iter()
                        .zip(&rows)
                        .all(|(m, (_, c))| m.as_ref() == Some(c)));
                    let user = t * 10 + 2;
                    let scanned: Vec<_> = c
                        .scan_typed::<Event>(table, &Event::scan_by_user_id(user), None)
                        .map(Result::unwrap)
                        .collect()
                        .await;
                    let want: Vec<_> = model(&rows, false)
                        .into_iter()
                        .filter(|(e, _)| e.user_id == user)
                        .collect();
                    assert_eq!(scanned, want);
                    let newest: Vec<_> = c
                        .scan_typed_reversed::<Event>(table, &Event::scan_by_user_id(user), Some(4))
                        .map(Result::unwrap)
                        .collect()
                        .await;
                    let want: Vec<_> = want.iter().rev().take(4).cloned().collect();
                    assert_eq!(newest, want);
                    c.delete_rows(table, keys[..5].to_vec(), WriteOptions::default())
                        .await
                        .unwrap();
                    assert_eq!(c.get(table, &keys[0]).await.unwrap(), None);
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
    });
}
