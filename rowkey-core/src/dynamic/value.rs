//! [`Value`]: one field's value when the key type is only known at run
//! time, and its conversions to and from the field types' own values.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::format::binary::write_escaped;

/// The value of one field of a [`DynLayout`](crate::DynLayout) key.
///
/// Every built-in field type converts into it with `From` (integers,
/// `bool`, `char`, floats, `String`/`&str`, `Vec<u8>`/`&[u8]`, `Option`s
/// of them). A field takes the value of its own type and, for integers,
/// any integer value that fits (`Value::from(42)`, an `i32`, for a `u64`
/// field); a bytes field takes a string's UTF-8 bytes; an `Option` field
/// takes `Value::Option(None)`, or a value of its inner type as `Some`.
/// An IP address, a UUID or a ULID is its key bytes (`Value::from` gives
/// them), as is a type the runtime does not know (a user's `FixedField`),
/// before `#[desc]` or `#[reverse]`. A timestamp is the `i64` of its
/// field's unit.
///
/// ```
/// use rowkey_core::Value;
///
/// assert_eq!(Value::from(42u64), Value::U64(42));
/// assert_eq!(Value::from("click"), Value::Str("click".into()));
/// assert_eq!(Value::from(None::<u32>), Value::Option(None));
/// assert_eq!(Value::from(Some(7u8)).to_string(), "7");
/// assert_eq!(Value::from(&b"a\x00"[..]).to_string(), "b\"a\\x00\"");
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Value {
    /// `bool`.
    Bool(bool),
    /// `u8`.
    U8(u8),
    /// `u16`.
    U16(u16),
    /// `u32`.
    U32(u32),
    /// `u64`.
    U64(u64),
    /// `u128`.
    U128(u128),
    /// `i8`.
    I8(i8),
    /// `i16`.
    I16(i16),
    /// `i32`.
    I32(i32),
    /// `i64` (also a timestamp field's value in its unit).
    I64(i64),
    /// `i128`.
    I128(i128),
    /// `f32`.
    F32(f32),
    /// `f64`.
    F64(f64),
    /// `char`.
    Char(char),
    /// A string field.
    Str(String),
    /// A byte-string field, or the key bytes of a type the runtime does
    /// not know.
    Bytes(Vec<u8>),
    /// An `Option` field.
    Option(Option<Box<Value>>),
}

impl Value {
    /// The kind of value, for error messages: `u64`, `str`, `bytes`,
    /// `None`...
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Bool(_) => "bool",
            Value::U8(_) => "u8",
            Value::U16(_) => "u16",
            Value::U32(_) => "u32",
            Value::U64(_) => "u64",
            Value::U128(_) => "u128",
            Value::I8(_) => "i8",
            Value::I16(_) => "i16",
            Value::I32(_) => "i32",
            Value::I64(_) => "i64",
            Value::I128(_) => "i128",
            Value::F32(_) => "f32",
            Value::F64(_) => "f64",
            Value::Char(_) => "char",
            Value::Str(_) => "str",
            Value::Bytes(_) => "bytes",
            Value::Option(None) => "None",
            Value::Option(Some(v)) => v.kind(),
        }
    }

    /// An integer value as an `i128`, if it is one that fits (a `u128`
    /// above `i128::MAX` does not); `None` for any other kind.
    ///
    /// ```
    /// use rowkey_core::Value;
    /// assert_eq!(Value::U16(7).as_i128(), Some(7));
    /// assert_eq!(Value::U128(u128::MAX).as_i128(), None);
    /// assert_eq!(Value::from("7").as_i128(), None);
    /// ```
    pub fn as_i128(&self) -> Option<i128> {
        Some(match *self {
            Value::U8(v) => v.into(),
            Value::U16(v) => v.into(),
            Value::U32(v) => v.into(),
            Value::U64(v) => v.into(),
            Value::U128(v) => i128::try_from(v).ok()?,
            Value::I8(v) => v.into(),
            Value::I16(v) => v.into(),
            Value::I32(v) => v.into(),
            Value::I64(v) => v.into(),
            Value::I128(v) => v,
            _ => return None,
        })
    }
}

impl fmt::Display for Value {
    /// Numbers, `bool` and `char` as Rust writes them; strings quoted with
    /// Rust's escapes; bytes as `b"..."` in HBase's `toStringBinary` form;
    /// `None`, or a `Some`'s value alone.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(v) => write!(f, "{v}"),
            Value::U8(v) => write!(f, "{v}"),
            Value::U16(v) => write!(f, "{v}"),
            Value::U32(v) => write!(f, "{v}"),
            Value::U64(v) => write!(f, "{v}"),
            Value::U128(v) => write!(f, "{v}"),
            Value::I8(v) => write!(f, "{v}"),
            Value::I16(v) => write!(f, "{v}"),
            Value::I32(v) => write!(f, "{v}"),
            Value::I64(v) => write!(f, "{v}"),
            Value::I128(v) => write!(f, "{v}"),
            Value::F32(v) => write!(f, "{v:?}"),
            Value::F64(v) => write!(f, "{v:?}"),
            Value::Char(v) => write!(f, "{v:?}"),
            Value::Str(v) => write!(f, "{v:?}"),
            Value::Bytes(v) => {
                f.write_str("b\"")?;
                write_escaped(f, v)?;
                f.write_str("\"")
            }
            Value::Option(None) => f.write_str("None"),
            Value::Option(Some(v)) => v.fmt(f),
        }
    }
}

