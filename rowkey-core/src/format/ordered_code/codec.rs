//! The field codecs of `#[rowkey(ordered_code)]` keys: Bigtable's struct
//! `OrderedCodeBytes` encoding, one field at a time, for the derive (and
//! run-time layouts) to call as they call the binary codecs.
//!
//! - [`OcInt<O, E>`](OcInt): an `Int64` field (`i64`, or a narrower integer
//!   whose every value is an `Int64`: [`Int64Field`]).
//! - [`OcStr<O, E>`](OcStr): a `String` (UTF-8) or `Bytes` field.
//!
//! `O` is the order (`Asc` or `Desc`), `E` the field's end: [`Term`]
//! (followed by `00 01`) or [`Last`] (the last field a key writes: no
//! terminator when ascending, and when decoding, the end of the key ends
//! it too). A descending field is terminated in either case.
//!
//! One rule spans fields and so is not a codec's: trailing empty ascending
//! strings are not written, nor the terminator before them. The key type
//! decides which fields a key keeps (`kept`), writes those, the last with
//! its `Last` codec, and after decoding checks that the key is the one its
//! values encode to (its length is theirs), so that every value has one
//! key. FORMAT.md, "Bigtable OrderedCodeBytes", has the bytes.

use core::marker::PhantomData;

use super::{decode_int64, encode_int64, MAX_INT64_LEN};
use crate::format::codec::{var_value, Decoded, Encoded, FieldCodec, FieldDecode, Fwd, Order};
use crate::format::error::DecodeError;
use crate::format::escape::{self, ESCAPE, TERMINATOR};
use crate::format::field::{KeyBytes, VarField};

/// How an ordered-code field ends: [`Term`] or [`Last`].
pub trait End {
    /// An ascending field is followed by its terminator `00 01`.
    const TERM: bool;
}

/// Terminated by `00 01` (every field but the last a key writes).
pub enum Term {}

/// The last field a key writes: an ascending one has no terminator, and
/// decoding takes the end of the key as its end (where a string field
/// that the key does not write at all is empty).
pub enum Last {}

impl End for Term {
    const TERM: bool = true;
}

impl End for Last {
    const TERM: bool = false;
}

/// A Rust integer whose every value is a Bigtable `Int64`: `i64`, and
/// `i8` to `i32`, `u8` to `u32`. (`u64` is not: half of its values are not
/// `Int64`s.) Decoding an `Int64` outside the type's range is an error
/// naming the field.
pub trait Int64Field: Copy {
    /// The value as an `Int64`.
    fn to_int64(self) -> i64;
    /// The value of an `Int64`, if the type holds it.
    fn from_int64(v: i64) -> Option<Self>;
}

macro_rules! int64_field {
    ($($t:ty),*) => {$(
        impl Int64Field for $t {
            #[inline(always)]
            fn to_int64(self) -> i64 {
                i64::from(self)
            }
            #[inline(always)]
            fn from_int64(v: i64) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
        }
    )*};
}
int64_field!(i8, i16, i32, i64, u8, u16, u32);

/// An `Int64` field: `OrderedCodeBytes`' variable-length signed integer,
/// escaped, terminated unless `E` is [`Last`] and the field ascending,
/// inverted when `O` is `Desc`.
pub struct OcInt<O, E>(PhantomData<(O, E)>);

/// A `String` or `Bytes` field: its bytes escaped (`00 FF` for `00`),
/// `00 00` when empty, terminated unless `E` is [`Last`] and the field
/// ascending, inverted when `O` is `Desc`.
pub struct OcStr<O, E>(PhantomData<(O, E)>);

/// The terminator's two bytes.
const TERMINATOR_LEN: usize = 2;

/// The bytes an `Int64`'s encoding takes once escaped.
#[inline]
fn int_content_len(v: i64) -> usize {
    let mut buf = [0u8; MAX_INT64_LEN];
    let n = encode_int64(v, &mut buf);
    n + buf[..n].iter().filter(|&&b| b == ESCAPE).count()
}

/// Writes the terminator when the field has one, then inverts the field
/// when it is descending; returns the position after it.
#[inline(always)]
fn finish<O: Order, E: End>(out: &mut [u8], start: usize, mut w: usize) -> usize {
    if E::TERM || O::DESC {
        out[w] = ESCAPE;
        out[w + 1] = TERMINATOR;
        w += TERMINATOR_LEN;
    }
    if O::DESC {
        for b in &mut out[start..w] {
            *b = !*b;
        }
    }
    w
}

/// Where a field that starts at `pos` ends, decoded: its escaped content
/// `pos..content_end` (empty for the empty-field marker `00 00`), whether
/// that holds escapes, and the position after the field. A field that
/// the key does not write (an ascending `Last` string at the key's end)
/// is `None`.
struct Read {
    content_end: usize,
    has_escapes: bool,
    next: usize,
}

