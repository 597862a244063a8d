//! Bigtable's `OrderedCodeBytes` encodings, the format of its structured
//! row keys (`Type.Struct` with `OrderedCodeBytes` encoding): the keys that
//! GoogleSQL reads as columns and that continuous materialized views and
//! asynchronous secondary indexes write.
//!
//! - [`encode_int64`] / [`decode_int64`]: `Int64` with `OrderedCodeBytes`
//!   encoding, a variable-length signed integer of 1 to 10 bytes whose
//!   bytes sort like the values (Google's `orderedcode` package's `int64`).
//! - [`encode_struct`] / [`decode_struct`]: a struct's fields, each
//!   encoded on its own (an `Int64` as above, a `String` as its UTF-8
//!   bytes, `Bytes` as they are), every `00` byte escaped as `00 FF`, an
//!   empty field written `00 00`, the fields joined by `00 01`, trailing
//!   empty ascending fields dropped. A descending field is terminated by
//!   `00 01` even when it is last, and all of its bytes are inverted.
//!
//! The exact rules, where Google's documentation and its `orderedcode`
//! package differ, and the golden vectors are in FORMAT.md, "Bigtable
//! OrderedCodeBytes".
//!
//! [`OcInt`] and [`OcStr`] are the same encoding as field codecs, which
//! `#[rowkey(ordered_code)]` key types use (no `alloc` needed); the
//! functions over [`Value`]s need `alloc`.
//!
#![cfg_attr(feature = "alloc", doc = "```")]
#![cfg_attr(not(feature = "alloc"), doc = "```ignore")]
//! use rowkey_core::ordered_code::{decode_struct, encode_struct, Order, Type, Value};
//!
//! // Bigtable's documented example: STRUCT("A", "", "C").
//! let fields = [
//!     (Value::String("A".into()), Order::Asc),
//!     (Value::String("".into()), Order::Asc),
//!     (Value::String("C".into()), Order::Asc),
//! ];
//! let key = encode_struct(&fields);
//! assert_eq!(key, b"A\x00\x01\x00\x00\x00\x01C");
//!
//! let schema = [("a", Type::String, Order::Asc), ("b", Type::String, Order::Asc), ("c", Type::String, Order::Asc)];
//! let values = decode_struct(&schema, &key).unwrap();
//! assert_eq!(values, fields.map(|(v, _)| v));
//! ```

#[cfg(feature = "alloc")]
use alloc::{string::String, vec::Vec};

#[cfg(feature = "alloc")]
use crate::format::error::DecodeError;

mod codec;

#[doc(hidden)]
pub use codec::{oc_canonical, oc_empty, OcPart};
#[cfg(feature = "alloc")]
pub(crate) use codec::{stored_content, NOT_CANONICAL};
pub use codec::{End, Int64Field, Last, OcInt, OcStr, Term};

/// The longest `Int64` encoding: 10 bytes (for magnitudes of 2^62 and up).
pub const MAX_INT64_LEN: usize = 10;

/// Writes `v` as `Int64` `OrderedCodeBytes` at the start of `out` and
/// returns its length.
///
/// A value `v ≥ 0` takes the fewest bytes `n` whose `7n − 1` value bits hold
/// it: `n` one bits, a zero bit, then `v` in big-endian bits. A negative
/// value is written as `!v` would be, every byte inverted, so that it sorts
/// below every value that is not.
///
/// ```
/// use rowkey_core::ordered_code::encode_int64;
/// let mut buf = [0; 10];
/// let n = encode_int64(64, &mut buf);
/// assert_eq!(&buf[..n], [0xC0, 0x40]);
/// let n = encode_int64(-1, &mut buf);
/// assert_eq!(&buf[..n], [0x7F]);
/// ```
pub fn encode_int64(v: i64, out: &mut [u8; MAX_INT64_LEN]) -> usize {
    let negative = v < 0;
    // The magnitude below 2^63: the value, or its complement.
    let m = if negative { !v } else { v } as u64;
    let n = int64_len(m);
    // `m` in the last `n` bytes of a 16-byte big-endian number, then the
    // length's prefix: `n` one bits from the first bit.
    let wide = u128::from(m).to_be_bytes();
    out[..n].copy_from_slice(&wide[16 - n..]);
    let prefix = ((1u16 << n) - 1) << (16 - n);
    out[0] |= (prefix >> 8) as u8;
    if n > 8 {
        out[1] |= prefix as u8;
    }
    if negative {
        for b in &mut out[..n] {
            *b = !*b;
        }
    }
    n
}

/// The bytes a magnitude below 2^63 takes: the fewest `n` whose `7n − 1`
/// value bits hold it.
fn int64_len(m: u64) -> usize {
    let bits = 64 - m.leading_zeros() as usize;
    // 7n − 1 ≥ bits  ⇔  n ≥ (bits + 1) / 7, rounded up.
    ((bits + 1).div_ceil(7)).max(1)
}

