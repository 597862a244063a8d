//! Text keys (`#[rowkey(text, sep = "_")]`): the keys of the HBase and
//! Bigtable design guides byte for byte, the guide's broken range recipe
//! next to the generated one, the errors, and properties over every text
//! field type and attribute (round-trip, memcmp order = field order,
//! canonical decoding, no panic on any input).

use std::cmp::{Ordering, Reverse};
use std::collections::BTreeMap;
use std::fmt::Debug;

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use rowkey_core::hbase::create_table_statement;
use rowkey_core::prelude::*;

/// `0_18518885160_9223370398234269807`: phone % 10, the phone, then
/// `Long.MAX_VALUE - ts`.
#[derive(RowKey, Debug, PartialEq, Clone)]
#[rowkey(text, sep = "_")]
#[salt(buckets = 10, by(phone), hash = "mod")]
struct Call {
    #[digits(11)]
    phone: u64,
    #[desc_ts]
    ts: i64,
}

#[test]
fn seed_phone_mod_salt_and_java_max_minus_ts() {
    let k = Call {
        phone: 18518885160,
        ts: 1_638_620_506_000,
    };
    // Java: phone % 10 + "_" + phone + "_" + String.valueOf(Long.MAX_VALUE - ts)
    assert_eq!(
        k.encode_to_string().unwrap(),
        "0_18518885160_9223370398234269807"
    );
    assert_eq!(
        k.try_encode().unwrap(),
        *b"0_18518885160_9223370398234269807"
    );
    assert_eq!(Call::LEN, 33);
    assert_eq!(
        Call::decode_str("0_18518885160_9223370398234269807").unwrap(),
        k
    );
    let k = Call {
        phone: 11111111111,
        ts: 1_638_620_506_000,
    };
    assert_eq!(
        k.encode_to_string().unwrap(),
        "1_11111111111_9223370398234269807"
    );
    assert_eq!(k.try_bucket().unwrap(), 1);
    // The mod salt reads the value: `bucket()` cannot fail even though
    // encoding an over-long phone can.
    assert_eq!(k.bucket(), 1);
    assert_eq!(Call::scan_by_phone(11111111111).unwrap().range_count(), 1);
    // Fixed width, no heap: the array form.
    let key: [u8; Call::LEN] = k.try_encode().unwrap();
    assert_eq!(&key[..2], b"1_");
}

#[test]
fn split_points_are_the_bucket_digits_hbase_guides_write() {
    let splits = Call::split_points();
    let expected: Vec<Vec<u8>> = (1..10).map(|b| b.to_string().into_bytes()).collect();
    assert_eq!(splits, expected);
    assert_eq!(
        create_table_statement("calls", &["f"], &splits),
        "create 'calls', 'f', SPLITS => ['1', '2', '3', '4', '5', '6', '7', '8', '9']"
    );
    // 16 buckets: two digits, zero-padded, so that "10" sorts after "09".
    #[derive(RowKey)]
    #[rowkey(text, sep = "|")]
    #[salt(buckets = 16)]
    struct Wide {
        id: u32,
    }
    let splits = Wide::split_points();
    assert_eq!(splits.first().unwrap(), b"01");
    assert_eq!(splits.last().unwrap(), b"15");
    let key = Wide { id: 7 }.encode_to_string().unwrap();
    assert_eq!(&key[2..], "|0000000007");
    assert_eq!(key[..2].parse::<u8>().unwrap(), Wide { id: 7 }.bucket());
}

/// `8361379493_uid`: `9999999999 - ts` in seconds, newest first.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "_")]
struct Feed {
    #[desc_ts(max = 9999999999)]
    ts: u64,
    uid: String,
}

#[test]
fn seed_desc_ts_with_max() {
    let k = Feed {
        ts: 1638620506,
        uid: "uid".into(),
    };
    assert_eq!(k.encode_to_string().unwrap(), "8361379493_uid");
    assert_eq!(Feed::decode_str("8361379493_uid").unwrap(), k);
    let err = Feed {
        ts: 10_000_000_000,
        uid: String::new(),
    }
    .encode_to_vec()
    .unwrap_err();
    assert_eq!(
        err,
        EncodeError::TimestampOutOfRange {
            field: "ts",
            value: 10_000_000_000,
            max: 9_999_999_999
        }
    );
}

