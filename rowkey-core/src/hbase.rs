//! HBase text formats: `Bytes.toStringBinary`, `Bytes.toBytesBinary`, and
//! shell statements that pre-split a table.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// The exact output of HBase's `Bytes.toStringBinary`: printable ASCII
/// (space to `~`) except the backslash as is, every other byte as `\xHH`
/// with upper-case hex.
///
/// ```
/// use rowkey_core::hbase::to_string_binary;
/// assert_eq!(to_string_binary(&[0x01, b'a', b'\\', 0xFF]), r"\x01a\x5C\xFF");
/// ```
pub fn to_string_binary(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    for &b in bytes {
        push_binary(&mut s, b, b == b'\\');
    }
    s
}

fn push_binary(s: &mut String, b: u8, force_hex: bool) {
    // Writing to a String cannot fail.
    let _ = crate::layout::write_binary_byte(s, b, force_hex);
}

/// Why [`from_string_binary`] rejected its input.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseBinaryError {
    /// A character outside ASCII, which HBase would silently truncate to its
    /// low byte.
    NonAscii {
        /// Byte offset of the character in the input.
        offset: usize,
    },
    /// `\x` not followed by two hex digits.
    BadEscape {
        /// Byte offset of the backslash in the input.
        offset: usize,
    },
    /// `\x` followed by hex digits in lower case (`\x5a`): HBase accepts
    /// only `0-9A-F` and reads `\x5a` as the text `x5a`.
    LowercaseHex {
        /// Byte offset of the backslash in the input.
        offset: usize,
    },
}

impl fmt::Display for ParseBinaryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseBinaryError::NonAscii { offset } => {
                write!(
                    f,
                    "non-ASCII character at byte {offset}: write it as \\xHH escapes"
                )
            }
            ParseBinaryError::BadEscape { offset } => {
                write!(f, "\\x at byte {offset} is not followed by two hex digits")
            }
            ParseBinaryError::LowercaseHex { offset } => write!(
                f,
                "\\x at byte {offset} is followed by lower-case hex, which HBase reads as text \
                 (\\x5a is the text x5a there): write upper-case hex (\\x5A)"
            ),
        }
    }
}

impl core::error::Error for ParseBinaryError {}

/// The inverse of [`to_string_binary`], as HBase's `Bytes.toBytesBinary`:
/// `\xHH` with upper-case hex digits is one byte, every other character
/// stands for itself (a backslash not followed by `x` too, and one at the
/// end of the string).
///
/// Where HBase defines a result, this gives the same bytes, with three
/// deliberate differences, each an error instead of a silent change:
/// - `\x` followed by lower-case hex (`\x5a`) is
///   [`ParseBinaryError::LowercaseHex`]: HBase accepts only `0-9A-F`, drops
///   the backslash and keeps the text `x5a`, which is almost never what the
///   writer of `\x5a` meant;
/// - `\x` followed by anything else that is not two hex digits (`\xZZ`) is
///   [`ParseBinaryError::BadEscape`]: HBase drops the backslash (and throws
///   when the string ends within two characters of the `x`);
/// - a non-ASCII character is [`ParseBinaryError::NonAscii`]: HBase keeps
///   only the low byte of its UTF-16 unit.
///
/// ```
/// use rowkey_core::hbase::{from_string_binary, to_string_binary, ParseBinaryError};
/// assert_eq!(from_string_binary(r"\x01a\x5C\xFF").unwrap(), [0x01, b'a', b'\\', 0xFF]);
/// let bytes = [0u8, 1, 0x7F, b'"', 0xFE];
/// assert_eq!(from_string_binary(&to_string_binary(&bytes)).unwrap(), bytes);
/// assert_eq!(from_string_binary(r"\x5a"), Err(ParseBinaryError::LowercaseHex { offset: 0 }));
/// assert!(from_string_binary(r"\xZZ").is_err());
/// ```
pub fn from_string_binary(s: &str) -> Result<Vec<u8>, ParseBinaryError> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !b.is_ascii() {
            return Err(ParseBinaryError::NonAscii { offset: i });
        }
        if b == b'\\' && bytes.get(i + 1) == Some(&b'x') {
            let digit = |j: usize| bytes.get(j).copied().filter(u8::is_ascii_hexdigit);
            match (digit(i + 2), digit(i + 3)) {
                (Some(h), Some(l)) if !h.is_ascii_lowercase() && !l.is_ascii_lowercase() => {
                    out.push((hex_value(h) << 4) | hex_value(l));
                }
                (Some(_), Some(_)) => return Err(ParseBinaryError::LowercaseHex { offset: i }),
                _ => return Err(ParseBinaryError::BadEscape { offset: i }),
            }
            i += 4;
        } else {
            out.push(b);
            i += 1;
        }
    }
    Ok(out)
}

/// The value of an upper-case hex digit or a decimal digit.
fn hex_value(digit: u8) -> u8 {
    match digit {
        b'A'..=b'F' => digit - b'A' + 10,
        _ => digit - b'0',
    }
}

/// A Ruby double-quoted string literal of `bytes` for the HBase shell:
/// printable ASCII as is except `\`, `"` and `#` (which would end the string
/// or start an interpolation), every other byte as `\xHH`.
fn ruby_bytes(bytes: &[u8]) -> String {
    let mut s = String::from("\"");
    for &b in bytes {
        push_binary(&mut s, b, matches!(b, b'\\' | b'"' | b'#'));
    }
    s.push('"');
    s
}

/// A Ruby single-quoted string literal (for table and family names).
fn ruby_name(name: &str) -> String {
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
            let plain = p
                .iter()
                .all(|&b| (b' '..=b'~').contains(&b) && !b"'\"\\#".contains(&b));
            match core::str::from_utf8(p) {
                Ok(text) if plain => s.push_str(&ruby_name(text)),
                _ => s.push_str(&ruby_bytes(p)),
            }
        }
        s.push(']');
    }
    s
}
