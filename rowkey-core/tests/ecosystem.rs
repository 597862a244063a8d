use chrono::{DateTime, Utc};
use rowkey_core::prelude::*;

#[derive(RowKey, Debug, PartialEq)]
#[salt(buckets = 4, by(id))]
struct A {
    id: uuid::Uuid,
    #[desc_ts]
    at: DateTime<Utc>,
    #[ts(micros)]
    t2: time::OffsetDateTime,
    j: jiff::Timestamp,
    ip: std::net::IpAddr,
    u: ulid::Ulid,
}

#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "_")]
struct T {
    id: uuid::Uuid,
    #[desc_ts]
    at: DateTime<Utc>,
    #[ts(secs)]
    t: jiff::Timestamp,
    #[reverse]
    u: ulid::Ulid,
    ip: std::net::IpAddr,
}

#[test]
fn smoke() {
    let a = A {
        id: uuid::Uuid::from_u128(0x0123456789abcdef0123456789abcdef),
        at: DateTime::from_timestamp_millis(1_700_000_000_123).unwrap(),
        t2: time::OffsetDateTime::from_unix_timestamp(1_700_000_000).unwrap(),
        j: jiff::Timestamp::from_millisecond(5).unwrap(),
        ip: "10.0.0.1".parse().unwrap(),
        u: ulid::Ulid::from_parts(1, 2),
    };
    let k = a.try_encode().unwrap();
    assert_eq!(A::decode(&k).unwrap(), a);
    println!("{}", A::LAYOUT);
    println!("{}", A::explain(&k[..]));
    let t = T {
        id: a.id,
        at: a.at,
        t: jiff::Timestamp::from_second(17).unwrap(),
        u: a.u,
        ip: a.ip,
    };
    let s = t.encode_to_string().unwrap();
    println!("{s}");
    assert_eq!(T::decode(s.as_bytes()).unwrap(), t);
    println!("{}", T::LAYOUT);
    println!("{}", T::explain(&s));
}
