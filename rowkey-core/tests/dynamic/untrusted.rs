//! Layouts a person pasted or a program wrote are checked the same way
//! from text and from JSON, before anything is built.

use rowkey_core::dynamic::{MAX_FIELDS, MAX_LAYOUT_TEXT, MAX_MEMBERS, MAX_PART_WIDTH};
use rowkey_core::DynLayout;

fn text_err(text: &str) -> String {
    DynLayout::parse(text).expect_err("refused").to_string()
}

fn json_err(json: &str) -> String {
    DynLayout::from_json(json).expect_err("refused").to_string()
}

/// A valid layout's JSON with one piece replaced.
fn json_with(text: &str, from: &str, to: &str) -> String {
    let json = DynLayout::parse(text).unwrap().layout().to_json();
    assert!(json.contains(from), "{json}");
    json.replacen(from, to, 1)
}

#[test]
fn json_salt_buckets_are_1_to_256_as_in_text() {
    let text = "[salt(id)/16][id u32]";
    for bad in ["0", "1000"] {
        let e = json_err(&json_with(
            text,
            "\"buckets\":16",
            &format!("\"buckets\":{bad}"),
        ));
        assert!(
            e.contains(&format!(
                "`{bad}` buckets: the number of buckets is 1 to 256"
            )),
            "{e}"
        );
    }
    let e = text_err("[salt(id)/0][id u32]");
    assert!(e.contains("the number of buckets is 1 to 256"), "{e}");
}

#[test]
fn json_names_and_widths_are_checked() {
    let text = "[id u32][name String]";
    let e = json_err(&json_with(text, "\"name\":\"name\"", "\"name\":\"id\""));
    assert!(e.contains("a second field of this name"), "{e}");
    let e = json_err(&json_with(
        text,
        "\"name\":\"name\"",
        "\"name\":\"not a name\"",
    ));
    assert!(e.contains("is not a field name"), "{e}");
    // A width past any row key: refused, never summed into an overflow.
    let e = json_err(&json_with(
        text,
        "\"width\":4",
        &format!("\"width\":{}", usize::MAX),
    ));
    assert!(
        e.contains(&format!("wider than the {MAX_PART_WIDTH} bytes")),
        "{e}"
    );
    let e = text_err(&format!(
        "[id u32][tag fixed({}) String]",
        MAX_PART_WIDTH + 1
    ));
    assert!(e.contains("wider than"), "{e}");
    // Widths that each fit but add up past a row key.
    let many: String = (0..4)
        .map(|i| format!("[f{i} fixed(10000) String]"))
        .collect();
    let e = text_err(&many);
    assert!(e.contains("the key's width up to it"), "{e}");
}

#[test]
fn enum_discriminants_fit_their_repr_in_text_and_json() {
    let e = text_err("[kind Kind(u8: Click = 1, View = 300)]");
    assert!(
        e.contains("`View = 300`: the discriminant does not fit the enum's repr `u8`"),
        "{e}"
    );
    let e = text_err("[kind Kind(i8: Low = -129)]");
    assert!(e.contains("does not fit the enum's repr `i8`"), "{e}");
    let ok = "[kind Kind(u8: Click = 1, View = 255)]";
    DynLayout::parse(ok).unwrap();
    let e = json_err(&json_with(ok, "\"value\":255", "\"value\":256"));
    assert!(
        e.contains("`View = 256`: the discriminant does not fit"),
        "{e}"
    );
    let e = json_err(&json_with(ok, "\"value\":255", "\"value\":1"));
    assert!(e.contains("distinct names and discriminants"), "{e}");
}

#[test]
fn a_text_keys_fixed_string_never_pads_with_nul() {
    let e = text_err(r#"text("_") [id digits(3) u32][kind fixed(8) String]"#);
    assert!(
        e.contains("pads with a printable character, never NUL bytes"),
        "{e}"
    );
    let e = text_err(r#"text("_") [id digits(3) u32][kind fixed(8, pad = 0x09) String]"#);
    assert!(e.contains("pads with a printable character"), "{e}");
    DynLayout::parse(r#"text("_") [id digits(3) u32][kind fixed(8, pad = ' ') String]"#).unwrap();
}

#[test]
fn texts_and_field_counts_are_capped() {
    let long = format!("[id u32][name String] {}", " ".repeat(MAX_LAYOUT_TEXT));
    let e = text_err(&long);
    assert!(
        e.contains(&format!("more than the {MAX_LAYOUT_TEXT} a layout may be")),
        "{e}"
    );
    assert!(json_err(&long).contains("a layout may be"));
    let fields: String = (0..=MAX_FIELDS).map(|i| format!("[f{i} u8]")).collect();
    let e = text_err(&fields);
    assert!(
        e.contains(&format!("more than the {MAX_FIELDS} a layout may have")),
        "{e}"
    );
    let fields: String = (0..MAX_FIELDS).map(|i| format!("[f{i} u8]")).collect();
    DynLayout::parse(&fields).unwrap();
    let member = |i: usize| {
        format!(
            "M{i}: [prefix \"\\x{:02X}\\x{:02X}\"][id u8]",
            i / 256,
            i % 256
        )
    };
    let family = |n: usize| (0..n).map(member).collect::<Vec<_>>().join(" | ");
    let e = text_err(&family(MAX_MEMBERS + 1));
    assert!(
        e.contains(&format!(
            "more than the {MAX_MEMBERS} a key family may have"
        )),
        "{e}"
    );
    assert_eq!(
        DynLayout::parse(&family(MAX_MEMBERS))
            .unwrap()
            .members()
            .len(),
        MAX_MEMBERS
    );
}
