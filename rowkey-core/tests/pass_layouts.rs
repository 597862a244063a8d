//! Valid layouts, edge cases included, compile without a single warning
//! (`deny(warnings, missing_docs)` here, `clippy -D warnings` in CI) and
//! work: exactly `max_len`, 256 buckets, a single field, every attribute
//! combined where allowed, lifetimes, raw identifiers, a field named
//! `range`, and a re-exported crate path.
#![deny(warnings, missing_docs)]
#![deny(clippy::all, clippy::pedantic)]

use std::borrow::Cow;

use rowkey_core::prelude::*;

/// Exactly at the limit: salt 1 + 8 + 8 = 17 bytes.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(max_len = 17)]
#[salt(buckets = 16, by(user_id))]
pub struct AtMaxLen {
    /// User.
    pub user_id: u64,
    /// Newest first.
    #[desc_ts]
    pub ts: i64,
}

/// 16 bytes in 8-byte multiples, as `HBase` practice recommends.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(max_len = 16, align = 8)]
pub struct Aligned {
    /// Tenant.
    pub tenant: u32,
    /// Kind.
    pub kind: [u8; 4],
    /// Sequence.
    #[reverse]
    pub seq: u64,
}

/// What an activity is: a `KeyField` enum, whose width only the compiler
/// knows (its `repr`).
#[derive(KeyField, Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u16)]
pub enum Action {
    /// Viewed.
    View = 1,
    /// Bought.
    Buy = 2,
}

/// 16 bytes, `align = 8`, with a field of a width only the compiler knows:
/// the generated check is `(4 + 8 + WIDTH + 2) % 8 == 0`.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(max_len = 16, align = 8)]
pub struct Activity {
    /// User, reversed against hot spots.
    #[reverse]
    pub user_id: u32,
    /// Newest first.
    #[desc_ts]
    pub ts: i64,
    /// What happened.
    pub action: Action,
    /// Sequence within the millisecond.
    pub seq: u16,
}

/// 16 bytes with a nested fixed-width key and a suffixed literal
/// (`align = 8u8` is the number 8), in two `#[rowkey]` attributes.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(max_len = 16u16)]
#[rowkey(align = 8u8)]
pub struct Nested {
    /// 12 bytes of a key of its own.
    pub inner: Inner,
    /// Four more.
    pub tail: u32,
}

/// A nested key: 4 + 8 bytes.
#[derive(RowKey, Debug, PartialEq)]
pub struct Inner {
    /// Shard.
    pub shard: u32,
    /// Id.
    pub id: u64,
}

/// The most buckets a one-byte salt can name.
#[derive(RowKey, Debug, PartialEq)]
#[salt(buckets = 256, hash = "java")]
pub struct MaxBuckets {
    /// The only field.
    pub id: u32,
}

/// One bucket is a valid (if pointless) salt.
#[derive(RowKey, Debug, PartialEq)]
#[salt(buckets = 1)]
pub struct OneBucket {
    /// The only field.
    pub id: u8,
}

/// A single field.
#[derive(RowKey, Debug, PartialEq)]
pub struct Single {
    /// The only field.
    pub id: u128,
}

/// Every attribute, each where it is allowed.
#[derive(RowKey, Debug, PartialEq)]
#[salt(buckets = 32, by(region, user), hash = "xxh3")]
pub struct Everything<'a> {
    /// Region code, padded with spaces like a Phoenix CHAR.
    #[fixed(4, pad = b' ')]
    pub region: &'a str,
    /// User, reversed to spread sequential ids.
    #[reverse]
    pub user: u64,
    /// Newest first.
    #[desc_ts]
    pub ts: u64,
    /// Highest score first.
    #[desc]
    pub score: Option<f32>,
    /// Descending, reversed, padded.
    #[desc]
    #[reverse]
    #[fixed(6)]
    pub tag: Vec<u8>,
    /// Newest first, optional.
    #[desc_ts]
    pub seen: Option<i32>,
    /// Borrowed, escaped.
    pub path: &'a [u8],
    /// Copy on write: borrowed unless escaped.
    pub label: Cow<'a, str>,
    /// Raw to the end of the key.
    pub tail: &'a str,
}

/// Raw identifiers and a field named like the range parameter.
#[derive(RowKey, Debug, PartialEq)]
pub struct Keywords {
    /// A keyword as a field name.
    pub r#type: u8,
    /// Named like the `range` parameter of `range_by_*`.
    pub range: u16,
    /// And one after it.
    pub r#match: i8,
}

/// A crate that re-exports `rowkey_core`, as a facade crate would.
pub mod facade {
    pub use rowkey_core as rk;
}

/// Generated code paths go through the re-export.
#[derive(rowkey_core::RowKey, Debug, PartialEq)]
#[rowkey(crate = "crate::facade::rk")]
pub struct ThroughFacade {
    /// The only field.
    pub id: u16,
}

/// A field that borrows for `'static`: decodable from `'static` bytes only.
#[derive(RowKey, Debug, PartialEq)]
pub struct StaticKind {
    /// A kind name from a fixed set of constants.
    #[fixed(8)]
    pub kind: &'static str,
    /// Sequence.
    pub seq: u32,
}