/// `4214858361_user_id`: a timestamp's digits reversed to spread writes.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "_")]
struct Spread<'a> {
    #[reverse]
    #[digits(10)]
    ts: u64,
    user_id: &'a str,
}

#[test]
fn seed_reversed_digits() {
    let k = Spread {
        ts: 1638584124,
        user_id: "user_id",
    };
    assert_eq!(k.encode_to_string().unwrap(), "4214858361_user_id");
    assert_eq!(Spread::decode_str("4214858361_user_id").unwrap(), k);
    // A phone number's last digit first: 0-padded first, then reversed.
    let k = Spread {
        ts: 42,
        user_id: "",
    };
    assert_eq!(k.encode_to_string().unwrap(), "2400000000_");
}

/// `uid1~uid2`, the tall table, scanned with `new Scan("uid1~", "uid1~~")`.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "~")]
struct Follows {
    follower: String,
    followed: String,
}

/// Bigtable's schema guide: `phone#4c410523#20200501`.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "#")]
struct Device {
    kind: String,
    id: String,
    #[digits(8)]
    date: u32,
}

#[test]
fn seed_tall_table_and_bigtable_guide() {
    let k = Follows {
        follower: "uid1".into(),
        followed: "uid2".into(),
    };
    assert_eq!(k.encode_to_string().unwrap(), "uid1~uid2");
    let scan = Follows::scan_by_follower("uid1").unwrap();
    let range = scan.ranges().next().unwrap();
    // The guide's start row; its stop row "uid1~~" is "uid1~" and the
    // largest printable byte, ours is the first key after every "uid1~...".
    assert_eq!(range.start(), b"uid1~");
    assert_eq!(range.stop(), b"uid1\x7f");
    assert!(range.contains(b"uid1~uid2") && range.contains(b"uid1~~~"));
    assert!(!range.contains(b"uid10~x") && !range.contains(b"uid1"));

    let k = Device {
        kind: "phone".into(),
        id: "4c410523".into(),
        date: 20200501,
    };
    assert_eq!(k.encode_to_string().unwrap(), "phone#4c410523#20200501");
    assert_eq!(Device::decode(b"phone#4c410523#20200501").unwrap(), k);
}

/// A user's events newest first, `user_MAX-ts`: the guide's recipe for the
/// events between `start` and `end` selects nothing; the generated range
/// returns them.
#[test]
fn the_guides_flipped_range_selects_nothing_and_range_by_is_right() {
    #[derive(RowKey, Debug, PartialEq)]
    #[rowkey(text, sep = "_")]
    struct Ev {
        #[fixed(8, pad = b' ')]
        user: String,
        #[desc_ts]
        ts: i64,
    }
    let mut table = BTreeMap::new();
    for ts in [100, 200, 300, 400, 500] {
        for user in ["alice", "bob"] {
            let k = Ev {
                user: user.into(),
                ts,
            };
            table.insert(k.encode_to_vec().unwrap(), ts);
        }
    }
    let (start, end) = (200i64, 400i64);
    // startRow = [user][MAX - start], stopRow = [user][MAX - end].
    let start_row = format!("{:<8}_{}", "alice", i64::MAX - start);
    let stop_row = format!("{:<8}_{}", "alice", i64::MAX - end);
    assert!(
        start_row > stop_row,
        "the start row sorts after the stop row"
    );
    let guide: Vec<i64> = table
        .iter()
        .filter(|(k, _)| k.as_slice() >= start_row.as_bytes() && k.as_slice() < stop_row.as_bytes())
        .map(|(_, v)| *v)
        .collect();
    assert!(guide.is_empty(), "the guide's recipe selects nothing");

    let scan = Ev::range_by_user_ts("alice", start..end).unwrap();
    let range = scan.ranges().next().unwrap();
    let rows: Vec<i64> = table
        .range::<[u8], _>(range.bounds())
        .map(|(_, v)| *v)
        .collect();
    assert_eq!(rows, [300, 200], "start..end, newest first");
}

