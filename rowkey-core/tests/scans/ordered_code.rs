//! Bigtable `OrderedCodeBytes` keys (`#[rowkey(ordered_code)]`).

use super::*;

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
