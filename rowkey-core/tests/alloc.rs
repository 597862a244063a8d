//! Zero heap allocations on the fixed-width and borrowed paths, counted by a
//! global allocator (per thread, so the test harness cannot interfere).
use std::hint::black_box;

use rowkey_core::prelude::*;

#[path = "common/counting.rs"]
mod counting;
use counting::allocations;

#[derive(RowKey, Debug, PartialEq)]
#[salt(buckets = 16, by(user_id))]
struct UserEvent {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
    kind: u8,
}

#[derive(RowKey, Debug, PartialEq)]
#[salt(buckets = 8, hash = "java")]
struct Named {
    tenant: u32,
    #[fixed(16)]
    name: String,
    #[desc]
    score: Option<f64>,
}

#[derive(RowKey, Debug, PartialEq)]
struct Path<'a> {
    #[reverse]
    host: u32,
    dir: &'a str,
    #[fixed(4)]
    ext: &'a [u8],
    file: &'a str,
}

#[test]
fn counter_sees_allocations() {
    // The counter works: a String allocates.
    assert!(allocations(|| String::from("heap")) >= 1);
}

#[test]
fn fixed_width_paths_do_not_allocate() {
    let e = UserEvent {
        user_id: 42,
        ts_millis: 1_700_000_000_000,
        kind: 3,
    };
    assert_eq!(allocations(|| e.encode()), 0, "encode()");
    assert_eq!(allocations(|| e.try_encode()), 0, "try_encode()");
    assert_eq!(allocations(|| e.bucket()), 0, "bucket()");
    let mut buf = [0u8; 32];
    assert_eq!(allocations(|| e.encode_into(&mut buf)), 0, "encode_into");
    let bytes = e.encode();
    assert_eq!(allocations(|| UserEvent::decode(&bytes)), 0, "decode");
    assert_eq!(UserEvent::decode(&bytes).unwrap(), e);
    // Errors do not allocate either.
    assert_eq!(
        allocations(|| UserEvent::decode(&bytes[..5])),
        0,
        "decode error"
    );
    assert_eq!(
        allocations(|| e.encode_into(&mut buf[..3])),
        0,
        "encode error"
    );

    // The String is owned by the value, but encoding it does not allocate.
    let n = Named {
        tenant: 9,
        name: "sensor-7".into(),
        score: Some(-1.5),
    };
    assert_eq!(
        allocations(|| n.try_encode()),
        0,
        "try_encode with #[fixed] String"
    );
    assert_eq!(
        allocations(|| n.try_bucket()),
        0,
        "try_bucket with #[fixed] String"
    );
}

#[test]
fn borrowed_variable_length_paths_do_not_allocate() {
    let p = Path {
        host: 0x0A00_0001,
        dir: "static/img",
        ext: b"png",
        file: "logo",
    };
    let mut buf = [0u8; 64];
    let n = allocations(|| p.encode_into(&mut buf).unwrap());
    assert_eq!(n, 0, "encode_into");
    let len = p.encoded_len();
    assert_eq!(allocations(|| p.encoded_len()), 0, "encoded_len");
    let key = &buf[..len];
    assert_eq!(allocations(|| Path::decode(key)), 0, "decode");
    let back = Path::decode(key).unwrap();
    assert_eq!(back, p);
    assert!(
        key.as_ptr_range().contains(&back.dir.as_ptr()),
        "dir borrows from the key"
    );
}

#[test]
fn fixed_width_scans_do_not_allocate() {
    let now = 1_700_000_000_000i64;
    assert_eq!(allocations(UserEvent::scan_all), 0, "scan_all");
    assert_eq!(allocations(|| UserEvent::scan_by_user_id(42)), 0, "scan_by");
    assert_eq!(
        allocations(|| UserEvent::range_by_user_id_ts_millis(42, now - 3_600_000..now)),
        0,
        "range_by"
    );
    let fan_out = UserEvent::range_by_user_id(10..20);
    let n = allocations(|| {
        let mut count = 0;
        for r in fan_out.ranges() {
            count += r.start().len() + r.stop().len();
            black_box(r.bounds());
        }
        count
    });
    assert_eq!(n, 0, "iterating a fanned-out scan's 16 ranges");
    assert_eq!(fan_out.range_count(), 16);
}

