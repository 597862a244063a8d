//! Google's official Go client (`cloud.google.com/go/bigtable`, built from
//! `peer/` by this test with the machine's Go through the module proxy) as
//! the peer, on the Bigtable emulator: it reads, forwards and reversed,
//! range by range, the rows rowkey wrote, and writes rows that rowkey then
//! reads and decodes. Keys must agree byte for byte. The same peer runs
//! Google's `orderedcode` package against `rowkey_core::ordered_code`.

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

/// Google's `orderedcode` Go package (github.com/google/orderedcode, in the
/// peer) against `rowkey_core::ordered_code` on random values: `Int64`s
/// over the whole range (every length of 1 to 10 bytes, both signs),
/// ascending and descending, byte for byte; and UTF-8 strings with `00`
/// bytes of every length from 0 to 40, as the fields of a struct key
/// (`orderedcode`'s string is the escaped bytes and the `00 01`
/// terminator, which Bigtable's struct writes after a field that is not
/// last; a descending field inverts both). The one difference, by
/// Bigtable's documentation: an empty string is `00 01` in `orderedcode`
/// but `00 00` (then the separator) as a struct field.
#[test]
fn googles_orderedcode_agrees_with_rowkeys_ordered_code() {
    use rowkey_core::ordered_code::{encode_int64, encode_struct, Order, Value};
    use std::io::Write as _;
    use std::process::Stdio;

    // splitmix64: a fixed, reproducible stream of values.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut ints: Vec<i64> = vec![0, 1, -1, 63, 64, -64, -65, i64::MAX, i64::MIN];
    for _ in 0..3_000 {
        // A random width, so that every encoded length comes up.
        let bits = next() % 64;
        ints.push((next() >> bits) as i64 * if next() % 2 == 0 { 1 } else { -1 });
    }
    const CHARS: [char; 6] = ['\0', 'a', 'Z', '\u{7f}', '\u{e9}', '\u{1F600}'];
    let strings: Vec<String> = (0..1_500)
        .map(|i| {
            (0..i % 41)
                .map(|_| CHARS[(next() % CHARS.len() as u64) as usize])
                .collect()
        })
        .collect();

    let mut input = String::new();
    for v in &ints {
        input += &format!("int {v}\nint-desc {v}\n");
    }
    for s in &strings {
        input += &format!(
            "str {}\nstr-desc {}\n",
            hex(s.as_bytes()),
            hex(s.as_bytes())
        );
    }
    let mut child = Command::new(peer())
        .arg("orderedcode")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the peer runs");
    // Written from a thread while the output is read: the peer answers as
    // it reads, and neither pipe may fill up and wait for the other.
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "the peer failed");
    let theirs: Vec<Vec<u8>> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(unhex)
        .collect();
    assert_eq!(theirs.len(), 2 * (ints.len() + strings.len()));

    let mut buf = [0; 10];
    for (i, &v) in ints.iter().enumerate() {
        let n = encode_int64(v, &mut buf);
        let ours = &buf[..n];
        assert_eq!(ours, &theirs[2 * i][..], "Int64 {v}");
        let inverted: Vec<u8> = ours.iter().map(|b| !b).collect();
        assert_eq!(inverted, theirs[2 * i + 1], "Int64 {v} descending");
    }
    let base = 2 * ints.len();
    for (i, s) in strings.iter().enumerate() {
        let (asc, desc) = (&theirs[base + 2 * i], &theirs[base + 2 * i + 1]);
        // A descending field is the whole struct `STRUCT(s DESC)`.
        let ours_desc = encode_struct(&[(Value::String(s.clone()), Order::Desc)]);
        if s.is_empty() {
            assert_eq!(asc, &[0x00, 0x01]);
            assert_eq!(ours_desc, [0xFF, 0xFF, 0xFF, 0xFE], "00 00, then 00 01");
            continue;
        }
        assert_eq!(&ours_desc, desc, "{s:?} descending");
        // An ascending field before another: its bytes and the separator.
        let ours = encode_struct(&[
            (Value::String(s.clone()), Order::Asc),
            (Value::Int64(0), Order::Asc),
        ]);
        assert_eq!(&ours[..ours.len() - 1], &asc[..], "{s:?}");
    }
}
