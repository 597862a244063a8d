//! What the gateway and native backends both follow, written once: who stamps a write and with which
//! clock ([`stamp`]), a skip scan as the filter HBase's region servers run
//! ([`filter`]), the few protobuf encodings written by hand ([`proto`]:
//! the filters, the HFile trailer), and a Kerberos login (`kerberos`:
//! SASL GSSAPI to the region servers, SPNEGO to an HTTP gateway). How a
//! call is tried again is [`RetryPolicy`](crate::RetryPolicy), rowkey-core's,
//! shared with Bigtable's client. The rules of a scan (the
//! resume point of a cut scanner, the merge of a salted scan's ranges) are
//! the face's `scan` module, which both backends' scanners feed.

pub(crate) mod filter;
#[cfg(feature = "kerberos")]
pub(crate) mod kerberos;
pub(crate) mod proto;
pub(crate) mod stamp;
