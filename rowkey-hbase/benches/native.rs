//! The native client against the gateway client and HBase's own Java
//! client, in one run on the test HBase (standalone, one region server,
//! the gateway in its own JVM, all on loopback): gets and 10-row scans per
//! second with their p50 and p99 at 1, 8 and 32 concurrent callers,
//! 100,000 rows written in one call, and a 1,000,000-row table scanned
//! whole. The gateway client's callers are threads sharing a pool of 32;
//! the native client's are tokio tasks on a 2-worker runtime sharing one
//! multiplexed connection per server; the Java client's are threads
//! sharing one `Connection` (`ClientBench.java` in the launcher module),
//! in a JVM of its own, warmed as the others are. Every answer is checked.
//!
//! `cargo bench -p rowkey-hbase --features native --bench native` (about
//! five minutes, most of it HBase starting and the big table written). Wall-clock figures on a
//! shared machine: read the ratios, and see BENCHMARKS.md for the run they
//! come from.

use std::io::{BufRead, BufReader, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rowkey_core::prelude::*;
use rowkey_hbase::native::NativeClient;
use rowkey_hbase::testing::HBase;
use rowkey_hbase::{Cell, Client};

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 8, by(user_id))]
struct Event {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
}

const USERS: u64 = 500;
const PER_USER: i64 = 20;
/// How long each cell of the table runs.
const RUN: Duration = Duration::from_secs(3);

#[derive(Clone, Copy, PartialEq)]
enum Work {
    Get,
    Scan,
}

struct Figures {
    per_second: f64,
    p50: Duration,
    p99: Duration,
}

fn figures(mut latencies: Vec<Duration>) -> Figures {
    latencies.sort();
    let pick = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    Figures {
        per_second: latencies.len() as f64 / RUN.as_secs_f64(),
        p50: pick(0.50),
        p99: pick(0.99),
    }
}

/// The `n`th caller's next user and event.
fn next(i: &mut u64) -> (u64, Event) {
    *i = i
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    let user = (*i >> 33) % USERS;
    let e = Event {
        user_id: user,
        ts_millis: (*i >> 20) as i64 % PER_USER,
    };
    (user, e)
}