macro_rules! from_scalar {
    ($($t:ty => $v:ident),* $(,)?) => {$(
        impl From<$t> for Value {
            fn from(v: $t) -> Value {
                Value::$v(v)
            }
        }
    )*};
}
from_scalar!(
    bool => Bool, u8 => U8, u16 => U16, u32 => U32, u64 => U64, u128 => U128,
    i8 => I8, i16 => I16, i32 => I32, i64 => I64, i128 => I128,
    f32 => F32, f64 => F64, char => Char, String => Str, Vec<u8> => Bytes,
);

impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Str(v.into())
    }
}

impl From<&[u8]> for Value {
    fn from(v: &[u8]) -> Value {
        Value::Bytes(v.into())
    }
}

/// The types the runtime knows by name (IP addresses, UUIDs, ULIDs): a
/// value is their key bytes (what their field stores before `#[desc]` or
/// `#[reverse]`), checked by the type itself when read back.
macro_rules! key_bytes_values {
    ($($(#[$cfg:meta])* $t:ty),*) => {$(
        $(#[$cfg])*
        impl From<$t> for Value {
            fn from(v: $t) -> Value {
                use crate::format::field::FixedField;
                Value::Bytes(v.to_key_bytes().as_ref().to_vec())
            }
        }

        $(#[$cfg])*
        impl FromValue for $t {
            const EXPECTED: &'static str = concat!("bytes of a ", stringify!($t));
            fn from_value(v: &Value) -> Option<$t> {
                use crate::format::field::{ByteArray, FixedField};
                let Value::Bytes(b) = v else { return None };
                let mut bytes = <$t as FixedField>::Bytes::zeroed();
                if b.len() != bytes.as_ref().len() {
                    return None;
                }
                bytes.as_mut().copy_from_slice(b);
                <$t as FixedField>::from_key_bytes(bytes).ok()
            }
            fn into_value(self) -> Value {
                Value::from(self)
            }
        }
    )*};
}
key_bytes_values!(
    core::net::Ipv4Addr,
    core::net::Ipv6Addr,
    core::net::IpAddr,
    #[cfg(feature = "uuid")]
    uuid::Uuid,
    #[cfg(feature = "ulid")]
    ulid::Ulid
);

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        Value::Option(v.map(|v| Box::new(v.into())))
    }
}

/// A field type's value as a [`Value`] and back: what a run-time layout
/// hands the field's codec.
pub(crate) trait FromValue: Sized {
    /// What the field takes, for the error: `u64`, `str`...
    const EXPECTED: &'static str;
    /// The value as this type, `None` when it is not one (or does not fit).
    fn from_value(v: &Value) -> Option<Self>;
    /// This value as a [`Value`].
    fn into_value(self) -> Value;
}

macro_rules! int_from_value {
    ($($t:ty => $v:ident),*) => {$(
        impl FromValue for $t {
            const EXPECTED: &'static str = stringify!($t);
            fn from_value(v: &Value) -> Option<$t> {
                // A u128 above i128::MAX fits only a u128.
                #[allow(irrefutable_let_patterns, clippy::useless_conversion)]
                if let Value::U128(x) = *v {
                    return <$t>::try_from(x).ok();
                }
                match *v {
                    Value::$v(x) => Some(x),
                    _ => <$t>::try_from(v.as_i128()?).ok(),
                }
            }
            fn into_value(self) -> Value {
                Value::$v(self)
            }
        }
    )*};
}
int_from_value!(
    u8 => U8, u16 => U16, u32 => U32, u64 => U64, u128 => U128,
    i8 => I8, i16 => I16, i32 => I32, i64 => I64, i128 => I128
);

macro_rules! exact_from_value {
    ($($t:ty => $v:ident),*) => {$(
        impl FromValue for $t {
            const EXPECTED: &'static str = stringify!($t);
            fn from_value(v: &Value) -> Option<$t> {
                match v {
                    Value::$v(x) => Some(*x),
                    _ => None,
                }
            }
            fn into_value(self) -> Value {
                Value::$v(self)
            }
        }
    )*};
}
exact_from_value!(bool => Bool, char => Char, f32 => F32);

impl FromValue for f64 {
    const EXPECTED: &'static str = "f64";
    fn from_value(v: &Value) -> Option<f64> {
        match *v {
            Value::F64(x) => Some(x),
            Value::F32(x) => Some(x.into()),
            _ => None,
        }
    }
    fn into_value(self) -> Value {
        Value::F64(self)
    }
}

impl FromValue for String {
    const EXPECTED: &'static str = "str";
    fn from_value(v: &Value) -> Option<String> {
        match v {
            Value::Str(s) => Some(s.clone()),
            _ => None,
        }
    }
    fn into_value(self) -> Value {
        Value::Str(self)
    }
}

impl FromValue for Vec<u8> {
    const EXPECTED: &'static str = "bytes";
    fn from_value(v: &Value) -> Option<Vec<u8>> {
        match v {
            Value::Bytes(b) => Some(b.clone()),
            Value::Str(s) => Some(s.as_bytes().to_vec()),
            _ => None,
        }
    }
    fn into_value(self) -> Value {
        Value::Bytes(self)
    }
}

impl<T: FromValue> FromValue for Option<T> {
    const EXPECTED: &'static str = T::EXPECTED;
    fn from_value(v: &Value) -> Option<Option<T>> {
        match v {
            Value::Option(None) => Some(None),
            Value::Option(Some(v)) => T::from_value(v).map(Some),
            v => T::from_value(v).map(Some),
        }
    }
    fn into_value(self) -> Value {
        Value::Option(self.map(|v| Box::new(v.into_value())))
    }
}

/// A string or byte-string field's bytes, borrowed from a [`Value`]
/// (encoding needs no copy of them).
pub(crate) trait Borrowed: crate::KeyBytes {
    /// What the field takes, for the error.
    const EXPECTED: &'static str;
    /// The value's bytes as this type, `None` when it is not one.
    fn borrow(v: &Value) -> Option<&Self>;
}

impl Borrowed for str {
    const EXPECTED: &'static str = "str";
    fn borrow(v: &Value) -> Option<&str> {
        match v {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
}

impl Borrowed for [u8] {
    const EXPECTED: &'static str = "bytes";
    fn borrow(v: &Value) -> Option<&[u8]> {
        match v {
            Value::Bytes(b) => Some(b),
            Value::Str(s) => Some(s.as_bytes()),
            _ => None,
        }
    }
}

/// An owned string type and the type its values borrow as.
pub(crate) trait Owned {
    /// `str` for `String`, `[u8]` for `Vec<u8>`.
    type B: ?Sized + Borrowed;
}

impl Owned for String {
    type B = str;
}

impl Owned for Vec<u8> {
    type B = [u8];
}

/// A value's text in one of the quoted forms [`Value`]'s `Display`
/// writes.
pub(crate) enum Quoted<'a> {
    /// `"..."`, Rust's escapes read.
    Str(String),
    /// `'c'`, the char's escapes read.
    Char(String),
    /// `b"..."`: the `toStringBinary` text inside.
    Bytes(&'a str),
    /// Quoted, but not readable: why.
    Bad(String),
}

/// The quoted form `text` is in, if any.
pub(crate) fn unquote(text: &str) -> Option<Quoted<'_>> {
    if let Some(inner) = text.strip_prefix("b\"").and_then(|t| t.strip_suffix('"')) {
        return Some(Quoted::Bytes(inner));
    }
    let (inner, char) = if let Some(i) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        (i, false)
    } else if let Some(i) = text
        .strip_prefix('\'')
        .and_then(|t| t.strip_suffix('\''))
        .filter(|i| !i.is_empty())
    {
        (i, true)
    } else {
        return None;
    };
    Some(match rust_escapes(inner) {
        Some(s) if char => Quoted::Char(s),
        Some(s) => Quoted::Str(s),
        None => Quoted::Bad(alloc::format!(
            "`{text}`: not a quoted string with Rust's escapes (\\n, \\t, \\r, \\0, \\\\, \\\", \\', \\u{{...}})"
        )),
    })
}

/// The text of a quoted string's inside with Rust's escapes read (those
/// `{:?}` writes: `\n \t \r \0 \\ \" \' \u{NNNN}`, and `\xNN` up to 7F);
/// `None` for an escape it does not know or a lone `"`.
pub(crate) fn rust_escapes(inner: &str) -> Option<String> {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return None,
            '\\' => {}
            c => {
                out.push(c);
                continue;
            }
        }
        out.push(match chars.next()? {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            '0' => '\0',
            c @ ('\\' | '"' | '\'') => c,
            'x' => {
                let h: String = chars.by_ref().take(2).collect();
                let b = u8::from_str_radix(&h, 16).ok().filter(u8::is_ascii)?;
                char::from(b)
            }
            'u' => {
                if chars.next()? != '{' {
                    return None;
                }
                let h: String = chars.by_ref().take_while(|&c| c != '}').collect();
                char::from_u32(u32::from_str_radix(&h, 16).ok()?)?
            }
            _ => return None,
        });
    }
    Some(out)
}
