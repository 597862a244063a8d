//! Ordered-code layouts (`ordered_code [...]`): read from the derived
//! types' text and JSON, they have their fingerprints, bytes, values,
//! explanations, buckets, split points, errors and scans.

use super::*;

/// A descending `Int64` between ascending fields, a trailing string.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(ordered_code)]
struct Event {
    user: i64,
    #[desc]
    ts: i64,
    kind: String,
}

/// A prefix, a salt by an `Int64` and a descending string, bytes last.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(ordered_code, prefix = b"p\0")]
#[salt(buckets = 16, by(site, tag), hash = "java")]
struct Tagged {
    site: i32,
    #[desc]
    tag: String,
    n: u16,
    blob: Vec<u8>,
}

/// A `mod` salt on a narrow unsigned integer.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(ordered_code)]
#[salt(buckets = 64, by(shard), hash = "mod")]
struct Sharded {
    shard: u32,
    id: i8,
    name: String,
}

/// Only strings: the key of empty strings is `00 00`.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(ordered_code)]
struct Strings {
    a: String,
    b: Vec<u8>,
    c: String,
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![Just(String::new()), "[a\\x00\u{ff}]{0,3}"]
}

fn blob() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(Vec::new()),
        prop::collection::vec(prop_oneof![Just(0u8), Just(0xFF), any::<u8>()], 0..4)
    ]
}

/// Everything the run-time layout must agree on with `T` for `t`.
fn agree<T>(t: &T, values: &[Value])
where
    T: RowKey + for<'a> DecodeRowKey<'a> + std::fmt::Debug + SplitPoints,
{
    let summary = T::LAYOUT.to_string();
    assert!(summary.starts_with("ordered_code ["), "{summary}");
    let named = format!("{}: {summary}", T::LAYOUT.name());
    let l = DynLayout::parse(&named).unwrap_or_else(|e| panic!("{summary}: {e}"));
    let j = DynLayout::from_json(&T::LAYOUT.to_json()).unwrap();
    for d in [&l, &j] {
        assert_eq!(d.layout().id(), T::LAYOUT_ID, "{summary}");
        assert_eq!(d.layout().to_string(), summary);
        assert_eq!(d.split_points(), T::split_points_of());
        let key = t.encode_to_vec().unwrap();
        assert_eq!(d.encode(values).unwrap(), key, "{summary}: {t:?}");
        assert_eq!(d.decode(&key).unwrap(), values, "{summary}");
        let (ours, theirs) = (d.explain(&key[..]), T::explain(&key[..]));
        assert_eq!(ours.to_string(), theirs.to_string());
        assert!(ours.is_ok(), "{ours}");
        let bucket = T::LAYOUT.salt().map(|s| {
            s.head()
                .read(&key[T::LAYOUT.prefix().len()..], s.buckets())
                .unwrap()
        });
        assert_eq!(d.bucket(values).unwrap(), bucket);
        // Cut, or with more written out: refused alike.
        let tails: [&[u8]; 4] = [&[0], &[0, 0], &[0, 1], &[0, 1, 0, 0]];
        let mut bad: Vec<Vec<u8>> = tails.iter().map(|t| [&key[..], t].concat()).collect();
        bad.push(key[..key.len() - 1].to_vec());
        for b in &bad {
            assert_eq!(
                d.decode(b).map_err(|e| e.to_string()).err(),
                T::decode(b).map(|_| ()).map_err(|e| e.to_string()).err(),
                "{summary}: {b:02x?}"
            );
            assert_eq!(
                d.explain(&b[..]).to_string(),
                T::explain(&b[..]).to_string()
            );
        }
        assert_eq!(
            d.filter().build().unwrap_err(),
            EncodeError::NoFilter {
                layout: d.layout().name()
            }
        );
    }
}

