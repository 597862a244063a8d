//! Generated scans against a real sorted store (redb): for random rows of
//! several layouts and random `scan_by_*` / `range_by_*` scans with edge
//! values, the rows the store returns for the scan's ranges (merged across
//! salt buckets) are exactly the rows a plain filter over the decoded values
//! selects, in key order. Rows and scans are both proptest strategies, so a
//! failure shrinks to a few rows and one small scan.

#[path = "../common/mod.rs"]
mod common;

use std::cmp::Reverse;
use std::fmt::Debug;
use std::ops::{Bound, RangeBounds};

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use redb::backends::InMemoryBackend;
use redb::{Database, ReadableDatabase, TableDefinition};
use rowkey_core::prelude::*;
use rowkey_core::{merge_salted_with, Scan};

use common::{range_of, value_of, Range};

const TABLE: TableDefinition<'_, &[u8], u32> = TableDefinition::new("rows");

/// Writes the rows' keys into a fresh redb database.
fn store<T: RowKey>(rows: &[T]) -> Database {
    let keys: Vec<Vec<u8>> = rows.iter().map(|r| r.encode_to_vec().unwrap()).collect();
    store_keys(&keys)
}

/// Writes keys (of any types) into a fresh redb database.
fn store_keys(keys: &[Vec<u8>]) -> Database {
    let db = Database::builder()
        .create_with_backend(InMemoryBackend::new())
        .unwrap();
    let tx = db.begin_write().unwrap();
    {
        let mut table = tx.open_table(TABLE).unwrap();
        for (i, k) in keys.iter().enumerate() {
            table.insert(k.as_slice(), i as u32).unwrap();
        }
    }
    tx.commit().unwrap();
    db
}

/// Runs a scan the way an application would: one store range per scan
/// range, lazily merged across buckets.
fn read(db: &Database, scan: &Scan) -> Vec<Vec<u8>> {
    let tx = db.begin_read().unwrap();
    let table = tx.open_table(TABLE).unwrap();
    let streams: Vec<_> = scan
        .ranges()
        .map(|r| {
            table
                .range::<&[u8]>(r.bounds())
                .unwrap()
                .map(|e| e.map(|(k, v)| (k.value().to_vec(), v.value())))
        })
        .collect();
    let merged: Vec<_> = if scan.range_count() > 1 {
        merge_salted_with(scan.head_len(), streams)
            .map(|r| r.unwrap().0)
            .collect()
    } else {
        streams
            .into_iter()
            .flatten()
            .map(|r| r.unwrap().0)
            .collect()
    };
    merged
}

/// The scan returns exactly the rows `pred` selects, in the order of the
/// keys after the salt byte; `contains` agrees for every stored row.
fn check<T>(
    db: &Database,
    rows: &[T],
    salted: bool,
    what: &str,
    scan: &Scan,
    pred: impl Fn(&T) -> bool,
) where
    T: RowKey + for<'a> DecodeRowKey<'a> + Debug,
{
    let expected = common::expected_keys(rows, salted, &pred);
    let actual = read(db, scan);
    if actual != expected {
        let show = |ks: &[Vec<u8>]| {
            ks.iter()
                .map(|k| format!("{:?}", T::decode(k).unwrap()))
                .collect::<Vec<_>>()
        };
        panic!(
            "{what}: {scan:?}\n got      {:?}\n expected {:?}",
            show(&actual),
            show(&expected)
        );
    }
    for r in rows {
        let k = r.encode_to_vec().unwrap();
        assert_eq!(
            scan.ranges().any(|range| range.contains(&k)),
            pred(r),
            "{what}: contains({r:?})"
        );
    }
    // Paging with `Scan::after` returns the same rows, none twice.
    let mut paged = Vec::new();
    let mut rest = scan.clone();
    for _ in 0..=expected.len() / 16 + 1 {
        let page: Vec<Vec<u8>> = read(db, &rest).into_iter().take(16).collect();
        let Some(last) = page.last() else { break };
        rest = rest.after(last);
        paged.extend(page);
    }
    assert!(paged == expected, "{what}: paged through {scan:?}");
}

fn in_range<T: PartialOrd>(r: &(Bound<T>, Bound<T>), v: &T) -> bool {
    r.contains(v)
}

