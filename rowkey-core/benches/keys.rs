//! Derived row keys against hand-written code for the same layout and
//! against the general-purpose ordered-key crates (storekey, memcomparable),
//! measured in one run. See BENCHMARKS.md for the commands and the figures.
//!
//! Under `cargo test` (no `--bench` argument) criterion runs each benchmark
//! once as a smoke test, on small inputs.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use redb::{Database, ReadableDatabase, TableDefinition};
use rowkey_core::prelude::*;
use rowkey_core::{merge_salted, merge_salted_by};
use serde::{Deserialize, Serialize};

fn full_run() -> bool {
    std::env::args().any(|a| a == "--bench")
}

// ---------- key 1: 18 bytes, salt by user, user, newest-first ts, kind ----------

#[path = "common/layouts.rs"]
mod layouts;
#[path = "common/redb_row.rs"]
mod redb_row;
use layouts::{Event, Named};
use redb_row::redb_key;

/// The same logical key with a peer crate: the caller computes the salt
/// (the same xxh3) and stores `MAX - ts` itself, as a user of those crates
/// would to get a salted, newest-first key.
#[derive(
    Debug, Clone, PartialEq, Serialize, Deserialize, storekey::Encode, storekey::BorrowDecode,
)]
struct PeerEvent {
    salt: u8,
    user_id: u64,
    ts_desc: i64,
    kind: u8,
}

#[inline]
fn salt_of(user_id: u64) -> u8 {
    (xxhash_rust::xxh3::xxh3_64(&user_id.to_be_bytes()) % 16) as u8
}

#[inline]
fn peer_event(e: &Event) -> PeerEvent {
    PeerEvent {
        salt: salt_of(e.user_id),
        user_id: e.user_id,
        ts_desc: i64::MAX.wrapping_sub(e.ts),
        kind: e.kind,
    }
}

#[inline]
fn from_peer(p: &PeerEvent) -> Event {
    Event {
        user_id: p.user_id,
        ts: i64::MAX.wrapping_sub(p.ts_desc),
        kind: p.kind,
    }
}

/// What a careful engineer writes by hand for exactly these layouts.
#[path = "common/hand.rs"]
mod hand;
/// Both sides' operations behind the same `#[inline(never)]` boundary as in
/// the instruction bench: the two benches time and count the same code.
#[path = "common/op.rs"]
mod op;

// ---------- key 2: 29 bytes with a #[fixed(16)] string ----------

/// storekey decodes a borrowed string as `Cow<str>`.
#[derive(
    Debug, Clone, PartialEq, Serialize, Deserialize, storekey::Encode, storekey::BorrowDecode,
)]
struct PeerNamed<'a> {
    salt: u8,
    user_id: u64,
    #[serde(borrow)]
    name: std::borrow::Cow<'a, str>,
    seq: u32,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
struct PeerNamedOwned {
    salt: u8,
    user_id: u64,
    name: String,
    seq: u32,
}

#[inline]
fn peer_named<'a>(n: &Named<'a>) -> PeerNamed<'a> {
    PeerNamed {
        salt: salt_of(n.user_id),
        user_id: n.user_id,
        name: n.name.into(),
        seq: n.seq,
    }
}

/// The peers' operations behind the same `#[inline(never)]` boundary as
/// rowkey's and the hand-written ones (`common/op.rs`): every side of a
/// comparison pays one call per key.
mod peer_op {
    use super::{from_peer, peer_event, peer_named, Event, Named};
    use super::{PeerEvent, PeerNamed, PeerNamedOwned};
    use serde::Serialize;

