//! `T::explain`: valid keys, truncated keys, bad salts, bad UTF-8, bad
//! escapes, pasted HBase-shell text, key families and added fields; and a
//! property: explain never panics, agrees with `decode` on every input and,
//! on valid keys, covers the key part by part with the salt it computes.

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use rowkey_core::hbase::to_string_binary;
use rowkey_core::prelude::*;
use rowkey_core::Explanation;

#[derive(RowKey, Debug, PartialEq, Clone)]
#[salt(buckets = 16, by(user_id))]
struct UserEvent {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
    #[fixed(8)]
    kind: String,
}

#[derive(RowKey, Debug, PartialEq, Clone)]
#[rowkey(prefix = "P")]
#[salt(buckets = 8, hash = "java")]
struct Page {
    site: u32,
    path: String,
    lang: Option<u16>,
    #[desc]
    title: String,
    rest: Vec<u8>,
}

#[derive(RowKey, Debug, PartialEq, Clone)]
#[rowkey(text, sep = "_")]
#[salt(buckets = 10, by(phone), hash = "mod")]
struct Call {
    #[digits(11)]
    phone: u64,
    #[desc_ts]
    ts: i64,
}

/// A text key salted by two non-adjacent fields: the hash reads both with
/// the separators between them, as the key has them.
#[derive(RowKey, Debug, PartialEq, Clone)]
#[rowkey(text, sep = "|")]
#[salt(buckets = 16, by(a, c))]
struct TextSalted {
    #[digits(5)]
    a: u32,
    b: String,
    c: u16,
    d: String,
}

#[derive(RowKey, Debug, PartialEq, Clone)]
#[rowkey(prefix = "Q")]
struct Marker {
    id: u32,
    #[rowkey(added)]
    note: Option<String>,
}

#[derive(RowKey, Debug, PartialEq)]
enum Row {
    Page(Page),
    Marker(Marker),
}

#[derive(KeyField, Debug, Clone, Copy, PartialEq)]
#[repr(u8)]
enum Kind {
    Click = 1,
    View = 2,
}

#[derive(RowKey, Debug, PartialEq, Clone)]
struct Tagged {
    kind: Kind,
    maybe: Option<Kind>,
    id: u16,
}

#[derive(RowKey, Debug, PartialEq, Clone)]
#[rowkey(text, sep = "_")]
struct TextTagged {
    kind: Kind,
    id: u16,
}

fn event() -> UserEvent {
    UserEvent {
        user_id: 42,
        ts_millis: 1_700_000_000_000,
        kind: "click".into(),
    }
}

fn names(e: &Explanation) -> Vec<&str> {
    e.parts().iter().map(|p| p.name()).collect()
}

#[test]
fn a_valid_key_part_by_part() {
    let key = event().try_encode().unwrap();
    let e = UserEvent::explain(&key);
    assert!(e.is_ok(), "{e}");
    assert_eq!(names(&e), ["salt", "user_id", "ts_millis", "kind"]);
    let ranges: Vec<_> = e.parts().iter().map(|p| p.range()).collect();
    assert_eq!(ranges, [0..1, 1..9, 9..17, 17..25]);
    assert_eq!(
        e.parts()[0].value(),
        format!("bucket {} of 16", event().bucket())
    );
    assert_eq!(e.parts()[1].value(), "42");
    assert_eq!(
        e.parts()[2].value(),
        "1700000000000 = 2023-11-14T22:13:20.000Z (UTC, read as milliseconds)"
    );
    assert_eq!(e.parts()[3].value(), "\"click\"");
    let text = e.to_string();
    let expected = format!(
        "UserEvent: {layout}\n\
         key (25 bytes): {key}\n\
         \x20 0..1    salt       {salt:<29}  bucket {b} of 16\n\
         \x20 1..9    user_id    \\x00\\x00\\x00\\x00\\x00\\x00\\x00*  42\n\
         \x20 9..17   ts_millis  \\x7F\\xFF\\xFEt0\\x1A\\x97\\xFF     1700000000000 = 2023-11-14T22:13:20.000Z (UTC, read as milliseconds)\n\
         \x20 17..25  kind       click\\x00\\x00\\x00              \"click\"\n\
         decodes: ok",
        layout = UserEvent::LAYOUT,
        key = to_string_binary(&key),
        salt = to_string_binary(&key[..1]),
        b = event().bucket(),
    );
    assert_eq!(text, expected);
    // The guide shows this explanation: it is the real output.
    assert!(include_str!("../../docs/src/layouts.md").contains(&text));
}

