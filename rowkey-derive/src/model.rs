//! The layout model: every decision about the key, made once from the AST.
//!
//! For each field: its codec, width, order, byte direction, whether it can
//! fail to encode, whether it is stored raw to the end of the key, and the
//! type its scan methods take. For the key: its length, its salt and which
//! scans use one bucket. `validate.rs` checks this model and `expand.rs`
//! writes it out; neither decides anything about the layout again. A new
//! key format is a new variant here, not a new branch in `expand.rs`: text
//! keys (`#[rowkey(text, sep = "_")]`) are [`KeyFormat::Text`], with their own
//! codecs and a separator after every field but the last; Bigtable's
//! structured keys (`#[rowkey(ordered_code)]`) are [`KeyFormat::OrderedCode`].

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Ident, Type};

use crate::ast::{self, Input, Kind, Known};
use crate::attr::Hash;

pub struct Model<'a> {
    pub input: &'a Input<'a>,
    /// The path of the runtime crate (`::rowkey_core` unless overridden).
    pub krate: syn::Path,
    pub format: KeyFormat,
    /// `#[rowkey(prefix)]`: the bytes every key starts with (followed by
    /// the separator in a text key), before the salt.
    pub prefix: Option<Vec<u8>>,
    pub salt: Option<Salt>,
    pub fields: Vec<FieldModel<'a>>,
    pub len: Length,
    /// Ordered-code keys: where the trailing ascending strings start, the
    /// fields a key leaves out when they are empty (the field count when
    /// the last field is no such string). Meaningless in other formats.
    pub oc_tail: usize,
}

/// The key format.
#[derive(Clone, PartialEq, Eq)]
pub enum KeyFormat {
    /// KeyFormat v1: big-endian fields, a salt byte, escaped strings.
    Binary,
    /// Text keys: decimal digits and strings joined by `sep`, the salt as
    /// zero-padded bucket digits and `sep`.
    Text { sep: Vec<u8> },
    /// Bigtable's struct `OrderedCodeBytes` encoding: `Int64` and string
    /// fields escaped and joined by `00 01`, trailing empty ascending
    /// strings not written; the prefix a `Bytes` field and the salt an
    /// `Int64` field in front of them.
    OrderedCode,
}

impl KeyFormat {
    /// The separator's length (0 in binary and ordered-code keys).
    pub fn sep_len(&self) -> usize {
        match self {
            KeyFormat::Binary | KeyFormat::OrderedCode => 0,
            KeyFormat::Text { sep } => sep.len(),
        }
    }
}

/// The most buckets of an ordered-code key's salt: its bucket is a one-byte
/// `Int64` (`80 | bucket`), whose values are 0 to 63.
pub const OC_MAX_BUCKETS: u16 = 64;

/// The salt head: its bucket count, hash and the fields it hashes.
pub struct Salt {
    pub buckets: u16,
    pub hash: Hash,
    /// Text keys: the bucket's width in digits (those of `buckets - 1`).
    pub digits: Option<usize>,
    /// Bytes before the first field: 1, or the digits and the separator.
    pub head_len: usize,
    /// Indices of the hashed fields, in key order (all fields without `by`).
    pub by: Vec<usize>,
    /// Every `by` field is fixed-width: `bucket()` needs no heap.
    pub by_fixed: bool,
    /// Some `by` field can fail to encode: `bucket()` is `try_bucket()` only.
    pub by_can_fail: bool,
    /// The `by` fields as runs of adjacent fields `start..end`: the hash
    /// reads one slice of the encoded key per run.
    pub runs: Vec<(usize, usize)>,
}