    #[inline(never)]
    pub fn storekey_event(e: &Event, buf: &mut Vec<u8>) {
        buf.clear();
        storekey::encode(buf, &peer_event(e)).unwrap();
    }
    #[inline(never)]
    pub fn memcomparable_event(e: &Event, buf: &mut Vec<u8>) {
        buf.clear();
        let mut ser = memcomparable::Serializer::new(buf);
        peer_event(e).serialize(&mut ser).unwrap();
    }
    #[inline(never)]
    pub fn storekey_decode_event(k: &[u8]) -> Event {
        from_peer(&storekey::decode_borrow::<PeerEvent>(k).unwrap())
    }
    #[inline(never)]
    pub fn memcomparable_decode_event(k: &[u8]) -> Event {
        from_peer(&memcomparable::from_slice::<PeerEvent>(k).unwrap())
    }
    #[inline(never)]
    pub fn storekey_named(n: &Named<'_>, buf: &mut Vec<u8>) {
        buf.clear();
        storekey::encode(buf, &peer_named(n)).unwrap();
    }
    #[inline(never)]
    pub fn memcomparable_named(n: &Named<'_>, buf: &mut Vec<u8>) {
        buf.clear();
        let mut ser = memcomparable::Serializer::new(buf);
        peer_named(n).serialize(&mut ser).unwrap();
    }
    #[inline(never)]
    pub fn storekey_decode_named(k: &[u8]) -> PeerNamed<'_> {
        storekey::decode_borrow::<PeerNamed<'_>>(k).unwrap()
    }
    #[inline(never)]
    pub fn memcomparable_decode_named(k: &[u8]) -> PeerNamedOwned {
        memcomparable::from_slice::<PeerNamedOwned>(k).unwrap()
    }
}

/// Keys per measured iteration: distinct inputs, so nothing is loop-invariant,
/// and every output lands in a buffer that is `black_box`ed afterwards.
const BATCH: usize = 1024;

fn events() -> Vec<Event> {
    (0..BATCH as u64)
        .map(|i| Event {
            user_id: i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20,
            ts: 1_700_000_000_000 + (i as i64) * 977,
            kind: (i % 7) as u8,
        })
        .collect()
}

const NAMES: [&str; 8] = [
    "sensor-0042-east",
    "a",
    "pump",
    "valve-17",
    "north-gate-cam-2",
    "hvac",
    "meter-0001",
    "door",
];

