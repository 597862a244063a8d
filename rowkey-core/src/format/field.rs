//! The field traits: how one value becomes key bytes.
//!
//! Every field of a `#[derive(RowKey)]` struct is either fixed-width
//! ([`FixedField`]: integers, floats, `bool`, `char`, `[u8; N]`, and your own
//! newtypes) or variable-length ([`VarField`]: strings and byte strings). The
//! traits give a value's *natural* bytes; the attributes (`#[desc]`,
//! `#[reverse]`, `#[fixed]`, escaping, `Option`) are applied on top by the
//! derive, so a type implements its bytes once and gets every attribute.

#[cfg(feature = "alloc")]
use alloc::{borrow::Cow, string::String, vec::Vec};

use crate::format::error::{FieldError, Variants};

mod sealed {
    pub trait Sealed {}
    impl<const N: usize> Sealed for [u8; N] {}
}

/// A byte array `[u8; N]`: the natural bytes of a [`FixedField`].
///
/// Sealed: only `[u8; N]` implements it.
pub trait ByteArray: sealed::Sealed + AsRef<[u8]> + AsMut<[u8]> + Copy {
    /// `N`.
    const LEN: usize;
    /// `[0; N]`.
    fn zeroed() -> Self;
}

impl<const N: usize> ByteArray for [u8; N] {
    const LEN: usize = N;
    #[inline(always)]
    fn zeroed() -> Self {
        [0; N]
    }
}

/// A value whose key bytes always have the same width.
///
/// The bytes must sort, compared with `memcmp`, in the order the values
/// should sort in the key. Implement it for your own types to use them as
/// fields, typically newtypes over one of the built-in encodings:
///
#[cfg_attr(all(feature = "derive", feature = "alloc"), doc = "```")]
#[cfg_attr(not(all(feature = "derive", feature = "alloc")), doc = "```ignore")]
/// use rowkey_core::prelude::*;
/// use rowkey_core::{FieldError, FixedField};
///
/// /// A UUID stored as its 16 bytes.
/// #[derive(Debug, Clone, Copy, PartialEq)]
/// struct Uuid([u8; 16]);
///
/// impl FixedField for Uuid {
///     type Bytes = [u8; 16];
///     fn to_key_bytes(&self) -> [u8; 16] {
///         self.0
///     }
///     fn from_key_bytes(bytes: [u8; 16]) -> Result<Self, FieldError> {
///         Ok(Uuid(bytes))
///     }
/// }
///
/// #[derive(RowKey, Debug, PartialEq)]
/// struct Session {
///     tenant: u16,
///     id: Uuid,
/// }
///
/// let key = Session { tenant: 7, id: Uuid([0xAB; 16]) };
/// assert_eq!(Session::LEN, 18);
/// assert_eq!(Session::decode(&key.encode()).unwrap(), key);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a row key field: it does not implement `rowkey_core::FixedField`",
    label = "not a row key field type",
    note = "fields can be integers, floats, bool, char, [u8; N], String, &str, Vec<u8>, &[u8], Cow<str>, Cow<[u8]> or Option of those",
    note = "for your own type, implement `rowkey_core::FixedField` (fixed width) by giving its bytes as a `[u8; N]` that sorts like the values",
    note = "`uuid::Uuid` and `ulid::Ulid` need rowkey-core's features `uuid` and `ulid`, e.g. rowkey-core = {{ version = \"0.1\", features = [\"uuid\"] }}"
)]
pub trait FixedField: Sized {
    /// The natural bytes, `[u8; N]`.
    type Bytes: ByteArray;
    /// The width in bytes.
    const LEN: usize = <Self::Bytes as ByteArray>::LEN;
    /// The value's bytes, in an order that `memcmp` sorts like the values.
    fn to_key_bytes(&self) -> Self::Bytes;
    /// The value back from its bytes; reject bytes that no value encodes to.
    fn from_key_bytes(bytes: Self::Bytes) -> Result<Self, FieldError>;

    /// How [`explain`](crate::RowKey::explain) names a value of this type
    /// beside its bytes; by default nothing. `#[derive(KeyField)]` writes
    /// the variant's name.
    fn describe(&self, out: &mut dyn core::fmt::Write) -> core::fmt::Result {
        let _ = out;
        Ok(())
    }

    /// A `#[derive(KeyField)]` enum's repr and variants, which the layout
    /// descriptor carries ([`FieldLayout::key_field`](crate::layout::FieldLayout::key_field));
    /// `None` for every other type.
    #[doc(hidden)]
    const KEY_FIELD: Option<KeyFieldInfo> = None;
}

