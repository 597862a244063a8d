//! `DynLayout` agrees with the derive: for the layouts of the golden
//! tests and more (every binary field type and attribute, prefixes, the
//! three salts), the layout read back from `T::LAYOUT`'s one-line text has
//! the derived type's fingerprint and summary (and so has the layout read
//! from `T::LAYOUT.to_json()`), and for random values
//! encodes the derived bytes (or fails with the derived error), decodes
//! them back, and gives the same bucket, split points, explanation,
//! filters and scans.

use proptest::prelude::*;
use rowkey_core::prelude::*;
use std::ops::Bound;

use rowkey_core::{DynLayout, KeyFilter, Value};

/// A field's value as the `Value` a run-time layout takes.
trait ToValue {
    fn to_value(&self) -> Value;
}

macro_rules! to_value_into {
    ($($t:ty),*) => {$(
        impl ToValue for $t {
            fn to_value(&self) -> Value {
                self.clone().into()
            }
        }
    )*};
}
to_value_into!(
    u8,
    u16,
    u32,
    u64,
    u128,
    i8,
    i16,
    i32,
    i64,
    i128,
    bool,
    char,
    f32,
    f64,
    String,
    Vec<u8>,
    Option<u8>,
    Option<u32>,
    Option<i64>,
    Option<String>,
    Option<Vec<u8>>
);

impl<const N: usize> ToValue for [u8; N] {
    fn to_value(&self) -> Value {
        Value::Bytes(self.to_vec())
    }
}

impl ToValue for std::net::IpAddr {
    fn to_value(&self) -> Value {
        Value::from(*self)
    }
}

impl ToValue for Option<uuid::Uuid> {
    fn to_value(&self) -> Value {
        Value::from(*self)
    }
}

impl ToValue for Option<std::net::IpAddr> {
    fn to_value(&self) -> Value {
        Value::from(*self)
    }
}

impl ToValue for ulid::Ulid {
    fn to_value(&self) -> Value {
        Value::from(*self)
    }
}

impl ToValue for uuid::Uuid {
    fn to_value(&self) -> Value {
        let v = Value::from(*self);
        assert_eq!(v, Value::Bytes(self.as_bytes().to_vec()));
        v
    }
}

/// A field's value as its filter method takes it (`&str` for a `String`).
trait AsPred {
    type P<'a>
    where
        Self: 'a;
    fn pred(&self) -> Self::P<'_>;
}

macro_rules! as_pred_copy {
    ($($t:ty),*) => {$(
        impl AsPred for $t {
            type P<'a> = $t;
            fn pred(&self) -> $t {
                *self
            }
        }
    )*};
}
as_pred_copy!(
    u8,
    u16,
    u32,
    u64,
    u128,
    i8,
    i16,
    i32,
    i64,
    i128,
    bool,
    char,
    f32,
    f64,
    Option<u8>,
    Option<u32>,
    Option<i64>,
    [u8; 2],
    [u8; 3],
    [u8; 6],
    uuid::Uuid,
    std::net::IpAddr,
    ulid::Ulid,
    Option<uuid::Uuid>,
    Option<std::net::IpAddr>
);

impl AsPred for String {
    type P<'a> = &'a str;
    fn pred(&self) -> &str {
        self
    }
}

impl AsPred for Vec<u8> {
    type P<'a> = &'a [u8];
    fn pred(&self) -> &[u8] {
        self
    }
}

impl AsPred for Option<String> {
    type P<'a> = Option<&'a str>;
    fn pred(&self) -> Option<&str> {
        self.as_deref()
    }
}

impl AsPred for Option<Vec<u8>> {
    type P<'a> = Option<&'a [u8]>;
    fn pred(&self) -> Option<&[u8]> {
        self.as_deref()
    }
}

fn ranges(scan: &Scan) -> Vec<(Vec<u8>, Vec<u8>)> {
    scan.ranges()
        .map(|r| (r.start().to_vec(), r.stop().to_vec()))
        .collect()
}

/// What a filter says about keys, compared between the derived and the
/// run-time one.
fn filter_facts(f: &KeyFilter, keys: &[&[u8]]) -> String {
    let matches: Vec<bool> = keys.iter().map(|k| f.matches(k)).collect();
    let hints: Vec<Option<Vec<u8>>> = keys.iter().map(|k| f.seek_hint(k)).collect();
    format!(
        "{:?} {:?} {:?} {:?} {:?} {:?} {}",
        ranges(&f.scan()),
        matches,
        hints,
        f.multi_row_ranges(),
        f.fuzzy_row_filter(),
        f.bigtable_regex(),
        f.regex_is_exact()
    )
}

