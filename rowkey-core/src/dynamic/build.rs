//! Building a [`DynLayout`] from a parsed layout ([`Spec`]): each field's
//! codec operations, the salt and the prefix, a family's members, all
//! checked against the text (its widths and tail) before use.

use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::model::DynLayout;
use super::ops::{self, Dir, Ops};
use super::ordered_code;
use super::parse::{
    self, check_width, normalize_type, EnumSpec, FieldSpec, LayoutError, Spec, Width,
};
use super::scalar::{Leak, Scalar};
use crate::format::salt::Head;
use crate::layout::{Encoding, FieldLayout, FieldWidth, Format, Layout, SaltHashKind, SaltLayout};

/// The layout of a parsed text, checked in a first pass that keeps
/// nothing ([`Leak::Check`]), so a refused text leaves nothing behind, then
/// built to keep.
pub(crate) fn build(spec: Spec) -> Result<DynLayout, LayoutError> {
    check(&spec)?;
    keep(&spec)
}

/// Every check [`build`] makes, keeping nothing.
pub(crate) fn check(spec: &Spec) -> Result<(), LayoutError> {
    parse::check_spec(spec)?;
    assemble(spec, Leak::Check).map(|_| ())
}

/// The layout of a text that [`check`] passed (the same code, keeping
/// what it makes, so it builds).
pub(crate) fn keep(spec: &Spec) -> Result<DynLayout, LayoutError> {
    assemble(spec, Leak::Keep)?
        .ok_or_else(|| LayoutError::field("layout", "a kept build gives its layout"))
}

