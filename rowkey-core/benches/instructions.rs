//! Deterministic instruction counts for the hot paths, measured with
//! valgrind's callgrind: the same binary, inputs and environment give the
//! same count whatever else the machine is doing, so a regression shows even
//! on a noisy machine.
//!
//! `cargo bench -p rowkey-core --bench instructions` re-runs this binary under
//! `valgrind --tool=callgrind` once per path with 0 and with N iterations and
//! prints (count(N) - count(0)) / N: the instructions of one operation.
//! With `-- --check-budgets FILE` (as `.ci/run` runs it, on
//! `benches/budgets.txt`) it fails when a path costs more than 3% over its
//! budget. With `--features uuid,chrono` it also counts a key of a UUID
//! and a `chrono` timestamp, and with `--features dynamic` the README's key
//! as a run-time layout (`DynLayout`) beside the derived type (the budgets
//! file has those paths: `.ci/run` passes the features).
//! Under `cargo test` (no `--bench`) each path runs once natively, as a smoke
//! test, and valgrind is not needed.

use std::hint::black_box;
use std::process::Command;

use redb::ReadableDatabase;
use rowkey_core::prelude::*;
use rowkey_core::{merge_salted, merge_salted_by};

/// The measured layouts, shared with the wall-clock benchmark.
#[path = "common/layouts.rs"]
mod layouts;
#[path = "common/redb_row.rs"]
mod redb_row;
use layouts::{Event, Named};
use redb_row::redb_key;

#[derive(RowKey)]
struct Escaped<'a> {
    s: &'a [u8],
    n: u8,
}

/// A text key: call records by phone, newest first, salted by `phone % 10`.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "_")]
#[salt(buckets = 10, by(phone), hash = "mod")]
struct Call {
    #[digits(11)]
    phone: u64,
    #[desc_ts]
    ts: i64,
}

fn call(i: u64) -> Call {
    Call {
        phone: 18_500_000_000 + i % 1_000_000,
        ts: 1_638_620_506_000 + i as i64,
    }
}

/// The hand-written baselines, shared with the wall-clock benchmark.
#[allow(dead_code)]
#[path = "common/hand.rs"]
mod hand;

/// The fixed-width keys' operations (shared with the wall-clock bench).
#[path = "common/op.rs"]
mod op;

/// The text key's and the scan's operations, behind the same boundary.
mod text_op {
    use super::{Call, Event};
    use rowkey_core::prelude::*;

    #[inline(never)]
    pub fn text_encode(c: Call, out: &mut [u8]) -> Result<usize, EncodeError> {
        c.encode_into(out)
    }
    #[inline(never)]
    pub fn text_decode(k: &[u8]) -> Result<Call, DecodeError> {
        Call::decode(k)
    }
    #[inline(never)]
    pub fn range_by(user: u64) -> usize {
        let s = Event::range_by_user_id_ts(user, 0..1_000);
        s.ranges().map(|r| r.start().len()).sum::<usize>()
    }
}

/// One measured path: runs its operation `iters` times.
#[derive(Clone, Copy)]
struct Path {
    name: &'static str,
    /// Operations per iteration (rows, for the merge).
    per_iter: u64,
    run: fn(u64),
}

fn event(i: u64) -> Event {
    Event {
        user_id: i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20,
        ts: 1_700_000_000_000 + i as i64,
        kind: (i % 7) as u8,
    }
}

/// The keys a decode path cycles through, encoded before it counts: its
/// count is the decode alone (and the loop's index), not the encode too.
const KEYS: usize = 1024;

fn event_keys() -> Vec<[u8; Event::LEN]> {
    (0..KEYS as u64).map(|i| event(i).encode()).collect()
}

