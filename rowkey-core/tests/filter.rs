//! Skip-scan filters (`T::filter()`), checked against the predicate itself:
//! for random keys of several layouts (salted and not, binary and text, a
//! family prefix, descending, escaped, raw-last, optional and added fields)
//! and random predicates (a value, a range, `any_of` values), on every key
//! - `matches` is the predicate evaluated on the decoded values;
//! - following `seek_hint` through the sorted keys from the empty key
//!   visits exactly the matching keys, each hint is after the key it came
//!   from, and no key between a key and its hint matches;
//! - the Bigtable regex (run by the `regex` crate in bytes mode, `\C` as
//!   any byte) matches exactly the same keys;
//! - `scan()` holds every match, `multi_row_ranges()` (when given) holds
//!   exactly the matches, and the `FuzzyRowFilter` pairs (when given)
//!   match exactly the matches, as HBase's `FuzzyRowFilter` compares them.

use std::ops::Bound;

use proptest::prelude::*;
use rowkey_core::{any_of, prelude::*, KeyFilter};

/// One field's predicate, in value order.
#[derive(Clone, Debug)]
enum Pred<T> {
    Eq(T),
    Range(Bound<T>, Bound<T>),
    AnyOf(Vec<T>),
}

impl<T: Ord + Clone> Pred<T> {
    fn eval(&self, v: &T) -> bool {
        match self {
            Pred::Eq(x) => v == x,
            Pred::Range(lo, hi) => (lo.as_ref(), hi.as_ref()).contains_ref(v),
            Pred::AnyOf(xs) => xs.contains(v),
        }
    }
}

trait ContainsRef<T> {
    fn contains_ref(&self, v: &T) -> bool;
}
impl<T: Ord> ContainsRef<T> for (Bound<&T>, Bound<&T>) {
    fn contains_ref(&self, v: &T) -> bool {
        let lo = match self.0 {
            Bound::Included(x) => v >= x,
            Bound::Excluded(x) => v > x,
            Bound::Unbounded => true,
        };
        let hi = match self.1 {
            Bound::Included(x) => v <= x,
            Bound::Excluded(x) => v < x,
            Bound::Unbounded => true,
        };
        lo && hi
    }
}

/// A predicate over values drawn from `values`: ranges with their ends
/// in order (an inverted range is a programming error, which panics).
fn pred<T: Ord + Clone + std::fmt::Debug + 'static>(
    values: impl Strategy<Value = T> + Clone + 'static,
    ranges: bool,
) -> BoxedStrategy<Option<Pred<T>>> {
    let bound = |v: T, k: u8| match k {
        0 => Bound::Included(v),
        1 => Bound::Excluded(v),
        _ => Bound::Unbounded,
    };
    let eq = values.clone().prop_map(Pred::Eq);
    let any = proptest::collection::vec(values.clone(), 0..4).prop_map(Pred::AnyOf);
    let range = (values.clone(), values, 0..3u8, 0..3u8).prop_map(move |(a, b, ka, kb)| {
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        Pred::Range(bound(a, ka), bound(b, kb))
    });
    if ranges {
        prop_oneof![2 => Just(None), 1 => eq.prop_map(Some), 1 => any.prop_map(Some), 2 => range.prop_map(Some)].boxed()
    } else {
        prop_oneof![2 => Just(None), 1 => eq.prop_map(Some), 1 => any.prop_map(Some)].boxed()
    }
}

/// Applies an owned-value predicate to a builder method.
macro_rules! apply {
    ($b:ident . $f:ident, $p:expr) => {
        match $p {
            None => $b,
            Some(Pred::Eq(v)) => $b.$f(v.clone()),
            Some(Pred::Range(lo, hi)) => $b.$f((lo.clone(), hi.clone())),
            Some(Pred::AnyOf(vs)) => $b.$f(any_of(vs.clone())),
        }
    };
    (str $b:ident . $f:ident, $p:expr) => {
        match $p {
            None => $b,
            Some(Pred::Eq(v)) => $b.$f(v.as_str()),
            Some(Pred::Range(lo, hi)) => $b.$f((
                lo.as_ref().map(String::as_str),
                hi.as_ref().map(String::as_str),
            )),
            Some(Pred::AnyOf(vs)) => {
                $b.$f(any_of(vs.iter().map(String::as_str).collect::<Vec<_>>()))
            }
        }
    };
}

