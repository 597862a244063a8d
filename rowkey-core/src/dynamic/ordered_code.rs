//! Ordered-code layouts at run time (`ordered_code [...]`, Bigtable's
//! struct `OrderedCodeBytes`): the derive's `OcInt`/`OcStr` codecs per
//! field (`ops::oc_int`, `ops::oc_str`), and the rules that span fields,
//! written once here over `Value`s as the derive writes them over a
//! struct's fields: a key leaves out its trailing empty ascending strings
//! (and the terminator before them), writes its last field with the
//! field's `Last` codec, is checked to be its values' key after decoding,
//! and is salted by its `by` fields' values. Scans go through the same
//! `Leading` as the derive's, with the fields' codecs.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::ops::{self, OcOps, Ops};
use super::parse::{check_width, LayoutError};
use super::parse::{normalize_type, FieldSpec, Spec};
use super::scalar::{Leak, Scalar};
use super::value::Value;
use crate::layout::{Encoding, FieldLayout};

/// The most buckets of an ordered-code salt: a one-byte `Int64` holds 0 to
/// 63.
pub(super) const MAX_BUCKETS: u16 = 64;

/// What an ordered-code layout knows beyond its descriptor.
#[derive(Clone)]
pub(super) struct OcRt {
    /// Each field's codecs and scan steps.
    pub(super) fields: Vec<OcOps>,
    /// Where the trailing ascending strings (which a key leaves out when
    /// they are empty) start.
    tail: usize,
}

/// A field that a key leaves out when it and every field after it are
/// empty: an ascending string.
fn droppable(scalar: Scalar, desc: bool) -> bool {
    scalar.is_var() && !desc
}

/// The fields of an ordered-code layout ([`OcFields`]).
pub(super) fn fields(spec: &Spec, leak: Leak) -> Result<OcFields, LayoutError> {
    let mut scalars = Vec::with_capacity(spec.fields.len());
    for f in &spec.fields {
        scalars.push(scalar(f)?);
    }
    let tail = spec.fields.len()
        - spec
            .fields
            .iter()
            .zip(&scalars)
            .rev()
            .take_while(|(f, s)| droppable(**s, f.desc))
            .count();
    let may_end_from = tail.saturating_sub(1);
    let mut layouts = Vec::with_capacity(spec.fields.len());
    let mut reads = Vec::with_capacity(spec.fields.len());
    let mut oc = Vec::with_capacity(spec.fields.len());
    for (i, (f, &s)) in spec.fields.iter().zip(&scalars).enumerate() {
        let o = match s {
            Scalar::I64 => ops::oc_int::<i64>(f.desc),
            Scalar::I32 => ops::oc_int::<i32>(f.desc),
            Scalar::I16 => ops::oc_int::<i16>(f.desc),
            Scalar::I8 => ops::oc_int::<i8>(f.desc),
            Scalar::U32 => ops::oc_uint::<u32>(f.desc),
            Scalar::U16 => ops::oc_uint::<u16>(f.desc),
            Scalar::U8 => ops::oc_uint::<u8>(f.desc),
            Scalar::Str => ops::oc_str::<String>(f.desc),
            _ => ops::oc_str::<Vec<u8>>(f.desc),
        };
        // The codec that reads the field and gives its width, as the
        // derive's `layout_alias`.
        let read = if i >= may_end_from && !f.desc {
            o.last
        } else {
            o.term
        };
        check_width(f, read.width)?;
        let kind = match s {
            Scalar::Str => "str".to_owned(),
            Scalar::Bytes => "bytes".to_owned(),
            _ => f.ty.clone(),
        };
        layouts.push(FieldLayout::__new(
            leak.str(&f.name),
            leak.str(&f.ty),
            leak.str(&kind),
            Encoding::OrderedCode { desc: f.desc },
            read.width,
            [false; 4],
            0,
            Some(read.read),
        ));
        reads.push(read);
        oc.push(o);
    }
    Ok(OcFields {
        layouts,
        ops: reads,
        scalars,
        rt: OcRt { fields: oc, tail },
    })
}

/// An ordered-code layout's fields: descriptors, the operations that read
/// each (its `Last` codec where it may end the key), their scalars, and
/// what encoding and scanning need besides.
pub(super) struct OcFields {
    pub layouts: Vec<FieldLayout>,
    pub ops: Vec<Ops>,
    pub scalars: Vec<Scalar>,
    pub rt: OcRt,
}