fn named_keys() -> Vec<[u8; Named::LEN]> {
    const NAMES: [&str; 4] = ["sensor-0042-east", "a", "pump", "valve-17"];
    (0..KEYS as u64)
        .map(|i| {
            Named {
                user_id: i,
                name: NAMES[i as usize % NAMES.len()],
                seq: i as u32,
            }
            .try_encode()
            .unwrap()
        })
        .collect()
}

fn text(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| {
            if i % 64 == 63 {
                0
            } else {
                b'a' + (i % 26) as u8
            }
        })
        .collect()
}

const ROWS: redb::TableDefinition<'_, &[u8], ()> = redb::TableDefinition::new("rows");

/// [`merge_input`] in an in-memory redb table.
fn redb_input() -> redb::Database {
    let db = redb::Database::builder()
        .create_with_backend(redb::backends::InMemoryBackend::new())
        .unwrap();
    let tx = db.begin_write().unwrap();
    {
        let mut t = tx.open_table(ROWS).unwrap();
        for (k, ()) in merge_input().iter().flatten() {
            t.insert(k.as_slice(), ()).unwrap();
        }
    }
    tx.commit().unwrap();
    db
}

/// How a merge's rows are taken: its `fold` (as `sum`, `for_each` and
/// `count` take them), or `next` (as a `for` loop does).
#[derive(Clone, Copy)]
enum Take {
    Fold,
    Next,
}

/// Sums a byte of every row's key, taking the rows as `take` says.
#[inline(always)]
fn sum_rows<T>(rows: impl Iterator<Item = T>, byte: impl Fn(T) -> u8, take: Take) -> u8 {
    match take {
        Take::Fold => rows.map(byte).fold(0u8, u8::wrapping_add),
        Take::Next => {
            let mut sum = 0u8;
            for row in rows {
                sum = sum.wrapping_add(byte(row));
            }
            sum
        }
    }
}

/// Merges `input`'s buckets `n` times, touching every row.
fn merge(n: u64, input: &[Vec<(Vec<u8>, ())>], take: Take) {
    for _ in 0..n {
        let streams = input.iter().map(|b| b.iter().map(|(k, v)| (k, v)));
        black_box(sum_rows(merge_salted(streams), |(k, _)| k[17], take));
    }
}

/// Reads [`redb_input`]'s 16 ranges and merges them `n` times, touching
/// every row.
fn redb_merge(n: u64, take: Take) {
    let db = redb_input();
    for _ in 0..n {
        let tx = db.begin_read().unwrap();
        let t = tx.open_table(ROWS).unwrap();
        let streams: Vec<_> = Event::scan_all()
            .ranges()
            .map(|r| t.range::<&[u8]>(r.bounds()).unwrap())
            .collect();
        black_box(sum_rows(
            merge_salted_by(1, redb_key, streams),
            |r| r.unwrap().0.value()[17],
            take,
        ));
    }
}

/// 16,000 rows of 500 users in their 16 buckets: the merge gives each
/// user's 32 rows in a run from one bucket, as a salted table does.
fn merge_input() -> Vec<Vec<(Vec<u8>, ())>> {
    buckets(|i| Event {
        user_id: i % 500,
        ts: i as i64,
        kind: 0,
    })
}

/// 16,000 users of one row each: consecutive rows in key order are in
/// different buckets (no runs), the merge's worst case.
fn merge_input_without_runs() -> Vec<Vec<(Vec<u8>, ())>> {
    buckets(|i| Event {
        user_id: i,
        ts: 0,
        kind: 0,
    })
}

/// 16,000 events' keys, sorted, in their salt buckets.
fn buckets(event: fn(u64) -> Event) -> Vec<Vec<(Vec<u8>, ())>> {
    let mut buckets = vec![Vec::new(); 16];
    for i in 0..16_000u64 {
        let k = event(i).encode();
        buckets[usize::from(k[0])].push((k.to_vec(), ()));
    }
    for b in &mut buckets {
        b.sort();
    }
    buckets
}

