//! Time units and instants: what the timestamp codecs, the errors and
//! `explain` share, below all of them (it imports nothing of the crate).

use core::fmt;

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
/// what a `TimeField` converts to and from.
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

/// Writes `secs` and `nanos` after the epoch as RFC 3339 in UTC, with as
/// many fractional digits as it needs (`2023-11-14T22:13:20.123Z`).
pub(crate) fn write_rfc3339(secs: i64, nanos: u32, out: &mut dyn fmt::Write) -> fmt::Result {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(i128::from(days));
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
pub(crate) fn civil_from_days(days: i128) -> (i128, u32, u32) {
    let z = days + 719_468;
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