#[test]
fn a_truncated_key_shows_what_decoded_and_where_it_stopped() {
    let key = event().try_encode().unwrap();
    let e = UserEvent::explain(&key[..12]);
    assert!(!e.is_ok());
    assert_eq!(names(&e), ["salt", "user_id"]);
    let stop = e.stop().unwrap();
    assert_eq!((stop.at(), stop.part()), (9, "ts_millis"));
    assert_eq!(
        stop.error(),
        Some(&DecodeError::UnexpectedEnd {
            field: "ts_millis",
            needed: 8,
            available: 3
        })
    );
    let text = e.to_string();
    assert!(text.contains("9..12"), "{text}");
    assert!(text.contains("(not read)"), "{text}");
    assert!(text.ends_with("stops at byte 9 in `ts_millis`: field `ts_millis`: key ends early, the field needs 8 bytes and 3 are left"), "{text}");
    // Too long: every field decodes, then the trailing bytes are named.
    let mut long = key.to_vec();
    long.push(7);
    let e = UserEvent::explain(&long);
    assert_eq!(e.parts().len(), 4);
    assert_eq!(e.stop().unwrap().at(), 25);
    assert_eq!(
        e.stop().unwrap().error(),
        Some(&DecodeError::TrailingBytes { count: 1 })
    );
    // Empty.
    let e = UserEvent::explain(&[][..]);
    assert_eq!((e.parts().len(), e.stop().unwrap().part()), (0, "salt"));
}

#[test]
fn bad_salts() {
    let mut key = event().try_encode().unwrap();
    // A bucket beyond the bucket count: the key does not decode.
    key[0] = 16;
    let e = UserEvent::explain(&key);
    assert_eq!(e.stop().unwrap().part(), "salt");
    assert_eq!(
        e.stop().unwrap().error(),
        Some(&DecodeError::InvalidSalt {
            bucket: 16,
            buckets: 16
        })
    );
    // A bucket the fields do not hash to: decodes, but scans miss it.
    let right = event().bucket();
    key[0] = (right + 1) % 16;
    assert!(UserEvent::decode(&key).is_ok());
    let e = UserEvent::explain(&key);
    assert!(e.stop().is_none());
    assert!(!e.is_ok());
    assert_eq!(e.salt_mismatch(), Some(((right + 1) % 16, right)));
    assert!(e.to_string().contains(&format!(
        "its salt is {} where its fields hash to {right}",
        (right + 1) % 16
    )));
    // The same for a text key's mod salt.
    let e = Call::explain("3_18518885160_9223370398234269807");
    assert_eq!(e.salt_mismatch(), Some((3, 0)));
    // And a text salt that is not digits.
    let e = Call::explain("x_18518885160_9223370398234269807");
    assert_eq!(e.stop().unwrap().part(), "salt");
}