/// The derived scans, compared range by range with `DynLayout::scan`.
fn same_scan(
    d: &DynLayout,
    leading: &[Value],
    next: Option<(Bound<Value>, Bound<Value>)>,
    derived: Scan,
) {
    let ours = d.scan(leading, next).unwrap();
    assert_eq!(ranges(&ours), ranges(&derived), "{leading:?}");
    assert_eq!(ours.head_len(), derived.head_len());
}

trait SplitPoints {
    fn split_points_of() -> Vec<Vec<u8>>;
}
macro_rules! split_points_of {
    ($($t:ty),*) => {$(
        impl SplitPoints for $t {
            fn split_points_of() -> Vec<Vec<u8>> {
                <$t>::split_points()
            }
        }
    )*};
}
split_points_of!(Event, Tagged, Sharded, Strings);

fn range_of<T: Clone + Into<Value>>(a: T, b: T, kind: u8) -> (Bound<Value>, Bound<Value>) {
    dyn_range((a, b, kind))
}

fn dyn_range<T: Clone + Into<Value>>((a, b, kind): (T, T, u8)) -> (Bound<Value>, Bound<Value>) {
    match kind % 3 {
        0 => (Bound::Included(a.into()), Bound::Excluded(b.into())),
        1 => (Bound::Excluded(a.into()), Bound::Included(b.into())),
        _ => (Bound::Unbounded, Bound::Included(b.into())),
    }
}

fn rust_range<T: Clone>((a, b, kind): (T, T, u8)) -> (Bound<T>, Bound<T>) {
    match kind % 3 {
        0 => (Bound::Included(a), Bound::Excluded(b)),
        1 => (Bound::Excluded(a), Bound::Included(b)),
        _ => (Bound::Unbounded, Bound::Included(b)),
    }
}

fn sorted<T: PartialOrd>(a: T, b: T) -> (T, T) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn event(user in any::<i64>(), ts in any::<i64>(), kind in text(), r in (any::<i64>(), any::<i64>(), any::<u8>()), k in (text(), text(), any::<u8>())) {
        let e = Event { user, ts, kind: kind.clone() };
        agree(&e, &[user.into(), ts.into(), kind.clone().into()]);
        let d = DynLayout::parse(&Event::LAYOUT.to_string()).unwrap();
        same_scan(&d, &[], None, Event::scan_all());
        same_scan(&d, &[user.into()], None, Event::scan_by_user(user));
        same_scan(&d, &[user.into(), ts.into()], None, Event::scan_by_user_ts(user, ts));
        same_scan(&d, &[user.into(), ts.into(), kind.clone().into()], None, Event::scan_by_user_ts_kind(user, ts, &kind));
        let (a, b) = sorted(r.0, r.1);
        same_scan(&d, &[], Some(range_of(a, b, r.2)), Event::range_by_user(rust_range((a, b, r.2))));
        same_scan(&d, &[user.into()], Some(range_of(a, b, r.2)), Event::range_by_user_ts(user, rust_range((a, b, r.2))));
        let (ka, kb) = sorted(k.0, k.1);
        same_scan(
            &d,
            &[user.into(), ts.into()],
            Some(range_of(ka.clone(), kb.clone(), k.2)),
            Event::range_by_user_ts_kind(user, ts, rust_range((ka.as_str(), kb.as_str(), k.2))),
        );
    }

    #[test]
    fn tagged(site in any::<i32>(), tag in text(), n in any::<u16>(), blob in blob(), r in (text(), text(), any::<u8>())) {
        let t = Tagged { site, tag: tag.clone(), n, blob: blob.clone() };
        agree(&t, &[site.into(), tag.clone().into(), n.into(), blob.clone().into()]);
        let d = DynLayout::parse(&Tagged::LAYOUT.to_string()).unwrap();
        same_scan(&d, &[], None, Tagged::scan_all());
        same_scan(&d, &[site.into()], None, Tagged::scan_by_site(site));
        same_scan(&d, &[site.into(), tag.clone().into()], None, Tagged::scan_by_site_tag(site, &tag));
        same_scan(&d, &[site.into(), tag.clone().into(), n.into()], None, Tagged::scan_by_site_tag_n(site, &tag, n));
        let (a, b) = sorted(r.0, r.1);
        same_scan(
            &d,
            &[site.into()],
            Some(range_of(a.clone(), b.clone(), r.2)),
            Tagged::range_by_site_tag(site, rust_range((a.as_str(), b.as_str(), r.2))),
        );
    }

    #[test]
    fn sharded(shard in any::<u32>(), id in any::<i8>(), name in text(), r in (any::<i8>(), any::<i8>(), any::<u8>())) {
        let s = Sharded { shard, id, name: name.clone() };
        agree(&s, &[shard.into(), id.into(), name.clone().into()]);
        let d = DynLayout::parse(&Sharded::LAYOUT.to_string()).unwrap();
        same_scan(&d, &[shard.into()], None, Sharded::scan_by_shard(shard));
        let (a, b) = sorted(r.0, r.1);
        same_scan(&d, &[shard.into()], Some(range_of(a, b, r.2)), Sharded::range_by_shard_id(shard, rust_range((a, b, r.2))));
    }

    #[test]
    fn strings(a in text(), b in blob(), c in text(), r in (blob(), blob(), any::<u8>())) {
        let s = Strings { a: a.clone(), b: b.clone(), c: c.clone() };
        agree(&s, &[a.clone().into(), b.clone().into(), c.clone().into()]);
        let d = DynLayout::parse(&Strings::LAYOUT.to_string()).unwrap();
        same_scan(&d, &[a.clone().into()], None, Strings::scan_by_a(&a));
        same_scan(&d, &[a.clone().into(), b.clone().into()], None, Strings::scan_by_a_b(&a, &b));
        let (x, y) = sorted(r.0, r.1);
        same_scan(
            &d,
            &[a.clone().into()],
            Some(range_of(x.clone(), y.clone(), r.2)),
            Strings::range_by_a_b(&a, rust_range((x.as_slice(), y.as_slice(), r.2))),
        );
    }
}

