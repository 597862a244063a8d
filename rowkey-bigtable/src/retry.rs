//! Which failed calls are tried again: the failures Google's clients
//! retry. How often and how long to wait is rowkey-core's
//! [`RetryPolicy`](crate::RetryPolicy), shared with the HBase clients.

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
