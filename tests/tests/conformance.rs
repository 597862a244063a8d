//! The engine conformance suite: the same random rows and typed scans on
//! every engine (a `BTreeMap` model, redb, fjall, the Bigtable emulator, a
//! real HBase),
//! each result compared with a plain filter over the values, sorted the
//! way a merged scan returns rows (by the key bytes after the family
//! prefix and salt). Layouts: a salted binary key with a newest-first
//! timestamp, a text key salted by `mod`, and a key-family enum whose
//! members share one table. Scans: all rows, by a leading value, ranges on
//! a desc field (ends in value order), limits, pages with
//! `Scan::after_key`, and reversed reads (redb, fjall, the Bigtable
//! emulator, HBase: each range from its end, buckets merged largest key
//! first). With feature `kerberos`, HBase's case again on a kerberized
//! cluster with every message encrypted.

use std::ops::Bound;

use rowkey_core::prelude::*;
use rowkey_tests::{Bigtable, Engine, Fjall, HBase, Model, Redb, Value};

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 8, by(user))]
struct Event {
    user: u32,
    #[desc_ts]
    ts: i64,
    #[fixed(4)]
    kind: String,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(text, sep = "_")]
#[salt(buckets = 10, by(phone), hash = "mod")]
struct Call {
    #[digits(11)]
    phone: u64,
    #[desc_ts]
    ts: i64,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "D")]
struct Order {
    id: u64,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "I")]
