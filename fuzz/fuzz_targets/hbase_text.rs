//! HBase's text formats: `to_string_binary` always parses back to its bytes;
//! `from_string_binary` never panics, and what it accepts prints back to
//! text that parses to the same bytes; `create_table_statement` never
//! panics and quotes every split (single quotes for plain text).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rowkey_core::hbase::{create_table_statement, from_string_binary, to_string_binary};

fuzz_target!(|input: (&str, Vec<u8>, Vec<Vec<u8>>)| {
    let (text, bytes, splits) = input;
    let printed = to_string_binary(&bytes);
    assert!(printed.is_ascii());
    assert_eq!(from_string_binary(&printed).unwrap(), bytes);
    if let Ok(parsed) = from_string_binary(text) {
        assert_eq!(
            from_string_binary(&to_string_binary(&parsed)).unwrap(),
            parsed
        );
    }
    let statement = create_table_statement("t", &["d"], &splits);
    // Printable splits without quotes, `\` or `#` (a text key's bucket
    // digits) in single quotes, every other one in double quotes.
    let plain = |p: &[u8]| {
        p.iter()
            .all(|&b| (b' '..=b'~').contains(&b) && !b"'\"\\#".contains(&b))
    };
    let binary = splits.iter().filter(|p| !plain(p)).count();
    assert_eq!(statement.matches('"').count(), 2 * binary, "{statement}");
    for p in splits.iter().filter(|p| plain(p)) {
        let quoted = format!("'{}'", std::str::from_utf8(p).unwrap());
        assert!(statement.contains(&quoted), "{statement}");
    }
});
