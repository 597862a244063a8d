//! Timestamps of chrono, time and jiff: the value as an `i64` of its
//! unit, through the derive's own timestamp codecs.

use core::fmt;

use super::super::value::{FromValue, Value};
use crate::format::codec::{Added, Asc, Desc, DescTs, FieldDecode, Fixed, Fwd, Opt, Rev};
use crate::format::error::DecodeError;
use crate::layout::explain::read_opaque;
use crate::layout::FieldLayout;

use super::*;

/// A timestamp field of a type the runtime knows by name (chrono's
/// `DateTime<Utc>`, time's `OffsetDateTime` and `PrimitiveDateTime`,
/// `jiff::Timestamp`): its value is the `i64` of its unit and its bytes
/// are the `i64` codec's (`base`), as `Ts` writes them; decoding goes
/// through `Ts` and the type itself (so a tick the type cannot hold is the
/// derive's error), and explain shows the time as the derive does; in
/// the `Option` and `added` wrappers as the derive puts them.
#[cfg(any(feature = "chrono", feature = "time", feature = "jiff"))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn time<T: crate::TimeField>(
    base: Ops,
    unit: crate::TimeUnit,
    desc_ts: bool,
    desc: bool,
    dir: Dir,
    option: bool,
    added: bool,
) -> Ops {
    use crate::format::timestamp::{Micros, Millis, Nanos, Secs, Ts};

    /// The derive's codec `C` over the time type `T` checks the bytes and
    /// shows the value; the `i64` codec `B` (the same bytes) gives it.
    fn with<C, T, B, I>(base: Ops) -> Ops
    where
        C: for<'de> FieldDecode<'de, T>,
        B: for<'de> FieldDecode<'de, I>,
        I: FromValue,
    {
        fn decode<C, T, B, I>(
            input: &[u8],
            pos: usize,
            f: &FieldLayout,
            out: &mut Vec<Value>,
        ) -> Result<usize, DecodeError>
        where
            C: for<'de> FieldDecode<'de, T>,
            B: for<'de> FieldDecode<'de, I>,
            I: FromValue,
        {
            C::decode(input, pos, f.name())?;
            let (ticks, end) = B::decode(input, pos, f.name())?;
            out.push(ticks.into_value());
            Ok(end)
        }
        Ops {
            decode: decode::<C, T, B, I>,
            read: read_opaque::<C, T>,
            ..base
        }
    }
    // The Option's order follows the field's, `desc_ts` included.
    let opt_desc = desc || desc_ts;
    macro_rules! wrap {
        ($u:ty, $b:ty) => {
            match (option, added, opt_desc) {
                (false, ..) => with::<Ts<$u, $b>, T, $b, i64>(base),
                (true, false, false) => {
                    with::<Opt<Ts<$u, $b>, Asc>, Option<T>, Opt<$b, Asc>, Option<i64>>(base)
                }
                (true, false, true) => {
                    with::<Opt<Ts<$u, $b>, Desc>, Option<T>, Opt<$b, Desc>, Option<i64>>(base)
                }
                (true, true, false) => with::<
                    Added<Opt<Ts<$u, $b>, Asc>>,
                    Option<T>,
                    Added<Opt<$b, Asc>>,
                    Option<i64>,
                >(base),
                (true, true, true) => with::<
                    Added<Opt<Ts<$u, $b>, Desc>>,
                    Option<T>,
                    Added<Opt<$b, Desc>>,
                    Option<i64>,
                >(base),
            }
        };
    }
    macro_rules! unit {
        ($u:ty) => {
            match (desc_ts, desc, dir) {
                (true, ..) => wrap!($u, DescTs),
                (false, false, Dir::Rev) => wrap!($u, Fixed<Asc, Rev>),
                (false, true, Dir::Rev) => wrap!($u, Fixed<Desc, Rev>),
                (false, false, _) => wrap!($u, Fixed<Asc, Fwd>),
                (false, true, _) => wrap!($u, Fixed<Desc, Fwd>),
            }
        };
    }
    match unit {
        crate::TimeUnit::Secs => unit!(Secs),
        crate::TimeUnit::Millis => unit!(Millis),
        crate::TimeUnit::Micros => unit!(Micros),
        crate::TimeUnit::Nanos => unit!(Nanos),
    }
}

/// [`time`] in a text key: the digits (`Dec`, `TextDescTs`) read at run
/// time, the value checked and shown through the type as `Ts` does.
#[cfg(any(feature = "chrono", feature = "time", feature = "jiff"))]
pub(crate) fn text_time<T: crate::TimeField>(
    base: Ops,
    unit: crate::TimeUnit,
    desc_ts: bool,
    dir: Dir,
) -> Ops {
    use crate::format::timestamp::{Micros, Millis, Nanos, Secs, Unit};

    fn time_of<T: crate::TimeField, U: Unit>(
        ticks: i64,
        f: &FieldLayout,
    ) -> Result<T, DecodeError> {
        T::from_instant(U::UNIT.instant(ticks)).map_err(|_| DecodeError::InvalidValue {
            field: f.name(),
            reason: "the stored timestamp is outside the range of the field's type",
        })
    }
    fn decode<B: RtCodec<T = i64>, T: crate::TimeField, U: Unit>(
        input: &[u8],
        pos: usize,
        f: &FieldLayout,
        out: &mut Vec<Value>,
    ) -> Result<usize, DecodeError> {
        let (ticks, end) = B::decode(input, pos, f)?;
        time_of::<T, U>(ticks, f)?;
        out.push(Value::I64(ticks));
        Ok(end)
    }
    fn read<B: RtCodec<T = i64>, T: crate::TimeField, U: Unit>(
        input: &[u8],
        pos: usize,
        f: &FieldLayout,
        out: &mut dyn fmt::Write,
    ) -> Result<(usize, Option<i128>), DecodeError> {
        let (ticks, end) = B::decode(input, pos, f)?;
        let t = time_of::<T, U>(ticks, f)?;
        let mut described = alloc::string::String::new();
        let _ = t.describe(&mut described);
        crate::layout::explain::show_described::<T>(&described, out);
        Ok((end, None))
    }
    fn with<B: RtCodec<T = i64>, T: crate::TimeField, U: Unit>(base: Ops) -> Ops {
        Ops {
            decode: decode::<B, T, U>,
            read: read::<B, T, U>,
            ..base
        }
    }
    macro_rules! unit {
        ($u:ty) => {
            match (desc_ts, dir) {
                (true, _) => with::<TextDescTsRt<i64>, T, $u>(base),
                (false, Dir::Rev) => with::<DigitsRt<i64, Rev>, T, $u>(base),
                (false, _) => with::<DigitsRt<i64, Fwd>, T, $u>(base),
            }
        };
    }
    match unit {
        crate::TimeUnit::Secs => unit!(Secs),
        crate::TimeUnit::Millis => unit!(Millis),
        crate::TimeUnit::Micros => unit!(Micros),
        crate::TimeUnit::Nanos => unit!(Nanos),
    }
}