#[test]
fn bad_utf8_and_bad_escapes() {
    let page = Page {
        site: 7,
        path: "/a".into(),
        lang: Some(3),
        title: "T".into(),
        rest: vec![1],
    };
    let key = page.encode_to_vec().unwrap();
    assert!(Page::explain(&key).is_ok());
    // `path` starts after the prefix, the salt and `site`: byte 6.
    let mut bad_utf8 = key.clone();
    bad_utf8[7] = 0xFF;
    let e = Page::explain(&bad_utf8);
    assert_eq!(names(&e), ["prefix", "salt", "site"]);
    assert_eq!(e.stop().unwrap().at(), 6);
    assert_eq!(
        e.stop().unwrap().error(),
        Some(&DecodeError::InvalidUtf8 { field: "path" })
    );
    // An escape byte (00) followed by neither FF nor the terminator's 00.
    let mut bad_escape = key.clone();
    bad_escape[8] = 0x00;
    bad_escape[9] = 0x07;
    let e = Page::explain(&bad_escape);
    assert_eq!(
        e.stop().unwrap().error(),
        Some(&DecodeError::InvalidEscape {
            field: "path",
            byte: 0x07
        })
    );
    // Every explained stop is decode's own error.
    for k in [&bad_utf8, &bad_escape] {
        assert_eq!(
            Page::explain(k).stop().unwrap().error(),
            Page::decode(k).err().as_ref()
        );
    }
}

#[test]
fn pasted_shell_text() {
    let key = event().try_encode().unwrap();
    let shell = to_string_binary(&key);
    for pasted in [
        shell.clone(),
        format!("\"{shell}\""),
        format!("  {shell}\n"),
    ] {
        let e = UserEvent::explain(pasted.as_str());
        assert!(e.is_ok(), "{pasted}: {e}");
        assert_eq!(e.key(), key);
    }
    // A text key is its own shell text.
    let e = Call::explain("0_18518885160_9223370398234269807");
    assert!(e.is_ok(), "{e}");
    assert_eq!(e.parts()[1].value(), "18518885160");
    assert!(e.parts()[2]
        .value()
        .starts_with("1638620506000 = 2021-12-04T12:21:46.000Z"));
    // Text that is not toStringBinary output.
    let e = UserEvent::explain(r"\x0G");
    assert_eq!(e.stop().unwrap().part(), "input");
    assert_eq!(e.stop().unwrap().error(), None);
    assert!(
        e.to_string().contains("the pasted text is not a key"),
        "{e}"
    );
}

#[test]
fn families_and_added_fields() {
    let marker = Marker { id: 5, note: None }.encode_to_vec().unwrap();
    let e = Row::explain(&marker);
    assert!(e.is_ok(), "{e}");
    assert_eq!(e.layout().name(), "Marker");
    assert_eq!(names(&e), ["prefix", "id", "note"]);
    assert_eq!(e.parts()[2].range(), 5..5);
    assert!(e.parts()[2].value().starts_with("None (absent"));
    let e = Row::explain(b"Z123".as_slice());
    assert_eq!(
        e.stop().unwrap().error(),
        Some(&DecodeError::UnknownFamily { families: "Row" })
    );
    // A trailing None stored as a tag is not how rowkey writes it.
    let mut tagged = marker.clone();
    tagged.push(0);
    assert!(Marker::decode(&tagged).is_err());
    assert_eq!(
        Marker::explain(&tagged).stop().unwrap().error(),
        Marker::decode(&tagged).err().as_ref()
    );
}

/// Explain agrees with decode, and a decodable key is covered by its parts.
fn check_agrees<T>(key: &[u8])
where
    T: RowKey + for<'de> DecodeRowKey<'de>,
{
    let e = T::explain(key);
    let decoded = T::decode(key);
    // Rendering never panics either.
    let text = e.to_string();
    match (&decoded, e.stop()) {
        (Ok(_), None) => {
            let mut at = 0;
            for p in e.parts() {
                assert_eq!(p.range().start, at, "{text}");
                at = p.range().end;
            }
            assert_eq!(at, key.len(), "{text}");
        }
        (Err(err), Some(stop)) => {
            assert_eq!(stop.error(), Some(err), "{text}");
        }
        (d, s) => panic!("decode ok: {} but explain {s:?}:\n{text}", d.is_ok()),
    }
}