pub struct FieldModel<'a> {
    pub ident: &'a Ident,
    /// The name without `r#`, for messages, errors and method names.
    pub name: String,
    pub ty: &'a Type,
    pub codec: Codec,
    /// Bytes of separator the field's encoding ends with: every field of a
    /// text key but the last (0 in binary keys).
    pub sep_len: usize,
    /// `Option<T>`: a tag byte before the value.
    pub option: bool,
    /// `#[desc]` or `#[desc_ts]`: the stored bytes sort descending.
    pub desc: bool,
    /// `#[reverse]`: the value's bytes are stored last to first, so the
    /// field's byte order is not its value order (no `range_by_*` on it).
    pub reverse: bool,
    /// `#[reverse_domain]`: a string's dot-separated labels are stored last
    /// to first (`com.example.www`); no `range_by_*` on it either.
    pub reverse_domain: bool,
    pub width: Width,
    /// The width when the field is present: an added field's own width,
    /// which keys written after it was added have.
    pub present_width: Width,
    /// Encoding can fail for some value (a `#[fixed]` string too long, an
    /// unsigned `#[desc_ts]` above `i64::MAX`).
    pub can_fail: bool,
    /// What the scan methods take for this field.
    pub arg: Arg<'a>,
    /// Where errors about this field's generated code point.
    pub span: Span,
    /// A built-in type (integer, float, bool, char, `[u8; N]`, in an
    /// `Option` or not): `explain` shows its value.
    pub builtin: bool,
    /// `#[rowkey(added)]`: a trailing `Option` added after keys were
    /// written; absent at the end of a key, it decodes as `None`.
    pub added: bool,
    /// A timestamp (`#[ts(unit)]`, or a time type the derive knows by
    /// name, in milliseconds): stored as an `i64` of this unit, with the
    /// codec an `i64` field with the same attributes would have.
    pub time: Option<&'static str>,
}

/// A timestamp's unit when `#[ts]` does not give one.
pub const DEFAULT_UNIT: &str = "millis";

/// How one field's value becomes bytes (a codec type of the runtime).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// A `FixedField` type, big-endian with its sign flipped.
    Fixed,
    /// `#[desc_ts]`: `MAX - ts`.
    DescTs,
    /// `#[fixed(len, pad)]` on a string or byte string.
    Padded { len: usize, pad: u8 },
    /// A string or byte string: raw to the end of the key when it is the
    /// last ascending field, escaped and terminated otherwise.
    Var { raw: bool },
    /// Text keys: an integer as `digits` zero-padded decimal digits (after
    /// a sign character when `signed`).
    Dec { digits: usize, signed: bool },
    /// Text keys: a user type's `Decimal` digits (a `KeyField` enum's
    /// discriminant), `digits` wide or its type's `DIGITS`.
    DecUser { digits: Option<usize> },
    /// Text keys: `#[desc_ts]` as `max - ts` in `digits` digits.
    TextDescTs { digits: usize, max: u64 },
    /// Text keys: a string that is not the last field, up to the separator.
    Delimited,
    /// Text keys: a `TextForm` type's fixed-width text (UUID, ULID, IP).
    Chars,
    /// Text keys: a type that has no text form (validate.rs reports it).
    NotText,
    /// Ordered-code keys: an integer as an `Int64` (validate.rs checks that
    /// its every value is one).
    OcInt,
    /// Ordered-code keys: a string or byte string.
    OcStr,
}

/// The width of a field in the key, as far as the derive can tell from the
/// tokens: user types' widths are only known to the compiler.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// Always this many bytes.
    Fixed(usize),
    /// Fixed, but only the compiler knows how wide (a user `FixedField`).
    FixedUnknown,
    /// Variable, at least this many bytes.
    Variable { min: usize },
}

/// The type a scan method takes for a field.
#[derive(Clone, Copy)]
pub enum Arg<'a> {
    /// The field type itself (fixed-width types).
    Value(&'a Type),
    /// `&str` for any string field.
    Str,
    /// `&[u8]` for any byte-string field.
    Bytes,
}

/// The key's length as the derive can compute it.
pub struct Length {
    /// Known bytes (the minimum, for a variable layout).
    pub bytes: usize,
    /// Some field is variable-length.
    pub variable: bool,
    /// Some field's width only the compiler knows: the length limits are
    /// checked by const assertions in the expansion.
    pub unknown: bool,
    /// The longest key, added fields present, where it is bounded (no
    /// variable-length field but added ones of a fixed width); for an
    /// `unknown` layout, the known part of it.
    pub longest: Option<usize>,
    /// "salt 1 + user_id 8 + name >=2", for messages.
    pub parts: String,
    /// The same with added fields at their width when present.
    pub longest_parts: String,
}