/// What a layout knows of a `#[derive(KeyField)]` enum field: the enum's
/// name, its integer repr (what the key stores) and its variants with
/// their discriminants, so that a layout read at run time
/// ([`DynLayout`](crate::DynLayout)) reads the field as its repr integer,
/// refuses other discriminants and names the variants.
///
#[cfg_attr(all(feature = "derive", feature = "alloc"), doc = "```")]
#[cfg_attr(not(all(feature = "derive", feature = "alloc")), doc = "```ignore")]
/// use rowkey_core::prelude::*;
///
/// #[derive(KeyField, Debug, Clone, Copy, PartialEq)]
/// #[repr(u8)]
/// enum Kind {
///     Click = 1,
///     View = 2,
/// }
///
/// #[derive(RowKey)]
/// struct Event {
///     user: u32,
///     kind: Kind,
/// }
///
/// let kind = Event::LAYOUT.fields()[1].key_field().unwrap();
/// assert_eq!((kind.name(), kind.repr()), ("Kind", "u8"));
/// assert_eq!(kind.variants(), [("Click", 1), ("View", 2)]);
/// assert_eq!(kind.variant(2), Some("View"));
/// assert_eq!(Event::LAYOUT.to_string(), "[user u32 4][kind Kind(u8: Click = 1, View = 2) 1] = 5 bytes");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyFieldInfo {
    name: &'static str,
    repr: &'static str,
    variants: &'static [(&'static str, i128)],
    /// The decode error's reason for a discriminant of no variant, as the
    /// enum's `from_key_bytes` gives it.
    invalid: &'static str,
}

impl KeyFieldInfo {
    #[doc(hidden)]
    pub const fn __new(
        name: &'static str,
        repr: &'static str,
        variants: &'static [(&'static str, i128)],
        invalid: &'static str,
    ) -> KeyFieldInfo {
        KeyFieldInfo {
            name,
            repr,
            variants,
            invalid,
        }
    }

    /// Why a discriminant of no variant does not decode: `not the
    /// discriminant of a variant of `Kind``.
    #[cfg_attr(not(feature = "dynamic"), allow(dead_code))]
    pub(crate) fn invalid(&self) -> &'static str {
        self.invalid
    }

    /// The enum's name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The integer type of `#[repr(...)]`: `u8`, `i16`...
    pub const fn repr(&self) -> &'static str {
        self.repr
    }

    /// The variants and their discriminants, in declaration order.
    pub const fn variants(&self) -> &'static [(&'static str, i128)] {
        self.variants
    }

    /// The variant whose discriminant is `value`.
    pub fn variant(&self, value: i128) -> Option<&'static str> {
        self.variants
            .iter()
            .find(|(_, v)| *v == value)
            .map(|(n, _)| *n)
    }

    /// The discriminant of the variant named `name`.
    pub fn discriminant(&self, name: &str) -> Option<i128> {
        self.variants
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
    }
}

impl core::fmt::Display for KeyFieldInfo {
    /// `u8: Click = 1, View = 2`, as a layout's summary shows it after the
    /// type's name.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}: {}", self.repr, Variants(self.variants))
    }
}

macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl FixedField for $t {
            type Bytes = [u8; core::mem::size_of::<$t>()];
            #[inline(always)]
            fn to_key_bytes(&self) -> Self::Bytes {
                self.to_be_bytes()
            }
            #[inline(always)]
            fn from_key_bytes(bytes: Self::Bytes) -> Result<Self, FieldError> {
                Ok(<$t>::from_be_bytes(bytes))
            }
        }
    )*};
}
unsigned!(u8, u16, u32, u64, u128);

macro_rules! signed {
    ($($t:ty => $u:ty),*) => {$(
        impl FixedField for $t {
            type Bytes = [u8; core::mem::size_of::<$t>()];
            #[inline(always)]
            fn to_key_bytes(&self) -> Self::Bytes {
                ((*self as $u) ^ (1 << (<$u>::BITS - 1))).to_be_bytes()
            }
            #[inline(always)]
            fn from_key_bytes(bytes: Self::Bytes) -> Result<Self, FieldError> {
                Ok((<$u>::from_be_bytes(bytes) ^ (1 << (<$u>::BITS - 1))) as $t)
            }
        }
    )*};
}
signed!(i8 => u8, i16 => u16, i32 => u32, i64 => u64, i128 => u128);

macro_rules! float {
    ($($t:ty => $u:ty),*) => {$(
        impl FixedField for $t {
            type Bytes = [u8; core::mem::size_of::<$t>()];
            #[inline(always)]
            fn to_key_bytes(&self) -> Self::Bytes {
                const SIGN: $u = 1 << (<$u>::BITS - 1);
                let bits = self.to_bits();
                // Negative: invert all bits; positive: flip the sign bit.
                let key = if bits & SIGN != 0 { !bits } else { bits ^ SIGN };
                key.to_be_bytes()
            }
            #[inline(always)]
            fn from_key_bytes(bytes: Self::Bytes) -> Result<Self, FieldError> {
                const SIGN: $u = 1 << (<$u>::BITS - 1);
                let key = <$u>::from_be_bytes(bytes);
                let bits = if key & SIGN != 0 { key ^ SIGN } else { !key };
                Ok(<$t>::from_bits(bits))
            }
        }
    )*};
}
float!(f32 => u32, f64 => u64);