const PATHS: &[Path] = &[
    Path {
        name: "fixed18 encode(): rowkey",
        per_iter: 1,
        run: |n| {
            for i in 0..n {
                black_box(op::encode(black_box(event(i))));
            }
        },
    },
    Path {
        name: "fixed18 encode_into: rowkey",
        per_iter: 1,
        run: |n| {
            let mut out = [0u8; Event::LEN];
            for i in 0..n {
                let _ = black_box(op::encode_into(black_box(event(i)), &mut out));
                black_box(&out);
            }
        },
    },
    Path {
        name: "fixed18 encode: hand-written",
        per_iter: 1,
        run: |n| {
            for i in 0..n {
                black_box(op::hand_encode(black_box(event(i))));
            }
        },
    },
    Path {
        name: "fixed18 decode: rowkey",
        per_iter: 1,
        run: |n| {
            let keys = event_keys();
            for i in 0..n {
                let _ = black_box(op::decode(black_box(&keys[i as usize % KEYS])));
            }
        },
    },
    Path {
        name: "fixed18 decode: hand-written",
        per_iter: 1,
        run: |n| {
            let keys = event_keys();
            for i in 0..n {
                black_box(op::hand_decode(black_box(&keys[i as usize % KEYS])));
            }
        },
    },
    Path {
        name: "fixed29 try_encode(): rowkey",
        per_iter: 1,
        run: |n| {
            for i in 0..n {
                let k = Named {
                    user_id: i,
                    name: black_box("sensor-0042-east"),
                    seq: i as u32,
                };
                let _ = black_box(op::try_encode(black_box(k)));
            }
        },
    },
    Path {
        name: "fixed29 try_encode(): hand-written",
        per_iter: 1,
        run: |n| {
            for i in 0..n {
                let k = Named {
                    user_id: i,
                    name: black_box("sensor-0042-east"),
                    seq: i as u32,
                };
                black_box(op::hand_try_encode(black_box(k)));
            }
        },
    },
    Path {
        name: "fixed29 decode: rowkey",
        per_iter: 1,
        run: |n| {
            let keys = named_keys();
            for i in 0..n {
                let _ = black_box(op::decode_named(black_box(&keys[i as usize % KEYS])));
            }
        },
    },
    Path {
        name: "fixed29 decode: hand-written",
        per_iter: 1,
        run: |n| {
            let keys = named_keys();
            for i in 0..n {
                black_box(op::hand_decode_named(black_box(&keys[i as usize % KEYS])));
            }
        },
    },
    Path {
        name: "text key encode_into: rowkey",
        per_iter: 1,
        run: |n| {
            let mut out = [0u8; 40];
            for i in 0..n {
                let _ = black_box(text_op::text_encode(black_box(call(i)), &mut out));
                black_box(&out);
            }
        },
    },
    Path {
        name: "text key decode: rowkey",
        per_iter: 1,
        run: |n| {
            let keys: Vec<Vec<u8>> = (0..KEYS as u64)
                .map(|i| call(i).encode_to_vec().unwrap())
                .collect();
            for i in 0..n {
                let _ = black_box(text_op::text_decode(black_box(&keys[i as usize % KEYS])));
            }
        },
    },
    Path {
        name: "escape 256 B: rowkey encode_into",
        per_iter: 1,
        run: |n| {
            let s = text(256);
            let mut out = vec![0u8; 600];
            for _ in 0..n {
                black_box(
                    Escaped {
                        s: black_box(&s),
                        n: 7,
                    }
                    .encode_into(&mut out)
                    .unwrap(),
                );
                black_box(&out);
            }
        },
    },
    Path {
        name: "escape 256 B: hand-written memchr",
        per_iter: 1,
        run: |n| {
            let s = text(256);
            let mut out = vec![0u8; 600];
            for _ in 0..n {
                let w = hand::escape_into(black_box(&s), &mut out);
                out[w] = 7;
                black_box(&out);
            }
        },
    },
    Path {
        name: "range_by_user_id_ts: build + 1 range",
        per_iter: 1,
        run: |n| {
            for i in 0..n {
                black_box(text_op::range_by(black_box(i)));
            }
        },
    },
    Path {
        name: "merge_salted, per row (16 streams)",
        per_iter: 16_000,
        run: |n| merge(n, &merge_input(), Take::Fold),
    },
    Path {
        name: "merge_salted, per row, no runs (16 streams)",
        per_iter: 16_000,
        run: |n| merge(n, &merge_input_without_runs(), Take::Fold),
    },
    Path {
        name: "merge_salted, per row (16 streams), for loop",
        per_iter: 16_000,
        run: |n| merge(n, &merge_input(), Take::Next),
    },
    Path {
        name: "redb: read 16 ranges, per row",
        per_iter: 16_000,
        run: |n| {
            let db = redb_input();
            for _ in 0..n {
                let tx = db.begin_read().unwrap();
                let t = tx.open_table(ROWS).unwrap();
                let mut sum = 0u8;
                for r in Event::scan_all().ranges() {
                    for item in t.range::<&[u8]>(r.bounds()).unwrap() {
                        sum = sum.wrapping_add(item.unwrap().0.value()[17]);
                    }
                }
                black_box(sum);
            }
        },
    },
    Path {
        name: "redb: read 16 ranges + merge_salted, per row",
        per_iter: 16_000,
        run: |n| redb_merge(n, Take::Fold),
    },
    Path {
        name: "redb: read 16 ranges + merge_salted, per row, for loop",
        per_iter: 16_000,
        run: |n| redb_merge(n, Take::Next),
    },
    Path {
        name: "chain (no order), per row",
        per_iter: 16_000,
        run: |n| {
            let input = merge_input();
            for _ in 0..n {
                let streams = input.iter().map(|b| b.iter().map(|(k, v)| (k, v)));
                black_box(
                    streams
                        .flatten()
                        .map(|(k, _)| k[17])
                        .fold(0u8, u8::wrapping_add),
                );
            }
        },
    },
];