impl<'a> Model<'a> {
    pub fn new(input: &'a Input<'a>) -> Model<'a> {
        let n = input.fields.len();
        let format = match (&input.attrs.text, &input.attrs.sep) {
            // `ordered_code` with `text` is reported by validate.rs.
            _ if input.attrs.ordered_code.is_some() => KeyFormat::OrderedCode,
            (Some(_), Some((_, sep))) => KeyFormat::Text { sep: sep.clone() },
            // Without `sep` (reported by validate.rs) a text key is laid out
            // with `_`, so that its fields are still checked.
            (Some(_), None) => KeyFormat::Text { sep: b"_".to_vec() },
            (None, _) => KeyFormat::Binary,
        };
        let mut fields: Vec<FieldModel<'a>> = input
            .fields
            .iter()
            .enumerate()
            .map(|(i, f)| FieldModel::new(f, i + 1 == n, &format))
            .collect();
        let oc_tail = oc_tail(&fields);
        if format == KeyFormat::OrderedCode {
            for (i, f) in fields.iter_mut().enumerate() {
                f.set_oc_width(i, oc_tail);
            }
        }
        let salt = input.attrs.salt.as_ref().map(|s| {
            let by: Vec<usize> = match &s.by {
                // Unknown names are reported by validate.rs.
                Some(names) => {
                    let mut by: Vec<usize> = fields
                        .iter()
                        .enumerate()
                        .filter(|(_, f)| names.iter().any(|b| b == f.ident))
                        .map(|(i, _)| i)
                        .collect();
                    by.dedup();
                    by
                }
                // Added fields are absent from older keys: never hashed.
                None => (0..n).filter(|&i| !fields[i].added).collect(),
            };
            let mut runs: Vec<(usize, usize)> = Vec::new();
            for &i in &by {
                match runs.last_mut() {
                    Some((_, end)) if *end == i => *end = i + 1,
                    _ => runs.push((i, i + 1)),
                }
            }
            let digits = match format {
                KeyFormat::Binary | KeyFormat::OrderedCode => None,
                KeyFormat::Text { .. } => Some(decimal_digits(u64::from(s.buckets.max(1) - 1))),
            };
            let head_len = match format {
                // A one-byte Int64 and its terminator.
                KeyFormat::OrderedCode => 3,
                _ => digits.map_or(1, |d| d + format.sep_len()),
            };
            Salt {
                buckets: s.buckets,
                hash: s.hash,
                head_len,
                digits,
                by_fixed: by.iter().all(|&i| fields[i].is_fixed()),
                // The mod salt reads the value, not its encoding: it
                // cannot fail even where encoding the field can.
                by_can_fail: s.hash != Hash::Mod && by.iter().any(|&i| fields[i].can_fail),
                by,
                runs,
            }
        });
        let prefix = input.attrs.prefix.as_ref().map(|(_, p)| match &format {
            KeyFormat::Binary => p.clone(),
            KeyFormat::Text { sep } => [p.as_slice(), sep].concat(),
            // A `Bytes` field: escaped and terminated. (The derive cannot call
            // rowkey-core's escaping; FORMAT.md and the golden vector
            // `oc_tagged`, a prefix with a zero byte, pin the two to the same bytes.)
            KeyFormat::OrderedCode => {
                let mut out = Vec::with_capacity(2 * p.len() + 2);
                for &b in p {
                    out.push(b);
                    if b == 0 {
                        out.push(0xFF);
                    }
                }
                out.extend_from_slice(&[0x00, 0x01]);
                out
            }
        });
        let prefix_len = prefix.as_ref().map_or(0, Vec::len);
        let len = Length::of(prefix_len, salt.as_ref().map_or(0, |s| s.head_len), &fields);
        Model {
            prefix,
            input,
            krate: input.attrs.crate_path.clone().unwrap_or_else(default_crate),
            format,
            salt,
            fields,
            len,
            oc_tail,
        }
    }

    pub fn is_ordered_code(&self) -> bool {
        self.format == KeyFormat::OrderedCode
    }

    /// Ordered-code keys: the first field that may be the last a key
    /// writes (every field from it on is either that field or a trailing
    /// ascending string that is empty, and so not written). `None` for
    /// other formats.
    pub fn oc_may_end_from(&self) -> Option<usize> {
        self.is_ordered_code()
            .then(|| self.oc_tail.saturating_sub(1))
    }

    /// Every field is fixed-width: `LEN`, `try_encode` and no heap.
    pub fn all_fixed(&self) -> bool {
        self.fields.iter().all(FieldModel::is_fixed)
    }

    /// Some field of the first `k` can fail to encode: the scans over them
    /// return `Result`.
    pub fn can_fail(&self, k: usize) -> bool {
        self.fields[..k].iter().any(|f| f.can_fail)
    }

    /// The bytes before the first field (the salt byte, or a text key's
    /// bucket digits and separator).
    pub fn head_len(&self) -> usize {
        self.prefix_len() + self.salt.as_ref().map_or(0, |s| s.head_len)
    }

    /// The family prefix's bytes (where the salt starts).
    pub fn prefix_len(&self) -> usize {
        self.prefix.as_ref().map_or(0, Vec::len)
    }

    pub fn is_text(&self) -> bool {
        matches!(self.format, KeyFormat::Text { .. })
    }

    /// The fields every key has: all but the trailing `#[rowkey(added)]`
    /// ones, which have no scan methods.
    pub fn key_fields(&self) -> usize {
        self.fields.iter().take_while(|f| !f.added).count()
    }

    /// A scan fixing the first `k` fields reads one bucket: the salt hashes
    /// only fields among them.
    pub fn one_bucket(&self, k: usize) -> bool {
        self.salt
            .as_ref()
            .is_some_and(|s| s.by.iter().all(|&i| i < k))
    }
}

