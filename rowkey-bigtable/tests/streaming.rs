//! Streaming reads on the Bigtable emulator: merged order across buckets,
//! limits pushed down to every range, paging with `Scan::after`, and the
//! faults users meet in production: rows another program wrote, rows the
//! server rejects, a server that goes away in the middle of a scan.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use futures_util::StreamExt;
use rowkey_bigtable::emulator::Emulator;
use rowkey_bigtable::{
    create_table, stream_scan, stream_typed, write_rows, Client, Error, Row, RowStream,
};
use rowkey_core::prelude::*;
use rowkey_core::Scan;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const PROJECT: &str = "rowkey-test";
const INSTANCE: &str = "rowkey";

fn instance() -> String {
    format!("projects/{PROJECT}/instances/{INSTANCE}")
}

/// Newest first, salted over the whole key: "the latest N events" is the
/// start of the merged scan and fans out over 16 buckets.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 16)]
struct Event {
    #[desc_ts]
    ts: i64,
    user: u32,
}

/// Three bytes whose first is below 16: inside `Event`'s buckets, but not
/// an `Event`.
#[derive(RowKey, Debug, Clone, PartialEq)]
struct Foreign {
    bucket: u8,
    n: u16,
}

type Cells = Vec<(String, Vec<u8>, Vec<u8>)>;

fn cell(value: Vec<u8>) -> Cells {
    vec![("d".to_string(), b"v".to_vec(), value)]
}

async fn setup(emulator: &Emulator, table: &str) -> Client {
    let client = emulator.client(PROJECT, INSTANCE).expect("client");
    let mut admin = emulator.admin().await.expect("admin");
    create_table(
        &mut admin,
        &instance(),
        table,
        &["d"],
        &Event::split_points(),
    )
    .await
    .expect("table created");
    client
}

fn events(n: u32) -> Vec<Event> {
    (0..n)
        .map(|i| Event {
            ts: 1_700_000_000_000 + i64::from(i * 7 % n) * 1_000,
            user: i % 97,
        })
        .collect()
}

async fn write(client: &Client, table: &str, rows: &[Event], value_len: usize) {
    for chunk in rows.chunks(2_000) {
        let cells = chunk
            .iter()
            .map(|e| (e.clone(), cell(vec![b'x'; value_len])));
        write_rows(client, table, cells).await.expect("written");
    }
}

/// The keys of `rows` in merge order (after the salt byte).
fn merged_keys(rows: &[Event]) -> Vec<Vec<u8>> {
    let mut keys: Vec<Vec<u8>> = rows.iter().map(|e| e.encode().to_vec()).collect();
    keys.sort_by(|a, b| a[1..].cmp(&b[1..]));
    keys.dedup();
    keys
}

