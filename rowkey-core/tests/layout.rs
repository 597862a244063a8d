//! Layout descriptors: the one-line summary of every kind of field and
//! attribute (golden text), the table, the fingerprint (golden values, and
//! a change of type, order or attribute changes it) and the freeze helper's
//! message.

use std::panic;

use rowkey_core::layout::{Encoding, FieldWidth, Format, SaltHashKind};
use rowkey_core::prelude::*;
use rowkey_core::{assert_layout, Layout};

#[derive(RowKey)]
#[salt(buckets = 16, by(user_id))]
struct UserEvent {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
    #[fixed(8)]
    kind: String,
}

#[derive(RowKey)]
struct Ints {
    a: u8,
    b: i16,
    c: u32,
    d: i64,
    e: u128,
    f: f64,
    g: bool,
    h: char,
    i: [u8; 3],
    j: Option<u32>,
}

#[derive(RowKey)]
#[salt(buckets = 4, hash = "java")]
struct Strings<'a> {
    #[desc]
    a: String,
    b: &'a str,
    #[fixed(4, pad = b' ')]
    c: String,
    #[reverse]
    d: u32,
    #[reverse_domain]
    e: String,
    f: Option<Vec<u8>>,
    #[desc]
    g: u16,
    h: &'a [u8],
}

#[derive(RowKey)]
#[rowkey(prefix = "D")]
struct Prefixed {
    #[desc_ts]
    ts: u64,
    #[rowkey(added)]
    extra: Option<u16>,
}

#[derive(RowKey)]
#[rowkey(text, sep = "_")]
#[salt(buckets = 10, by(phone), hash = "mod")]
struct Call {
    #[digits(11)]
    phone: u64,
    #[desc_ts]
    ts: i64,
}

#[derive(RowKey)]
#[rowkey(text, sep = "#", prefix = "m")]
struct Metric {
    host: String,
    delta: i32,
    #[desc_ts(max = 9999999999)]
    ts: u64,
    #[fixed(3, pad = b'.')]
    tag: String,
    path: String,
}

#[derive(KeyField, Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Kind {
    Click = 1,
    View = 2,
}

#[derive(RowKey, Debug, PartialEq)]
struct Device {
    site: u16,
    id: u32,
}

#[derive(RowKey)]
struct WithUserTypes {
    kind: Kind,
    device: Device,
}

#[derive(RowKey)]
#[rowkey(prefix = "E")]
#[salt(buckets = 4)]
struct Tagged {
    id: u32,
}

#[derive(RowKey)]
enum Row {
    Tagged(Tagged),
    Marker(Prefixed),
}

#[test]
fn one_line_summaries() {
    let cases: [(&Layout, &str); 8] = [
        (
            UserEvent::LAYOUT,
            "[salt(user_id)/16 1][user_id u64 8][ts_millis desc_ts i64 8][kind fixed(8) String 8] = 25 bytes",
        ),
        (
            Ints::LAYOUT,
            "[a u8 1][b i16 2][c u32 4][d i64 8][e u128 16][f f64 8][g bool 1][h char 4][i [u8; 3] 3][j Option<u32> 5] = 52 bytes",
        ),
        (
            Strings::LAYOUT,
            "[salt(a, b, c, d, e, f, g, h)/4 java 1][a desc String >=2][b &'a str >=2][c fixed(4, pad = ' ') String 4][d reverse u32 4][e reverse_domain String >=2][f Option<Vec<u8>> >=1][g desc u16 2][h &'a [u8] >=0] >= 18 bytes",
        ),
        (
            Prefixed::LAYOUT,
            "[prefix \"D\" 1][ts desc_ts u64 8][extra added Option<u16> 3] >= 9 bytes",
        ),
        (
            Call::LAYOUT,
            "text(\"_\") [salt(phone)/10 mod 2][phone digits(11) u64 12][ts desc_ts digits(19) i64 19] = 33 bytes",
        ),
        (
            Metric::LAYOUT,
            "text(\"#\") [prefix \"m#\" 2][host String >=1][delta digits(10) i32 12][ts desc_ts(max = 9999999999) digits(10) u64 11][tag fixed(3, pad = '.') String 4][path String >=0] >= 30 bytes",
        ),
        (
            WithUserTypes::LAYOUT,
            "[kind Kind(u8: Click = 1, View = 2) 1][device Device 6] = 7 bytes",
        ),
        (
            Row::LAYOUT,
            "Tagged: [prefix \"E\" 1][salt(id)/4 1][id u32 4] = 6 bytes | Prefixed: [prefix \"D\" 1][ts desc_ts u64 8][extra added Option<u16> 3] >= 9 bytes",
        ),
    ];
    for (layout, summary) in cases {
        assert_eq!(layout.to_string(), summary, "{}", layout.name());
    }
}

