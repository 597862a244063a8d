//! What a run-time field's values are ([`Scalar`]), and the leaking of a
//! descriptor's names: shared by building a layout and using it.

use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::vec::Vec;

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

/// Whether a build of a layout keeps what it makes, leaking the
/// descriptor's names and parts for `'static` (a parsed layout's
/// descriptor lives as long as the program, as a derived type's does), or
/// only checks: a first pass that finds every error a layout's text can
/// have and leaks nothing, so a text that is refused leaves nothing
/// behind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Leak {
    /// Run every check; names are empty and nothing is kept.
    Check,
    /// Build the layout to keep.
    Keep,
}

impl Leak {
    /// A descriptor's name: `s` for `'static`, or nothing when checking.
    pub(super) fn str(self, s: &str) -> &'static str {
        match self {
            Leak::Check => "",
            Leak::Keep => Box::leak(s.to_owned().into_boxed_str()),
        }
    }

    /// A text key's separator: `sep` for `'static`, or as many spaces when
    /// checking (what the checks read of it is its length; check_spec caps
    /// it at [`MAX_SEPARATOR`](super::MAX_SEPARATOR) bytes).
    pub(super) fn sep(self, sep: &str) -> &'static str {
        const SPACES: &str = "                ";
        match self {
            Leak::Check => &SPACES[..sep.len().min(SPACES.len())],
            Leak::Keep => self.str(sep),
        }
    }

    /// A descriptor's list: `v` for `'static`, or an empty one (which
    /// allocates nothing) when checking.
    pub(super) fn slice<T>(self, v: Vec<T>) -> &'static [T] {
        match self {
            Leak::Check => Vec::new().leak(),
            Leak::Keep => v.leak(),
        }
    }
}
