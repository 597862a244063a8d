//! When a failed call is tried again, and how long to wait before it: the
//! retry policy, the failures Google's clients retry, and jitter.

use std::time::Duration;

/// How a streamed read retries a range whose stream failed for a transient
/// reason (the server unavailable, the connection lost or reset, a
/// deadline or an abort) or stalled past its
/// [`ClientOptions`](crate::ClientOptions) deadlines: up to `attempts`
/// times in a row, waiting a random time up to `initial_backoff`, a
/// ceiling doubled after each failure up to `max_backoff` ("full jitter",
/// so that clients that failed together do not retry together). Reads are
/// idempotent, so a retried range resumes after the last row it returned
/// and no row is returned twice.
///
/// ```
/// use std::time::Duration;
/// let retry = rowkey_bigtable::Retry { attempts: 0, ..Default::default() };
/// assert_eq!(retry.initial_backoff, Duration::from_millis(50));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    /// Retries in a row before the error is returned; 0 never retries.
    pub attempts: u32,
    /// The wait before the first retry.
    pub initial_backoff: Duration,
    /// The longest wait.
    pub max_backoff: Duration,
}

impl Retry {
    /// The pause before the retry that follows `failures` failures in a
    /// row: a random time up to `initial_backoff × 2^failures`, at most
    /// `max_backoff`.
    pub(crate) fn pause(&self, failures: u32) -> Duration {
        rowkey_core::clock::backoff(self.initial_backoff, self.max_backoff, failures)
    }
}

impl Default for Retry {
    fn default() -> Self {
        Retry {
            attempts: 4,
            initial_backoff: Duration::from_millis(50),
            max_backoff: Duration::from_secs(2),
        }
    }
}

/// Whether a failure may pass if the read is tried again: the codes the
/// Cloud Bigtable client libraries retry reads on (`DEADLINE_EXCEEDED`,
/// `UNAVAILABLE`, `ABORTED`), an `INTERNAL` status that reports a reset
/// stream or a cut connection (the messages Google's Go client retries,
/// `retryableInternalErrMsgs` in `cloud.google.com/go/bigtable`), and a
/// connection lost under a call (which tonic reports as `Unknown`, or as
/// `Cancelled` for a request in flight when the connection closed, with
/// the transport's error as its source; statuses sent by a server carry no
/// source).
pub(crate) fn transient(e: &bigtable_rs::bigtable::Error) -> bool {
    use tonic::Code;
    match e {
        bigtable_rs::bigtable::Error::RpcError(status) => {
            matches!(
                status.code(),
                Code::Unavailable | Code::Aborted | Code::DeadlineExceeded
            ) || (status.code() == Code::Internal && reset_stream(status.message()))
                || (matches!(status.code(), Code::Unknown | Code::Cancelled)
                    && std::error::Error::source(status).is_some())
        }
        bigtable_rs::bigtable::Error::TransportError(_) => true,
        _ => false,
    }
}

/// An `INTERNAL` message that means the stream was reset or cut, not that
/// the server failed: Google's Go client retries these.
fn reset_stream(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    [
        "stream terminated by rst_stream",
        "received rst stream",
        "rst_stream closed stream",
        "received rst_stream",
        "unexpected eof",
    ]
    .iter()
    .any(|needle| m.contains(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(code: tonic::Code, message: &str) -> bigtable_rs::bigtable::Error {
        bigtable_rs::bigtable::Error::RpcError(tonic::Status::new(code, message))
    }

    #[test]
    fn reset_streams_are_retried_and_other_internal_errors_are_not() {
        use tonic::Code;
        assert!(transient(&status(
            Code::Internal,
            "stream terminated by RST_STREAM with error code: INTERNAL_ERROR"
        )));
        assert!(transient(&status(
            Code::Internal,
            "Received RST_STREAM: protocol error"
        )));
        assert!(transient(&status(Code::Unavailable, "")));
        assert!(transient(&status(Code::Aborted, "")));
        assert!(!transient(&status(Code::Internal, "a server error")));
        assert!(!transient(&status(Code::InvalidArgument, "unexpected EOF")));
        assert!(!transient(&status(Code::NotFound, "table")));
    }
}
