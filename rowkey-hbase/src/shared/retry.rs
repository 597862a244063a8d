//! How calls are tried again: the policy both clients share (the
//! gateway client's calls and the native client's operations), and its
//! jitter.

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
    /// up to `min(max, base × 2^(retry − 1))`
    /// ([`rowkey_core::clock::backoff`], shared with rowkey-bigtable).
    pub fn pause(&self, retry: u32) -> Duration {
        rowkey_core::clock::backoff(self.base, self.max, retry.saturating_sub(1))
    }
}
