//! Generated scans against a real sorted store (redb): for random rows of
//! several layouts and random `scan_by_*` / `range_by_*` scans with edge
//! values, the rows the store returns for the scan's ranges (merged across
//! salt buckets) are exactly the rows a plain filter over the decoded values
//! selects, in key order. Rows and scans are both proptest strategies, so a
//! failure shrinks to a few rows and one small scan.

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

// ---------- text keys ----------

// Layout E: the HBase guide's call records, `phone % 10 _ phone _ MAX - ts _ note`.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(text, sep = "_")]
#[salt(buckets = 10, by(phone), hash = "mod")]
struct E {
    #[digits(11)]
    phone: u64,
    #[desc_ts]
    ts: i64,
    note: String,
}

const PHONES: &[u64] = &[0, 9, 10, 18518885160, 18518885161, 99999999999];
const TS_TEXT: &[i64] = &[0, 1, 1_638_620_506_000, i64::MAX - 1, i64::MAX];
/// Last-field strings: empty, with the separator, with bytes below it.
const NOTES: &[&str] = &["", "_", "a", "a_b", "a0", "ab", "~"];

#[derive(Debug, Clone)]
struct QueryE {
    p: u64,
    t: i64,
    n: &'static str,
    pr: Range<u64>,
    tr: Range<i64>,
    nr: Range<&'static str>,
}

fn e_rows() -> impl Strategy<Value = Vec<E>> {
    let row = (value_of(PHONES), value_of(TS_TEXT), value_of(NOTES)).prop_map(|(phone, ts, n)| E {
        phone,
        ts,
        note: n.into(),
    });
    prop::collection::vec(row, 1..100)
}

/// `ts` bounds include a negative one, which a text key cannot store.
const TS_TEXT_BOUNDS: &[i64] = &[-1, 0, 1, 1_638_620_506_000, i64::MAX];

fn query_e() -> impl Strategy<Value = QueryE> {
    (
        (value_of(PHONES), value_of(TS_TEXT), value_of(NOTES)),
        (range_of(PHONES), range_of(TS_TEXT_BOUNDS), range_of(NOTES)),
    )
        .prop_map(|((p, t, n), (pr, tr, nr))| QueryE {
            p,
            t,
            n,
            pr,
            tr,
            nr,
        })
}

fn scans_e(db: &Database, rows: &[E], q: &QueryE) {
    let all = E::scan_all();
    assert_eq!(all.range_count(), 10);
    assert_eq!(all.head_len(), 2);
    check(db, rows, true, "E scan_all", &all, |_| true);
    let p = q.p;
    let s = E::scan_by_phone(p).unwrap();
    assert_eq!(s.range_count(), 1, "mod salt by phone: one bucket");
    check(db, rows, true, "E scan_by_phone", &s, |r| r.phone == p);
    let pr = q.pr;
    check(
        db,
        rows,
        true,
        "E range_by_phone",
        &E::range_by_phone(pr).unwrap(),
        |r| in_range(&pr, &r.phone),
    );
    let t = q.t;
    let s = E::scan_by_phone_ts(p, t).unwrap();
    check(db, rows, true, "E scan_by_phone_ts", &s, |r| {
        r.phone == p && r.ts == t
    });
    let tr = q.tr;
    match E::range_by_phone_ts(p, tr) {
        Ok(s) => check(db, rows, true, "E range_by_phone_ts", &s, |r| {
            r.phone == p && in_range(&tr, &r.ts)
        }),
        Err(e) => assert!(
            matches!(e, EncodeError::NegativeTimestamp { field: "ts", .. }),
            "{e}"
        ),
    }
    let n = q.n;
    let s = E::scan_by_phone_ts_note(p, t, n).unwrap();
    check(db, rows, true, "E scan_by_all", &s, |r| {
        r.phone == p && r.ts == t && r.note == n
    });
    let nr = q.nr;
    let s = E::range_by_phone_ts_note(p, t, nr).unwrap();
    check(db, rows, true, "E range_by_..._note", &s, |r| {
        r.phone == p && r.ts == t && in_range(&nr, &r.note.as_str())
    });
}

