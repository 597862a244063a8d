//! Deadlines against sockets that misbehave: a gateway that accepts and
//! never answers (a proxy in front of a real HBase that stops reading),
//! and a listener whose backlog is full. Every call ends with
//! `Error::Timeout` by its deadline (plus a margin far below the old 120 s
//! wait), and the next call on the same client works once the gateway is
//! healthy again.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use rowkey_core::prelude::*;
use rowkey_hbase::testing::HBase;
use rowkey_hbase::{AsyncClient, Cell, Client, Error, RetryPolicy};

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 4, by(user_id))]
struct Event {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
}

fn events(n: u64, value_len: usize) -> Vec<(Event, Vec<Cell>)> {
    (0..n)
        .map(|i| {
            let e = Event {
                user_id: i % 13,
                ts_millis: 1_700_000_000_000 + i as i64,
            };
            (e, vec![("d".into(), b"v".to_vec(), vec![b'x'; value_len])])
        })
        .collect()
}

/// A TCP proxy to the gateway that, while `hole` is set, stops reading
/// what clients send (so nothing reaches the gateway and nothing is
/// answered; a large write fills the socket buffers and blocks), and can
/// cut every connection.
struct Proxy {
    addr: SocketAddr,
    hole: Arc<AtomicBool>,
    open: Arc<Mutex<Vec<TcpStream>>>,
}

impl Proxy {
    fn start(target: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let hole = Arc::new(AtomicBool::new(false));
        let open = Arc::new(Mutex::new(Vec::new()));
        let (h, o) = (Arc::clone(&hole), Arc::clone(&open));
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { break };
                let Ok(server) = TcpStream::connect(target) else {
                    continue;
                };
                o.lock().unwrap().push(client.try_clone().unwrap());
                let (c2, s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
                let hole = Arc::clone(&h);
                std::thread::spawn(move || pipe(client, server, Some(hole)));
                std::thread::spawn(move || pipe(s2, c2, None));
            }
        });
        Proxy { addr, hole, open }
    }

    fn hole(&self, on: bool) {
        self.hole.store(on, Ordering::SeqCst);
    }

    /// Closes every connection made so far, both ways.
    fn cut(&self) {
        for s in self.open.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }
}