/// Reads the extent of a field at `pos`: see [`Read`]. `int`: an `Int64`,
/// which is never empty. The errors: a bare terminator (an empty field is
/// `00 00`), the marker `00 00` anywhere else, a field cut short.
#[inline]
fn read_extent<O: Order, E: End>(
    input: &[u8],
    pos: usize,
    int: bool,
    field: &'static str,
) -> Result<Read, DecodeError> {
    let flip = if O::DESC { 0xFF } else { 0x00 };
    let key_end_ends = !E::TERM && !O::DESC;
    if pos >= input.len() {
        if key_end_ends && !int {
            // Not written: a trailing empty ascending string.
            return Ok(Read {
                content_end: pos,
                has_escapes: false,
                next: pos,
            });
        }
        return Err(DecodeError::UnexpectedEnd {
            field,
            needed: 1,
            available: 0,
        });
    }
    let at = |i: usize| input.get(i).map(|b| b ^ flip);
    if at(pos) == Some(ESCAPE) && at(pos + 1) == Some(ESCAPE) {
        // `00 00`: the empty field, then its terminator or the key's end.
        if int {
            return Err(DecodeError::InvalidValue {
                field,
                reason: "an Int64 is never empty, and 00 00 marks an empty field",
            });
        }
        let after = pos + 2;
        if key_end_ends && after == input.len() {
            return Ok(Read {
                content_end: pos,
                has_escapes: false,
                next: after,
            });
        }
        return match (at(after), at(after + 1)) {
            (Some(ESCAPE), Some(TERMINATOR)) => Ok(Read {
                content_end: pos,
                has_escapes: false,
                next: after + TERMINATOR_LEN,
            }),
            (Some(ESCAPE), Some(byte)) => Err(DecodeError::InvalidEscape { field, byte }),
            _ => Err(DecodeError::MissingTerminator { field }),
        };
    }
    let end = escape::find_end_or_key_end(input, pos, O::DESC, key_end_ends, field)?;
    if end.content_end == pos {
        return Err(DecodeError::InvalidValue {
            field,
            reason: "a terminator with no field before it: an empty field is 00 00",
        });
    }
    Ok(Read {
        content_end: end.content_end,
        has_escapes: end.has_escapes,
        next: end.next,
    })
}

impl<T: Int64Field, O: Order, E: End> FieldCodec<T> for OcInt<O, E> {
    const FIXED_LEN: Option<usize> = None;
    const MIN_LEN: usize = if E::TERM || O::DESC {
        1 + TERMINATOR_LEN
    } else {
        1
    };
    const DESC: bool = O::DESC;
    const RAW: bool = false;
    const ORDERED_CODE: bool = true;
    #[inline]
    fn encoded_len(value: &T) -> usize {
        int_content_len(value.to_int64())
            + if E::TERM || O::DESC {
                TERMINATOR_LEN
            } else {
                0
            }
    }
    #[inline(always)]
    fn max_encoded_len(_: &T) -> usize {
        // Every byte of the longest encoding escaped, and the terminator.
        2 * MAX_INT64_LEN + TERMINATOR_LEN
    }
    #[inline]
    fn encode(value: &T, out: &mut [u8], pos: usize, _: &'static str) -> Encoded {
        let mut buf = [0u8; MAX_INT64_LEN];
        let n = encode_int64(value.to_int64(), &mut buf);
        let w = pos + escape::escape_content_into(&buf[..n], &mut out[pos..]);
        Ok(finish::<O, E>(out, pos, w))
    }
    #[inline]
    fn lowest_len(_: &T, written: usize) -> Option<usize> {
        Some(if O::DESC {
            written
        } else {
            written - TERMINATOR_LEN
        })
    }
}

impl<T: Int64Field, O: Order, E: End> FieldDecode<'_, T> for OcInt<O, E> {
    #[inline]
    fn decode(input: &[u8], pos: usize, field: &'static str) -> Decoded<T> {
        let r = read_extent::<O, E>(input, pos, true, field)?;
        let flip = if O::DESC { 0xFF } else { 0x00 };
        // Unescaped into the longest encoding's room: a longer field is no
        // `Int64`.
        let mut buf = [0u8; MAX_INT64_LEN];
        let mut n = 0;
        let mut i = pos;
        while i < r.content_end {
            let b = input[i] ^ flip;
            let slot = buf.get_mut(n).ok_or_else(|| not_int64(field))?;
            *slot = b;
            n += 1;
            // Inside the content an escape byte is always `00 FF`.
            i += if b == ESCAPE { 2 } else { 1 };
        }
        let v = match decode_int64(&buf[..n]) {
            Some((v, len)) if len == n => v,
            _ => return Err(not_int64(field)),
        };
        let value = T::from_int64(v).ok_or(DecodeError::InvalidValue {
            field,
            reason: "the Int64 is out of the field type's range",
        })?;
        Ok((value, r.next))
    }
}

/// The error of bytes that are not an `Int64`'s canonical encoding.
#[cold]
fn not_int64(field: &'static str) -> DecodeError {
    DecodeError::InvalidValue {
        field,
        reason: "not the shortest OrderedCodeBytes encoding of an Int64",
    }
}

