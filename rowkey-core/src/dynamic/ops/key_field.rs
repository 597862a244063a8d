//! `KeyField` enums: a field stored as its discriminant, checked against
//! the variants its descriptor lists.

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use super::super::value::{FromValue, Value};
use crate::format::codec::{Added, Asc, Desc, FieldCodec, FieldDecode, Fixed, Fwd, Opt, Rev};
use crate::format::error::{DecodeError, EncodeError};
use crate::format::text::Decimal;
use crate::layout::explain::Show;
use crate::layout::{FieldLayout, FieldWidth};

use super::*;

/// A `#[derive(KeyField)]` enum's repr integer `T` (or `Option<T>`), as
/// the key stores it: read as the integer, but only a discriminant of one
/// of the enum's variants (the field's [`KeyFieldInfo`]) is a value of it,
/// as the enum's own `from_key_bytes` decides in a derived type.
///
/// [`KeyFieldInfo`]: crate::KeyFieldInfo
pub(crate) trait EnumInt {
    /// The discriminant, `None` for `None`.
    fn discriminant(&self) -> Option<i128>;
}

macro_rules! enum_int {
    ($($t:ty),*) => {$(
        impl EnumInt for $t {
            fn discriminant(&self) -> Option<i128> {
                Some(*self as i128)
            }
        }
    )*};
}
enum_int!(u8, u16, u32, u64, u128, i8, i16, i32, i64, i128);

impl<T: EnumInt> EnumInt for Option<T> {
    fn discriminant(&self) -> Option<i128> {
        self.as_ref().and_then(EnumInt::discriminant)
    }
}

pub(super) fn variants(f: &FieldLayout) -> &crate::KeyFieldInfo {
    f.key_field()
        .expect("enum ops on a field with its variants")
}

/// The variant of a discriminant, or the enum's own error.
pub(super) fn variant_of(d: i128, f: &FieldLayout) -> Result<&'static str, DecodeError> {
    let info = variants(f);
    info.variant(d).ok_or(DecodeError::InvalidValue {
        field: f.name(),
        reason: info.invalid(),
    })
}

/// Refuses an enum value that is no variant's discriminant, listing the
/// variants.
pub(super) fn check_variant(x: &impl EnumInt, f: &FieldLayout) -> Result<(), EncodeError> {
    let info = variants(f);
    match x.discriminant() {
        Some(value) if info.variant(value).is_none() => Err(EncodeError::NotAVariant {
            field: f.name(),
            enum_name: info.name(),
            variants: info.variants(),
        }),
        _ => Ok(()),
    }
}

/// Explain shows the variant and the type, as the derive shows a
/// `KeyField` enum: `View (Kind)`, `None (Option<Kind>)`.
pub(super) fn show_variant(
    x: &impl EnumInt,
    f: &FieldLayout,
    out: &mut dyn fmt::Write,
) -> Result<(), DecodeError> {
    let described = match x.discriminant() {
        Some(d) => variant_of(d, f)?,
        None => "None",
    };
    let ty = crate::layout::explain::strip_paths(f.ty());
    let _ = write!(out, "{described} ({ty})");
    Ok(())
}

pub(super) fn enum_encode<C: FieldCodec<X>, X: FromValue + EnumInt>(
    v: &Value,
    out: &mut Vec<u8>,
    f: &FieldLayout,
) -> Result<(), EncodeError> {
    check_variant(&value_of::<X>(v, f)?, f)?;
    encode::<C, X>(v, out, f)
}

pub(super) fn enum_decode<C: for<'de> FieldDecode<'de, X>, X: FromValue + EnumInt>(
    input: &[u8],
    pos: usize,
    f: &FieldLayout,
    out: &mut Vec<Value>,
) -> Result<usize, DecodeError> {
    let (x, end) = C::decode(input, pos, f.name())?;
    if let Some(d) = x.discriminant() {
        variant_of(d, f)?;
    }
    out.push(x.into_value());
    Ok(end)
}

/// Explain's reader of an enum field: [`show_variant`].
pub(super) fn enum_read<C: for<'de> FieldDecode<'de, X>, X: EnumInt>(
    input: &[u8],
    pos: usize,
    f: &FieldLayout,
    out: &mut dyn fmt::Write,
) -> Result<(usize, Option<i128>), DecodeError> {
    let (x, end) = C::decode(input, pos, f.name())?;
    show_variant(&x, f, out)?;
    Ok((end, None))
}