fn pipe(mut from: TcpStream, mut to: TcpStream, hole: Option<Arc<AtomicBool>>) {
    let mut buf = [0u8; 16 * 1024];
    let wait = || {
        while hole.as_ref().is_some_and(|h| h.load(Ordering::SeqCst)) {
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    loop {
        wait();
        match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                // What was read while the hole opened is held too.
                wait();
                if to.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}

const DEADLINE: Duration = Duration::from_secs(1);
/// Far below the 120 s a call used to wait, far above scheduling noise.
const MARGIN: Duration = Duration::from_secs(3);

fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let v = f();
    (v, start.elapsed())
}

fn assert_timeout<T: std::fmt::Debug>(r: Result<T, Error>, took: Duration, op: &str) {
    match r {
        Err(Error::Timeout {
            op: o, deadline, ..
        }) => {
            assert_eq!(o, op);
            assert_eq!(deadline, DEADLINE);
        }
        other => panic!("{op}: {other:?}"),
    }
    assert!(took < DEADLINE + MARGIN, "{op} took {took:?}");
}

#[test]
fn calls_that_get_no_answer_time_out_and_the_pool_recovers() {
    let hbase = HBase::start().unwrap_or_else(|e| panic!("HBase starts: {e}"));
    let direct = hbase.client().unwrap();
    direct
        .create_table("late", &["d"], &Event::split_points())
        .unwrap();
    let rows = events(400, 16);
    direct.write_rows("late", rows.clone()).unwrap();

    let proxy = Proxy::start(hbase.thrift_addr());
    let c = Client::builder(proxy.addr.to_string())
        .request_timeout(DEADLINE)
        .pool_size(2)
        .scan_batch(10)
        .write_batch(3_000)
        .build()
        .unwrap();
    let healthy = |c: &Client| {
        assert_eq!(
            c.get("late", &rows[7].0).unwrap().as_ref(),
            Some(&rows[7].1)
        );
    };
    healthy(&c);

    // A get that is never answered.
    proxy.hole(true);
    let (r, took) = timed(|| c.get("late", &rows[7].0));
    assert_timeout(r, took, "get");
    proxy.hole(false);
    healthy(&c);

    // A scan whose next batch is never answered.
    let mut scan = c
        .scan_typed::<Event>("late", &Event::scan_all(), None)
        .unwrap();
    for row in scan.by_ref().take(5) {
        row.unwrap();
    }
    proxy.hole(true);
    let (r, took) = timed(|| scan.by_ref().find_map(Result::err));
    assert_timeout(r.map_or(Ok(()), Err), took, "getScannerRows");
    assert!(scan.next().is_none(), "nothing after the error");
    let (_, took) = timed(|| drop(scan));
    assert!(took < MARGIN, "dropping a timed-out scan took {took:?}");
    proxy.hole(false);
    healthy(&c);

    // A large write the gateway stops reading: 3,000 rows of 8 KiB (24
    // MiB) in one batch overflow every socket buffer on the way.
    proxy.hole(true);
    let (r, took) = timed(|| c.write_rows("late", events(3_000, 8 * 1024)));
    assert_timeout(r, took, "putMultiple");
    proxy.hole(false);
    healthy(&c);
    let stats = c.stats();
    assert!(stats.timeouts >= 3 && stats.reconnects >= 3, "{stats:?}");

    // A scan whose connection is cut is dropped at once, without waiting
    // for any deadline of its own.
    let slow = Client::builder(proxy.addr.to_string())
        .request_timeout(Duration::from_secs(30))
        .retry(RetryPolicy::none())
        .scan_batch(10)
        .build()
        .unwrap();
    let mut scan = slow.scan("late", &Event::scan_all(), None).unwrap();
    scan.next().unwrap().unwrap();
    proxy.cut();
    let (_, took) = timed(|| drop(scan));
    assert!(
        took < MARGIN,
        "dropping a scan over a cut connection took {took:?}"
    );

    // An async scan that waits on the gateway leaves a current-thread
    // runtime free: a timer task keeps ticking while the scan waits.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let hbase_async = AsyncClient::new(
        Client::builder(proxy.addr.to_string())
            .request_timeout(Duration::from_secs(30))
            .scan_batch(10)
            .build()
            .unwrap(),
    );
    let ticks = Arc::new(AtomicUsize::new(0));
    runtime.block_on(async {
        let t = Arc::clone(&ticks);
        let ticker = tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(20)).await;
                t.fetch_add(1, Ordering::Relaxed);
            }
        });
        let mut rows = hbase_async.scan("late", &Event::scan_all(), None);
        for _ in 0..10 {
            rows.next().await.unwrap().unwrap();
        }
        proxy.hole(true);
        let before = ticks.load(Ordering::Relaxed);
        let hole = Arc::clone(&proxy.hole);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(1));
            hole.store(false, Ordering::SeqCst);
        });
        // The next batch waits a second for the gateway.
        rows.next().await.unwrap().unwrap();
        let during = ticks.load(Ordering::Relaxed) - before;
        assert!(during >= 10, "{during} ticks while the scan waited");
        let rest = rows.count().await;
        assert_eq!(rest + 11, 400);
        ticker.abort();
    });
}