fn bytes_ref(r: &(Bound<Vec<u8>>, Bound<Vec<u8>>)) -> (Bound<&[u8]>, Bound<&[u8]>) {
    (
        r.0.as_ref().map(Vec::as_slice),
        r.1.as_ref().map(Vec::as_slice),
    )
}

// Edge-value pools: rows draw from them so equality scans hit many rows,
// scans draw from them plus values absent from the data.
const U32S: &[u32] = &[0, 1, 2, 0xFF, u32::MAX - 1, u32::MAX];
const I64S: &[i64] = &[
    i64::MIN,
    -1,
    0,
    1,
    1_700_000_000_000,
    i64::MAX - 1,
    i64::MAX,
];
const KINDS: &[&str] = &["", "a", "ab", "b", "\u{7f}", "\u{ff}zz"];
fn blobs() -> Vec<Vec<u8>> {
    vec![
        vec![],
        vec![0],
        vec![0, 0xFF],
        vec![0xFF],
        vec![0xFF, 0xFF],
        vec![1],
        vec![0xFF, 0],
        vec![0, 0],
    ]
}

// ---------- layout A: unsalted, desc_ts, fixed, raw last ----------

#[derive(RowKey, Debug, Clone, PartialEq)]
struct A {
    user: u32,
    #[desc_ts]
    ts: i64,
    #[fixed(4)]
    kind: String,
    note: Vec<u8>,
}

fn a_rows() -> impl Strategy<Value = Vec<A>> {
    let row = (
        prop::sample::select(U32S),
        prop_oneof![prop::sample::select(I64S), any::<i64>()],
        prop::sample::select(KINDS),
        prop::sample::select(blobs()),
    )
        .prop_map(|(user, ts, kind, note)| A {
            user,
            ts,
            kind: kind.into(),
            note,
        });
    prop::collection::vec(row, 1..120)
}

/// The values one round of layout A's scans uses.
#[derive(Debug, Clone)]
struct QueryA {
    u: u32,
    t: i64,
    k: &'static str,
    n: Vec<u8>,
    ur: Range<u32>,
    tr: Range<i64>,
    kr: Range<&'static str>,
    nr: Range<Vec<u8>>,
}

fn query_a() -> impl Strategy<Value = QueryA> {
    (
        (
            value_of(U32S),
            value_of(I64S),
            value_of(KINDS),
            value_of(&blobs()),
        ),
        (
            range_of(U32S),
            range_of(I64S),
            range_of(KINDS),
            range_of(&blobs()),
        ),
    )
        .prop_map(|((u, t, k, n), (ur, tr, kr, nr))| QueryA {
            u,
            t,
            k,
            n,
            ur,
            tr,
            kr,
            nr,
        })
}

fn scans_a(db: &Database, rows: &[A], q: &QueryA) {
    check(db, rows, false, "scan_all", &A::scan_all(), |_| true);
    let u = q.u;
    check(db, rows, false, "scan_by_user", &A::scan_by_user(u), |r| {
        r.user == u
    });
    let t = q.t;
    check(
        db,
        rows,
        false,
        "scan_by_user_ts",
        &A::scan_by_user_ts(u, t),
        |r| r.user == u && r.ts == t,
    );
    let k = q.k;
    let s = A::scan_by_user_ts_kind(u, t, k).unwrap();
    check(db, rows, false, "scan_by_user_ts_kind", &s, |r| {
        r.user == u && r.ts == t && r.kind == k
    });
    let n = &q.n;
    let s = A::scan_by_user_ts_kind_note(u, t, k, n).unwrap();
    check(db, rows, false, "scan_by_all", &s, |r| {
        r.user == u && r.ts == t && r.kind == k && r.note == *n
    });

    let ur = q.ur;
    check(
        db,
        rows,
        false,
        "range_by_user",
        &A::range_by_user(ur),
        |r| in_range(&ur, &r.user),
    );
    let tr = q.tr;
    check(
        db,
        rows,
        false,
        "range_by_user_ts",
        &A::range_by_user_ts(u, tr),
        |r| r.user == u && in_range(&tr, &r.ts),
    );
    let kr = q.kr;
    let s = A::range_by_user_ts_kind(u, t, kr).unwrap();
    check(db, rows, false, "range_by_user_ts_kind", &s, |r| {
        r.user == u && r.ts == t && in_range(&kr, &r.kind.as_str())
    });
    let nr = &q.nr;
    let s = A::range_by_user_ts_kind_note(u, t, k, bytes_ref(nr)).unwrap();
    check(db, rows, false, "range_by_..._note", &s, |r| {
        r.user == u && r.ts == t && r.kind == k && in_range(nr, &r.note)
    });
}

