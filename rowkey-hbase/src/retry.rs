//! How calls are tried again: the policy both clients share (the
//! gateway client's calls and the native client's operations), and its
//! jitter.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How calls are retried: at most `attempts` tries in all, pausing
/// between them for a random time up to `base × 2^(retry − 1)`, capped at
/// `max` ("full jitter", so that clients that failed together do not
/// retry together), and never past the call's deadline.
///
/// The default is HBase's Java client's pause (`hbase.client.pause`,
/// 100 ms) with 5 attempts and pauses of at most 5 s.
///
/// ```
/// use std::time::Duration;
/// use rowkey_hbase::RetryPolicy;
///
/// let policy = RetryPolicy { attempts: 3, ..RetryPolicy::default() };
/// assert!(policy.pause(1) <= Duration::from_millis(100));
/// assert!(policy.pause(9) <= Duration::from_secs(5));
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

    /// The pause before retry number `retry` (1 for the first): random,
    /// up to `min(max, base × 2^(retry − 1))`.
    pub fn pause(&self, retry: u32) -> Duration {
        let ceiling = self
            .base
            .saturating_mul(1 << retry.saturating_sub(1).min(30))
            .min(self.max);
        let nanos = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(random() % nanos.saturating_add(1))
    }
}

/// A random number for jitter: splitmix64 over a counter seeded by the
/// clock (jitter needs spread, not secrecy).
fn random() -> u64 {
    static STATE: AtomicU64 = AtomicU64::new(0);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut z = STATE
        .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
        .wrapping_add(seed);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