/// Every part of the layout of `spec`, checked; the layout itself when
/// `leak` keeps it (`None` when it only checks).
fn assemble(spec: &Spec, leak: Leak) -> Result<Option<DynLayout>, LayoutError> {
    let sep: Option<&'static str> = match &spec.text_sep {
        None => None,
        Some((at, sep)) => {
            if sep.is_empty() || !sep.bytes().all(|b| b.is_ascii_graphic() || b == b' ') {
                return Err(LayoutError::new(
                    *at,
                    "format",
                    format!("the separator {sep:?} is not one or more printable ASCII characters"),
                ));
            }
            Some(leak.sep(sep))
        }
    };
    if let (Some(at), Some(_)) = (spec.ordered_code, &spec.text_sep) {
        return Err(LayoutError::new(
            at,
            "format",
            "`ordered_code` and `text(...)` are two key formats: keep one",
        ));
    }
    let n = spec.fields.len();
    let mut fields = Vec::with_capacity(n);
    let mut ops = Vec::with_capacity(n);
    let mut scalars = Vec::with_capacity(n);
    let mut oc = None;
    if spec.ordered_code.is_some() {
        let built = ordered_code::fields(spec, leak)?;
        ordered_code::check_head(spec, &built.rt)?;
        (fields, ops, scalars, oc) = (built.layouts, built.ops, built.scalars, Some(built.rt));
    }
    for (i, f) in spec.fields.iter().enumerate().filter(|_| oc.is_none()) {
        let last = i + 1 == n;
        let (layout, o, s) = match sep {
            Some(sep) => text_field(f, last, sep.as_bytes(), leak)?,
            None => field(f, last, leak)?,
        };
        fields.push(layout);
        ops.push(o);
        scalars.push(s);
    }
    if let Some((at, bytes, width)) = &spec.prefix {
        if let Some(w) = width.filter(|w| *w != bytes.len()) {
            return Err(LayoutError::new(
                *at,
                "prefix",
                format!(
                    "the text gives width {w}, but the prefix is {} bytes",
                    bytes.len()
                ),
            ));
        }
    }
    let prefix_len = spec.prefix.as_ref().map_or(0, |(_, bytes, _)| bytes.len());
    // The salt's fields by index, in key order (check_spec found each `by`
    // name among the fields, none added): all but the added ones when none
    // is named.
    let mut by: Vec<usize> = Vec::new();
    let mut salt = None;
    if let Some(s) = &spec.salt {
        by =
            s.by.iter()
                .filter_map(|(_, name)| spec.fields.iter().position(|f| &f.name == name))
                .collect();
        if by.is_empty() {
            by = (0..n).filter(|&i| !spec.fields[i].added).collect();
        }
        by.sort_unstable();
        by.dedup();
        if s.hash == SaltHashKind::Mod && (by.len() != 1 || ops[by[0]].modulo.is_none()) {
            return Err(LayoutError::new(
                s.at,
                "salt",
                "a `mod` salt takes one unsigned integer field",
            ));
        }
        // A text key's bucket is the digits of buckets - 1, then the
        // separator.
        let head = match sep {
            None if oc.is_some() => Head::OrderedCode,
            None => Head::Byte,
            Some(sep) => Head::Text {
                digits: decimal_digits(u64::from(s.buckets.max(1) - 1)) as u8,
                sep: sep.as_bytes(),
            },
        };
        if let Some(w) = s.width.filter(|&w| w != head.len()) {
            return Err(LayoutError::new(
                s.at,
                "salt",
                format!(
                    "the text gives width {w}, but the salt is {} bytes",
                    head.len()
                ),
            ));
        }
        salt = Some((s, head));
    }
    if let Some((at, tail)) = spec.tail {
        let head_len = prefix_len + salt.as_ref().map_or(0, |(_, head)| head.len());
        let actual = match crate::layout::struct_lens(head_len, &fields) {
            (Some(n), _) => Width::Fixed(n),
            (None, min) => Width::AtLeast(min),
        };
        if tail != actual {
            return Err(LayoutError::new(
                at,
                "tail",
                format!(
                    "the text says {} bytes, but the parts make {} bytes",
                    show_tail(tail),
                    show_tail(actual)
                ),
            ));
        }
    }
    // Every check is done: what follows keeps the layout.
    if leak == Leak::Check {
        return Ok(None);
    }
    let prefix: &'static [u8] = leak.slice(
        spec.prefix
            .as_ref()
            .map_or_else(Vec::new, |(_, bytes, _)| bytes.clone()),
    );
    let salt = salt.map(|(s, head)| {
        let names = leak.slice(by.iter().map(|&i| fields[i].name()).collect());
        SaltLayout::from_parts(s.buckets, s.hash, names, head)
    });
    let fields: &'static [FieldLayout] = leak.slice(fields);
    let name = spec.name.as_deref().map_or("DynLayout", |n| leak.str(n));
    let format = match sep {
        None if oc.is_some() => Format::OrderedCode,
        None => Format::Binary,
        Some(sep) => Format::Text { sep },
    };
    let layout: &'static Layout =
        Box::leak(Box::new(Layout::__new(name, format, prefix, salt, fields)));
    Ok(Some(DynLayout {
        layout,
        ops,
        scalars,
        members: Vec::new(),
        by,
        oc,
        capacity: layout.fixed_len().unwrap_or(layout.min_len() + 16),
        has_added: fields.iter().any(FieldLayout::is_added),
    }))
}

/// An ASCII identifier: what every generated language takes as a type's
/// name, and what may become a file's name (`kind_enum.go`).
fn is_type_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A Rust type as a layout names an opaque one (`Sku`, `ids::Sku`,
/// `[u8; 3]`): ASCII letters, digits, spaces and Rust's type punctuation,
/// never a path separator of a file system, a quote or a control
/// character.
fn is_type_path(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || " _:<>[];,&'()".contains(c))
}

fn show_tail(w: Width) -> String {
    match w {
        Width::Fixed(n) => format!("= {n}"),
        Width::AtLeast(n) => format!(">= {n}"),
    }
}