#[test]
fn encode_errors_name_the_field() {
    let err = Call {
        phone: 123_456_789_012,
        ts: 0,
    }
    .try_encode()
    .unwrap_err();
    assert_eq!(
        err,
        EncodeError::TooManyDigits {
            field: "phone",
            width: 11
        }
    );
    assert_eq!(
        err.to_string(),
        "field `phone`: value has more than 11 digits, the field's width in the text key"
    );
    let err = Call { phone: 1, ts: -1 }.try_encode().unwrap_err();
    assert_eq!(
        err,
        EncodeError::NegativeTimestamp {
            field: "ts",
            value: -1
        }
    );
    let err = Device {
        kind: "ph#one".into(),
        id: String::new(),
        date: 0,
    }
    .encode_to_vec()
    .unwrap_err();
    assert_eq!(
        err,
        EncodeError::ContainsSeparator {
            field: "kind",
            sep: b"#"
        }
    );
    assert_eq!(
        err.to_string(),
        "field `kind`: value contains the separator \"#\", which would end the field early; only the last field of a text key may contain it"
    );
    // The last field may hold anything.
    let k = Follows {
        follower: "a".into(),
        followed: "b~c".into(),
    };
    assert_eq!(Follows::decode(&k.encode_to_vec().unwrap()).unwrap(), k);

    // A multi-byte separator: a value that ends with its first byte would
    // make the first "::" start inside the value.
    #[derive(RowKey, Debug, PartialEq)]
    #[rowkey(text, sep = "::")]
    struct Path {
        dir: String,
        file: String,
    }
    let err = Path {
        dir: "a:".into(),
        file: "b".into(),
    }
    .encode_to_vec()
    .unwrap_err();
    assert_eq!(
        err,
        EncodeError::ContainsSeparator {
            field: "dir",
            sep: b"::"
        }
    );
    let ok = Path {
        dir: ":a".into(),
        file: "::b".into(),
    };
    assert_eq!(ok.encode_to_string().unwrap(), ":a::::b");
    assert_eq!(Path::decode_str(":a::::b").unwrap(), ok);
}

#[test]
fn decode_errors_name_the_field() {
    use DecodeError::*;
    // A non-digit.
    assert!(matches!(
        Call::decode(b"0_1851888516x_9223370398234269807"),
        Err(InvalidValue { field: "phone", .. })
    ));
    // A wrong width: the separator is not where the width says.
    assert_eq!(
        Call::decode(b"0_185188851600_922337039823426980"),
        Err(MissingSeparator { field: "phone" })
    );
    assert_eq!(
        Call::decode(b"0_18518885160_922337039823426980"),
        Err(UnexpectedEnd {
            field: "ts",
            needed: 19,
            available: 18
        })
    );
    // No separator after the salt, a salt that is no bucket.
    assert_eq!(
        Call::decode(b"0-18518885160_9223370398234269807"),
        Err(MissingSeparator { field: "salt" })
    );
    assert!(matches!(
        Call::decode(b"x_18518885160_9223370398234269807"),
        Err(InvalidValue { field: "salt", .. })
    ));
    #[derive(RowKey, Debug)]
    #[rowkey(text, sep = "_")]
    #[salt(buckets = 12)]
    struct Twelve {
        id: u8,
    }
    assert_eq!(
        Twelve::decode(b"12_001").unwrap_err(),
        InvalidSalt {
            bucket: 12,
            buckets: 12
        }
    );
    // A delimited string with no separator after it.
    assert_eq!(
        Device::decode(b"phone"),
        Err(MissingSeparator { field: "kind" })
    );
    // Digits out of the type's range, and "-0".
    #[derive(RowKey, Debug)]
    #[rowkey(text, sep = "_")]
    struct Small {
        a: u8,
        b: i8,
    }
    assert!(matches!(
        Small::decode(b"256_0001"),
        Err(InvalidValue { field: "a", .. })
    ));
    assert!(matches!(
        Small::decode(b"255_-999"),
        Err(InvalidValue { field: "b", .. })
    ));
    assert!(matches!(
        Small::decode(b"255_+001"),
        Err(InvalidValue { field: "b", .. })
    ));
    assert_eq!(Small::decode(b"255_-871").unwrap().b, -128);
    // A desc_ts one digit too wide: the separator is not where MAX's
    // width puts it.
    assert!(matches!(
        Feed::decode(b"99999999999_x"),
        Err(MissingSeparator { field: "ts" })
    ));
    // A stored desc_ts above its MAX (19 nines > Long.MAX_VALUE) is no
    // MAX - ts.
    assert!(matches!(
        Call::decode(b"0_18518885160_9999999999999999999"),
        Err(InvalidValue { field: "ts", .. })
    ));
}