/// The regex crate's reading of a Bigtable pattern: bytes, anchored, `\C`
/// as any byte.
fn regex_of(filter: &KeyFilter) -> regex::bytes::Regex {
    let pattern = String::from_utf8(filter.bigtable_regex()).expect("the pattern is ASCII");
    let pattern = pattern.replace("\\C", "(?s-u:.)");
    regex::bytes::RegexBuilder::new(&format!("(?-u)^(?:{pattern})$"))
        .size_limit(1 << 26)
        .build()
        .unwrap_or_else(|e| panic!("{pattern}: {e}"))
}

/// HBase `FuzzyRowFilter`'s test: some pair's fixed bytes are the key's.
fn fuzzy_matches(pairs: &[(Vec<u8>, Vec<u8>)], key: &[u8]) -> bool {
    pairs.iter().any(|(k, m)| {
        key.len() >= k.len()
            && k.iter()
                .zip(m)
                .zip(key)
                .all(|((k, m), b)| *m == 1 || k == b)
    })
}

/// Every property, for sorted, distinct keys and whether each matches.
fn check(filter: &KeyFilter, keys: &[(Vec<u8>, bool)]) {
    for (k, want) in keys {
        assert_eq!(
            filter.matches(k),
            *want,
            "matches({k:?}), filter {filter:?}"
        );
    }
    // The skip scan over a sorted store.
    let first = |from: &[u8]| keys.partition_point(|(k, _)| k.as_slice() < from);
    let mut visited = Vec::new();
    let mut cursor = filter.seek_hint(&[]);
    while let Some(at) = cursor.take() {
        let i = first(&at);
        // No key between where the hint came from and the hint matches
        // (checked where each hint is made, below); here: it is a lower
        // bound of what is left.
        let Some((k, m)) = keys.get(i) else { break };
        if *m {
            visited.push(k.clone());
            let mut next = k.clone();
            next.push(0);
            cursor = Some(next);
        } else {
            let hint = filter.seek_hint(k);
            if let Some(h) = &hint {
                assert!(h > k, "the hint {h:?} of {k:?} does not move on");
                let skipped = &keys[i..first(h)];
                assert!(
                    skipped.iter().all(|(_, m)| !m),
                    "the hint {h:?} of {k:?} skips a match"
                );
            } else {
                assert!(
                    keys[i..].iter().all(|(_, m)| !m),
                    "no hint after {k:?}, but a match"
                );
            }
            cursor = hint;
        }
    }
    let want: Vec<Vec<u8>> = keys
        .iter()
        .filter(|(_, m)| *m)
        .map(|(k, _)| k.clone())
        .collect();
    assert_eq!(visited, want, "the skip scan's keys");
    // The regex.
    // Every layout here has parts a regex can delimit.
    assert!(filter.regex_is_exact());
    let re = regex_of(filter);
    for (k, m) in keys {
        assert_eq!(
            re.is_match(k),
            *m,
            "regex on {k:?}: {}",
            String::from_utf8_lossy(&filter.bigtable_regex())
        );
    }
    // The scan holds every match.
    let scan = filter.scan();
    for (k, m) in keys {
        if *m {
            assert!(scan.ranges().any(|r| r.contains(k)), "scan misses {k:?}");
        }
    }
    if let Some(ranges) = filter.multi_row_ranges() {
        for (k, m) in keys {
            let inside = ranges
                .iter()
                .any(|(a, b)| k >= a && (b.is_empty() || k < b));
            assert_eq!(inside, *m, "multi_row_ranges on {k:?}");
        }
    }
    if let Some(pairs) = filter.fuzzy_row_filter() {
        for (k, m) in keys {
            assert_eq!(fuzzy_matches(&pairs, k), *m, "fuzzy on {k:?}: {pairs:?}");
        }
    }
    // Ranges over few values as those values.
    if let Some(pairs) = filter.fuzzy_row_filter_enumerated() {
        assert!(pairs.len() <= rowkey_core::scan::MAX_FUZZY_KEYS);
        for (k, m) in keys {
            assert_eq!(
                fuzzy_matches(&pairs, k),
                *m,
                "enumerated fuzzy on {k:?}: {pairs:?}"
            );
        }
    }
}