/// Everything a run-time layout must agree on with `T`, for the value `t`
/// (whose fields are `values`) and another key `other` of the layout.
fn check<T>(
    t: &T,
    values: &[Value],
    other: &[u8],
    filtered: usize,
    all_fields: Result<KeyFilter, EncodeError>,
    first_field: Result<KeyFilter, EncodeError>,
) where
    T: RowKey + for<'a> DecodeRowKey<'a>,
{
    let summary = T::LAYOUT.to_string();
    let named = format!("{}: {summary}", T::LAYOUT.name());
    let dynamic = DynLayout::parse(&named).unwrap_or_else(|e| panic!("{summary}: {e}"));
    let l = dynamic.layout();
    assert_eq!(l.to_string(), summary);
    assert_eq!(l.table().to_string(), T::LAYOUT.table().to_string());
    let unnamed = DynLayout::parse(&summary).unwrap();
    assert_eq!(unnamed.layout().id(), T::LAYOUT_ID);
    assert_eq!(unnamed.layout().name(), "DynLayout");
    assert_eq!(l.id(), T::LAYOUT_ID, "{summary}: fingerprint");
    assert_eq!(dynamic.split_points(), T::LAYOUT.split_points());

    // The JSON reads back to the same layout and the same bytes.
    let from_json = DynLayout::from_json(&T::LAYOUT.to_json())
        .unwrap_or_else(|e| panic!("{summary}: from_json: {e}"));
    assert_eq!(
        from_json.layout().id(),
        T::LAYOUT_ID,
        "{summary}: from_json"
    );
    assert_eq!(from_json.layout().name(), T::LAYOUT.name());
    assert_eq!(from_json.layout().to_json(), T::LAYOUT.to_json());
    assert_eq!(
        from_json.encode(values).map_err(|e| e.to_string()),
        t.encode_to_vec().map_err(|e| e.to_string()),
        "{summary}: from_json"
    );

    let derived = t.encode_to_vec();
    let ours = dynamic.encode(values);
    match (&derived, &ours) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{summary}: {values:?}"),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{summary}"),
        _ => panic!("{summary}: {values:?}: derived {derived:?}, run-time {ours:?}"),
    }
    let Ok(key) = derived else { return };
    assert_eq!(dynamic.decode(&key).as_deref(), Ok(values), "{summary}");
    assert_eq!(
        dynamic.explain(&key[..]).to_string(),
        T::explain(&key[..]).to_string(),
        "{summary}"
    );
    assert_eq!(
        dynamic.explain(other).to_string(),
        T::explain(other).to_string(),
        "{summary}"
    );
    let head = &key[T::LAYOUT.prefix().len()..];
    let bucket = T::LAYOUT
        .salt()
        .map(|s| s.head().read(head, s.buckets()).unwrap());
    assert_eq!(dynamic.bucket(values), Ok(bucket), "{summary}");

    // The key cut short, and with a byte more: both reject them alike.
    for bad in [
        &key[..key.len().saturating_sub(1)],
        &[&key[..], &[0]].concat()[..],
    ] {
        let (a, b) = (T::decode(bad).err(), dynamic.decode(bad).err());
        assert_eq!(
            a.map(|e| e.to_string()),
            b.map(|e| e.to_string()),
            "{summary}: {bad:?}"
        );
    }

    // Filters and scans: every field (but added ones) fixed, and the first
    // alone.
    let names: Vec<&str> = dynamic.field_names().collect();
    let mut f = dynamic.filter();
    for (name, v) in names.iter().zip(&values[..filtered]) {
        f = f.eq(name, v.clone()).unwrap();
    }
    let ours = f.build();
    match (&all_fields, &ours) {
        (Ok(a), Ok(b)) => {
            let keys: [&[u8]; 2] = [&key, other];
            assert_eq!(filter_facts(a, &keys), filter_facts(b, &keys), "{summary}");
            assert_eq!(
                ranges(&a.scan()),
                ranges(&dynamic.scan(&values[..filtered], None).unwrap()),
                "{summary}"
            );
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        _ => panic!("{summary}: derived {all_fields:?}, run-time {ours:?}"),
    }
    let ours = dynamic
        .filter()
        .eq(names[0], values[0].clone())
        .unwrap()
        .build();
    if let (Ok(a), Ok(b)) = (&first_field, &ours) {
        let keys: [&[u8]; 2] = [&key, other];
        assert_eq!(filter_facts(a, &keys), filter_facts(b, &keys), "{summary}");
        assert_eq!(
            ranges(&a.scan()),
            ranges(&dynamic.scan(&values[..1], None).unwrap()),
            "{summary}"
        );
    } else {
        assert_eq!(first_field.is_ok(), ours.is_ok(), "{summary}");
    }
}

