//! Layouts for the fuzz targets: together they cover every field type and
//! attribute of format v1 (integers of every width, bool, char, floats,
//! byte arrays, owned and borrowed strings and bytes, `Cow`, `Option`;
//! `#[desc]`, `#[desc_ts]` on every timestamp type, `#[reverse]`,
//! `#[fixed]` with both pads, raw and escaped variable-length fields, both
//! salt hashes, salt over some fields and over all).
//!
//! Each layout with an order has a key function: the values' order, field
//! by field, reversed where the field sorts descending. The encoded bytes
//! must sort exactly like it.

use std::borrow::Cow;
use std::cmp::{Ordering, Reverse};
use std::fmt::Debug;

use arbitrary::Arbitrary;
use rowkey_core::prelude::*;
use rowkey_core::{EncodeError, RowKey as RowKeyTrait};

/// A float ordered by `total_cmp`, the order the encoding gives floats.
#[derive(Debug, Clone, Copy)]
pub struct Total<T>(pub T);

macro_rules! total {
    ($t:ty) => {
        impl PartialEq for Total<$t> {
            fn eq(&self, o: &Self) -> bool {
                self.0.total_cmp(&o.0) == Ordering::Equal
            }
        }
        impl Eq for Total<$t> {}
        impl PartialOrd for Total<$t> {
            fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
                Some(self.cmp(o))
            }
        }
        impl Ord for Total<$t> {
            fn cmp(&self, o: &Self) -> Ordering {
                self.0.total_cmp(&o.0)
            }
        }
    };
}
total!(f32);
total!(f64);

#[derive(RowKey, Arbitrary, Debug, Clone, PartialEq)]
pub struct Ints {
    pub a: u8,
    #[desc]
    pub b: i16,
    pub c: u32,
    #[desc_ts]
    pub ts: i64,
    pub d: i128,
    #[desc]
    pub e: u64,
    pub f: bool,
    pub g: char,
    pub h: u128,
    #[desc]
    pub i: i8,
    pub j: [u8; 3],
}

pub fn ints_key(v: &Ints) -> impl Ord + Debug {
    (
        (v.a, Reverse(v.b), v.c, Reverse(v.ts), v.d, Reverse(v.e)),
        (v.f, v.g, v.h, Reverse(v.i), v.j),
    )
}

#[derive(RowKey, Arbitrary, Debug, Clone)]
pub struct Floats {
    pub a: f32,
    #[desc]
    pub b: f64,
    pub c: f64,
}

pub fn floats_key(v: &Floats) -> impl Ord + Debug {
    (Total(v.a), Reverse(Total(v.b)), Total(v.c))
}

#[derive(RowKey, Arbitrary, Debug, Clone, PartialEq)]
pub struct Strings {
    pub s: String,
    #[desc]
    pub t: String,
    pub b: Vec<u8>,
    #[desc]
    pub c: Vec<u8>,
    pub last: String,
}

pub fn strings_key(v: &Strings) -> impl Ord + Debug {
    let v = v.clone();
    (v.s, Reverse(v.t), v.b, Reverse(v.c), v.last)
}

#[derive(RowKey, Arbitrary, Debug, Clone, PartialEq)]
pub struct Options {
    pub a: Option<u32>,
    #[desc]
    pub b: Option<i64>,
    pub s: Option<String>,
    #[desc]
    pub t: Option<String>,
    #[desc_ts]
    pub ts: Option<i64>,
    pub last: Option<Vec<u8>>,
}

pub fn options_key(v: &Options) -> impl Ord + Debug {
    let v = v.clone();
    (v.a, Reverse(v.b), v.s, Reverse(v.t), Reverse(v.ts), v.last)
}

/// `#[fixed]` with the zero pad, which keeps order (a value may not end in
/// the pad byte), and `#[desc_ts]` on every timestamp type.
#[derive(RowKey, Arbitrary, Debug, Clone, PartialEq)]
pub struct Fixed {
    #[fixed(6)]
    pub a: String,
    #[fixed(4)]
    #[desc]
    pub b: Vec<u8>,
    #[desc_ts]
    pub ts: u64,
    #[desc_ts]
    pub t32: u32,
    #[desc_ts]
    pub i32ts: i32,
}