/// A tenant's events: a UUID, a newest-first `chrono` timestamp, a
/// sequence number (features `uuid` and `chrono`).
#[cfg(all(feature = "uuid", feature = "chrono"))]
#[derive(RowKey, Debug, PartialEq)]
#[salt(buckets = 16, by(tenant))]
struct TenantEvent {
    tenant: uuid::Uuid,
    #[desc_ts]
    at: chrono::DateTime<chrono::Utc>,
    seq: u16,
}

#[cfg(all(feature = "uuid", feature = "chrono"))]
#[inline(never)]
fn tenant_round_trip(e: TenantEvent) -> TenantEvent {
    TenantEvent::decode(&e.try_encode().unwrap()).unwrap()
}

/// Every path: [`PATHS`], and those of the features that are on.
/// The README's key, derived and as a run-time layout (`DynLayout`, from
/// the derived layout's text): the same bytes, with the run-time plumbing.
#[cfg(feature = "dynamic")]
mod dynamic {
    use std::hint::black_box;
    use std::sync::OnceLock;

    use rowkey_core::prelude::*;
    use rowkey_core::{DynLayout, Value};

    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[salt(buckets = 16, by(user_id))]
    pub struct UserEvent {
        user_id: u64,
        #[desc_ts]
        ts_millis: i64,
        #[fixed(8)]
        kind: String,
    }

    const KINDS: [&str; 4] = ["click", "view", "buy", "scroll"];

    fn event(i: u64) -> UserEvent {
        UserEvent {
            user_id: i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % 100_000,
            ts_millis: 1_700_000_000_000 + i as i64 * 17,
            kind: KINDS[i as usize % 4].into(),
        }
    }