fn fixed_width(c: &mut Criterion) {
    let evs = events();
    let mut out18 = vec![[0u8; 18]; BATCH];
    let mut buf = Vec::with_capacity(64);

    let mut g = c.benchmark_group("fixed18/encode");
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function("rowkey encode()", |b| {
        b.iter(|| {
            for (e, o) in black_box(&evs).iter().zip(out18.iter_mut()) {
                *o = op::encode(*e);
            }
            black_box(&out18);
        })
    });
    g.bench_function("rowkey encode_into", |b| {
        b.iter(|| {
            for (e, o) in black_box(&evs).iter().zip(out18.iter_mut()) {
                op::encode_into(*e, o).unwrap();
            }
            black_box(&out18);
        })
    });
    g.bench_function("hand-written", |b| {
        b.iter(|| {
            for (e, o) in black_box(&evs).iter().zip(out18.iter_mut()) {
                *o = op::hand_encode(*e);
            }
            black_box(&out18);
        })
    });
    g.bench_function("storekey", |b| {
        b.iter(|| {
            let mut acc = 0u8;
            for e in black_box(&evs) {
                peer_op::storekey_event(e, &mut buf);
                acc ^= buf[buf.len() - 1];
            }
            black_box(acc)
        })
    });
    g.bench_function("memcomparable", |b| {
        b.iter(|| {
            let mut acc = 0u8;
            for e in black_box(&evs) {
                peer_op::memcomparable_event(e, &mut buf);
                acc ^= buf[buf.len() - 1];
            }
            black_box(acc)
        })
    });
    g.finish();

    let keys: Vec<[u8; 18]> = evs.iter().map(Event::encode).collect();
    let sk: Vec<Vec<u8>> = evs
        .iter()
        .map(|e| storekey::encode_vec(&peer_event(e)).unwrap())
        .collect();
    let mc: Vec<Vec<u8>> = evs
        .iter()
        .map(|e| memcomparable::to_vec(&peer_event(e)).unwrap())
        .collect();
    let mut decoded = vec![
        Event {
            user_id: 0,
            ts: 0,
            kind: 0
        };
        BATCH
    ];
    let mut g = c.benchmark_group("fixed18/decode");
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function("rowkey decode", |b| {
        b.iter(|| {
            for (k, d) in black_box(&keys).iter().zip(decoded.iter_mut()) {
                *d = op::decode(k).unwrap();
            }
            black_box(&decoded);
        })
    });
    g.bench_function("hand-written", |b| {
        b.iter(|| {
            for (k, d) in black_box(&keys).iter().zip(decoded.iter_mut()) {
                let (user_id, ts, kind) = op::hand_decode(k).unwrap();
                *d = Event { user_id, ts, kind };
            }
            black_box(&decoded);
        })
    });
    g.bench_function("storekey", |b| {
        b.iter(|| {
            for (k, d) in black_box(&sk).iter().zip(decoded.iter_mut()) {
                *d = peer_op::storekey_decode_event(k);
            }
            black_box(&decoded);
        })
    });
    g.bench_function("memcomparable", |b| {
        b.iter(|| {
            for (k, d) in black_box(&mc).iter().zip(decoded.iter_mut()) {
                *d = peer_op::memcomparable_decode_event(k);
            }
            black_box(&decoded);
        })
    });
    g.finish();

    let named: Vec<Named<'_>> = evs
        .iter()
        .enumerate()
        .map(|(i, e)| Named {
            user_id: e.user_id,
            name: NAMES[i % NAMES.len()],
            seq: i as u32,
        })
        .collect();
    let mut out29 = vec![[0u8; 29]; BATCH];
    let mut g = c.benchmark_group("fixed29/encode");
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function("rowkey try_encode()", |b| {
        b.iter(|| {
            for (n, o) in black_box(&named).iter().zip(out29.iter_mut()) {
                *o = op::try_encode(*n).unwrap();
            }
            black_box(&out29);
        })
    });
    g.bench_function("hand-written", |b| {
        b.iter(|| {
            for (n, o) in black_box(&named).iter().zip(out29.iter_mut()) {
                *o = op::hand_try_encode(*n).unwrap();
            }
            black_box(&out29);
        })
    });
    g.bench_function("storekey", |b| {
        b.iter(|| {
            let mut acc = 0u8;
            for n in black_box(&named) {
                peer_op::storekey_named(n, &mut buf);
                acc ^= buf[buf.len() - 1];
            }
            black_box(acc)
        })
    });
    g.bench_function("memcomparable", |b| {
        b.iter(|| {
            let mut acc = 0u8;
            for n in black_box(&named) {
                peer_op::memcomparable_named(n, &mut buf);
                acc ^= buf[buf.len() - 1];
            }
            black_box(acc)
        })
    });
    g.finish();

    let keys29: Vec<[u8; 29]> = named.iter().map(|n| n.try_encode().unwrap()).collect();
    let sk: Vec<Vec<u8>> = named
        .iter()
        .map(|n| storekey::encode_vec(&peer_named(n)).unwrap())
        .collect();
    let mc: Vec<Vec<u8>> = named
        .iter()
        .map(|n| memcomparable::to_vec(&peer_named(n)).unwrap())
        .collect();
    let mut g = c.benchmark_group("fixed29/decode");
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function("rowkey decode", |b| {
        b.iter(|| {
            let mut acc = 0usize;
            for k in black_box(&keys29) {
                let n = op::decode_named(k).unwrap();
                acc = acc.wrapping_add(n.name.len() ^ n.seq as usize ^ n.user_id as usize);
            }
            black_box(acc)
        })
    });
    g.bench_function("hand-written", |b| {
        b.iter(|| {
            let mut acc = 0usize;
            for k in black_box(&keys29) {
                let (user_id, name, seq) = op::hand_decode_named(k).unwrap();
                acc = acc.wrapping_add(name.len() ^ seq as usize ^ user_id as usize);
            }
            black_box(acc)
        })
    });
    g.bench_function("storekey", |b| {
        b.iter(|| {
            let mut acc = 0usize;
            for k in black_box(&sk) {
                let n = peer_op::storekey_decode_named(k);
                acc = acc.wrapping_add(n.name.len() ^ n.seq as usize ^ n.user_id as usize);
            }
            black_box(acc)
        })
    });
    g.bench_function("memcomparable (String)", |b| {
        b.iter(|| {
            let mut acc = 0usize;
            for k in black_box(&mc) {
                let n = peer_op::memcomparable_decode_named(k);
                acc = acc.wrapping_add(n.name.len() ^ n.seq as usize ^ n.user_id as usize);
            }
            black_box(acc)
        })
    });
    g.finish();
}

