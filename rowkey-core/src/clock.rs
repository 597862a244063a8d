//! A client's machinery, written once for every engine's client (HBase's
//! gateway and native clients, Bigtable's): the clock it stamps its writes
//! with ([`Clock`]); how it tries a call again ([`RetryPolicy`], its
//! pauses [`backoff`] and [`jitter`]) within the call's deadline
//! ([`Tries`], [`deadline_after`]); and what it counts of its calls
//! ([`CallCounters`]).

use core::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use core::time::Duration;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

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

/// The deadline of a call that may take `timeout` from now: far in the
/// future (not a panic) for a timeout too long for the clock, such as
/// `Duration::MAX` for "no deadline".
///
/// ```
/// use std::time::{Duration, Instant};
/// use rowkey_core::clock::deadline_after;
///
/// let start = Instant::now();
/// assert!(deadline_after(Duration::from_secs(1)) >= start + Duration::from_secs(1));
/// assert!(deadline_after(Duration::MAX) > start + Duration::from_secs(86_400 * 365));
/// ```
pub fn deadline_after(timeout: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(timeout)
        .or_else(|| now.checked_add(Duration::from_secs(100 * 365 * 86_400)))
        .unwrap_or(now)
}

/// The tries of one call under a [`RetryPolicy`] and a deadline. After
/// each failure worth retrying, [`Tries::retry`] gives the pause before the
/// next try, or why there is none: the policy's tries are spent, or the
/// pause would end past the deadline. The HBase clients (gateway and
/// native) and Bigtable's keep their calls' tries in one, so this rule is
/// written once; which failures are worth retrying stays each engine's.
///
/// ```
/// use std::time::{Duration, Instant};
/// use rowkey_core::clock::{deadline_after, RetryPolicy, Spent, Tries};
///
/// let policy = RetryPolicy { attempts: 3, ..RetryPolicy::default() };
/// let mut tries = Tries::new(policy, deadline_after(Duration::from_secs(60)));
/// assert!(tries.retry().unwrap() <= Duration::from_millis(100));
/// assert!(tries.retry().unwrap() <= Duration::from_millis(200));
/// assert_eq!(tries.retry(), Err(Spent::Attempts(3)));
///
/// // No try starts past the deadline.
/// let mut late = Tries::new(RetryPolicy::default(), Instant::now());
/// assert_eq!(late.retry(), Err(Spent::Deadline));
/// ```
#[derive(Clone, Debug)]
pub struct Tries {
    policy: RetryPolicy,
    deadline: Instant,
    failed: u32,
}

/// Why a call stops trying: [`Tries::retry`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spent {
    /// Every try the policy allows was made (this many).
    Attempts(u32),
    /// The next try would start past the deadline.
    Deadline,
}

impl Tries {
    /// The tries of a call under `policy` that must end by `deadline`.
    pub fn new(policy: RetryPolicy, deadline: Instant) -> Tries {
        Tries {
            policy,
            deadline,
            failed: 0,
        }
    }

    /// The tries of a call starting now that may take `budget`, its tries
    /// and pauses included.
    pub fn within(policy: RetryPolicy, budget: Duration) -> Tries {
        Tries::new(policy, deadline_after(budget))
    }

    /// When the call must end.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Whether the deadline has passed.
    pub fn passed(&self) -> bool {
        Instant::now() >= self.deadline
    }

    /// The tries that failed so far.
    pub fn failed(&self) -> u32 {
        self.failed
    }

    /// The last try failed: the pause before the next, or why there is
    /// none.
    pub fn retry(&mut self) -> Result<Duration, Spent> {
        self.retry_after(Duration::ZERO)
    }

    /// [`retry`](Self::retry), pausing at least `least` (a server that
    /// said it is overloaded and when to come back).
    pub fn retry_after(&mut self, least: Duration) -> Result<Duration, Spent> {
        self.failed = self.failed.saturating_add(1);
        if !self.policy.may_try_again(self.failed) {
            return Err(Spent::Attempts(self.failed));
        }
        let pause = self.policy.pause(self.failed).max(least);
        match Instant::now().checked_add(pause) {
            Some(end) if end < self.deadline => Ok(pause),
            _ => Err(Spent::Deadline),
        }
    }