fn gateway(client: &Client, work: Work, callers: usize) -> Figures {
    let deadline = Instant::now() + RUN;
    let latencies = std::thread::scope(|s| {
        let handles: Vec<_> = (0..callers)
            .map(|t| {
                let c = client.clone();
                s.spawn(move || {
                    let mut lat = Vec::new();
                    let mut i = t as u64;
                    while Instant::now() < deadline {
                        let (user, e) = next(&mut i);
                        let start = Instant::now();
                        match work {
                            Work::Get => assert!(c.get("bench", &e).unwrap().is_some()),
                            Work::Scan => {
                                let scan = Event::scan_by_user_id(user);
                                let n = c
                                    .scan("bench", &scan, Some(10))
                                    .unwrap()
                                    .map(Result::unwrap)
                                    .count();
                                assert_eq!(n, 10);
                            }
                        }
                        lat.push(start.elapsed());
                    }
                    lat
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    figures(latencies)
}

fn native(
    rt: &tokio::runtime::Runtime,
    client: &NativeClient,
    work: Work,
    callers: usize,
) -> Figures {
    let deadline = Instant::now() + RUN;
    let latencies = rt.block_on(async {
        let tasks: Vec<_> = (0..callers)
            .map(|t| {
                let c = client.clone();
                tokio::spawn(async move {
                    let mut lat = Vec::new();
                    let mut i = t as u64;
                    while Instant::now() < deadline {
                        let (user, e) = next(&mut i);
                        let start = Instant::now();
                        match work {
                            Work::Get => {
                                let key = e.encode_to_vec().unwrap();
                                assert!(c.get("bench", &key).await.unwrap().is_some());
                            }
                            Work::Scan => {
                                let scan = Event::scan_by_user_id(user);
                                let r = scan.ranges().next().unwrap();
                                let rows = c
                                    .scan("bench", r.start(), r.stop(), Some(10))
                                    .await
                                    .unwrap();
                                assert_eq!(rows.len(), 10);
                            }
                        }
                        lat.push(start.elapsed());
                    }
                    lat
                })
            })
            .collect();
        let mut all = Vec::new();
        for t in tasks {
            all.extend(t.await.unwrap());
        }
        all
    });
    figures(latencies)
}

/// HBase's own Java client in a JVM of its own, asked one line at a time.
struct Java {
    child: std::process::Child,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
}

impl Java {
    fn start(hbase: &HBase, dir: &std::path::Path, puts: &[(Vec<u8>, Vec<Cell>)]) -> Java {
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        let keys: Vec<String> = (0..USERS)
            .flat_map(|u| (0..PER_USER).map(move |t| (u, t)))
            .map(|(u, t)| {
                hex(&Event {
                    user_id: u,
                    ts_millis: t,
                }
                .encode_to_vec()
                .unwrap())
            })
            .collect();
        let ranges: Vec<String> = (0..USERS)
            .map(|u| {
                let scan = Event::scan_by_user_id(u);
                let r = scan.ranges().next().unwrap();
                format!("{} {}", hex(r.start()), hex(r.stop()))
            })
            .collect();
        let put_keys: Vec<String> = puts.iter().map(|(k, _)| hex(k)).collect();
        let file = |name: &str, lines: Vec<String>| {
            let path = dir.join(name);
            std::fs::write(&path, lines.join("\n")).unwrap();
            path.display().to_string()
        };
        let (keys, ranges, put_keys) = (
            file("keys", keys),
            file("ranges", ranges),
            file("puts", put_keys),
        );
        let zk = hbase.zookeeper_port().to_string();
        let mut child = rowkey_hbase::testing::launcher(
            &["-Xmx2g"],
            &["client-bench", &zk, "bench", &keys, &ranges, &put_keys],
        )
        .unwrap()
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        Java { child, lines }
    }

    /// The numbers of the answer to `request`.
    fn ask(&mut self, request: &str) -> Vec<u64> {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        loop {
            let line = self.lines.next().expect("the Java client answers").unwrap();
            if let Some(rest) = line.strip_prefix("RESULT ") {
                return rest.split(' ').map(|n| n.parse().unwrap()).collect();
            }
            assert!(!line.starts_with("ERROR"), "{request}: {line}");
        }
    }

    fn timed(&mut self, work: Work, callers: usize) -> Figures {
        let name = if work == Work::Get { "get" } else { "scan" };
        let answer = self.ask(&format!("{name} {callers} {}", RUN.as_secs()));
        Figures {
            per_second: answer[0] as f64 / RUN.as_secs_f64(),
            p50: Duration::from_micros(answer[1]),
            p99: Duration::from_micros(answer[2]),
        }
    }
}

impl Drop for Java {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn show(f: &Figures) -> String {
    format!(
        "{:.0}/s, {:.2} ms, {:.2} ms",
        f.per_second,
        f.p50.as_secs_f64() * 1e3,
        f.p99.as_secs_f64() * 1e3
    )
}

fn rows(n: u64) -> Vec<(Vec<u8>, Vec<Cell>)> {
    (0..n)
        .map(|i| {
            let key = Event {
                user_id: 10_000 + i % 977,
                ts_millis: i as i64,
            }
            .encode_to_vec()
            .unwrap();
            (key, vec![("d".into(), b"v".to_vec(), vec![7u8; 100])])
        })
        .collect()
}

fn main() {
    // `cargo test --benches` runs this without `--bench`: nothing to do.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let hbase = HBase::start().expect("HBase starts");
    let setup = hbase.client().unwrap();
    for table in ["bench", "big"] {
        setup
            .create_table(table, &["d"], &Event::split_points())
            .unwrap();
    }
    let data = (0..USERS).flat_map(|u| {
        (0..PER_USER).map(move |t| {
            let cells: Vec<Cell> = vec![("d".into(), b"v".to_vec(), vec![7u8; 100])];
            (
                Event {
                    user_id: u,
                    ts_millis: t,
                },
                cells,
            )
        })
    });
    setup.write_rows("bench", data).unwrap();

    let pool = hbase.client_builder().pool_size(32).build().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let client = Arc::new(NativeClient::new(&hbase.bootstrap()).unwrap());
    let dir = tempfile::tempdir().unwrap();
    let batch = rows(100_000);
    let mut java = Java::start(&hbase, dir.path(), &batch);
    // Warm all three (the JITs, the region server's caches, the region
    // caches).
    gateway(&pool, Work::Get, 8);
    native(&rt, &client, Work::Get, 8);
    java.timed(Work::Get, 8);
    java.timed(Work::Scan, 8);

    println!("| call | callers | gateway, pool of 32: per s, p50, p99 | native: per s, p50, p99 | HBase's Java client: per s, p50, p99 | native / gateway | native / Java |");
    println!("|---|---:|---|---|---|---:|---:|");
    for (work, name) in [(Work::Get, "get"), (Work::Scan, "scan, 10 rows")] {
        for callers in [1, 8, 32] {
            let g = gateway(&pool, work, callers);
            let n = native(&rt, &client, work, callers);
            let j = java.timed(work, callers);
            println!(
                "| {name} | {callers} | {} | {} | {} | {:.2}× | {:.2}× |",
                show(&g),
                show(&n),
                show(&j),
                n.per_second / g.per_second,
                n.per_second / j.per_second
            );
        }
    }

    // 100,000 rows in one call: the gateway client's batches, the native
    // client's one Multi per region server, the Java client's
    // `Table.put(List)`.
    let start = Instant::now();
    pool.write_raw_rows("bench", batch.clone()).unwrap();
    let g = start.elapsed();
    let start = Instant::now();
    rt.block_on(client.put("bench", batch)).unwrap();
    let n = start.elapsed();
    let j = java.ask("put");
    assert_eq!(j[0], 100_000);
    let j = Duration::from_micros(j[1]);
    let per_s = |d: Duration| 100_000.0 / d.as_secs_f64();
    println!(
        "\n100,000 rows written in one call: gateway {:.0} rows/s, native {:.0} rows/s, Java {:.0} rows/s (native / gateway {:.2}×, native / Java {:.2}×)",
        per_s(g),
        per_s(n),
        per_s(j),
        g.as_secs_f64() / n.as_secs_f64(),
        j.as_secs_f64() / n.as_secs_f64()
    );

    // A table of 1,000,000 rows scanned whole by each client.
    const BIG: u64 = 1_000_000;
    for chunk in rows(BIG).chunks(200_000) {
        rt.block_on(client.put("big", chunk.to_vec())).unwrap();
    }
    let start = Instant::now();
    let got = pool
        .scan("big", &rowkey_core::Scan::from_bounds(b"", b""), None)
        .unwrap()
        .map(Result::unwrap)
        .count() as u64;
    let g = start.elapsed();
    assert_eq!(got, BIG);
    let start = Instant::now();
    let got = rt.block_on(async {
        let mut scanner = client.scanner("big", b"", b"", Default::default());
        let mut n = 0u64;
        while let Some(batch) = scanner.next_batch().await.unwrap() {
            n += batch.len() as u64;
        }
        n
    });
    let n = start.elapsed();
    assert_eq!(got, BIG);
    let j = java.ask("scanall big");
    assert_eq!(j[0], BIG);
    let j = Duration::from_micros(j[1]);
    let per_s = |d: Duration| BIG as f64 / d.as_secs_f64();
    println!(
        "\n1,000,000 rows scanned: gateway {:.0} rows/s, native {:.0} rows/s, Java {:.0} rows/s (native / gateway {:.2}×, native / Java {:.2}×)",
        per_s(g),
        per_s(n),
        per_s(j),
        g.as_secs_f64() / n.as_secs_f64(),
        j.as_secs_f64() / n.as_secs_f64()
    );
}