// Layout F: `#` separator, salted by a delimited string (fan-out) into 12
// buckets (two digits, so a merge must skip three bytes), signed, reversed
// and descending integers, strings near the separator.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(text, sep = "#")]
#[salt(buckets = 12, by(user))]
struct F {
    user: String,
    seq: i32,
    #[desc]
    #[digits(3)]
    score: u16,
    #[reverse]
    id: u32,
    tail: String,
}

/// Delimited strings: bytes below `#` (`!`, `"`), above it, prefixes of
/// each other. None contains `#` (that is an encode error).
const USERS: &[&str] = &["", "a", "a!", "a\"", "a$", "a0", "ab", "b"];
const SEQS: &[i32] = &[i32::MIN, -10, -9, -1, 0, 1, 9, 10, i32::MAX];
const SCORES: &[u16] = &[0, 1, 99, 100, 999];

#[derive(Debug, Clone)]
struct QueryF {
    u: &'static str,
    s: i32,
    c: u16,
    sr: Range<i32>,
    cr: Range<u16>,
}

fn f_rows() -> impl Strategy<Value = Vec<F>> {
    let row = (
        value_of(USERS),
        value_of(SEQS),
        value_of(SCORES),
        value_of(U32S),
        value_of(NOTES),
    )
        .prop_map(|(u, seq, score, id, t)| F {
            user: u.into(),
            seq,
            score,
            id,
            tail: t.into(),
        });
    prop::collection::vec(row, 1..100)
}

fn query_f() -> impl Strategy<Value = QueryF> {
    (
        (value_of(USERS), value_of(SEQS), value_of(SCORES)),
        (range_of(SEQS), range_of(SCORES)),
    )
        .prop_map(|((u, s, c), (sr, cr))| QueryF { u, s, c, sr, cr })
}

fn scans_f(db: &Database, rows: &[F], q: &QueryF) {
    check(db, rows, true, "F scan_all", &F::scan_all(), |_| true);
    let u = q.u;
    let s = F::scan_by_user(u).unwrap();
    assert_eq!(s.range_count(), 1, "salted by user: one bucket");
    check(db, rows, true, "F scan_by_user", &s, |r| r.user == u);
    // No range_by_user: a delimited string's bytes do not sort by value.
    let sr = q.sr;
    let s = F::range_by_user_seq(u, sr).unwrap();
    check(db, rows, true, "F range_by_user_seq", &s, |r| {
        r.user == u && in_range(&sr, &r.seq)
    });
    let sq = q.s;
    let s = F::scan_by_user_seq(u, sq).unwrap();
    check(db, rows, true, "F scan_by_user_seq", &s, |r| {
        r.user == u && r.seq == sq
    });
    let cr = q.cr;
    let s = F::range_by_user_seq_score(u, sq, cr).unwrap();
    check(db, rows, true, "F range_by_..._score (desc)", &s, |r| {
        r.user == u && r.seq == sq && in_range(&cr, &r.score)
    });
    let c = q.c;
    let s = F::scan_by_user_seq_score(u, sq, c).unwrap();
    check(db, rows, true, "F scan_by_..._score", &s, |r| {
        r.user == u && r.seq == sq && r.score == c
    });
}

// Layout G: unsalted, a two-byte separator, a padded string and a
// `desc_ts(max = 9999999999)` in seconds.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(text, sep = "::")]
struct G {
    #[fixed(4, pad = b' ')]
    tag: String,
    #[desc_ts(max = 9999999999)]
    ts: u64,
    name: String,
}

const TAGS: &[&str] = &["", "a", "a:", "ab", "abcd", "b"];
const SECS: &[u64] = &[0, 1, 1_638_620_506, 9_999_999_998, 9_999_999_999];
const NAMES: &[&str] = &["", ":", "::", "a", "a::b"];