pub fn default_crate() -> syn::Path {
    syn::parse_quote!(::rowkey_core)
}

impl<'a> FieldModel<'a> {
    fn new(field: &'a ast::Field<'a>, last: bool, format: &KeyFormat) -> FieldModel<'a> {
        let a = &field.attrs;
        let shape = &field.shape;
        let known = ast::known(shape.inner);
        let time = match &a.ts {
            Some(ts) => Some(ts.unit),
            None if known == Some(Known::Time) && shape.kind == Kind::Fixed => Some(DEFAULT_UNIT),
            None => None,
        };
        // A timestamp is an i64 of its unit from here on.
        let int = match time {
            Some(_) => Some(ast::i64_int()),
            None => ast::int_type(shape.inner),
        };
        let builtin = match time {
            Some(_) => Some(8),
            None => builtin_width(shape.inner),
        };
        let padded = a.fixed.as_ref().map(|f| Codec::Padded {
            len: f.len,
            pad: f.pad,
        });
        let codec = match (format, shape.kind) {
            (KeyFormat::Binary, Kind::Fixed) if a.desc_ts.is_some() => Codec::DescTs,
            (KeyFormat::Binary, Kind::Fixed) => Codec::Fixed,
            // Only the last ascending field may run to the end of the key:
            // a descending one needs its terminator to sort.
            // An added field is never raw: a field added after it later
            // must not change its bytes.
            (KeyFormat::Binary, Kind::Var(_)) => padded.unwrap_or(Codec::Var {
                raw: last && a.desc.is_none() && a.added.is_none(),
            }),
            (KeyFormat::Text { .. }, Kind::Fixed) => match int {
                Some(int) if a.desc_ts.is_some() => {
                    let max = a.desc_ts_max.as_ref().map_or(int.ts_max(), |(_, m)| *m);
                    Codec::TextDescTs {
                        digits: a.digits.as_ref().map_or(decimal_digits(max), |d| d.n),
                        max,
                    }
                }
                Some(int) => Codec::Dec {
                    digits: a.digits.as_ref().map_or(int.digits, |d| d.n),
                    signed: int.signed,
                },
                None if builtin.is_some() => Codec::NotText,
                None if known == Some(Known::TextForm) => Codec::Chars,
                None => Codec::DecUser {
                    digits: a.digits.as_ref().map(|d| d.n),
                },
            },
            (KeyFormat::Text { .. }, Kind::Var(v)) if v.text => match padded {
                Some(p) => p,
                None if last => Codec::Var { raw: true },
                None => Codec::Delimited,
            },
            (KeyFormat::Text { .. }, Kind::Var(_)) => Codec::NotText,
            (KeyFormat::OrderedCode, Kind::Fixed) => Codec::OcInt,
            (KeyFormat::OrderedCode, Kind::Var(_)) => Codec::OcStr,
        };
        let can_fail = match codec {
            // Finer than its unit, or out of range.
            _ if time.is_some() => true,
            Codec::DescTs => ast::timestamp_int(shape.inner).is_some_and(|n| n.starts_with('u')),
            Codec::Padded { .. } | Codec::Delimited => true,
            Codec::Dec { digits, .. } => int.map_or(true, |t| digits < t.digits),
            // A user's `Decimal` (not a built-in integer) may have more
            // digits than its `DIGITS` says: checked, never trusted.
            Codec::DecUser { .. } => true,
            // Negative, or above `max`.
            Codec::TextDescTs { max, .. } => int.map_or(true, |t| t.signed || max < t.max),
            Codec::Fixed
            | Codec::Var { .. }
            | Codec::Chars
            | Codec::NotText
            | Codec::OcInt
            | Codec::OcStr => false,
        };
        // The separator ends every field of a text key but the last.
        let sep_len = if last { 0 } else { format.sep_len() };
        let tag = usize::from(shape.option);
        let present_width = match codec {
            Codec::Padded { len, .. } => Width::Fixed(len + tag + sep_len),
            // An Option's None is the tag alone; an escaped value has at
            // least its two-byte terminator.
            Codec::Var { raw } => Width::Variable {
                min: tag + if shape.option || raw { 0 } else { 2 },
            },
            Codec::Fixed | Codec::DescTs => {
                builtin.map_or(Width::FixedUnknown, |w| Width::Fixed(w + tag))
            }
            Codec::Dec { digits, signed } => Width::Fixed(digits + usize::from(signed) + sep_len),
            Codec::DecUser { .. } | Codec::Chars => Width::FixedUnknown,
            Codec::TextDescTs { digits, .. } => Width::Fixed(digits + sep_len),
            Codec::Delimited => Width::Variable { min: sep_len },
            Codec::NotText => Width::Fixed(0),
            // Set by the model, which knows the field's place.
            Codec::OcInt | Codec::OcStr => Width::Variable { min: 0 },
        };
        let width = if a.added.is_some() {
            // Absent from keys written before it was added.
            Width::Variable { min: 0 }
        } else {
            present_width
        };
        let arg = match shape.kind {
            Kind::Fixed => Arg::Value(shape.inner),
            Kind::Var(v) if v.text => Arg::Str,
            Kind::Var(_) => Arg::Bytes,
        };
        FieldModel {
            ident: field.ident,
            name: field.ident.unraw().to_string(),
            present_width,
            ty: &field.original.ty,
            codec,
            sep_len,
            option: shape.option,
            desc: a.desc.is_some() || a.desc_ts.is_some(),
            reverse: a.reverse.is_some(),
            reverse_domain: a.reverse_domain.is_some(),
            width,
            can_fail,
            arg,
            span: field.original.ty.span(),
            builtin: time.is_none() && builtin.is_some(),
            added: a.added.is_some(),
            time,
        }
    }

    /// An ordered-code field's width, `i` of a key whose trailing
    /// ascending strings start at `tail`: the fewest bytes it takes in a
    /// key. A field before the last a key may write is terminated; the
    /// last may end at the key's end (an ascending `Int64` of one byte);
    /// a trailing ascending string may not be written at all.
    fn set_oc_width(&mut self, i: usize, tail: usize) {
        let terminated = match self.codec {
            Codec::OcInt => 3,
            _ => 4,
        };
        let min = if i >= tail {
            0
        } else if i + 1 == tail && !self.desc {
            1
        } else {
            terminated
        };
        self.width = Width::Variable { min };
        self.present_width = self.width;
    }

    /// An ordered-code field that a key leaves out when it and every field
    /// after it are empty ascending strings.
    pub fn oc_droppable(&self) -> bool {
        self.codec == Codec::OcStr && !self.desc
    }

    pub fn is_fixed(&self) -> bool {
        !matches!(self.width, Width::Variable { .. })
    }

    /// A range over this field is a range of keys: not for `#[reverse]`,
    /// whose bytes do not sort by value (no `range_by_*` ends with it).
    ///
    /// Nor for a text key's delimited string: `"ab0_"` sorts before
    /// `"ab_"` though `"ab" < "ab0"`, because `0` sorts below `_`; so its
    /// bytes sort by value only for values without bytes below the
    /// separator, and rowkey generates no range that could be wrong.
    pub fn has_range(&self) -> bool {
        !self.reverse && !self.reverse_domain && self.codec != Codec::Delimited
    }

    /// Stored raw to the end of the key: an equality scan on every field
    /// selects exactly one key.
    pub fn is_raw(&self) -> bool {
        self.codec == Codec::Var { raw: true }
    }
}