/// Reads an `Int64` `OrderedCodeBytes` value from the start of `input`:
/// the value and the bytes it took. `None` when the input is cut short or
/// the encoding is not the one [`encode_int64`] writes for its value (a
/// longer form than needed, or a magnitude of 2^63 or more), so that every
/// value has one encoding and equal keys are equal values.
///
/// ```
/// use rowkey_core::ordered_code::decode_int64;
/// assert_eq!(decode_int64(&[0xC0, 0x40, 0xAA]), Some((64, 2)));
/// assert_eq!(decode_int64(&[0xC0, 0x01]), None, "1 fits in one byte");
/// ```
pub fn decode_int64(input: &[u8]) -> Option<(i64, usize)> {
    let &first = input.first()?;
    let negative = first & 0x80 == 0;
    let flip = if negative { 0xFF } else { 0x00 };
    let byte = |i: usize| input.get(i).map(|b| b ^ flip);
    // The length: the one bits before the first zero bit, over the first
    // two bytes (at most 10).
    let head = u16::from_be_bytes([first ^ flip, byte(1).unwrap_or(0)]);
    let n = head.leading_ones() as usize;
    if !(1..=MAX_INT64_LEN).contains(&n) || input.len() < n {
        return None;
    }
    let mut wide = [0u8; 16];
    for (i, w) in wide[16 - n..].iter_mut().enumerate() {
        *w = byte(i)?;
    }
    // Clear the prefix.
    let prefix = ((1u16 << n) - 1) << (16 - n);
    wide[16 - n] &= !((prefix >> 8) as u8);
    if n > 8 {
        wide[17 - n] &= !(prefix as u8);
    }
    let m = u128::from_be_bytes(wide);
    let m = u64::try_from(m).ok().filter(|&m| m < 1 << 63)?;
    if int64_len(m) != n {
        return None;
    }
    let v = m as i64;
    Some((if negative { !v } else { v }, n))
}

#[cfg(feature = "alloc")]
/// A field's order in a struct key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    /// Ascending (the default).
    Asc,
    /// Descending: the field's encoding, terminator included, inverted.
    Desc,
}

#[cfg(feature = "alloc")]
/// A struct field's type: the Bigtable types that `OrderedCodeBytes` keys
/// hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `Int64` with `OrderedCodeBytes` encoding.
    Int64,
    /// `String` with `Utf8Bytes` encoding.
    String,
    /// `Bytes` with `Raw` encoding.
    Bytes,
}

#[cfg(feature = "alloc")]
/// A struct field's value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// An `Int64`.
    Int64(i64),
    /// A `String`.
    String(String),
    /// `Bytes`.
    Bytes(Vec<u8>),
}

#[cfg(feature = "alloc")]
impl Value {
    /// The field's own encoding, before the struct escapes it.
    fn field_bytes<'a>(&'a self, buf: &'a mut [u8; MAX_INT64_LEN]) -> &'a [u8] {
        match self {
            Value::Int64(v) => {
                let n = encode_int64(*v, buf);
                &buf[..n]
            }
            Value::String(s) => s.as_bytes(),
            Value::Bytes(b) => b,
        }
    }
}

#[cfg(feature = "alloc")]
/// Encodes a struct key from its fields' values and orders (see the
/// [module documentation](self)). Every value has an encoding: this does
/// not fail.
///
/// ```
/// use rowkey_core::ordered_code::{encode_struct, Order, Value};
/// // Bigtable's documented example: STRUCT("", "A" DESC).
/// let key = encode_struct(&[
///     (Value::String("".into()), Order::Asc),
///     (Value::String("A".into()), Order::Desc),
/// ]);
/// assert_eq!(key, [0x00, 0x00, 0x00, 0x01, 0xBE, 0xFF, 0xFE]);
/// ```
pub fn encode_struct(fields: &[(Value, Order)]) -> Vec<u8> {
    let mut buf = [0u8; MAX_INT64_LEN];
    // Trailing empty ascending fields are not written.
    let written = fields
        .iter()
        .rposition(|(v, order)| *order == Order::Desc || !v.field_bytes(&mut buf).is_empty())
        .map_or(0, |last| last + 1);
    if written == 0 {
        return alloc::vec![0x00, 0x00];
    }
    let mut out = Vec::new();
    for (i, (value, order)) in fields[..written].iter().enumerate() {
        if i > 0 && fields[i - 1].1 == Order::Asc {
            out.extend_from_slice(&[0x00, 0x01]);
        }
        let field_start = out.len();
        let bytes = value.field_bytes(&mut buf);
        if bytes.is_empty() {
            out.extend_from_slice(&[0x00, 0x00]);
        }
        for &b in bytes {
            out.push(b);
            if b == 0x00 {
                out.push(0xFF);
            }
        }
        if *order == Order::Desc {
            // A descending field carries its terminator, inverted with it.
            out.extend_from_slice(&[0x00, 0x01]);
            for b in &mut out[field_start..] {
                *b = !*b;
            }
        }
    }
    out
}