/// A field's type, or what is wrong with it in an ordered-code key.
fn scalar(f: &FieldSpec) -> Result<Scalar, LayoutError> {
    let err = |m: String| LayoutError::new(f.at, format!("field `{}`", f.name), m);
    let not_part = [
        ("added", f.added),
        ("fixed(N)", f.fixed.is_some()),
        ("reverse", f.reverse),
        ("reverse_domain", f.reverse_domain),
        ("digits(N)", f.digits.is_some()),
        ("ts(unit)", f.unit.is_some()),
    ];
    if f.desc_ts {
        return Err(err(
            "`desc_ts` in an ordered_code key: use `desc`, which inverts the field's OrderedCodeBytes encoding".into(),
        ));
    }
    if let Some((attr, _)) = not_part.iter().find(|(_, set)| *set) {
        return Err(err(format!(
            "`{attr}` is not part of Bigtable's OrderedCodeBytes encoding: an ordered_code key's fields take `desc` only"
        )));
    }
    let ty = normalize_type(&f.ty);
    if ty.starts_with("Option<") {
        return Err(err(
            "Option fields are not supported in ordered_code keys: Bigtable's OrderedCodeBytes struct has no None".into(),
        ));
    }
    match Scalar::of(&ty) {
        Some(
            s @ (Scalar::I64
            | Scalar::I32
            | Scalar::I16
            | Scalar::I8
            | Scalar::U32
            | Scalar::U16
            | Scalar::U8
            | Scalar::Str
            | Scalar::Bytes),
        ) => Ok(s),
        _ => Err(err(format!(
            "`{}` cannot be a field of an ordered_code key: Bigtable's OrderedCodeBytes struct holds Int64 (i64, or i8 to i32 and u8 to u32), String and Bytes",
            f.ty
        ))),
    }
}

/// The checks on an ordered-code layout's prefix and salt: the prefix is a
/// `Bytes` field as a key stores it (escaped, then `00 01`); the salt has
/// at most 64 buckets; both need a field that every key writes.
pub(super) fn check_head(spec: &Spec, rt: &OcRt) -> Result<(), LayoutError> {
    if let Some((at, bytes, _)) = &spec.prefix {
        let mut value = Vec::new();
        let read =
            (ops::oc_str::<Vec<u8>>(false).term.decode)(bytes, 0, &prefix_field(), &mut value);
        let stored = matches!((read, value.as_slice()), (Ok(end), [Value::Bytes(b)]) if end == bytes.len() && !b.is_empty());
        if !stored {
            return Err(LayoutError::new(
                *at,
                "prefix",
                "an ordered_code key's prefix is a Bytes field as keys store it: escaped and ending with \\x00\\x01, as in [prefix \"u\\x00\\x01\" 3]",
            ));
        }
    }
    if let Some(s) = &spec.salt {
        if s.buckets > MAX_BUCKETS {
            return Err(LayoutError::new(
                s.at,
                "salt",
                format!(
                    "{} buckets in an ordered_code key: the bucket is a one-byte Int64 field, so at most {MAX_BUCKETS}",
                    s.buckets
                ),
            ));
        }
    }
    if rt.tail == 0 {
        let what = match (&spec.prefix, &spec.salt) {
            (Some((at, ..)), _) => Some((*at, "prefix")),
            (None, Some(s)) => Some((s.at, "salt")),
            (None, None) => None,
        };
        if let Some((at, what)) = what {
            return Err(LayoutError::new(
                at,
                what,
                format!("a {what} needs a field that every ordered_code key writes (an integer, or a desc string): with only ascending strings, the key of empty strings would end inside the {what}"),
            ));
        }
    }
    Ok(())
}

/// A descriptor to read a prefix with: errors name it `prefix`.
fn prefix_field() -> FieldLayout {
    FieldLayout::__new(
        "prefix",
        "bytes",
        "bytes",
        Encoding::OrderedCode { desc: false },
        crate::layout::FieldWidth::Variable { min: 0 },
        [false; 4],
        0,
        None,
    )
}

impl OcRt {
    /// How many fields the key of `values` writes.
    pub(super) fn kept(&self, values: &[Value]) -> usize {
        let empty = |v: &Value| match v {
            Value::Str(s) => s.is_empty(),
            Value::Bytes(b) => b.is_empty(),
            _ => false,
        };
        self.tail
            + values[self.tail..]
                .iter()
                .rposition(|v| !empty(v))
                .map_or(0, |i| i + 1)
    }
}
