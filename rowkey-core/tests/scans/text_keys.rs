//! Text keys (`#[rowkey(text)]`): layouts E, F and G against the model.

use super::*;

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