#[salt(buckets = 4, by(customer))]
struct ByCustomer {
    customer: String,
    #[desc_ts]
    ts: i64,
    order: u64,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
enum Row {
    Order(Order),
    ByCustomer(ByCustomer),
}

/// A small deterministic generator (xorshift64*), so every engine sees the
/// same rows and a failure names its seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

/// The rows `pred` selects, in merged-scan order: by the key bytes after
/// `K::HEAD_LEN`, each key once (the last write of a key wins, as in a
/// store).
fn expected<K: RowKey + Clone>(rows: &[(K, Value)], pred: impl Fn(&K) -> bool) -> Vec<(K, Value)> {
    let mut by_key = std::collections::BTreeMap::new();
    for (k, v) in rows.iter().filter(|(k, _)| pred(k)) {
        by_key.insert(k.encode_to_vec().unwrap(), (k.clone(), *v));
    }
    let mut out: Vec<(Vec<u8>, (K, Value))> = by_key.into_iter().collect();
    out.sort_by(|a, b| a.0[K::HEAD_LEN..].cmp(&b.0[K::HEAD_LEN..]));
    out.into_iter().map(|(_, r)| r).collect()
}

/// Panics naming the first row where `got` and `want` differ (or the
/// lengths), without printing hundreds of rows.
fn same<K: PartialEq + std::fmt::Debug>(got: &[(K, Value)], want: &[(K, Value)], what: &str) {
    if let Some(i) = (0..got.len().min(want.len())).find(|&i| got[i] != want[i]) {
        panic!("{what}: row {i} is {:?}, expected {:?}", got[i], want[i]);
    }
    assert_eq!(got.len(), want.len(), "{what}: rows returned");
}

/// Checks one scan on one engine: all of it, its first `limit` rows, read
/// in pages of `limit` rows with `Scan::after_key`, and where the engine
/// reads backwards, all of it and its last `limit` rows in reverse order.
fn check<E: Engine, K>(
    engine: &mut E,
    table: &str,
    what: &str,
    scan: &Scan,
    want: &[(K, Value)],
    limit: usize,
) where
    K: RowKey + for<'de> DecodeRowKey<'de> + Clone + PartialEq + std::fmt::Debug,
{
    let name = engine.name();
    let got = engine.scan::<K>(table, scan, None);
    same(&got, want, &format!("{name}: {what}"));
    let got = engine.scan::<K>(table, scan, Some(limit));
    assert_eq!(
        got,
        &want[..limit.min(want.len())],
        "{name}: {what}, limit {limit}"
    );
    let mut paged = Vec::new();
    let mut next = scan.clone();
    loop {
        let page = engine.scan::<K>(table, &next, Some(limit));
        let Some((last, _)) = page.last() else { break };
        next = scan.after_key(last).unwrap();
        let done = page.len() < limit;
        paged.extend(page);
        if done {
            break;
        }
        assert!(
            paged.len() <= want.len(),
            "{name}: {what}: pages return more rows than the scan"
        );
    }
    same(
        &paged,
        want,
        &format!("{name}: {what}, in pages of {limit}"),
    );
    let backwards: Vec<(K, Value)> = want.iter().rev().cloned().collect();
    if let Some(got) = engine.scan_reversed::<K>(table, scan, None) {
        same(&got, &backwards, &format!("{name}: {what}, reversed"));
        let got = engine.scan_reversed::<K>(table, scan, Some(limit)).unwrap();
        let newest = &backwards[..limit.min(backwards.len())];
        same(
            &got,
            newest,
            &format!("{name}: {what}, reversed, limit {limit}"),
        );
    }
}

fn events(rng: &mut Rng, n: usize) -> Vec<(Event, Value)> {
    const KINDS: [&str; 3] = ["view", "buy", "a"];
    (0..n)
        .map(|i| {
            let e = Event {
                user: rng.below(12) as u32,
                ts: 1_700_000_000_000 + rng.below(10_000) as i64,
                kind: KINDS[rng.below(3) as usize].to_owned(),
            };
            (e, i as Value)
        })
        .collect()
}

fn calls(rng: &mut Rng, n: usize) -> Vec<(Call, Value)> {
    (0..n)
        .map(|i| {
            let c = Call {
                phone: 18_500_000_000 + rng.below(30),
                ts: 1_638_620_506_000 + rng.below(5_000) as i64,
            };
            (c, i as Value)
        })
        .collect()
}

fn family_rows(rng: &mut Rng, n: usize) -> Vec<(Row, Value)> {
    const CUSTOMERS: [&str; 4] = ["alice", "bob", "carol", "dan\u{0}x"];
    (0..n)
        .map(|i| {
            let r = if rng.below(2) == 0 {
                Row::Order(Order {
                    id: rng.below(1_000),
                })
            } else {
                Row::ByCustomer(ByCustomer {
                    customer: CUSTOMERS[rng.below(4) as usize].to_owned(),
                    ts: rng.below(1_000) as i64 - 500,
                    order: rng.below(1_000),
                })
            };
            (r, i as Value)
        })
        .collect()
}

/// The whole suite on one engine, for `cases` seeds.
fn suite<E: Engine>(engine: &mut E, cases: u64) {
    for seed in 1..=cases {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let limit = 1 + rng.below(7) as usize;

        let table = format!("events_{seed}");
        let rows = events(&mut rng, 300);
        engine.write(&table, &rows);
        check(
            engine,
            &table,
            "Event::scan_all",
            &Event::scan_all(),
            &expected(&rows, |_| true),
            limit,
        );
        let user = rng.below(12) as u32;
        check(
            engine,
            &table,
            &format!("Event::scan_by_user({user})"),
            &Event::scan_by_user(user),
            &expected(&rows, |e| e.user == user),
            limit,
        );
        let (a, b) = (
            1_700_000_000_000 + rng.below(10_000) as i64,
            1_700_000_000_000 + rng.below(10_000) as i64,
        );
        let (lo, hi) = (a.min(b), a.max(b));
        check(
            engine,
            &table,
            &format!("Event::range_by_user_ts({user}, {lo}..={hi})"),
            &Event::range_by_user_ts(user, lo..=hi),
            &expected(&rows, |e| e.user == user && (lo..=hi).contains(&e.ts)),
            limit,
        );
        check(
            engine,
            &table,
            &format!("Event::range_by_user_ts({user}, (Excluded({lo}), Unbounded))"),
            &Event::range_by_user_ts(user, (Bound::Excluded(lo), Bound::Unbounded)),
            &expected(&rows, |e| e.user == user && e.ts > lo),
            limit,
        );
        check(
            engine,
            &table,
            "Event::range_by_user(3..9)",
            &Event::range_by_user(3..9),
            &expected(&rows, |e| (3..9).contains(&e.user)),
            limit,
        );

        let table = format!("calls_{seed}");
        let rows = calls(&mut rng, 200);
        engine.write(&table, &rows);
        check(
            engine,
            &table,
            "Call::scan_all",
            &Call::scan_all(),
            &expected(&rows, |_| true),
            limit,
        );
        let phone = 18_500_000_000 + rng.below(30);
        let t = 1_638_620_506_000 + rng.below(5_000) as i64;
        check(
            engine,
            &table,
            &format!("Call::range_by_phone_ts({phone}, ..{t})"),
            &Call::range_by_phone_ts(phone, ..t).unwrap(),
            &expected(&rows, |c| c.phone == phone && c.ts < t),
            limit,
        );

        let table = format!("family_{seed}");
        let rows = family_rows(&mut rng, 200);
        engine.write(&table, &rows);
        check(
            engine,
            &table,
            "Row::scan_all",
            &Row::scan_all(),
            &expected(&rows, |_| true),
            limit,
        );
        let orders: Vec<(Order, Value)> = rows
            .iter()
            .filter_map(|(r, v)| match r {
                Row::Order(o) => Some((o.clone(), *v)),
                Row::ByCustomer(_) => None,
            })
            .collect();
        check(
            engine,
            &table,
            "Order::scan_all",
            &Order::scan_all(),
            &expected(&orders, |_| true),
            limit,
        );
        let by: Vec<(ByCustomer, Value)> = rows
            .iter()
            .filter_map(|(r, v)| match r {
                Row::ByCustomer(b) => Some((b.clone(), *v)),
                Row::Order(_) => None,
            })
            .collect();
        check(
            engine,
            &table,
            "ByCustomer::range_by_customer_ts(\"dan\\0x\", -100..100)",
            &ByCustomer::range_by_customer_ts("dan\u{0}x", -100..100),
            &expected(&by, |b| {
                b.customer == "dan\u{0}x" && (-100..100).contains(&b.ts)
            }),
            limit,
        );
        check(
            engine,
            &table,
            "ByCustomer::scan_all",
            &ByCustomer::scan_all(),
            &expected(&by, |_| true),
            limit,
        );
    }
}

#[test]
fn btreemap_model() {
    suite(&mut Model::default(), 8);
}

#[test]
fn redb_typed_table() {
    suite(&mut Redb::new(), 8);
}

#[test]
fn fjall_typed_table() {
    suite(&mut Fjall::new(), 8);
}

#[test]
fn bigtable_emulator() {
    suite(&mut Bigtable::start(), 3);
}

/// The native client on a kerberized HBase whose every message is
/// encrypted (`Protection::Privacy`): the same answers.
#[cfg(feature = "kerberos")]
#[test]
fn hbase_kerberized_privacy() {
    use rowkey_hbase::{Kerberos, Protection};
    let mut hbase = HBase::start_kerberized();
    suite(&mut hbase, 3);
    // A client asking less than the cluster's one protection is refused,
    // naming both.
    let server = hbase.server();
    let (principal, keytab) = server.kdc().principal("weak").unwrap();
    let weak = rowkey_hbase::Client::native(server.bootstrap())
        .kerberos(Kerberos::keytab(principal, keytab).protection(Protection::Authentication))
        .build()
        .unwrap();
    match weak.table_exists("events") {
        Err(rowkey_hbase::Error::Security { cause, .. }) => assert!(
            cause.contains("offers protection privacy")
                && cause.contains("not the authentication asked"),
            "{cause}"
        ),
        other => panic!("expected Error::Security, got {other:?}"),
    }
}

/// Through the gateway, then through the native client on the same
/// server: the same answers.
#[test]
fn hbase_standalone() {
    let mut gateway = HBase::start();
    suite(&mut gateway, 3);
    suite(&mut gateway.native(), 3);
}