/// The seed text key: `phone % 10 _ phone _ MAX - ts`, all fixed-width.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "_")]
#[salt(buckets = 10, by(phone), hash = "mod")]
struct Call {
    #[digits(11)]
    phone: u64,
    #[desc_ts]
    ts: i64,
    #[fixed(6, pad = b' ')]
    kind: String,
}

/// A text key with a borrowed delimited string and a salt over it.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "#")]
#[salt(buckets = 8, by(device))]
struct Reading<'a> {
    device: &'a str,
    #[desc_ts(max = 9999999999)]
    ts: u64,
    metric: &'a str,
}

#[test]
fn text_keys_do_not_allocate() {
    let c = Call {
        phone: 18518885160,
        ts: 1_638_620_506_000,
        kind: "voice".into(),
    };
    assert_eq!(allocations(|| c.try_encode()), 0, "text try_encode()");
    assert_eq!(allocations(|| c.try_bucket()), 0, "text try_bucket()");
    let key = c.try_encode().unwrap();
    let mut buf = [0u8; Call::LEN];
    assert_eq!(
        allocations(|| c.encode_into(&mut buf)),
        0,
        "text encode_into"
    );
    assert_eq!(
        allocations(|| black_box(Call::decode(black_box(&key)))),
        // `kind` is a String: decoding it is its one allocation.
        1,
        "text decode"
    );
    assert_eq!(Call::decode(&key).unwrap(), c);
    assert_eq!(
        allocations(|| Call::range_by_phone_ts(c.phone, 0..c.ts)),
        0,
        "text range_by"
    );
    let r = Reading {
        device: "sensor-7",
        ts: 1_638_620_506,
        metric: "temp#c",
    };
    let mut buf = [0u8; 64];
    let n = allocations(|| r.encode_into(&mut buf));
    assert_eq!(n, 0, "delimited text encode_into");
    let len = r.encoded_len();
    let key = &buf[..len];
    assert_eq!(
        allocations(|| Reading::decode(key)),
        0,
        "delimited text decode"
    );
    assert_eq!(Reading::decode(key).unwrap(), r);
    assert_eq!(
        allocations(|| Reading::scan_by_device("sensor-7")),
        0,
        "text scan_by"
    );
}

/// A salted family with a field enum and a nested key: all fixed-width.
#[derive(KeyField, Debug, Clone, Copy, PartialEq)]
#[repr(u16)]
enum Kind {
    Click = 1,
    View = 2,
}

#[derive(RowKey, Debug, Clone, Copy, PartialEq)]
struct Device {
    site: u16,
    n: u32,
}

#[derive(RowKey, Debug, PartialEq)]
#[rowkey(prefix = "E")]
#[salt(buckets = 8, by(device))]
struct FamilyEvent {
    device: Device,
    kind: Kind,
    #[desc_ts]
    ts: i64,
}

#[derive(RowKey, Debug, PartialEq)]
#[rowkey(prefix = "V")]
struct DeviceRow {
    device: Device,
}

#[derive(RowKey, Debug, PartialEq)]
enum Families {
    Event(FamilyEvent),
    Device(DeviceRow),
}

#[test]
fn prefixed_enum_field_and_nested_keys_do_not_allocate() {
    let e = FamilyEvent {
        device: Device { site: 3, n: 9 },
        kind: Kind::View,
        ts: 1_700_000_000_000,
    };
    assert_eq!(allocations(|| e.encode()), 0, "prefixed encode()");
    let key = e.encode();
    let mut buf = [0u8; FamilyEvent::LEN];
    assert_eq!(
        allocations(|| e.encode_into(&mut buf)),
        0,
        "prefixed encode_into"
    );
    assert_eq!(
        allocations(|| FamilyEvent::decode(&key)),
        0,
        "prefixed decode"
    );
    assert_eq!(FamilyEvent::decode(&key).unwrap(), e);
    assert_eq!(
        allocations(|| FamilyEvent::scan_by_device_kind(e.device, Kind::Click)),
        0,
        "prefixed scan_by"
    );
    let row = Families::Event(e);
    let mut buf = [0u8; 64];
    assert_eq!(
        allocations(|| row.encode_into(&mut buf)),
        0,
        "enum encode_into"
    );
    assert_eq!(allocations(|| Families::decode(&key)), 0, "enum decode");
    assert_eq!(Families::decode(&key).unwrap(), row);
}