#[test]
fn descriptor_fields() {
    let l = UserEvent::LAYOUT;
    assert_eq!(l.name(), "UserEvent");
    assert_eq!(l.format(), Format::Binary);
    assert_eq!(l.fixed_len(), Some(UserEvent::LEN));
    assert_eq!(l.min_len(), <UserEvent as RowKey>::MIN_LEN);
    let salt = l.salt().unwrap();
    assert_eq!(
        (salt.buckets(), salt.hash(), salt.by(), salt.len()),
        (16, SaltHashKind::Xxh3, &["user_id"][..], 1)
    );
    let names: Vec<&str> = l.fields().iter().map(|f| f.name()).collect();
    assert_eq!(names, ["user_id", "ts_millis", "kind"]);
    let kind = l.field("kind").unwrap();
    assert_eq!(kind.ty(), "String");
    assert_eq!(kind.kind(), "str");
    assert_eq!(
        kind.encoding(),
        Encoding::Padded {
            len: 8,
            pad: 0,
            desc: false
        }
    );
    assert_eq!(kind.width(), FieldWidth::Fixed(8));
    assert!(l.field("ts_millis").unwrap().is_desc());

    // A text key's widths include the separator after each field but the
    // last; its length is the encoded length.
    assert_eq!(Call::LAYOUT.format(), Format::Text { sep: "_" });
    assert_eq!(Call::LAYOUT.fixed_len(), Some(Call::LEN));
    assert_eq!(Call::LAYOUT.fields()[0].sep_len(), 1);
    assert_eq!(
        Metric::LAYOUT.min_len(),
        <Metric as RowKey>::MIN_LEN,
        "the descriptor's minimum is the trait's"
    );
    assert_eq!(Metric::LAYOUT.prefix(), b"m#");

    // Added fields are not part of the length every key has.
    assert_eq!(Prefixed::LAYOUT.fixed_len(), None);
    assert_eq!(Prefixed::LAYOUT.min_len(), 9);
    assert!(Prefixed::LAYOUT.fields()[1].is_added());

    // User types: the compiler's widths.
    assert_eq!(
        WithUserTypes::LAYOUT.fields()[1].width(),
        FieldWidth::Fixed(Device::LEN)
    );
    assert_eq!(Row::LAYOUT.members().len(), 2);
    assert_eq!(Row::LAYOUT.members()[1].name(), "Prefixed");
    assert_eq!(Row::LAYOUT.min_len(), 6);
}