#[derive(Debug, Clone)]
struct QueryG {
    t: &'static str,
    s: u64,
    tr: Range<&'static str>,
    sr: Range<u64>,
}

fn g_rows() -> impl Strategy<Value = Vec<G>> {
    let row = (value_of(TAGS), value_of(SECS), value_of(NAMES)).prop_map(|(t, ts, n)| G {
        tag: t.into(),
        ts,
        name: n.into(),
    });
    prop::collection::vec(row, 1..100)
}

fn query_g() -> impl Strategy<Value = QueryG> {
    (
        (value_of(TAGS), value_of(SECS)),
        (range_of(TAGS), range_of(SECS)),
    )
        .prop_map(|((t, s), (tr, sr))| QueryG { t, s, tr, sr })
}

fn scans_g(db: &Database, rows: &[G], q: &QueryG) {
    check(db, rows, false, "G scan_all", &G::scan_all(), |_| true);
    let t = q.t;
    let tr = q.tr;
    let s = G::range_by_tag(tr).unwrap();
    check(db, rows, false, "G range_by_tag", &s, |r| {
        in_range(&tr, &r.tag.as_str())
    });
    let sr = q.sr;
    let s = G::range_by_tag_ts(t, sr).unwrap();
    check(db, rows, false, "G range_by_tag_ts", &s, |r| {
        r.tag == t && in_range(&sr, &r.ts)
    });
    let sv = q.s;
    let s = G::scan_by_tag_ts(t, sv).unwrap();
    check(db, rows, false, "G scan_by_tag_ts", &s, |r| {
        r.tag == t && r.ts == sv
    });
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/scans.proptest-regressions"))), ..ProptestConfig::default() })]

    #[test]
    fn text_layout_e_mod_salt_desc_ts(rows in e_rows(), queries in prop::collection::vec(query_e(), 1..6)) {
        let db = store(&rows);
        for q in &queries { scans_e(&db, &rows, q); }
    }

    #[test]
    fn text_layout_f_hash_salt_signed_desc_reverse(rows in f_rows(), queries in prop::collection::vec(query_f(), 1..6)) {
        let db = store(&rows);
        for q in &queries { scans_f(&db, &rows, q); }
    }

    #[test]
    fn text_layout_g_two_byte_separator(rows in g_rows(), queries in prop::collection::vec(query_g(), 1..6)) {
        let db = store(&rows);
        for q in &queries { scans_g(&db, &rows, q); }
    }
}

// ---------- key families: three kinds of rows in one table ----------

/// Data rows, newest first per order.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "D")]
struct FamOrder {
    id: u32,
    #[desc_ts]
    ts: i64,
}

/// How an order was placed.
#[derive(KeyField, Debug, Clone, Copy, PartialEq, PartialOrd)]
#[repr(u8)]
enum FamKind {
    Web = 1,
    Store = 2,
    Phone = 0xFF,
}

/// Index rows, salted within their family, pointing at an order key.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "I")]
#[salt(buckets = 6, by(customer))]
struct FamIndex {
    customer: String,
    kind: FamKind,
    order: FamOrder,
}

