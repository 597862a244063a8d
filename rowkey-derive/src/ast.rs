//! The derive's view of the input: borrowed from the syn tree, so that every
//! error can point at the user's tokens.

use syn::{Data, DeriveInput, Fields, GenericArgument, Ident, PathArguments, Type};

use crate::attr::{self, FieldAttrs, StructAttrs};
use crate::ctxt::Ctxt;

pub struct Input<'a> {
    pub original: &'a DeriveInput,
    pub attrs: StructAttrs,
    pub fields: Vec<Field<'a>>,
}

pub struct Field<'a> {
    pub original: &'a syn::Field,
    pub ident: &'a Ident,
    pub attrs: FieldAttrs,
    pub shape: Shape<'a>,
}

/// A field type as the derive sees it.
pub struct Shape<'a> {
    /// `Option<inner>`.
    pub option: bool,
    /// The type inside `Option`, or the field type.
    pub inner: &'a Type,
    pub kind: Kind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A `FixedField` type: checked by the trait bound.
    Fixed,
    /// A string or byte string.
    Var(Var),
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Var {
    /// `str` (true) or `[u8]`.
    pub text: bool,
    /// `&str` / `&[u8]`: can only borrow from the key.
    pub borrowed: bool,
}

impl<'a> Input<'a> {
    pub fn from_syn(cx: &Ctxt, node: &'a DeriveInput) -> Option<Input<'a>> {
        let attrs = attr::struct_attrs(cx, &node.attrs);
        let data = match &node.data {
            Data::Struct(data) => data,
            Data::Enum(e) => {
                cx.error_spanned_by(
                    e.enum_token,
                    "#[derive(RowKey)] supports structs with named fields, not enums: a key needs one layout",
                );
                return None;
            }
            Data::Union(u) => {
                cx.error_spanned_by(
                    u.union_token,
                    "#[derive(RowKey)] supports structs with named fields, not unions",
                );
                return None;
            }
        };
        let named = match &data.fields {
            Fields::Named(named) => named,
            Fields::Unnamed(f) => {
                cx.error_spanned_by(
                    f,
                    "#[derive(RowKey)] needs named fields: the field names become the names of the scan methods",
                );
                return None;
            }
            Fields::Unit => {
                cx.error_spanned_by(
                    &node.ident,
                    "#[derive(RowKey)] needs at least one named field; this is a unit struct",
                );
                return None;
            }
        };
        let fields = named
            .named
            .iter()
            .map(|f| Field {
                original: f,
                ident: f.ident.as_ref().expect("named field"),
                attrs: attr::field_attrs(cx, &f.attrs),
                shape: Shape::of(&f.ty),
            })
            .collect();
        Some(Input {
            original: node,
            attrs,
            fields,
        })
    }
}

impl<'a> Shape<'a> {
    fn of(ty: &'a Type) -> Shape<'a> {
        match generic_arg(ty, "Option") {
            Some(inner) => Shape {
                option: true,
                inner,
                kind: kind_of(inner),
            },
            None => Shape {
                option: false,
                inner: ty,
                kind: kind_of(ty),
            },
        }
    }
}

/// Strips `(T)` and invisible groups.
pub fn peel(mut ty: &Type) -> &Type {
    loop {
        match ty {
            Type::Paren(p) => ty = &p.elem,
            Type::Group(g) => ty = &g.elem,
            _ => return ty,
        }
    }
}

/// `T` when `ty` is `Name<T>` (by its last path segment).
pub fn generic_arg<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    let Type::Path(p) = peel(ty) else { return None };
    if p.qself.is_some() {
        return None;
    }
    let seg = p.path.segments.last()?;
    if seg.ident != name {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &seg.arguments else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    let first = types.next()?;
    types.next().is_none().then_some(first)
}

pub fn is_ident(ty: &Type, name: &str) -> bool {
    match peel(ty) {
        Type::Path(p) => p.qself.is_none() && p.path.is_ident(name),
        _ => false,
    }
}

/// `[u8]`.
fn is_byte_slice(ty: &Type) -> bool {
    matches!(peel(ty), Type::Slice(s) if is_ident(&s.elem, "u8"))
}

fn kind_of(ty: &Type) -> Kind {
    let ty = peel(ty);
    if let Type::Reference(r) = ty {
        if r.mutability.is_none() {
            if is_ident(&r.elem, "str") {
                return Kind::Var(Var {
                    text: true,
                    borrowed: true,
                });
            }
            if is_byte_slice(&r.elem) {
                return Kind::Var(Var {
                    text: false,
                    borrowed: true,
                });
            }
        }
        return Kind::Fixed;
    }
    let Type::Path(p) = ty else {
        return Kind::Fixed;
    };
    let Some(last) = p.path.segments.last() else {
        return Kind::Fixed;
    };
    if last.ident == "String" && last.arguments.is_none() {
        return Kind::Var(Var {
            text: true,
            borrowed: false,
        });
    }
    if let Some(elem) = generic_arg(ty, "Vec") {
        if is_ident(elem, "u8") {
            return Kind::Var(Var {
                text: false,
                borrowed: false,
            });
        }
    }
    if let Some(elem) = generic_arg(ty, "Cow") {
        if is_ident(elem, "str") {
            return Kind::Var(Var {
                text: true,
                borrowed: false,
            });
        }
        if is_byte_slice(elem) {
            return Kind::Var(Var {
                text: false,
                borrowed: false,
            });
        }
    }
    Kind::Fixed
}

/// A type the derive knows by name from the ecosystem (as it knows
/// `String` or `u64`): it picks the type's codec, and the trait bound at
/// the field checks that the name is that type.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Known {
    /// A timestamp (`TimeField`): stored as an `i64` of its `#[ts]` unit.
    Time,
    /// A type with a fixed-width text form (`TextForm`): UUIDs, ULIDs and
    /// IP addresses.
    TextForm,
}

/// What the derive knows about `ty` by its name: `DateTime<..>`
/// (chrono), `OffsetDateTime` and `PrimitiveDateTime` (time),
/// `jiff::Timestamp` by its path, `Uuid`, `Ulid`, `Ipv4Addr`, `Ipv6Addr`,
/// `IpAddr`. A bare `Timestamp` is not taken for jiff's (prost's and many
/// crates' own are called that): write `jiff::Timestamp`, or mark the field
/// `#[ts(...)]`, which makes any `TimeField` type a timestamp.
pub fn known(ty: &Type) -> Option<Known> {
    let Type::Path(p) = peel(ty) else { return None };
    if p.qself.is_some() {
        return None;
    }
    let segs = &p.path.segments;
    let last = segs.last()?;
    let name = last.ident.to_string();
    match name.as_str() {
        "DateTime" if !last.arguments.is_none() => Some(Known::Time),
        "OffsetDateTime" | "PrimitiveDateTime" => Some(Known::Time),
        // Only jiff's by its path: other crates' `Timestamp`s (prost's,
        // your own) are user types, or timestamps where `#[ts]` says so.
        "Timestamp" if segs.len() > 1 && segs[0].ident == "jiff" => Some(Known::Time),
        "Uuid" | "Ulid" | "Ipv4Addr" | "Ipv6Addr" | "IpAddr" => Some(Known::TextForm),
        _ => None,
    }
}

/// The integer type name when `ty` is one that `#[desc_ts]` accepts.
pub fn timestamp_int(ty: &Type) -> Option<&'static str> {
    ["i64", "u64", "i32", "u32"]
        .into_iter()
        .find(|name| is_ident(ty, name))
}

