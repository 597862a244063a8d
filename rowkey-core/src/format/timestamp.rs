//! Timestamp fields: `chrono::DateTime<Utc>`, `time::OffsetDateTime` and
//! `time::PrimitiveDateTime`, `jiff::Timestamp` (each behind the feature of
//! its crate's name), and your own types through [`TimeField`].
//!
//! A timestamp is stored as an `i64` count of its field's unit since the
//! Unix epoch, chosen with `#[ts(secs)]`, `#[ts(millis)]` (the default, as
//! HBase's and Java's `System.currentTimeMillis()`), `#[ts(micros)]` or
//! `#[ts(nanos)]`. From there it is an `i64` field: 8 big-endian bytes with
//! the sign flipped, `#[desc_ts]` as `i64::MAX - ts` (byte for byte
//! `Long.MAX_VALUE - millis` at millisecond resolution), or digits in a
//! text key.
//!
//! Nothing is rounded: a value finer than the unit (`12:00:00.000_5` at
//! `#[ts(millis)]`), outside the `i64` range of the unit (nanoseconds
//! cover 1677 to 2262), a leap second, or an `OffsetDateTime` whose offset
//! is not UTC is an [`EncodeError`] naming the field. Round first (chrono's
//! `DurationRound`, time's `replace_millisecond`, jiff's `round`), or pick
//! a finer unit.
//!
#![cfg_attr(
    all(feature = "derive", feature = "alloc", feature = "chrono"),
    doc = "```"
)]
#![cfg_attr(
    not(all(feature = "derive", feature = "alloc", feature = "chrono")),
    doc = "```ignore"
)]
//! use chrono::{DateTime, TimeZone, Utc};
//! use rowkey_core::prelude::*;
//!
//! #[derive(RowKey, Debug, PartialEq)]
//! struct Reading {
//!     sensor: u32,
//!     #[desc_ts]
//!     #[ts(millis)]
//!     at: DateTime<Utc>,
//! }
//!
//! let at = Utc.timestamp_millis_opt(1_700_000_000_123).unwrap();
//! let key = Reading { sensor: 7, at }.try_encode()?;
//! assert_eq!(key[4..], (i64::MAX - 1_700_000_000_123).to_be_bytes());
//! assert_eq!(Reading::decode(&key)?.at, at);
//!
//! // A microsecond more is finer than #[ts(millis)] keeps: an error, not a rounding.
//! let finer = at + chrono::Duration::microseconds(1);
//! let err = Reading { sensor: 7, at: finer }.try_encode().unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "field `at`: the timestamp is finer than #[ts(millis)] stores; round it to whole milliseconds first, or choose a finer unit"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::fmt;
use core::marker::PhantomData;

use crate::format::codec::{Bounded, Decoded, Encoded, FieldCodec, FieldDecode, Rounded};
use crate::format::error::{DecodeError, EncodeError};
use crate::format::time::write_rfc3339;
pub use crate::format::time::{Instant, TimeError, TimeUnit};

/// A point in time that can be a key field: it converts to and from an
/// [`Instant`] exactly.
///
/// Implemented for `chrono::DateTime<Utc>`, `time::OffsetDateTime`,
/// `time::PrimitiveDateTime` (read as UTC) and `jiff::Timestamp` under the
/// features of their crates' names. Implement it for your own type and mark
/// its field `#[ts(...)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a timestamp field type: it does not implement `rowkey_core::TimeField`",
    label = "not a timestamp rowkey knows",
    note = "`chrono::DateTime<Utc>` needs rowkey-core's feature `chrono`; `time::OffsetDateTime` and `time::PrimitiveDateTime` need `time`; `jiff::Timestamp` needs `jiff`, e.g. rowkey-core = {{ version = \"0.1\", features = [\"chrono\"] }}",
    note = "#[ts(...)] sets a timestamp's unit; an integer field already is its own unit"
)]
pub trait TimeField: Sized {
    /// The instant, exactly; [`TimeError::NotUtc`] or
    /// [`TimeError::LeapSecond`] where it has none of its own.
    fn to_instant(&self) -> Result<Instant, TimeError>;
    /// The value at `instant`; [`TimeError::OutOfRange`] outside the type's
    /// range.
    fn from_instant(instant: Instant) -> Result<Self, TimeError>;
    /// How [`explain`](crate::RowKey::explain) shows the value: RFC 3339
    /// by default.
    fn describe(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        match self.to_instant().ok().and_then(Instant::split) {
            Some((secs, nanos)) => write_rfc3339(secs, nanos, out),
            None => Ok(()),
        }
    }
}

/// A unit as a type, for the codec: [`Secs`], [`Millis`], [`Micros`],
/// [`Nanos`].
#[doc(hidden)]
pub trait Unit {
    const UNIT: TimeUnit;
}

macro_rules! units {
    ($($name:ident),*) => {$(
        #[doc(hidden)]
        pub enum $name {}
        impl Unit for $name {
            const UNIT: TimeUnit = TimeUnit::$name;
        }
    )*};
}
units!(Secs, Millis, Micros, Nanos);