    fn layout() -> &'static DynLayout {
        static LAYOUT: OnceLock<DynLayout> = OnceLock::new();
        LAYOUT.get_or_init(|| DynLayout::parse(&UserEvent::LAYOUT.to_string()).unwrap())
    }

    fn values(i: u64) -> Vec<Value> {
        let e = event(i);
        vec![e.user_id.into(), e.ts_millis.into(), e.kind.as_str().into()]
    }

    const KEYS: usize = 1024;

    fn keys() -> Vec<Vec<u8>> {
        (0..KEYS as u64)
            .map(|i| event(i).encode_to_vec().unwrap())
            .collect()
    }

    #[inline(never)]
    fn derived_encode(e: &UserEvent) -> Vec<u8> {
        e.encode_to_vec().unwrap()
    }

    #[inline(never)]
    fn dynamic_encode(v: &[Value]) -> Vec<u8> {
        layout().encode(v).unwrap()
    }

    #[inline(never)]
    fn derived_decode(k: &[u8]) -> UserEvent {
        UserEvent::decode(k).unwrap()
    }

    #[inline(never)]
    fn dynamic_decode(k: &[u8]) -> Vec<Value> {
        layout().decode(k).unwrap()
    }

    /// Encode paths: the inputs made first (outside the count), then
    /// one key per input.
    pub fn encode_derived(n: u64) {
        let events: Vec<UserEvent> = (0..KEYS as u64).map(event).collect();
        for i in 0..n {
            black_box(derived_encode(black_box(&events[i as usize % KEYS])));
        }
    }

    pub fn encode_dynamic(n: u64) {
        let values: Vec<Vec<Value>> = (0..KEYS as u64).map(values).collect();
        layout();
        for i in 0..n {
            black_box(dynamic_encode(black_box(&values[i as usize % KEYS])));
        }
    }

    pub fn decode_derived(n: u64) {
        let keys = keys();
        for i in 0..n {
            black_box(derived_decode(black_box(&keys[i as usize % KEYS])));
        }
    }

    pub fn decode_dynamic(n: u64) {
        let keys = keys();
        layout();
        for i in 0..n {
            black_box(dynamic_decode(black_box(&keys[i as usize % KEYS])));
        }
    }

    #[inline(never)]
    fn dynamic_decode_into(k: &[u8], values: &mut Vec<Value>) {
        layout().decode_into(k, values).unwrap()
    }

    /// `decode_into` one `Vec` for every key, as a tool reading many keys
    /// would.
    pub fn decode_into_dynamic(n: u64) {
        let keys = keys();
        layout();
        let mut values = Vec::new();
        for i in 0..n {
            dynamic_decode_into(black_box(&keys[i as usize % KEYS]), &mut values);
            black_box(&values);
        }
    }
}

fn paths() -> Vec<Path> {
    #[allow(unused_mut)]
    let mut all = PATHS.to_vec();
    #[cfg(feature = "dynamic")]
    all.extend([
        Path {
            name: "README key encode_to_vec(): derived",
            per_iter: 1,
            run: dynamic::encode_derived,
        },
        Path {
            name: "README key encode: DynLayout",
            per_iter: 1,
            run: dynamic::encode_dynamic,
        },
        Path {
            name: "README key decode: derived",
            per_iter: 1,
            run: dynamic::decode_derived,
        },
        Path {
            name: "README key decode: DynLayout",
            per_iter: 1,
            run: dynamic::decode_dynamic,
        },
        Path {
            name: "README key decode_into (one Vec): DynLayout",
            per_iter: 1,
            run: dynamic::decode_into_dynamic,
        },
    ]);
    #[cfg(all(feature = "uuid", feature = "chrono"))]
    all.push(Path {
        name: "uuid + chrono key encode + decode: rowkey",
        per_iter: 1,
        run: |n| {
            for i in 0..n {
                let e = TenantEvent {
                    tenant: uuid::Uuid::from_u128(
                        u128::from(i).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                    ),
                    at: chrono::DateTime::from_timestamp_millis(1_700_000_000_000 + i as i64)
                        .unwrap(),
                    seq: i as u16,
                };
                black_box(tenant_round_trip(black_box(e)));
            }
        },
    });
    all
}

