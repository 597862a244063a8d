//! `#[derive(KeyField)]` enums: a run-time layout reads one as its repr
//! integer (the summary and JSON carry the variants), refuses another
//! discriminant as the derived type does, explains the variant by name and
//! takes a variant's name as a value.

use super::*;

#[derive(KeyField, Debug, Clone, Copy, PartialEq)]
#[repr(u8)]
pub enum Kind {
    Click = 1,
    View = 2,
    Buy = 200,
}

#[derive(KeyField, Debug, Clone, Copy, PartialEq)]
#[repr(i16)]
pub enum Level {
    Low = -300,
    Mid = 0,
    High = 300,
}

fn kind() -> impl Strategy<Value = Kind> {
    prop::sample::select(vec![Kind::Click, Kind::View, Kind::Buy])
}

fn level() -> impl Strategy<Value = Level> {
    prop::sample::select(vec![Level::Low, Level::Mid, Level::High])
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 8, by(kind))]
struct Event {
    kind: Kind,
    #[desc]
    level: Level,
    #[reverse]
    rev: Kind,
    opt: Option<Kind>,
    #[desc]
    dopt: Option<Level>,
    id: u32,
    #[rowkey(added)]
    more: Option<Kind>,
}

fn d(k: Kind) -> Value {
    Value::U8(k as u8)
}

fn l(v: Level) -> Value {
    Value::I16(v as i16)
}

fn opt(v: Option<Value>) -> Value {
    Value::Option(v.map(Box::new))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn agree_with_the_derive(
        kind in kind(), level in level(), rev in kind(),
        o in proptest::option::of(kind()), dopt in proptest::option::of(level()),
        id in any::<u32>(), more in proptest::option::of(kind()),
        other in kind(),
    ) {
        let e = Event { kind, level, rev, opt: o, dopt, id, more };
        let values = vec![d(kind), l(level), d(rev), opt(o.map(d)), opt(dopt.map(l)), Value::U32(id), opt(more.map(d))];
        let mut o2 = e.clone();
        o2.kind = other;
        let other_key = o2.encode_to_vec().unwrap();
        let all = Event::filter().kind(kind).level(level).rev(rev).opt(o).dopt(dopt).id(id).build();
        let first = Event::filter().kind(kind).build();
        check(&e, &values, &other_key, 6, all, first);
    }
}

