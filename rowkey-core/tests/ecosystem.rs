//! The ecosystem's field types (FORMAT.md, "Ecosystem field types"):
//! golden vectors from `reference.py ecosystem`; round trip and order for
//! each type (timestamps at every unit, across the epoch); every way a
//! timestamp cannot be stored exactly is an error naming the field; the
//! text forms; decoding rejects bytes no value encodes to; descriptors
//! and `explain`.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use chrono::{DateTime, Utc};
use proptest::prelude::*;
use rowkey_core::prelude::*;
use rowkey_core::timestamp::TimeError;
use rowkey_core::{TimeField, TimeUnit};
use ulid::Ulid;
use uuid::Uuid;

fn vectors() -> BTreeMap<String, Vec<u8>> {
    include_str!("golden/ecosystem.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (name, hex) = l.split_once(' ').unwrap();
            let bytes = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            (name.to_string(), bytes)
        })
        .collect()
}

/// Encodes to the vector's bytes and decodes back to the value.
fn check<T>(vectors: &BTreeMap<String, Vec<u8>>, name: &str, value: T)
where
    T: RowKey + for<'a> DecodeRowKey<'a> + PartialEq + Debug,
{
    let expected = &vectors[name];
    assert_eq!(
        &value.encode_to_vec().unwrap(),
        expected,
        "`{name}`: {value:?}"
    );
    assert_eq!(T::FIXED_LEN, Some(expected.len()), "`{name}`: FIXED_LEN");
    assert_eq!(T::decode(expected).unwrap(), value, "`{name}`");
}

