//! A client's time: the clock it stamps its writes with ([`Clock`]), and
//! how it tries a call again ([`RetryPolicy`], its pauses [`backoff`] and
//! [`jitter`]), one for every engine's client (HBase's gateway and native
//! clients, Bigtable's).

use core::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use core::time::Duration;
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

/// The pause before a retry after `failures` failures in a row (0 for the
/// first retry): random, up to `base × 2^failures`, at most `max`
/// (exponential backoff with "full jitter", so that clients that failed
/// together do not retry together).
///
/// ```
/// use std::time::Duration;
/// use rowkey_core::clock::backoff;
///
/// let (base, max) = (Duration::from_millis(100), Duration::from_secs(5));
/// assert!(backoff(base, max, 0) <= base);
/// assert!(backoff(base, max, 3) <= base * 8);
/// assert!(backoff(base, max, 40) <= max);
/// ```
pub fn backoff(base: Duration, max: Duration, failures: u32) -> Duration {
    jitter(base.saturating_mul(1 << failures.min(30)).min(max))
}

/// How calls are tried again: at most `attempts` tries in all, pausing
/// before retry number `n` for a random time up to `base × 2^(n − 1)`,
/// capped at `max` ("full jitter", so that clients that failed together do
/// not retry together), and never past the call's deadline (the client's
/// own). What is worth retrying is each engine's (a moved region, an
/// `UNAVAILABLE` status); how often and how long to wait is this, written
/// once.
///
/// The default is HBase's Java client's pause (`hbase.client.pause`,
/// 100 ms) with 5 attempts and pauses of at most 5 s; Bigtable's client
/// starts from [`RetryPolicy::bigtable`].
///
/// ```
/// use std::time::Duration;
/// use rowkey_core::clock::RetryPolicy;
///
/// let policy = RetryPolicy { attempts: 3, ..RetryPolicy::default() };
/// assert!(policy.pause(1) <= Duration::from_millis(100));
/// assert!(policy.pause(9) <= Duration::from_secs(5));
/// assert!(policy.may_try_again(2) && !policy.may_try_again(3));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Tries in all, the first included (1: no retry).
    pub attempts: u32,
    /// The longest pause before the first retry.
    pub base: Duration,
    /// The longest pause before any retry.
    pub max: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 5,
            base: Duration::from_millis(100),
            max: Duration::from_secs(5),
        }
    }
}

impl RetryPolicy {
    /// No retries.
    pub fn none() -> RetryPolicy {
        RetryPolicy {
            attempts: 1,
            ..RetryPolicy::default()
        }
    }

    /// Bigtable's: 5 tries, pauses from 50 ms up to 2 s (a streamed read
    /// resumes where it stopped, so it may retry soon and often).
    pub fn bigtable() -> RetryPolicy {
        RetryPolicy {
            attempts: 5,
            base: Duration::from_millis(50),
            max: Duration::from_secs(2),
        }
    }

    /// Whether a call that made `tries` tries, all failed, may try again.
    pub fn may_try_again(&self, tries: u32) -> bool {
        tries < self.attempts
    }

    /// The pause before retry number `retry` (1 for the first): random, up
    /// to `min(max, base × 2^(retry − 1))`.
    pub fn pause(&self, retry: u32) -> Duration {
        backoff(self.base, self.max, retry.saturating_sub(1))
    }
}

/// A random pause up to `ceiling`, included.
pub fn jitter(ceiling: Duration) -> Duration {
    let nanos = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX);
    Duration::from_nanos(random() % nanos.saturating_add(1))
}

/// A random number for jitter: splitmix64 over a counter seeded by the
/// clock (jitter needs spread, not secrecy).
fn random() -> u64 {
    static STATE: AtomicU64 = AtomicU64::new(0);
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut z = STATE
        .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
        .wrapping_add(seed);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_stays_within_its_ceiling_and_spreads() {
        let ceiling = Duration::from_millis(100);
        let pauses: std::vec::Vec<Duration> = (0..200).map(|_| jitter(ceiling)).collect();
        assert!(pauses.iter().all(|p| *p <= ceiling));
        let distinct: std::collections::BTreeSet<_> = pauses.iter().collect();
        assert!(distinct.len() > 150, "{} distinct pauses", distinct.len());
        assert!(pauses.iter().any(|p| *p < ceiling / 2));
        assert!(pauses.iter().any(|p| *p > ceiling / 2));
        assert_eq!(jitter(Duration::ZERO), Duration::ZERO);
    }

    #[test]
    fn backoff_doubles_its_ceiling_up_to_the_most() {
        let (base, max) = (Duration::from_millis(10), Duration::from_millis(70));
        for failures in 0..40 {
            let ceiling = base.saturating_mul(1 << failures.min(30)).min(max);
            let most = (0..100)
                .map(|_| backoff(base, max, failures))
                .max()
                .unwrap();
            assert!(most <= ceiling, "{failures}: {most:?} over {ceiling:?}");
            assert!(
                most > ceiling / 2,
                "{failures}: {most:?} spreads to {ceiling:?}"
            );
        }
    }

    #[test]
    fn the_clock_strictly_increases_across_threads() {
        let clock = Clock::default();
        let mut all: std::vec::Vec<i64> = std::thread::scope(|s| {
            let handles: std::vec::Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        (0..1_000)
                            .map(|_| clock.next())
                            .collect::<std::vec::Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap())
                .collect()
        });
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "every reading distinct");
    }
}