// ---------- escaped variable-length strings ----------

#[derive(RowKey)]
struct Escaped<'a> {
    s: &'a [u8],
    n: u8,
}

#[derive(Serialize, storekey::Encode)]
struct PeerEscaped<'a> {
    #[serde(with = "serde_bytes_compat")]
    s: &'a [u8],
    n: u8,
}

/// memcomparable serializes `&[u8]` through serde's bytes path.
mod serde_bytes_compat {
    pub fn serialize<S: serde::Serializer>(v: &&[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v)
    }
}

fn escaping(c: &mut Criterion) {
    for len in [16usize, 64, 256] {
        // Text-like bytes with one 00 in every 64: the escaper's usual input.
        let s: Vec<u8> = (0..len)
            .map(|i| {
                if i % 64 == 63 {
                    0
                } else {
                    b'a' + (i % 26) as u8
                }
            })
            .collect();
        let v = Escaped { s: &s, n: 7 };
        let p = PeerEscaped { s: &s, n: 7 };
        let mut out = vec![0u8; 2 * len + 8];
        let mut buf = Vec::with_capacity(2 * len + 8);
        let mut g = c.benchmark_group(format!("escape/{len}"));
        g.throughput(Throughput::Bytes(len as u64));
        g.bench_function("rowkey encode_into", |b| {
            b.iter(|| {
                let n = black_box(&v).encode_into(&mut out).unwrap();
                black_box(&out);
                n
            })
        });
        g.bench_function("hand-written memchr", |b| {
            b.iter(|| {
                let w = hand::escape_into(black_box(&s), &mut out);
                out[w] = 7;
                black_box(&out);
                w + 1
            })
        });
        g.bench_function("storekey", |b| {
            b.iter(|| {
                buf.clear();
                storekey::encode(&mut buf, black_box(&p)).unwrap();
                black_box(buf.len())
            })
        });
        g.bench_function("memcomparable", |b| {
            b.iter(|| {
                buf.clear();
                let mut ser = memcomparable::Serializer::new(&mut buf);
                black_box(&p).serialize(&mut ser).unwrap();
                black_box(buf.len())
            })
        });
        g.finish();
    }
}

// ---------- scans ----------

fn scans(c: &mut Criterion) {
    let now = 1_700_000_000_000i64;
    let mut g = c.benchmark_group("scan");
    g.bench_function("scan_by_user_id (prefix, 1 bucket)", |b| {
        b.iter(|| black_box(Event::scan_by_user_id(black_box(42))))
    });
    g.bench_function("range_by_user_id_ts (1 bucket)", |b| {
        b.iter(|| {
            black_box(Event::range_by_user_id_ts(
                black_box(42),
                black_box(now - 3_600_000..now),
            ))
        })
    });
    g.bench_function("range_by_user_id_ts + iterate 1 range", |b| {
        b.iter(|| {
            let s = Event::range_by_user_id_ts(black_box(42), black_box(now - 3_600_000..now));
            s.ranges()
                .map(|r| r.start().len() + r.stop().len())
                .sum::<usize>()
        })
    });
    g.bench_function("range_by_user_id fan-out + iterate 16 ranges", |b| {
        b.iter(|| {
            let s = Event::range_by_user_id(black_box(10..20));
            s.ranges()
                .map(|r| r.start().len() + r.stop().len())
                .sum::<usize>()
        })
    });
    g.finish();
}

// ---------- merging 16 buckets ----------

const TABLE: TableDefinition<'_, &[u8], ()> = TableDefinition::new("rows");

