//! Bigtable's `OrderedCodeBytes` (`rowkey_core::ordered_code`): Google's
//! documented struct examples, `Int64` vectors from Google's `orderedcode`
//! Go package (the Go peer compares random values in
//! `rowkey-bigtable/tests/go_peer.rs`), and the properties a row key needs
//! over random values: round trip, one encoding per value, byte order equal
//! to the values' order (descending fields included), and no panic on any
//! input.
#![cfg(feature = "alloc")]

use std::cmp::Ordering;

use proptest::prelude::*;
use rowkey_core::ordered_code::{
    decode_int64, decode_struct, encode_int64, encode_struct, Order, Type, Value,
};
use rowkey_core::DecodeError;

fn s(v: &str) -> Value {
    Value::String(v.to_string())
}

fn int64(v: i64) -> Vec<u8> {
    let mut buf = [0; 10];
    let n = encode_int64(v, &mut buf);
    buf[..n].to_vec()
}

/// The examples of `Type.Struct.Encoding.OrderedCodeBytes` in Bigtable's
/// admin API (googleapis `google/bigtable/admin/v2/types.proto`), and the
/// descending one of its documentation.
#[test]
fn googles_documented_examples() {
    let asc = |vals: &[&str]| -> Vec<(Value, Order)> {
        vals.iter().map(|v| (s(v), Order::Asc)).collect()
    };
    let cases: &[(&[&str], &[u8])] = &[
        (&[], b"\x00\x00"),
        (&[""], b"\x00\x00"),
        (&["", ""], b"\x00\x00"),
        (&["", "B"], b"\x00\x00\x00\x01B"),
        (&["A", ""], b"A"),
        (&["", "B", ""], b"\x00\x00\x00\x01B"),
        (&["A", "", "C"], b"A\x00\x01\x00\x00\x00\x01C"),
    ];
    for &(vals, want) in cases {
        let fields = asc(vals);
        assert_eq!(encode_struct(&fields), want, "STRUCT{vals:?}");
        let schema: Vec<(&'static str, Type, Order)> = vals
            .iter()
            .map(|_| ("f", Type::String, Order::Asc))
            .collect();
        let back = decode_struct(&schema, want).unwrap();
        assert_eq!(back, fields.into_iter().map(|(v, _)| v).collect::<Vec<_>>());
    }
    let desc = [(s(""), Order::Asc), (s("A"), Order::Desc)];
    assert_eq!(
        encode_struct(&desc),
        [0x00, 0x00, 0x00, 0x01, 0xBE, 0xFF, 0xFE]
    );
}

/// `orderedcode.Append(nil, v)` of Google's Go package
/// (github.com/google/orderedcode v0.0.1) for the length boundaries.
#[test]
fn int64_matches_googles_orderedcode_at_the_boundaries() {
    let cases: &[(i64, &[u8])] = &[
        (0, &[0x80]),
        (1, &[0x81]),
        (-1, &[0x7F]),
        (63, &[0xBF]),
        (64, &[0xC0, 0x40]),
        (-64, &[0x40]),
        (-65, &[0x3F, 0xBF]),
        (8191, &[0xDF, 0xFF]),
        (8192, &[0xE0, 0x20, 0x00]),
        (1 << 40, &[0xFD, 0x00, 0x00, 0x00, 0x00, 0x00]),
        (-(1 << 40), &[0x03, 0x00, 0x00, 0x00, 0x00, 0x00]),
        (
            i64::MAX,
            &[0xFF, 0xC0, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
        ),
        (
            i64::MIN,
            &[0x00, 0x3F, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00],
        ),
    ];
    for &(v, want) in cases {
        assert_eq!(int64(v), want, "{v}");
        assert_eq!(decode_int64(want), Some((v, want.len())), "{v}");
    }
}

#[test]
fn bad_keys_are_errors_naming_the_field() {
    let schema = [
        ("user", Type::Int64, Order::Asc),
        ("name", Type::String, Order::Asc),
    ];
    // A longer Int64 form than needed (1 in two bytes).
    assert_eq!(
        decode_struct(&schema, &[0xC0, 0x01, 0x00, 0x01, b'a']).unwrap_err(),
        DecodeError::InvalidValue {
            field: "user",
            reason: "not an OrderedCodeBytes Int64"
        }
    );
    // An escape other than 00 FF, 00 00 or 00 01.
    assert_eq!(
        decode_struct(&schema, &[0x81, 0x00, 0x07]).unwrap_err(),
        DecodeError::InvalidEscape {
            field: "user",
            byte: 0x07
        }
    );
    // Not UTF-8.
    assert_eq!(
        decode_struct(&schema, &[0x81, 0x00, 0x01, 0xC3]).unwrap_err(),
        DecodeError::InvalidUtf8 { field: "name" }
    );
    // A trailing empty field spelled out is not the canonical key.
    assert!(matches!(
        decode_struct(&schema, &[0x81, 0x00, 0x01, 0x00, 0x00]).unwrap_err(),
        DecodeError::InvalidValue { field: "name", .. }
    ));
    // A descending field without its terminator.
    let desc = [("name", Type::String, Order::Desc)];
    assert_eq!(
        decode_struct(&desc, &[!b'a']).unwrap_err(),
        DecodeError::MissingTerminator { field: "name" }
    );
    // An Int64 cannot be empty.
    assert!(decode_struct(&schema, &[0x00, 0x00]).is_err());
    assert_eq!(decode_int64(&[]), None);
    assert_eq!(decode_int64(&[0xFF, 0xE0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), None);
}

fn any_type() -> impl Strategy<Value = (Type, Order)> {
    (
        prop_oneof![Just(Type::Int64), Just(Type::String), Just(Type::Bytes)],
        prop_oneof![Just(Order::Asc), Just(Order::Desc)],
    )
}

fn value_of(ty: Type) -> BoxedStrategy<Value> {
    match ty {
        Type::Int64 => prop_oneof![any::<i64>(), -300i64..300, Just(i64::MIN), Just(i64::MAX)]
            .prop_map(Value::Int64)
            .boxed(),
        Type::String => prop_oneof![
            Just(String::new()),
            "[\\x00a-c\u{e9}\u{1F600}]{0,6}",
            any::<String>()
        ]
        .prop_map(Value::String)
        .boxed(),
        Type::Bytes => prop_oneof![
            Just(Vec::new()),
            proptest::collection::vec(
                prop_oneof![Just(0u8), Just(1), Just(0xFF), any::<u8>()],
                0..6
            )
        ]
        .prop_map(Value::Bytes)
        .boxed(),
    }
}

/// A schema and two structs of it.
fn schema_and_two() -> impl Strategy<Value = (Vec<(Type, Order)>, Vec<Value>, Vec<Value>)> {
    proptest::collection::vec(any_type(), 0..5).prop_flat_map(|schema| {
        let values = |schema: &[(Type, Order)]| {
            schema
                .iter()
                .map(|&(ty, _)| value_of(ty))
                .collect::<Vec<_>>()
        };
        (Just(schema.clone()), values(&schema), values(&schema))
    })
}

fn cmp_value(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Int64(x), Value::Int64(y)) => x.cmp(y),
        (Value::String(x), Value::String(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Bytes(x), Value::Bytes(y)) => x.cmp(y),
        _ => unreachable!("same schema"),
    }
}

fn cmp_struct(schema: &[(Type, Order)], a: &[Value], b: &[Value]) -> Ordering {
    for ((x, y), &(_, order)) in a.iter().zip(b).zip(schema) {
        let o = cmp_value(x, y);
        let o = if order == Order::Desc { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

fn fields(schema: &[(Type, Order)], values: &[Value]) -> Vec<(Value, Order)> {
    values
        .iter()
        .cloned()
        .zip(schema.iter().map(|&(_, o)| o))
        .collect()
}

fn named(schema: &[(Type, Order)]) -> Vec<(&'static str, Type, Order)> {
    schema.iter().map(|&(t, o)| ("f", t, o)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn int64_round_trips_in_order(a in any::<i64>(), b in any::<i64>()) {
        let (ea, eb) = (int64(a), int64(b));
        prop_assert_eq!(decode_int64(&ea), Some((a, ea.len())));
        prop_assert_eq!(ea.cmp(&eb), a.cmp(&b));
        // Closer to zero, no longer.
        let further = if a < 0 { a.saturating_sub(1) } else { a.saturating_add(1) };
        prop_assert!(ea.len() <= int64(further).len());
    }

    #[test]
    fn structs_round_trip_and_sort_like_their_values((schema, a, b) in schema_and_two()) {
        let (ka, kb) = (encode_struct(&fields(&schema, &a)), encode_struct(&fields(&schema, &b)));
        prop_assert_eq!(decode_struct(&named(&schema), &ka).unwrap(), a.clone());
        prop_assert_eq!(decode_struct(&named(&schema), &kb).unwrap(), b.clone());
        prop_assert_eq!(ka.cmp(&kb), cmp_struct(&schema, &a, &b), "{:02x?} {:02x?}", ka, kb);
    }

    #[test]
    fn any_bytes_decode_to_an_error_or_to_their_values(
        schema in proptest::collection::vec(any_type(), 0..4),
        key in proptest::collection::vec(prop_oneof![Just(0u8), Just(1), Just(0xFE), Just(0xFF), any::<u8>()], 0..12),
    ) {
        if let Ok(values) = decode_struct(&named(&schema), &key) {
            prop_assert_eq!(&encode_struct(&fields(&schema, &values)), &key);
        }
        if let Some((v, n)) = decode_int64(&key) {
            prop_assert_eq!(int64(v), &key[..n]);
        }
    }
}