#[cfg(feature = "alloc")]
/// Decodes a struct key of the fields `schema` names, types and orders
/// (see the [module documentation](self)): one value per field, in order.
///
/// A key that is not an encoding of such a struct is an error naming the
/// field where it goes wrong: a field cut short, an escape other than
/// `00 FF`, `00 00` or `00 01`, an `Int64` that is not one
/// ([`decode_int64`]'s canonical form, using the field's bytes exactly), a
/// `String` that is not UTF-8, bytes after the last field, or a key that
/// is not the one [`encode_struct`] writes for its values (a trailing empty
/// field spelled out). Trailing ascending fields that are absent are empty
/// (an `Int64` cannot be).
pub fn decode_struct(
    schema: &[(&'static str, Type, Order)],
    key: &[u8],
) -> Result<Vec<Value>, DecodeError> {
    if schema.is_empty() {
        // `STRUCT()` is `00 00` and nothing else.
        return match key {
            [0x00, 0x00] => Ok(Vec::new()),
            [] | [0x00] => Err(DecodeError::UnexpectedEnd {
                field: "STRUCT()",
                needed: 2,
                available: key.len(),
            }),
            _ => Err(DecodeError::TrailingBytes {
                count: key.len() - usize::from(key.starts_with(&[0x00, 0x00])) * 2,
            }),
        };
    }
    let mut values = Vec::with_capacity(schema.len());
    let mut pos = 0;
    // `STRUCT()` of only empty ascending fields is `00 00`.
    let all_empty = key == [0x00, 0x00];
    for (i, &(field, ty, order)) in schema.iter().enumerate() {
        let bytes = if all_empty || (pos == key.len() && order == Order::Asc && i > 0) {
            // Dropped: a trailing empty ascending field.
            if order == Order::Desc {
                return Err(DecodeError::MissingTerminator { field });
            }
            None
        } else {
            // The key's end may end an ascending field when every field
            // after it is ascending (and so dropped when empty).
            let may_end = schema[i + 1..].iter().all(|f| f.2 == Order::Asc);
            let (bytes, next) = read_field(field, order, may_end, &key[pos..])?;
            pos += next;
            Some(bytes)
        };
        let bytes = bytes.unwrap_or_default();
        values.push(match ty {
            Type::Int64 => match decode_int64(&bytes) {
                Some((v, n)) if n == bytes.len() => Value::Int64(v),
                _ => {
                    return Err(DecodeError::InvalidValue {
                        field,
                        reason: "not an OrderedCodeBytes Int64",
                    })
                }
            },
            Type::String => Value::String(
                String::from_utf8(bytes).map_err(|_| DecodeError::InvalidUtf8 { field })?,
            ),
            Type::Bytes => Value::Bytes(bytes),
        });
    }
    if !all_empty && pos != key.len() {
        return Err(DecodeError::TrailingBytes {
            count: key.len() - pos,
        });
    }
    // One encoding per value: a key that spells a trailing empty field
    // out, say, is not the key of its values.
    let fields: Vec<(Value, Order)> = values
        .into_iter()
        .zip(schema)
        .map(|(v, &(_, _, order))| (v, order))
        .collect();
    if encode_struct(&fields) != key {
        return Err(DecodeError::InvalidValue {
            field: schema[schema.len() - 1].0,
            reason: "not the canonical OrderedCodeBytes encoding of its values",
        });
    }
    Ok(fields.into_iter().map(|(v, _)| v).collect())
}

#[cfg(feature = "alloc")]
/// Reads one field from the start of `input`: its unescaped bytes and the
/// bytes read, the separator after it included. A field ends at `00 01`
/// (inverted for a descending field), or at the end of the key when it is
/// ascending and `may_end`.
fn read_field(
    field: &'static str,
    order: Order,
    may_end: bool,
    input: &[u8],
) -> Result<(Vec<u8>, usize), DecodeError> {
    let flip = if order == Order::Desc { 0xFF } else { 0x00 };
    let mut out = Vec::new();
    let mut i = 0;
    let mut empty_marker = false;
    loop {
        let Some(&b) = input.get(i) else {
            // The end of the key ends only a last ascending field.
            if may_end && order == Order::Asc && i > 0 {
                return Ok((out, i));
            }
            return Err(if i == 0 {
                DecodeError::UnexpectedEnd {
                    field,
                    needed: 1,
                    available: 0,
                }
            } else {
                DecodeError::MissingTerminator { field }
            });
        };
        let b = b ^ flip;
        if b != 0x00 {
            if empty_marker {
                return Err(DecodeError::InvalidEscape { field, byte: 0x00 });
            }
            out.push(b);
            i += 1;
            continue;
        }
        let Some(&next) = input.get(i + 1) else {
            return Err(DecodeError::MissingTerminator { field });
        };
        match next ^ flip {
            0xFF if !empty_marker => {
                out.push(0x00);
                i += 2;
            }
            // `00 00` is the whole of an empty field.
            0x00 if i == 0 => {
                empty_marker = true;
                i += 2;
            }
            0x01 if i > 0 => return Ok((out, i + 2)),
            byte => return Err(DecodeError::InvalidEscape { field, byte }),
        }
    }
}