pub(super) fn enum_ops_of<C, X>() -> Ops
where
    C: FieldCodec<X> + for<'de> FieldDecode<'de, X>,
    X: FromValue + EnumInt,
{
    Ops {
        width: C::LAYOUT_WIDTH,
        encode: enum_encode::<C, X>,
        decode: enum_decode::<C, X>,
        read: enum_read::<C, X>,
        constrain: constrain::<C, X>,
        modulo: None,
    }
}

pub(super) fn enum_wrapped<C, T>(desc: bool, option: bool, added: bool) -> Ops
where
    C: FieldCodec<T> + for<'de> FieldDecode<'de, T>,
    T: FromValue + EnumInt,
{
    match (option, added, desc) {
        (true, false, false) => enum_ops_of::<Opt<C, Asc>, Option<T>>(),
        (true, false, true) => enum_ops_of::<Opt<C, Desc>, Option<T>>(),
        (true, true, false) => enum_ops_of::<Added<Opt<C, Asc>>, Option<T>>(),
        (true, true, true) => enum_ops_of::<Added<Opt<C, Desc>>, Option<T>>(),
        (false, ..) => enum_ops_of::<C, T>(),
    }
}

/// A `#[derive(KeyField)]` enum of repr `T` in a binary key: the
/// discriminant under `#[desc]`/`#[reverse]`, in an `Option` or added.
pub(crate) fn key_field<T>(desc: bool, dir: Dir, option: bool, added: bool) -> Ops
where
    T: crate::FixedField + FromValue + EnumInt,
{
    match (desc, dir) {
        (false, Dir::Rev) => enum_wrapped::<Fixed<Asc, Rev>, T>(desc, option, added),
        (true, Dir::Rev) => enum_wrapped::<Fixed<Desc, Rev>, T>(desc, option, added),
        (false, _) => enum_wrapped::<Fixed<Asc, Fwd>, T>(desc, option, added),
        (true, _) => enum_wrapped::<Fixed<Desc, Fwd>, T>(desc, option, added),
    }
}

/// A run-time codec `C` over a `KeyField` enum's repr integer: only the
/// discriminants of the field's variants are values (a text key's enum,
/// its discriminant's digits).
pub(super) struct EnumRt<C>(PhantomData<C>);

impl<C: RtCodec> RtCodec for EnumRt<C>
where
    C::T: EnumInt,
{
    type T = C::T;
    fn encode(v: &C::T, f: &FieldLayout, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        check_variant(v, f)?;
        C::encode(v, f, out)
    }
    fn encode_value(v: &Value, f: &FieldLayout, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let t: C::T = value_of(v, f)?;
        check_variant(&t, f)?;
        C::encode(&t, f, out)
    }
    fn decode(input: &[u8], pos: usize, f: &FieldLayout) -> Result<(C::T, usize), DecodeError> {
        let (t, end) = C::decode(input, pos, f)?;
        match t.discriminant() {
            // The derive's error: the enum's `Decimal::join` has no value.
            Some(d) if variants(f).variant(d).is_none() => Err(DecodeError::InvalidValue {
                field: f.name(),
                reason: crate::format::text::DIGITS_OUT_OF_RANGE,
            }),
            _ => Ok((t, end)),
        }
    }
}

/// Explain's reader of [`EnumRt`]: [`show_variant`].
pub(super) fn enum_rt_read<C: RtCodec>(
    input: &[u8],
    pos: usize,
    f: &FieldLayout,
    out: &mut dyn fmt::Write,
) -> Result<(usize, Option<i128>), DecodeError>
where
    C::T: EnumInt,
{
    let (t, end) = EnumRt::<C>::decode(input, pos, f)?;
    show_variant(&t, f, out)?;
    Ok((end, None))
}

/// A `#[derive(KeyField)]` enum of repr `T` in a text key: its
/// discriminant's digits (`Dec`), `width` with the separator.
pub(crate) fn key_field_digits<T>(width: usize, dir: Dir) -> Ops
where
    T: Decimal + FromValue + Show + EnumInt,
{
    let width = FieldWidth::Fixed(width);
    match dir {
        Dir::Rev => {
            rt_ops_reading::<EnumRt<DigitsRt<T, Rev>>>(width, enum_rt_read::<DigitsRt<T, Rev>>)
        }
        _ => rt_ops_reading::<EnumRt<DigitsRt<T, Fwd>>>(width, enum_rt_read::<DigitsRt<T, Fwd>>),
    }
}