#[test]
fn static_borrow_decodes_from_static_bytes() {
    let key: &'static [u8] = Vec::leak(
        StaticKind {
            kind: "click",
            seq: 4,
        }
        .try_encode()
        .unwrap()
        .to_vec(),
    );
    assert_eq!(
        StaticKind::decode(key).unwrap(),
        StaticKind {
            kind: "click",
            seq: 4
        }
    );
}

#[test]
fn edge_layouts_work() {
    assert_eq!(AtMaxLen::LEN, 17);
    assert_eq!(Aligned::LEN, 16);
    assert_eq!(MaxBuckets::split_points().len(), 255);
    assert!(OneBucket::split_points().is_empty());
    assert_eq!(OneBucket { id: 9 }.encode(), [0, 9]);
    assert_eq!(
        Single::decode(&Single { id: 7 }.encode()).unwrap(),
        Single { id: 7 }
    );

    let e = Everything {
        region: "eu",
        user: 42,
        ts: 1_700_000_000_000,
        score: Some(0.5),
        tag: b"ab".to_vec(),
        seen: None,
        path: b"a/b",
        label: Cow::Borrowed("x"),
        tail: "end",
    };
    let bytes = e.encode_to_vec().unwrap();
    assert_eq!(Everything::decode(&bytes).unwrap(), e);
    assert_eq!(bytes[0], e.try_bucket().unwrap());
    let scan = Everything::scan_by_region_user("eu", 42).unwrap();
    assert_eq!(scan.range_count(), 1);
    assert!(scan.ranges().next().unwrap().contains(&bytes));

    let k = Keywords {
        r#type: 1,
        range: 2,
        r#match: -3,
    };
    assert_eq!(Keywords::decode(&k.encode()).unwrap(), k);
    let scan = Keywords::range_by_type_range_match(1, 2, -5..0);
    assert!(scan.ranges().next().unwrap().contains(&k.encode()));

    let f = ThroughFacade { id: 3 };
    assert_eq!(ThroughFacade::decode(&f.encode()).unwrap(), f);
}

/// A text key with every text attribute: 256 buckets (three digits), a
/// multi-byte separator, each integer width, borrowed and owned strings.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "::", max_len = 200)]
#[salt(buckets = 256, by(region, seq), hash = "java")]
pub struct TextEverything<'a> {
    /// Region, delimited.
    pub region: &'a str,
    /// Signed, default width.
    pub delta: i64,
    /// Unsigned, narrow.
    #[digits(4)]
    pub seq: u16,
    /// Descending.
    #[desc]
    pub score: u8,
    /// Reversed digits.
    #[reverse]
    pub id: u32,
    /// Seconds, newest first.
    #[desc_ts(max = 9_999_999_999)]
    pub ts: u64,
    /// Milliseconds, newest first (`Integer.MAX_VALUE - ts` for 32 bits).
    #[desc_ts]
    pub small_ts: i32,
    /// Padded.
    #[fixed(3, pad = b'.')]
    pub tag: Cow<'a, str>,
    /// Anything, the separator included.
    pub tail: String,
}

/// An unsalted text key of one field, and a mod salt over a `u8`.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "|")]
#[salt(buckets = 256, hash = "mod")]
pub struct TextSingle {
    /// Its own bucket.
    pub id: u8,
}

#[test]
fn text_layouts_work() {
    let k = TextEverything {
        region: "eu:west",
        delta: -42,
        seq: 9999,
        score: 3,
        id: 12,
        ts: 1_638_620_506,
        small_ts: 1_000,
        tag: Cow::Borrowed("ab"),
        tail: "::x".into(),
    };
    let text = k.encode_to_string().unwrap();
    assert_eq!(
        &text[5..],
        "eu:west::-9999999999999999957::9999::996::2100000000::8361379493::2147482647::ab.::::x"
    );
    assert_eq!(TextEverything::decode_str(&text).unwrap(), k);
    assert_eq!(TextEverything::HEAD_LEN, 5);
    assert_eq!(
        TextSingle { id: 200 }.encode_to_string().unwrap(),
        "200|200"
    );
    assert_eq!(TextSingle::split_points()[0], b"001");
}

/// A field enum.
#[derive(KeyField, Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i8)]
pub enum Tier {
    /// Below.
    Low = -1,
    /// Above.
    High = 1,
}

/// A borrowed, salted family with a field enum.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(prefix = b"\x00A")]
#[salt(buckets = 3, by(tier))]
pub struct FamilyA<'a> {
    /// Tier.
    pub tier: Tier,
    /// Name.
    pub name: &'a str,
}

/// A text family.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "|", prefix = "B")]
pub struct FamilyB {
    /// Tier, as digits.
    pub tier: Tier,
    /// A nested-free id.
    pub id: u16,
}

/// Both families, one with a lifetime.
#[derive(RowKey, Debug, PartialEq)]
pub enum Families<'a> {
    /// The first.
    A(FamilyA<'a>),
    /// The second.
    B(FamilyB),
}

#[test]
fn family_layouts_work() {
    let a = Families::A(FamilyA {
        tier: Tier::Low,
        name: "n",
    });
    let key = a.encode_to_vec().unwrap();
    assert_eq!(&key[..2], b"\x00A");
    assert_eq!(Families::decode(&key).unwrap(), a);
    let b = FamilyB {
        tier: Tier::High,
        id: 7,
    };
    assert_eq!(b.encode_to_string().unwrap(), "B|0001|00007");
    assert_eq!(Families::decode(b"B|-998|00007").unwrap().family(), "B");
}