/// A field's descriptor and operations, as the derive would make them.
fn field(f: &FieldSpec, last: bool, leak: Leak) -> Result<(FieldLayout, Ops, Scalar), LayoutError> {
    let part = format!("field `{}`", f.name);
    let err = |m: String| LayoutError::new(f.at, part.clone(), m);
    if f.digits.is_some() || f.desc_ts_max.is_some() {
        return Err(err(
            "`digits(N)` and `desc_ts(max = N)` are a text key's attributes (text(\"_\") [...])"
                .into(),
        ));
    }
    let norm = normalize_type(&f.ty);
    let (option, inner) = match norm
        .strip_prefix("Option<")
        .and_then(|r| r.strip_suffix('>'))
    {
        Some(inner) => (true, inner.to_owned()),
        None => (false, norm.clone()),
    };
    if f.added && !option {
        return Err(err(
            "an `added` field is an Option (older keys decode it as None)".into(),
        ));
    }
    if f.reverse && f.reverse_domain {
        return Err(err("`reverse` and `reverse_domain` together".into()));
    }
    let dir = if f.reverse {
        Dir::Rev
    } else if f.reverse_domain {
        Dir::Dom
    } else {
        Dir::Fwd
    };
    if let Some(e) = &f.key_field {
        return enum_field(f, e, (option, &inner), dir, leak);
    }
    // A timestamp is stored as the i64 of its unit.
    let scalar = if f.unit.is_some() {
        Scalar::I64
    } else {
        match Scalar::of(&inner) {
            Some(s) => s,
            None => match f.width {
                Some(Width::Fixed(w)) if !option && is_type_path(&inner) => Scalar::Opaque(w),
                Some(Width::Fixed(_)) if !option => {
                    return Err(err(format!(
                        "`{inner}` is not a type's name: a Rust type (ASCII letters, digits, `_` and `::<>[];,&'()`)"
                    )))
                }
                _ => {
                    return Err(err(format!(
                        "`{}` is not a type the runtime knows: give its width (as in [{} {} 16]) to read it as opaque bytes{}",
                        f.ty,
                        f.name,
                        f.ty,
                        if option { ", outside an Option" } else { "" }
                    )))
                }
            },
        }
    };
    if f.reverse_domain && !scalar.is_var() {
        return Err(err("`reverse_domain` is for strings".into()));
    }
    if f.fixed.is_some() && !scalar.is_var() {
        return Err(err("`fixed(N)` is for strings and byte strings".into()));
    }
    if f.desc_ts && f.desc {
        return Err(err("`desc` and `desc_ts` together".into()));
    }
    let (encoding, ops) = match (scalar, f.fixed) {
        (s, Some((len, pad))) => {
            let ops = match (s, option) {
                (Scalar::Str, false) => ops::padded::<String>(len, dir),
                (_, false) => ops::padded::<Vec<u8>>(len, dir),
                (Scalar::Str, true) => ops::padded_option::<String>(len, dir),
                (_, true) => ops::padded_option::<Vec<u8>>(len, dir),
            };
            (
                Encoding::Padded {
                    len,
                    pad,
                    desc: f.desc,
                },
                ops,
            )
        }
        (Scalar::Str | Scalar::Bytes, None) => {
            if f.desc_ts {
                return Err(err("`desc_ts` is for integers and timestamps".into()));
            }
            let raw = last && !f.desc && !f.added;
            let ops = match scalar {
                Scalar::Str => ops::var::<String>(raw, f.desc, dir, option, f.added),
                _ => ops::var::<Vec<u8>>(raw, f.desc, dir, option, f.added),
            };
            let enc = if raw {
                Encoding::Raw
            } else {
                Encoding::Escaped { desc: f.desc }
            };
            (enc, ops)
        }
        (s, None) if f.desc_ts => {
            let ops = match s {
                Scalar::I64 => ops::desc_ts::<i64>(option, f.added),
                Scalar::U64 => ops::desc_ts::<u64>(option, f.added),
                Scalar::I32 => ops::desc_ts::<i32>(option, f.added),
                Scalar::U32 => ops::desc_ts::<u32>(option, f.added),
                _ => {
                    return Err(err(format!(
                        "`desc_ts` takes i64, u64, i32, u32 or a timestamp, not `{}`",
                        f.ty
                    )))
                }
            };
            if f.reverse {
                return Err(err("`reverse` with `desc_ts`".into()));
            }
            (Encoding::DescTs, ops)
        }
        (s, None) => {
            let (d, o, a) = (f.desc, option, f.added);
            let ops = match s {
                Scalar::Bool => ops::fixed::<bool>(d, dir, o, a),
                Scalar::U8 => ops::unsigned::<u8>(d, dir, o, a),
                Scalar::U16 => ops::unsigned::<u16>(d, dir, o, a),
                Scalar::U32 => ops::unsigned::<u32>(d, dir, o, a),
                Scalar::U64 => ops::unsigned::<u64>(d, dir, o, a),
                Scalar::U128 => ops::unsigned::<u128>(d, dir, o, a),
                Scalar::I8 => ops::fixed::<i8>(d, dir, o, a),
                Scalar::I16 => ops::fixed::<i16>(d, dir, o, a),
                Scalar::I32 => ops::fixed::<i32>(d, dir, o, a),
                Scalar::I64 => ops::fixed::<i64>(d, dir, o, a),
                Scalar::I128 => ops::fixed::<i128>(d, dir, o, a),
                Scalar::F32 => ops::fixed::<f32>(d, dir, o, a),
                Scalar::F64 => ops::fixed::<f64>(d, dir, o, a),
                Scalar::Char => ops::fixed::<char>(d, dir, o, a),
                Scalar::Opaque(w) => {
                    if option {
                        return Err(err(
                            "a run-time layout reads no opaque type inside an Option".into(),
                        ));
                    }
                    ops::opaque(w)
                }
                Scalar::Str | Scalar::Bytes => unreachable!("matched above"),
                s => match s {
                    Scalar::Ipv4 => ops::known::<core::net::Ipv4Addr>(d, dir, o, a),
                    Scalar::Ipv6 => ops::known::<core::net::Ipv6Addr>(d, dir, o, a),
                    #[cfg(feature = "uuid")]
                    Scalar::Uuid => ops::known::<uuid::Uuid>(d, dir, o, a),
                    #[cfg(feature = "ulid")]
                    Scalar::Ulid => ops::known::<ulid::Ulid>(d, dir, o, a),
                    _ => ops::known::<core::net::IpAddr>(d, dir, o, a),
                },
            };
            (Encoding::BigEndian { desc: f.desc }, ops)
        }
    };
    // A time type the runtime knows: decoded and explained through it.
    let ops = match f.unit {
        Some(unit) => {
            let inner = if option {
                inner.as_str()
            } else {
                norm.as_str()
            };
            let how = TimeHow {
                desc_ts: f.desc_ts,
                desc: f.desc,
                dir,
                option,
                added: f.added,
                text: false,
            };
            known_time(inner, ops, unit, how)
        }
        None => ops,
    };
    check_width(f, ops.width)?;
    // The type as far as the bytes go, as the derive names it.
    let kind = match scalar {
        Scalar::Str if option => "Option<str>".to_owned(),
        Scalar::Str => "str".to_owned(),
        Scalar::Bytes if option => "Option<bytes>".to_owned(),
        Scalar::Bytes => "bytes".to_owned(),
        _ => f.ty.clone(),
    };
    let mut layout = FieldLayout::__new(
        leak.str(&f.name),
        leak.str(&f.ty),
        leak.str(&kind),
        encoding,
        ops.width,
        [option, f.added, f.reverse, f.reverse_domain],
        0,
        Some(ops.read),
    );
    if let Some(unit) = f.unit {
        layout = layout.__unit(unit);
    }
    Ok((layout, ops, scalar))
}

