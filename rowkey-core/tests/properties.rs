//! Property tests over every field type and attribute combination:
//! round-trip, order preservation (memcmp order of the keys equals the
//! values' order, field by field, reversed for `#[desc]`/`#[desc_ts]`),
//! canonical decoding, and no panic on arbitrary or truncated input.

use std::borrow::Cow;
use std::cmp::{Ordering, Reverse};
use std::fmt::Debug;

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use rowkey_core::prelude::*;

// ---------- strategies ----------

/// Bytes biased toward the escape and terminator bytes and 0xFF.
fn edge_bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            Just(0u8),
            Just(1u8),
            Just(0xFEu8),
            Just(0xFFu8),
            any::<u8>()
        ],
        0..max,
    )
}

/// Strings biased toward NUL, U+0001, ASCII and the largest code points.
fn edge_string(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just('\0'),
            Just('\u{1}'),
            Just('a'),
            Just('b'),
            Just('\u{FFFF}'),
            Just('\u{10FFFF}'),
            any::<char>()
        ],
        0..max,
    )
    .prop_map(String::from_iter)
}

/// Integers biased toward 0, 1, MIN and MAX.
macro_rules! edge_int {
    ($t:ty) => {
        prop_oneof![
            Just(0 as $t),
            Just(1 as $t),
            Just(<$t>::MIN),
            Just(<$t>::MAX),
            any::<$t>()
        ]
    };
}

/// A `#[fixed(n)]` value: at most `n` bytes, not ending in `pad`.
fn padded_bytes(n: usize, pad: u8) -> impl Strategy<Value = Vec<u8>> {
    edge_bytes(n + 1).prop_filter("fits #[fixed] and does not end in the pad byte", move |b| {
        b.len() <= n && b.last() != Some(&pad)
    })
}

fn padded_string(n: usize) -> impl Strategy<Value = String> {
    edge_string(n + 1).prop_filter("fits #[fixed]", move |s| s.len() <= n && !s.ends_with('\0'))
}

/// f64 with the special values (NaN, infinities, signed zeros, subnormals) common.
fn edge_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(-f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(0.0),
        Just(-0.0),
        Just(f64::MIN_POSITIVE / 2.0),
        any::<u64>().prop_map(f64::from_bits),
    ]
}

fn edge_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        Just(f32::NAN),
        Just(-0.0f32),
        Just(0.0f32),
        Just(f32::NEG_INFINITY),
        any::<u32>().prop_map(f32::from_bits)
    ]
}

/// Floats compared by `total_cmp`, the order format v1 promises.
#[derive(Debug, Clone, Copy)]
struct Total<T>(T);
impl PartialEq for Total<f64> {
    fn eq(&self, o: &Self) -> bool {
        self.0.total_cmp(&o.0).is_eq()
    }
}
impl Eq for Total<f64> {}
impl PartialOrd for Total<f64> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Total<f64> {
    fn cmp(&self, o: &Self) -> Ordering {
        self.0.total_cmp(&o.0)
    }
}
impl PartialEq for Total<f32> {
    fn eq(&self, o: &Self) -> bool {
        self.0.total_cmp(&o.0).is_eq()
    }
}
impl Eq for Total<f32> {}
impl PartialOrd for Total<f32> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Total<f32> {
    fn cmp(&self, o: &Self) -> Ordering {
        self.0.total_cmp(&o.0)
    }
}

// ---------- shared checks ----------

