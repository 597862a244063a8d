//! `#[rowkey(ordered_code)]`: derived keys in Bigtable's struct
//! `OrderedCodeBytes` encoding, over random values. Each must be byte for
//! byte what `rowkey_core::ordered_code::encode_struct` writes (the encoder
//! the Go peer checks against Google's `orderedcode`), round-trip, sort
//! like its values (descending fields reversed), fit in `encoded_len()`
//! bytes, and have one key per value: no other bytes decode to it.

use std::cmp::Ordering;

use proptest::prelude::*;
use rowkey_core::ordered_code::{encode_struct, Order, Value};
use rowkey_core::prelude::*;

/// Every field type, two descending fields, two trailing strings that a
/// key leaves out when they are empty.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(ordered_code)]
struct Wide {
    a: i64,
    b: String,
    #[desc]
    c: i32,
    d: Vec<u8>,
    #[desc]
    e: String,
    f: String,
    g: Vec<u8>,
}

impl Wide {
    fn fields(&self) -> Vec<(Value, Order)> {
        vec![
            (Value::Int64(self.a), Order::Asc),
            (Value::String(self.b.clone()), Order::Asc),
            (Value::Int64(self.c.into()), Order::Desc),
            (Value::Bytes(self.d.clone()), Order::Asc),
            (Value::String(self.e.clone()), Order::Desc),
            (Value::String(self.f.clone()), Order::Asc),
            (Value::Bytes(self.g.clone()), Order::Asc),
        ]
    }

    /// The order the keys must have: field by field, descending ones
    /// reversed.
    fn cmp_values(&self, o: &Wide) -> Ordering {
        self.a
            .cmp(&o.a)
            .then(self.b.cmp(&o.b))
            .then(o.c.cmp(&self.c))
            .then(self.d.cmp(&o.d))
            .then(o.e.cmp(&self.e))
            .then(self.f.cmp(&o.f))
            .then(self.g.cmp(&o.g))
    }
}

/// The last field every key writes is an ascending `Int64` (ending at the
/// key's end when the strings after it are empty), narrow integer types.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(ordered_code)]
struct Narrow {
    a: u8,
    b: i16,
    c: u32,
    d: String,
}

/// Strings that may be empty, zero bytes and `FF` among them.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "[a\\x00\\x01\u{ff}]{0,4}",
        any::<String>(),
    ]
}

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(Vec::new()),
        prop::collection::vec(
            prop_oneof![Just(0u8), Just(1), Just(0xFF), any::<u8>()],
            0..6
        ),
    ]
}

fn int64() -> impl Strategy<Value = i64> {
    prop_oneof![
        prop::sample::select(vec![i64::MIN, -65, -64, -1, 0, 63, 64, 256, i64::MAX]),
        any::<i64>(),
        // Every length of the encoding.
        (0u32..63, any::<bool>()).prop_map(|(bits, neg)| {
            let v = 1i64 << bits;
            if neg {
                -v
            } else {
                v
            }
        }),
    ]
}

fn wide() -> impl Strategy<Value = Wide> {
    (
        int64(),
        text(),
        any::<i32>(),
        bytes(),
        text(),
        text(),
        bytes(),
    )
        .prop_map(|(a, b, c, d, e, f, g)| Wide {
            a,
            b,
            c,
            d,
            e,
            f,
            g,
        })
}

fn narrow() -> impl Strategy<Value = Narrow> {
    (any::<u8>(), any::<i16>(), any::<u32>(), text()).prop_map(|(a, b, c, d)| Narrow { a, b, c, d })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn equals_the_run_time_struct_encoding(w in wide()) {
        let key = w.encode_to_vec().unwrap();
        prop_assert_eq!(&key, &encode_struct(&w.fields()));
        prop_assert_eq!(key.len(), w.encoded_len());
    }

    #[test]
    fn round_trips_and_sorts_like_the_values(x in wide(), y in wide()) {
        let (kx, ky) = (x.encode_to_vec().unwrap(), y.encode_to_vec().unwrap());
        prop_assert_eq!(Wide::decode(&kx).unwrap(), x.clone());
        prop_assert_eq!(kx.cmp(&ky), x.cmp_values(&y), "{:?} {:?}", x, y);
    }

    #[test]
    fn narrow_integers_round_trip_and_sort(x in narrow(), y in narrow()) {
        let (kx, ky) = (x.encode_to_vec().unwrap(), y.encode_to_vec().unwrap());
        prop_assert_eq!(Narrow::decode(&kx).unwrap(), x.clone());
        let values = |n: &Narrow| (n.a, n.b, n.c, n.d.clone());
        prop_assert_eq!(kx.cmp(&ky), values(&x).cmp(&values(&y)));
    }

    #[test]
    fn a_buffer_of_exactly_encoded_len_is_enough(w in wide()) {
        let n = w.encoded_len();
        let mut buf = vec![0; n];
        prop_assert_eq!(w.encode_into(&mut buf), Ok(n));
        prop_assert_eq!(&buf, &w.encode_to_vec().unwrap());
        let mut short = vec![0; n - 1];
        let too_small = matches!(w.encode_into(&mut short), Err(EncodeError::BufferTooSmall { .. }));
        prop_assert!(too_small);
    }

    /// A key with a terminator or an empty field written out after it is
    /// no key: every value has one key, so equal keys are equal values.
    #[test]
    fn a_key_with_more_written_out_is_no_key(w in wide(), n in narrow()) {
        for key in [w.encode_to_vec().unwrap(), n.encode_to_vec().unwrap()] {
            for tail in [&[0x00, 0x00][..], &[0x00, 0x01], &[0x00, 0x01, 0x00, 0x00], &[0x00]] {
                let longer = [key.as_slice(), tail].concat();
                prop_assert!(Wide::decode(&longer).is_err(), "{:02x?} decodes", longer);
                prop_assert!(Narrow::decode(&longer).is_err(), "{:02x?} decodes", longer);
            }
        }
    }

    /// Any bytes decode to an error or to the values whose key they are.
    #[test]
    fn any_bytes_are_an_error_or_their_values_key(
        bytes in prop::collection::vec(prop_oneof![Just(0u8), Just(1), Just(0xFF), Just(0xFE), Just(0x80), any::<u8>()], 0..24)
    ) {
        if let Ok(w) = Wide::decode(&bytes) {
            prop_assert_eq!(w.encode_to_vec().unwrap(), bytes.clone());
        }
        if let Ok(n) = Narrow::decode(&bytes) {
            prop_assert_eq!(n.encode_to_vec().unwrap(), bytes.clone());
        }
        // explain reads what decode reads, and no more.
        prop_assert_eq!(Wide::explain(&bytes).stop().is_none(), Wide::decode(&bytes).is_ok());
        prop_assert_eq!(Narrow::explain(&bytes).stop().is_none(), Narrow::decode(&bytes).is_ok());
    }
}