impl FixedField for bool {
    type Bytes = [u8; 1];
    #[inline(always)]
    fn to_key_bytes(&self) -> [u8; 1] {
        [*self as u8]
    }
    #[inline(always)]
    fn from_key_bytes(bytes: [u8; 1]) -> Result<Self, FieldError> {
        match bytes[0] {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(FieldError::Invalid("bool byte is neither 00 nor 01")),
        }
    }
}

impl FixedField for char {
    type Bytes = [u8; 4];
    #[inline(always)]
    fn to_key_bytes(&self) -> [u8; 4] {
        (*self as u32).to_be_bytes()
    }
    #[inline(always)]
    fn from_key_bytes(bytes: [u8; 4]) -> Result<Self, FieldError> {
        char::from_u32(u32::from_be_bytes(bytes))
            .ok_or(FieldError::Invalid("not a Unicode scalar value"))
    }
}

impl<const N: usize> FixedField for [u8; N] {
    type Bytes = [u8; N];
    #[inline(always)]
    fn to_key_bytes(&self) -> [u8; N] {
        *self
    }
    #[inline(always)]
    fn from_key_bytes(bytes: [u8; N]) -> Result<Self, FieldError> {
        Ok(bytes)
    }
}

/// A value that is a byte sequence: what a variable-length field encodes.
///
/// Implemented for `str`, `[u8]` and the owned and borrowed forms of both, so
/// scan methods can take `&str` for a `String` field.
pub trait KeyBytes {
    /// The bytes to store (UTF-8 for strings).
    fn key_bytes(&self) -> &[u8];
}

impl KeyBytes for str {
    #[inline(always)]
    fn key_bytes(&self) -> &[u8] {
        self.as_bytes()
    }
}
impl KeyBytes for [u8] {
    #[inline(always)]
    fn key_bytes(&self) -> &[u8] {
        self
    }
}
impl<T: KeyBytes + ?Sized> KeyBytes for &T {
    #[inline(always)]
    fn key_bytes(&self) -> &[u8] {
        (**self).key_bytes()
    }
}
#[cfg(feature = "alloc")]
impl KeyBytes for String {
    #[inline(always)]
    fn key_bytes(&self) -> &[u8] {
        self.as_bytes()
    }
}
#[cfg(feature = "alloc")]
impl KeyBytes for Vec<u8> {
    #[inline(always)]
    fn key_bytes(&self) -> &[u8] {
        self
    }
}
#[cfg(feature = "alloc")]
impl KeyBytes for Cow<'_, str> {
    #[inline(always)]
    fn key_bytes(&self) -> &[u8] {
        self.as_bytes()
    }
}
#[cfg(feature = "alloc")]
impl KeyBytes for Cow<'_, [u8]> {
    #[inline(always)]
    fn key_bytes(&self) -> &[u8] {
        self
    }
}

/// A variable-length field type: a string or byte string that can be rebuilt
/// from the bytes it stored.
///
/// `'de` is the lifetime of the key being decoded: borrowed types (`&'de str`,
/// `&'de [u8]`) point into it without copying.
pub trait VarField<'de>: KeyBytes + Sized {
    /// Rebuilds the value from bytes that are exactly its stored bytes and
    /// live as long as the key.
    fn from_borrowed(bytes: &'de [u8]) -> Result<Self, FieldError>;
    /// Rebuilds the value from bytes that had to be copied (unescaped,
    /// inverted or reversed). Borrowing types return
    /// [`FieldError::CannotBorrow`].
    #[cfg(feature = "alloc")]
    fn from_owned(bytes: Vec<u8>) -> Result<Self, FieldError>;
}

impl<'de> VarField<'de> for &'de [u8] {
    #[inline(always)]
    fn from_borrowed(bytes: &'de [u8]) -> Result<Self, FieldError> {
        Ok(bytes)
    }
    #[cfg(feature = "alloc")]
    fn from_owned(_: Vec<u8>) -> Result<Self, FieldError> {
        Err(FieldError::CannotBorrow)
    }
}

impl<'de> VarField<'de> for &'de str {
    #[inline(always)]
    fn from_borrowed(bytes: &'de [u8]) -> Result<Self, FieldError> {
        core::str::from_utf8(bytes).map_err(|_| FieldError::InvalidUtf8)
    }
    #[cfg(feature = "alloc")]
    fn from_owned(_: Vec<u8>) -> Result<Self, FieldError> {
        Err(FieldError::CannotBorrow)
    }
}

