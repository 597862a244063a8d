//! HBase text formats: `Bytes.toStringBinary`, `Bytes.toBytesBinary`, and
//! shell statements that pre-split a table.

use alloc::string::String;
use alloc::vec::Vec;

use crate::format::binary::push_binary;
pub use crate::format::binary::{from_string_binary, to_string_binary, ParseBinaryError};

/// A Ruby double-quoted string literal of `bytes` for the HBase shell:
/// printable ASCII as is except `\`, `"` and `#` (which would end the string
/// or start an interpolation), every other byte as `\xHH`. What the `rowkey`
/// command prints a key as.
///
/// ```
/// use rowkey_core::hbase::ruby_bytes;
/// assert_eq!(ruby_bytes(b"a#\x01"), r#""a\x23\x01""#);
/// ```
pub fn ruby_bytes(bytes: &[u8]) -> String {
    let mut s = String::from("\"");
    for &b in bytes {
        push_binary(&mut s, b, matches!(b, b'\\' | b'"' | b'#'));
    }
    s.push('"');
    s
}

/// A Ruby single-quoted string literal (for table and family names).
///
/// ```
/// use rowkey_core::hbase::ruby_name;
/// assert_eq!(ruby_name("it's"), r"'it\'s'");
/// ```
pub fn ruby_name(name: &str) -> String {
    let mut s = String::from("'");
    for c in name.chars() {
        if c == '\'' || c == '\\' {
            s.push('\\');
        }
        s.push(c);
    }
    s.push('\'');
    s
}

/// An HBase shell `create` statement for a table pre-split at
/// `split_points` (for a salted key: `T::split_points()`, one region per
/// bucket).
///
/// Binary split keys are written as double-quoted Ruby strings with `\xHH`
/// escapes, so they reach HBase byte for byte (single quotes would keep
/// `\x01` as four characters). A split key of printable ASCII without
/// quotes, `\` or `#` (a text key's bucket digits) is written in single
/// quotes, as HBase guides write them: `SPLITS => ['1', '2']`.
///
/// ```
/// use rowkey_core::hbase::create_table_statement;
/// let splits = vec![vec![1u8], vec![2], vec![3]];
/// assert_eq!(
///     create_table_statement("events", &["d"], &splits),
///     r#"create 'events', 'd', SPLITS => ["\x01", "\x02", "\x03"]"#
/// );
/// assert_eq!(create_table_statement("t", &["a", "b"], &[]), "create 't', 'a', 'b'");
/// let text = vec![b"1".to_vec(), b"2".to_vec()];
/// assert_eq!(create_table_statement("t", &["f"], &text), "create 't', 'f', SPLITS => ['1', '2']");
/// ```
pub fn create_table_statement(table: &str, families: &[&str], split_points: &[Vec<u8>]) -> String {
    let mut s = String::from("create ");
    s.push_str(&ruby_name(table));
    for f in families {
        s.push_str(", ");
        s.push_str(&ruby_name(f));
    }
    if !split_points.is_empty() {
        s.push_str(", SPLITS => [");
        for (i, p) in split_points.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            s.push_str(&shell_key(p));
        }
        s.push(']');
    }
    s
}

/// A row key as the HBase shell reads it, as [`create_table_statement`]
/// and [`split_statements`] write split keys (and the `rowkey` command
/// prints them): printable ASCII without quotes, `\` or `#` in single
/// quotes, anything else a double-quoted Ruby string with `\xHH` escapes.
///
/// ```
/// use rowkey_core::hbase::shell_key;
/// assert_eq!(shell_key(b"07"), "'07'");
/// assert_eq!(shell_key(&[b'e', 1]), r#""e\x01""#);
/// ```
pub fn shell_key(key: &[u8]) -> String {
    let plain = key
        .iter()
        .all(|&b| (b' '..=b'~').contains(&b) && !b"'\"\\#".contains(&b));
    match core::str::from_utf8(key) {
        Ok(text) if plain => ruby_name(text),
        _ => ruby_bytes(key),
    }
}

/// HBase shell `split` statements, one per split point: how a table that
/// already exists is pre-split for keys it did not hold before (a key
/// family's member added later: its prefix and its own split points, from
/// `Member::LAYOUT.split_points()` and its prefix).
///
/// ```
/// use rowkey_core::hbase::split_statements;
/// assert_eq!(
///     split_statements("events", &[b"e".to_vec(), vec![b'e', 1]]),
///     ["split 'events', 'e'", r#"split 'events', "e\x01""#]
/// );
/// ```
pub fn split_statements(table: &str, split_points: &[Vec<u8>]) -> Vec<String> {
    split_points
        .iter()
        .map(|p| alloc::format!("split {}, {}", ruby_name(table), shell_key(p)))
        .collect()
}
