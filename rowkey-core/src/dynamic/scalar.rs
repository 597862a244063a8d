//! What a run-time field's values are ([`Scalar`]), and the leaking of a
//! descriptor's names: shared by building a layout and using it.

use alloc::borrow::ToOwned;
use alloc::boxed::Box;

/// What a field's values are, for [`DynLayout::value`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Scalar {
    Bool,
    U8,
    U16,
    U32,
    U64,
    U128,
    I8,
    I16,
    I32,
    I64,
    I128,
    F32,
    F64,
    Char,
    Str,
    Bytes,
    /// Key bytes of this width.
    Opaque(usize),
    /// A type the runtime knows by name, with its own codec.
    Ipv4,
    Ipv6,
    Ip,
    #[cfg(feature = "uuid")]
    Uuid,
    #[cfg(feature = "ulid")]
    Ulid,
}

impl Scalar {
    pub(super) fn of(ty: &str) -> Option<Scalar> {
        Some(match ty {
            "bool" => Scalar::Bool,
            "u8" => Scalar::U8,
            "u16" => Scalar::U16,
            "u32" => Scalar::U32,
            "u64" => Scalar::U64,
            "u128" => Scalar::U128,
            "i8" => Scalar::I8,
            "i16" => Scalar::I16,
            "i32" => Scalar::I32,
            "i64" => Scalar::I64,
            "i128" => Scalar::I128,
            "f32" => Scalar::F32,
            "f64" => Scalar::F64,
            "char" => Scalar::Char,
            _ => {
                let last = ty.rsplit("::").next().unwrap_or(ty);
                match last {
                    "String" | "&str" | "str" | "Cow<str>" | "Box<str>" => Scalar::Str,
                    "Vec<u8>" | "&[u8]" | "[u8]" | "Cow<[u8]>" | "Box<[u8]>" | "bytes" => {
                        Scalar::Bytes
                    }
                    "Ipv4Addr" => Scalar::Ipv4,
                    "Ipv6Addr" => Scalar::Ipv6,
                    "IpAddr" => Scalar::Ip,
                    #[cfg(feature = "uuid")]
                    "Uuid" => Scalar::Uuid,
                    #[cfg(feature = "ulid")]
                    "Ulid" => Scalar::Ulid,
                    // Without their features: their binary widths
                    // (FORMAT.md), as opaque bytes.
                    #[cfg(not(feature = "uuid"))]
                    "Uuid" => Scalar::Opaque(16),
                    #[cfg(not(feature = "ulid"))]
                    "Ulid" => Scalar::Opaque(16),
                    _ => return None,
                }
            }
        })
    }

    pub(super) fn is_var(self) -> bool {
        matches!(self, Scalar::Str | Scalar::Bytes)
    }

    /// A type the runtime knows by name (its own codec, its text form).
    pub(super) fn is_known(self) -> bool {
        match self {
            Scalar::Ipv4 | Scalar::Ipv6 | Scalar::Ip => true,
            #[cfg(feature = "uuid")]
            Scalar::Uuid => true,
            #[cfg(feature = "ulid")]
            Scalar::Ulid => true,
            _ => false,
        }
    }
}

/// Leaks a string for a descriptor's `'static` names.
pub(super) fn leak(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}
