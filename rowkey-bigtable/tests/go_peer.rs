//! Google's official Go client (`cloud.google.com/go/bigtable`, built from
//! `peer/` by this test with the machine's Go through the module proxy) as
//! the peer, on the Bigtable emulator: it reads, forwards and reversed,
//! range by range, the rows rowkey wrote, and writes rows that rowkey then
//! reads and decodes. Keys must agree byte for byte.

use std::path::PathBuf;
use std::process::Command;

use rowkey_bigtable::emulator::Emulator;
use rowkey_bigtable::{create_table, read_scan, read_typed, write_rows};
use rowkey_core::prelude::*;
use rowkey_core::Scan;

const PROJECT: &str = "rowkey-peer";
const INSTANCE: &str = "peer";

/// Salted, newest first, a string with bytes that need escaping.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 8, by(user))]
struct Event {
    user: u32,
    #[desc_ts]
    ts: i64,
    tag: String,
}

fn events(n: u32) -> Vec<Event> {
    const TAGS: [&str; 4] = ["a", "b\u{0}c", "\u{ff}", ""];
    (0..n)
        .map(|i| Event {
            user: i.wrapping_mul(2_654_435_761) % 13,
            ts: 1_700_000_000_000 + i64::from(i.wrapping_mul(40_503) % 100_000),
            tag: TAGS[(i % 4) as usize].to_string(),
        })
        .collect()
}

/// Builds the Go peer (once per machine: Go caches the build) and returns
/// its path; fails naming Go when it is missing.
fn peer() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("peer");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bigtable-peer");
    let status = Command::new("go")
        .current_dir(&dir)
        .args(["build", "-o"])
        .arg(&out)
        .arg(".")
        .status()
        .expect("`go` runs (the Go toolchain builds Google's client as the peer)");
    assert!(status.success(), "go build in {} failed", dir.display());
    out
}

fn hex(b: &[u8]) -> String {
    if b.is_empty() {
        return "-".into();
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The Go client's reading of one range, keys in the order it returned them.
fn go_read(
    peer: &PathBuf,
    host: &str,
    table: &str,
    reversed: bool,
    start: &[u8],
    stop: &[u8],
) -> Vec<Vec<u8>> {
    let dir = if reversed { "rev" } else { "fwd" };
    let out = Command::new(peer)
        .env("BIGTABLE_EMULATOR_HOST", host)
        .args([
            "read",
            PROJECT,
            INSTANCE,
            table,
            dir,
            &hex(start),
            &hex(stop),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "peer read: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(unhex)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn googles_go_client_reads_what_rowkey_wrote_and_back() {
    let peer = peer();
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let host = emulator.host();
    let client = emulator.client(PROJECT, INSTANCE).unwrap();
    let mut admin = emulator.admin().await.unwrap();
    let instance = format!("projects/{PROJECT}/instances/{INSTANCE}");

    // rowkey writes; Go reads every range of several scans, both ways.
    create_table(
        &mut admin,
        &instance,
        "by_rowkey",
        &["d"],
        &Event::split_points(),
    )
    .await
    .unwrap();
    let rows = events(600);
    let cell = vec![("d".to_string(), b"v".to_vec(), b"1".to_vec())];
    write_rows(
        &client,
        "by_rowkey",
        rows.iter().map(|e| (e.clone(), cell.clone())),
    )
    .await
    .unwrap();
    let scans = [
        Event::scan_all(),
        Event::scan_by_user(5),
        Event::range_by_user_ts(7, 1_700_000_020_000..1_700_000_070_000),
        Event::range_by_user(3..9),
    ];
    let mut compared = 0;
    for scan in &scans {
        for r in scan.ranges() {
            let one = Scan::from_bounds(r.start(), r.stop());
            let ours: Vec<Vec<u8>> = read_scan(&client, "by_rowkey", &one)
                .await
                .unwrap()
                .into_iter()
                .map(|(k, _)| k)
                .collect();
            let forward = go_read(&peer, &host, "by_rowkey", false, r.start(), r.stop());
            assert_eq!(forward, ours, "forward, range {r:?}");
            let mut backward = go_read(&peer, &host, "by_rowkey", true, r.start(), r.stop());
            backward.reverse();
            assert_eq!(backward, ours, "reversed, range {r:?}");
            compared += ours.len();
        }
    }
    assert!(
        compared >= 600,
        "the scans covered the table ({compared} rows compared)"
    );

    // Go writes keys rowkey encoded; rowkey reads them back typed, merged.
    create_table(
        &mut admin,
        &instance,
        "by_go",
        &["d"],
        &Event::split_points(),
    )
    .await
    .unwrap();
    let mut args: Vec<String> = ["write", PROJECT, INSTANCE, "by_go", "d"]
        .map(String::from)
        .to_vec();
    args.extend(rows.iter().map(|e| hex(&e.encode_to_vec().unwrap())));
    let out = Command::new(&peer)
        .env("BIGTABLE_EMULATOR_HOST", &host)
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "peer write: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read: Vec<Event> = read_typed::<Event>(&client, "by_go", &Event::scan_all())
        .await
        .unwrap()
        .into_iter()
        .map(|(e, _)| e)
        .collect();
    let mut want = rows.clone();
    want.sort_by_key(|e| e.encode_to_vec().unwrap()[Event::HEAD_LEN..].to_vec());
    want.dedup();
    assert_eq!(
        read, want,
        "every row the Go client wrote, decoded, in merged key order"
    );
}
