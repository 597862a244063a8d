//! Gets and short scans per second, with their median (p50) and 99th
//! percentile (p99) latencies, at 1, 8 and 32 concurrent callers sharing
//! one `Client`, against the test HBase (standalone, its gateway in its own
//! JVM, on loopback): a client of one connection (the old client's shape,
//! every caller waiting its turn) against the pool (one connection per
//! caller, up to 32), in one run, with the ratio of the two.
//!
//! `cargo bench -p rowkey-hbase --bench service` (about two minutes, most
//! of it HBase starting). Wall-clock figures on a shared machine: read the
//! ratios, and see BENCHMARKS.md for the run they come from.

use std::time::{Duration, Instant};

use rowkey_core::prelude::*;
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

/// `callers` threads doing `work` on `client` for [`RUN`]; every answer
/// checked.
fn run(client: &Client, work: Work, callers: usize) -> Figures {
    let deadline = Instant::now() + RUN;
    let mut latencies: Vec<Duration> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..callers)
            .map(|t| {
                let c = client.clone();
                s.spawn(move || {
                    let mut lat = Vec::new();
                    let mut i = t as u64;
                    while Instant::now() < deadline {
                        i = i
                            .wrapping_mul(6_364_136_223_846_793_005)
                            .wrapping_add(1_442_695_040_888_963_407);
                        let user = (i >> 33) % USERS;
                        let start = Instant::now();
                        match work {
                            Work::Get => {
                                let e = Event {
                                    user_id: user,
                                    ts_millis: (i >> 20) as i64 % PER_USER,
                                };
                                assert!(c.get("bench", &e).unwrap().is_some());
                            }
                            Work::Scan => {
                                let scan = Event::scan_by_user_id(user);
                                let n = c
                                    .scan_typed::<Event>("bench", &scan, Some(10))
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
    latencies.sort();
    let pick = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    Figures {
        per_second: latencies.len() as f64 / RUN.as_secs_f64(),
        p50: pick(0.50),
        p99: pick(0.99),
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

fn main() {
    // `cargo test --benches` runs this without `--bench`: nothing to do.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let hbase = HBase::start().expect("HBase starts");
    let setup = hbase.client().unwrap();
    setup
        .create_table("bench", &["d"], &Event::split_points())
        .unwrap();
    let rows = (0..USERS).flat_map(|u| {
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
    setup.write_rows("bench", rows).unwrap();

    let single = hbase.client_builder().pool_size(1).build().unwrap();
    let pool = hbase.client_builder().pool_size(32).build().unwrap();
    // Warm both (the gateway's JIT, the region servers' caches).
    run(&single, Work::Get, 1);
    run(&pool, Work::Scan, 8);

    println!("| call | callers | one connection: per s, p50, p99 | pool of 32: per s, p50, p99 | pool / one, per s |");
    println!("|---|---:|---|---|---:|");
    for (work, name) in [(Work::Get, "get"), (Work::Scan, "scan, 10 rows")] {
        for callers in [1, 8, 32] {
            let one = run(&single, work, callers);
            let many = run(&pool, work, callers);
            println!(
                "| {name} | {callers} | {} | {} | {:.2}× |",
                show(&one),
                show(&many),
                many.per_second / one.per_second
            );
        }
    }
    let s = pool.stats();
    println!(
        "\npool: {} calls, {} connections opened, {} retries, {} timeouts",
        s.calls, s.connections, s.retries, s.timeouts
    );
}
