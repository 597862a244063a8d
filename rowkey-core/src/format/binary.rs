//! HBase's text form of bytes (`Bytes.toStringBinary` and
//! `Bytes.toBytesBinary`): how keys are shown in errors, layouts and
//! `explain`, and read back from the HBase shell. Public as
//! [`rowkey_core::hbase`](crate::hbase).

#[cfg(feature = "alloc")]
use alloc::string::String;
#[cfg(feature = "alloc")]
use alloc::vec::Vec;
use core::fmt;

/// Writes bytes as HBase's `Bytes.toStringBinary` does: printable ASCII
/// as is (but `\`), everything else as `\xHH`.
pub(crate) fn write_escaped(f: &mut dyn fmt::Write, bytes: &[u8]) -> fmt::Result {
    for &b in bytes {
        write_binary_byte(f, b, b == b'\\')?;
    }
    Ok(())
}

/// One byte of HBase's `toStringBinary` form: printable ASCII (space to
/// `~`) as is unless `force_hex`, every other byte as `\xHH`, upper-case.
/// Without `alloc`, for the descriptor's summary; `hbase` builds on it.
pub(crate) fn write_binary_byte(f: &mut dyn fmt::Write, b: u8, force_hex: bool) -> fmt::Result {
    if (b' '..=b'~').contains(&b) && !force_hex {
        f.write_char(char::from(b))
    } else {
        write!(f, "\\x{b:02X}")
    }
}

/// The exact output of HBase's `Bytes.toStringBinary`: printable ASCII
/// (space to `~`) except the backslash as is, every other byte as `\xHH`
/// with upper-case hex.
///
/// ```
/// use rowkey_core::hbase::to_string_binary;
/// assert_eq!(to_string_binary(&[0x01, b'a', b'\\', 0xFF]), r"\x01a\x5C\xFF");
/// ```
#[cfg(feature = "alloc")]
pub fn to_string_binary(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    for &b in bytes {
        push_binary(&mut s, b, b == b'\\');
    }
    s
}

#[cfg(feature = "alloc")]
pub(crate) fn push_binary(s: &mut String, b: u8, force_hex: bool) {
    // Writing to a String cannot fail.
    let _ = write_binary_byte(s, b, force_hex);
}

#[cfg(feature = "alloc")]
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

#[cfg(feature = "alloc")]
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

#[cfg(feature = "alloc")]
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
#[cfg(feature = "alloc")]
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

#[cfg(feature = "alloc")]
/// The value of an upper-case hex digit or a decimal digit.
fn hex_value(digit: u8) -> u8 {
    match digit {
        b'A'..=b'F' => digit - b'A' + 10,
        _ => digit - b'0',
    }
}