impl Length {
    fn of(prefix: usize, head: usize, fields: &[FieldModel<'_>]) -> Length {
        let mut len = Length {
            bytes: prefix + head,
            variable: false,
            unknown: false,
            longest: Some(prefix + head),
            parts: String::new(),
            longest_parts: String::new(),
        };
        let mut parts = Vec::new();
        if prefix > 0 {
            parts.push(format!("prefix {prefix}"));
        }
        if head > 0 {
            parts.push(format!("salt {head}"));
        }
        let mut longest_parts = parts.clone();
        for f in fields {
            longest_parts.push(match f.present_width {
                Width::Fixed(w) => format!("{} {w}", f.name),
                Width::FixedUnknown => format!("{} ?", f.name),
                Width::Variable { min } => format!("{} >={min}", f.name),
            });
        }
        len.longest_parts = longest_parts.join(" + ");
        for f in fields {
            let name = &f.name;
            len.longest = match (len.longest, f.present_width) {
                (Some(n), Width::Fixed(w)) => Some(n + w),
                (Some(n), Width::FixedUnknown) => Some(n),
                _ => None,
            };
            match f.width {
                Width::Fixed(w) => {
                    len.bytes += w;
                    parts.push(format!("{name} {w}"));
                }
                Width::FixedUnknown => {
                    len.unknown = true;
                    parts.push(format!("{name} ?"));
                }
                Width::Variable { min } => {
                    len.bytes += min;
                    len.variable = true;
                    parts.push(format!("{name} >={min}"));
                }
            }
        }
        len.parts = parts.join(" + ");
        len
    }
}

/// Where an ordered-code key's trailing ascending strings start.
fn oc_tail(fields: &[FieldModel<'_>]) -> usize {
    fields.len() - fields.iter().rev().take_while(|f| f.oc_droppable()).count()
}

/// Bytes of the built-in fixed-width types.
pub fn builtin_width(ty: &Type) -> Option<usize> {
    const WIDTHS: &[(&str, usize)] = &[
        ("u8", 1),
        ("i8", 1),
        ("bool", 1),
        ("u16", 2),
        ("i16", 2),
        ("u32", 4),
        ("i32", 4),
        ("f32", 4),
        ("char", 4),
        ("u64", 8),
        ("i64", 8),
        ("f64", 8),
        ("u128", 16),
        ("i128", 16),
    ];
    if let Some((_, w)) = WIDTHS.iter().find(|(name, _)| ast::is_ident(ty, name)) {
        return Some(*w);
    }
    // [u8; N] with a literal N.
    if let Type::Array(a) = ast::peel(ty) {
        if let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) = &a.len
        {
            if ast::is_ident(&a.elem, "u8") {
                return n.base10_parse().ok();
            }
        }
    }
    None
}

/// The number of decimal digits of `n` (1 for 0).
pub fn decimal_digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |l| l as usize + 1)
}