#[test]
fn table() {
    let table = format!("{:#}", UserEvent::LAYOUT);
    let expected = "\
UserEvent: binary key (format v1), 25 bytes
offset   width  part             type             encoding
0        1      salt             -                xxh3(user_id) % 16
1        8      user_id          u64              big-endian
9        8      ts_millis        i64              i64::MAX - ts, big-endian (#[desc_ts])
17       8      kind             String           padded (#[fixed(8)])
";
    assert_eq!(table, expected);
    assert_eq!(UserEvent::LAYOUT.table().to_string(), expected);
    // Past a variable-length field, offsets are unknown.
    let strings = format!("{:#}", Strings::LAYOUT);
    assert!(strings.contains("\n1        >=2    a "), "{strings}");
    assert!(strings.contains("\n?        >=2    b "), "{strings}");
}

/// Frozen fingerprints: these values are part of the format. A change here
/// fails every user's `assert_layout` line.
#[test]
fn fingerprints_are_frozen() {
    assert_eq!(UserEvent::LAYOUT_ID, 0x1c91_1136_69b5_00a3);
    assert_eq!(Call::LAYOUT_ID, 0xd39f_cffb_062b_856a);
    assert_eq!(Strings::LAYOUT_ID, 0x911a_9cd9_92f6_d300);
    assert_eq!(Row::LAYOUT_ID, 0x98b0_ca53_9c4a_c67b);
    assert_eq!(UserEvent::LAYOUT_ID, UserEvent::LAYOUT.id());
}

mod v1 {
    use rowkey_core::prelude::*;

    #[derive(RowKey)]
    pub struct Event {
        pub user: u64,
        #[desc_ts]
        pub ts: i64,
        pub kind: u16,
    }
}

/// Each a one-thing change of `v1::Event`.
mod changed {
    use rowkey_core::prelude::*;

    /// `user` is now signed: its bytes have the sign bit flipped.
    #[derive(RowKey)]
    pub struct Type {
        pub user: i64,
        #[desc_ts]
        pub ts: i64,
        pub kind: u16,
    }

    /// `kind` and `ts` swapped.
    #[derive(RowKey)]
    pub struct Order {
        pub user: u64,
        pub kind: u16,
        #[desc_ts]
        pub ts: i64,
    }

    /// `ts` lost `#[desc_ts]`.
    #[derive(RowKey)]
    pub struct Attribute {
        pub user: u64,
        pub ts: i64,
        pub kind: u16,
    }

    /// Salted.
    #[derive(RowKey)]
    #[salt(buckets = 8, by(user))]
    pub struct Salt {
        pub user: u64,
        #[desc_ts]
        pub ts: i64,
        pub kind: u16,
    }

    /// Same bytes, another struct name: the same layout.
    #[derive(RowKey)]
    pub struct Renamed {
        pub user: u64,
        #[desc_ts]
        pub ts: i64,
        pub kind: u16,
    }
}

fn panic_message(f: impl FnOnce() + panic::UnwindSafe) -> Option<String> {
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let result = panic::catch_unwind(f);
    panic::set_hook(hook);
    result.err().map(|e| match e.downcast::<String>() {
        Ok(s) => *s,
        Err(e) => e.downcast::<&str>().map(|s| s.to_string()).unwrap(),
    })
}

#[test]
fn freeze_fails_on_a_changed_type_order_or_attribute() {
    let frozen_id = v1::Event::LAYOUT_ID;
    let frozen = v1::Event::LAYOUT.to_string();
    assert_eq!(
        frozen,
        "[user u64 8][ts desc_ts i64 8][kind u16 2] = 18 bytes"
    );
    // The frozen layout passes.
    assert_eq!(
        panic_message(|| assert_layout::<v1::Event>(frozen_id, &frozen)),
        None
    );
    // So does the same layout under another name.
    assert_eq!(
        panic_message(|| assert_layout::<changed::Renamed>(frozen_id, &frozen)),
        None
    );
    type Check = fn(u64, &str);
    let cases: [(&str, Check, &str); 4] = [
        (
            "type",
            |id, s| assert_layout::<changed::Type>(id, s),
            "[user i64 8][ts desc_ts i64 8][kind u16 2] = 18 bytes",
        ),
        (
            "order",
            |id, s| assert_layout::<changed::Order>(id, s),
            "[user u64 8][kind u16 2][ts desc_ts i64 8] = 18 bytes",
        ),
        (
            "attribute",
            |id, s| assert_layout::<changed::Attribute>(id, s),
            "[user u64 8][ts i64 8][kind u16 2] = 18 bytes",
        ),
        (
            "salt",
            |id, s| assert_layout::<changed::Salt>(id, s),
            "[salt(user)/8 1][user u64 8][ts desc_ts i64 8][kind u16 2] = 19 bytes",
        ),
    ];
    for (what, check, now) in cases {
        let summary = frozen.clone();
        let msg = panic_message(move || check(frozen_id, &summary))
            .unwrap_or_else(|| panic!("a changed {what} passed the freeze"));
        assert!(
            msg.contains(&format!("frozen: {frozen_id:#018x} {frozen}")),
            "{what}: {msg}"
        );
        assert!(msg.contains("now:    0x"), "{what}: {msg}");
        assert!(msg.contains(now), "{what}: the new layout is shown: {msg}");
        assert!(msg.contains("freeze the new one"), "{what}: {msg}");
    }
}

#[test]
fn the_first_freeze_prints_the_line_to_paste() {
    let msg = panic_message(|| assert_layout::<Call>(0, "")).unwrap();
    let line = format!(
        "rowkey_core::assert_layout::<Call>({:#018x}, \"text(\\\"_\\\") [salt(phone)/10 mod 2][phone digits(11) u64 12][ts desc_ts digits(19) i64 19] = 33 bytes\");",
        Call::LAYOUT_ID
    );
    assert!(msg.contains(&line), "{msg}");
}

#[cfg(feature = "json")]
#[test]
fn json_export() {
    let v: serde_json::Value = serde_json::from_str(&UserEvent::LAYOUT.to_json()).unwrap();
    assert_eq!(v["name"], "UserEvent");
    assert_eq!(v["layout_id"], format!("{:#018x}", UserEvent::LAYOUT_ID));
    assert_eq!(v["format"], "binary");
    assert_eq!(v["fixed_len"], 25);
    assert_eq!(v["summary"], UserEvent::LAYOUT.to_string());
    assert_eq!(v["salt"]["buckets"], 16);
    assert_eq!(v["salt"]["hash"], "xxh3");
    assert_eq!(v["salt"]["by"], serde_json::json!(["user_id"]));
    let kind = &v["fields"][2];
    assert_eq!(kind["name"], "kind");
    assert_eq!(kind["type"], "String");
    assert_eq!(kind["kind"], "str");
    assert_eq!(kind["encoding"], "padded");
    assert_eq!(kind["padded_len"], 8);
    assert_eq!(kind["width"], 8);
    assert_eq!(v["fields"][1]["encoding"], "desc_ts");
    assert_eq!(v["fields"][1]["desc"], true);

    let v: serde_json::Value = serde_json::from_str(&Metric::LAYOUT.to_json()).unwrap();
    assert_eq!(v["format"], "text");
    assert_eq!(v["separator"], "#");
    assert_eq!(v["prefix_hex"], "6d23");
    assert_eq!(v["fixed_len"], serde_json::Value::Null);
    assert_eq!(v["fields"][1]["encoding"], "digits");
    assert_eq!(v["fields"][1]["signed"], true);
    assert_eq!(v["fields"][2]["max"], 9_999_999_999u64);
    assert_eq!(v["fields"][0]["variable"], true);

    let v: serde_json::Value = serde_json::from_str(&Row::LAYOUT.to_json()).unwrap();
    assert_eq!(v["members"][1]["name"], "Prefixed");
    assert_eq!(v["members"][1]["fields"][1]["added"], true);
    // Every string is escaped: the summary of a text key has quotes.
    let v: serde_json::Value = serde_json::from_str(&Call::LAYOUT.to_json()).unwrap();
    assert_eq!(v["summary"], Call::LAYOUT.to_string());
}

#[cfg(feature = "json")]
#[test]
fn bigtable_row_key_schema() {
    assert_eq!(UserEvent::LAYOUT.bigtable_row_key_schema(), None);
    assert_eq!(Row::LAYOUT.bigtable_row_key_schema(), None);
    let schema: serde_json::Value =
        serde_json::from_str(&Metric::LAYOUT.bigtable_row_key_schema().unwrap()).unwrap();
    let names: Vec<&str> = schema["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["fieldName"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["prefix", "host", "delta", "ts", "tag", "path"]);
    for f in schema["fields"].as_array().unwrap() {
        assert_eq!(
            f["type"],
            serde_json::json!({"stringType": {"encoding": {"utf8Bytes": {}}}})
        );
    }
    // "#" in base64, as protobuf's JSON writes bytes.
    assert_eq!(schema["encoding"]["delimitedBytes"]["delimiter"], "Iw==");
    let call: serde_json::Value =
        serde_json::from_str(&Call::LAYOUT.bigtable_row_key_schema().unwrap()).unwrap();
    assert_eq!(call["fields"][0]["fieldName"], "salt");
    assert_eq!(call["fields"].as_array().unwrap().len(), 3);
    // Splitting a key at the delimiter gives one part per schema field.
    let key = "0_18518885160_9223370398234269807";
    assert_eq!(key.split('_').count(), 3);
}

mod freezing_many {
    use rowkey_core::prelude::*;

    #[derive(RowKey)]
    struct Reading {
        sensor: u32,
        #[desc_ts]
        ts: i64,
    }

    #[derive(RowKey)]
    #[salt(buckets = 4)]
    struct Alert {
        sensor: u32,
    }

    #[derive(RowKey)]
    #[rowkey(text, sep = "#")]
    struct Tag {
        name: String,
    }

    fn message(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
        let err = std::panic::catch_unwind(f).expect_err("the check fails");
        err.downcast_ref::<String>().cloned().unwrap_or_default()
    }

    /// One run names every changed or unfrozen type and prints the block
    /// that freezes them all; frozen ones pass.
    #[test]
    fn every_type_in_one_message() {
        let (reading, alert, tag) = (Reading::LAYOUT_ID, Alert::LAYOUT_ID, Tag::LAYOUT_ID);
        rowkey_core::assert_layouts! {
            Reading => (reading, "any text: the fingerprint decides"),
            Alert => (alert, ""),
            Tag => (tag, ""),
        }
        let msg = message(move || {
            rowkey_core::assert_layouts! {
                Reading => (reading, ""),
                Alert => (alert ^ 1, "[salt(sensor)/4 1][sensor u32 4] = 5 bytes"),
                Tag,
            }
        });
        assert!(!msg.contains("- `Reading`"), "{msg}");
        assert!(msg.contains("- `Alert` changed"), "{msg}");
        assert!(msg.contains("- `Tag`: no layout is frozen yet"), "{msg}");
        let block = &msg[msg
            .find("rowkey_core::assert_layouts! {")
            .expect("the block")..];
        for (name, id) in [("Reading", reading), ("Alert", alert), ("Tag", tag)] {
            assert!(
                block.contains(&format!("    {name} => ({id:#018x}, \"")),
                "{block}"
            );
        }
        // Quotes in a summary are escaped for the string literal.
        assert!(block.contains(r##"text(\"#\") [name"##), "{block}");
    }
}

/// `#[desc]` on a text key's integer is in the descriptor: its summary,
/// table and fingerprint differ from the ascending field's (they were one
/// before 2026-11-25, so a freeze test could not see the change), while
/// the ascending layout keeps the fingerprint it always had.
#[test]
fn desc_on_a_text_integer_is_part_of_the_layout() {
    #[derive(RowKey)]
    #[rowkey(text, sep = "_")]
    struct Down {
        #[desc]
        n: u32,
        s: String,
    }
    #[derive(RowKey)]
    #[rowkey(text, sep = "_")]
    struct Up {
        n: u32,
        s: String,
    }
    assert_eq!(
        Down::LAYOUT.to_string(),
        "text(\"_\") [n desc digits(10) u32 11][s String >=0] >= 11 bytes"
    );
    assert_eq!(
        Up::LAYOUT.to_string(),
        "text(\"_\") [n digits(10) u32 11][s String >=0] >= 11 bytes"
    );
    assert!(Down::LAYOUT.fields()[0].is_desc());
    assert!(
        format!("{:#}", Down::LAYOUT).contains("decimal digits, complemented (#[desc digits(10)])")
    );
    assert_eq!(Up::LAYOUT_ID, 0x16c7_ebf7_3073_6758);
    assert_eq!(Down::LAYOUT_ID, 0x5e84_902d_293f_2654);
}