/// A `#[derive(KeyField)]` enum field of a binary key: its repr integer
/// as the derive stores it (`Fixed`, under `desc`/`reverse`, in an
/// `Option` or added), only its variants' discriminants being values.
/// `field` checked what every field's text must be (`option`, `inner`).
fn enum_field(
    f: &FieldSpec,
    e: &EnumSpec,
    (option, inner): (bool, &str),
    dir: Dir,
    leak: Leak,
) -> Result<(FieldLayout, Ops, Scalar), LayoutError> {
    if !is_type_name(inner) {
        return Err(LayoutError::new(
            f.at,
            format!("field `{}`", f.name),
            format!(
                "`{inner}` is not an enum's name: a name is ASCII letters, digits and `_`, not starting with a digit"
            ),
        ));
    }
    if f.fixed.is_some() || f.desc_ts || f.reverse_domain || f.unit.is_some() {
        return Err(LayoutError::new(
            f.at,
            format!("field `{}`", f.name),
            "a KeyField enum takes `desc`, `reverse` and `added` (fixed, desc_ts, reverse_domain and ts are for strings and timestamps)",
        ));
    }
    let (d, o, a) = (f.desc, option, f.added);
    let (ops, scalar) = match e.repr.as_str() {
        "u8" => (ops::key_field::<u8>(d, dir, o, a), Scalar::U8),
        "u16" => (ops::key_field::<u16>(d, dir, o, a), Scalar::U16),
        "u32" => (ops::key_field::<u32>(d, dir, o, a), Scalar::U32),
        "u64" => (ops::key_field::<u64>(d, dir, o, a), Scalar::U64),
        "u128" => (ops::key_field::<u128>(d, dir, o, a), Scalar::U128),
        "i8" => (ops::key_field::<i8>(d, dir, o, a), Scalar::I8),
        "i16" => (ops::key_field::<i16>(d, dir, o, a), Scalar::I16),
        "i32" => (ops::key_field::<i32>(d, dir, o, a), Scalar::I32),
        "i64" => (ops::key_field::<i64>(d, dir, o, a), Scalar::I64),
        _ => (ops::key_field::<i128>(d, dir, o, a), Scalar::I128),
    };
    check_width(f, ops.width)?;
    let info = key_field_info(inner, e, leak);
    let layout = FieldLayout::__new(
        leak.str(&f.name),
        leak.str(&f.ty),
        leak.str(&f.ty),
        Encoding::BigEndian { desc: f.desc },
        ops.width,
        [option, f.added, f.reverse, false],
        0,
        Some(ops.read),
    )
    .__key_field(Some(info));
    Ok((layout, ops, scalar))
}