fn round_trip<T>(v: &T) -> Vec<u8>
where
    T: RowKey + for<'a> DecodeRowKey<'a> + Debug,
{
    let bytes = v.encode_to_vec().expect("valid value encodes");
    assert_eq!(bytes.len(), v.encoded_len());
    if let Some(len) = T::FIXED_LEN {
        assert_eq!(bytes.len(), len);
    }
    assert!(bytes.len() >= T::MIN_LEN);
    // encode_into agrees and reports a short buffer as an error.
    // A buffer above the worst-case bound (encode_into skips the exact
    // count) and one of the exact length give the same bytes.
    let mut big = vec![0x55u8; 2 * bytes.len() + 64];
    assert_eq!(v.encode_into(&mut big).unwrap(), bytes.len());
    assert_eq!(&big[..bytes.len()], &bytes[..]);
    let mut exact = vec![0u8; bytes.len()];
    assert_eq!(v.encode_into(&mut exact).unwrap(), bytes.len());
    assert_eq!(exact, bytes);
    let mut buf = vec![0xAAu8; bytes.len() + 3];
    assert_eq!(v.encode_into(&mut buf).unwrap(), bytes.len());
    assert_eq!(&buf[..bytes.len()], &bytes[..]);
    if !bytes.is_empty() {
        let short = v.encode_into(&mut buf[..bytes.len() - 1]).unwrap_err();
        assert_eq!(
            short,
            EncodeError::BufferTooSmall {
                needed: bytes.len(),
                available: bytes.len() - 1
            }
        );
    }
    let back = T::decode(&bytes).unwrap_or_else(|e| panic!("{v:?} did not decode: {e}"));
    // Debug equality also covers NaN payloads (Debug of NaN is "NaN" for every
    // payload, so bits are compared by re-encoding).
    assert_eq!(back.encode_to_vec().unwrap(), bytes, "{v:?} -> {back:?}");
    assert_eq!(format!("{back:?}"), format!("{v:?}"));
    bytes
}

/// Decoding never panics; whatever decodes re-encodes to the same bytes
/// (after the salt byte, which decode checks only for range).
fn canonical<T>(bytes: &[u8], salted: bool)
where
    T: RowKey + for<'a> DecodeRowKey<'a> + Debug,
{
    if let Ok(v) = T::decode(bytes) {
        let again = v
            .encode_to_vec()
            .unwrap_or_else(|e| panic!("decoded {v:?} does not encode: {e}"));
        let skip = usize::from(salted);
        assert_eq!(
            &again[skip..],
            &bytes[skip..],
            "non-canonical bytes decoded to {v:?}"
        );
    }
}

fn order<T, K: Ord + Debug>(a: &T, b: &T, key: impl Fn(&T) -> K)
where
    T: RowKey + Debug,
{
    let (ea, eb) = (a.encode_to_vec().unwrap(), b.encode_to_vec().unwrap());
    assert_eq!(key(a).cmp(&key(b)), ea.cmp(&eb), "order of {a:?} vs {b:?}");
}

// ---------- layouts ----------

#[derive(RowKey, Debug, Clone, PartialEq)]
struct Ints {
    a: u8,
    #[desc]
    b: i16,
    c: u32,
    #[desc_ts]
    ts: i64,
    d: i128,
    #[desc]
    e: u64,
    f: bool,
    g: char,
    h: u128,
    #[desc]
    i: i8,
    j: [u8; 3],
}

fn ints() -> impl Strategy<Value = Ints> {
    (
        (
            edge_int!(u8),
            edge_int!(i16),
            edge_int!(u32),
            edge_int!(i64),
            edge_int!(i128),
            edge_int!(u64),
        ),
        (
            any::<bool>(),
            any::<char>(),
            edge_int!(u128),
            edge_int!(i8),
            any::<[u8; 3]>(),
        ),
    )
        .prop_map(|((a, b, c, ts, d, e), (f, g, h, i, j))| Ints {
            a,
            b,
            c,
            ts,
            d,
            e,
            f,
            g,
            h,
            i,
            j,
        })
}

fn ints_key(v: &Ints) -> impl Ord + Debug {
    (
        (v.a, Reverse(v.b), v.c, Reverse(v.ts), v.d, Reverse(v.e)),
        (v.f, v.g, v.h, Reverse(v.i), v.j),
    )
}