#[test]
fn a_connect_that_is_never_accepted_times_out() {
    // A listener with a backlog of 1 that never accepts: once its queue is
    // full, the kernel drops further connection attempts, which then wait.
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    socket
        .bind(&SocketAddr::from(([127, 0, 0, 1], 0)).into())
        .unwrap();
    socket.listen(0).unwrap();
    let addr = socket.local_addr().unwrap().as_socket().unwrap();
    let mut held = Vec::new();
    let full =
        (0..64).any(
            |_| match TcpStream::connect_timeout(&addr, Duration::from_millis(200)) {
                Ok(s) => {
                    held.push(s);
                    false
                }
                Err(_) => true,
            },
        );
    assert!(full, "the backlog never filled");
    let (r, took) = timed(|| {
        Client::builder(addr.to_string())
            .connect_timeout(DEADLINE)
            .build()
    });
    match r {
        Err(Error::Timeout {
            op: "connect",
            deadline,
            ..
        }) => assert_eq!(deadline, DEADLINE),
        other => panic!("{other:?}"),
    }
    assert!(took < DEADLINE + MARGIN, "connect took {took:?}");
}

/// A skip scan on the region servers whose filter matches 1 row in
/// 200,000 reads whole, and one whose batch gets no answer within its
/// deadline (the gateway held past it, as a sparse filter holds it) is
/// resumed after its last row with twice the deadline: the same rows as
/// the model, the resume counted, where it used to end with
/// `Error::Timeout`.
#[test]
fn a_sparse_filtered_scan_is_resumed_after_a_timeout() {
    let hbase = HBase::start().unwrap_or_else(|e| panic!("HBase starts: {e}"));
    let direct = hbase.client().unwrap().with_server_filter(true);
    direct
        .create_table("sparse", &["d"], &Event::split_points())
        .unwrap();
    let rows = events(200_000, 1);
    for chunk in rows.chunks(20_000) {
        direct.write_rows("sparse", chunk.to_vec()).unwrap();
    }
    // One millisecond of any user: 1 row in 200,000.
    let wanted = &rows[123_457].0;
    let filter = Event::filter()
        .ts_millis(wanted.ts_millis..wanted.ts_millis + 1)
        .build()
        .unwrap();
    let everything = Event::filter().ts_millis(0..i64::MAX).build().unwrap();
    let reads = hbase.filter_reads().unwrap();
    let got: Vec<Vec<u8>> = direct
        .filter("sparse", &filter, None)
        .unwrap()
        .map(|r| r.unwrap().0)
        .collect();
    assert_eq!(got, vec![wanted.encode_to_vec().unwrap()]);
    assert!(
        (hbase.filter_reads().unwrap() - reads).rows > 0,
        "the region servers ran the filter"
    );

    // Every row through the filter, the gateway held past the deadline in
    // the middle of the scan.
    let proxy = Proxy::start(hbase.thrift_addr());
    let c = Client::builder(proxy.addr.to_string())
        .request_timeout(DEADLINE)
        .server_filter(true)
        .build()
        .unwrap();
    let mut scan = c.filter("sparse", &everything, Some(300)).unwrap();
    let mut got: Vec<Vec<u8>> = scan.by_ref().take(100).map(|r| r.unwrap().0).collect();
    assert_eq!(scan.retries(), 0);
    proxy.hole(true);
    let reopen = std::thread::spawn({
        let hole = Arc::clone(&proxy.hole);
        move || {
            std::thread::sleep(DEADLINE + DEADLINE / 2);
            hole.store(false, Ordering::SeqCst);
        }
    });
    got.extend(scan.by_ref().map(|r| r.unwrap().0));
    reopen.join().unwrap();
    assert!(scan.retries() >= 1, "the timed-out batch was resumed");
    let mut want: Vec<Vec<u8>> = rows
        .iter()
        .map(|(e, _)| e.encode_to_vec().unwrap())
        .collect();
    // Merged across the salt buckets: in the order of the keys after it.
    want.sort_by(|a, b| a[1..].cmp(&b[1..]));
    assert_eq!(got.len(), 300);
    if let Some(i) = (0..300).find(|&i| got[i] != want[i]) {
        let mut unique = got.clone();
        unique.sort();
        unique.dedup();
        panic!(
            "row {i} of 300 differs from the model ({} distinct rows, retries {}): got {:02x?}, want {:02x?}",
            unique.len(),
            scan.retries(),
            got[i],
            want[i]
        );
    }
}