/// The descriptor's [`KeyFieldInfo`](crate::KeyFieldInfo) of an enum
/// `ty` (its name is the last segment of its path), with the derive's
/// error for a discriminant of no variant.
fn key_field_info(ty: &str, e: &EnumSpec, leak: Leak) -> crate::KeyFieldInfo {
    let name = ty.rsplit("::").next().unwrap_or(ty).to_owned();
    let variants: Vec<(&'static str, i128)> =
        e.variants.iter().map(|(n, d)| (leak.str(n), *d)).collect();
    crate::KeyFieldInfo::__new(
        leak.str(&name),
        leak.str(&e.repr),
        leak.slice(variants),
        leak.str(&format!("not the discriminant of a variant of `{name}`")),
    )
}

/// A `#[derive(KeyField)]` enum field of a text key: its discriminant's
/// digits, as the derive writes a user `Decimal` (`digits(N)` or the
/// repr's width, a sign character for a signed repr; no `desc` or
/// `reverse`, which the derive refuses on it too).
fn text_enum_field(
    f: &FieldSpec,
    e: &EnumSpec,
    last: bool,
    sep: &'static [u8],
    leak: Leak,
) -> Result<(FieldLayout, Ops, Scalar), LayoutError> {
    let err = |m: &str| LayoutError::new(f.at, format!("field `{}`", f.name), m);
    if normalize_type(&f.ty).starts_with("Option<") || f.added {
        return Err(err(
            "Option fields are not supported in text keys: None has no text that sorts and parses back",
        ));
    }
    if f.desc || f.reverse {
        return Err(err(
            "`desc` and `reverse` on a KeyField enum in a text key: only the built-in unsigned integers sort descending or reverse their digits there",
        ));
    }
    if f.fixed.is_some() || f.desc_ts || f.reverse_domain || f.unit.is_some() {
        return Err(err(
            "a KeyField enum in a text key takes `digits(N)` only (its discriminant's digits)",
        ));
    }
    let sep_len = if last { 0 } else { sep.len() };
    macro_rules! digits {
        ($t:ty, $scalar:ident) => {{
            let digits = f.digits.unwrap_or(<$t as crate::text::Decimal>::DIGITS);
            let width = digits + usize::from(<$t as crate::text::Decimal>::SIGNED) + sep_len;
            (
                digits,
                ops::key_field_digits::<$t>(width, Dir::Fwd),
                Scalar::$scalar,
            )
        }};
    }
    let (digits, ops, scalar) = match e.repr.as_str() {
        "u8" => digits!(u8, U8),
        "u16" => digits!(u16, U16),
        "u32" => digits!(u32, U32),
        "u64" => digits!(u64, U64),
        "u128" => digits!(u128, U128),
        "i8" => digits!(i8, I8),
        "i16" => digits!(i16, I16),
        "i32" => digits!(i32, I32),
        "i64" => digits!(i64, I64),
        _ => digits!(i128, I128),
    };
    check_width(f, ops.width)?;
    // As the derive describes a user `Decimal`: no sign flag (the width
    // says it).
    let encoding = Encoding::Digits {
        digits,
        signed: false,
        desc: false,
    };
    let layout = FieldLayout::__new(
        leak.str(&f.name),
        leak.str(&f.ty),
        leak.str(&f.ty),
        encoding,
        ops.width,
        [false; 4],
        sep_len,
        Some(ops.read),
    )
    .with_sep(sep)
    .__key_field(Some(key_field_info(&normalize_type(&f.ty), e, leak)));
    Ok((layout, ops, scalar))
}

/// The number of decimal digits of `n` (at least 1).
fn decimal_digits(mut n: u64) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// A text key's field (`text("_") ...`): decimal digits, `max - ts`
/// digits, strings up to the separator or padded, the last raw.
fn text_field(
    f: &FieldSpec,
    last: bool,
    sep: &'static [u8],
    leak: Leak,
) -> Result<(FieldLayout, Ops, Scalar), LayoutError> {
    let part = format!("field `{}`", f.name);
    let err = |m: &str| LayoutError::new(f.at, part.clone(), m);
    if let Some(e) = &f.key_field {
        return text_enum_field(f, e, last, sep, leak);
    }
    let norm = normalize_type(&f.ty);
    if norm.starts_with("Option<") || f.added {
        return Err(err("a text key has no Option fields"));
    }
    if f.reverse && f.reverse_domain {
        return Err(err("`reverse` and `reverse_domain` together"));
    }
    let dir = if f.reverse {
        Dir::Rev
    } else if f.reverse_domain {
        Dir::Dom
    } else {
        Dir::Fwd
    };
    let sep_len = if last { 0 } else { sep.len() };
    let scalar = if f.unit.is_some() {
        Scalar::I64
    } else {
        Scalar::of(&norm).ok_or_else(|| {
            err(&format!(
                "`{}` is not a type a run-time text layout knows (integers, timestamps with ts(unit), strings)",
                f.ty
            ))
        })?
    };
    if f.digits.is_some()
        && !matches!(
            scalar,
            Scalar::U8
                | Scalar::U16
                | Scalar::U32
                | Scalar::U64
                | Scalar::U128
                | Scalar::I8
                | Scalar::I16
                | Scalar::I32
                | Scalar::I64
                | Scalar::I128
        )
    {
        return Err(err("`digits(N)` is for integers"));
    }
    let (encoding, ops) = match scalar {
        Scalar::Str => {
            if f.desc || f.desc_ts || f.digits.is_some() {
                return Err(err(
                    "a text key's string takes `fixed(N)`, `reverse` or `reverse_domain` only",
                ));
            }
            match (f.fixed, last) {
                (Some((_, pad)), _) if !(0x20..0x7F).contains(&pad) => {
                    return Err(err(
                        "a text key's `fixed(N)` pads with a printable character, never NUL bytes: name it, as in fixed(8, pad = ' ')",
                    ));
                }
                (Some((len, pad)), _) => (
                    Encoding::Padded {
                        len,
                        pad,
                        desc: false,
                    },
                    ops::padded::<String>(len + sep_len, dir),
                ),
                (None, true) => (
                    Encoding::Raw,
                    ops::var::<String>(true, false, dir, false, false),
                ),
                (None, false) => {
                    if f.reverse {
                        return Err(err("`reverse` on a string between separators"));
                    }
                    let mut o = ops::delimited::<String>(dir);
                    o.width = FieldWidth::Variable { min: sep.len() };
                    (Encoding::Delimited, o)
                }
            }
        }
        _ if f.fixed.is_some() => return Err(err("`fixed(N)` is for strings")),
        s if s.is_known() => {
            if f.desc || f.desc_ts || f.digits.is_some() {
                return Err(err(&format!(
                    "`{}` takes `reverse` only in a text key",
                    f.ty
                )));
            }
            let o = match s {
                Scalar::Ipv4 => ops::known_text::<core::net::Ipv4Addr>(15 + sep_len, dir),
                Scalar::Ipv6 => ops::known_text::<core::net::Ipv6Addr>(39 + sep_len, dir),
                #[cfg(feature = "uuid")]
                Scalar::Uuid => ops::known_text::<uuid::Uuid>(36 + sep_len, dir),
                #[cfg(feature = "ulid")]
                Scalar::Ulid => ops::known_text::<ulid::Ulid>(26 + sep_len, dir),
                _ => ops::known_text::<core::net::IpAddr>(40 + sep_len, dir),
            };
            (Encoding::TextForm, o)
        }
        _ if f.desc_ts => {
            // MAX - ts in the digits of MAX (i32::MAX for 32-bit types).
            let (o, default_max): (fn(usize) -> Ops, u64) = match scalar {
                Scalar::I64 => (ops::text_desc_ts::<i64>, i64::MAX as u64),
                Scalar::U64 => (ops::text_desc_ts::<u64>, i64::MAX as u64),
                Scalar::I32 => (ops::text_desc_ts::<i32>, i32::MAX as u64),
                Scalar::U32 => (ops::text_desc_ts::<u32>, i32::MAX as u64),
                _ => return Err(err("`desc_ts` takes i64, u64, i32, u32 or a timestamp")),
            };
            let max = f.desc_ts_max.unwrap_or(default_max);
            let digits = f.digits.unwrap_or_else(|| decimal_digits(max));
            if digits < decimal_digits(max) {
                return Err(err(
                    "`digits(N)` is too small for desc_ts: MAX - ts can be as large as MAX",
                ));
            }
            (Encoding::DescTsDigits { digits, max }, o(digits + sep_len))
        }
        _ => {
            macro_rules! int {
                ($t:ty, $make:path) => {{
                    let digits = f.digits.unwrap_or(<$t as crate::text::Decimal>::DIGITS);
                    let signed = <$t as crate::text::Decimal>::SIGNED;
                    if f.desc && signed {
                        return Err(err("`desc` on a signed integer in a text key: only unsigned integers sort descending there"));
                    }
                    if f.reverse && signed {
                        return Err(err("`reverse` on a signed integer in a text key: only the digits of unsigned integers are reversed there"));
                    }
                    let width = digits + usize::from(signed) + sep_len;
                    (Encoding::Digits { digits, signed, desc: f.desc }, $make(width, dir))
                }};
            }
            match scalar {
                Scalar::U8 => int!(u8, ops::unsigned_digits::<u8>),
                Scalar::U16 => int!(u16, ops::unsigned_digits::<u16>),
                Scalar::U32 => int!(u32, ops::unsigned_digits::<u32>),
                Scalar::U64 => int!(u64, ops::unsigned_digits::<u64>),
                Scalar::U128 => int!(u128, ops::unsigned_digits::<u128>),
                Scalar::I8 => int!(i8, ops::digits::<i8>),
                Scalar::I16 => int!(i16, ops::digits::<i16>),
                Scalar::I32 => int!(i32, ops::digits::<i32>),
                Scalar::I64 => int!(i64, ops::digits::<i64>),
                Scalar::I128 => int!(i128, ops::digits::<i128>),
                _ => {
                    return Err(err(&format!(
                        "`{}` has no text form a run-time layout reads (integers, timestamps with ts(unit), strings)",
                        f.ty
                    )))
                }
            }
        }
    };
    if f.reverse_domain && scalar != Scalar::Str {
        return Err(err("`reverse_domain` is for strings"));
    }
    // A time type the runtime knows: decoded and explained through it.
    let ops = match f.unit {
        Some(unit) => {
            let how = TimeHow {
                desc_ts: f.desc_ts,
                desc: f.desc,
                dir,
                option: false,
                added: false,
                text: true,
            };
            known_time(&norm, ops, unit, how)
        }
        None => ops,
    };
    check_width(f, ops.width)?;
    let kind = if scalar == Scalar::Str {
        "str".to_owned()
    } else {
        f.ty.clone()
    };
    let mut layout = FieldLayout::__new(
        leak.str(&f.name),
        leak.str(&f.ty),
        leak.str(&kind),
        encoding,
        ops.width,
        [false, false, f.reverse, f.reverse_domain],
        sep_len,
        Some(ops.read),
    )
    .with_sep(sep);
    if let Some(unit) = f.unit {
        layout = layout.__unit(unit);
    }
    Ok((layout, ops, scalar))
}

/// How a timestamp field is stored, for [`known_time`] (unread without
/// a time crate's feature).
#[derive(Clone, Copy)]
#[cfg_attr(
    not(any(feature = "chrono", feature = "time", feature = "jiff")),
    allow(dead_code)
)]
struct TimeHow {
    desc_ts: bool,
    desc: bool,
    dir: Dir,
    option: bool,
    added: bool,
    text: bool,
}