#[derive(RowKey, Debug, Clone)]
struct Floats {
    a: f32,
    #[desc]
    b: f64,
    c: f64,
}

fn floats() -> impl Strategy<Value = Floats> {
    (edge_f32(), edge_f64(), edge_f64()).prop_map(|(a, b, c)| Floats { a, b, c })
}

#[derive(RowKey, Debug, Clone, PartialEq)]
struct Strings {
    s: String,
    #[desc]
    t: String,
    b: Vec<u8>,
    #[desc]
    c: Vec<u8>,
    last: String,
}

fn strings() -> impl Strategy<Value = Strings> {
    (
        edge_string(6),
        edge_string(6),
        edge_bytes(6),
        edge_bytes(6),
        edge_string(6),
    )
        .prop_map(|(s, t, b, c, last)| Strings { s, t, b, c, last })
}

fn strings_key(v: &Strings) -> impl Ord + Debug {
    (
        v.s.clone(),
        Reverse(v.t.clone()),
        v.b.clone(),
        Reverse(v.c.clone()),
        v.last.clone(),
    )
}

/// A descending variable-length last field is escaped, so "a" > "ab" holds.
#[derive(RowKey, Debug, Clone, PartialEq)]
struct DescLast {
    a: u16,
    #[desc]
    s: Vec<u8>,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
struct Options {
    a: Option<u32>,
    #[desc]
    b: Option<i8>,
    s: Option<String>,
    #[desc]
    t: Option<Vec<u8>>,
    #[desc_ts]
    ts: Option<i64>,
    last: Option<Vec<u8>>,
}

fn options() -> impl Strategy<Value = Options> {
    (
        prop::option::of(edge_int!(u32)),
        prop::option::of(edge_int!(i8)),
        prop::option::of(edge_string(5)),
        prop::option::of(edge_bytes(5)),
        prop::option::of(edge_int!(i64)),
        prop::option::of(edge_bytes(5)),
    )
        .prop_map(|(a, b, s, t, ts, last)| Options {
            a,
            b,
            s,
            t,
            ts,
            last,
        })
}

fn options_key(v: &Options) -> impl Ord + Debug {
    (
        v.a,
        Reverse(v.b),
        v.s.clone(),
        Reverse(v.t.clone()),
        Reverse(v.ts),
        v.last.clone(),
    )
}

#[derive(RowKey, Debug, Clone, PartialEq)]
struct Fixed {
    #[fixed(6)]
    a: String,
    #[fixed(4)]
    #[desc]
    b: Vec<u8>,
    #[desc_ts]
    ts: u64,
    #[desc_ts]
    t32: u32,
    #[desc_ts]
    i32ts: i32,
    #[fixed(3)]
    o: Option<Vec<u8>>,
}

fn fixed() -> impl Strategy<Value = Fixed> {
    (
        padded_string(6),
        padded_bytes(4, 0),
        prop_oneof![Just(0u64), Just(i64::MAX as u64), 0..=i64::MAX as u64],
        prop_oneof![Just(0u32), Just(i32::MAX as u32), 0..=i32::MAX as u32],
        edge_int!(i32),
        prop::option::of(padded_bytes(3, 0)),
    )
        .prop_map(|(a, b, ts, t32, i32ts, o)| Fixed {
            a,
            b,
            ts,
            t32,
            i32ts,
            o,
        })
}

fn fixed_key(v: &Fixed) -> impl Ord + Debug {
    (
        v.a.clone(),
        Reverse(v.b.clone()),
        Reverse(v.ts),
        Reverse(v.t32),
        Reverse(v.i32ts),
        v.o.clone(),
    )
}

/// `#[reverse]` gives up order on its field: round-trip only.
#[derive(RowKey, Debug, Clone, PartialEq)]
struct Reversed {
    #[reverse]
    a: u64,
    #[reverse]
    s: String,
    #[reverse]
    #[fixed(5)]
    f: String,
    #[reverse]
    #[desc]
    d: i32,
    #[reverse]
    o: Option<u16>,
    #[reverse]
    last: Vec<u8>,
}

fn reversed() -> impl Strategy<Value = Reversed> {
    (
        edge_int!(u64),
        edge_string(5),
        edge_string(6).prop_filter("fits", |s| s.len() <= 5 && !s.starts_with('\0')),
        edge_int!(i32),
        prop::option::of(edge_int!(u16)),
        edge_bytes(5),
    )
        .prop_map(|(a, s, f, d, o, last)| Reversed {
            a,
            s,
            f,
            d,
            o,
            last,
        })
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 7, by(b, d))]
struct Salted {
    a: u8,
    b: String,
    #[desc_ts]
    c: i64,
    d: Option<u16>,
    e: Vec<u8>,
}