pub fn fixed_key(v: &Fixed) -> impl Ord + Debug {
    let v = v.clone();
    (
        v.a,
        Reverse(v.b),
        Reverse(v.ts),
        Reverse(v.t32),
        Reverse(v.i32ts),
    )
}

/// `#[reverse]` gives up order on its field: round-trip only. Also the
/// space pad.
#[derive(RowKey, Arbitrary, Debug, Clone, PartialEq)]
pub struct Reversed {
    #[reverse]
    pub a: u64,
    #[reverse]
    pub s: String,
    #[reverse]
    #[fixed(5, pad = b' ')]
    pub f: Vec<u8>,
    #[reverse]
    #[desc]
    pub d: i32,
    #[reverse]
    pub o: Option<u16>,
    #[reverse]
    pub last: Vec<u8>,
}

#[derive(RowKey, Arbitrary, Debug, Clone, PartialEq)]
#[salt(buckets = 7, by(b, d))]
pub struct Salted {
    pub a: u8,
    pub b: String,
    #[desc_ts]
    pub c: i64,
    pub d: Option<u16>,
    pub e: Vec<u8>,
}

/// The order after the salt byte.
pub fn salted_key(v: &Salted) -> impl Ord + Debug {
    let v = v.clone();
    (v.a, v.b, Reverse(v.c), v.d, v.e)
}

#[derive(RowKey, Arbitrary, Debug, Clone, PartialEq)]
#[salt(buckets = 256, hash = "java")]
pub struct SaltedJava {
    pub a: u32,
    #[fixed(4, pad = b' ')]
    pub s: String,
}

/// Borrowed fields: decode only (they cannot hold escaped bytes).
#[derive(RowKey, Debug, Clone, PartialEq)]
pub struct Borrowed<'a> {
    pub s: &'a str,
    pub b: &'a [u8],
    pub c: Cow<'a, str>,
    #[fixed(4)]
    pub f: &'a [u8],
    pub last: &'a str,
}

/// A text key with every text attribute: the phone-style mod salt, a
/// delimited string, signed, descending, reversed and padded fields, a
/// last string that may hold the separator.
#[derive(RowKey, Arbitrary, Debug, Clone, PartialEq)]
#[rowkey(text, sep = "_")]
#[salt(buckets = 10, by(phone), hash = "mod")]
pub struct Text {
    #[digits(11)]
    pub phone: u64,
    #[desc_ts]
    pub ts: i64,
    pub user: String,
    pub delta: i16,
    #[desc]
    #[digits(4)]
    pub score: u16,
    #[reverse]
    pub seq: u32,
    #[fixed(3, pad = b' ')]
    pub tag: String,
    pub last: String,
}

/// A text key whose fields all sort by value (no delimited string), a
/// two-byte separator and a salt of two digits.
#[derive(RowKey, Arbitrary, Debug, Clone, PartialEq)]
#[rowkey(text, sep = "::")]
#[salt(buckets = 12, by(a))]
pub struct TextOrdered {
    pub a: u8,
    pub b: i64,
    #[desc_ts(max = 9999999999)]
    pub ts: u64,
    #[desc]
    pub c: u32,
    pub last: String,
}

/// The order after the salt.
pub fn text_ordered_key(v: &TextOrdered) -> impl Ord + Debug {
    let v = v.clone();
    (v.a, v.b, Reverse(v.ts), Reverse(v.c), v.last)
}

/// A field enum.
#[derive(KeyField, Arbitrary, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(i16)]
pub enum Level {
    Low = -300,
    Mid = 0,
    High = 7,
}

/// A nested key.
#[derive(RowKey, Arbitrary, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Device {
    pub site: u16,
    pub n: u32,
}