    /// The last try failed and the next goes at once, without a pause (a
    /// server said where the region went): counted, not checked.
    pub fn skip(&mut self) {
        self.failed = self.failed.saturating_add(1);
    }

    /// The call made progress (a streamed read returned a row): its
    /// failures start again from none, and it must now end by `deadline`.
    pub fn progressed(&mut self, deadline: Instant) {
        self.failed = 0;
        self.deadline = deadline;
    }
}

/// What a client counts of its calls, for a service to export: kept by
/// the HBase clients (gateway and native) and Bigtable's, shared by a
/// client's clones (atomic counters, `&self`).
///
/// ```
/// use rowkey_core::clock::{CallCounters, CallCounts};
///
/// let counters = CallCounters::default();
/// counters.call();
/// counters.call();
/// counters.retry();
/// counters.rows(10);
/// let counts = counters.counts();
/// assert_eq!((counts.calls, counts.retries, counts.timeouts, counts.rows_read), (2, 1, 0, 10));
/// ```
#[derive(Debug, Default)]
pub struct CallCounters {
    calls: AtomicU64,
    retries: AtomicU64,
    timeouts: AtomicU64,
    rows_read: AtomicU64,
}

/// A reading of [`CallCounters`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CallCounts {
    /// Calls sent (each try of a call, and each batch of a scan).
    pub calls: u64,
    /// Tries after a failure, resumptions of cut scans included.
    pub retries: u64,
    /// Calls that passed their deadline.
    pub timeouts: u64,
    /// Rows received by reads.
    pub rows_read: u64,
}

impl CallCounters {
    /// A call was sent.
    pub fn call(&self) {
        self.calls.fetch_add(1, Ordering::Relaxed);
    }

    /// A call is tried again (or a scan resumed).
    pub fn retry(&self) {
        self.retries.fetch_add(1, Ordering::Relaxed);
    }

    /// A call passed its deadline.
    pub fn timeout(&self) {
        self.timeouts.fetch_add(1, Ordering::Relaxed);
    }

    /// A read received `n` rows.
    pub fn rows(&self, n: u64) {
        self.rows_read.fetch_add(n, Ordering::Relaxed);
    }

    /// The counts so far.
    pub fn counts(&self) -> CallCounts {
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        CallCounts {
            calls: get(&self.calls),
            retries: get(&self.retries),
            timeouts: get(&self.timeouts),
            rows_read: get(&self.rows_read),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tries_stop_at_the_policy_and_at_the_deadline() {
        let policy = RetryPolicy {
            attempts: 4,
            base: Duration::from_millis(1),
            max: Duration::from_millis(2),
        };
        let mut tries = Tries::within(policy, Duration::from_secs(60));
        for n in 1..4 {
            assert!(tries.retry().unwrap() <= Duration::from_millis(2));
            assert_eq!(tries.failed(), n);
        }
        assert_eq!(tries.retry(), Err(Spent::Attempts(4)));
        // Progress starts the failures again, under a new deadline.
        tries.progressed(deadline_after(Duration::from_secs(60)));
        assert_eq!(tries.failed(), 0);
        assert!(tries.retry_after(Duration::from_secs(1)).unwrap() >= Duration::from_secs(1));
        // A pause that would end past the deadline is no pause.
        assert_eq!(
            tries.retry_after(Duration::from_secs(120)),
            Err(Spent::Deadline)
        );
        tries.skip();
        assert_eq!(tries.failed(), 3);
        assert!(!tries.passed());
        let mut late = Tries::new(policy, Instant::now());
        assert!(late.passed());
        assert_eq!(late.retry(), Err(Spent::Deadline));
        // No deadline at all: Duration::MAX neither panics nor ends.
        let mut forever = Tries::within(RetryPolicy::default(), Duration::MAX);
        assert!(forever.retry_after(Duration::from_secs(3_600)).is_ok());
    }

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