// ---------- properties ----------

/// A struct of one text field `v` followed by a last string, whose keys
/// must sort like `(order(v), tail)`.
macro_rules! text_field {
    ($($name:ident: $ty:ty $(, #[$attr:meta])*;)*) => {$(
        #[derive(RowKey, Debug, PartialEq, Clone)]
        #[rowkey(text, sep = "_")]
        struct $name {
            $(#[$attr])*
            v: $ty,
            tail: String,
        }
    )*};
}

text_field! {
    TU8: u8; TU16: u16; TU32: u32; TU64: u64; TU128: u128;
    TI8: i8; TI16: i16; TI32: i32; TI64: i64; TI128: i128;
    TDigits: u64, #[digits(7)];
    TSigned4: i32, #[digits(4)];
    TDesc: u32, #[desc];
    TDescDigits: u16, #[desc], #[digits(3)];
    TDescTs: i64, #[desc_ts];
    TDescTsU32: u32, #[desc_ts];
    TDescTsMax: u64, #[desc_ts(max = 9999999999)];
    TPadded: String, #[fixed(6, pad = b' ')];
}

/// Round-trip; order against `cmp` of the values; canonical decoding of
/// every key; UTF-8 text.
fn check_pair<T>(a: &T, b: &T, cmp: impl Fn(&T, &T) -> Ordering)
where
    T: RowKey + for<'de> DecodeRowKey<'de> + PartialEq + Debug,
{
    let (ka, kb) = (a.encode_to_vec(), b.encode_to_vec());
    let (Ok(ka), Ok(kb)) = (ka, kb) else { return };
    assert!(std::str::from_utf8(&ka).is_ok(), "{a:?}: not UTF-8");
    assert_eq!(&T::decode(&ka).unwrap(), a);
    assert_eq!(&T::decode(&kb).unwrap(), b);
    assert_eq!(
        ka.cmp(&kb),
        cmp(a, b),
        "{a:?} vs {b:?}: {:?} vs {:?}",
        String::from_utf8_lossy(&ka),
        String::from_utf8_lossy(&kb)
    );
}

fn tail() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["", "_", "a", "a_", "b", "\u{7f}", "é"]).prop_map(String::from)
}

macro_rules! order_props {
    ($($test:ident: $name:ident, $strategy:expr, $key:expr;)*) => {
        proptest! {
            #![proptest_config(ProptestConfig { failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/text.proptest-regressions"))), ..ProptestConfig::default() })]
            $(
                #[test]
                fn $test(a in $strategy, b in $strategy, ta in tail(), tb in tail()) {
                    let (a, b) = ($name { v: a, tail: ta }, $name { v: b, tail: tb });
                    check_pair(&a, &b, |x, y| ($key)(x).cmp(&($key)(y)).then_with(|| x.tail.cmp(&y.tail)));
                }
            )*
        }
    };
}