#[cfg(feature = "alloc")]
impl VarField<'_> for Vec<u8> {
    #[inline]
    fn from_borrowed(bytes: &[u8]) -> Result<Self, FieldError> {
        Ok(bytes.to_vec())
    }
    #[inline]
    fn from_owned(bytes: Vec<u8>) -> Result<Self, FieldError> {
        Ok(bytes)
    }
}

#[cfg(feature = "alloc")]
impl VarField<'_> for String {
    #[inline]
    fn from_borrowed(bytes: &[u8]) -> Result<Self, FieldError> {
        core::str::from_utf8(bytes)
            .map(String::from)
            .map_err(|_| FieldError::InvalidUtf8)
    }
    #[inline]
    fn from_owned(bytes: Vec<u8>) -> Result<Self, FieldError> {
        String::from_utf8(bytes).map_err(|_| FieldError::InvalidUtf8)
    }
}

#[cfg(feature = "alloc")]
impl<'de> VarField<'de> for Cow<'de, [u8]> {
    #[inline]
    fn from_borrowed(bytes: &'de [u8]) -> Result<Self, FieldError> {
        Ok(Cow::Borrowed(bytes))
    }
    #[inline]
    fn from_owned(bytes: Vec<u8>) -> Result<Self, FieldError> {
        Ok(Cow::Owned(bytes))
    }
}

#[cfg(feature = "alloc")]
impl<'de> VarField<'de> for Cow<'de, str> {
    #[inline]
    fn from_borrowed(bytes: &'de [u8]) -> Result<Self, FieldError> {
        core::str::from_utf8(bytes)
            .map(Cow::Borrowed)
            .map_err(|_| FieldError::InvalidUtf8)
    }
    #[inline]
    fn from_owned(bytes: Vec<u8>) -> Result<Self, FieldError> {
        String::from_utf8(bytes)
            .map(Cow::Owned)
            .map_err(|_| FieldError::InvalidUtf8)
    }
}

/// Integer types that `#[desc_ts]` accepts: `i64`, `u64`, `i32`, `u32`.
///
/// The stored value is `MAX - ts` (`Long.MAX_VALUE - ts` or
/// `Integer.MAX_VALUE - ts` in Java), big-endian, so the newest timestamp
/// sorts first. Sealed.
pub trait DescTimestamp: Sized + Copy + sealed_ts::Sealed {
    /// The stored bytes.
    type Bytes: ByteArray;
    /// The largest value that can be stored, for error messages.
    const MAX: u64;
    /// `MAX - self`, big-endian; `None` when an unsigned value is above `MAX`.
    fn to_desc_ts(self) -> Option<Self::Bytes>;
    /// The value back; `None` when the bytes are outside `0..=MAX` for an
    /// unsigned type.
    fn from_desc_ts(bytes: Self::Bytes) -> Option<Self>;
    /// The value as `u64` for error messages.
    fn as_u64(self) -> u64;
}

mod sealed_ts {
    pub trait Sealed {}
    impl Sealed for i64 {}
    impl Sealed for u64 {}
    impl Sealed for i32 {}
    impl Sealed for u32 {}
}

macro_rules! desc_ts_signed {
    ($($t:ty),*) => {$(
        impl DescTimestamp for $t {
            type Bytes = [u8; core::mem::size_of::<$t>()];
            const MAX: u64 = <$t>::MAX as u64;
            #[inline(always)]
            fn to_desc_ts(self) -> Option<Self::Bytes> {
                Some(<$t>::MAX.wrapping_sub(self).to_be_bytes())
            }
            #[inline(always)]
            fn from_desc_ts(bytes: Self::Bytes) -> Option<Self> {
                Some(<$t>::MAX.wrapping_sub(<$t>::from_be_bytes(bytes)))
            }
            #[inline(always)]
            fn as_u64(self) -> u64 {
                self as u64
            }
        }
    )*};
}
desc_ts_signed!(i64, i32);

macro_rules! desc_ts_unsigned {
    ($($t:ty => $s:ty),*) => {$(
        impl DescTimestamp for $t {
            type Bytes = [u8; core::mem::size_of::<$t>()];
            const MAX: u64 = <$s>::MAX as u64;
            #[inline(always)]
            fn to_desc_ts(self) -> Option<Self::Bytes> {
                let signed = <$s>::try_from(self).ok()?;
                Some((<$s>::MAX - signed).to_be_bytes())
            }
            #[inline(always)]
            fn from_desc_ts(bytes: Self::Bytes) -> Option<Self> {
                let stored = <$s>::from_be_bytes(bytes);
                if stored < 0 {
                    return None;
                }
                Some((<$s>::MAX - stored) as $t)
            }
            #[inline(always)]
            fn as_u64(self) -> u64 {
                self as u64
            }
        }
    )*};
}
desc_ts_unsigned!(u64 => i64, u32 => i32);
