//! The layout model: every decision about the key, made once from the AST.
//!
//! For each field: its codec, width, order, byte direction, whether it can
//! fail to encode, whether it is stored raw to the end of the key, and the
//! type its scan methods take. For the key: its length, its salt and which
//! scans use one bucket. `validate.rs` checks this model and `expand.rs`
//! writes it out; neither decides anything about the layout again. A new
//! key format is a new variant here, not a new branch in `expand.rs`.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Ident, Type};

use crate::ast::{self, Input, Kind};
use crate::attr::Hash;

pub struct Layout<'a> {
    pub input: &'a Input<'a>,
    /// The path of the runtime crate (`::rowkey_core` unless overridden).
    pub krate: syn::Path,
    pub salt: Option<Salt>,
    pub fields: Vec<Field<'a>>,
    pub len: Length,
}

/// The salt byte: its bucket count, hash and the fields it hashes.
pub struct Salt {
    pub buckets: u16,
    pub hash: Hash,
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

pub struct Field<'a> {
    pub ident: &'a Ident,
    /// The name without `r#`, for messages, errors and method names.
    pub name: String,
    pub ty: &'a Type,
    pub codec: Codec,
    /// `Option<T>`: a tag byte before the value.
    pub option: bool,
    /// `#[desc]` or `#[desc_ts]`: the stored bytes sort descending.
    pub desc: bool,
    /// `#[reverse]`: the value's bytes are stored last to first, so the
    /// field's byte order is not its value order (no `range_by_*` on it).
    pub reverse: bool,
    pub width: Width,
    /// Encoding can fail for some value (a `#[fixed]` string too long, an
    /// unsigned `#[desc_ts]` above `i64::MAX`).
    pub can_fail: bool,
    /// What the scan methods take for this field.
    pub arg: Arg<'a>,
    /// Where errors about this field's generated code point.
    pub span: Span,
}

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
    /// "salt 1 + user_id 8 + name >=2", for messages.
    pub parts: String,
}

impl<'a> Layout<'a> {
    pub fn new(input: &'a Input<'a>) -> Layout<'a> {
        let n = input.fields.len();
        let fields: Vec<Field<'a>> = input
            .fields
            .iter()
            .enumerate()
            .map(|(i, f)| Field::new(f, i + 1 == n))
            .collect();
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
                None => (0..n).collect(),
            };
            let mut runs: Vec<(usize, usize)> = Vec::new();
            for &i in &by {
                match runs.last_mut() {
                    Some((_, end)) if *end == i => *end = i + 1,
                    _ => runs.push((i, i + 1)),
                }
            }
            Salt {
                buckets: s.buckets,
                hash: s.hash,
                by_fixed: by.iter().all(|&i| fields[i].is_fixed()),
                by_can_fail: by.iter().any(|&i| fields[i].can_fail),
                by,
                runs,
            }
        });
        let len = Length::of(salt.is_some(), &fields);
        Layout {
            input,
            krate: input.attrs.crate_path.clone().unwrap_or_else(default_crate),
            salt,
            fields,
            len,
        }
    }

    /// Every field is fixed-width: `LEN`, `try_encode` and no heap.
    pub fn all_fixed(&self) -> bool {
        self.fields.iter().all(Field::is_fixed)
    }

    /// Some field of the first `k` can fail to encode: the scans over them
    /// return `Result`.
    pub fn can_fail(&self, k: usize) -> bool {
        self.fields[..k].iter().any(|f| f.can_fail)
    }

    /// The bytes before the first field (the salt byte).
    pub fn head_len(&self) -> usize {
        usize::from(self.salt.is_some())
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

impl<'a> Field<'a> {
    fn new(field: &'a ast::Field<'a>, last: bool) -> Field<'a> {
        let a = &field.attrs;
        let shape = &field.shape;
        let codec = match shape.kind {
            Kind::Fixed if a.desc_ts.is_some() => Codec::DescTs,
            Kind::Fixed => Codec::Fixed,
            Kind::Var(_) => match &a.fixed {
                Some(f) => Codec::Padded {
                    len: f.len,
                    pad: f.pad,
                },
                // Only the last ascending field may run to the end of the
                // key: a descending one needs its terminator to sort.
                None => Codec::Var {
                    raw: last && a.desc.is_none(),
                },
            },
        };
        let can_fail = match codec {
            Codec::DescTs => ast::timestamp_int(shape.inner).is_some_and(|n| n.starts_with('u')),
            Codec::Padded { .. } => true,
            Codec::Fixed | Codec::Var { .. } => false,
        };
        let tag = usize::from(shape.option);
        let width = match codec {
            Codec::Padded { len, .. } => Width::Fixed(len + tag),
            // An Option's None is the tag alone; an escaped value has at
            // least its two-byte terminator.
            Codec::Var { raw } => Width::Variable {
                min: tag + if shape.option || raw { 0 } else { 2 },
            },
            Codec::Fixed | Codec::DescTs => {
                builtin_width(shape.inner).map_or(Width::FixedUnknown, |w| Width::Fixed(w + tag))
            }
        };
        let arg = match shape.kind {
            Kind::Fixed => Arg::Value(shape.inner),
            Kind::Var(v) if v.text => Arg::Str,
            Kind::Var(_) => Arg::Bytes,
        };
        Field {
            ident: field.ident,
            name: field.ident.unraw().to_string(),
            ty: &field.original.ty,
            codec,
            option: shape.option,
            desc: a.desc.is_some() || a.desc_ts.is_some(),
            reverse: a.reverse.is_some(),
            width,
            can_fail,
            arg,
            span: field.original.ty.span(),
        }
    }

    pub fn is_fixed(&self) -> bool {
        !matches!(self.width, Width::Variable { .. })
    }

    /// A range over this field is a range of keys: not for `#[reverse]`,
    /// whose bytes do not sort by value (no `range_by_*` ends with it).
    pub fn has_range(&self) -> bool {
        !self.reverse
    }

    /// Stored raw to the end of the key: an equality scan on every field
    /// selects exactly one key.
    pub fn is_raw(&self) -> bool {
        self.codec == Codec::Var { raw: true }
    }
}

impl Length {
    fn of(salted: bool, fields: &[Field<'_>]) -> Length {
        let mut len = Length {
            bytes: usize::from(salted),
            variable: false,
            unknown: false,
            parts: String::new(),
        };
        let mut parts = Vec::new();
        if salted {
            parts.push("salt 1".to_string());
        }
        for f in fields {
            let name = &f.name;
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

/// Bytes of the built-in fixed-width types.
fn builtin_width(ty: &Type) -> Option<usize> {
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
