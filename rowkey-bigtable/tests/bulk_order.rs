//! The bulk writer's order and its cancellations, on the Bigtable
//! emulator: two pushes of one key are two versions, the later newer, so
//! the first request sent again (a retry after the second was applied)
//! cannot bring its value back; a push cancelled while it waits for the
//! budget loses none of the rows pushed before it; a writer dropped
//! without `flush` lets the requests it sent finish.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bigtable_rs::google::bigtable::v2::bigtable_client::BigtableClient;
use bigtable_rs::google::bigtable::v2::{
    mutation, read_rows_response, MutateRowRequest, Mutation, ReadRowsRequest, RowSet,
};
use futures_util::StreamExt;
use rowkey_bigtable::emulator::Emulator;
use rowkey_bigtable::{create_table, stream_scan};
use rowkey_core::Scan;

fn cell(v: &str) -> Vec<(String, Vec<u8>, Vec<u8>)> {
    vec![("d".into(), b"q".to_vec(), v.as_bytes().to_vec())]
}

/// The values of cells read back.
fn values(cells: &[bigtable_rs::bigtable::RowCell]) -> Vec<&[u8]> {
    cells.iter().map(|c| c.value.as_slice()).collect()
}

/// Every version of row `key`'s cell `d:q`: `(timestamp, value)`, newest
/// first, read with no filter.
async fn versions(
    raw: &mut BigtableClient<tonic::transport::Channel>,
    table: &str,
    key: &[u8],
) -> Vec<(i64, Vec<u8>)> {
    let mut stream = raw
        .read_rows(ReadRowsRequest {
            table_name: table.into(),
            rows: Some(RowSet {
                row_keys: vec![key.to_vec()],
                row_ranges: vec![],
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let mut out = Vec::new();
    let mut value = Vec::new();
    let mut ts = 0;
    while let Some(message) = stream.next().await {
        for c in message.unwrap().chunks {
            if c.qualifier.is_some() || c.timestamp_micros != 0 {
                ts = c.timestamp_micros;
            }
            value.extend_from_slice(&c.value);
            if c.value_size == 0 {
                out.push((ts, std::mem::take(&mut value)));
            }
            if matches!(
                c.row_status,
                Some(read_rows_response::cell_chunk::RowStatus::ResetRow(_))
            ) {
                out.clear();
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_later_push_of_a_key_is_the_newer_version_whatever_is_retried() {
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let client = emulator.client("p", "i").unwrap();
    let mut admin = emulator.admin().await.unwrap();
    create_table(&mut admin, "projects/p/instances/i", "order", &["d"], &[])
        .await
        .unwrap();
    let mut writer = client.bulk_writer("order");
    for i in 0..500u32 {
        writer
            .push(i.to_be_bytes().to_vec(), cell("first"))
            .await
            .unwrap();
    }
    for i in 0..500u32 {
        writer
            .push(i.to_be_bytes().to_vec(), cell("second"))
            .await
            .unwrap();
    }
    let report = writer.flush().await.unwrap();
    assert_eq!(report.rows_written, 1_000);
    assert!(report.requests >= 2, "{report:?}");

    let table = client.table_name("order");
    let channel = rowkey_bigtable::Client::endpoint(&format!("http://{}", emulator.host()))
        .unwrap()
        .connect_lazy();
    let mut raw = BigtableClient::new(channel);
    let key = 7u32.to_be_bytes();
    let seen = versions(&mut raw, &table, &key).await;
    assert_eq!(seen.len(), 2, "two pushes, two versions: {seen:?}");
    let (newer, older) = (&seen[0], &seen[1]);
    assert_eq!(newer.1, b"second");
    assert_eq!(older.1, b"first");
    assert!(newer.0 > older.0);
    assert_eq!(newer.0 % 1000, 0, "milliseconds, Bigtable's granularity");

    // The first request sent again after the second was applied (a retry
    // that lands late): it writes its own cell, at its own, older
    // timestamp, and the row still reads as the second push left it. With
    // one stamp per writer (as before) it replaced the second value.
    raw.mutate_row(MutateRowRequest {
        table_name: table.clone(),
        row_key: key.to_vec(),
        mutations: vec![Mutation {
            mutation: Some(mutation::Mutation::SetCell(mutation::SetCell {
                family_name: "d".into(),
                column_qualifier: b"q".to_vec(),
                timestamp_micros: older.0,
                value: b"first".to_vec(),
            })),
        }],
        ..Default::default()
    })
    .await
    .unwrap();
    let mut rows = stream_scan(&client, "order", &Scan::from_bounds(b"", b""), None)
        .await
        .unwrap();
    let mut n = 0;
    while let Some(row) = rows.next().await {
        let (_, cells) = row.unwrap();
        // Every version, newest first: the second push's, then the first's.
        assert_eq!(values(&cells), [&b"second"[..], b"first"]);
        n += 1;
    }
    assert_eq!(n, 500);
}

/// A TCP proxy that holds what clients send until `open` is set.
async fn gate(target: String, open: Arc<AtomicBool>) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let Ok(mut server) = tokio::net::TcpStream::connect(&target).await else {
                return;
            };
            let open = Arc::clone(&open);
            tokio::spawn(async move {
                let (mut from_client, mut to_client) = client.split();
                let (mut from_server, mut to_server) = server.split();
                let downstream = tokio::io::copy(&mut from_server, &mut to_client);
                let upstream = async {
                    let mut buf = vec![0u8; 16 * 1024];
                    loop {
                        let n = from_client.read(&mut buf).await.unwrap_or(0);
                        if n == 0 {
                            return;
                        }
                        while !open.load(Ordering::Relaxed) {
                            tokio::time::sleep(Duration::from_millis(5)).await;
                        }
                        if to_server.write_all(&buf[..n]).await.is_err() {
                            return;
                        }
                    }
                };
                tokio::select! {
                    _ = downstream => {}
                    () = upstream => {}
                }
            });
        }
    });
    addr
}

/// A push cancelled while it waits for the budget (one request in flight,
/// held by the proxy) loses nothing pushed before it: the request it was
/// about to send stays in the writer and is written by `flush`; its own
/// row is not pushed. The old writer took the request out before waiting,
/// and the cancellation dropped it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_push_loses_no_row_pushed_before_it() {
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let direct = emulator.client("p", "i").unwrap();
    let mut admin = emulator.admin().await.unwrap();
    create_table(&mut admin, "projects/p/instances/i", "cancel", &["d"], &[])
        .await
        .unwrap();
    let open = Arc::new(AtomicBool::new(false));
    let proxy = gate(emulator.host(), Arc::clone(&open)).await;
    let client = rowkey_bigtable::emulator::client_at(&proxy, "p", "i").unwrap();
    let mut writer = client.bulk_writer("cancel").max_in_flight_requests(1);
    let key = b"k".to_vec();
    // A is gathered; B, the same key, sends A (held by the proxy) and is
    // gathered; C, the same key again, must send B and waits for the
    // budget: cancelled.
    writer.push(key.clone(), cell("A")).await.unwrap();
    writer.push(key.clone(), cell("B")).await.unwrap();
    let cancelled = tokio::time::timeout(
        Duration::from_millis(300),
        writer.push(key.clone(), cell("C")),
    )
    .await;
    assert!(cancelled.is_err(), "C waited for the budget");
    open.store(true, Ordering::Relaxed);
    let report = writer.flush().await.unwrap();
    assert_eq!(report.rows_written, 2, "{report:?}");
    assert!(report.rejected.is_empty(), "{report:?}");
    let mut rows = stream_scan(&direct, "cancel", &Scan::from_bounds(b"", b""), None)
        .await
        .unwrap();
    let (k, cells) = rows.next().await.unwrap().unwrap();
    assert_eq!(k, key);
    // A and B written (B the newer), C never pushed.
    assert_eq!(values(&cells), [b"B", b"A"]);
}

/// A writer dropped without `flush`: the request it had sent finishes
/// (detached on the runtime, not aborted with the writer).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_dropped_without_flush_lets_its_sent_requests_finish() {
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let direct = emulator.client("p", "i").unwrap();
    let mut admin = emulator.admin().await.unwrap();
    create_table(&mut admin, "projects/p/instances/i", "dropped", &["d"], &[])
        .await
        .unwrap();
    let open = Arc::new(AtomicBool::new(false));
    let proxy = gate(emulator.host(), Arc::clone(&open)).await;
    let client = rowkey_bigtable::emulator::client_at(&proxy, "p", "i").unwrap();
    let mut writer = client.bulk_writer("dropped");
    writer.push(b"k".to_vec(), cell("sent")).await.unwrap();
    // Sends the first request (held by the proxy); this row is only
    // gathered, and is logged as never sent when the writer is dropped.
    writer.push(b"k".to_vec(), cell("gathered")).await.unwrap();
    drop(writer);
    open.store(true, Ordering::Relaxed);
    let mut found = None;
    for _ in 0..100 {
        let mut rows = stream_scan(&direct, "dropped", &Scan::from_bounds(b"", b""), None)
            .await
            .unwrap();
        if let Some(row) = rows.next().await {
            found = Some(values(&row.unwrap().1).concat());
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(found.as_deref(), Some(&b"sent"[..]));
}
