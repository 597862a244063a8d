//! Escaping of variable-length fields that are not last in the key.
//!
//! A 00 byte in the value is written as `00 FF`, and the field ends with
//! `00 01`. Because `01 < FF`, a value sorts before every value it is a
//! proper prefix of, and the encoding of one value is never a prefix of
//! another's: memcmp order equals the values' order, field by field.
//! `#[desc]` inverts the escaped bytes, so the markers become `FF 00` and
//! `FF FE`.

use crate::format::error::DecodeError;

/// The byte that starts an escape or the terminator.
pub const ESCAPE: u8 = 0x00;
/// The byte after [`ESCAPE`] that stands for a 00 in the value.
pub const ESCAPED_ZERO: u8 = 0xFF;
/// The byte after [`ESCAPE`] that ends the field.
pub const TERMINATOR: u8 = 0x01;

/// Length of `bytes` once escaped and terminated.
#[inline]
pub fn escaped_len(bytes: &[u8]) -> usize {
    bytes.len() + count_escapes(bytes) + 2
}

/// The number of [`ESCAPE`] bytes. Counting into a `u8` per chunk of 255
/// lets the compiler use byte-wide vector lanes: 10x faster than
/// `filter().count()` at 256 bytes (BENCHMARKS.md), and unlike a memchr loop
/// it does not slow down on zero-dense input.
#[inline]
fn count_escapes(bytes: &[u8]) -> usize {
    let mut total = 0;
    for chunk in bytes.chunks(255) {
        let mut n: u8 = 0;
        for &b in chunk {
            n += u8::from(b == ESCAPE);
        }
        total += usize::from(n);
    }
    total
}

/// Writes `bytes` escaped and terminated at the start of `out`, which must be
/// at least [`escaped_len`] long; returns the bytes written.
#[inline]
pub(crate) fn escape_into(bytes: &[u8], out: &mut [u8]) -> usize {
    let w = escape_content_into(bytes, out);
    out[w] = ESCAPE;
    out[w + 1] = TERMINATOR;
    w + 2
}

/// Writes `bytes` escaped, without a terminator, at the start of `out`
/// (room for [`escaped_len`] − 2 bytes); returns the bytes written. The
/// content of [`escape_into`], and of Bigtable's `OrderedCodeBytes`
/// fields, which escape alike.
#[inline]
pub(crate) fn escape_content_into(bytes: &[u8], out: &mut [u8]) -> usize {
    let mut w = 0;
    let mut rest = bytes;
    while let Some(i) = memchr::memchr(ESCAPE, rest) {
        out[w..w + i].copy_from_slice(&rest[..i]);
        out[w + i] = ESCAPE;
        out[w + i + 1] = ESCAPED_ZERO;
        w += i + 2;
        rest = &rest[i + 1..];
    }
    out[w..w + rest.len()].copy_from_slice(rest);
    w + rest.len()
}

/// Like [`escape_into`] for the value's bytes taken in reverse order.
#[inline]
pub(crate) fn escape_reversed_into(bytes: &[u8], out: &mut [u8]) -> usize {
    let mut w = 0;
    for &b in bytes.iter().rev() {
        out[w] = b;
        w += 1;
        if b == ESCAPE {
            out[w] = ESCAPED_ZERO;
            w += 1;
        }
    }
    out[w] = ESCAPE;
    out[w + 1] = TERMINATOR;
    w + 2
}

/// Like [`escape_into`] for the value's dot-separated labels in reverse
/// order (`#[reverse_domain]`): escaping is per byte, so the length is the
/// value's [`escaped_len`].
#[inline]
pub(crate) fn escape_domain_into(bytes: &[u8], out: &mut [u8]) -> usize {
    let mut w = 0;
    for (i, label) in bytes.rsplit(|&b| b == b'.').enumerate() {
        if i > 0 {
            out[w] = b'.';
            w += 1;
        }
        // The label escaped, without a terminator.
        let n = escape_into(label, &mut out[w..]) - 2;
        w += n;
    }
    out[w] = ESCAPE;
    out[w + 1] = TERMINATOR;
    w + 2
}

/// Where an escaped field that starts at `pos` ends.
pub(crate) struct FieldEnd {
    /// End of the escaped content (where the terminator starts).
    pub content_end: usize,
    /// First byte after the terminator.
    pub next: usize,
    /// Whether the content holds escape sequences.
    pub has_escapes: bool,
}

/// Finds the terminator of an escaped field starting at `pos`. With `desc`,
/// the stored bytes are inverted.
#[inline]
pub(crate) fn find_end(
    input: &[u8],
    pos: usize,
    desc: bool,
    field: &'static str,
) -> Result<FieldEnd, DecodeError> {
    find_end_or_key_end(input, pos, desc, false, field)
}

/// [`find_end`], where with `key_end_ends` the end of the key ends the
/// field too (no terminator: `content_end` and `next` are the key's
/// length). Bigtable's `OrderedCodeBytes` writes its last ascending field
/// so.
#[inline(always)]
pub(crate) fn find_end_or_key_end(
    input: &[u8],
    pos: usize,
    desc: bool,
    key_end_ends: bool,
    field: &'static str,
) -> Result<FieldEnd, DecodeError> {
    let flip = if desc { 0xFF } else { 0x00 };
    let marker = ESCAPE ^ flip;
    let mut i = pos;
    let mut has_escapes = false;
    loop {
        let rest = input.get(i..).unwrap_or(&[]);
        let Some(j) = memchr::memchr(marker, rest) else {
            if key_end_ends {
                let end = input.len().max(pos);
                return Ok(FieldEnd {
                    content_end: end,
                    next: end,
                    has_escapes,
                });
            }
            return Err(DecodeError::MissingTerminator { field });
        };
        let at = i + j;
        match input.get(at + 1).map(|b| b ^ flip) {
            None => return Err(DecodeError::MissingTerminator { field }),
            Some(ESCAPED_ZERO) => {
                has_escapes = true;
                i = at + 2;
            }
            Some(TERMINATOR) => {
                return Ok(FieldEnd {
                    content_end: at,
                    next: at + 2,
                    has_escapes,
                });
            }
            Some(other) => {
                return Err(DecodeError::InvalidEscape {
                    field,
                    byte: other ^ flip,
                })
            }
        }
    }
}

/// Unescapes `content` (already checked by [`find_end`]), undoing `#[desc]`
/// by XOR with `flip`, into a new vector.
#[cfg(feature = "alloc")]
pub(crate) fn unescape(content: &[u8], flip: u8) -> alloc::vec::Vec<u8> {
    let mut out = alloc::vec::Vec::with_capacity(content.len());
    let mut i = 0;
    while i < content.len() {
        let b = content[i] ^ flip;
        out.push(b);
        // An escape byte is always followed by ESCAPED_ZERO inside content.
        i += if b == ESCAPE { 2 } else { 1 };
    }
    out
}