/// What a run-time ordered-code layout refuses, each naming its part.
#[test]
fn refusals() {
    let err = |t: &str| DynLayout::parse(t).unwrap_err().to_string();
    assert!(err("ordered_code [a u64]").contains("cannot be a field of an ordered_code key"));
    assert!(err("ordered_code [a Option<i64>]").contains("Option"));
    assert!(err("ordered_code [a desc_ts i64]").contains("use `desc`"));
    assert!(err("ordered_code [a reverse i64]").contains("`reverse` is not part"));
    assert!(err("ordered_code [salt/65 3][a i64]").contains("at most 64"));
    assert!(err(r#"ordered_code [prefix "p" 1][a i64]"#).contains("ending with"));
    assert!(err(r#"ordered_code [prefix "p\x00\x01" 3][a String]"#)
        .contains("needs a field that every"));
    assert_eq!(
        err(r#"text("_") ordered_code [a i64]"#),
        "format (at byte 10): `ordered_code` and `text(...)` are two key formats: keep one"
    );
    // The last field a key writes may end at the key's end: one byte.
    assert_eq!(
        err("ordered_code [a i64 >=3]"),
        "field `a` (at byte 14): the text gives width >=3, but i64 is at least 1 bytes"
    );
    assert!(DynLayout::parse("ordered_code [a i64 >=3][b i64 >=1]").is_ok());
    // A field the key leaves out (empty) is still checked for its type.
    let l = DynLayout::parse("ordered_code [a i64][b String]").unwrap();
    assert_eq!(
        l.encode(&[Value::I64(1), Value::Str(String::new())])
            .unwrap(),
        [0x81]
    );
    let err = l
        .encode(&[Value::I64(1), Value::Bytes(Vec::new())])
        .unwrap_err();
    assert!(
        matches!(err, EncodeError::WrongValue { field: "b", .. }),
        "{err}"
    );
}
