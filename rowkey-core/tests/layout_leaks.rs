//! A run-time layout that is refused leaves nothing behind: its text is
//! checked in a pass that keeps nothing before anything is leaked for
//! `'static`, so a service that parses layouts from its users' requests
//! does not grow with each bad one. (A layout that parses keeps its
//! descriptor for the program's life, by design: the last assertion shows
//! the count sees that.)

#[path = "common/counting.rs"]
mod counting;

use counting::leaked;
use rowkey_core::prelude::*;
use rowkey_core::DynLayout;

/// Texts refused at every stage: the parser, the spec checks, a field's
/// type or attributes (after good fields), the prefix, the salt, the
/// tail, a family's rules (after good members).
const REFUSED: &[&str] = &[
    "[id u32",
    "[salt(id)/300][id u32]",
    "[id u32][name String][x Nope]",
    "[id u32][name String][t desc_ts String]",
    "[a u32][b String][c u64 4]",
    r#"[prefix "ab" 3][id u32]"#,
    "[salt/16 mod][id u32][name String]",
    "[salt(id)/16 mod][name String]",
    "[salt(id)/16 2][id u32]",
    "[a u32][b u64] = 13 bytes",
    "[a u32][b String] >= 5 bytes",
    r#"text("_") [a digits(3) u32][b fixed(4) String]"#,
    r#"A: [prefix "a"][id u32] | B: [prefix "ab"][id u64]"#,
    r#"A: [prefix "a"][id u32] | A: [prefix "b"][id u64]"#,
    r#"A: [prefix "a"][id u32] | B: [prefix "b"][id Nope]"#,
    r#"A: [prefix "a"][id u32] | B: [id u64]"#,
];

#[test]
fn a_refused_layout_leaks_nothing() {
    for text in REFUSED {
        assert!(DynLayout::parse(text).is_err(), "{text} is refused");
        let bytes = leaked(|| DynLayout::parse(text).is_err());
        assert_eq!(bytes, 0, "{text}: {bytes} bytes left behind");
    }
}

/// A JSON layout refused by its parts leaks nothing. (One refused by its
/// `layout_id` alone, its parts a valid layout of another fingerprint, is
/// found only once that layout is built: the fingerprint is the built
/// descriptor's hash.)
#[test]
fn a_refused_json_layout_leaks_nothing() {
    #[derive(RowKey)]
    #[salt(buckets = 4, by(id))]
    struct Row {
        id: u32,
        name: String,
    }
    let json = Row::LAYOUT.to_json();
    for (from, to) in [
        ("\"buckets\":4", "\"buckets\":0"),
        ("\"width\":4", "\"width\":5"),
        ("\"encoding\":\"raw\"", "\"encoding\":\"nope\""),
        ("\"min_len\":5", "\"min_len\":6"),
    ] {
        assert!(json.contains(from), "{json}");
        let bad = json.replacen(from, to, 1);
        assert!(DynLayout::from_json(&bad).is_err(), "{to}");
        let bytes = leaked(|| DynLayout::from_json(&bad).is_err());
        assert_eq!(bytes, 0, "{to}: {bytes} bytes left behind");
    }
}

#[test]
fn a_parsed_layout_keeps_its_descriptor() {
    // What the count sees: a layout that parses keeps its names and parts.
    let bytes = leaked(|| DynLayout::parse("[id u32][name String]").map(|l| l.layout().id()));
    assert!(bytes > 0, "{bytes}");
}
