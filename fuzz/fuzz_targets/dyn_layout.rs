//! Run-time layouts (`DynLayout`): parsing any text never panics, and for
//! a layout (one of a few valid ones, or whatever the text parses to)
//! decoding any bytes, explaining them and filtering on the decoded values
//! never panics; what decodes encodes, and that key decodes and encodes
//! back to itself.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use rowkey_core::DynLayout;

const LAYOUTS: [&str; 6] = [
    "[salt(user_id)/16][user_id u64][ts_millis desc_ts i64][kind fixed(8) String]",
    r#"[prefix "e\x00"][a desc Option<u32>][s String][b reverse i16][t Vec<u8>]"#,
    r#"text("_") [salt(phone)/10 mod][phone digits(11) u64][ts desc_ts i64]"#,
    r#"text("::") [user String][n desc u32][host reverse_domain String][last String]"#,
    r#"ordered_code [prefix "v\x00\x01"][salt(site)/8][site i32][ts desc i64][page String][blob Vec<u8>]"#,
    "[kind desc Kind(i16: Low = -3, High = 3)][tag fixed(3) Option<String>][o added Option<Kind>(u8: A = 1, B = 200)]",
];

/// The valid layouts, parsed once (a parse leaks its descriptor by
/// design).
fn layouts() -> &'static [DynLayout] {
    static PARSED: OnceLock<Vec<DynLayout>> = OnceLock::new();
    PARSED.get_or_init(|| LAYOUTS.iter().map(|t| DynLayout::parse(t).unwrap()).collect())
}

fuzz_target!(|input: (u8, &str, &[u8])| {
    let (pick, text, key) = input;
    let parsed = DynLayout::parse(text);
    let layout = match &parsed {
        Ok(layout) => layout,
        Err(_) => &layouts()[usize::from(pick) % LAYOUTS.len()],
    };
    let _ = layout.explain(key).to_string();
    let Ok(values) = layout.decode(key) else {
        return;
    };
    let again = layout.encode(&values).expect("decoded values encode");
    let back = layout.decode(&again).expect("an encoded key decodes");
    assert_eq!(layout.encode(&back).unwrap(), again);
    // Every field but those added later (which take no filter in the
    // derive: older keys lack them).
    let mut filter = layout.filter();
    for (f, v) in layout.layout().fields().iter().zip(values) {
        if !f.is_added() {
            filter = filter.eq(f.name(), v).unwrap();
        }
    }
    if let Ok(f) = filter.build() {
        assert!(f.matches(&again));
    }
});
