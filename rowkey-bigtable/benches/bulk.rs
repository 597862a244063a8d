//! Bulk writes on the Bigtable emulator, the same 200,000 rows (a salted
//! key, one 100-byte cell) three ways in one run: a loop of `write_rows`
//! in chunks of 1,000 rows (how rows were loaded before the bulk writer),
//! the `BulkWriter` (64 MiB and 16 requests in flight, its defaults), and
//! Google's Go client's `ApplyBulk` (the peer, `peer/`, which times its
//! own call). Rows per second and the ratios.
//!
//! `cargo bench -p rowkey-bigtable --bench bulk` (about a minute).
//! Wall-clock figures on a shared machine running the emulator too: read
//! the ratios.

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::time::Instant;

use rowkey_bigtable::emulator::Emulator;
use rowkey_bigtable::{create_table, write_rows, Cell};
use rowkey_core::prelude::*;

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 8, by(user))]
struct Event {
    user: u32,
    seq: u32,
}

const ROWS: u32 = 200_000;

fn rows(table: u32) -> impl Iterator<Item = (Event, Vec<Cell>)> {
    (0..ROWS).map(move |i| {
        let e = Event {
            user: i % 1_000,
            seq: i,
        };
        let value = vec![b'a' + (table % 26) as u8; 100];
        (e, vec![("d".to_string(), b"v".to_vec(), value)])
    })
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let _entered = runtime.enter();
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let client = emulator.client("p", "i").unwrap();
    let per_second = |seconds: f64| f64::from(ROWS) / seconds;
    let (looped, bulk) = runtime.block_on(async {
        let mut admin = emulator.admin().await.unwrap();
        for t in ["looped", "bulk", "go"] {
            create_table(
                &mut admin,
                "projects/p/instances/i",
                t,
                &["d"],
                &Event::split_points(),
            )
            .await
            .unwrap();
        }
        let start = Instant::now();
        let all: Vec<_> = rows(0).collect();
        for chunk in all.chunks(1_000) {
            write_rows(&client, "looped", chunk.to_vec()).await.unwrap();
        }
        let looped = start.elapsed().as_secs_f64();

        let start = Instant::now();
        let mut writer = client.bulk_writer("bulk");
        for (k, cells) in rows(1) {
            writer.push_row(&k, cells).await.unwrap();
        }
        let report = writer.flush().await.unwrap();
        let bulk = start.elapsed().as_secs_f64();
        assert_eq!(report.rows_written, u64::from(ROWS));
        println!(
            "bulk writer: {} requests, {:.1} MiB, at most {} requests and {:.1} MiB in flight",
            report.requests,
            report.bytes as f64 / f64::from(1 << 20),
            report.max_in_flight_requests,
            report.max_in_flight_bytes as f64 / f64::from(1 << 20)
        );
        (looped, bulk)
    });

    // Google's Go client, on the same emulator.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("peer");
    let peer = std::env::temp_dir().join("rowkey-bigtable-bench-peer");
    let built = Command::new("go")
        .current_dir(&dir)
        .args(["build", "-o"])
        .arg(&peer)
        .arg(".")
        .status()
        .expect("go runs");
    assert!(built.success());
    let mut child = Command::new(&peer)
        .args(["bulk", "p", "i", "go", "d"])
        .env("BIGTABLE_EMULATOR_HOST", emulator.host())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut stdin = std::io::BufWriter::new(child.stdin.take().unwrap());
        for (k, cells) in rows(2) {
            writeln!(
                stdin,
                "{} {}",
                hex(&k.encode_to_vec().unwrap()),
                hex(&cells[0].2)
            )
            .unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let go: f64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();

    println!("| writer | rows per second | ÷ write_rows loop | ÷ Go ApplyBulk |");
    println!("|---|---:|---:|---:|");
    for (name, s) in [
        ("`write_rows`, 1,000-row chunks", looped),
        ("`BulkWriter` (defaults)", bulk),
        ("Go `ApplyBulk`", go),
    ] {
        println!(
            "| {name} | {:.0} | {:.2}× | {:.2}× |",
            per_second(s),
            looped / s,
            go / s
        );
    }
}