/// A salted family with a field enum and a nested key.
#[derive(RowKey, Arbitrary, Debug, Clone, PartialEq)]
#[rowkey(prefix = "E")]
#[salt(buckets = 5, by(device))]
pub struct FamEvent {
    pub device: Device,
    pub level: Level,
    #[desc]
    pub other: Device,
    pub name: String,
}

/// The order after the prefix and the salt.
pub fn fam_event_key(v: &FamEvent) -> impl Ord + Debug {
    let v = v.clone();
    (v.device, v.level, Reverse(v.other), v.name)
}

/// A text family.
#[derive(RowKey, Arbitrary, Debug, Clone, PartialEq)]
#[rowkey(text, sep = "_", prefix = "T")]
pub struct FamText {
    pub level: Level,
    pub user: String,
    pub last: String,
}

/// An unsalted family whose prefix starts with a byte below the others.
#[derive(RowKey, Arbitrary, Debug, Clone, PartialEq)]
#[rowkey(prefix = b"\x00")]
pub struct FamZero {
    pub id: u64,
}

/// The three families of one table.
#[derive(RowKey, Arbitrary, Debug, Clone, PartialEq)]
pub enum Fam {
    Event(FamEvent),
    Text(FamText),
    Zero(FamZero),
}

/// Whatever decodes re-encodes to the same bytes (after the salt byte,
/// which decode checks only for range), and decoding never panics.
pub fn canonical<'a, T>(bytes: &'a [u8], salted: bool)
where
    T: RowKeyTrait + DecodeRowKey<'a> + Debug,
{
    if let Ok(v) = T::decode(bytes) {
        let again = v
            .encode_to_vec()
            .unwrap_or_else(|e| panic!("decoded {v:?} does not encode: {e}"));
        let skip = if salted { T::HEAD_LEN } else { 0 };
        assert_eq!(
            &again[skip..],
            &bytes[skip..],
            "non-canonical bytes decoded to {v:?}"
        );
    }
}

/// The key's bytes, or `None` for a value that may not be stored (a
/// `#[fixed]` field too long or ending in its pad byte, an unsigned
/// `#[desc_ts]` above `i64::MAX`): those must be errors, never a panic.
pub fn encode<T: RowKeyTrait + Debug>(v: &T) -> Option<Vec<u8>> {
    match v.encode_to_vec() {
        Ok(bytes) => Some(bytes),
        Err(
            EncodeError::TooLong { .. }
            | EncodeError::EndsWithPad { .. }
            | EncodeError::TimestampOutOfRange { .. }
            | EncodeError::NegativeTimestamp { .. }
            | EncodeError::TooManyDigits { .. }
            | EncodeError::ContainsSeparator { .. },
        ) => None,
        Err(e) => panic!("{v:?}: unexpected error {e}"),
    }
}

/// Round trip through the bytes: the decoded value encodes to the same
/// bytes (floats compare by bits this way, NaN included).
pub fn round_trip<T>(v: &T) -> Option<Vec<u8>>
where
    T: RowKeyTrait + for<'a> DecodeRowKey<'a> + Debug,
{
    let bytes = encode(v)?;
    assert_eq!(bytes.len(), v.encoded_len(), "{v:?}: encoded_len");
    let back = T::decode(&bytes).unwrap_or_else(|e| panic!("{v:?} does not decode: {e}"));
    assert_eq!(back.encode_to_vec().unwrap(), bytes, "{v:?} -> {back:?}");
    Some(bytes)
}

/// The bytes (after `skip` salt bytes) sort like the keys.
pub fn order<T, K: Ord + Debug>(a: &T, b: &T, skip: usize, key: impl Fn(&T) -> K)
where
    T: RowKeyTrait + for<'x> DecodeRowKey<'x> + Debug,
{
    let (Some(ea), Some(eb)) = (round_trip(a), round_trip(b)) else {
        return;
    };
    assert_eq!(
        key(a).cmp(&key(b)),
        ea[skip..].cmp(&eb[skip..]),
        "order of {a:?} vs {b:?}"
    );
}
