//! HBase's text formats: `to_string_binary` always parses back to its bytes;
//! `from_string_binary` never panics, and what it accepts prints back to
//! text that parses to the same bytes; `create_table_statement` never
//! panics and quotes every split.
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
    assert_eq!(
        statement.matches('"').count(),
        2 * splits.len(),
        "{statement}"
    );
});