/// A `ts(unit)` field of a time type the runtime knows by name (with its
/// feature): `base` (the `i64` ops) decoded and explained through the type;
/// another type keeps `base`, its value the `i64` of its unit.
fn known_time(ty: &str, base: Ops, unit: crate::TimeUnit, how: TimeHow) -> Ops {
    let _ = (unit, how);
    // The field's ops through the time type `T`.
    #[allow(unused_macros)]
    macro_rules! through {
        ($t:ty) => {
            if how.text {
                ops::text_time::<$t>(base, unit, how.desc_ts, how.dir)
            } else {
                ops::time::<$t>(
                    base,
                    unit,
                    how.desc_ts,
                    how.desc,
                    how.dir,
                    how.option,
                    how.added,
                )
            }
        };
    }
    match crate::layout::explain::strip_paths(ty).as_str() {
        #[cfg(feature = "chrono")]
        "DateTime<Utc>" => through!(chrono::DateTime<chrono::Utc>),
        #[cfg(feature = "time")]
        "OffsetDateTime" => through!(time::OffsetDateTime),
        #[cfg(feature = "time")]
        "PrimitiveDateTime" => through!(time::PrimitiveDateTime),
        // Only jiff's by its path, as the derive reads it.
        #[cfg(feature = "jiff")]
        "Timestamp" if ty == "jiff::Timestamp" => through!(jiff::Timestamp),
        _ => base,
    }
}