macro_rules! one_field {
    ($($name:ident: $ty:ty $(, $(#[$attr:meta])*)?;)*) => {$(
        #[derive(RowKey, Debug, PartialEq)]
        struct $name {
            $($(#[$attr])*)?
            v: $ty,
        }
    )*};
}

one_field! {
    KUuid: Uuid;
    KUuidRev: Uuid, #[reverse];
    KUlid: Ulid;
    KUlidRev: Ulid, #[reverse];
    KV4: Ipv4Addr;
    KV6: Ipv6Addr;
    KIp: IpAddr;
    KChrono: DateTime<Utc>;
    KChronoDesc: DateTime<Utc>, #[desc_ts];
    KTimeSecs: time::OffsetDateTime, #[ts(secs)];
    KPrimMicros: time::PrimitiveDateTime, #[ts(micros)];
    KJiffNanos: jiff::Timestamp, #[ts(nanos)];
    KOptTs: Option<jiff::Timestamp>;
    KJiffMillis: jiff::Timestamp, #[ts(millis)];
    KChronoMicros: DateTime<Utc>, #[ts(micros)];
    KChronoNanosDesc: DateTime<Utc>, #[ts(nanos)] #[desc_ts];
    KTimeMillis: time::OffsetDateTime;
}

#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "_")]
struct TUuid {
    a: Uuid,
    #[reverse]
    b: Uuid,
}

#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "_")]
struct TUlid {
    v: Ulid,
}

#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "_")]
struct TV4 {
    v: Ipv4Addr,
}

#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "_")]
struct TV6 {
    v: Ipv6Addr,
}

#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "_")]
struct TIp {
    a: IpAddr,
    b: IpAddr,
}

#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "_")]
struct TTs {
    at: DateTime<Utc>,
    #[desc_ts]
    newest: jiff::Timestamp,
    #[ts(secs)]
    day: time::OffsetDateTime,
}

fn chrono_ms(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap()
}

fn parse_jiff(s: &str) -> jiff::Timestamp {
    s.parse().unwrap()
}

fn to_time(t: jiff::Timestamp) -> time::OffsetDateTime {
    time::OffsetDateTime::from_unix_timestamp_nanos(t.as_nanosecond()).unwrap()
}

#[test]
fn golden_vectors() {
    let g = vectors();
    let u: Uuid = "0190b0a0-7e1c-7cc3-8a3b-123456789abc".parse().unwrap();
    check(&g, "eco_uuid", KUuid { v: u });
    check(&g, "eco_uuid_reverse", KUuidRev { v: u });
    let l: Ulid = "01ARZ3NDEKTSV4RRFFQ69G5FAV".parse().unwrap();
    check(&g, "eco_ulid", KUlid { v: l });
    check(&g, "eco_ulid_reverse", KUlidRev { v: l });
    check(
        &g,
        "eco_ipv4",
        KV4 {
            v: "192.168.1.2".parse().unwrap(),
        },
    );
    check(
        &g,
        "eco_ipv6",
        KV6 {
            v: "2001:db8::1".parse().unwrap(),
        },
    );
    check(
        &g,
        "eco_ipaddr_v4",
        KIp {
            v: "10.0.0.1".parse().unwrap(),
        },
    );
    check(
        &g,
        "eco_ipaddr_v6",
        KIp {
            v: "::1".parse().unwrap(),
        },
    );
    let ms = chrono_ms(1_638_620_506_000);
    check(&g, "eco_ts_millis", KChrono { v: ms });
    check(&g, "eco_ts_desc_millis", KChronoDesc { v: ms });
    // `Long.MAX_VALUE - ts`, as HBase users write it.
    assert_eq!(
        g["eco_ts_desc_millis"],
        (i64::MAX - 1_638_620_506_000).to_be_bytes()
    );
    check(
        &g,
        "eco_ts_secs_before_1970",
        KTimeSecs {
            v: to_time(parse_jiff("1969-07-20T20:17:40Z")),
        },
    );
    let micros = to_time(parse_jiff("2024-02-29T12:00:00.123456Z"));
    check(
        &g,
        "eco_ts_micros",
        KPrimMicros {
            v: time::PrimitiveDateTime::new(micros.date(), micros.time()),
        },
    );
    check(
        &g,
        "eco_ts_nanos",
        KJiffNanos {
            v: parse_jiff("2262-04-11T23:47:16.854775807Z"),
        },
    );
    check(&g, "eco_ts_option_none", KOptTs { v: None });
    check(
        &g,
        "eco_ts_option_some",
        KOptTs {
            v: Some(parse_jiff("2021-12-04T12:21:46Z")),
        },
    );

    let text = |name: &str| String::from_utf8(g[name].clone()).unwrap();
    let t = TUuid { a: u, b: u };
    assert_eq!(t.encode_to_string().unwrap(), text("eco_text_uuid"));
    assert_eq!(TUuid::decode(text("eco_text_uuid").as_bytes()).unwrap(), t);
    let t = TUlid { v: l };
    assert_eq!(t.encode_to_string().unwrap(), text("eco_text_ulid"));
    assert_eq!(TUlid::decode(&g["eco_text_ulid"]).unwrap(), t);
    let t = TV4 {
        v: "192.168.1.2".parse().unwrap(),
    };
    assert_eq!(t.encode_to_string().unwrap(), text("eco_text_ipv4"));
    assert_eq!(TV4::decode(&g["eco_text_ipv4"]).unwrap(), t);
    let t = TV6 {
        v: "2001:db8::1".parse().unwrap(),
    };
    assert_eq!(t.encode_to_string().unwrap(), text("eco_text_ipv6"));
    assert_eq!(TV6::decode(&g["eco_text_ipv6"]).unwrap(), t);
    let t = TIp {
        a: "10.0.0.1".parse().unwrap(),
        b: "::1".parse().unwrap(),
    };
    assert_eq!(t.encode_to_string().unwrap(), text("eco_text_ipaddr"));
    assert_eq!(TIp::decode(&g["eco_text_ipaddr"]).unwrap(), t);
    let t = TTs {
        at: ms,
        newest: parse_jiff("2021-12-04T12:21:46Z"),
        day: to_time(parse_jiff("1969-07-20T20:17:40Z")),
    };
    assert_eq!(t.encode_to_string().unwrap(), text("eco_text_ts"));
    assert_eq!(TTs::decode(&g["eco_text_ts"]).unwrap(), t);
}

/// The key bytes sort like the values, and decode back to them.
fn assert_order<K, V>(a: V, b: V, key: impl Fn(V) -> K, desc: bool)
where
    K: RowKey + for<'d> DecodeRowKey<'d> + PartialEq + Debug,
    V: Ord + Clone + Debug,
{
    let (ka, kb) = (key(a.clone()), key(b.clone()));
    let (ba, bb) = (ka.encode_to_vec().unwrap(), kb.encode_to_vec().unwrap());
    assert_eq!(K::decode(&ba).unwrap(), ka);
    assert_eq!(K::decode(&bb).unwrap(), kb);
    let expected = if desc { b.cmp(&a) } else { a.cmp(&b) };
    assert_eq!(
        ba.cmp(&bb),
        expected,
        "{a:?} vs {b:?}: {ba:02X?} vs {bb:02X?}"
    );
}

fn ip() -> impl Strategy<Value = IpAddr> {
    prop_oneof![
        any::<[u8; 4]>().prop_map(|o| IpAddr::V4(o.into())),
        // Near the IPv4-mapped range too.
        any::<[u8; 4]>().prop_map(|o| IpAddr::V6(Ipv4Addr::from(o).to_ipv6_mapped())),
        any::<[u8; 16]>().prop_map(|o| IpAddr::V6(o.into())),
    ]
}

/// Nanoseconds within every type's range (jiff: years -9999 to 9999),
/// clustered around the epoch so that both signs and sub-second values
/// are common.
fn nanos() -> impl Strategy<Value = i128> {
    let max = 253_402_207_200i128 * 1_000_000_000; // 9999-12-30
    prop_oneof![
        -max..max,
        -10_000_000_000i128..10_000_000_000,
        (-1_000_000i128..1_000_000).prop_map(|s| s * 1_000_000_000),
    ]
}

/// `nanos` cut to a whole number of `unit`s that fits the unit's i64.
fn at_unit(nanos: i128, unit: TimeUnit) -> jiff::Timestamp {
    let per = unit.nanos();
    let ticks = (nanos.div_euclid(per)).clamp(i64::MIN as i128, i64::MAX as i128);
    jiff::Timestamp::from_nanosecond(ticks * per).unwrap()
}

fn chrono_of(t: jiff::Timestamp) -> DateTime<Utc> {
    let n = t.as_nanosecond();
    DateTime::from_timestamp(
        n.div_euclid(1_000_000_000) as i64,
        n.rem_euclid(1_000_000_000) as u32,
    )
    .unwrap()
}

proptest! {
    #[test]
    fn ids_round_trip_in_byte_order(a: u128, b: u128) {
        // UUID order is byte order (RFC 9562 bytes, big-endian).
        assert_order(a, b, |v| KUuid { v: Uuid::from_u128(v) }, false);
        assert_order(a, b, |v| KUlid { v: Ulid(v) }, false);
        // Reversed: a round trip, in the order of the reversed bytes.
        let (ra, rb) = (a.swap_bytes(), b.swap_bytes());
        let key = |v: u128| KUuidRev { v: Uuid::from_u128(v) }.encode_to_vec().unwrap();
        prop_assert_eq!(key(a).cmp(&key(b)), ra.cmp(&rb));
        prop_assert_eq!(KUuidRev::decode(&key(a)).unwrap().v, Uuid::from_u128(a));
        // Text: the canonical forms, in the same order.
        let text = |v: u128| TUlid { v: Ulid(v) }.encode_to_string().unwrap();
        prop_assert_eq!(text(a).cmp(&text(b)), a.cmp(&b));
        prop_assert_eq!(text(a), Ulid(a).to_string());
        let t = TUuid { a: Uuid::from_u128(a), b: Uuid::from_u128(b) };
        let s = t.encode_to_string().unwrap();
        prop_assert_eq!(&s[..36], Uuid::from_u128(a).hyphenated().to_string());
        prop_assert_eq!(TUuid::decode(s.as_bytes()).unwrap(), t);
    }

    #[test]
    fn ip_addresses_round_trip_in_order(a in ip(), b in ip()) {
        // std's order: every IPv4 address before every IPv6 address.
        assert_order(a, b, |v| KIp { v }, false);
        if let (IpAddr::V4(x), IpAddr::V4(y)) = (a, b) {
            assert_order(x, y, |v| KV4 { v }, false);
            let text = |v| TV4 { v }.encode_to_string().unwrap();
            prop_assert_eq!(text(x).cmp(&text(y)), x.cmp(&y));
            prop_assert_eq!(TV4::decode(text(x).as_bytes()).unwrap().v, x);
        }
        if let (IpAddr::V6(x), IpAddr::V6(y)) = (a, b) {
            assert_order(x, y, |v| KV6 { v }, false);
        }
        let t = TIp { a, b };
        let s = t.encode_to_string().unwrap();
        prop_assert_eq!(TIp::decode(s.as_bytes()).unwrap(), t);
        let first = |v| TIp { a: v, b }.encode_to_string().unwrap();
        prop_assert_eq!(first(a).cmp(&first(b)), a.cmp(&b));
    }

    #[test]
    fn timestamps_round_trip_in_chronological_order(x in nanos(), y in nanos()) {
        for unit in [TimeUnit::Secs, TimeUnit::Millis, TimeUnit::Micros, TimeUnit::Nanos] {
            let (a, b) = (at_unit(x, unit), at_unit(y, unit));
            match unit {
                TimeUnit::Secs => assert_order(to_time(a), to_time(b), |v| KTimeSecs { v }, false),
                TimeUnit::Millis => {
                    assert_order(a, b, |v| KJiffMillis { v }, false);
                    assert_order(chrono_of(a), chrono_of(b), |v| KChrono { v }, false);
                    assert_order(chrono_of(a), chrono_of(b), |v| KChronoDesc { v }, true);
                    assert_order(to_time(a), to_time(b), |v| KTimeMillis { v }, false);
                    // Byte for byte Long.MAX_VALUE - millis.
                    let ms = a.as_millisecond();
                    prop_assert_eq!(
                        KChronoDesc { v: chrono_of(a) }.encode_to_vec().unwrap(),
                        i64::MAX.wrapping_sub(ms).to_be_bytes().to_vec()
                    );
                }
                TimeUnit::Micros => {
                    let prim = |t: jiff::Timestamp| {
                        let o = to_time(t);
                        time::PrimitiveDateTime::new(o.date(), o.time())
                    };
                    assert_order(prim(a), prim(b), |v| KPrimMicros { v }, false);
                    assert_order(chrono_of(a), chrono_of(b), |v| KChronoMicros { v }, false);
                }
                _ => {
                    assert_order(a, b, |v| KJiffNanos { v }, false);
                    assert_order(chrono_of(a), chrono_of(b), |v| KChronoNanosDesc { v }, true);
                }
            }
        }
        // Text keys: digits sort chronologically too (newest first for desc_ts).
        let (a, b) = (at_unit(x, TimeUnit::Millis), at_unit(y, TimeUnit::Millis));
        let text = |t: jiff::Timestamp| TTs { at: chrono_of(t), newest: jiff::Timestamp::UNIX_EPOCH, day: time::OffsetDateTime::UNIX_EPOCH }.encode_to_string().unwrap();
        prop_assert_eq!(text(a).cmp(&text(b)), a.cmp(&b));
        prop_assert_eq!(TTs::decode(text(a).as_bytes()).unwrap().at, chrono_of(a));
        if a >= jiff::Timestamp::UNIX_EPOCH && b >= jiff::Timestamp::UNIX_EPOCH {
            let text = |t: jiff::Timestamp| TTs { at: chrono_of(t), newest: t, day: time::OffsetDateTime::UNIX_EPOCH }.encode_to_string().unwrap();
            prop_assert_eq!(text(a)[21..].cmp(&text(b)[21..]), b.cmp(&a));
        }
    }

    #[test]
    fn a_finer_timestamp_is_an_error_never_a_rounding(x in nanos(), extra in 1i128..1_000_000) {
        let whole = at_unit(x, TimeUnit::Millis);
        let finer = jiff::Timestamp::from_nanosecond(whole.as_nanosecond() + extra).unwrap();
        let err = KJiffMillis { v: finer }.try_encode().unwrap_err();
        prop_assert_eq!(err, EncodeError::Time { field: "v", unit: TimeUnit::Millis, error: TimeError::Precision });
        let chrono_key = KChrono { v: chrono_of(finer) }.try_encode();
        prop_assert!(chrono_key.is_err());
    }
}

#[test]
fn every_inexact_timestamp_is_an_error_naming_the_field() {
    let ms = chrono_ms(1_700_000_000_123);
    let err = KChrono {
        v: ms + chrono::Duration::microseconds(1),
    }
    .try_encode()
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "field `v`: the timestamp is finer than #[ts(millis)] stores; round it to whole milliseconds first, or choose a finer unit"
    );
    // Seconds: the milliseconds would be lost.
    let err = KTimeSecs {
        v: to_time(parse_jiff("2024-01-01T00:00:00.5Z")),
    }
    .try_encode()
    .unwrap_err();
    assert_eq!(
        err,
        EncodeError::Time {
            field: "v",
            unit: TimeUnit::Secs,
            error: TimeError::Precision
        }
    );
    // Nanoseconds end in 2262.
    let err = KJiffNanos {
        v: parse_jiff("2300-01-01T00:00:00Z"),
    }
    .try_encode()
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "field `v`: the timestamp is out of range: as nanoseconds since 1970 it does not fit in an i64; choose a coarser unit than #[ts(nanos)]"
    );
    assert!(KJiffNanos {
        v: parse_jiff("1600-01-01T00:00:00Z")
    }
    .try_encode()
    .is_err());
    // An offset other than UTC would be lost.
    let berlin = to_time(parse_jiff("2024-01-01T00:00:00Z"))
        .to_offset(time::UtcOffset::from_hms(1, 0, 0).unwrap());
    let err = KTimeMillis { v: berlin }.try_encode().unwrap_err();
    assert_eq!(
        err,
        EncodeError::Time {
            field: "v",
            unit: TimeUnit::Millis,
            error: TimeError::NotUtc
        }
    );
    assert!(err.to_string().contains("not UTC"), "{err}");
    // A leap second has no Unix time of its own.
    let leap = chrono::NaiveDate::from_ymd_opt(2016, 12, 31)
        .unwrap()
        .and_hms_milli_opt(23, 59, 59, 1_500)
        .unwrap()
        .and_utc();
    let err = KChrono { v: leap }.try_encode().unwrap_err();
    assert_eq!(
        err,
        EncodeError::Time {
            field: "v",
            unit: TimeUnit::Millis,
            error: TimeError::LeapSecond
        }
    );
    // A scan bound finer than the unit is not an error: it means the
    // storable values the range holds (the start rounds up, the end down).
    let ranges = |scan: Scan| scan.ranges().collect::<Vec<_>>();
    let ns = chrono::Duration::nanoseconds(1);
    assert_eq!(
        ranges(TTs::range_by_at(ms..ms + ns).unwrap()),
        ranges(TTs::range_by_at(ms..=ms).unwrap())
    );
    assert_eq!(
        ranges(TTs::range_by_at(ms - ns..ms + ns).unwrap()),
        ranges(TTs::range_by_at(ms..=ms).unwrap())
    );
    assert!(TTs::range_by_at(ms + ns..ms + ns + ns).unwrap().is_empty());
    // The text key's desc_ts is MAX - ts: before 1970 it has no digits.
    let err = TTs {
        at: ms,
        newest: parse_jiff("1969-12-31T23:59:59Z"),
        day: time::OffsetDateTime::UNIX_EPOCH,
    }
    .encode_to_string()
    .unwrap_err();
    assert!(
        matches!(
            err,
            EncodeError::NegativeTimestamp {
                field: "newest",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn bytes_no_value_encodes_to_are_rejected() {
    // IpAddr: a tag other than 04 and 06, and IPv4 padding that is not zero.
    let mut k = KIp {
        v: "10.0.0.1".parse().unwrap(),
    }
    .encode_to_vec()
    .unwrap();
    k[16] = 1;
    assert_eq!(
        KIp::decode(&k).unwrap_err().to_string(),
        "field `v`: an IPv4 address's 12 padding bytes are not zero"
    );
    k[0] = 5;
    assert!(KIp::decode(&k)
        .unwrap_err()
        .to_string()
        .contains("04 (IPv4) or 06 (IPv6)"));
    // A stored timestamp outside the type's range: jiff ends in 9999.
    let far = i64::MAX - 5;
    let mut key = [0u8; 8];
    key.copy_from_slice(&((far as u64) ^ (1 << 63)).to_be_bytes());
    assert_eq!(
        KJiffMillis::decode(&key).unwrap_err(),
        DecodeError::InvalidValue {
            field: "v",
            reason: "the stored timestamp is outside the range of the field's type"
        }
    );
    // Text: one text per value.
    let upper = "0190B0A0-7E1C-7CC3-8A3B-123456789ABC_cba987654321-b3a8-3cc7-c1e7-0a0b0910";
    assert!(TUuid::decode(upper.as_bytes())
        .unwrap_err()
        .to_string()
        .contains("lowercase"));
    let lower = "01arz3ndektsv4rrffq69g5fav";
    assert!(TUlid::decode(lower.as_bytes())
        .unwrap_err()
        .to_string()
        .contains("Crockford"));
    assert!(TV4::decode(b"192.168.001.256").is_err());
    assert!(TV4::decode(b"192.168.1.2xxxx").is_err());
    assert!(TIp::decode(
        b"5000:0000:0000:0000:0000:ffff:0a00:0001_60000:0000:0000:0000:0000:0000:0000:0001"
    )
    .is_err());
    // "4" with an address that is not IPv4-mapped.
    assert!(TIp::decode(
        b"40000:0000:0000:0000:0000:0000:0a00:0001_60000:0000:0000:0000:0000:0000:0000:0001"
    )
    .is_err());
}

#[test]
fn descriptors_name_the_unit() {
    assert_eq!(
        KChrono::LAYOUT.to_string(),
        "[v ts(millis) DateTime<Utc> 8] = 8 bytes"
    );
    assert_eq!(
        KChronoNanosDesc::LAYOUT.to_string(),
        "[v ts(nanos) desc_ts DateTime<Utc> 8] = 8 bytes"
    );
    assert_eq!(
        KUuidRev::LAYOUT.to_string(),
        "[v reverse Uuid 16] = 16 bytes"
    );
    assert_eq!(KIp::LAYOUT.to_string(), "[v IpAddr 17] = 17 bytes");
    assert_eq!(
        TTs::LAYOUT.to_string(),
        "text(\"_\") [at ts(millis) digits(19) DateTime<Utc> 21][newest ts(millis) desc_ts digits(19) jiff::Timestamp 20][day ts(secs) digits(19) time::OffsetDateTime 20] = 61 bytes"
    );
    assert_eq!(KChrono::LAYOUT.fields()[0].unit(), Some(TimeUnit::Millis));
    assert_eq!(KUuid::LAYOUT.fields()[0].unit(), None);
    // The unit is part of the fingerprint: a key re-frozen at another unit
    // fails its freeze test.
    assert_ne!(KJiffMillis::LAYOUT_ID, KJiffNanos::LAYOUT_ID);
    #[cfg(feature = "json")]
    {
        let json: serde_json::Value = serde_json::from_str(&KChronoDesc::LAYOUT.to_json()).unwrap();
        assert_eq!(json["fields"][0]["unit"], "millis");
        assert_eq!(json["fields"][0]["encoding"], "desc_ts");
        let json: serde_json::Value = serde_json::from_str(&TUlid::LAYOUT.to_json()).unwrap();
        assert_eq!(json["fields"][0]["encoding"], "text_form");
    }
}

#[test]
fn explain_shows_times_and_ids() {
    let key = KChronoDesc {
        v: chrono_ms(1_638_620_506_000),
    }
    .try_encode()
    .unwrap();
    let text = KChronoDesc::explain(&key[..]).to_string();
    assert!(
        text.contains("2021-12-04T12:21:46Z (DateTime<Utc>)"),
        "{text}"
    );
    let key = TUuid {
        a: Uuid::nil(),
        b: Uuid::max(),
    }
    .encode_to_string()
    .unwrap();
    let text = TUuid::explain(&key).to_string();
    assert!(
        text.contains("00000000-0000-0000-0000-000000000000 (Uuid)"),
        "{text}"
    );
    assert!(
        text.contains("ffffffff-ffff-ffff-ffff-ffffffffffff (Uuid)"),
        "{text}"
    );
    let key = KIp {
        v: "2001:db8::1".parse().unwrap(),
    }
    .encode_to_vec()
    .unwrap();
    assert!(KIp::explain(&key)
        .to_string()
        .contains("2001:db8::1 (IpAddr)"));
}

/// A type of your own with `#[ts]`: the trait is public.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Tick(i64);

impl TimeField for Tick {
    fn to_instant(&self) -> Result<rowkey_core::timestamp::Instant, TimeError> {
        Ok(rowkey_core::timestamp::Instant(
            i128::from(self.0) * 1_000_000_000,
        ))
    }
    fn from_instant(i: rowkey_core::timestamp::Instant) -> Result<Self, TimeError> {
        i64::try_from(i.0 / 1_000_000_000)
            .map(Tick)
            .map_err(|_| TimeError::OutOfRange)
    }
}

#[derive(RowKey, Debug, PartialEq)]
struct Own {
    #[ts(millis)]
    at: Tick,
}

#[test]
fn your_own_time_type() {
    let key = Own { at: Tick(-3) }.try_encode().unwrap();
    assert_eq!(key, ((-3000i64 as u64) ^ (1 << 63)).to_be_bytes());
    assert_eq!(Own::decode(&key).unwrap().at, Tick(-3));
    let text = Own::explain(&key[..]).to_string();
    assert!(text.contains("1969-12-31T23:59:57Z (Tick)"), "{text}");
}

/// A salted key with a millisecond timestamp and a 3-byte padded tag: scan
/// bounds finer than a millisecond or longer than 3 bytes.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 4, by(dev))]
struct Rounding {
    dev: u8,
    #[ts(millis)]
    at: DateTime<Utc>,
    #[fixed(3)]
    tag: String,
}

fn at(nanos: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_nanos(nanos)
}

fn bound_at(kind: u8, nanos: i64) -> std::ops::Bound<DateTime<Utc>> {
    match kind % 3 {
        0 => std::ops::Bound::Included(at(nanos)),
        1 => std::ops::Bound::Excluded(at(nanos)),
        _ => std::ops::Bound::Unbounded,
    }
}

fn bound_tag(kind: u8, tag: &str) -> std::ops::Bound<String> {
    match kind % 3 {
        0 => std::ops::Bound::Included(tag.to_owned()),
        1 => std::ops::Bound::Excluded(tag.to_owned()),
        _ => std::ops::Bound::Unbounded,
    }
}

/// The keys a scan reads from a sorted map, each range read and the
/// buckets merged.
fn read_map(map: &BTreeMap<Vec<u8>, Rounding>, scan: &Scan) -> Vec<Rounding> {
    let streams: Vec<_> = scan
        .ranges()
        .map(|r| {
            map.range::<[u8], _>(r.bounds())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<Vec<_>>()
                .into_iter()
        })
        .collect();
    scan.merge(streams).map(|(_, v)| v).collect()
}

proptest! {
    /// A range bound that cannot be stored exactly (a timestamp finer than
    /// its unit, a `#[fixed(3)]` string of 4 or 5 bytes) selects exactly the
    /// stored keys the Rust range holds: the same rows as a filter.
    #[test]
    fn inexact_bounds_scan_what_the_range_holds(
        rows in prop::collection::vec((0u8..3, 0i64..40, prop::sample::select(vec!["", "a", "ab", "abc", "b", "ba"])), 1..60),
        dev in 0u8..3,
        (k1, n1, k2, n2) in (0u8..3, -2_000_000i64..42_000_000, 0u8..3, -2_000_000i64..42_000_000),
        (t1, s1, t2, s2) in (0u8..3, prop::sample::select(vec!["", "a", "ab", "abc", "abcd", "abd", "b", "baaa", "bb"]), 0u8..3, prop::sample::select(vec!["", "a", "ab", "abc", "abcd", "abd", "b", "baaa", "bb"])),
        fixed_ms in 0i64..40,
    ) {
        use std::ops::RangeBounds;
        let rows: Vec<Rounding> = rows
            .into_iter()
            .map(|(dev, ms, tag)| Rounding { dev, at: at(ms * 1_000_000), tag: tag.to_owned() })
            .collect();
        let map: BTreeMap<Vec<u8>, Rounding> =
            rows.iter().map(|r| (r.encode_to_vec().unwrap(), r.clone())).collect();
        let order = |got: &[Rounding]| {
            let mut want: Vec<Rounding> = got.to_vec();
            want.sort_by(|a, b| a.encode_to_vec().unwrap()[1..].cmp(&b.encode_to_vec().unwrap()[1..]));
            want
        };
        let unique: Vec<Rounding> = map.values().cloned().collect();

        // Timestamps: value order, the ends drawn in order.
        let (a, b) = (bound_at(k1, n1), bound_at(k2, n2));
        let (a, b) = match (&a, &b) {
            (std::ops::Bound::Included(x) | std::ops::Bound::Excluded(x), std::ops::Bound::Included(y) | std::ops::Bound::Excluded(y)) if x > y => (b, a),
            _ => (a, b),
        };
        let range = (a, b);
        let got = read_map(&map, &Rounding::range_by_dev_at(dev, range).unwrap());
        let want: Vec<Rounding> = unique.iter().filter(|r| r.dev == dev && range.contains(&r.at)).cloned().collect();
        prop_assert_eq!(&got, &order(&want));

        // Strings longer than the fixed width.
        let (a, b) = (bound_tag(t1, s1), bound_tag(t2, s2));
        let (a, b) = match (&a, &b) {
            (std::ops::Bound::Included(x) | std::ops::Bound::Excluded(x), std::ops::Bound::Included(y) | std::ops::Bound::Excluded(y)) if x > y => (b, a),
            _ => (a, b),
        };
        let range = (a, b);
        let fixed = at(fixed_ms * 1_000_000);
        let bounds = (
            range.0.as_ref().map(String::as_str),
            range.1.as_ref().map(String::as_str),
        );
        let got = read_map(&map, &Rounding::range_by_dev_at_tag(dev, fixed, bounds).unwrap());
        let want: Vec<Rounding> = unique
            .iter()
            .filter(|r| r.dev == dev && r.at == fixed && range.contains(&r.tag))
            .cloned()
            .collect();
        prop_assert_eq!(&got, &order(&want));
    }
}

/// A bare `Timestamp` in scope from jiff is a timestamp where the field
/// says so with `#[ts]`; written as `jiff::Timestamp` it needs nothing.
mod bare_jiff {
    use jiff::Timestamp;
    use rowkey_core::prelude::*;

    #[derive(RowKey, Debug, PartialEq)]
    pub struct Bare {
        #[ts(millis)]
        pub at: Timestamp,
    }

    #[derive(RowKey, Debug, PartialEq)]
    pub struct Pathed {
        pub at: jiff::Timestamp,
    }

    #[test]
    fn a_bare_timestamp_marked_ts_is_jiffs() {
        let at: Timestamp = "2024-01-02T03:04:05.678Z".parse().unwrap();
        let bare = Bare { at }.try_encode().unwrap();
        assert_eq!(bare, Pathed { at }.try_encode().unwrap());
        // An i64 of milliseconds, sign bit flipped.
        let millis = 1_704_164_645_678i64;
        assert_eq!(bare, ((millis as u64) ^ (1 << 63)).to_be_bytes());
        assert_eq!(Bare::decode(&bare).unwrap(), Bare { at });
    }
}
