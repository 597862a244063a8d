//! A client's deadlines, keepalive, app profile and retries.

use std::time::Duration;

use crate::RetryPolicy;

/// How a [`Client`](crate::Client) bounds its calls and keeps its
/// connection alive, set by struct update from `ClientOptions::default()`
/// and given to [`Client::connect_lazy_with`](crate::Client::connect_lazy_with).
///
/// The defaults follow Google's clients. `idle_timeout` (5 min between the
/// rows of a stream) and the keepalive (a ping every 30 s, the connection
/// dead when one is not answered in 10 s) are the Java client's
/// (`EnhancedBigtableStubSettings`: `readRowsSettings` and
/// `defaultGrpcTransportProviderBuilder`). `attempt_timeout` (1 min) and
/// `total_timeout` (10 min) are its `MutateRows` per-attempt and
/// whole-operation timeouts. The retry policy is [`RetryPolicy::bigtable`]:
/// 4 retries, pauses from 50 ms doubling up to 2 s (the Go client's
/// `defaultBackoff` starts at 100 ms and grows 1.2× up to 2 s), with full
/// jitter.
///
/// ```
/// use std::time::Duration;
/// use rowkey_bigtable::ClientOptions;
///
/// let options = ClientOptions {
///     idle_timeout: Duration::from_secs(30),
///     app_profile_id: Some("batch".into()),
///     ..ClientOptions::default()
/// };
/// assert_eq!(options.total_timeout, Duration::from_secs(600));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientOptions {
    /// The longest one attempt may wait: a whole `MutateRows` attempt, or a
    /// `ReadRows` attempt's wait for its stream to open. An attempt past it
    /// fails with a retryable `DEADLINE_EXCEEDED` and is retried.
    pub attempt_timeout: Duration,
    /// The longest a call may go without progress, retries included: a
    /// write call's whole run, or a read's time without a row (each row
    /// returned starts it again, so a long healthy scan is never cut). Past
    /// it the call ends with [`Error::Timeout`](crate::Error::Timeout),
    /// whose [`is_timeout`](crate::Error::is_timeout) is true.
    pub total_timeout: Duration,
    /// The longest a stream may wait between two rows before its attempt
    /// is abandoned and retried from the last row returned.
    pub idle_timeout: Duration,
    /// How often an HTTP/2 ping is sent on the connection, even when idle.
    pub keepalive_interval: Duration,
    /// How long a ping may go unanswered before the connection is dropped
    /// (and a new one opened by the next call).
    pub keepalive_timeout: Duration,
    /// The app profile every request names (`app_profile_id`), if any.
    pub app_profile_id: Option<String>,
    /// How failed attempts are retried.
    pub retry: RetryPolicy,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            attempt_timeout: Duration::from_secs(60),
            total_timeout: Duration::from_secs(600),
            idle_timeout: Duration::from_secs(300),
            keepalive_interval: Duration::from_secs(30),
            keepalive_timeout: Duration::from_secs(10),
            app_profile_id: None,
            retry: RetryPolicy::bigtable(),
        }
    }
}