fn events() -> impl Strategy<Value = UserEvent> {
    (any::<u64>(), any::<i64>(), "[a-z]{0,8}").prop_map(|(user_id, ts_millis, kind)| UserEvent {
        user_id,
        ts_millis,
        kind,
    })
}

fn pages() -> impl Strategy<Value = Page> {
    (
        any::<u32>(),
        "\\PC{0,6}",
        any::<Option<u16>>(),
        "[a\\x00b]{0,4}",
        proptest::collection::vec(any::<u8>(), 0..4),
    )
        .prop_map(|(site, path, lang, title, rest)| Page {
            site,
            path,
            lang,
            title,
            rest,
        })
}

proptest! {
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/explain.proptest-regressions",
        ))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn explain_never_panics_and_agrees_with_decode(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
        check_agrees::<UserEvent>(&bytes);
        check_agrees::<Page>(&bytes);
        check_agrees::<Call>(&bytes);
        check_agrees::<Marker>(&bytes);
        check_agrees::<Row>(&bytes);
        check_agrees::<TextSalted>(&bytes);
        // As pasted text, too.
        let text = String::from_utf8_lossy(&bytes);
        let _ = UserEvent::explain(text.as_ref()).to_string();
    }

    #[test]
    fn valid_keys_explain_ok_with_the_right_salt(event in events(), page in pages(), phone in 0u64..100_000_000_000, ts in any::<i64>()) {
        let key = event.try_encode().unwrap();
        let e = UserEvent::explain(&key);
        prop_assert!(e.is_ok(), "{}", e);
        prop_assert_eq!(e.parts()[0].value(), format!("bucket {} of 16", event.bucket()));
        let key = page.encode_to_vec().unwrap();
        let e = Page::explain(&key);
        prop_assert!(e.is_ok(), "{}", e);
        prop_assert!(Row::explain(&key).is_ok());
        check_agrees::<Page>(&key);
        let salted = TextSalted { a: (phone % 100_000) as u32, b: "x".repeat((ts & 3) as usize), c: ts as u16, d: "tail".into() };
        let key = salted.encode_to_vec().unwrap();
        let e = TextSalted::explain(&key);
        prop_assert!(e.is_ok(), "{}", e);
        prop_assert_eq!(e.parts()[0].value(), format!("bucket {} of 16", salted.try_bucket().unwrap()));
        if let Ok(key) = (Call { phone, ts }).encode_to_vec() {
            let e = Call::explain(&key);
            prop_assert!(e.is_ok(), "{}", e);
        }
        // Every byte flipped: still no panic, still decode's verdict.
        for i in 0..key.len() {
            let mut bad = key.clone();
            bad[i] ^= 0x41;
            check_agrees::<Page>(&bad);
        }
    }
}

#[test]
fn field_enums_show_their_variant() {
    let key = Tagged {
        kind: Kind::View,
        maybe: None,
        id: 3,
    }
    .encode();
    let e = Tagged::explain(&key);
    assert!(e.is_ok(), "{e}");
    assert_eq!(e.parts()[0].value(), "View (Kind)");
    assert_eq!(e.parts()[1].value(), "None (Option<Kind>)");
    let key = Tagged {
        kind: Kind::Click,
        maybe: Some(Kind::View),
        id: 3,
    }
    .encode();
    assert_eq!(
        Tagged::explain(&key).parts()[1].value(),
        "View (Option<Kind>)"
    );
    let e = TextTagged::explain("001_00003");
    assert_eq!(e.parts()[0].value(), "Click (Kind)");
    // A discriminant of no variant: the enum's own check stops it.
    let mut bad = key;
    bad[0] = 9;
    let e = Tagged::explain(&bad);
    assert_eq!(e.stop().unwrap().part(), "kind");
    assert_eq!(
        e.stop().unwrap().error(),
        Tagged::decode(&bad).err().as_ref()
    );
}