/// Instructions callgrind counts for one run of `path` with `iters`.
fn count(exe: &str, path: usize, iters: u64) -> Option<u64> {
    let out = Command::new("valgrind")
        .args([
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            exe,
            "--run",
        ])
        .arg(path.to_string())
        .arg(iters.to_string())
        .output()
        .ok()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stderr.lines().find(|l| l.contains("Collected :"))?;
    line.rsplit(':').next()?.trim().parse().ok()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--run") {
        let path: usize = args[i + 1].parse().expect("path index");
        let iters: u64 = args[i + 2].parse().expect("iterations");
        (paths()[path].run)(iters);
        return;
    }
    if !args.iter().any(|a| a == "--bench") {
        // cargo test: run every path once, natively.
        for p in paths() {
            (p.run)(1);
        }
        println!(
            "instructions: {} paths ran once (cargo bench -p rowkey-core --bench instructions counts them)",
            paths().len()
        );
        return;
    }
    let exe = &args[0];
    let checking = args.iter().any(|a| a == "--check-budgets");
    if count(exe, 0, 0).is_none() {
        eprintln!("instructions: valgrind is not available; install it to count instructions");
        if checking {
            std::process::exit(1);
        }
        return;
    }
    // `-- --check-budgets FILE`: fail when a path costs more than 3% over
    // its budget in FILE (lines `name<TAB>instructions`).
    let budgets: Vec<(String, f64)> = match args.iter().position(|a| a == "--check-budgets") {
        Some(i) => {
            let file = args.get(i + 1).expect("--check-budgets FILE");
            let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
            text.lines()
                .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
                .map(|l| {
                    let (name, n) = l
                        .rsplit_once('\t')
                        .unwrap_or_else(|| panic!("{file}: not `name<TAB>count`: {l}"));
                    (
                        name.to_owned(),
                        n.trim()
                            .parse()
                            .unwrap_or_else(|_| panic!("{file}: not a count: {l}")),
                    )
                })
                .collect()
        }
        None => Vec::new(),
    };
    println!("{:<56} {:>14} {:>10}", "path", "instructions/op", "budget");
    let mut over = Vec::new();
    for (i, p) in paths().iter().enumerate() {
        let iters = if p.per_iter > 1 { 4 } else { 20_000 };
        let budget = budgets.iter().find(|(n, _)| n == p.name).map(|b| b.1);
        match (count(exe, i, 0), count(exe, i, iters)) {
            (Some(base), Some(full)) => {
                let per_op = (full - base) as f64 / (iters * p.per_iter) as f64;
                let shown = budget.map_or_else(String::new, |b| format!("{b:.0}"));
                println!("{:<56} {:>14.1} {:>10}", p.name, per_op, shown);
                if budget.is_some_and(|b| per_op > b * 1.03) {
                    over.push(format!(
                        "{}: {per_op:.1} instructions, budget {}",
                        p.name, shown
                    ));
                }
            }
            _ => {
                println!("{:<56} {:>14}", p.name, "failed");
                if budget.is_some() {
                    over.push(format!("{}: not measured", p.name));
                }
            }
        }
    }
    for (name, _) in &budgets {
        if !paths().iter().any(|p| p.name == name) {
            over.push(format!(
                "{name}: in the budgets file but no such path (the uuid + chrono paths need --features uuid,chrono, the DynLayout paths --features dynamic)"
            ));
        }
    }
    if !budgets.is_empty() {
        if over.is_empty() {
            println!("instructions: every budgeted path within 3% of its budget");
        } else {
            eprintln!("instructions: over budget (more than 3%):");
            for o in &over {
                eprintln!("  {o}");
            }
            std::process::exit(1);
        }
    }
}
