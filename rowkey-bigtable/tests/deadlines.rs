//! Deadlines on the Bigtable emulator, through a TCP proxy that misbehaves
//! the way half-open connections do: a stream whose connection stops
//! forwarding mid-read is abandoned after its idle timeout and retried
//! from its last row on a new connection (the keepalive drops the dead
//! one), ending with exactly the model's rows; a proxy that never forwards
//! ends the read with the total timeout's error, within that timeout.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use rowkey_bigtable::emulator::Emulator;
use rowkey_bigtable::{create_table, stream_scan, write_rows, Client, ClientOptions, RetryPolicy};
use rowkey_core::prelude::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const PROJECT: &str = "rowkey-test";
const INSTANCE: &str = "rowkey";

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 16)]
struct Event {
    #[desc_ts]
    ts: i64,
    user: u32,
}

fn options() -> ClientOptions {
    ClientOptions {
        attempt_timeout: Duration::from_secs(2),
        idle_timeout: Duration::from_secs(1),
        total_timeout: Duration::from_secs(30),
        keepalive_interval: Duration::from_millis(500),
        keepalive_timeout: Duration::from_millis(500),
        retry: RetryPolicy {
            attempts: 21,
            base: Duration::from_millis(50),
            max: Duration::from_millis(500),
        },
        ..ClientOptions::default()
    }
}

/// A proxy to `target`; `freeze()` makes every connection open so far
/// forward nothing more, either way, and never close (a half-open
/// connection); later connections pass through.
struct Proxy {
    addr: String,
    opened: Arc<AtomicUsize>,
    frozen_below: Arc<AtomicUsize>,
}

impl Proxy {
    async fn start(target: String) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let opened = Arc::new(AtomicUsize::new(0));
        let frozen_below = Arc::new(AtomicUsize::new(0));
        let (o, f) = (Arc::clone(&opened), Arc::clone(&frozen_below));
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let id = o.fetch_add(1, Ordering::SeqCst);
                let Ok(server) = TcpStream::connect(&target).await else {
                    return;
                };
                let (cr, cw) = client.into_split();
                let (sr, sw) = server.into_split();
                tokio::spawn(pipe(cr, sw, id, Arc::clone(&f)));
                tokio::spawn(pipe(sr, cw, id, Arc::clone(&f)));
            }
        });
        Proxy {
            addr,
            opened,
            frozen_below,
        }
    }

    fn freeze(&self) {
        self.frozen_below
            .store(self.opened.load(Ordering::SeqCst), Ordering::SeqCst);
    }
}

async fn pipe(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    id: usize,
    frozen_below: Arc<AtomicUsize>,
) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if id < frozen_below.load(Ordering::SeqCst) {
            // Half-open: hold both sockets, forward nothing, forever.
            std::future::pending::<()>().await;
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_whose_connection_stalls_is_retried_and_ends_with_every_row() {
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let direct = emulator.client(PROJECT, INSTANCE).unwrap();
    let mut admin = emulator.admin().await.unwrap();
    let instance = format!("projects/{PROJECT}/instances/{INSTANCE}");
    create_table(
        &mut admin,
        &instance,
        "stalls",
        &["d"],
        &Event::split_points(),
    )
    .await
    .unwrap();
    // 20 MiB: far more than the streams' windows hold, so the server is
    // still sending when the connection stalls.
    let rows: Vec<Event> = (0..20_000u32)
        .map(|i| Event {
            ts: 1_700_000_000_000 + i64::from(i),
            user: i % 101,
        })
        .collect();
    for chunk in rows.chunks(2_000) {
        let cells = chunk.iter().map(|e| {
            (
                e.clone(),
                vec![("d".to_string(), b"v".to_vec(), vec![b'x'; 1024])],
            )
        });
        write_rows(&direct, "stalls", cells).await.unwrap();
    }
    let mut expected: Vec<Vec<u8>> = rows.iter().map(|e| e.encode().to_vec()).collect();
    expected.sort_by(|a, b| a[1..].cmp(&b[1..]));

    let proxy = Proxy::start(emulator.host()).await;
    let client = Client::connect_lazy_with(
        &format!("http://{}", proxy.addr),
        PROJECT,
        INSTANCE,
        options(),
    )
    .unwrap();
    let mut stream = stream_scan(&client, "stalls", &Event::scan_all(), None)
        .await
        .unwrap();
    let mut keys = Vec::new();
    while let Some(row) = stream.next().await {
        keys.push(row.unwrap().0);
        if keys.len() == 2_000 {
            proxy.freeze();
        }
    }
    assert!(stream.retries() >= 1, "the stalled attempts were retried");
    // The client counts what its streams did: every row received once,
    // each retry, and a call for each (re)opened range.
    let stats = client.stats();
    assert_eq!(stats.rows_read, expected.len() as u64, "{stats:?}");
    assert_eq!(stats.retries, stream.retries(), "{stats:?}");
    assert!(stats.calls > stats.retries, "{stats:?}");
    assert_eq!(stats.timeouts, 0, "{stats:?}");
    assert!(
        proxy.opened.load(Ordering::SeqCst) >= 2,
        "a new connection replaced the stalled one"
    );
    assert_eq!(keys.len(), expected.len(), "no row lost or repeated");
    assert!(keys == expected, "every row once, in merge order");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_that_never_answers_ends_the_read_by_the_total_timeout() {
    // Accepts and never forwards, never answers.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((s, _)) = listener.accept().await {
            held.push(s);
        }
    });
    let total = Duration::from_secs(2);
    let client = Client::connect_lazy_with(
        &format!("http://{addr}"),
        PROJECT,
        INSTANCE,
        ClientOptions {
            total_timeout: total,
            ..options()
        },
    )
    .unwrap();
    let start = Instant::now();
    let mut stream = stream_scan(&client, "any", &Event::scan_all(), None)
        .await
        .unwrap();
    let e = stream.next().await.expect("an item").unwrap_err();
    let took = start.elapsed();
    assert!(e.is_timeout(), "{e:?}");
    assert!(e.to_string().contains("ReadRows"), "{e}");
    assert!(took < total + Duration::from_secs(3), "took {took:?}");
    assert!(stream.next().await.is_none());
    let stats = client.stats();
    assert_eq!((stats.timeouts, stats.rows_read), (1, 0), "{stats:?}");
}