/// Encodes, sorts and dedups the rows, each with the predicate's verdict.
fn keyed<T: RowKey>(rows: &[T], eval: impl Fn(&T) -> bool) -> Vec<(Vec<u8>, bool)> {
    let mut keys: Vec<(Vec<u8>, bool)> = rows
        .iter()
        .filter_map(|r| r.encode_to_vec().ok().map(|k| (k, eval(r))))
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

fn small_string() -> BoxedStrategy<String> {
    proptest::collection::vec(
        prop_oneof![Just('a'), Just('b'), Just('\u{0}'), Just('\u{ff}')],
        0..4,
    )
    .prop_map(|c| c.into_iter().collect())
    .boxed()
}

// A salted key with a descending timestamp, an escaped string and raw bytes.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 4, by(user))]
struct Events {
    user: u8,
    #[desc_ts]
    ts: i64,
    name: String,
    tail: Vec<u8>,
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn salted_desc_escaped_raw(
        rows in proptest::collection::vec((0..6u8, -3..4i64, small_string(), proptest::collection::vec(0..3u8, 0..3)), 0..60),
        user in pred(0..6u8, true),
        ts in pred(-3..4i64, true),
        name in pred(small_string(), true),
        tail in pred(proptest::collection::vec(0..3u8, 0..3), true),
    ) {
        let rows: Vec<Events> = rows.into_iter().map(|(user, ts, name, tail)| Events { user, ts, name, tail }).collect();
        let b = Events::filter();
        let b = apply!(b.user, &user);
        let b = apply!(b.ts, &ts);
        let b = apply!(str b.name, &name);
        let b = match &tail {
            None => b,
            Some(Pred::Eq(v)) => b.tail(v.as_slice()),
            Some(Pred::Range(lo, hi)) => b.tail((lo.as_ref().map(Vec::as_slice), hi.as_ref().map(Vec::as_slice))),
            Some(Pred::AnyOf(vs)) => b.tail(any_of(vs.iter().map(Vec::as_slice).collect::<Vec<_>>())),
        };
        let filter = b.build().unwrap();
        let eval = |r: &Events| {
            user.as_ref().map_or(true, |p| p.eval(&r.user))
                && ts.as_ref().map_or(true, |p| p.eval(&r.ts))
                && name.as_ref().map_or(true, |p| p.eval(&r.name))
                && tail.as_ref().map_or(true, |p| p.eval(&r.tail))
        };
        check(&filter, &keyed(&rows, eval));
    }
}

// A family prefix, descending and optional fields, a descending string,
// unsalted, fixed-width up to the string.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "M")]
struct Metric {
    metric: u8,
    #[desc]
    host: u16,
    region: Option<u8>,
    #[desc]
    label: String,
    ts: i32,
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn prefixed_desc_optional(
        rows in proptest::collection::vec((0..3u8, 250..260u16, proptest::option::of(0..3u8), small_string(), -2..3i32), 0..60),
        metric in pred(0..3u8, true),
        host in pred(250..260u16, true),
        region in pred(proptest::option::of(0..3u8), true),
        label in pred(small_string(), true),
        ts in pred(-2..3i32, true),
    ) {
        let rows: Vec<Metric> = rows.into_iter().map(|(metric, host, region, label, ts)| Metric { metric, host, region, label, ts }).collect();
        let b = Metric::filter();
        let b = apply!(b.metric, &metric);
        let b = apply!(b.host, &host);
        let b = apply!(b.region, &region);
        let b = apply!(str b.label, &label);
        let b = apply!(b.ts, &ts);
        let filter = b.build().unwrap();
        let eval = |r: &Metric| {
            metric.as_ref().map_or(true, |p| p.eval(&r.metric))
                && host.as_ref().map_or(true, |p| p.eval(&r.host))
                && region.as_ref().map_or(true, |p| p.eval(&r.region))
                && label.as_ref().map_or(true, |p| p.eval(&r.label))
                && ts.as_ref().map_or(true, |p| p.eval(&r.ts))
        };
        check(&filter, &keyed(&rows, eval));
    }
}

// A text key: mod salt, digits, a descending timestamp's digits, a string
// between separators (values only) and a last string.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(text, sep = "_")]
#[salt(buckets = 10, by(phone), hash = "mod")]
struct Call {
    #[digits(3)]
    phone: u64,
    #[desc_ts]
    ts: i64,
    city: String,
    tag: String,
}

fn word() -> BoxedStrategy<String> {
    proptest::collection::vec(prop_oneof![Just('a'), Just('b')], 0..3)
        .prop_map(|c| c.into_iter().collect())
        .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn text_key(
        rows in proptest::collection::vec((0..30u64, 0..5i64, word(), word()), 0..60),
        phone in pred(0..30u64, true),
        ts in pred(0..5i64, true),
        city in pred(word(), false),
        tag in pred(word(), true),
    ) {
        let rows: Vec<Call> = rows.into_iter().map(|(phone, ts, city, tag)| Call { phone, ts, city, tag }).collect();
        let b = Call::filter();
        let b = apply!(b.phone, &phone);
        let b = apply!(b.ts, &ts);
        let b = match &city {
            None => b,
            Some(Pred::Eq(v)) => b.city(v.as_str()),
            Some(Pred::AnyOf(vs)) => b.city(any_of(vs.iter().map(String::as_str).collect::<Vec<_>>())),
            Some(Pred::Range(..)) => unreachable!("values only"),
        };
        let b = apply!(str b.tag, &tag);
        let filter = b.build().unwrap();
        let eval = |r: &Call| {
            phone.as_ref().map_or(true, |p| p.eval(&r.phone))
                && ts.as_ref().map_or(true, |p| p.eval(&r.ts))
                && city.as_ref().map_or(true, |p| p.eval(&r.city))
                && tag.as_ref().map_or(true, |p| p.eval(&r.tag))
        };
        check(&filter, &keyed(&rows, eval));
    }
}

#[test]
fn a_fixed_salt_reads_one_bucket_and_a_bad_value_is_an_error() {
    let filter = Events::filter().user(3).ts(0..10).build().unwrap();
    let scan = filter.scan();
    assert_eq!(scan.range_count(), 1);
    let key = Events {
        user: 3,
        ts: 5,
        name: "x".into(),
        tail: vec![],
    }
    .encode_to_vec()
    .unwrap();
    assert!(scan.ranges().next().unwrap().contains(&key));
    // Not fixed: one range per bucket.
    assert_eq!(
        Events::filter()
            .ts(0..10)
            .build()
            .unwrap()
            .scan()
            .range_count(),
        4
    );

    #[derive(RowKey)]
    struct Short {
        id: u8,
        #[fixed(2)]
        code: String,
    }
    let err = Short::filter().code("abc").build().unwrap_err();
    assert!(err.to_string().contains("code"), "{err}");
}

// Field enums (a signed repr), a nested key, bool and a descending char.
#[derive(rowkey_core::KeyField, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(i16)]
enum Level {
    Low = -5,
    Mid = 0,
    High = 300,
}

#[derive(RowKey, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Device {
    site: u8,
    n: i16,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
struct Mixed {
    level: Level,
    device: Device,
    on: bool,
    #[desc]
    c: char,
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn enums_nested_keys_bool_char(
        rows in proptest::collection::vec((0..3usize, 0..3u8, -2..2i16, any::<bool>(), proptest::sample::select(vec!['a', 'z', 'é', '\u{10ffff}'])), 0..60),
        level in pred(proptest::sample::select(vec![Level::Low, Level::Mid, Level::High]), true),
        device in pred((0..3u8, -2..2i16).prop_map(|(site, n)| Device { site, n }), true),
        on in pred(any::<bool>(), true),
        c in pred(proptest::sample::select(vec!['a', 'z', 'é', '\u{10ffff}']), true),
    ) {
        let levels = [Level::Low, Level::Mid, Level::High];
        let rows: Vec<Mixed> = rows
            .into_iter()
            .map(|(l, site, n, on, c)| Mixed { level: levels[l], device: Device { site, n }, on, c })
            .collect();
        let b = Mixed::filter();
        let b = apply!(b.level, &level);
        let b = apply!(b.device, &device);
        let b = apply!(b.on, &on);
        let b = apply!(b.c, &c);
        let filter = b.build().unwrap();
        let eval = |r: &Mixed| {
            level.as_ref().map_or(true, |p| p.eval(&r.level))
                && device.as_ref().map_or(true, |p| p.eval(&r.device))
                && on.as_ref().map_or(true, |p| p.eval(&r.on))
                && c.as_ref().map_or(true, |p| p.eval(&r.c))
        };
        check(&filter, &keyed(&rows, eval));
    }
}

#[derive(RowKey, Debug, Clone, PartialEq)]
struct ShipmentV1 {
    depot: u16,
    seq: u32,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
struct ShipmentV2 {
    depot: u16,
    seq: u32,
    #[rowkey(added)]
    region: Option<u16>,
}

#[test]
fn keys_written_before_a_field_was_added_match() {
    let filter = ShipmentV2::filter().seq(10..20).build().unwrap();
    let old = ShipmentV1 { depot: 1, seq: 12 }.encode_to_vec().unwrap();
    let new = ShipmentV2 {
        depot: 1,
        seq: 12,
        region: Some(3),
    }
    .encode_to_vec()
    .unwrap();
    let other = ShipmentV2 {
        depot: 1,
        seq: 25,
        region: Some(3),
    }
    .encode_to_vec()
    .unwrap();
    let keys = [(old, true), (new, true), (other, false)];
    let mut sorted = keys.to_vec();
    sorted.sort();
    check(&filter, &sorted);
}

/// A key type written by a `macro_rules!` macro from its caller's field
/// names: the derive uses those names as local variables (scan parameters,
/// the salt's `by` values), which must keep their hygiene. It did not
/// compile before the derive kept each token's resolution.
macro_rules! key_type {
    ($name:ident { $first:ident: $t1:ty, $second:ident: $t2:ty }) => {
        #[derive(RowKey, Debug, PartialEq)]
        #[salt(buckets = 8, by($first))]
        struct $name {
            $first: $t1,
            $second: $t2,
        }
    };
}

key_type!(MacroMade {
    user: String,
    ts: i64
});

#[test]
fn a_key_type_written_by_a_macro_compiles_and_scans() {
    let key = MacroMade {
        user: "a\0b".into(),
        ts: 5,
    };
    let bytes = key.encode_to_vec().unwrap();
    assert_eq!(MacroMade::decode(&bytes).unwrap(), key);
    let scan = MacroMade::scan_by_user("a\0b");
    assert_eq!(scan.ranges().count(), 1);
    assert!(scan.ranges().next().unwrap().contains(&bytes));
    // The filter finds the bucket of an escaped string too.
    let filter = MacroMade::filter().user("a\0b").build().unwrap();
    assert_eq!(filter.scan().ranges().count(), 1);
    assert!(filter.matches(&bytes));
}

// Two predicates on one field keep what both allow (one merge of the two
// sorted interval lists), on a fixed-width and on an escaped field.
proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn two_predicates_on_one_field_keep_what_both_allow(
        rows in proptest::collection::vec((0..6u8, -3..4i64, small_string(), proptest::collection::vec(0..3u8, 0..3)), 0..60),
        ts1 in pred(-3..4i64, true),
        ts2 in pred(-3..4i64, true),
        name1 in pred(small_string(), true),
        name2 in pred(small_string(), true),
    ) {
        let rows: Vec<Events> = rows.into_iter().map(|(user, ts, name, tail)| Events { user, ts, name, tail }).collect();
        let b = Events::filter();
        let b = apply!(b.ts, &ts1);
        let b = apply!(b.ts, &ts2);
        let b = apply!(str b.name, &name1);
        let b = apply!(str b.name, &name2);
        let filter = b.build().unwrap();
        let eval = |r: &Events| {
            [&ts1, &ts2].iter().all(|p| p.as_ref().map_or(true, |p| p.eval(&r.ts)))
                && [&name1, &name2].iter().all(|p| p.as_ref().map_or(true, |p| p.eval(&r.name)))
        };
        check(&filter, &keyed(&rows, eval));
    }
}

#[test]
fn a_filter_past_its_interval_limit_is_an_error_naming_the_field() {
    use rowkey_core::scan::MAX_FILTER_INTERVALS;
    // Values far enough apart that no two intervals touch.
    let many = (0..=MAX_FILTER_INTERVALS as i64).map(|t| t * 2);
    let err = Events::filter().ts(any_of(many)).build().unwrap_err();
    assert_eq!(
        err,
        EncodeError::TooManyIntervals {
            field: "ts",
            limit: MAX_FILTER_INTERVALS
        }
    );
    assert!(err.to_string().starts_with("field `ts`: "), "{err}");
    // An endless list stops at the limit instead of filling memory.
    let err = Events::filter()
        .ts(any_of((0..).map(|t: i64| t * 2)))
        .build();
    assert!(matches!(
        err,
        Err(EncodeError::TooManyIntervals { field: "ts", .. })
    ));
    // At the limit it builds, and values that touch merge first.
    let at_limit = (0..MAX_FILTER_INTERVALS as i64).map(|t| t * 2);
    assert!(Events::filter().ts(any_of(at_limit)).build().is_ok());
    let touching = 0..=2 * MAX_FILTER_INTERVALS as i64;
    assert!(Events::filter().ts(any_of(touching)).build().is_ok());
}

#[test]
fn a_regex_past_bigtables_filter_size_is_not_sent_and_not_exact() {
    use rowkey_core::scan::MAX_REGEX_LEN;
    // 2,000 separate names: a pattern of well over 16 KiB.
    let names: Vec<String> = (0..2_000).map(|i| format!("name-{i:05}")).collect();
    let filter = Events::filter()
        .name(any_of(names.iter().map(String::as_str).collect::<Vec<_>>()))
        .build()
        .unwrap();
    let regex = filter.bigtable_row_regex();
    assert_eq!(regex.pattern, None);
    assert!(!regex.exact && !filter.regex_is_exact());
    // What bigtable_regex still gives: any key, checked on the client.
    assert_eq!(filter.bigtable_regex(), b"(?s)\\C*");
    // A few names: a pattern under the cap, exact.
    let filter = Events::filter()
        .name(any_of(
            names[..20].iter().map(String::as_str).collect::<Vec<_>>(),
        ))
        .build()
        .unwrap();
    let regex = filter.bigtable_row_regex();
    let pattern = regex.pattern.expect("20 names fit");
    assert!(pattern.len() <= MAX_REGEX_LEN && regex.exact);
}

#[test]
fn long_bounds_build_a_regex_without_a_recursion_per_byte() {
    // A range over 200,000-byte strings: a recursion per byte would go
    // 200,000 frames deep on a test thread's 2 MiB stack; the walk is a
    // loop.
    let lo = "a".repeat(200_000);
    let hi = format!("{}b", "a".repeat(199_999));
    let filter = Events::filter()
        .name(lo.as_str()..hi.as_str())
        .build()
        .unwrap();
    assert_eq!(filter.bigtable_row_regex().pattern, None);
    // Shorter bounds give an exact pattern the regex engine agrees with.
    let lo = "a".repeat(300);
    let hi = format!("{}b", "a".repeat(299));
    let filter = Events::filter()
        .name(lo.as_str()..hi.as_str())
        .build()
        .unwrap();
    let re = regex_of(&filter);
    let key = |name: &str| {
        Events {
            user: 1,
            ts: 0,
            name: name.to_owned(),
            tail: vec![],
        }
        .encode_to_vec()
        .unwrap()
    };
    assert!(re.is_match(&key(&lo)));
    assert!(re.is_match(&key(&format!("{lo}z"))));
    assert!(!re.is_match(&key(&hi)));
    assert!(!re.is_match(&key(&"a".repeat(299))));
}

/// Parts are told apart by kind, not by name: fields named `salt` and
/// `prefix` are fields like any other, in a derived filter (its
/// `FuzzyRowFilter`) and in a run-time layout's text.
#[test]
fn fields_named_salt_and_prefix_are_fields() {
    #[derive(RowKey, Debug, Clone, PartialEq)]
    struct Named {
        prefix: u8,
        salt: u16,
        ts: i64,
    }
    let filter = Named::filter().salt(5).build().unwrap();
    let key = |prefix, salt| {
        Named {
            prefix,
            salt,
            ts: 1,
        }
        .encode()
    };
    assert!(filter.matches(&key(1, 5)) && !filter.matches(&key(1, 6)));
    // The constraint on `salt` is sent: fixed at offset 1, two bytes.
    let pairs = filter.fuzzy_row_filter().expect("a fixed-offset value");
    assert_eq!(pairs, [(vec![0, 0, 5], vec![1, 0, 0])]);
    let dynamic = rowkey_core::DynLayout::parse(&Named::LAYOUT.to_string()).unwrap();
    assert_eq!(dynamic.layout().id(), Named::LAYOUT_ID);
    assert_eq!(
        dynamic.decode(&key(7, 5)).unwrap()[0],
        rowkey_core::Value::U8(7)
    );
}

/// A range that holds no whole value of a fixed-width field (`..false`
/// holds only the empty string) allows nothing: the filter knows it at
/// once, instead of a skip scan stepping through every value of the fields
/// before it.
#[test]
fn a_range_with_no_whole_value_of_a_fixed_field_allows_nothing() {
    #[derive(RowKey, Debug, Clone, PartialEq)]
    struct Flag {
        id: u16,
        on: bool,
        n: u32,
    }
    let filter = Flag::filter().on(..false).build().unwrap();
    assert_eq!(filter.seek_hint(&[]), None);
    assert_eq!(filter.scan().range_count(), 0);
    let key = Flag {
        id: 1,
        on: false,
        n: 2,
    }
    .encode();
    assert!(!filter.matches(&key));
    assert_eq!(filter.seek_hint(&key), None);
    // A range that does hold one is kept: `..=false` is `false`.
    let filter = Flag::filter().on(..=false).build().unwrap();
    assert!(filter.matches(&key));
    let hint = filter.seek_hint(&[]).expect("keys can match");
    assert!(hint.as_slice() <= key.as_slice(), "{hint:?}");
}

/// A range over few values of a fixed-width field that is not leading
/// becomes those values (signed, descending and exclusive ends included);
/// past `MAX_FUZZY_KEYS` values, or on a leading range, nothing changes.
#[test]
fn a_range_over_few_values_is_a_fuzzy_row_filter_of_them() {
    #[derive(RowKey, Debug)]
    #[salt(buckets = 4, by(site))]
    struct Visit {
        site: u16,
        #[desc]
        day: i32,
        delta: i8,
        user: u64,
    }
    let count = |f: KeyFilter| f.fuzzy_row_filter_enumerated().map(|p| p.len());
    let f = Visit::filter().day(-1..=1).build().unwrap();
    assert_eq!(f.fuzzy_row_filter(), None);
    assert_eq!(count(f), Some(3));
    assert_eq!(count(Visit::filter().day(-1..1).build().unwrap()), Some(2));
    assert_eq!(
        count(Visit::filter().day(0..10).delta(-2..2).build().unwrap()),
        Some(40)
    );
    assert_eq!(count(Visit::filter().day(0..300).build().unwrap()), None);
    assert_eq!(
        count(Visit::filter().day(0..20).delta(-10..10).build().unwrap()),
        None,
        "400 combinations"
    );
    // Every enumerated key matches, and a key one day out does not.
    let f = Visit::filter().day(5..8).build().unwrap();
    let pairs = f.fuzzy_row_filter_enumerated().unwrap();
    for day in 0..12 {
        let key = Visit {
            site: 9,
            day,
            delta: 0,
            user: 1,
        }
        .encode_to_vec()
        .unwrap();
        assert_eq!(fuzzy_matches(&pairs, &key), (5..8).contains(&day), "{day}");
        assert_eq!(f.matches(&key), (5..8).contains(&day));
    }
}

/// The serialized form rowkey's Java filter reads (FORMAT.md, "The
/// server-side filter"), frozen: a change to these bytes breaks every region
/// server running an older jar.
#[test]
fn serialized_filters_are_the_golden_vectors() {
    #[derive(RowKey)]
    struct Metric {
        metric: u16,
        host: String,
    }
    #[derive(RowKey)]
    #[rowkey(prefix = "E")]
    #[salt(buckets = 4, by(user))]
    struct Tagged {
        user: u32,
        note: Option<String>,
        #[desc]
        name: String,
        #[rowkey(added)]
        region: Option<u16>,
    }
    #[derive(RowKey)]
    #[rowkey(text, sep = "::")]
    struct Path {
        dir: String,
        #[digits(3)]
        n: u32,
    }
    let golden = include_str!("golden/filter.txt");
    let vector = |name: &str| -> Vec<u8> {
        let line = golden
            .lines()
            .find(|l| l.split(' ').next() == Some(name))
            .unwrap_or_else(|| panic!("no golden vector `{name}`"));
        let hex = line.split(' ').nth(1).unwrap();
        (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect()
    };
    let cases: [(&str, KeyFilter); 4] = [
        ("raw_last", Metric::filter().host("web1").build().unwrap()),
        (
            "fixed_range",
            Metric::filter().metric(3..7).build().unwrap(),
        ),
        (
            "prefix_salt_desc_tagged_added",
            Tagged::filter().name("a\0").note(None).build().unwrap(),
        ),
        (
            "text_delimited",
            Path::filter().dir("etc").n(5).build().unwrap(),
        ),
    ];
    for (name, filter) in cases {
        assert_eq!(
            filter.to_bytes().unwrap(),
            vector(name),
            "`{name}`: the serialized filter changed"
        );
    }
}