// ---------- layout B: salted by a leading field, desc string, reverse, unsigned desc_ts ----------

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 8, by(user))]
struct B {
    user: u16,
    #[desc]
    name: String,
    #[reverse]
    seq: u32,
    #[desc_ts]
    ts: u64,
}

const U16S: &[u16] = &[0, 1, 7, u16::MAX];
const U64TS: &[u64] = &[0, 1, 1_700_000_000_000, i64::MAX as u64];

fn b_rows() -> impl Strategy<Value = Vec<B>> {
    let row = (
        prop::sample::select(U16S),
        prop::sample::select(KINDS),
        prop::sample::select(U32S),
        prop::sample::select(U64TS),
    )
        .prop_map(|(user, name, seq, ts)| B {
            user,
            name: name.into(),
            seq,
            ts,
        });
    prop::collection::vec(row, 1..120)
}

/// `ts` bounds for layout B: up to `u64::MAX`, which cannot be stored.
const U64TS_BOUNDS: &[u64] = &[0, 1, 1_700_000_000_000, i64::MAX as u64, u64::MAX];

/// The values one round of layout B's scans uses.
#[derive(Debug, Clone)]
struct QueryB {
    u: u16,
    n: &'static str,
    q: u32,
    t: u64,
    ur: Range<u16>,
    nr: Range<&'static str>,
    tr: Range<u64>,
}

fn query_b() -> impl Strategy<Value = QueryB> {
    (
        (
            value_of(U16S),
            value_of(KINDS),
            value_of(U32S),
            value_of(U64TS),
        ),
        (range_of(U16S), range_of(KINDS), range_of(U64TS_BOUNDS)),
    )
        .prop_map(|((u, n, q, t), (ur, nr, tr))| QueryB {
            u,
            n,
            q,
            t,
            ur,
            nr,
            tr,
        })
}

fn scans_b(db: &Database, rows: &[B], query: &QueryB) {
    let all = B::scan_all();
    assert_eq!(all.range_count(), 8);
    check(db, rows, true, "scan_all", &all, |_| true);
    let u = query.u;
    let s = B::scan_by_user(u);
    assert_eq!(s.range_count(), 1, "the by field is fixed: one bucket");
    check(db, rows, true, "scan_by_user", &s, |r| r.user == u);
    let n = query.n;
    check(
        db,
        rows,
        true,
        "scan_by_user_name",
        &B::scan_by_user_name(u, n),
        |r| r.user == u && r.name == n,
    );
    let q = query.q;
    check(
        db,
        rows,
        true,
        "scan_by_user_name_seq",
        &B::scan_by_user_name_seq(u, n, q),
        |r| r.user == u && r.name == n && r.seq == q,
    );
    let t = query.t;
    let s = B::scan_by_user_name_seq_ts(u, n, q, t).unwrap();
    check(db, rows, true, "scan_by_all", &s, |r| {
        r.user == u && r.name == n && r.seq == q && r.ts == t
    });

    let ur = query.ur;
    let s = B::range_by_user(ur);
    assert!(
        s.is_empty() || s.range_count() == 8,
        "a range over the by field fans out"
    );
    check(db, rows, true, "range_by_user", &s, |r| {
        in_range(&ur, &r.user)
    });
    let nr = query.nr;
    check(
        db,
        rows,
        true,
        "range_by_user_name",
        &B::range_by_user_name(u, nr),
        |r| r.user == u && in_range(&nr, &r.name.as_str()),
    );
    // No range_by_user_name_seq: `seq` is #[reverse]. A range after it:
    let mut tr = query.tr;
    if matches!(tr.0, Bound::Included(u64::MAX) | Bound::Excluded(u64::MAX)) {
        tr.0 = Bound::Unbounded;
    }
    match B::range_by_user_name_seq_ts(u, n, q, tr) {
        Ok(s) => check(db, rows, true, "range_by_..._ts", &s, |r| {
            r.user == u && r.name == n && r.seq == q && in_range(&tr, &r.ts)
        }),
        // A bound above i64::MAX cannot be stored: an error, not a wrong scan.
        Err(e) => assert!(
            matches!(e, EncodeError::TimestampOutOfRange { field: "ts", .. }),
            "{e}"
        ),
    }
}

