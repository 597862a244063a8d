//! The bulk writer on the Bigtable emulator: 200,000 rows under a budget
//! of 4 MiB and 8 requests in flight, the budget never exceeded (counted by
//! the writer), every row read back, and the rows Bigtable would refuse
//! reported with their positions and keys; a request that fails part-way
//! in `write_rows` lists the rows it did not write.

use futures_util::StreamExt;
use rowkey_bigtable::emulator::Emulator;
use rowkey_bigtable::{create_table, stream_scan, write_raw_rows, Error, MAX_KEY_LEN};
use rowkey_core::prelude::*;

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 8, by(user))]
struct Event {
    user: u32,
    seq: u32,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_thousand_rows_within_the_budget_and_the_refused_rows_named() {
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let client = emulator.client("p", "i").unwrap();
    let mut admin = emulator.admin().await.unwrap();
    create_table(
        &mut admin,
        "projects/p/instances/i",
        "bulk",
        &["d"],
        &Event::split_points(),
    )
    .await
    .unwrap();

    const BUDGET: usize = 4 << 20;
    let mut writer = client
        .bulk_writer("bulk")
        .max_in_flight_bytes(BUDGET)
        .max_in_flight_requests(8);
    let n = 200_000u32;
    for i in 0..n {
        let key = Event {
            user: i % 1_000,
            seq: i,
        };
        writer
            .push_row(&key, vec![("d".into(), b"v".to_vec(), vec![b'x'; 64])])
            .await
            .unwrap();
        if i == 1_000 {
            // Three rows Bigtable would refuse, among the others.
            writer
                .push(Vec::new(), vec![("d".into(), b"v".to_vec(), b"x".to_vec())])
                .await
                .unwrap();
            writer.push(b"bare".to_vec(), Vec::new()).await.unwrap();
            writer
                .push(
                    vec![b'k'; MAX_KEY_LEN + 1],
                    vec![("d".into(), b"v".to_vec(), b"x".to_vec())],
                )
                .await
                .unwrap();
        }
    }
    let report = writer.flush().await.unwrap();
    assert_eq!(report.rows_written, u64::from(n), "{report:?}");
    assert!(report.max_in_flight_bytes <= BUDGET, "{report:?}");
    assert!(report.max_in_flight_requests <= 8, "{report:?}");
    assert!(
        report.max_in_flight_requests > 1,
        "requests overlapped: {report:?}"
    );
    // 200,000 rows of about 90 bytes: more than 30 requests of at most
    // 512 KiB (the budget shared by 8).
    assert!(report.requests > 30, "{report:?}");
    assert!(report.bytes > 16 << 20, "{report:?}");
    let rejected: Vec<(usize, &str)> = report
        .rejected
        .iter()
        .map(|r| (r.index, r.message.as_str()))
        .collect();
    assert_eq!(rejected.len(), 3, "{rejected:?}");
    assert_eq!(rejected[0], (1_001, "an empty row key"));
    assert_eq!(rejected[1], (1_002, "a row without cells"));
    assert_eq!(report.rejected[1].key, "bare");
    assert!(rejected[2].1.contains("4097 bytes"), "{rejected:?}");

    let mut rows = stream_scan(&client, "bulk", &Event::scan_all(), None)
        .await
        .unwrap();
    let mut count = 0u32;
    while let Some(row) = rows.next().await {
        let (key, _) = row.unwrap();
        Event::decode(&key).unwrap();
        count += 1;
    }
    assert_eq!(count, n, "every row reads back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_rows_names_the_rows_it_did_not_write() {
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let client = emulator.client("p", "i").unwrap();
    let mut admin = emulator.admin().await.unwrap();
    create_table(&mut admin, "projects/p/instances/i", "partial", &["d"], &[])
        .await
        .unwrap();
    // The emulator's own refusals, by row: an unknown family.
    let rows = (0..10u32).map(|i| {
        let family = if i == 4 { "nope" } else { "d" };
        (
            i.to_be_bytes().to_vec(),
            vec![(family.to_string(), b"v".to_vec(), b"x".to_vec())],
        )
    });
    match write_raw_rows(&client, "partial", rows).await {
        Err(Error::Rejected { rejected }) => {
            assert_eq!(rejected.len(), 1);
            assert_eq!(rejected[0].index, 4);
        }
        other => panic!("{other:?}"),
    }
    // A request that fails as a whole (the emulator killed): every row
    // is listed as not written.
    let mut emulator = emulator;
    emulator.kill().unwrap();
    let rows = (0..10u32).map(|i| {
        (
            i.to_be_bytes().to_vec(),
            vec![("d".to_string(), b"v".to_vec(), b"x".to_vec())],
        )
    });
    match write_raw_rows(&client, "partial", rows).await {
        Err(Error::Incomplete {
            written,
            unwritten,
            rejected,
            ..
        }) => {
            assert_eq!(written, 0);
            assert_eq!(unwritten, (0..10).collect::<Vec<_>>());
            assert!(rejected.is_empty());
        }
        other => panic!("{other:?}"),
    }
}

/// A proxy to `target` that cuts its first connection once `cut_after`
/// bytes have gone to the server; later connections pass through.
async fn cutting_proxy(target: String, cut_after: usize) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        let mut first = true;
        while let Ok((mut client, _)) = listener.accept().await {
            let Ok(mut server) = tokio::net::TcpStream::connect(&target).await else {
                return;
            };
            if !std::mem::take(&mut first) {
                tokio::spawn(async move {
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                });
                continue;
            }
            tokio::spawn(async move {
                let (mut from_client, mut to_client) = client.split();
                let (mut from_server, mut to_server) = server.split();
                let downstream = tokio::io::copy(&mut from_server, &mut to_client);
                let upstream = async {
                    let (mut sent, mut buf) = (0, vec![0u8; 16 * 1024]);
                    while sent < cut_after {
                        let n = from_client.read(&mut buf).await.unwrap_or(0);
                        if n == 0 || to_server.write_all(&buf[..n]).await.is_err() {
                            return;
                        }
                        sent += n;
                    }
                };
                // Whichever ends first drops both sockets: the cut.
                tokio::select! {
                    _ = downstream => {}
                    () = upstream => {}
                }
            });
        }
    });
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_cut_by_a_lost_connection_are_retried_and_write_each_cell_once() {
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let direct = emulator.client("p", "i").unwrap();
    let mut admin = emulator.admin().await.unwrap();
    create_table(
        &mut admin,
        "projects/p/instances/i",
        "cut",
        &["d"],
        &Event::split_points(),
    )
    .await
    .unwrap();
    let proxy = cutting_proxy(emulator.host(), 1 << 20).await;
    let client = rowkey_bigtable::emulator::client_at(&proxy, "p", "i").unwrap();
    let mut writer = client
        .bulk_writer("cut")
        .max_in_flight_bytes(2 << 20)
        .max_in_flight_requests(4);
    let n = 30_000u32;
    for i in 0..n {
        let key = Event {
            user: i % 50,
            seq: i,
        };
        writer
            .push_row(&key, vec![("d".into(), b"v".to_vec(), vec![b'y'; 100])])
            .await
            .unwrap();
    }
    let report = writer.flush().await.unwrap();
    assert!(
        report.retries >= 1,
        "the cut requests were retried: {report:?}"
    );
    assert!(report.rejected.is_empty(), "{report:?}");
    let mut rows = stream_scan(&direct, "cut", &Event::scan_all(), None)
        .await
        .unwrap();
    let mut count = 0u32;
    while let Some(row) = rows.next().await {
        let (_, cells) = row.unwrap();
        assert_eq!(
            cells.len(),
            1,
            "a retried cell is the same cell, not a second version"
        );
        count += 1;
    }
    assert_eq!(count, n);
}
