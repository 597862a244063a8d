//! Generated scans against a real sorted store (redb): for random rows of
//! several layouts and random `scan_by_*` / `range_by_*` scans with edge
//! values, the rows the store returns for the scan's ranges (merged across
//! salt buckets) are exactly the rows a plain filter over the decoded values
//! selects, in key order.

mod common;

use std::cmp::Reverse;
use std::fmt::Debug;
use std::ops::{Bound, RangeBounds};

use proptest::prelude::*;
use redb::backends::InMemoryBackend;
use redb::{Database, ReadableDatabase, TableDefinition};
use rowkey_core::prelude::*;
use rowkey_core::{merge_salted, Scan};

use common::Rng;

const TABLE: TableDefinition<'_, &[u8], u32> = TableDefinition::new("rows");

/// Writes the rows' keys into a fresh redb database.
fn store<T: RowKey>(rows: &[T]) -> Database {
    let db = Database::builder()
        .create_with_backend(InMemoryBackend::new())
        .unwrap();
    let tx = db.begin_write().unwrap();
    {
        let mut table = tx.open_table(TABLE).unwrap();
        for (i, r) in rows.iter().enumerate() {
            table
                .insert(r.encode_to_vec().unwrap().as_slice(), i as u32)
                .unwrap();
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
        merge_salted(streams).map(|r| r.unwrap().0).collect()
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
}

fn in_range<T: PartialOrd>(r: &(Bound<T>, Bound<T>), v: &T) -> bool {
    r.contains(v)
}

fn by_ref(r: &(Bound<String>, Bound<String>)) -> (Bound<&str>, Bound<&str>) {
    (
        r.0.as_ref().map(String::as_str),
        r.1.as_ref().map(String::as_str),
    )
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

fn scans_a(db: &Database, rows: &[A], rng: &mut Rng) {
    check(db, rows, false, "scan_all", &A::scan_all(), |_| true);
    let u = rng.pick(U32S);
    check(db, rows, false, "scan_by_user", &A::scan_by_user(u), |r| {
        r.user == u
    });
    let t = rng.pick(I64S);
    check(
        db,
        rows,
        false,
        "scan_by_user_ts",
        &A::scan_by_user_ts(u, t),
        |r| r.user == u && r.ts == t,
    );
    let k = rng.pick(KINDS);
    let s = A::scan_by_user_ts_kind(u, t, k).unwrap();
    check(db, rows, false, "scan_by_user_ts_kind", &s, |r| {
        r.user == u && r.ts == t && r.kind == k
    });
    let n = rng.pick(&blobs());
    let s = A::scan_by_user_ts_kind_note(u, t, k, &n).unwrap();
    check(db, rows, false, "scan_by_all", &s, |r| {
        r.user == u && r.ts == t && r.kind == k && r.note == n
    });

    let ur = rng.range(U32S);
    check(
        db,
        rows,
        false,
        "range_by_user",
        &A::range_by_user(ur),
        |r| in_range(&ur, &r.user),
    );
    let tr = rng.range(I64S);
    check(
        db,
        rows,
        false,
        "range_by_user_ts",
        &A::range_by_user_ts(u, tr),
        |r| r.user == u && in_range(&tr, &r.ts),
    );
    let kr: (Bound<String>, Bound<String>) = {
        let (a, b) = rng.range(KINDS);
        (a.map(String::from), b.map(String::from))
    };
    let s = A::range_by_user_ts_kind(u, t, by_ref(&kr)).unwrap();
    check(db, rows, false, "range_by_user_ts_kind", &s, |r| {
        r.user == u && r.ts == t && in_range(&kr, &r.kind)
    });
    let nr = rng.range(&blobs());
    let s = A::range_by_user_ts_kind_note(u, t, k, bytes_ref(&nr)).unwrap();
    check(db, rows, false, "range_by_..._note", &s, |r| {
        r.user == u && r.ts == t && r.kind == k && in_range(&nr, &r.note)
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

fn scans_b(db: &Database, rows: &[B], rng: &mut Rng) {
    let all = B::scan_all();
    assert_eq!(all.range_count(), 8);
    check(db, rows, true, "scan_all", &all, |_| true);
    let u = rng.pick(U16S);
    let s = B::scan_by_user(u);
    assert_eq!(s.range_count(), 1, "the by field is fixed: one bucket");
    check(db, rows, true, "scan_by_user", &s, |r| r.user == u);
    let n = rng.pick(KINDS);
    check(
        db,
        rows,
        true,
        "scan_by_user_name",
        &B::scan_by_user_name(u, n),
        |r| r.user == u && r.name == n,
    );
    let q = rng.pick(U32S);
    check(
        db,
        rows,
        true,
        "scan_by_user_name_seq",
        &B::scan_by_user_name_seq(u, n, q),
        |r| r.user == u && r.name == n && r.seq == q,
    );
    let t = rng.pick(U64TS);
    let s = B::scan_by_user_name_seq_ts(u, n, q, t).unwrap();
    check(db, rows, true, "scan_by_all", &s, |r| {
        r.user == u && r.name == n && r.seq == q && r.ts == t
    });

    let ur = rng.range(U16S);
    let s = B::range_by_user(ur);
    assert!(
        s.is_empty() || s.range_count() == 8,
        "a range over the by field fans out"
    );
    check(db, rows, true, "range_by_user", &s, |r| {
        in_range(&ur, &r.user)
    });
    let nr: (Bound<String>, Bound<String>) = {
        let (a, b) = rng.range(KINDS);
        (a.map(String::from), b.map(String::from))
    };
    check(
        db,
        rows,
        true,
        "range_by_user_name",
        &B::range_by_user_name(u, by_ref(&nr)),
        |r| r.user == u && in_range(&nr, &r.name),
    );
    // No range_by_user_name_seq: `seq` is #[reverse]. A range after it:
    let mut tr = rng.range(&[0u64, 1, 1_700_000_000_000, i64::MAX as u64, u64::MAX]);
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

fn scans_c(db: &Database, rows: &[C], rng: &mut Rng) {
    check(db, rows, true, "scan_all", &C::scan_all(), |_| true);
    let a = rng.pick(OPTS);
    check(db, rows, true, "scan_by_a", &C::scan_by_a(a), |r| r.a == a);
    let b = rng.pick(&blobs());
    check(db, rows, true, "scan_by_a_b", &C::scan_by_a_b(a, &b), |r| {
        r.a == a && r.b == b
    });
    let c = rng.pick(I16S);
    let s = C::scan_by_a_b_c(a, &b, c);
    assert_eq!(s.range_count(), 1);
    check(db, rows, true, "scan_by_a_b_c", &s, |r| {
        r.a == a && r.b == b && r.c == c
    });
    let ar = rng.range(OPTS);
    check(db, rows, true, "range_by_a", &C::range_by_a(ar), |r| {
        in_range(&ar, &r.a)
    });
    let br = rng.range(&blobs());
    check(
        db,
        rows,
        true,
        "range_by_a_b",
        &C::range_by_a_b(a, bytes_ref(&br)),
        |r| r.a == a && in_range(&br, &r.b),
    );
    let cr = rng.range(I16S);
    check(
        db,
        rows,
        true,
        "range_by_a_b_c",
        &C::range_by_a_b_c(a, &b, cr),
        |r| r.a == a && r.b == b && in_range(&cr, &r.c),
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

fn scans_d(db: &Database, rows: &[D], rng: &mut Rng) {
    check(db, rows, false, "scan_all", &D::scan_all(), |_| true);
    let t = rng.pick(&blobs());
    check(db, rows, false, "scan_by_tag", &D::scan_by_tag(&t), |r| {
        r.tag == t
    });
    let tr = rng.range(&blobs());
    check(
        db,
        rows,
        false,
        "range_by_tag",
        &D::range_by_tag(bytes_ref(&tr)),
        |r| in_range(&tr, &r.tag),
    );
    let ts = rng.pick(OPT_TS);
    check(
        db,
        rows,
        false,
        "scan_by_tag_ts",
        &D::scan_by_tag_ts(&t, ts),
        |r| r.tag == t && r.ts == ts,
    );
    let tsr = rng.range(OPT_TS);
    check(
        db,
        rows,
        false,
        "range_by_tag_ts",
        &D::range_by_tag_ts(&t, tsr),
        |r| r.tag == t && in_range(&tsr, &r.ts),
    );
    let l = rng.pick(OPT_S);
    check(
        db,
        rows,
        false,
        "scan_by_all",
        &D::scan_by_tag_ts_last(&t, ts, l),
        |r| r.tag == t && r.ts == ts && r.last.as_deref() == l,
    );
    let lr = rng.range(OPT_S);
    check(
        db,
        rows,
        false,
        "range_by_..._last",
        &D::range_by_tag_ts_last(&t, ts, lr),
        |r| r.tag == t && r.ts == ts && in_range(&lr, &r.last.as_deref()),
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn layout_a_unsalted(rows in a_rows(), seed in 1..u64::MAX) {
        let db = store(&rows);
        let mut rng = Rng(seed);
        for _ in 0..6 { scans_a(&db, &rows, &mut rng); }
    }

    #[test]
    fn layout_b_salted_by_prefix(rows in b_rows(), seed in 1..u64::MAX) {
        let db = store(&rows);
        let mut rng = Rng(seed);
        for _ in 0..6 { scans_b(&db, &rows, &mut rng); }
    }

    #[test]
    fn layout_c_salted_java_all_fields(rows in c_rows(), seed in 1..u64::MAX) {
        let db = store(&rows);
        let mut rng = Rng(seed);
        for _ in 0..6 { scans_c(&db, &rows, &mut rng); }
    }

    #[test]
    fn layout_d_desc_and_options(rows in d_rows(), seed in 1..u64::MAX) {
        let db = store(&rows);
        let mut rng = Rng(seed);
        for _ in 0..6 { scans_d(&db, &rows, &mut rng); }
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