/// The rules of a key family's members, as `#[derive(RowKey)]` on an enum
/// has them: every member prefixed, no prefix equal to or the start of
/// another (so that a key's prefix names its member), the names distinct.
/// Checked on the members' parsed texts, before any is built.
pub(crate) fn check_family(members: &[&Spec]) -> Result<(), LayoutError> {
    let of = |m: &Spec| -> (String, Vec<u8>) {
        (
            m.name.clone().unwrap_or_else(|| "DynLayout".into()),
            m.prefix
                .as_ref()
                .map_or_else(Vec::new, |(_, bytes, _)| bytes.clone()),
        )
    };
    for (i, a) in members.iter().enumerate() {
        let (na, pa) = of(a);
        if pa.is_empty() {
            return Err(LayoutError::field(
                format!("member `{na}`"),
                "a key family's member has a prefix, which names it in a key",
            ));
        }
        for b in &members[i + 1..] {
            let (nb, pb) = of(b);
            if na == nb {
                return Err(LayoutError::field(
                    format!("member `{na}`"),
                    "two members of this name",
                ));
            }
            if pa.starts_with(&pb) || pb.starts_with(&pa) {
                return Err(LayoutError::field(
                    format!("members `{na}` and `{nb}`"),
                    "one's prefix starts the other's: a key could not say which it is",
                ));
            }
        }
    }
    Ok(())
}

/// The key family of `members`, built from texts [`check_family`] passed.
pub(crate) fn family(members: Vec<DynLayout>) -> DynLayout {
    let layouts: Vec<&'static Layout> = members.iter().map(|m| m.layout).collect();
    let layouts: &'static [&'static Layout] = Box::leak(layouts.into_boxed_slice());
    let layout: &'static Layout = Box::leak(Box::new(Layout::__family("DynLayout", layouts)));
    DynLayout {
        layout,
        ops: Vec::new(),
        scalars: Vec::new(),
        members,
        by: Vec::new(),
        oc: None,
        capacity: 0,
        has_added: false,
    }
}