/// A built-in integer type, as text keys render it.
#[derive(Clone, Copy)]
pub struct Int {
    pub name: &'static str,
    pub signed: bool,
    /// The digits of the largest magnitude: the default width.
    pub digits: usize,
    /// The largest value (for unsigned `#[desc_ts]` ranges).
    pub max: u64,
}

impl Int {
    /// The default `MAX` of a text key's `#[desc_ts]`: Java's
    /// `Long.MAX_VALUE`, or `Integer.MAX_VALUE` for 32-bit types.
    pub fn ts_max(self) -> u64 {
        if matches!(self.name, "i32" | "u32") {
            i32::MAX as u64
        } else {
            i64::MAX as u64
        }
    }
}

/// The integer type `ty` names, if it is a built-in one.
pub fn int_type(ty: &Type) -> Option<Int> {
    INTS.iter()
        .find(|(name, ..)| is_ident(ty, name))
        .map(|&(name, signed, digits, max)| Int {
            name,
            signed,
            digits,
            max,
        })
}

/// `i64`: what a timestamp field is stored as.
pub fn i64_int() -> Int {
    let (name, signed, digits, max) = INTS[8];
    Int {
        name,
        signed,
        digits,
        max,
    }
}

/// Name, signed, default digits, largest value.
#[allow(clippy::type_complexity)]
const INTS: &[(&str, bool, usize, u64)] = &[
    ("u8", false, 3, u8::MAX as u64),
    ("u16", false, 5, u16::MAX as u64),
    ("u32", false, 10, u32::MAX as u64),
    ("u64", false, 20, u64::MAX),
    ("u128", false, 39, u64::MAX),
    ("i8", true, 3, i8::MAX as u64),
    ("i16", true, 5, i16::MAX as u64),
    ("i32", true, 10, i32::MAX as u64),
    ("i64", true, 19, i64::MAX as u64),
    ("i128", true, 39, u64::MAX),
];