order_props! {
    order_u8: TU8, any::<u8>(), |x: &TU8| x.v;
    order_u16: TU16, any::<u16>(), |x: &TU16| x.v;
    order_u32: TU32, any::<u32>(), |x: &TU32| x.v;
    order_u64: TU64, any::<u64>(), |x: &TU64| x.v;
    order_u128: TU128, any::<u128>(), |x: &TU128| x.v;
    order_i8: TI8, any::<i8>(), |x: &TI8| x.v;
    order_i16: TI16, any::<i16>(), |x: &TI16| x.v;
    order_i32_across_zero: TI32, prop_oneof![any::<i32>(), -20i32..20], |x: &TI32| x.v;
    order_i64_across_zero: TI64, prop_oneof![any::<i64>(), -20i64..20], |x: &TI64| x.v;
    order_i128: TI128, any::<i128>(), |x: &TI128| x.v;
    order_digits_narrower: TDigits, prop_oneof![0u64..10_000_000, any::<u64>()], |x: &TDigits| x.v;
    order_signed_digits: TSigned4, -10_000i32..10_000, |x: &TSigned4| x.v;
    order_desc: TDesc, any::<u32>(), |x: &TDesc| Reverse(x.v);
    order_desc_digits: TDescDigits, 0u16..1200, |x: &TDescDigits| Reverse(x.v);
    order_desc_ts: TDescTs, prop_oneof![any::<i64>(), 0i64..2_000_000_000_000], |x: &TDescTs| Reverse(x.v);
    order_desc_ts_u32: TDescTsU32, any::<u32>(), |x: &TDescTsU32| Reverse(x.v);
    order_desc_ts_max: TDescTsMax, prop_oneof![0u64..10_000_000_000, any::<u64>()], |x: &TDescTsMax| Reverse(x.v);
    order_padded: TPadded, "[a-c ]{0,7}", |x: &TPadded| x.v.clone();
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/text.proptest-regressions"))), ..ProptestConfig::default() })]
    /// What cannot be stored is an error, never a changed value.
    #[test]
    fn out_of_range_values_are_errors(v in any::<u64>(), ts in any::<i64>(), s in "[a-c ]{0,8}") {
        let r = TDigits { v, tail: String::new() }.encode_to_vec();
        prop_assert_eq!(r.is_ok(), v < 10_000_000);
        let r = TDescTs { v: ts, tail: String::new() }.encode_to_vec();
        prop_assert_eq!(r.is_ok(), ts >= 0);
        let r = TPadded { v: s.clone(), tail: String::new() }.encode_to_vec();
        prop_assert_eq!(r.is_ok(), s.len() <= 6 && !s.ends_with(' '));
    }

    /// Reversed digits round-trip (their order is not the values': no range).
    #[test]
    fn reversed_round_trip(ts in any::<u64>(), id in "[a-z_]{0,5}") {
        let k = Spread { ts: ts % 10_000_000_000, user_id: &id };
        let bytes = k.encode_to_vec().unwrap();
        prop_assert_eq!(Spread::decode(&bytes).unwrap(), k);
    }

    /// Any bytes: decoding never panics, and what decodes re-encodes to
    /// the same bytes (one key per value).
    #[test]
    fn canonical_decoding(bytes in prop::collection::vec(prop_oneof![
        (b'0'..=b'9'), Just(b'_'), Just(b'#'), Just(b'-'), Just(b'~'), any::<u8>()
    ], 0..48)) {
        fn canonical<T: RowKey + for<'de> DecodeRowKey<'de>>(bytes: &[u8]) -> Result<(), TestCaseError> {
            if let Ok(v) = T::decode(bytes) {
                prop_assert_eq!(v.encode_to_vec().unwrap(), bytes);
            }
            Ok(())
        }
        canonical::<Call>(&bytes)?;
        canonical::<Feed>(&bytes)?;
        canonical::<Device>(&bytes)?;
        canonical::<Follows>(&bytes)?;
        canonical::<TI64>(&bytes)?;
        canonical::<TSigned4>(&bytes)?;
        canonical::<TDescDigits>(&bytes)?;
        canonical::<TDescTsMax>(&bytes)?;
        canonical::<TPadded>(&bytes)?;
        // Every prefix of a valid key is an error, not a panic.
        if let Ok(call) = Call::decode(&bytes) {
            let key = call.try_encode().unwrap();
            for n in 0..key.len() {
                prop_assert!(Call::decode(&key[..n]).is_err());
            }
        }
    }

    /// Valid keys cut short at every length: errors, never a panic.
    #[test]
    fn truncated_keys_are_errors(phone in 0u64..100_000_000_000, ts in 0i64..i64::MAX, kind in "[a-z]{0,4}") {
        let key = Call { phone, ts }.try_encode().unwrap();
        for n in 0..key.len() {
            prop_assert!(Call::decode(&key[..n]).is_err());
        }
        let d = Device { kind, id: "x".into(), date: 20200501 }.encode_to_vec().unwrap();
        for n in 0..d.len() {
            prop_assert!(Device::decode(&d[..n]).is_err());
        }
    }
}