/// A text family in the same table.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(text, sep = "_", prefix = "T")]
struct FamTag {
    tag: String,
    #[digits(5)]
    n: u32,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
enum FamRow {
    Order(FamOrder),
    Index(FamIndex),
    Tag(FamTag),
}

const FAM_IDS: &[u32] = &[0, 1, 0xFF, u32::MAX];
const FAM_TS: &[i64] = &[i64::MIN, -1, 0, 1_700_000_000_000, i64::MAX];
const FAM_CUSTOMERS: &[&str] = &["", "a", "ab", "b"];
const FAM_KINDS: &[FamKind] = &[FamKind::Web, FamKind::Store, FamKind::Phone];
const FAM_TAGS: &[&str] = &["", "D", "I", "T-x", "a"];
const FAM_NS: &[u32] = &[0, 1, 99_999];

fn fam_order() -> impl Strategy<Value = FamOrder> {
    (value_of(FAM_IDS), value_of(FAM_TS)).prop_map(|(id, ts)| FamOrder { id, ts })
}

fn fam_rows() -> impl Strategy<Value = (Vec<FamOrder>, Vec<FamIndex>, Vec<FamTag>)> {
    let index =
        (value_of(FAM_CUSTOMERS), value_of(FAM_KINDS), fam_order()).prop_map(|(c, kind, order)| {
            FamIndex {
                customer: c.into(),
                kind,
                order,
            }
        });
    let tag = (value_of(FAM_TAGS), value_of(FAM_NS)).prop_map(|(t, n)| FamTag { tag: t.into(), n });
    (
        prop::collection::vec(fam_order(), 0..40),
        prop::collection::vec(index, 0..40),
        prop::collection::vec(tag, 0..40),
    )
}

#[derive(Debug, Clone)]
struct QueryFam {
    id: u32,
    tr: Range<i64>,
    c: &'static str,
    k: FamKind,
    kr: Range<FamKind>,
    t: &'static str,
    nr: Range<u32>,
}

fn query_fam() -> impl Strategy<Value = QueryFam> {
    (
        (value_of(FAM_IDS), range_of(FAM_TS), value_of(FAM_CUSTOMERS)),
        (value_of(FAM_KINDS), range_of(FAM_KINDS)),
        (value_of(FAM_TAGS), range_of(FAM_NS)),
    )
        .prop_map(|((id, tr, c), (k, kr), (t, nr))| QueryFam {
            id,
            tr,
            c,
            k,
            kr,
            t,
            nr,
        })
}

fn scans_fam(db: &Database, rows: &(Vec<FamOrder>, Vec<FamIndex>, Vec<FamTag>), q: &QueryFam) {
    let (orders, index, tags) = rows;
    // scan_all of each family returns that family's rows and no other's.
    check(
        db,
        orders,
        false,
        "FamOrder scan_all",
        &FamOrder::scan_all(),
        |_| true,
    );
    check(
        db,
        index,
        true,
        "FamIndex scan_all",
        &FamIndex::scan_all(),
        |_| true,
    );
    check(
        db,
        tags,
        false,
        "FamTag scan_all",
        &FamTag::scan_all(),
        |_| true,
    );
    let id = q.id;
    check(
        db,
        orders,
        false,
        "FamOrder scan_by_id",
        &FamOrder::scan_by_id(id),
        |r| r.id == id,
    );
    let tr = q.tr;
    let s = FamOrder::range_by_id_ts(id, tr);
    check(db, orders, false, "FamOrder range_by_id_ts", &s, |r| {
        r.id == id && in_range(&tr, &r.ts)
    });
    let c = q.c;
    let s = FamIndex::scan_by_customer(c);
    assert_eq!(s.range_count(), 1);
    check(db, index, true, "FamIndex scan_by_customer", &s, |r| {
        r.customer == c
    });
    let kr = q.kr;
    let s = FamIndex::range_by_customer_kind(c, kr);
    check(
        db,
        index,
        true,
        "FamIndex range_by_customer_kind",
        &s,
        |r| r.customer == c && in_range(&kr, &r.kind),
    );
    let k = q.k;
    let s = FamIndex::scan_by_customer_kind_order(c, k, FamOrder { id, ts: 0 });
    check(db, index, true, "FamIndex scan_by_..._order", &s, |r| {
        r.customer == c && r.kind == k && r.order == FamOrder { id, ts: 0 }
    });
    let t = q.t;
    let nr = q.nr;
    let s = FamTag::range_by_tag_n(t, nr).unwrap();
    check(db, tags, false, "FamTag range_by_tag_n", &s, |r| {
        r.tag == t && in_range(&nr, &r.n)
    });

    // The enum's full scan decodes every row of the table, each as its family.
    let all = read(db, &FamRow::scan_all());
    let decoded: Vec<FamRow> = all.iter().map(|k| FamRow::decode(k).unwrap()).collect();
    let count = |f: &str| decoded.iter().filter(|r| r.family() == f).count();
    assert_eq!(count("Order"), distinct_keys(orders));
    assert_eq!(count("Index"), distinct_keys(index));
    assert_eq!(count("Tag"), distinct_keys(tags));
    assert_eq!(decoded.len(), all.len());
}

/// The number of distinct keys of `rows`.
fn distinct_keys<T: RowKey>(rows: &[T]) -> usize {
    let mut keys: Vec<Vec<u8>> = rows.iter().map(|r| r.encode_to_vec().unwrap()).collect();
    keys.sort();
    keys.dedup();
    keys.len()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/scans.proptest-regressions"))), ..ProptestConfig::default() })]

    #[test]
    fn three_families_in_one_table(rows in fam_rows(), queries in prop::collection::vec(query_fam(), 1..6)) {
        let mut keys: Vec<Vec<u8>> = rows.0.iter().map(|r| r.encode_to_vec().unwrap()).collect();
        keys.extend(rows.1.iter().map(|r| r.encode_to_vec().unwrap()));
        keys.extend(rows.2.iter().map(|r| r.encode_to_vec().unwrap()));
        let db = store_keys(&keys);
        for q in &queries { scans_fam(&db, &rows, q); }
    }
}

mod inverted_ranges {
    use rowkey_core::prelude::*;