/// A timestamp field in unit `U`, stored by the `i64` codec `C`
/// (`Fixed`, `DescTs`, `Dec` or `TextDescTs`).
#[doc(hidden)]
pub struct Ts<U, C>(PhantomData<(U, C)>);

impl<T: TimeField, U: Unit, C: FieldCodec<i64>> FieldCodec<T> for Ts<U, C> {
    const FIXED_LEN: Option<usize> = C::FIXED_LEN;
    const MIN_LEN: usize = C::MIN_LEN;
    const DESC: bool = C::DESC;
    const RAW: bool = false;
    #[inline(always)]
    fn encoded_len(_: &T) -> usize {
        C::encoded_len(&0)
    }
    #[inline]
    fn encode(value: &T, out: &mut [u8], pos: usize, field: &'static str) -> Encoded {
        let ticks = value
            .to_instant()
            .and_then(|i| U::UNIT.ticks(i))
            .map_err(|error| EncodeError::Time {
                field,
                unit: U::UNIT,
                error,
            })?;
        C::encode(&ticks, out, pos, field)
    }

    /// A bound finer than the unit: the tick above it (`up`) or below it.
    #[inline]
    fn encode_bound(v: &T, up: bool, out: &mut [u8], at: usize, field: &'static str) -> Bounded {
        let error = |error| EncodeError::Time {
            field,
            unit: U::UNIT,
            error,
        };
        let nanos = v.to_instant().map_err(error)?.0;
        let per = U::UNIT.nanos();
        let (ticks, rounded) = match (nanos.rem_euclid(per), up) {
            (0, _) => (nanos / per, Rounded::Exact),
            (_, true) => (nanos.div_euclid(per) + 1, Rounded::Above),
            (_, false) => (nanos.div_euclid(per), Rounded::Below),
        };
        let ticks = i64::try_from(ticks).map_err(|_| error(TimeError::OutOfRange))?;
        C::encode(&ticks, out, at, field).map(|p| (p, rounded))
    }
}

impl<'de, T: TimeField, U: Unit, C: FieldDecode<'de, i64>> FieldDecode<'de, T> for Ts<U, C> {
    #[inline]
    fn decode(input: &'de [u8], pos: usize, field: &'static str) -> Decoded<T> {
        let (ticks, end) = C::decode(input, pos, field)?;
        let value =
            T::from_instant(U::UNIT.instant(ticks)).map_err(|_| DecodeError::InvalidValue {
                field,
                reason: "the stored timestamp is outside the range of the field's type",
            })?;
        Ok((value, end))
    }

    fn describe(value: &T, out: &mut dyn fmt::Write) -> fmt::Result {
        value.describe(out)
    }
}

#[cfg(feature = "chrono")]
impl TimeField for chrono::DateTime<chrono::Utc> {
    fn to_instant(&self) -> Result<Instant, TimeError> {
        let nanos = self.timestamp_subsec_nanos();
        // chrono keeps a leap second as nanoseconds past 1_000_000_000.
        if nanos >= 1_000_000_000 {
            return Err(TimeError::LeapSecond);
        }
        Ok(Instant::new(self.timestamp(), nanos))
    }
    fn from_instant(instant: Instant) -> Result<Self, TimeError> {
        let (secs, nanos) = instant.split().ok_or(TimeError::OutOfRange)?;
        chrono::DateTime::from_timestamp(secs, nanos).ok_or(TimeError::OutOfRange)
    }
}

#[cfg(feature = "time")]
impl TimeField for time::OffsetDateTime {
    fn to_instant(&self) -> Result<Instant, TimeError> {
        if !self.offset().is_utc() {
            return Err(TimeError::NotUtc);
        }
        Ok(Instant(self.unix_timestamp_nanos()))
    }
    fn from_instant(instant: Instant) -> Result<Self, TimeError> {
        time::OffsetDateTime::from_unix_timestamp_nanos(instant.0)
            .map_err(|_| TimeError::OutOfRange)
    }
}

#[cfg(feature = "time")]
impl TimeField for time::PrimitiveDateTime {
    fn to_instant(&self) -> Result<Instant, TimeError> {
        Ok(Instant(self.assume_utc().unix_timestamp_nanos()))
    }
    fn from_instant(instant: Instant) -> Result<Self, TimeError> {
        let t = time::OffsetDateTime::from_instant(instant)?;
        Ok(time::PrimitiveDateTime::new(t.date(), t.time()))
    }
}

#[cfg(feature = "jiff")]
impl TimeField for jiff::Timestamp {
    fn to_instant(&self) -> Result<Instant, TimeError> {
        Ok(Instant(self.as_nanosecond()))
    }
    fn from_instant(instant: Instant) -> Result<Self, TimeError> {
        jiff::Timestamp::from_nanosecond(instant.0).map_err(|_| TimeError::OutOfRange)
    }
}