fn salted() -> impl Strategy<Value = Salted> {
    (
        edge_int!(u8),
        edge_string(5),
        edge_int!(i64),
        prop::option::of(edge_int!(u16)),
        edge_bytes(5),
    )
        .prop_map(|(a, b, c, d, e)| Salted { a, b, c, d, e })
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 256, hash = "java")]
struct SaltedJava {
    a: u32,
    #[fixed(4, pad = b' ')]
    s: String,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
struct Borrowed<'a> {
    s: &'a str,
    b: &'a [u8],
    c: Cow<'a, str>,
    #[fixed(4)]
    f: &'a [u8],
    last: &'a str,
}

fn no_nul_string(max: usize) -> impl Strategy<Value = String> {
    edge_string(max).prop_map(|s| s.replace('\0', ""))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/properties.proptest-regressions"))), ..ProptestConfig::default() })]

    #[test]
    fn ints_round_trip_and_order(a in ints(), b in ints()) {
        round_trip(&a);
        order(&a, &b, ints_key);
        order(&a, &a, ints_key);
    }

    #[test]
    fn floats_round_trip_and_total_order(a in floats(), b in floats()) {
        let bytes = round_trip(&a);
        let back = Floats::decode(&bytes).unwrap();
        prop_assert_eq!((back.a.to_bits(), back.b.to_bits(), back.c.to_bits()), (a.a.to_bits(), a.b.to_bits(), a.c.to_bits()));
        order(&a, &b, |v| (Total(v.a), Reverse(Total(v.b)), Total(v.c)));
    }

    #[test]
    fn strings_round_trip_and_order(a in strings(), b in strings()) {
        round_trip(&a);
        order(&a, &b, strings_key);
    }

    #[test]
    fn desc_last_field_is_escaped_and_ordered(a in (edge_int!(u16), edge_bytes(6)), b in (edge_int!(u16), edge_bytes(6))) {
        let (a, b) = (DescLast { a: a.0, s: a.1 }, DescLast { a: b.0, s: b.1 });
        round_trip(&a);
        order(&a, &b, |v| (v.a, Reverse(v.s.clone())));
    }

    #[test]
    fn options_round_trip_and_order(a in options(), b in options()) {
        round_trip(&a);
        order(&a, &b, options_key);
    }

    #[test]
    fn fixed_round_trip_and_order(a in fixed(), b in fixed()) {
        let bytes = round_trip(&a);
        prop_assert_eq!(bytes.len(), Fixed::LEN);
        prop_assert_eq!(a.try_encode().unwrap().to_vec(), bytes);
        order(&a, &b, fixed_key);
    }

    #[test]
    fn reversed_round_trip(a in reversed()) {
        round_trip(&a);
    }

    #[test]
    fn salted_round_trip_and_bucket(a in salted(), b in salted()) {
        let bytes = round_trip(&a);
        prop_assert_eq!(bytes[0], a.bucket());
        prop_assert!(bytes[0] < 7);
        // Rows that agree on the `by` fields share a bucket.
        let same_by = Salted { b: a.b.clone(), d: a.d, ..b.clone() };
        prop_assert_eq!(same_by.bucket(), a.bucket());
        // Behind the salt byte the order is the unsalted order.
        let (ea, eb) = (a.encode_to_vec().unwrap(), b.encode_to_vec().unwrap());
        let key = |v: &Salted| (v.a, v.b.clone(), Reverse(v.c), v.d, v.e.clone());
        prop_assert_eq!(key(&a).cmp(&key(&b)), ea[1..].cmp(&eb[1..]));
    }

    #[test]
    fn salted_java_round_trip(a in edge_int!(u32), s in prop::collection::vec(prop::char::range('a', 'z'), 0..4)) {
        let v = SaltedJava { a, s: String::from_iter(s) };
        let bytes = round_trip(&v);
        // A #[fixed] `by` field can fail to encode, so only try_bucket exists.
        prop_assert_eq!(bytes[0], v.try_bucket().unwrap());
    }

    #[test]
    fn borrowed_round_trip_without_copying(
        s in no_nul_string(5), b in edge_bytes(5).prop_map(|b| b.into_iter().filter(|&x| x != 0).collect::<Vec<u8>>()),
        c in edge_string(5), f in padded_bytes(4, 0), last in edge_string(5),
    ) {
        let v = Borrowed { s: &s, b: &b, c: Cow::Borrowed(&c), f: &f, last: &last };
        let bytes = v.encode_to_vec().unwrap();
        let back = Borrowed::decode(&bytes).unwrap();
        prop_assert_eq!(&back, &v);
        // The borrowed fields point into the key.
        let range = bytes.as_ptr_range();
        prop_assert!(range.contains(&back.s.as_ptr()) || back.s.is_empty());
        prop_assert!(range.contains(&back.last.as_ptr()) || back.last.is_empty());
        // Cow borrows when nothing was escaped, owns when something was.
        prop_assert_eq!(matches!(back.c, Cow::Borrowed(_)), !c.contains('\0'));
    }

    #[test]
    fn decode_never_panics_on_random_bytes(bytes in edge_bytes(48)) {
        canonical::<Ints>(&bytes, false);
        canonical::<Floats>(&bytes, false);
        canonical::<Strings>(&bytes, false);
        canonical::<DescLast>(&bytes, false);
        canonical::<Options>(&bytes, false);
        canonical::<Fixed>(&bytes, false);
        canonical::<Reversed>(&bytes, false);
        canonical::<Salted>(&bytes, true);
        canonical::<SaltedJava>(&bytes, true);
        if let Ok(v) = Borrowed::decode(&bytes) {
            prop_assert_eq!(v.encode_to_vec().unwrap(), bytes);
        }
    }

    #[test]
    fn truncated_and_extended_keys_never_panic(a in strings(), o in options(), f in fixed(), s in salted(), cut in any::<prop::sample::Index>(), extra in any::<u8>()) {
        for bytes in [a.encode_to_vec().unwrap(), o.encode_to_vec().unwrap(), f.encode_to_vec().unwrap(), s.encode_to_vec().unwrap()] {
            let truncated = &bytes[..cut.index(bytes.len() + 1)];
            let mut extended = bytes.clone();
            extended.push(extra);
            for input in [truncated, &extended[..]] {
                canonical::<Strings>(input, false);
                canonical::<Options>(input, false);
                canonical::<Fixed>(input, false);
                canonical::<Salted>(input, true);
            }
        }
        // A fixed-width key with a byte missing or one too many is an error.
        let fb = f.encode_to_vec().unwrap();
        prop_assert!(Fixed::decode(&fb[..fb.len() - 1]).is_err());
        let mut longer = fb.clone();
        longer.push(extra);
        prop_assert_eq!(Fixed::decode(&longer).unwrap_err(), DecodeError::TrailingBytes { count: 1 });
    }
}