// ---------- layout C: salted over all fields, Option first, escaped bytes ----------

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 5, hash = "java")]
struct C {
    a: Option<u8>,
    b: Vec<u8>,
    c: i16,
}

const OPTS: &[Option<u8>] = &[None, Some(0), Some(1), Some(0xFF)];
const I16S: &[i16] = &[i16::MIN, -1, 0, 1, i16::MAX];

fn c_rows() -> impl Strategy<Value = Vec<C>> {
    let row = (
        prop::sample::select(OPTS),
        prop::sample::select(blobs()),
        prop::sample::select(I16S),
    )
        .prop_map(|(a, b, c)| C { a, b, c });
    prop::collection::vec(row, 1..120)
}

/// The values one round of layout C's scans uses.
#[derive(Debug, Clone)]
struct QueryC {
    a: Option<u8>,
    b: Vec<u8>,
    c: i16,
    ar: Range<Option<u8>>,
    br: Range<Vec<u8>>,
    cr: Range<i16>,
}

fn query_c() -> impl Strategy<Value = QueryC> {
    (
        (value_of(OPTS), value_of(&blobs()), value_of(I16S)),
        (range_of(OPTS), range_of(&blobs()), range_of(I16S)),
    )
        .prop_map(|((a, b, c), (ar, br, cr))| QueryC {
            a,
            b,
            c,
            ar,
            br,
            cr,
        })
}

fn scans_c(db: &Database, rows: &[C], q: &QueryC) {
    check(db, rows, true, "scan_all", &C::scan_all(), |_| true);
    let a = q.a;
    check(db, rows, true, "scan_by_a", &C::scan_by_a(a), |r| r.a == a);
    let b = &q.b;
    check(db, rows, true, "scan_by_a_b", &C::scan_by_a_b(a, b), |r| {
        r.a == a && r.b == *b
    });
    let c = q.c;
    let s = C::scan_by_a_b_c(a, b, c);
    assert_eq!(s.range_count(), 1);
    check(db, rows, true, "scan_by_a_b_c", &s, |r| {
        r.a == a && r.b == *b && r.c == c
    });
    let ar = q.ar;
    check(db, rows, true, "range_by_a", &C::range_by_a(ar), |r| {
        in_range(&ar, &r.a)
    });
    let br = &q.br;
    check(
        db,
        rows,
        true,
        "range_by_a_b",
        &C::range_by_a_b(a, bytes_ref(br)),
        |r| r.a == a && in_range(br, &r.b),
    );
    let cr = q.cr;
    check(
        db,
        rows,
        true,
        "range_by_a_b_c",
        &C::range_by_a_b_c(a, b, cr),
        |r| r.a == a && r.b == *b && in_range(&cr, &r.c),
    );
}

// ---------- layout D: descending bytes first, Option<desc_ts>, raw Option last ----------

#[derive(RowKey, Debug, Clone, PartialEq)]
struct D {
    #[desc]
    tag: Vec<u8>,
    #[desc_ts]
    ts: Option<i64>,
    last: Option<String>,
}

const OPT_TS: &[Option<i64>] = &[None, Some(i64::MIN), Some(-1), Some(0), Some(i64::MAX)];
const OPT_S: &[Option<&str>] = &[None, Some(""), Some("a"), Some("ab"), Some("\u{ff}")];

fn d_rows() -> impl Strategy<Value = Vec<D>> {
    let row = (
        prop::sample::select(blobs()),
        prop::sample::select(OPT_TS),
        prop::sample::select(OPT_S),
    )
        .prop_map(|(tag, ts, last)| D {
            tag,
            ts,
            last: last.map(String::from),
        });
    prop::collection::vec(row, 1..120)
}

/// The values one round of layout D's scans uses.
#[derive(Debug, Clone)]
struct QueryD {
    t: Vec<u8>,
    ts: Option<i64>,
    l: Option<&'static str>,
    tr: Range<Vec<u8>>,
    tsr: Range<Option<i64>>,
    lr: Range<Option<&'static str>>,
}

fn query_d() -> impl Strategy<Value = QueryD> {
    (
        (value_of(&blobs()), value_of(OPT_TS), value_of(OPT_S)),
        (range_of(&blobs()), range_of(OPT_TS), range_of(OPT_S)),
    )
        .prop_map(|((t, ts, l), (tr, tsr, lr))| QueryD {
            t,
            ts,
            l,
            tr,
            tsr,
            lr,
        })
}