fn merging(c: &mut Criterion) {
    let rows: u64 = if full_run() { 1_000_000 } else { 20_000 };
    let mut buckets: Vec<Vec<(Vec<u8>, ())>> = vec![Vec::new(); 16];
    for i in 0..rows {
        let e = Event {
            user_id: i % 5_000,
            ts: 1_700_000_000_000 + i as i64,
            kind: (i % 7) as u8,
        };
        let k = e.encode();
        buckets[usize::from(k[0])].push((k.to_vec(), ()));
    }
    for b in &mut buckets {
        b.sort();
    }
    let streams = || buckets.iter().map(|b| b.iter().map(|(k, v)| (k, v)));
    let touch = |k: &[u8]| k[17] as u64;

    let db = Database::builder()
        .create_with_backend(redb::backends::InMemoryBackend::new())
        .unwrap();
    let tx = db.begin_write().unwrap();
    {
        let mut t = tx.open_table(TABLE).unwrap();
        for (k, ()) in buckets.iter().flatten() {
            t.insert(k.as_slice(), ()).unwrap();
        }
    }
    tx.commit().unwrap();
    let scan = Event::scan_all();

    let mut g = c.benchmark_group(format!("merge/16x{}", rows / 16));
    g.sample_size(10);
    g.throughput(Throughput::Elements(rows));
    g.bench_function("merge_salted", |b| {
        b.iter(|| merge_salted(streams()).map(|(k, _)| touch(k)).sum::<u64>())
    });
    g.bench_function("chain (no order)", |b| {
        b.iter(|| streams().flatten().map(|(k, _)| touch(k)).sum::<u64>())
    });
    g.bench_function("collect and sort", |b| {
        b.iter_batched(
            || (),
            |()| {
                let mut all: Vec<&Vec<u8>> = streams().flatten().map(|(k, _)| k).collect();
                all.sort_by(|a, b| a[1..].cmp(&b[1..]));
                all.iter().map(|k| touch(k)).sum::<u64>()
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function("redb: read the 16 ranges", |b| {
        b.iter(|| {
            let tx = db.begin_read().unwrap();
            let t = tx.open_table(TABLE).unwrap();
            let mut sum = 0;
            for r in scan.ranges() {
                for item in t.range::<&[u8]>(r.bounds()).unwrap() {
                    sum += touch(item.unwrap().0.value());
                }
            }
            sum
        })
    });
    g.bench_function("redb: read and merge_salted", |b| {
        b.iter(|| {
            let tx = db.begin_read().unwrap();
            let t = tx.open_table(TABLE).unwrap();
            merged_ranges(&t, &scan)
                .map(|r| touch(r.unwrap().0.value()))
                .sum::<u64>()
        })
    });
    // The same rows taken one `next` at a time, as a `for` loop takes them
    // (`sum` above runs the merge's own `fold`).
    g.bench_function("redb: read and merge_salted, for loop", |b| {
        b.iter(|| {
            let tx = db.begin_read().unwrap();
            let t = tx.open_table(TABLE).unwrap();
            let mut sum = 0;
            for r in merged_ranges(&t, &scan) {
                sum += touch(r.unwrap().0.value());
            }
            sum
        })
    });
    g.finish();
}

/// `scan`'s ranges of `t`, read lazily and merged as the typed tables
/// merge them: redb's rows as they come, keys read in place.
fn merged_ranges<'t>(
    t: &'t redb::ReadOnlyTable<&'static [u8], ()>,
    scan: &Scan,
) -> impl Iterator<Item = redb_row::RedbRow<'t>> + use<'t> {
    let streams: Vec<_> = scan
        .ranges()
        .map(|r| t.range::<&[u8]>(r.bounds()).unwrap())
        .collect();
    merge_salted_by(1, redb_key, streams)
}

// ---------- key 3: the seed text key, `phone % 10 _ phone _ MAX - ts` ----------

/// `0_18518885160_9223370398234269807`: 33 bytes of text.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(text, sep = "_")]
#[salt(buckets = 10, by(phone), hash = "mod")]
struct Call {
    #[digits(11)]
    phone: u64,
    #[desc_ts]
    ts: i64,
}

fn calls() -> Vec<Call> {
    (0..BATCH as u64)
        .map(|i| Call {
            phone: 13_000_000_000 + i.wrapping_mul(0x9E37_79B9) % 6_000_000_000,
            ts: 1_638_620_506_000 + (i as i64) * 977,
        })
        .collect()
}

/// What a careful engineer writes by hand: digits written backwards into a
/// stack array, two at a time (as `itoa` does), no checks beyond the width.
mod hand_text {
    const PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

    #[inline(always)]
    fn digits(mut n: u64, out: &mut [u8]) {
        let mut i = out.len();
        while i >= 2 {
            let r = (n % 100) as usize;
            n /= 100;
            out[i - 2..i].copy_from_slice(&PAIRS[2 * r..2 * r + 2]);
            i -= 2;
        }
        if i == 1 {
            out[0] = b'0' + (n % 10) as u8;
        }
    }

    #[inline]
    pub fn encode(phone: u64, ts: i64) -> Option<[u8; 33]> {
        if phone >= 100_000_000_000 || ts < 0 {
            return None;
        }
        let mut k = [0u8; 33];
        k[0] = b'0' + (phone % 10) as u8;
        k[1] = b'_';
        digits(phone, &mut k[2..13]);
        k[13] = b'_';
        digits((i64::MAX - ts) as u64, &mut k[14..33]);
        Some(k)
    }
}

fn text_keys(c: &mut Criterion) {
    let calls = calls();
    let mut out = vec![[0u8; 33]; BATCH];
    let mut g = c.benchmark_group("text33/encode");
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function("rowkey try_encode()", |b| {
        b.iter(|| {
            for (k, o) in black_box(&calls).iter().zip(out.iter_mut()) {
                *o = k.try_encode().unwrap();
            }
            black_box(&out);
        })
    });
    g.bench_function("hand-written itoa-style", |b| {
        b.iter(|| {
            for (k, o) in black_box(&calls).iter().zip(out.iter_mut()) {
                *o = hand_text::encode(k.phone, k.ts).unwrap();
            }
            black_box(&out);
        })
    });
    g.bench_function("format!", |b| {
        b.iter(|| {
            let mut acc = 0u8;
            for k in black_box(&calls) {
                let s = format!("{}_{:011}_{}", k.phone % 10, k.phone, i64::MAX - k.ts);
                acc ^= s.as_bytes()[32];
            }
            black_box(acc)
        })
    });
    g.bench_function("rowkey encode_to_string()", |b| {
        b.iter(|| {
            let mut acc = 0u8;
            for k in black_box(&calls) {
                acc ^= k.encode_to_string().unwrap().as_bytes()[32];
            }
            black_box(acc)
        })
    });
    g.finish();

    let keys: Vec<[u8; 33]> = calls.iter().map(|k| k.try_encode().unwrap()).collect();
    let texts: Vec<String> = calls
        .iter()
        .map(|k| k.encode_to_string().unwrap())
        .collect();
    assert_eq!(
        keys[7],
        hand_text::encode(calls[7].phone, calls[7].ts).unwrap()
    );
    let mut decoded = calls.clone();
    let mut g = c.benchmark_group("text33/decode");
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function("rowkey decode", |b| {
        b.iter(|| {
            for (k, d) in black_box(&keys).iter().zip(decoded.iter_mut()) {
                *d = Call::decode(k).unwrap();
            }
            black_box(&decoded);
        })
    });
    g.bench_function("split + str::parse", |b| {
        b.iter(|| {
            for (t, d) in black_box(&texts).iter().zip(decoded.iter_mut()) {
                let mut parts = t.split('_');
                let _bucket: u8 = parts.next().unwrap().parse().unwrap();
                let phone: u64 = parts.next().unwrap().parse().unwrap();
                let rev: i64 = parts.next().unwrap().parse().unwrap();
                *d = Call {
                    phone,
                    ts: i64::MAX - rev,
                };
            }
            black_box(&decoded);
        })
    });
    g.finish();
    assert_eq!(decoded, calls);
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2))
}

criterion_group! { name = benches; config = config(); targets = fixed_width, escaping, scans, merging, text_keys }
criterion_main!(benches);
