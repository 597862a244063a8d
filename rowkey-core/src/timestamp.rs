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

use crate::codec::{FieldCodec, FieldDecode};
use crate::error::{DecodeError, EncodeError};

/// A timestamp field's resolution: `#[ts(secs | millis | micros | nanos)]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TimeUnit {
    /// `#[ts(secs)]`: whole seconds.
    Secs = 0,
    /// `#[ts(millis)]`, the default: milliseconds, as Java's
    /// `System.currentTimeMillis()`.
    Millis = 1,
    /// `#[ts(micros)]`: microseconds, as Bigtable cell timestamps.
    Micros = 2,
    /// `#[ts(nanos)]`: nanoseconds (1677-09-21 to 2262-04-11 fit in an `i64`).
    Nanos = 3,
}

impl TimeUnit {
    /// Nanoseconds per unit.
    pub const fn nanos(self) -> i128 {
        match self {
            TimeUnit::Secs => 1_000_000_000,
            TimeUnit::Millis => 1_000_000,
            TimeUnit::Micros => 1_000,
            TimeUnit::Nanos => 1,
        }
    }

    /// The attribute's word: `secs`, `millis`, `micros` or `nanos`.
    pub const fn name(self) -> &'static str {
        match self {
            TimeUnit::Secs => "secs",
            TimeUnit::Millis => "millis",
            TimeUnit::Micros => "micros",
            TimeUnit::Nanos => "nanos",
        }
    }

    /// The unit in words, plural: `milliseconds`.
    pub const fn plural(self) -> &'static str {
        match self {
            TimeUnit::Secs => "seconds",
            TimeUnit::Millis => "milliseconds",
            TimeUnit::Micros => "microseconds",
            TimeUnit::Nanos => "nanoseconds",
        }
    }

    /// `instant` as a whole number of this unit since the epoch: exact, or
    /// the reason it cannot be.
    pub fn ticks(self, instant: Instant) -> Result<i64, TimeError> {
        let nanos = instant.0;
        let per = self.nanos();
        if nanos.rem_euclid(per) != 0 {
            return Err(TimeError::Precision);
        }
        i64::try_from(nanos.div_euclid(per)).map_err(|_| TimeError::OutOfRange)
    }

    /// The instant `ticks` units after the epoch.
    pub const fn instant(self, ticks: i64) -> Instant {
        Instant(ticks as i128 * self.nanos())
    }
}

impl fmt::Display for TimeUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An instant as nanoseconds since the Unix epoch (negative before it):
/// what a [`TimeField`] converts to and from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant(pub i128);

impl Instant {
    /// `secs` seconds and `nanos` nanoseconds after the epoch.
    pub const fn new(secs: i64, nanos: u32) -> Instant {
        Instant(secs as i128 * 1_000_000_000 + nanos as i128)
    }

    /// Whole seconds since the epoch, rounded down, and the nanoseconds
    /// after them (`0..1_000_000_000`); `None` beyond `i64` seconds.
    pub fn split(self) -> Option<(i64, u32)> {
        let secs = i64::try_from(self.0.div_euclid(1_000_000_000)).ok()?;
        Some((secs, self.0.rem_euclid(1_000_000_000) as u32))
    }
}

/// Why a timestamp cannot be stored or read back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TimeError {
    /// The value is finer than the unit.
    Precision,
    /// The value in the unit does not fit in an `i64`, or the stored value
    /// is outside the type's range.
    OutOfRange,
    /// An `OffsetDateTime` whose offset is not UTC: storing its instant
    /// would lose the offset.
    NotUtc,
    /// A leap second (`23:59:60`), which has no Unix timestamp of its own.
    LeapSecond,
}

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

/// Writes `secs` and `nanos` after the epoch as RFC 3339 in UTC, with as
/// many fractional digits as it needs (`2023-11-14T22:13:20.123Z`).
pub(crate) fn write_rfc3339(secs: i64, nanos: u32, out: &mut dyn fmt::Write) -> fmt::Result {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    write!(
        out,
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )?;
    if nanos != 0 {
        let mut digits = 9;
        let mut n = nanos;
        while n % 10 == 0 {
            n /= 10;
            digits -= 1;
        }
        write!(out, ".{n:0digits$}")?;
    }
    out.write_str("Z")
}

/// Howard Hinnant's `civil_from_days`: the proleptic Gregorian date of a
/// day number (0 = 1970-01-01).
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
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
    fn encode(
        value: &T,
        out: &mut [u8],
        pos: usize,
        field: &'static str,
    ) -> Result<usize, EncodeError> {
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
}

impl<'de, T: TimeField, U: Unit, C: FieldDecode<'de, i64>> FieldDecode<'de, T> for Ts<U, C> {
    #[inline]
    fn decode(
        input: &'de [u8],
        pos: usize,
        field: &'static str,
    ) -> Result<(T, usize), DecodeError> {
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
