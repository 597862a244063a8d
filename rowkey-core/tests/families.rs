//! Key families: `#[rowkey(prefix)]` in both formats, enums over families,
//! `KeyField` enums as fields and nested keys; properties over each.

use std::cmp::{Ordering, Reverse};
use std::fmt::Debug;

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use rowkey_core::prelude::*;

/// Data rows.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "D")]
struct Order {
    id: u64,
}

/// Index rows, salted within the family.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = b"I")]
#[salt(buckets = 4, by(customer))]
struct ByCustomer {
    customer: String,
    #[desc_ts]
    ts: i64,
    order: Order,
}

/// A third family with a two-byte prefix that starts with neither.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = b"\x00M")]
struct Meta {
    #[fixed(4)]
    name: String,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
enum Row {
    Order(Order),
    ByCustomer(ByCustomer),
    Meta(Meta),
}

#[test]
fn prefix_comes_first_then_the_salt() {
    let o = Order { id: 7 };
    assert_eq!(o.encode(), *b"D\0\0\0\0\0\0\0\x07");
    assert_eq!(Order::PREFIX, b"D");
    assert_eq!(Order::LEN, 9);
    let b = ByCustomer {
        customer: "alice".into(),
        ts: 5,
        order: o.clone(),
    };
    let key = b.encode_to_vec().unwrap();
    assert_eq!(key[0], b'I');
    assert_eq!(key[1], b.bucket());
    assert_eq!(ByCustomer::HEAD_LEN, 2, "prefix and salt byte");
    assert_eq!(ByCustomer::decode(&key).unwrap(), b);
    let splits = ByCustomer::split_points();
    assert_eq!(
        splits,
        [b"I\x01".to_vec(), b"I\x02".to_vec(), b"I\x03".to_vec()]
    );
    // Every scan stays inside the family.
    for r in ByCustomer::scan_all().ranges() {
        assert_eq!(r.start()[0], b'I');
        assert_eq!(r.stop()[0], b'I');
    }
    let all = Order::scan_all();
    let r = all.ranges().next().unwrap();
    assert_eq!((r.start(), r.stop()), (&b"D"[..], &b"E"[..]));
    // A key of another family is an error that says so.
    assert_eq!(
        Order::decode(&Meta { name: "x".into() }.try_encode().unwrap()),
        Err(DecodeError::WrongPrefix { expected: b"D" })
    );
}

/// `1_groupid_guid_date`: the HBase guide's tagged copy of a row.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(text, sep = "_", prefix = "1")]
struct ByGroup {
    groupid: String,
    guid: String,
    #[digits(8)]
    date: u32,
}

/// A salted text family: prefix, separator, bucket digits, separator.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(text, sep = "_", prefix = "2")]
#[salt(buckets = 16, by(guid))]
struct ByGuid {
    guid: String,
    #[digits(8)]
    date: u32,
}

#[test]
fn text_prefix_is_the_first_element() {
    let k = ByGroup {
        groupid: "groupid".into(),
        guid: "guid".into(),
        date: 20200501,
    };
    assert_eq!(k.encode_to_string().unwrap(), "1_groupid_guid_20200501");
    assert_eq!(ByGroup::PREFIX, b"1_");
    assert_eq!(ByGroup::decode_str("1_groupid_guid_20200501").unwrap(), k);
    assert!(matches!(
        ByGroup::decode_str("2_groupid_guid_20200501"),
        Err(DecodeError::WrongPrefix { .. })
    ));
    let g = ByGuid {
        guid: "guid".into(),
        date: 1,
    };
    let text = g.encode_to_string().unwrap();
    assert_eq!(&text[..2], "2_");
    assert_eq!(text[2..4].parse::<u8>().unwrap(), g.try_bucket().unwrap());
    assert_eq!(&text[4..], "_guid_00000001");
    assert_eq!(ByGuid::HEAD_LEN, 5);
    assert_eq!(ByGuid::split_points()[0], b"2_01");
    let scan = ByGuid::scan_by_guid("guid").unwrap();
    let r = scan.ranges().next().unwrap();
    assert!(r.start().starts_with(&text.as_bytes()[..10]));
}

#[test]
fn the_enum_decodes_each_family_and_rejects_others() {
    let rows = [
        Row::Order(Order { id: 1 }),
        Row::ByCustomer(ByCustomer {
            customer: "c".into(),
            ts: 2,
            order: Order { id: 1 },
        }),
        Row::Meta(Meta { name: "m".into() }),
    ];
    for r in &rows {
        let key = r.encode_to_vec().unwrap();
        assert_eq!(key.len(), r.encoded_len());
        assert_eq!(&Row::decode(&key).unwrap(), r);
    }
    assert_eq!(rows[1].family(), "ByCustomer");
    assert_eq!(
        Row::FAMILIES,
        &[
            ("Order", &b"D"[..]),
            ("ByCustomer", b"I"),
            ("Meta", b"\x00M")
        ]
    );
    let err = Row::decode(b"X1").unwrap_err();
    assert_eq!(err, DecodeError::UnknownFamily { families: "Row" });
    assert_eq!(
        err.to_string(),
        "the key starts with the prefix of no family of `Row`"
    );
    // A key of a family that does not decode is that family's error.
    assert!(matches!(
        Row::decode(b"D\x01"),
        Err(DecodeError::UnexpectedEnd { field: "id", .. })
    ));
    // One range from the smallest prefix to the end of the largest.
    let all = Row::scan_all();
    let r = all.ranges().next().unwrap();
    assert_eq!((r.start(), r.stop()), (&b"\x00M"[..], &b"J"[..]));
    assert_eq!(Row::MIN_LEN, 6, "Meta: prefix 2 + fixed 4");
}

/// A field enum, stored as its discriminant.
#[derive(KeyField, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
enum Kind {
    Click = 1,
    View = 2,
    Buy = 200,
}

/// A signed repr with negative discriminants.
#[derive(KeyField, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(i16)]
enum Level {
    Low = -5,
    Mid = 0,
    High = 300,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
struct Event {
    kind: Kind,
    level: Level,
    user: u32,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(text, sep = "_")]
struct TextEvent {
    kind: Kind,
    level: Level,
    user: u32,
}

#[test]
fn field_enums_store_their_discriminant() {
    let e = Event {
        kind: Kind::Buy,
        level: Level::Low,
        user: 7,
    };
    assert_eq!(e.encode(), [200, 0x7F, 0xFB, 0, 0, 0, 7]);
    assert_eq!(Event::decode(&e.encode()).unwrap(), e);
    let err = Event::decode(&[3, 0x80, 0, 0, 0, 0, 7]).unwrap_err();
    assert_eq!(
        err,
        DecodeError::InvalidValue {
            field: "kind",
            reason: "not the discriminant of a variant of `Kind`"
        }
    );
    let scan = Event::scan_by_kind(Kind::View);
    assert!(!scan.ranges().any(|r| r.contains(&e.encode())));
    assert!(Event::scan_by_kind(Kind::Buy)
        .ranges()
        .any(|r| r.contains(&e.encode())));
    let t = TextEvent {
        kind: Kind::Click,
        level: Level::Low,
        user: 7,
    };
    let text = t.encode_to_string().unwrap();
    assert_eq!(text, "001_-99994_0000000007");
    assert_eq!(TextEvent::decode_str(&text).unwrap(), t);
    assert!(matches!(
        TextEvent::decode_str("004_-99994_0000000007"),
        Err(DecodeError::InvalidValue { field: "kind", .. })
    ));
    // A user `Decimal` (a `KeyField` enum here) can fail to encode (its
    // `DIGITS` is not trusted), so its scans return a `Result`.
    let range = TextEvent::range_by_kind_level(Kind::Click, Level::Low..Level::High).unwrap();
    assert!(range.ranges().any(|r| r.contains(text.as_bytes())));
}

/// A fixed-width key used as a field of another.
#[derive(RowKey, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct DeviceId {
    site: u16,
    n: u32,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
struct Reading {
    device: DeviceId,
    #[desc_ts]
    ts: i64,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
struct DescReading {
    #[desc]
    device: DeviceId,
    seq: u8,
}

#[test]
fn nested_keys_are_stored_as_their_own_encoding() {
    let d = DeviceId { site: 1, n: 2 };
    let r = Reading { device: d, ts: 0 };
    let key = r.encode();
    assert_eq!(&key[..6], &d.encode());
    assert_eq!(Reading::decode(&key).unwrap(), r);
    let scan = Reading::scan_by_device(d);
    assert!(scan.ranges().any(|x| x.contains(&key)));
    let other = Reading {
        device: DeviceId { site: 1, n: 3 },
        ts: 0,
    };
    assert!(!scan.ranges().any(|x| x.contains(&other.encode())));
    let desc = DescReading { device: d, seq: 1 }.encode();
    let inverted: Vec<u8> = d.encode().iter().map(|b| !b).collect();
    assert_eq!(&desc[..6], &inverted[..]);
}

// ---------- properties ----------

fn check_pair<T>(a: &T, b: &T, cmp: impl Fn(&T, &T) -> Ordering)
where
    T: RowKey + for<'de> DecodeRowKey<'de> + PartialEq + Debug,
{
    let (ka, kb) = (a.encode_to_vec().unwrap(), b.encode_to_vec().unwrap());
    assert_eq!(&T::decode(&ka).unwrap(), a);
    assert_eq!(ka.cmp(&kb), cmp(a, b), "{a:?} vs {b:?}");
}

fn kind() -> impl Strategy<Value = Kind> {
    prop::sample::select(vec![Kind::Click, Kind::View, Kind::Buy])
}

fn level() -> impl Strategy<Value = Level> {
    prop::sample::select(vec![Level::Low, Level::Mid, Level::High])
}

fn device() -> impl Strategy<Value = DeviceId> {
    (any::<u16>(), any::<u32>()).prop_map(|(site, n)| DeviceId { site, n })
}

fn row() -> impl Strategy<Value = Row> {
    prop_oneof![
        any::<u64>().prop_map(|id| Row::Order(Order { id })),
        ("[a-c\0]{0,4}", any::<i64>(), any::<u64>()).prop_map(|(customer, ts, id)| {
            Row::ByCustomer(ByCustomer {
                customer,
                ts,
                order: Order { id },
            })
        }),
        "[a-z]{0,4}".prop_map(|name| Row::Meta(Meta { name })),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/families.proptest-regressions"))), ..ProptestConfig::default() })]
    #[test]
    fn order_of_field_enums(a in (kind(), level(), any::<u32>()), b in (kind(), level(), any::<u32>())) {
        let (x, y) = (
            Event { kind: a.0, level: a.1, user: a.2 },
            Event { kind: b.0, level: b.1, user: b.2 },
        );
        check_pair(&x, &y, |p, q| (p.kind, p.level, p.user).cmp(&(q.kind, q.level, q.user)));
        let (x, y) = (
            TextEvent { kind: a.0, level: a.1, user: a.2 },
            TextEvent { kind: b.0, level: b.1, user: b.2 },
        );
        check_pair(&x, &y, |p, q| (p.kind, p.level, p.user).cmp(&(q.kind, q.level, q.user)));
    }

    #[test]
    fn order_of_nested_keys(a in (device(), any::<i64>()), b in (device(), any::<i64>())) {
        let (x, y) = (Reading { device: a.0, ts: a.1 }, Reading { device: b.0, ts: b.1 });
        check_pair(&x, &y, |p, q| (p.device, Reverse(p.ts)).cmp(&(q.device, Reverse(q.ts))));
        let (x, y) = (DescReading { device: a.0, seq: 0 }, DescReading { device: b.0, seq: 0 });
        check_pair(&x, &y, |p, q| Reverse(p.device).cmp(&Reverse(q.device)));
    }

    #[test]
    fn order_within_a_prefixed_family(a in any::<u64>(), b in any::<u64>()) {
        check_pair(&Order { id: a }, &Order { id: b }, |p, q| p.id.cmp(&q.id));
    }

    /// Every family's keys decode to their own variant through the enum.
    #[test]
    fn the_enum_round_trips_every_family(r in row()) {
        let key = r.encode_to_vec().unwrap();
        prop_assert_eq!(Row::decode(&key).unwrap(), r);
    }

    /// Any bytes: no panic, and what decodes re-encodes to the same bytes
    /// (after the salt byte, which decode checks only for range).
    #[test]
    fn canonical_decoding(bytes in prop::collection::vec(prop_oneof![
        Just(b'D'), Just(b'I'), Just(0u8), Just(b'M'), Just(1u8), any::<u8>()
    ], 0..24)) {
        if let Ok(r) = Row::decode(&bytes) {
            let again = r.encode_to_vec().unwrap();
            let skip = if matches!(r, Row::ByCustomer(_)) { 2 } else { 0 };
            prop_assert_eq!(&again[skip..], &bytes[skip..]);
            prop_assert_eq!(&again[..1], &bytes[..1]);
        }
        if let Ok(e) = Event::decode(&bytes) {
            prop_assert_eq!(&e.encode()[..], &bytes[..]);
        }
        if let Ok(e) = Reading::decode(&bytes) {
            prop_assert_eq!(&e.encode()[..], &bytes[..]);
        }
        if let Ok(e) = TextEvent::decode(&bytes) {
            prop_assert_eq!(e.encode_to_vec().unwrap(), bytes.clone());
        }
    }
}

/// A key family's table is split at every member's prefix (no region holds
/// two families) and at each member's own split points; a run-time layout
/// of the family gives the same points.
#[test]
fn a_family_splits_at_each_prefix_and_each_members_buckets() {
    let splits = Row::split_points();
    let mut want = vec![b"\x00M".to_vec(), b"D".to_vec(), b"I".to_vec()];
    want.extend(ByCustomer::split_points());
    want.sort();
    assert_eq!(splits, want);
    assert_eq!(splits.len(), 3 + 3, "three prefixes, buckets 1-3 of I");
    assert_eq!(Row::LAYOUT.split_points(), splits);
    // Every key of a family lies in a region of that family alone.
    let keys = [
        Row::Order(Order { id: 1 }).encode_to_vec().unwrap(),
        Row::Meta(Meta { name: "ab".into() })
            .encode_to_vec()
            .unwrap(),
        Row::ByCustomer(ByCustomer {
            customer: "c".into(),
            ts: 1,
            order: Order { id: 2 },
        })
        .encode_to_vec()
        .unwrap(),
    ];
    let region = |k: &[u8]| splits.partition_point(|s| s.as_slice() <= k);
    let regions: Vec<usize> = keys.iter().map(|k| region(k)).collect();
    assert!(regions[0] != regions[1] && regions[1] != regions[2] && regions[0] != regions[2]);
    let dynamic = rowkey_core::DynLayout::parse(&Row::LAYOUT.to_string()).unwrap();
    assert_eq!(dynamic.split_points(), splits);
}

/// The freeze check tells a member added to a family (keys already written
/// unchanged) from a member that changed.
#[test]
fn freezing_tells_a_new_member_from_a_changed_one() {
    #[derive(RowKey, Debug, Clone, PartialEq)]
    enum RowBefore {
        Order(Order),
        ByCustomer(ByCustomer),
    }
    let panic_of = |f: fn()| {
        let e = std::panic::catch_unwind(f).expect_err("the layout changed");
        e.downcast_ref::<String>().cloned().unwrap()
    };
    let before = RowBefore::LAYOUT.to_string();
    // The frozen summary of RowBefore; the current enum has Meta too.
    static FROZEN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    FROZEN.set(before.clone()).unwrap();
    let msg = panic_of(|| {
        rowkey_core::assert_layout::<Row>(RowBefore::LAYOUT.id(), FROZEN.get().unwrap())
    });
    assert!(
        msg.starts_with(
            "the key family `Row` gained member `Meta`; every member frozen before is unchanged"
        ),
        "{msg}"
    );
    assert!(msg.contains("--member NAME --hbase-split TABLE"), "{msg}");
    // A member whose layout changed: keys already written may not decode.
    let changed = before.replace("[id u64 8]", "[id u32 4]");
    assert_ne!(changed, before);
    static CHANGED: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    CHANGED.set(changed).unwrap();
    let msg = panic_of(|| {
        rowkey_core::assert_layout::<Row>(RowBefore::LAYOUT.id(), CHANGED.get().unwrap())
    });
    assert!(msg.contains("keys already written may not decode"), "{msg}");
    // The same through assert_layouts!.
    let msg = panic_of(|| {
        rowkey_core::assert_layouts! { Row => (RowBefore::LAYOUT.id(), FROZEN.get().unwrap().as_str()) }
    });
    assert!(msg.contains("- `Row` gained member `Meta`"), "{msg}");
}