/// A borrowed string borrows from the key where its bytes are stored as
/// they are, and is `CannotBorrow` where they are escaped.
#[test]
fn borrowed_fields_borrow_unescaped_bytes() {
    #[derive(RowKey, Debug, PartialEq)]
    #[rowkey(ordered_code)]
    struct Borrowed<'a> {
        name: &'a str,
        n: i64,
        blob: &'a [u8],
    }
    let key = Borrowed {
        name: "ann",
        n: 7,
        blob: b"xy",
    }
    .encode_to_vec()
    .unwrap();
    let back = Borrowed::decode(&key).unwrap();
    assert!(std::ptr::eq(back.name.as_ptr(), key[..].as_ptr()));
    assert_eq!((back.name, back.n, back.blob), ("ann", 7, &b"xy"[..]));
    let escaped = Borrowed {
        name: "a\0",
        n: 7,
        blob: b"",
    }
    .encode_to_vec()
    .unwrap();
    assert_eq!(
        Borrowed::decode(&escaped),
        Err(DecodeError::CannotBorrow { field: "name" })
    );
}

/// A descending `Int64` between an ascending one and a trailing string:
/// the key of the error and fingerprint tests.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(ordered_code)]
struct Event {
    user: i64,
    #[desc]
    ts: i64,
    kind: String,
}

/// Each way a key can be wrong is an error naming the field where it goes
/// wrong.
#[test]
fn bad_keys_are_errors_naming_the_field() {
    let key = Event {
        user: 5,
        ts: 7,
        kind: "click".into(),
    }
    .encode_to_vec()
    .unwrap();
    assert_eq!(key[..6], [0x85, 0x00, 0x01, 0x78, 0xFF, 0xFE]);
    let err = |bytes: &[u8]| Event::decode(bytes).unwrap_err().to_string();
    // Cut inside the descending field: no terminator.
    assert!(err(&key[..4]).contains("`ts`"), "{}", err(&key[..4]));
    // Cut before `ts`: the key ends where a field must be.
    assert!(err(&key[..3]).contains("`ts`"), "{}", err(&key[..3]));
    // A longer Int64 than its value needs (5 written in two bytes).
    let long = [&[0xC0, 0x05, 0x00, 0x01][..], &key[3..]].concat();
    assert!(err(&long).contains("`user`") && err(&long).contains("shortest"));
    // An empty Int64.
    let empty = [&[0x00, 0x00, 0x00, 0x01][..], &key[3..]].concat();
    assert!(err(&empty).contains("`user`") && err(&empty).contains("never empty"));
    // A bare terminator where a field should be.
    let bare = [&key[..6], &[0x00, 0x01, 0x61][..]].concat();
    assert!(err(&bare).contains("`kind`"), "{}", err(&bare));
    // The trailing empty field written out.
    let spelled = [&key[..6], &[0x00, 0x00][..]].concat();
    assert!(err(&spelled).contains("`kind`") && err(&spelled).contains("canonical"));
    // Not UTF-8.
    let latin = [&key[..6], &[0xFF][..]].concat();
    assert_eq!(
        Event::decode(&latin),
        Err(DecodeError::InvalidUtf8 { field: "kind" })
    );
    // Out of a narrow type's range.
    #[derive(RowKey, Debug, PartialEq)]
    #[rowkey(ordered_code)]
    struct Small {
        n: u8,
    }
    // 256 is C1 00, escaped.
    let e = Small::decode(&[0xC1, 0x00, 0xFF]).unwrap_err().to_string();
    assert!(e.contains("`n`") && e.contains("range"), "{e}");
    assert_eq!(Small::decode(&[0x80 | 9]).unwrap(), Small { n: 9 });
    assert!(Small::decode(&[0x7F]).is_err(), "-1 is no u8");
}