fn scans_d(db: &Database, rows: &[D], q: &QueryD) {
    check(db, rows, false, "scan_all", &D::scan_all(), |_| true);
    let t = &q.t;
    check(db, rows, false, "scan_by_tag", &D::scan_by_tag(t), |r| {
        r.tag == *t
    });
    let tr = &q.tr;
    check(
        db,
        rows,
        false,
        "range_by_tag",
        &D::range_by_tag(bytes_ref(tr)),
        |r| in_range(tr, &r.tag),
    );
    let ts = q.ts;
    check(
        db,
        rows,
        false,
        "scan_by_tag_ts",
        &D::scan_by_tag_ts(t, ts),
        |r| r.tag == *t && r.ts == ts,
    );
    let tsr = q.tsr;
    check(
        db,
        rows,
        false,
        "range_by_tag_ts",
        &D::range_by_tag_ts(t, tsr),
        |r| r.tag == *t && in_range(&tsr, &r.ts),
    );
    let l = q.l;
    check(
        db,
        rows,
        false,
        "scan_by_all",
        &D::scan_by_tag_ts_last(t, ts, l),
        |r| r.tag == *t && r.ts == ts && r.last.as_deref() == l,
    );
    let lr = q.lr;
    check(
        db,
        rows,
        false,
        "range_by_..._last",
        &D::range_by_tag_ts_last(t, ts, lr),
        |r| r.tag == *t && r.ts == ts && in_range(&lr, &r.last.as_deref()),
    );
}

// Failures are saved to (and replayed from) scans.proptest-regressions.
proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/scans.proptest-regressions"))), ..ProptestConfig::default() })]

    #[test]
    fn layout_a_unsalted(rows in a_rows(), queries in prop::collection::vec(query_a(), 1..6)) {
        let db = store(&rows);
        for q in &queries { scans_a(&db, &rows, q); }
    }

    #[test]
    fn layout_b_salted_by_prefix(rows in b_rows(), queries in prop::collection::vec(query_b(), 1..6)) {
        let db = store(&rows);
        for q in &queries { scans_b(&db, &rows, q); }
    }

    #[test]
    fn layout_c_salted_java_all_fields(rows in c_rows(), queries in prop::collection::vec(query_c(), 1..6)) {
        let db = store(&rows);
        for q in &queries { scans_c(&db, &rows, q); }
    }

    #[test]
    fn layout_d_desc_and_options(rows in d_rows(), queries in prop::collection::vec(query_d(), 1..6)) {
        let db = store(&rows);
        for q in &queries { scans_d(&db, &rows, q); }
    }
}

/// The README's promise, spelled out: one user's last hour, newest first,
/// from one bucket; everything merged back into key order.
#[test]
fn newest_first_for_one_user_and_merged_for_all() {
    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[salt(buckets = 16, by(user_id))]
    struct UserEvent {
        user_id: u64,
        #[desc_ts]
        ts_millis: i64,
    }
    let now = 1_700_000_000_000i64;
    let rows: Vec<UserEvent> = (0..2_000)
        .map(|i| UserEvent {
            user_id: i % 7,
            ts_millis: now - (i as i64) * 10_000,
        })
        .collect();
    let db = store(&rows);
    let scan = UserEvent::range_by_user_id_ts_millis(3, now - 3_600_000..now + 1);
    assert_eq!(scan.range_count(), 1);
    let got: Vec<UserEvent> = read(&db, &scan)
        .iter()
        .map(|k| UserEvent::decode(k).unwrap())
        .collect();
    let mut expected: Vec<UserEvent> = rows
        .iter()
        .filter(|r| r.user_id == 3 && r.ts_millis >= now - 3_600_000)
        .cloned()
        .collect();
    expected.sort_by_key(|r| Reverse(r.ts_millis));
    assert!(!expected.is_empty());
    assert_eq!(got, expected, "newest first");

    let all: Vec<UserEvent> = read(&db, &UserEvent::scan_all())
        .iter()
        .map(|k| UserEvent::decode(k).unwrap())
        .collect();
    let mut sorted = rows.clone();
    sorted.sort_by_key(|r| (r.user_id, Reverse(r.ts_millis)));
    assert_eq!(
        all, sorted,
        "merged across 16 buckets into (user, newest first) order"
    );
}

mod families;
mod ordered_code;
mod text_keys;