async fn collect(
    client: &Client,
    table: &str,
    scan: &Scan,
    limit: Option<u64>,
) -> (Vec<Vec<u8>>, u64) {
    let mut stream = stream_scan(client, table, scan, limit)
        .await
        .expect("opens");
    let mut keys = Vec::new();
    while let Some(row) = stream.next().await {
        let (key, _): Row = row.expect("a row");
        keys.push(key);
    }
    (keys, stream.rows_received())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_merge_limit_and_page() {
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let client = setup(&emulator, "events").await;
    let rows = events(3_000);
    write(&client, "events", &rows, 8).await;
    let expected = merged_keys(&rows);

    // Everything, merged across the 16 buckets into newest-first order.
    let (all, received) = collect(&client, "events", &Event::scan_all(), None).await;
    assert_eq!(all.len(), expected.len());
    assert!(all == expected, "merged order");
    assert_eq!(received, expected.len() as u64);

    // The latest 20: at most 20 rows read per bucket, 20 returned.
    let (latest, received) = collect(&client, "events", &Event::scan_all(), Some(20)).await;
    assert!(latest == expected[..20], "the latest 20");
    assert!(
        received <= 16 * 20,
        "{received} rows read for a limit of 20"
    );

    // The limit's last row cancels every range's read at once.
    let mut limited = stream_scan(&client, "events", &Event::scan_all(), Some(3))
        .await
        .expect("opens");
    limited.next().await.expect("a row").expect("no error");
    assert_eq!(limited.open_ranges(), 16, "every range is being read");
    limited.next().await.expect("a row").expect("no error");
    limited.next().await.expect("a row").expect("no error");
    assert_eq!(
        limited.open_ranges(),
        0,
        "the limit's last row closed every range"
    );
    assert!(limited.next().await.is_none());

    // A range, newest first, fanned out: the same rows as a filter.
    let (from, to) = (1_700_000_500_000, 1_700_001_000_000);
    let scan = Event::range_by_ts(from..to);
    let (ranged, _) = collect(&client, "events", &scan, None).await;
    let want: Vec<Event> = rows
        .iter()
        .filter(|e| (from..to).contains(&e.ts))
        .cloned()
        .collect();
    assert!(!want.is_empty());
    assert!(ranged == merged_keys(&want), "range_by_ts");

    // Pages of 7 with `after`: every row once, in order, no gaps.
    let mut paged = Vec::new();
    let mut rest = Event::scan_all();
    for _ in 0..=expected.len() / 7 + 1 {
        let (page, received) = collect(&client, "events", &rest, Some(7)).await;
        assert!(received <= 16 * 7);
        let Some(last) = page.last() else { break };
        rest = rest.after(last);
        paged.extend(page);
    }
    assert!(
        paged == expected,
        "paged: {} rows of {}",
        paged.len(),
        expected.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_rows_are_errors_and_the_rest_is_still_read() {
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let client = setup(&emulator, "mixed").await;
    let rows = events(500);
    write(&client, "mixed", &rows, 8).await;
    let foreign: Vec<Foreign> = (0..16)
        .map(|b| Foreign {
            bucket: b,
            n: 0x0102,
        })
        .collect();
    write_rows(
        &client,
        "mixed",
        foreign.iter().map(|f| (f.clone(), cell(vec![1]))),
    )
    .await
    .unwrap();

    let stream = stream_typed::<Event>(&client, "mixed", &Event::scan_all(), None)
        .await
        .unwrap();
    let results: Vec<_> = stream.collect().await;
    let events: Vec<Event> = results
        .iter()
        .filter_map(|r| r.as_ref().ok().map(|(e, _)| e.clone()))
        .collect();
    let errors: Vec<String> = results
        .iter()
        .filter_map(|r| match r {
            Err(Error::ForeignRow { key, .. }) => Some(key.clone()),
            Err(e) => panic!("unexpected error {e}"),
            Ok(_) => None,
        })
        .collect();
    assert_eq!(
        events.len(),
        merged_keys(&rows).len(),
        "every event still read"
    );
    assert_eq!(errors.len(), 16, "one error per foreign row");
    assert!(errors.contains(&r"\x03\x01\x02".to_string()), "{errors:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rejected_rows_are_named_and_the_others_written() {
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let client = setup(&emulator, "partial").await;
    let rows = events(40);
    // Rows 5 and 17 write to a column family the table does not have.
    let cells = rows.iter().enumerate().map(|(i, e)| {
        let family = if i == 5 || i == 17 { "nope" } else { "d" };
        (
            e.clone(),
            vec![(family.to_string(), b"v".to_vec(), b"1".to_vec())],
        )
    });
    let err = write_rows(&client, "partial", cells).await.unwrap_err();
    let Error::Rejected { rejected } = &err else {
        panic!("{err:?}")
    };
    let indices: Vec<usize> = rejected.iter().map(|r| r.index).collect();
    assert_eq!(indices, [5, 17], "{err}");
    assert_eq!(
        rejected[0].key,
        rowkey_core::hbase::to_string_binary(&rows[5].encode())
    );
    assert!(err.to_string().contains("2 of the rows"), "{err}");

    let (stored, _) = collect(&client, "partial", &Event::scan_all(), None).await;
    let written: Vec<Event> = rows
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 5 && *i != 17)
        .map(|(_, e)| e.clone())
        .collect();
    assert!(
        stored == merged_keys(&written),
        "the other rows are written"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_goes_away_ends_the_stream_with_an_error() {
    let mut emulator = Emulator::start().expect("the Bigtable emulator starts");
    let client = setup(&emulator, "doomed").await;
    // 16 MB in 16 buckets: far more than the transport buffers. (Values
    // of 4 KiB made the emulator drop the connection on its own.)
    let rows = events(16_000);
    write(&client, "doomed", &rows, 1_024).await;

    let mut stream = stream_scan(&client, "doomed", &Event::scan_all(), None)
        .await
        .unwrap();
    let mut read = 0;
    for _ in 0..10 {
        stream.next().await.expect("a row").expect("no error yet");
        read += 1;
    }
    emulator.kill().expect("the emulator is killed");
    let mut error = None;
    while let Some(row) = stream.next().await {
        match row {
            Ok(_) => read += 1,
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    assert!(read < rows.len(), "all {read} rows arrived before the kill");
    let error = error.expect("the stream ends with an error, not a short result");
    assert!(matches!(error, Error::Bigtable(_)), "{error:?}");
    assert!(stream.next().await.is_none(), "nothing after the error");
}

/// A loopback proxy to `target` that cuts its first connection once
/// `cut_after` bytes have come back from the server; later connections
/// pass through. Returns its address and the number of cuts made.
async fn flaky_proxy(target: String, cut_after: usize) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let cuts = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&cuts);
    tokio::spawn(async move {
        let mut first = true;
        while let Ok((mut client, _)) = listener.accept().await {
            let Ok(mut server) = TcpStream::connect(&target).await else {
                return;
            };
            if !std::mem::take(&mut first) {
                tokio::spawn(async move {
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                });
                continue;
            }
            let counter = Arc::clone(&counter);
            tokio::spawn(async move {
                let (mut from_client, mut to_server) = (client.split(), server.split());
                let upstream = tokio::io::copy(&mut from_client.0, &mut to_server.1);
                let downstream = async {
                    let (mut sent, mut buf) = (0, vec![0u8; 4096]);
                    while sent < cut_after {
                        let n = to_server.0.read(&mut buf).await.unwrap_or(0);
                        if n == 0 || from_client.1.write_all(&buf[..n]).await.is_err() {
                            return;
                        }
                        sent += n;
                    }
                    counter.fetch_add(1, Ordering::Relaxed);
                };
                // Whichever ends first drops both sockets: the cut.
                tokio::select! {
                    _ = upstream => {}
                    () = downstream => {}
                }
            });
        }
    });
    (addr, cuts)
}

/// A client whose connection goes through `proxy`.
fn client_through(proxy: &str) -> Client {
    rowkey_bigtable::emulator::client_at(proxy, PROJECT, INSTANCE).unwrap()
}

/// Every row's key, each expected to arrive: a lost connection is retried,
/// not returned.
async fn every_key(stream: &mut RowStream) -> Vec<Vec<u8>> {
    let mut keys = Vec::new();
    while let Some(row) = stream.next().await {
        keys.push(row.expect("the lost connection is retried, not returned").0);
    }
    keys
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_connection_is_retried_and_the_scan_resumes_after_the_last_row() {
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let client = setup(&emulator, "retried").await;
    let rows = events(3_000);
    write(&client, "retried", &rows, 64).await;
    let expected = merged_keys(&rows);

    // Reads go through a proxy that cuts the connection part way.
    let (proxy, cuts) = flaky_proxy(emulator.host(), 60_000).await;
    let mut stream = stream_scan(&client_through(&proxy), "retried", &Event::scan_all(), None)
        .await
        .unwrap();
    let keys = every_key(&mut stream).await;
    assert_eq!(
        cuts.load(Ordering::Relaxed),
        1,
        "the proxy cut one connection"
    );
    assert!(stream.retries() >= 1, "the cut was retried");
    assert_eq!(keys.len(), expected.len(), "no row lost or repeated");
    assert!(keys == expected, "every row once, in merge order");

    // Without retries the same cut is an error, not a short result.
    let (proxy, _) = flaky_proxy(emulator.host(), 60_000).await;
    let no_retry = rowkey_bigtable::RetryPolicy::none();
    let mut stream = rowkey_bigtable::stream_scan_with(
        &client_through(&proxy),
        "retried",
        &Event::scan_all(),
        None,
        no_retry,
    )
    .await
    .unwrap();
    let mut read = 0;
    let mut failed = false;
    while let Some(row) = stream.next().await {
        match row {
            Ok(_) => read += 1,
            Err(_) => failed = true,
        }
    }
    assert!(failed && read < expected.len(), "{read} rows and no error");
}

/// Read backwards through the same cut: the retry resumes before the last
/// row returned (`EndKeyOpen`), so every row comes once, largest first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reversed_stream_resumes_before_the_last_row_after_a_cut() {
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let client = setup(&emulator, "retried_back").await;
    let rows = events(3_000);
    write(&client, "retried_back", &rows, 64).await;
    let mut expected = merged_keys(&rows);
    expected.reverse();

    let (proxy, cuts) = flaky_proxy(emulator.host(), 60_000).await;
    let mut stream = rowkey_bigtable::stream_scan_reversed(
        &client_through(&proxy),
        "retried_back",
        &Event::scan_all(),
        None,
    )
    .await
    .unwrap();
    let keys = every_key(&mut stream).await;
    assert_eq!(
        cuts.load(Ordering::Relaxed),
        1,
        "the proxy cut one connection"
    );
    assert!(stream.retries() >= 1, "the cut was retried");
    assert_eq!(keys.len(), expected.len(), "no row lost or repeated");
    assert!(keys == expected, "every row once, in reverse merge order");

    // The latest 5 of an oldest-first order: at most 5 rows per range.
    let mut stream =
        rowkey_bigtable::stream_scan_reversed(&client, "retried_back", &Event::scan_all(), Some(5))
            .await
            .unwrap();
    let mut latest = Vec::new();
    while let Some(row) = stream.next().await {
        latest.push(row.unwrap().0);
    }
    assert_eq!(latest, expected[..5]);
    assert!(stream.rows_received() <= 5 * Event::scan_all().range_count() as u64);
}

/// More mutations than Bigtable takes in one `MutateRows` request (100,000)
/// in one call: split into requests, every row written, and a rejected row
/// of a later request still named by its position in the input.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn more_than_100_000_mutations_in_one_call() {
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let client = setup(&emulator, "many").await;
    // 60,000 rows of 2 cells: 120,000 mutations, two requests.
    let rows = events(60_000);
    let bad = 59_990;
    let cells = rows.iter().enumerate().map(|(i, e)| {
        let family = if i == bad { "nope" } else { "d" };
        let cell = |q: &[u8]| (family.to_string(), q.to_vec(), b"1".to_vec());
        (e.clone(), vec![cell(b"a"), cell(b"b")])
    });
    let err = write_rows(&client, "many", cells).await.unwrap_err();
    let Error::Rejected { rejected } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(rejected.len(), 1, "{err}");
    assert_eq!(
        rejected[0].index, bad,
        "its position in the input, not in its request"
    );
    assert_eq!(
        rejected[0].key,
        rowkey_core::hbase::to_string_binary(&rows[bad].encode())
    );
    // Counted through one merged stream over the 16 buckets.
    let (stored, _) = collect(&client, "many", &Event::scan_all(), None).await;
    assert_eq!(stored.len(), rows.len() - 1, "every other row is written");
}

/// A key longer than Bigtable's 4 KiB is not sent: it is a rejected row
/// naming its length and the limit; the other rows are written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_over_4_kib_is_rejected_by_name() {
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let client = emulator.client(PROJECT, INSTANCE).expect("client");
    let mut admin = emulator.admin().await.expect("admin");
    create_table(&mut admin, &instance(), "long", &["d"], &[])
        .await
        .expect("table created");
    let cell = || vec![("d".to_string(), b"v".to_vec(), b"1".to_vec())];
    let rows = vec![
        (b"short".to_vec(), cell()),
        (vec![b'k'; 4097], cell()),
        (vec![b'k'; 4096], cell()),
    ];
    let err = rowkey_bigtable::write_raw_rows(&client, "long", rows)
        .await
        .unwrap_err();
    let Error::Rejected { rejected } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(rejected.len(), 1);
    assert_eq!(rejected[0].index, 1);
    assert!(
        rejected[0]
            .message
            .contains("4097 bytes, above Bigtable's limit of 4096"),
        "{}",
        rejected[0].message
    );
    let stored = rowkey_bigtable::read_scan(&client, "long", &Scan::from_bounds(&[], &[]))
        .await
        .unwrap();
    assert_eq!(stored.len(), 2);
}

/// 40,000 rows of 16 B read through one 16-bucket merged stream: the
/// merge reads one range while the others wait with their responses
/// unread, which must not stall or end the connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forty_thousand_small_rows_merge_over_16_buckets() {
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let client = setup(&emulator, "small").await;
    let rows = events(40_000);
    write(&client, "small", &rows, 16).await;
    let (all, received) = collect(&client, "small", &Event::scan_all(), None).await;
    assert_eq!(received, 40_000);
    assert!(all == merged_keys(&rows), "merged order");
}