/// The salt is a struct field after the prefix: `80 | bucket`, `00 01`,
/// the bucket of the `by` fields' values (which a key has even where it
/// leaves them out).
#[test]
fn salt_prefix_layout_and_explain() {
    #[derive(RowKey, Debug, PartialEq)]
    #[rowkey(ordered_code, prefix = "u")]
    #[salt(buckets = 8, by(name))]
    struct User {
        id: i64,
        name: String,
    }
    let user = User {
        id: 3,
        name: String::new(),
    };
    let key = user.encode_to_vec().unwrap();
    let b = user.bucket();
    assert_eq!(key, [b'u', 0, 1, 0x80 | b, 0, 1, 0x83]);
    // The name's value is empty: the bucket hashes no bytes.
    assert_eq!(
        <rowkey_core::salt::Xxh3 as rowkey_core::salt::SaltHash>::bucket(&[b""], 8),
        b
    );
    assert_eq!(User::decode(&key).unwrap(), user);
    assert_eq!(
        User::LAYOUT.to_string(),
        "ordered_code [prefix \"u\\x00\\x01\" 3][salt(name)/8 3][id i64 >=1][name String >=0] >= 7 bytes"
    );
    assert_eq!(
        User::LAYOUT.format(),
        rowkey_core::layout::Format::OrderedCode
    );
    assert_eq!(
        User::split_points(),
        (1..8)
            .map(|b| vec![b'u', 0, 1, 0x80 | b])
            .collect::<Vec<_>>()
    );
    assert_eq!(User::LAYOUT.split_points(), User::split_points());
    let explained = User::explain(&key);
    assert!(explained.is_ok(), "{explained}");
    let parts: Vec<(&str, std::ops::Range<usize>)> = explained
        .parts()
        .iter()
        .map(|p| (p.name(), p.range()))
        .collect();
    assert_eq!(
        parts,
        [
            ("prefix", 0..3),
            ("salt", 3..6),
            ("id", 6..7),
            ("name", 7..7)
        ]
    );
    // A key in another bucket decodes (as every salted key does) and
    // explain says its salt is not its fields'.
    let mut wrong = key.clone();
    wrong[3] = 0x80 | ((b + 1) % 8);
    assert!(User::decode(&wrong).is_ok());
    assert_eq!(
        User::explain(&wrong).salt_mismatch(),
        Some(((b + 1) % 8, b))
    );
    // A bucket field that is no one-byte Int64, and one past the buckets.
    let mut bad = key.clone();
    bad[3] = 0xC0;
    assert!(User::decode(&bad).is_err());
    bad[3] = 0x80 | 9;
    assert_eq!(
        User::decode(&bad),
        Err(DecodeError::InvalidSalt {
            bucket: 9,
            buckets: 8
        })
    );
    // Explain names a non-canonical key as decode does.
    let spelled = [&key[..], &[0x00, 0x01, 0x00, 0x00][..]].concat();
    let ex = User::explain(&spelled);
    assert_eq!(ex.stop().map(|s| s.part()), Some("name"), "{ex}");
}

/// The fingerprint of an ordered-code layout is frozen: a change to it
/// (or to the bytes it describes) must be deliberate.
#[test]
fn layout_id_is_frozen() {
    assert_eq!(
        Event::LAYOUT.to_string(),
        "ordered_code [user i64 >=3][ts desc i64 >=3][kind String >=0] >= 6 bytes"
    );
    assert_eq!(Event::LAYOUT_ID, 0xf585_0324_55ef_99c1);
}

/// Key families of ordered-code members: each member's prefix is its first
/// field, and a family decodes and scans by it.
#[test]
fn families_of_ordered_code_keys() {
    #[derive(RowKey, Debug, PartialEq)]
    #[rowkey(ordered_code, prefix = "u")]
    struct UserRow {
        id: i64,
    }
    #[derive(RowKey, Debug, PartialEq)]
    #[rowkey(ordered_code, prefix = "e")]
    struct EmailRow {
        email: String,
        id: i64,
    }
    #[derive(RowKey, Debug, PartialEq)]
    enum Rows {
        User(UserRow),
        Email(EmailRow),
    }
    assert_eq!(
        Rows::FAMILIES,
        &[("User", &b"u\x00\x01"[..]), ("Email", &b"e\x00\x01"[..])]
    );
    for row in [
        Rows::User(UserRow { id: -3 }),
        Rows::Email(EmailRow {
            email: "a@b".into(),
            id: 9,
        }),
    ] {
        let key = row.encode_to_vec().unwrap();
        assert_eq!(Rows::decode(&key).unwrap(), row);
    }
    assert!(Rows::decode(b"x\x00\x01\x80").is_err());
}