/// A text that is mostly ASCII, with `00`, `FF`-free multi-byte UTF-8 and
/// the pad bytes the cases use.
fn text() -> impl Strategy<Value = String> {
    "[a-c\\x00 \\x01é€]{0,10}"
}

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(
        prop_oneof![Just(0u8), Just(1), Just(0xFF), any::<u8>()],
        0..10,
    )
}

macro_rules! cases {
    ($(
        $(#[$sattr:meta])*
        $name:ident {
            $(#[$fa0:meta])* $f0:ident: $t0:ty = $s0:expr
            $(, $(#[$fattr:meta])* $f:ident: $ty:ty = $strat:expr)* $(,)?
        }
    )*) => {$(
        #[allow(non_snake_case)]
        mod $name {
            use super::*;

            #[derive(RowKey, Debug, Clone, PartialEq)]
            $(#[$sattr])*
            pub struct $name {
                $(#[$fa0])* pub $f0: $t0,
                $($(#[$fattr])* pub $f: $ty,)*
            }

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(48))]
                #[test]
                fn agrees_with_the_derive(
                    $f0 in $s0, $($f in $strat,)*
                    other_0 in $s0,
                ) {
                    let t = $name { $f0, $($f,)* };
                    let values = vec![t.$f0.to_value(), $(t.$f.to_value(),)*];
                    // Another key: the first field changed.
                    let mut o = t.clone();
                    o.$f0 = other_0;
                    let other = o.encode_to_vec().unwrap_or_default();
                    let all = $name::filter().$f0(t.$f0.pred())$(.$f(t.$f.pred()))*.build();
                    let first = $name::filter().$f0(t.$f0.pred()).build();
                    check(&t, &values, &other, values.len(), all, first);
                }
            }
        }
    )*};
}

cases! {
    Ints { a: u8 = any::<u8>(), b: u16 = any::<u16>(), c: u32 = any::<u32>(), d: u64 = any::<u64>(), e: u128 = any::<u128>() }
    Signed { a: i8 = any::<i8>(), b: i16 = any::<i16>(), c: i32 = any::<i32>(), d: i64 = any::<i64>(), e: i128 = any::<i128>() }
    Others { a: bool = any::<bool>(), c: char = any::<char>(), f: f32 = any::<f32>(), g: f64 = any::<f64>() }
    DescRev {
        #[desc] a: u16 = any::<u16>(),
        #[reverse] b: u32 = any::<u32>(),
        #[desc] #[reverse] c: i64 = any::<i64>(),
        #[desc] d: f64 = any::<f64>(),
    }
    Strings {
        s: String = text(),
        #[desc] d: String = text(),
        #[reverse] r: String = text(),
        #[reverse_domain] dom: String = "[a-c.]{0,8}",
        b: Vec<u8> = bytes(),
        last: String = text(),
    }
    DescLast { n: u8 = any::<u8>(), #[desc] s: String = text() }
    BytesLast { n: u8 = any::<u8>(), b: Vec<u8> = bytes() }
    Padded {
        #[fixed(8)] kind: String = "[a-c\\x00]{0,9}",
        #[fixed(4, pad = b' ')] sp: String = "[a-c ]{0,5}",
        #[fixed(3)] #[desc] dp: Vec<u8> = bytes(),
        #[fixed(4)] #[reverse] rp: String = "[a-c]{0,4}",
        n: u8 = any::<u8>(),
    }
    Options {
        a: Option<u32> = any::<Option<u32>>(),
        #[desc] b: Option<u8> = any::<Option<u8>>(),
        s: Option<String> = proptest::option::of(text()),
        #[desc_ts] t: Option<i64> = proptest::option::of(0..i64::MAX),
        last: Option<Vec<u8>> = proptest::option::of(bytes()),
    }
    OptionPadded {
        #[fixed(4)] a: Option<String> = proptest::option::of("[a-c\\x00]{0,5}"),
        #[fixed(3)] #[desc] b: Option<Vec<u8>> = proptest::option::of(bytes()),
        #[fixed(4)] #[reverse] r: Option<String> = proptest::option::of("[a-c]{0,4}"),
        #[fixed(4, pad = b' ')] #[desc] s: Option<String> = proptest::option::of("[a-c ]{0,5}"),
        n: u8 = any::<u8>(),
    }
    DescTs {
        #[desc_ts] a: i64 = any::<i64>(),
        #[desc_ts] b: u64 = any::<u64>(),
        #[desc_ts] c: i32 = any::<i32>(),
        #[desc_ts] d: u32 = any::<u32>(),
    }
    Opaque {
        tag: [u8; 3] = any::<[u8; 3]>(),
        #[desc] u: uuid::Uuid = any::<u128>().prop_map(uuid::Uuid::from_u128),
        #[reverse] r: [u8; 2] = any::<[u8; 2]>(),
    }
    #[salt(buckets = 16, by(user_id))]
    UserEvent {
        user_id: u64 = any::<u64>(),
        #[desc_ts] ts_millis: i64 = 0..i64::MAX,
        #[fixed(8)] kind: String = "[a-z]{0,8}",
    }
    #[salt(buckets = 256)]
    SaltAll { a: u32 = any::<u32>(), b: Vec<u8> = bytes(), tail: String = text() }
    #[salt(buckets = 20, by(metric, tags), hash = "java")]
    Metric {
        metric: [u8; 3] = any::<[u8; 3]>(),
        base_hour: u32 = any::<u32>(),
        tags: [u8; 6] = any::<[u8; 6]>(),
    }
    #[salt(buckets = 12, by(id), hash = "mod")]
    ModSalt { id: u64 = any::<u64>(), s: String = text() }
    #[salt(buckets = 7, by(s))]
    SaltByString { s: String = text(), n: u16 = any::<u16>() }
    #[rowkey(prefix = "u#")]
    Prefixed { id: u32 = any::<u32>(), name: String = text() }
    #[rowkey(prefix = "e\x00")]
    #[salt(buckets = 4, by(id))]
    PrefixedSalted { id: u32 = any::<u32>(), #[desc] n: i16 = any::<i16>() }
    #[rowkey(text, sep = "_")]
    #[salt(buckets = 10, by(phone), hash = "mod")]
    TextCall { #[digits(11)] phone: u64 = 0..200_000_000_000u64, #[desc_ts] ts: i64 = any::<i64>() }
    #[rowkey(text, sep = "#", prefix = "m")]
    TextMetric {
        host: String = "[a-c#]{0,5}",
        delta: i32 = any::<i32>(),
        #[desc_ts(max = 9999999999)] ts: u64 = 0..12_000_000_000u64,
        #[fixed(3, pad = b'.')] tag: String = "[a-c.]{0,4}",
        path: String = text(),
    }
    OptIds {
        a: Option<uuid::Uuid> = proptest::option::of(any::<u128>().prop_map(uuid::Uuid::from_u128)),
        #[desc] b: Option<std::net::IpAddr> = any::<Option<std::net::IpAddr>>(),
        n: u8 = any::<u8>(),
    }
    #[rowkey(text, sep = "_")]
    #[salt(buckets = 8, by(id))]
    TextIds {
        id: uuid::Uuid = any::<u128>().prop_map(uuid::Uuid::from_u128),
        ip: std::net::IpAddr = any::<std::net::IpAddr>(),
        #[reverse] u: ulid::Ulid = any::<u128>().prop_map(ulid::Ulid::from),
        last: String = text(),
    }
    #[rowkey(text, sep = "::")]
    #[salt(buckets = 16, by(user, n))]
    TextMixed {
        user: String = "[a-c:]{0,5}",
        #[desc] n: u32 = any::<u32>(),
        #[reverse] #[digits(13)] t: u64 = any::<u64>(),
        #[reverse_domain] host: String = "[a-c.]{0,6}",
        small: i8 = any::<i8>(),
        #[desc_ts] t32: i32 = any::<i32>(),
        big: u128 = any::<u128>(),
        last: String = text(),
    }
}

/// The README's layout, from the text a user would type: no widths, no
/// tail.
#[test]
fn short_text_is_the_derived_layout() {
    let short = DynLayout::parse(
        "[salt(user_id)/16][user_id u64][ts_millis desc_ts i64][kind fixed(8) String]",
    )
    .unwrap();
    assert_eq!(short.layout().id(), UserEvent::UserEvent::LAYOUT_ID);
    assert_eq!(
        short.layout().to_string(),
        UserEvent::UserEvent::LAYOUT.to_string()
    );
}

/// Added fields: decoded as `None` from keys that end before them; they
/// take no filter.
#[derive(RowKey, Debug, Clone, PartialEq)]
struct Added {
    id: u32,
    #[rowkey(added)]
    x: Option<u32>,
    #[rowkey(added)]
    y: Option<String>,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn added_fields_agree_with_the_derive(
        id in any::<u32>(),
        x in any::<Option<u32>>(),
        y in proptest::option::of(text()),
        other in any::<u32>(),
    ) {
        let t = Added { id, x, y };
        let values = vec![id.to_value(), t.x.to_value(), t.y.to_value()];
        let other = Added { id: other, x: None, y: None }.encode_to_vec().unwrap();
        // A key written before the fields were added.
        assert_eq!(other.len(), 4);
        let first = Added::filter().id(id).build();
        let all = Added::filter().id(id).build();
        check(&t, &values, &other, 1, all, first);
        let dynamic = DynLayout::parse(&Added::LAYOUT.to_string()).unwrap();
        assert_eq!(
            dynamic.decode(&other).unwrap()[1..],
            [Value::Option(None), Value::Option(None)]
        );
    }
}

/// Added `#[fixed(N)]` fields (an `Option` of a padded string), one
/// descending.
#[derive(RowKey, Debug, Clone, PartialEq)]
struct AddedPadded {
    n: u8,
    #[fixed(3)]
    #[rowkey(added)]
    tag: Option<String>,
    #[fixed(2)]
    #[desc]
    #[rowkey(added)]
    more: Option<Vec<u8>>,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn added_padded_fields_agree_with_the_derive(
        n in any::<u8>(),
        tag in proptest::option::of("[a-c]{0,4}"),
        more in proptest::option::of(bytes()),
        other in any::<u8>(),
    ) {
        let t = AddedPadded { n, tag, more };
        let values = vec![n.to_value(), t.tag.to_value(), t.more.to_value()];
        let other = AddedPadded { n: other, tag: None, more: None }.encode_to_vec().unwrap();
        assert_eq!(other.len(), 1);
        let first = AddedPadded::filter().n(n).build();
        let all = AddedPadded::filter().n(n).build();
        check(&t, &values, &other, 1, all, first);
        let dynamic = DynLayout::parse(&AddedPadded::LAYOUT.to_string()).unwrap();
        assert_eq!(
            dynamic.decode(&other).unwrap()[1..],
            [Value::Option(None), Value::Option(None)]
        );
        // A key that ends with a None tag is refused, as derived.
        let none_tag = [&other[..], &[0, 0, 0, 0]].concat();
        prop_assert_eq!(
            dynamic.decode(&none_tag).unwrap_err().to_string(),
            AddedPadded::decode(&none_tag).unwrap_err().to_string()
        );
    }
}

/// A random field: its text in a layout and a strategy for its values.
fn random_field(i: usize, last: bool) -> impl Strategy<Value = (String, BoxedStrategy<Value>)> {
    let name = format!("f{i}");
    (
        0..12u8,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        1..6usize,
    )
        .prop_map(move |(ty, desc, reverse, option, width)| {
            let d = if desc { " desc" } else { "" };
            let r = if reverse { " reverse" } else { "" };
            let (text, values): (String, BoxedStrategy<Value>) = match ty {
                0 => (
                    format!("{d}{r} u8"),
                    any::<u8>().prop_map(Value::from).boxed(),
                ),
                1 => (
                    format!("{d}{r} u16"),
                    any::<u16>().prop_map(Value::from).boxed(),
                ),
                2 => (
                    format!("{d}{r} u32"),
                    any::<u32>().prop_map(Value::from).boxed(),
                ),
                3 => (
                    format!("{d}{r} u64"),
                    any::<u64>().prop_map(Value::from).boxed(),
                ),
                4 => (
                    format!("{d}{r} i32"),
                    any::<i32>().prop_map(Value::from).boxed(),
                ),
                5 => (
                    format!("{d}{r} i64"),
                    any::<i64>().prop_map(Value::from).boxed(),
                ),
                6 => (
                    format!("{d} bool"),
                    any::<bool>().prop_map(Value::from).boxed(),
                ),
                7 => (
                    format!("{d} char"),
                    any::<char>().prop_map(Value::from).boxed(),
                ),
                8 => (
                    format!("{d} f64"),
                    (-1e300..1e300f64).prop_map(Value::from).boxed(),
                ),
                9 => (
                    " desc_ts i64".into(),
                    (0..i64::MAX).prop_map(Value::from).boxed(),
                ),
                10 => (
                    format!("{d}{r} String"),
                    text().prop_map(Value::from).boxed(),
                ),
                _ if option || last => (
                    format!("{d}{r} Vec<u8>"),
                    bytes().prop_map(Value::from).boxed(),
                ),
                _ => (
                    format!("{d} fixed({width}) String"),
                    "[a-c]{0,5}"
                        .prop_filter("fits the width", move |s: &String| s.len() <= width)
                        .prop_map(Value::from)
                        .boxed(),
                ),
            };
            if option && !text.contains("fixed") {
                let (attrs, ty) = text.rsplit_once(' ').unwrap();
                let values = proptest::option::of(values)
                    .prop_map(|v| Value::Option(v.map(Box::new)))
                    .boxed();
                (format!("[{name}{attrs} Option<{ty}>]"), values)
            } else {
                (format!("[{name}{text}]"), values)
            }
        })
}

/// A random layout's text and a strategy for its keys' values.
fn random_layout() -> impl Strategy<Value = (String, BoxedStrategy<Vec<Value>>)> {
    (1..6usize, 0..4u8, any::<bool>())
        .prop_flat_map(|(n, salt, prefix)| {
            let fields: Vec<_> = (0..n).map(|i| random_field(i, i + 1 == n)).collect();
            (fields, Just(salt), Just(prefix), Just(n))
        })
        .prop_map(|(fields, salt, prefix, n)| {
            let mut text = String::new();
            if prefix {
                text.push_str(r#"[prefix "e\x00"]"#);
            }
            match salt {
                1 => text.push_str("[salt/8]"),
                2 => text.push_str(&format!("[salt(f{})/5 java]", n - 1)),
                3 => text.push_str("[salt(f0)/16]"),
                _ => {}
            }
            let mut strategies = Vec::new();
            for (t, s) in fields {
                text.push_str(&t);
                strategies.push(s);
            }
            (text, strategies.boxed())
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// Layouts no Rust type declares: the text reads back to a layout whose
    /// summary reads back to the same layout, and whose keys decode to the
    /// values they were encoded from, explain without error, lie in the
    /// bucket the layout computes, and are matched by the filter and the
    /// scan of their own values.
    #[test]
    fn random_layouts_round_trip(
        (text, values) in random_layout().prop_flat_map(|(t, v)| (Just(t), v))
    ) {
        let layout = DynLayout::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let again = DynLayout::parse(&layout.layout().to_string()).unwrap();
        prop_assert_eq!(again.layout().id(), layout.layout().id());
        let json = DynLayout::from_json(&layout.layout().to_json()).unwrap();
        prop_assert_eq!(json.layout().id(), layout.layout().id());
        let key = layout.encode(&values).unwrap_or_else(|e| panic!("{text}: {values:?}: {e}"));
        prop_assert_eq!(json.encode(&values).unwrap(), key.clone());
        prop_assert_eq!(layout.decode(&key).unwrap(), values.clone(), "{}", text);
        let explained = layout.explain(&key[..]);
        prop_assert!(explained.is_ok(), "{}", explained);
        if let (Some(bucket), Some(s)) = (layout.bucket(&values).unwrap(), layout.layout().salt()) {
            let head = &key[layout.layout().prefix().len()..];
            prop_assert_eq!(s.head().read(head, s.buckets()).unwrap(), bucket);
        }
        let names: Vec<&str> = layout.field_names().collect();
        let mut f = layout.filter();
        for (n, v) in names.iter().zip(&values) {
            f = f.eq(n, v.clone()).unwrap();
        }
        let f = f.build().unwrap();
        prop_assert!(f.matches(&key));
        prop_assert!(f.scan().ranges().any(|r| r.contains(&key)));
        let scan = layout.scan(&values[..1], None).unwrap();
        prop_assert!(scan.ranges().any(|r| r.contains(&key)), "{}", text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    /// Any text, and a valid layout's text with a character changed,
    /// inserted or removed: `parse` gives a layout or an error, never a
    /// panic.
    #[test]
    fn parse_never_panics(
        junk in ".{0,60}",
        at in any::<prop::sample::Index>(),
        c in any::<char>(),
        edit in 0..3u8,
    ) {
        let _ = DynLayout::parse(&junk);
        let valid = r#"T: [prefix "e\x00" 2][salt(a, s)/16 java 1][a desc u32 4][s fixed(4, pad = ' ') String 4][t ts(millis) desc_ts SystemTime 8][o added Option<String> >=1] >= 19 bytes"#;
        let mut chars: Vec<char> = valid.chars().collect();
        let i = at.index(chars.len());
        match edit {
            0 => chars[i] = c,
            1 => chars.insert(i, c),
            _ => {
                chars.remove(i);
            }
        }
        let text: String = chars.into_iter().collect();
        if let Ok(layout) = DynLayout::parse(&text) {
            // What parses prints a summary that parses to the same layout.
            let again = DynLayout::parse(&layout.layout().to_string()).unwrap();
            prop_assert_eq!(again.layout().id(), layout.layout().id());
        }
    }
}

#[test]
fn the_example_layout_of_the_panic_test_parses() {
    let layout = DynLayout::parse(r#"T: [prefix "e\x00" 2][salt(a, s)/16 java 1][a desc u32 4][s fixed(4, pad = ' ') String 4][t ts(millis) desc_ts SystemTime 8][o added Option<String> >=1] >= 19 bytes"#).unwrap();
    let key = layout
        .encode(&[7u32.into(), "ab".into(), 5i64.into(), None::<String>.into()])
        .unwrap();
    assert_eq!(key.len(), 19);
    assert_eq!(&key[..2], b"e\x00");
    let err = DynLayout::parse("[a u32] >= 20 bytes").unwrap_err();
    assert_eq!(
        err.to_string(),
        "tail (at byte 8): the text says >= 20 bytes, but the parts make = 4 bytes"
    );
}

/// IP addresses and ULIDs as `Value::from` gives them: the derived bytes.
#[test]
fn addresses_and_ulids_from_their_values() {
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

    #[derive(RowKey)]
    struct Hosts {
        any: IpAddr,
        #[desc]
        v4: Ipv4Addr,
        v6: Ipv6Addr,
        id: ulid::Ulid,
    }
    let dynamic = DynLayout::parse(&Hosts::LAYOUT.to_string()).unwrap();
    assert_eq!(dynamic.layout().id(), Hosts::LAYOUT_ID);
    for any in [
        IpAddr::from([10, 0, 0, 1]),
        IpAddr::from([0xfe80, 0, 0, 0, 0, 0, 0, 1]),
    ] {
        let key = Hosts {
            any,
            v4: Ipv4Addr::new(192, 168, 1, 2),
            v6: Ipv6Addr::LOCALHOST,
            id: ulid::Ulid::from_parts(1_700_000_000_000, 42),
        };
        let values = [
            Value::from(key.any),
            Value::from(key.v4),
            Value::from(key.v6),
            Value::from(key.id),
        ];
        let bytes = key.encode();
        assert_eq!(dynamic.encode(&values).unwrap(), bytes);
        assert_eq!(dynamic.decode(&bytes).unwrap(), values);
    }
}

fn dyn_range<T: Clone + Into<Value>>(
    r: &impl std::ops::RangeBounds<T>,
) -> (Bound<Value>, Bound<Value>) {
    let b = |b: Bound<&T>| match b {
        Bound::Included(v) => Bound::Included(v.clone().into()),
        Bound::Excluded(v) => Bound::Excluded(v.clone().into()),
        Bound::Unbounded => Bound::Unbounded,
    };
    (b(r.start_bound()), b(r.end_bound()))
}

fn parsed<T: RowKey>() -> DynLayout {
    DynLayout::parse(&T::LAYOUT.to_string()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Scans with a range on the next field: the rows `range_by_*` gives,
    /// binary and text, descending (the ends swap), a `#[fixed]` bound
    /// longer than its width (rounded as the derive rounds it), opaque
    /// bytes; and the skip-scan filter of the range alone.
    #[test]
    fn ranges_agree_with_range_by(
        user in any::<u64>(),
        a in 0..i64::MAX / 2,
        len in 0..i64::MAX / 2,
        phone in 0..100_000_000_000u64,
        lo in "[a-c]{0,10}",
        hi in "[a-c]{0,10}",
        tag in any::<[u8; 3]>(),
    ) {
        let b = a + len;
        let d = parsed::<UserEvent::UserEvent>();
        prop_assert_eq!(
            ranges(&UserEvent::UserEvent::range_by_user_id_ts_millis(user, a..b)),
            ranges(&d.scan(&[user.into()], Some(dyn_range(&(a..b)))).unwrap())
        );
        prop_assert_eq!(
            ranges(&UserEvent::UserEvent::filter().ts_millis(a..=b).build().unwrap().scan()),
            ranges(&d.filter().range("ts_millis", dyn_range(&(a..=b))).unwrap().build().unwrap().scan())
        );
        let d = parsed::<TextCall::TextCall>();
        prop_assert_eq!(
            ranges(&TextCall::TextCall::range_by_phone_ts(phone, a..=b).unwrap()),
            ranges(&d.scan(&[phone.into()], Some(dyn_range(&(a..=b)))).unwrap())
        );
        prop_assert_eq!(
            ranges(&TextCall::TextCall::range_by_phone(phone..).unwrap()),
            ranges(&d.scan(&[], Some(dyn_range(&(phone..)))).unwrap())
        );
        let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
        let d = parsed::<Padded::Padded>();
        let derived = Padded::Padded::range_by_kind(lo.as_str()..hi.as_str());
        let ours = d.scan(&[], Some(dyn_range(&(lo.clone()..hi.clone()))));
        match (derived, ours) {
            (Ok(a), Ok(b)) => prop_assert_eq!(ranges(&a), ranges(&b)),
            (a, b) => prop_assert_eq!(a.map(|_| ()).map_err(|e| e.to_string()), b.map(|_| ()).map_err(|e| e.to_string())),
        }
        let d = parsed::<Opaque::Opaque>();
        prop_assert_eq!(
            ranges(&Opaque::Opaque::range_by_tag(tag..)),
            ranges(&d.scan(&[], Some(dyn_range(&(Value::Bytes(tag.to_vec())..)))).unwrap())
        );
    }
}

/// A range over a field whose bytes do not sort by value is refused, as
/// the derive refuses it at compile time.
#[test]
fn no_range_over_a_field_that_does_not_sort_by_value() {
    for (layout, field) in [
        (parsed::<DescRev::DescRev>(), "b"),
        (parsed::<Strings::Strings>(), "dom"),
        (parsed::<TextMetric::TextMetric>(), "host"),
    ] {
        let err = layout
            .filter()
            .range(field, Value::U32(1)..Value::U32(2))
            .unwrap()
            .build()
            .unwrap_err();
        assert!(
            err.to_string().contains("its bytes do not sort by value"),
            "{err}"
        );
    }
}

mod times;

/// Values from their text (what the `rowkey` command reads), each error
/// naming the field and the type it wanted.
#[test]
fn values_from_text() {
    let layout = DynLayout::parse(
        "[id uuid::Uuid][ip std::net::IpAddr][n i16][tag Option<String>][b Vec<u8>]",
    )
    .unwrap();
    let id = "67e55044-10b1-426f-9247-bb680e5fe0c8";
    assert_eq!(
        layout.value("id", id).unwrap(),
        Value::from(id.parse::<uuid::Uuid>().unwrap())
    );
    assert_eq!(
        layout.value("ip", "10.0.0.1").unwrap(),
        Value::from("10.0.0.1".parse::<std::net::IpAddr>().unwrap())
    );
    assert_eq!(layout.value("n", "-7").unwrap(), Value::I16(-7));
    assert_eq!(
        layout.value("tag", "x").unwrap(),
        Value::Option(Some(Box::new(Value::from("x"))))
    );
    assert_eq!(
        layout.value("b", r"a\x00").unwrap(),
        Value::Bytes(b"a\0".to_vec())
    );
    let err = |f: &str, t: &str| layout.value(f, t).unwrap_err().to_string();
    assert_eq!(
        err("ip", "10.0.0"),
        "field `ip`: `10.0.0` is not an IP address"
    );
    assert_eq!(err("n", "40000"), "field `n`: `40000` is not an i16");
    assert_eq!(
        err("m", "1"),
        "field `m`: no such field; the layout's fields are id, ip, n, tag, b"
    );
}

mod families;

mod ordered_code;

mod key_fields;

mod untrusted;