// ---------- #[reverse_domain] ----------

/// The Bigtable paper's webtable: pages keyed by reversed host name, so one
/// site's pages (and its subdomains) sort together.
#[derive(RowKey, Debug, PartialEq, Clone)]
#[rowkey(text, sep = "#")]
struct Page {
    #[reverse_domain]
    host: String,
    path: String,
}

/// The same in a binary key, where a non-last string is escaped.
#[derive(RowKey, Debug, PartialEq, Clone)]
struct BinaryPage {
    #[reverse_domain]
    host: String,
    #[fixed(12)]
    #[reverse_domain]
    mirror: String,
    seq: u16,
    #[reverse_domain]
    last: String,
}

#[test]
fn reverse_domain_groups_a_site() {
    let k = Page {
        host: "www.example.com".into(),
        path: "/index.html".into(),
    };
    assert_eq!(k.encode_to_string().unwrap(), "com.example.www#/index.html");
    assert_eq!(Page::decode_str("com.example.www#/index.html").unwrap(), k);
    let mut keys: Vec<Vec<u8>> = ["www.example.com", "example.org", "maps.example.com", "a.b"]
        .iter()
        .map(|h| {
            Page {
                host: (*h).into(),
                path: "/".into(),
            }
            .encode_to_vec()
            .unwrap()
        })
        .collect();
    keys.sort();
    let hosts: Vec<String> = keys.iter().map(|k| Page::decode(k).unwrap().host).collect();
    assert_eq!(
        hosts,
        ["a.b", "maps.example.com", "www.example.com", "example.org"],
        "sorted by TLD, then domain, then subdomain"
    );
    let scan = Page::scan_by_host("www.example.com").unwrap();
    assert_eq!(scan.ranges().next().unwrap().start(), b"com.example.www#");

    let b = BinaryPage {
        host: "a\0b.example.com".into(),
        mirror: "x.example".into(),
        seq: 7,
        last: "cdn.example.net".into(),
    };
    let bytes = b.encode_to_vec().unwrap();
    assert!(bytes.starts_with(b"com.example.a\0\xFFb\0\x01example.x\0\0\0"));
    assert!(bytes.ends_with(b"net.example.cdn"));
    assert_eq!(BinaryPage::decode(&bytes).unwrap(), b);
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/text.proptest-regressions"))), ..ProptestConfig::default() })]
    /// Any host names, empty labels and NULs included: round trip in both
    /// formats, and the key holds the labels reversed.
    #[test]
    fn reverse_domain_round_trips(labels in prop::collection::vec("[a-c\0]{0,3}", 1..5), tail in "[a-c.]{0,6}") {
        let host = labels.join(".");
        let b = BinaryPage { host: host.clone(), mirror: String::new(), seq: 1, last: tail.clone() };
        let bytes = b.encode_to_vec().unwrap();
        prop_assert_eq!(BinaryPage::decode(&bytes).unwrap(), b);
        let reversed: Vec<&str> = labels.iter().rev().map(String::as_str).collect();
        let no_nul = !host.contains('\0');
        if no_nul {
            prop_assert!(bytes.starts_with(reversed.join(".").as_bytes()));
        }
        let p = Page { host: host.clone(), path: tail };
        let text = p.encode_to_vec().unwrap();
        prop_assert!(text.starts_with(reversed.join(".").as_bytes()));
        prop_assert_eq!(Page::decode(&text).unwrap(), p);
    }
}
