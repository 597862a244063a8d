//! Key families: three kinds of rows in one table, and inverted ranges.

use super::*;

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
