//! A client's clock for the timestamps it writes: [`Clock`].

use core::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A clock whose readings strictly increase: the wall clock in
/// milliseconds, or one more than the last reading when that is not
/// behind it (two readings in one millisecond, or a wall clock stepped
/// back). Shared by reference (`&self`); the readings of all its users
/// are distinct.
///
/// The clients that stamp their own writes read one: HBase's with
/// client timestamps, the tables a service writes during a migration.
///
/// ```
/// let clock = rowkey_core::clock::Clock::default();
/// let (a, b) = (clock.next(), clock.next());
/// assert!(b > a);
/// ```
#[derive(Debug, Default)]
pub struct Clock(AtomicI64);

impl Clock {
    /// The next reading, in milliseconds since the Unix epoch.
    pub fn next(&self) -> i64 {
        let now = now_millis();
        let mut last = self.0.load(Ordering::Relaxed);
        loop {
            let next = now.max(last.saturating_add(1));
            match self
                .0
                .compare_exchange_weak(last, next, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return next,
                Err(seen) => last = seen,
            }
        }
    }
}

/// The wall clock in milliseconds since the Unix epoch (0 before it).
pub fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