impl<T: KeyBytes + ?Sized, O: Order, E: End> FieldCodec<T> for OcStr<O, E> {
    const FIXED_LEN: Option<usize> = None;
    /// `00 00 00 01` for an empty terminated field; nothing for a last
    /// ascending one, which a key does not write when it is empty.
    const MIN_LEN: usize = if E::TERM || O::DESC {
        2 + TERMINATOR_LEN
    } else {
        0
    };
    const DESC: bool = O::DESC;
    const RAW: bool = false;
    const ORDERED_CODE: bool = true;
    #[inline]
    fn encoded_len(value: &T) -> usize {
        let bytes = value.key_bytes();
        let content = if bytes.is_empty() {
            2
        } else {
            escape::escaped_len(bytes) - TERMINATOR_LEN
        };
        content
            + if E::TERM || O::DESC {
                TERMINATOR_LEN
            } else {
                0
            }
    }
    #[inline(always)]
    fn max_encoded_len(value: &T) -> usize {
        2 * value.key_bytes().len() + 2 + TERMINATOR_LEN
    }
    #[inline]
    fn encode(value: &T, out: &mut [u8], pos: usize, _: &'static str) -> Encoded {
        let bytes = value.key_bytes();
        let w = if bytes.is_empty() {
            out[pos] = ESCAPE;
            out[pos + 1] = ESCAPE;
            pos + 2
        } else {
            pos + escape::escape_content_into(bytes, &mut out[pos..])
        };
        Ok(finish::<O, E>(out, pos, w))
    }
    #[inline]
    fn lowest_len(value: &T, written: usize) -> Option<usize> {
        match (O::DESC, value.key_bytes().is_empty()) {
            (true, _) => Some(written),
            // The lowest key with an empty ascending string here does not
            // write it, nor the terminator before it.
            (false, true) => None,
            (false, false) => Some(written - TERMINATOR_LEN),
        }
    }
}

impl<'de, T: VarField<'de>, O: Order, E: End> FieldDecode<'de, T> for OcStr<O, E> {
    #[inline]
    fn decode(input: &'de [u8], pos: usize, field: &'static str) -> Decoded<T> {
        let r = read_extent::<O, E>(input, pos, false, field)?;
        let content = &input[pos..r.content_end];
        let value = var_value::<T, Fwd>(content, r.has_escapes, O::DESC, field)?;
        Ok((value, r.next))
    }
}

/// The bytes the salt hashes for one `by` field of an ordered-code key:
/// an `Int64`'s encoding or a string's bytes, unescaped (a trailing empty
/// string that a key does not write has bytes to hash all the same: none).
#[doc(hidden)]
pub trait OcPart<T: ?Sized> {
    /// `value`'s bytes, `buf` holding an `Int64`'s.
    fn part<'a>(value: &'a T, buf: &'a mut [u8; MAX_INT64_LEN]) -> &'a [u8];
}

impl<T: Int64Field, O, E> OcPart<T> for OcInt<O, E> {
    #[inline]
    fn part<'a>(value: &'a T, buf: &'a mut [u8; MAX_INT64_LEN]) -> &'a [u8] {
        let n = encode_int64(value.to_int64(), buf);
        &buf[..n]
    }
}

impl<T: KeyBytes + ?Sized, O, E> OcPart<T> for OcStr<O, E> {
    #[inline]
    fn part<'a>(value: &'a T, _: &'a mut [u8; MAX_INT64_LEN]) -> &'a [u8] {
        value.key_bytes()
    }
}

/// A string value that a key does not write when it is the last field:
/// an empty one (integers are never empty).
#[doc(hidden)]
#[inline(always)]
pub fn oc_empty<T: KeyBytes + ?Sized>(value: &T) -> bool {
    value.key_bytes().is_empty()
}

/// The check after a derived ordered-code key is decoded: the key is the
/// one its values encode to, which is the same as being as long as that
/// (every other spelling of the values, a trailing empty field written
/// out or a terminator at the end, is longer).
#[doc(hidden)]
#[inline]
pub fn oc_canonical(
    input: &[u8],
    values_len: usize,
    last: &'static str,
) -> Result<(), DecodeError> {
    if input.len() == values_len {
        Ok(())
    } else {
        Err(DecodeError::InvalidValue {
            field: last,
            reason: NOT_CANONICAL,
        })
    }
}

/// Why a key that reads as values but is not their key is refused.
pub(crate) const NOT_CANONICAL: &str =
    "not the canonical OrderedCodeBytes key of its values: a trailing empty field or terminator is written out";

/// The unescaped content of one stored ordered-code field (`stored` is
/// the field's bytes in the key, its terminator included when it has
/// one): what the salt hashed. For `explain`.
#[cfg(feature = "alloc")]
pub(crate) fn stored_content(stored: &[u8], desc: bool) -> alloc::vec::Vec<u8> {
    let flip = if desc { 0xFF } else { 0x00 };
    let mut s = stored;
    if s.len() >= 2 && s[s.len() - 2] ^ flip == ESCAPE && s[s.len() - 1] ^ flip == TERMINATOR {
        s = &s[..s.len() - 2];
    }
    if s.len() == 2 && s[0] ^ flip == ESCAPE && s[1] ^ flip == ESCAPE {
        return alloc::vec::Vec::new();
    }
    escape::unescape(s, flip)
}