#[test]
fn summary_json_and_refusals() {
    let summary = Event::LAYOUT.to_string();
    assert!(
        summary.contains("[kind Kind(u8: Click = 1, View = 2, Buy = 200) 1][level desc Level(i16: Low = -300, Mid = 0, High = 300) 2]"),
        "{summary}"
    );
    assert!(
        summary.contains("[opt Option<Kind>(u8: Click = 1, View = 2, Buy = 200) 2]"),
        "{summary}"
    );
    let json = Event::LAYOUT.to_json();
    assert!(
        json.contains(r#""enum":{"repr":"u8","variants":[{"name":"Click","value":1},{"name":"View","value":2},{"name":"Buy","value":200}]}"#),
        "{json}"
    );
    let dynamic = DynLayout::parse(&summary).unwrap();
    let info = dynamic.layout().fields()[1].key_field().unwrap();
    assert_eq!(
        (info.name(), info.repr(), info.variant(-300)),
        ("Level", "i16", Some("Low"))
    );
    // A discriminant of no variant: the derived error, decoding and
    // explaining; refused when encoding.
    let mut key = Event {
        kind: Kind::View,
        level: Level::Mid,
        rev: Kind::Click,
        opt: None,
        dopt: None,
        id: 1,
        more: None,
    }
    .encode_to_vec()
    .unwrap();
    key[1] = 9;
    let derived = Event::decode(&key).unwrap_err();
    assert_eq!(
        derived.to_string(),
        "field `kind`: not the discriminant of a variant of `Kind`"
    );
    assert_eq!(dynamic.decode(&key).unwrap_err(), derived);
    assert_eq!(
        dynamic
            .explain(&key[..])
            .to_string()
            .replace("DynLayout", "Event"),
        Event::explain(&key[..]).to_string()
    );
    let values = [
        Value::U8(9),
        l(Level::Mid),
        d(Kind::Click),
        opt(None),
        opt(None),
        Value::U32(1),
        opt(None),
    ];
    let err = dynamic.encode(&values).unwrap_err().to_string();
    assert!(
        err.contains("`kind`") && err.contains("discriminant"),
        "{err}"
    );
    // Variants by name.
    assert_eq!(dynamic.value("kind", "View").unwrap(), Value::U8(2));
    assert_eq!(dynamic.value("level", "Low").unwrap(), Value::I16(-300));
    assert_eq!(
        dynamic.value("opt", "Buy").unwrap(),
        opt(Some(Value::U8(200)))
    );
    assert_eq!(dynamic.value("kind", "7").unwrap(), Value::U8(7));
    // Text that is no enum.
    let err = |t: &str| DynLayout::parse(t).unwrap_err().to_string();
    assert!(err("[k Kind(u9: A = 1) 1]").contains("not an enum's integer repr"));
    assert!(err("[k Kind(u8: A = 1, B = 1) 1]").contains("distinct"));
    assert!(err("[k Kind(u8 A = 1) 1]").contains("repr"));
    assert!(err(r#"text("_") [k desc Kind(u8: A = 1) 3]"#)
        .contains("only the built-in unsigned integers"));
}

/// Discriminants beyond what a JSON reader's 64-bit integers hold are
/// written as strings of digits, and read back.
#[test]
fn wide_discriminants_in_json() {
    #[derive(KeyField, Debug, Clone, Copy, PartialEq)]
    #[repr(u64)]
    enum Big {
        Top = u64::MAX,
    }
    #[derive(KeyField, Debug, Clone, Copy, PartialEq)]
    #[repr(i128)]
    enum Wide {
        Bottom = i128::MIN,
        Zero = 0,
    }
    #[derive(RowKey, Debug, Clone, PartialEq)]
    struct Key {
        big: Big,
        wide: Wide,
    }
    let json = Key::LAYOUT.to_json();
    assert!(
        json.contains(r#"{"name":"Top","value":18446744073709551615}"#),
        "{json}"
    );
    assert!(
        json.contains(r#"{"name":"Bottom","value":"-170141183460469231731687303715884105728"}"#),
        "{json}"
    );
    assert!(json.contains(r#"{"name":"Zero","value":0}"#), "{json}");
    let back = DynLayout::from_json(&json).unwrap();
    let wide = back.layout().fields()[1].key_field().unwrap();
    assert_eq!(wide.variant(i128::MIN), Some("Bottom"));
    let key = Key {
        big: Big::Top,
        wide: Wide::Bottom,
    }
    .encode();
    assert_eq!(
        back.decode(&key).unwrap(),
        [Value::U64(u64::MAX), Value::I128(i128::MIN)]
    );
}

/// A text key's enums: the discriminant's digits (a sign for a signed
/// repr), as the golden vectors' `TextEvent`.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(text, sep = "_")]
#[salt(buckets = 4, by(kind))]
struct TextEvent {
    kind: Kind,
    #[digits(4)]
    level: Level,
    user: u32,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn text_keys_agree_with_the_derive(kind in kind(), level in level(), user in any::<u32>(), other in kind()) {
        let e = TextEvent { kind, level, user };
        let values = vec![d(kind), l(level), Value::U32(user)];
        let other_key = TextEvent { kind: other, level, user }.encode_to_vec().unwrap();
        let all = TextEvent::filter().kind(kind).level(level).user(user).build();
        let first = TextEvent::filter().kind(kind).build();
        check(&e, &values, &other_key, 3, all, first);
    }
}

#[test]
fn a_text_key_refuses_a_discriminant_of_no_variant() {
    let summary = TextEvent::LAYOUT.to_string();
    assert!(
        summary.contains("[kind digits(3) Kind(u8: Click = 1, View = 2, Buy = 200) 4]"),
        "{summary}"
    );
    let dynamic = DynLayout::parse(&summary).unwrap();
    let key = b"0_007_-0300_0000000001";
    let derived = TextEvent::decode(key).unwrap_err();
    assert_eq!(dynamic.decode(key).unwrap_err(), derived);
    assert_eq!(
        dynamic
            .explain(&key[..])
            .to_string()
            .replace("DynLayout", "TextEvent"),
        TextEvent::explain(&key[..]).to_string()
    );
    let values = [Value::U8(7), l(Level::Low), Value::U32(1)];
    assert!(dynamic
        .encode(&values)
        .unwrap_err()
        .to_string()
        .contains("`kind`"));
}