    #[derive(RowKey, Debug, PartialEq)]
    #[salt(buckets = 4, by(user))]
    struct Newest {
        user: u32,
        #[desc_ts]
        ts: i64,
        #[fixed(4)]
        kind: String,
    }

    /// Newest-first keys take ranges in value order; the start after the
    /// end, as a hand-written newest-first scan would pass it, panics
    /// naming the field.
    #[test]
    #[should_panic(expected = "range over field `ts`: its start is after its end")]
    fn a_desc_range_written_newest_first_panics() {
        let (newest, oldest) = (2_000, 1_000);
        let _ = Newest::range_by_user_ts(7, newest..oldest);
    }

    #[test]
    #[should_panic(expected = "range over field `user`: its start is after its end")]
    fn an_inverted_range_on_an_ascending_field_panics() {
        let (hi, lo) = (9, 3);
        let _ = Newest::range_by_user(hi..=lo);
    }

    #[test]
    #[should_panic(expected = "range over field `kind`")]
    fn an_inverted_string_range_panics() {
        let _ = Newest::range_by_user_ts_kind(7, 5, "b".."a");
    }

    #[test]
    fn empty_and_equal_ranges_are_valid() {
        assert!(Newest::range_by_user_ts(7, 1_000..1_000).is_empty());
        assert!(Newest::range_by_user(3..3).is_empty());
        let both_excluded = (std::ops::Bound::Excluded(3), std::ops::Bound::Excluded(3));
        assert!(Newest::range_by_user(both_excluded).is_empty());
        let one = Newest::range_by_user_ts(7, 1_000..=1_000);
        assert_eq!(one.range_count(), 1);
        assert!(!one.is_empty());
    }
}

/// Scan bounds longer than the 64 bytes a key buffer holds inline move to
/// the heap (after a short leading field, so the inline bytes are copied
/// over) and stay correct.
#[test]
fn scans_over_long_keys_leave_the_inline_buffer() {
    #[derive(RowKey, Debug, PartialEq)]
    struct Doc {
        tenant: u32,
        path: String,
        rev: u32,
    }
    let long = "d/".repeat(60);
    let doc = |rev| {
        let path = long.clone();
        Doc {
            tenant: 3,
            path,
            rev,
        }
        .encode_to_vec()
        .unwrap()
    };
    let (key, other) = (doc(7), doc(9));
    assert!(key.len() > 100);
    let eq = Doc::scan_by_tenant_path(3, &long);
    assert!(eq.ranges().all(|r| r.contains(&key)), "{eq:?}");
    let range = Doc::range_by_tenant_path_rev(3, &long, 5..9);
    assert!(range.ranges().all(|r| r.contains(&key)), "{range:?}");
    assert!(!range.ranges().any(|r| r.contains(&other)));
    let page = eq.after(&key);
    assert!(!page.ranges().any(|r| r.contains(&key)));
    assert!(page.ranges().all(|r| r.contains(&other)));
}

// ---------- Bigtable OrderedCodeBytes keys (#[rowkey(ordered_code)]) ----------
//
// A key leaves out its trailing empty ascending strings and the terminator
// before them, so the first key of a prefix's rows can be shorter than the
// prefix: every scan below has rows with empty strings at the end.

const OC_INTS: &[i64] = &[i64::MIN, -65, -1, 0, 1, 63, 64, 256, i64::MAX];
const OC_I32S: &[i32] = &[i32::MIN, -1, 0, 1, 256, i32::MAX];
const OC_STRS: &[&str] = &["", "\0", "\0\0", "a", "a\0", "a\0b", "ab", "b", "\u{ff}"];

/// Unsalted, a descending string between ascending ones, two trailing
/// strings that keys leave out when empty.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(ordered_code)]
struct Oc {
    user: i64,
    name: String,
    #[desc]
    tag: String,
    note: String,
    blob: Vec<u8>,
}

fn oc_rows() -> impl Strategy<Value = Vec<Oc>> {
    let row = (
        value_of(OC_INTS),
        value_of(OC_STRS),
        value_of(OC_STRS),
        value_of(OC_STRS),
        value_of(&blobs()),
    )
        .prop_map(|(user, name, tag, note, blob)| Oc {
            user,
            name: name.into(),
            tag: tag.into(),
            note: note.into(),
            blob,
        });
    prop::collection::vec(row, 1..120)
}

/// A query of layout `Oc`: its equality values are a stored row's when
/// `row` is set (with five fields, random values would rarely meet one).
#[derive(Debug, Clone)]
struct QueryOc {
    row: Option<prop::sample::Index>,
    u: i64,
    s: [&'static str; 3],
    ur: Range<i64>,
    sr: [Range<&'static str>; 3],
    br: Range<Vec<u8>>,
}

fn query_oc() -> impl Strategy<Value = QueryOc> {
    (
        prop::option::of(any::<prop::sample::Index>()),
        value_of(OC_INTS),
        [value_of(OC_STRS), value_of(OC_STRS), value_of(OC_STRS)],
        range_of(OC_INTS),
        [range_of(OC_STRS), range_of(OC_STRS), range_of(OC_STRS)],
        range_of(&blobs()),
    )
        .prop_map(|(row, u, s, ur, sr, br)| QueryOc {
            row,
            u,
            s,
            ur,
            sr,
            br,
        })
}

fn scans_oc(db: &Database, rows: &[Oc], q: &QueryOc) {
    let (mut u, [mut n, mut t, mut o]) = (q.u, q.s.map(String::from));
    if let Some(i) = q.row {
        let r = i.get(rows);
        (u, n, t, o) = (r.user, r.name.clone(), r.tag.clone(), r.note.clone());
    }
    let (n, t, o) = (n.as_str(), t.as_str(), o.as_str());
    check(db, rows, false, "scan_all", &Oc::scan_all(), |_| true);
    check(db, rows, false, "scan_by_user", &Oc::scan_by_user(u), |r| {
        r.user == u
    });
    let s = Oc::scan_by_user_name(u, n);
    check(db, rows, false, "scan_by_user_name", &s, |r| {
        r.user == u && r.name == n
    });
    let s = Oc::scan_by_user_name_tag(u, n, t);
    check(db, rows, false, "scan_by_user_name_tag", &s, |r| {
        r.user == u && r.name == n && r.tag == t
    });
    let s = Oc::scan_by_user_name_tag_note(u, n, t, o);
    check(db, rows, false, "scan_by_..._note", &s, |r| {
        r.user == u && r.name == n && r.tag == t && r.note == o
    });
    let b = q.br.0.clone();
    if let Bound::Included(b) | Bound::Excluded(b) = b {
        let s = Oc::scan_by_user_name_tag_note_blob(u, n, t, o, &b);
        check(db, rows, false, "scan_by_..._blob", &s, |r| {
            r.user == u && r.name == n && r.tag == t && r.note == o && r.blob == b
        });
    }
    let ur = q.ur;
    check(
        db,
        rows,
        false,
        "range_by_user",
        &Oc::range_by_user(ur),
        |r| in_range(&ur, &r.user),
    );
    let [nr, tr, or] = q.sr;
    let s = Oc::range_by_user_name(u, nr);
    check(db, rows, false, "range_by_user_name", &s, |r| {
        r.user == u && in_range(&nr, &r.name.as_str())
    });
    let s = Oc::range_by_user_name_tag(u, n, tr);
    check(db, rows, false, "range_by_user_name_tag", &s, |r| {
        r.user == u && r.name == n && in_range(&tr, &r.tag.as_str())
    });
    let s = Oc::range_by_user_name_tag_note(u, n, t, or);
    check(db, rows, false, "range_by_..._note", &s, |r| {
        r.user == u && r.name == n && r.tag == t && in_range(&or, &r.note.as_str())
    });
    let br = &q.br;
    let s = Oc::range_by_user_name_tag_note_blob(u, n, t, o, bytes_ref(br));
    check(db, rows, false, "range_by_..._blob", &s, |r| {
        r.user == u && r.name == n && r.tag == t && r.note == o && in_range(br, &r.blob)
    });
}

/// A family prefix and a salt (both struct fields), a descending `Int64`,
/// a trailing string.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(ordered_code, prefix = "o\0")]
#[salt(buckets = 8, by(user))]
struct OcSalted {
    user: i32,
    #[desc]
    ts: i64,
    name: String,
}

fn oc_salted_rows() -> impl Strategy<Value = Vec<OcSalted>> {
    let row =
        (value_of(OC_I32S), value_of(OC_INTS), value_of(OC_STRS)).prop_map(|(user, ts, name)| {
            OcSalted {
                user,
                ts,
                name: name.into(),
            }
        });
    prop::collection::vec(row, 1..120)
}

#[derive(Debug, Clone)]
struct QueryOcSalted {
    u: i32,
    t: i64,
    ur: Range<i32>,
    tr: Range<i64>,
    nr: Range<&'static str>,
}

fn query_oc_salted() -> impl Strategy<Value = QueryOcSalted> {
    (
        value_of(OC_I32S),
        value_of(OC_INTS),
        range_of(OC_I32S),
        range_of(OC_INTS),
        range_of(OC_STRS),
    )
        .prop_map(|(u, t, ur, tr, nr)| QueryOcSalted { u, t, ur, tr, nr })
}

fn scans_oc_salted(db: &Database, rows: &[OcSalted], q: &QueryOcSalted) {
    let (u, t) = (q.u, q.t);
    let all = OcSalted::scan_all();
    assert_eq!(all.range_count(), 8);
    check(db, rows, true, "scan_all", &all, |_| true);
    let s = OcSalted::scan_by_user(u);
    assert_eq!(s.range_count(), 1, "one bucket once user is fixed");
    check(db, rows, true, "scan_by_user", &s, |r| r.user == u);
    let s = OcSalted::scan_by_user_ts(u, t);
    check(db, rows, true, "scan_by_user_ts", &s, |r| {
        r.user == u && r.ts == t
    });
    let ur = q.ur;
    let s = OcSalted::range_by_user(ur);
    check(db, rows, true, "range_by_user", &s, |r| {
        in_range(&ur, &r.user)
    });
    let tr = q.tr;
    let s = OcSalted::range_by_user_ts(u, tr);
    check(db, rows, true, "range_by_user_ts", &s, |r| {
        r.user == u && in_range(&tr, &r.ts)
    });
    let nr = q.nr;
    let s = OcSalted::range_by_user_ts_name(u, t, nr);
    check(db, rows, true, "range_by_user_ts_name", &s, |r| {
        r.user == u && r.ts == t && in_range(&nr, &r.name.as_str())
    });
}

/// Only strings: a key of empty strings is `00 00`, the lowest key of a
/// prefix of empty strings is empty.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(ordered_code)]
struct OcStrings {
    a: String,
    b: Vec<u8>,
    c: String,
}

fn oc_strings_rows() -> impl Strategy<Value = Vec<OcStrings>> {
    let row = (value_of(OC_STRS), value_of(&blobs()), value_of(OC_STRS)).prop_map(|(a, b, c)| {
        OcStrings {
            a: a.into(),
            b,
            c: c.into(),
        }
    });
    prop::collection::vec(row, 1..120)
}

#[derive(Debug, Clone)]
struct QueryOcStrings {
    a: &'static str,
    b: Vec<u8>,
    ar: Range<&'static str>,
    br: Range<Vec<u8>>,
    cr: Range<&'static str>,
}

fn query_oc_strings() -> impl Strategy<Value = QueryOcStrings> {
    (
        value_of(OC_STRS),
        value_of(&blobs()),
        range_of(OC_STRS),
        range_of(&blobs()),
        range_of(OC_STRS),
    )
        .prop_map(|(a, b, ar, br, cr)| QueryOcStrings { a, b, ar, br, cr })
}

fn scans_oc_strings(db: &Database, rows: &[OcStrings], q: &QueryOcStrings) {
    let (a, b) = (q.a, &q.b);
    check(db, rows, false, "scan_all", &OcStrings::scan_all(), |_| {
        true
    });
    let s = OcStrings::scan_by_a(a);
    check(db, rows, false, "scan_by_a", &s, |r| r.a == a);
    let s = OcStrings::scan_by_a_b(a, b);
    check(db, rows, false, "scan_by_a_b", &s, |r| {
        r.a == a && r.b == *b
    });
    for c in OC_STRS {
        let s = OcStrings::scan_by_a_b_c(a, b, c);
        check(db, rows, false, "scan_by_a_b_c", &s, |r| {
            r.a == a && r.b == *b && r.c == *c
        });
    }
    let ar = q.ar;
    let s = OcStrings::range_by_a(ar);
    check(db, rows, false, "range_by_a", &s, |r| {
        in_range(&ar, &r.a.as_str())
    });
    let br = &q.br;
    let s = OcStrings::range_by_a_b(a, bytes_ref(br));
    check(db, rows, false, "range_by_a_b", &s, |r| {
        r.a == a && in_range(br, &r.b)
    });
    let cr = q.cr;
    let s = OcStrings::range_by_a_b_c(a, b, cr);
    check(db, rows, false, "range_by_a_b_c", &s, |r| {
        r.a == a && r.b == *b && in_range(&cr, &r.c.as_str())
    });
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/scans.proptest-regressions"))), ..ProptestConfig::default() })]

    #[test]
    fn ordered_code_unsalted_desc_string_trailing_strings(rows in oc_rows(), queries in prop::collection::vec(query_oc(), 1..6)) {
        let db = store(&rows);
        for q in &queries { scans_oc(&db, &rows, q); }
    }

    #[test]
    fn ordered_code_prefix_salt_desc_int64(rows in oc_salted_rows(), queries in prop::collection::vec(query_oc_salted(), 1..6)) {
        let db = store(&rows);
        for q in &queries { scans_oc_salted(&db, &rows, q); }
    }

    #[test]
    fn ordered_code_only_strings(rows in oc_strings_rows(), queries in prop::collection::vec(query_oc_strings(), 1..6)) {
        let db = store(&rows);
        for q in &queries { scans_oc_strings(&db, &rows, q); }
    }
}
