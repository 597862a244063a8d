//! Key families read at run time against the derived enum.

use super::*;

/// A key family (`#[derive(RowKey)]` on an enum): its summary reads back
/// to the family's fingerprint, a key explains and decodes with the member
/// its prefix names, and encoding goes through a member.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "E")]
#[salt(buckets = 4)]
struct FamTagged {
    id: u32,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "D")]
struct FamPrefixed {
    #[desc_ts]
    ts: u64,
    #[rowkey(added)]
    extra: Option<u16>,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
enum FamRow {
    Tagged(FamTagged),
    Prefixed(FamPrefixed),
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn families_agree_with_the_derive(id in any::<u32>(), ts in 0..i64::MAX as u64, extra in any::<Option<u16>>()) {
        let text = FamRow::LAYOUT.to_string();
        let rows = DynLayout::parse(&text).unwrap();
        prop_assert_eq!(rows.layout().id(), FamRow::LAYOUT_ID);
        prop_assert_eq!(rows.layout().to_string(), text);
        prop_assert_eq!(DynLayout::from_json(&FamRow::LAYOUT.to_json()).unwrap().layout().id(), FamRow::LAYOUT_ID);
        let names: Vec<&str> = rows.members().iter().map(|m| m.layout().name()).collect();
        prop_assert_eq!(names, ["FamTagged", "FamPrefixed"]);

        let tagged = FamRow::Tagged(FamTagged { id }).encode_to_vec().unwrap();
        let prefixed = FamRow::Prefixed(FamPrefixed { ts, extra }).encode_to_vec().unwrap();
        for (key, values) in [
            (&tagged, vec![Value::U32(id)]),
            (&prefixed, vec![Value::U64(ts), Value::from(extra)]),
        ] {
            prop_assert_eq!(rows.decode(key).unwrap(), values.clone());
            prop_assert_eq!(rows.explain(&key[..]).to_string(), FamRow::explain(&key[..]).to_string());
            let member = rows.member_of(key).unwrap();
            prop_assert_eq!(&member.encode(&values).unwrap(), key);
        }
        prop_assert_eq!(
            rows.decode(b"X1234").unwrap_err().to_string(),
            FamRow::decode(b"X1234").unwrap_err().to_string().replace("FamRow", "DynLayout")
        );
        let err = rows.encode(&[Value::U32(id)]).unwrap_err();
        prop_assert!(err.to_string().contains("is a key family"), "{}", err);
        prop_assert!(rows.filter().build().is_err());
    }
}

#[test]
fn a_family_needs_distinct_prefixes_and_names() {
    let err = |t: &str| DynLayout::parse(t).unwrap_err().to_string();
    assert_eq!(
        err(r#"A: [prefix "a"][x u8] | B: [prefix "ab"][y u8]"#),
        "members `A` and `B`: one's prefix starts the other's: a key could not say which it is"
    );
    assert_eq!(
        err(r#"A: [x u8] | B: [prefix "b"][y u8]"#),
        "member `A`: a key family's member has a prefix, which names it in a key"
    );
    // An error in a member names its place in the whole text.
    assert_eq!(
        err(r#"A: [prefix "a"][x u8] | B: [prefix "b"][y u9]"#),
        "field `y` (at byte 40): `u9` is not a type the runtime knows: give its width (as in [y u9 16]) to read it as opaque bytes"
    );
    // A `|` in a prefix does not split.
    let l = DynLayout::parse(r#"[prefix "a|b"][x u8]"#).unwrap();
    assert_eq!(l.layout().prefix(), b"a|b");
}
