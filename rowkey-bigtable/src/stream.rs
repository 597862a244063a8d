//! Streaming reads: one `ReadRows` stream per range of a scan, merged
//! lazily in key order (after the salt byte when the scan fans out over
//! buckets), as OpenTSDB's `SaltScanner` and HBaseWD's `DistributedScanner`
//! do. Memory is bounded by the number of ranges times the transport's
//! buffers (a [`STREAM_WINDOW`](crate::STREAM_WINDOW) each on a channel
//! from [`Client::endpoint`]), not by the number of rows read.
//!
//! The gRPC client retries nothing, so each range's stream retries its own
//! transient failures: it reopens the range after the last row it returned,
//! with what is left of its limit, after a backoff.

use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bigtable_rs::bigtable::RowCell;
use bigtable_rs::google::bigtable::v2::row_range::{EndKey, StartKey};
use bigtable_rs::google::bigtable::v2::{row_filter, ReadRowsRequest, RowFilter, RowRange, RowSet};
use futures_util::stream::{self, BoxStream, Stream, StreamExt};
use rowkey_core::clock::{deadline_after, Spent, Tries};
use rowkey_core::hbase::to_string_binary;
use rowkey_core::scan::resume_after;
use rowkey_core::{DecodeRowKey, KeyFilter, MergeHeads, Scan};

#[cfg(any(feature = "index", feature = "migrate"))]
use crate::chunks::collect;
use crate::chunks::{merged, Merged};
use crate::retry::transient;
use crate::RetryPolicy;
use crate::{Client, Error};

/// One row: its key and its cells.
pub type Row = (Vec<u8>, Vec<RowCell>);

/// Reads `scan` from `table` as a stream of rows in merge order.
///
/// One `ReadRows` stream is opened per range of the scan (one per salt
/// bucket for a fanned-out scan); the merged stream holds at most one row
/// per range beyond what the transport buffers. With `limit = Some(n)` each
/// range's request carries `rows_limit = n` (so "the latest 20" over 16
/// buckets reads at most 320 rows) and the merged stream ends after `n`
/// rows.
///
/// Transient failures are retried per range with [`RetryPolicy::bigtable`]
/// ([`stream_scan_with`] takes another policy). A failure that is not
/// transient, or that persists, is yielded as an error, after which the
/// stream ends: a stream that ends without an error has returned every row
/// of the scan (up to `limit`).
///
/// For the next page after the last key `k` a page returned, read
/// `scan.after(&k)`.
pub async fn stream_scan(
    client: &Client,
    table: &str,
    scan: &Scan,
    limit: Option<u64>,
) -> Result<RowStream, Error> {
    stream_scan_with(client, table, scan, limit, client.options().retry).await
}

/// [`stream_scan`] with a retry policy of your own.
pub async fn stream_scan_with(
    client: &Client,
    table: &str,
    scan: &Scan,
    limit: Option<u64>,
    retry: RetryPolicy,
) -> Result<RowStream, Error> {
    Ok(open(client, table, scan, limit, retry, false))
}

/// [`stream_scan`] with every range read backwards (`ReadRowsRequest.reversed`,
/// announced to the server in the `bigtable-features` header as Google's
/// clients do), merged largest key first: on an oldest-first key the
/// newest rows come first, and "the latest 20" reads at most 20 rows per
/// range. A retry resumes before the last row a range returned.
pub async fn stream_scan_reversed(
    client: &Client,
    table: &str,
    scan: &Scan,
    limit: Option<u64>,
) -> Result<RowStream, Error> {
    Ok(open(
        client,
        table,
        scan,
        limit,
        client.options().retry,
        true,
    ))
}

/// [`stream_typed`] read backwards ([`stream_scan_reversed`]).
pub async fn stream_typed_reversed<T>(
    client: &Client,
    table: &str,
    scan: &Scan,
    limit: Option<u64>,
) -> Result<impl Stream<Item = Result<(T, Vec<RowCell>), Error>>, Error>
where
    T: for<'a> DecodeRowKey<'a>,
{
    let rows = stream_scan_reversed(client, table, scan, limit).await?;
    Ok(rows.map(typed::<T>))
}

/// The rows whose keys `filter` matches (`T::filter()...build()`), read
/// over the filter's ranges ([`KeyFilter::scan`]) with its row-key regular
/// expression ([`KeyFilter::bigtable_regex`]) sent as the request's
/// `row_key_regex_filter`: the server filters, so only matching rows cross
/// the network (Bigtable cannot seek within a range, so it still reads
/// them all). Where the regex is not exact
/// ([`KeyFilter::regex_is_exact`]), the rows it lets through are also
/// checked with [`KeyFilter::matches`] here; a pattern past Bigtable's
/// filter size ([`rowkey_core::scan::MAX_REGEX_LEN`]) is not sent at all,
/// and every row of the ranges is checked here. Merged, limited and retried
/// as [`stream_scan`]; [`RowStream::rows_received`] counts what the server
/// sent.
pub async fn stream_filter(
    client: &Client,
    table: &str,
    filter: &KeyFilter,
    limit: Option<u64>,
) -> Result<RowStream, Error> {
    stream_filter_in(client, table, filter, &filter.scan(), limit).await
}

/// [`stream_filter`] over the ranges of `scan` instead of the filter's
/// own: the next page of a skip scan (`filter.scan().after(&last)`), or
/// the part of it inside one range (`Scan::from_bounds`). Rows outside the
/// filter's ranges can match too: the filter decides.
pub async fn stream_filter_in(
    client: &Client,
    table: &str,
    filter: &KeyFilter,
    scan: &Scan,
    limit: Option<u64>,
) -> Result<RowStream, Error> {
    open_filter(client, table, filter, scan, limit, false)
}

/// [`stream_filter_in`] reading keys, not values: Bigtable's
/// `strip_value_transformer` is chained after the row-key regex, so the
/// server sends each cell with an empty value. The rows, and the count of
/// rows received, are `stream_filter_in`'s; for a read that needs the keys
/// and which cells a row has, not what they hold (SQL's projection of key
/// columns, a count).
pub async fn stream_filter_keys_in(
    client: &Client,
    table: &str,
    filter: &KeyFilter,
    scan: &Scan,
    limit: Option<u64>,
) -> Result<RowStream, Error> {
    open_filter(client, table, filter, scan, limit, true)
}

fn open_filter(
    client: &Client,
    table: &str,
    filter: &KeyFilter,
    scan: &Scan,
    limit: Option<u64>,
    keys_only: bool,
) -> Result<RowStream, Error> {
    // Built once; past Bigtable's filter size no pattern is sent, only
    // the ranges, and every row is checked here.
    let regex = filter.bigtable_row_regex();
    let rows = regex.pattern.map(|pattern| RowFilter {
        filter: Some(row_filter::Filter::RowKeyRegexFilter(pattern)),
    });
    let strip = keys_only.then_some(RowFilter {
        filter: Some(row_filter::Filter::StripValueTransformer(true)),
    });
    let row_filter = match (rows, strip) {
        (Some(rows), Some(strip)) => Some(RowFilter {
            filter: Some(row_filter::Filter::Chain(row_filter::Chain {
                filters: vec![rows, strip],
            })),
        }),
        (rows, strip) => rows.or(strip),
    };
    let exact = regex.exact;
    // Rows are checked here when the regex is not exact: the server's
    // per-range limit would count rows that are then dropped.
    let range_limit = if exact { limit } else { None };
    let mut rows = open_filtered(
        client,
        table,
        scan,
        (range_limit, limit),
        client.options().retry,
        false,
        row_filter,
    );
    rows.check = (!exact).then(|| filter.clone());
    Ok(rows)
}

/// [`stream_filter`] with each row key decoded as a `T`.
pub async fn stream_filter_typed<T>(
    client: &Client,
    table: &str,
    filter: &KeyFilter,
    limit: Option<u64>,
) -> Result<impl Stream<Item = Result<(T, Vec<RowCell>), Error>>, Error>
where
    T: for<'a> DecodeRowKey<'a>,
{
    let rows = stream_filter(client, table, filter, limit).await?;
    Ok(rows.map(typed::<T>))
}

fn open(
    client: &Client,
    table: &str,
    scan: &Scan,
    limit: Option<u64>,
    retry: RetryPolicy,
    reversed: bool,
) -> RowStream {
    open_filtered(client, table, scan, (limit, limit), retry, reversed, None)
}

/// `limits`: each range's request's and the merged stream's.
pub(crate) fn open_filtered(
    client: &Client,
    table: &str,
    scan: &Scan,
    (range_limit, limit): (Option<u64>, Option<u64>),
    retry: RetryPolicy,
    reversed: bool,
    row_filter: Option<RowFilter>,
) -> RowStream {
    let table_name = client.table_name(table);
    let retries = Arc::new(AtomicU64::new(0));
    let streams = scan
        .ranges()
        .map(|r| {
            range_stream(RangeState {
                client: client.clone(),
                table_name: table_name.clone(),
                start: r.start().to_vec(),
                stop: r.stop().to_vec(),
                reversed,
                row_filter: row_filter.clone(),
                remaining: range_limit,
                rows: None,
                tries: Tries::within(retry, client.options().total_timeout),
                retries: Arc::clone(&retries),
                last_error: None,
            })
        })
        .collect();
    RowStream::new(streams, scan.head_len(), limit, retries, reversed)
}

/// A row's key decoded into `T`; a key of another type is an
/// [`Error::ForeignRow`].
fn typed<T: for<'a> DecodeRowKey<'a>>(row: Result<Row, Error>) -> Result<(T, Vec<RowCell>), Error> {
    let (key, cells) = row?;
    match T::decode(&key) {
        Ok(t) => Ok((t, cells)),
        Err(cause) => Err(Error::ForeignRow {
            key: to_string_binary(&key),
            cause,
        }),
    }
}

/// One `ReadRows` call, its chunks merged into rows across responses
/// ([`chunks`](crate::chunks)).
async fn read_rows(
    client: &Client,
    request: ReadRowsRequest,
) -> Result<CallStream, bigtable_rs::bigtable::Error> {
    let reversed = request.reversed;
    let response = client.read_rows(request).await?;
    Ok(merged(response, reversed))
}

/// Every row of `request`, read whole, within the client's deadlines and
/// retried as its [`RetryPolicy`] allows (a read is safe to send again):
/// what a point read (the index store's gets) needs.
#[cfg(any(feature = "index", feature = "migrate"))]
pub(crate) async fn read_all(client: &Client, request: ReadRowsRequest) -> Result<Vec<Row>, Error> {
    let options = client.options();
    let mut tries = Tries::within(options.retry, options.total_timeout);
    let total = tokio::time::Instant::from_std(tries.deadline());
    loop {
        let until = (tokio::time::Instant::now() + options.attempt_timeout).min(total);
        let attempt = async {
            let reversed = request.reversed;
            let response = client.read_rows(request.clone()).await?;
            collect(response, reversed).await
        };
        let retries = tries.failed();
        let timeout = |last: String| {
            client.counters().timeout();
            Error::Timeout {
                call: "ReadRows",
                deadline: options.total_timeout,
                retries,
                last: Some(last),
            }
        };
        // As a range's stream does: a failure that is not transient, or
        // one past the retries, is the error; past the deadline, a timeout.
        let last = match tokio::time::timeout_at(until, attempt).await {
            Ok(Ok(rows)) => {
                client.counters().rows(rows.len() as u64);
                return Ok(rows);
            }
            Ok(Err(e)) if !transient(&e) => return Err(Error::from(e)),
            Ok(Err(e)) => Ok(e),
            Err(_) => Err("ReadRows did not end within its attempt timeout"),
        };
        let wait = match (tries.retry(), last) {
            (Ok(wait), _) => wait,
            (Err(Spent::Attempts(_)), Ok(e)) => return Err(Error::from(e)),
            (Err(_), Ok(e)) => return Err(timeout(e.to_string())),
            (Err(_), Err(stalled)) => return Err(timeout(stalled.into())),
        };
        client.counters().retry();
        tokio::time::sleep(wait).await;
    }
}

/// [`stream_scan`] with each row key decoded as a `T`.
///
/// A row whose key is not a `T` (a row written by another program, say) is
/// yielded as an [`Error::ForeignRow`] naming the key in HBase's
/// `toStringBinary` form, and the stream goes on with the next row: the
/// other buckets' streams are still drained. Transport errors end the
/// stream as in [`stream_scan`].
pub async fn stream_typed<T>(
    client: &Client,
    table: &str,
    scan: &Scan,
    limit: Option<u64>,
) -> Result<impl Stream<Item = Result<(T, Vec<RowCell>), Error>>, Error>
where
    T: for<'a> DecodeRowKey<'a>,
{
    let rows = stream_scan(client, table, scan, limit).await?;
    Ok(rows.map(typed::<T>))
}

/// One `ReadRows` call's rows and progress.
type CallStream = BoxStream<'static, Result<Merged, bigtable_rs::bigtable::Error>>;

/// One range's rows, over its retries.
type RangeStream = BoxStream<'static, Result<Row, Error>>;

/// One range's read, as it resumes after failures.
struct RangeState {
    client: Client,
    table_name: String,
    /// Where the (next) request starts (closed): the range's start, then
    /// just after the last row returned (rowkey-core's `resume_after`).
    start: Vec<u8>,
    /// Where the (next) request stops (open; empty: to the end): the
    /// range's stop row; read backwards, then the last row returned.
    stop: Vec<u8>,
    /// Read backwards: rows come largest first, and a retry resumes before
    /// the last one (the stop moves, not the start).
    reversed: bool,
    /// The server-side filter (a skip scan's row-key regex).
    row_filter: Option<RowFilter>,
    /// Rows still allowed by the limit.
    remaining: Option<u64>,
    /// The open `ReadRows` stream.
    rows: Option<CallStream>,
    /// Transient failures since the range last made progress (it
    /// opened, or returned a row), under the retry policy; the total
    /// timeout runs from that progress.
    tries: Tries,
    /// Retries over all ranges of the scan.
    retries: Arc<AtomicU64>,
    /// The last failure retried, for the timeout's message.
    last_error: Option<String>,
}

/// Why an attempt ended early.
enum Failure {
    /// The call failed.
    Call(bigtable_rs::bigtable::Error),
    /// The attempt's own deadline passed (no stream, or no row in time).
    Stalled(&'static str),
}

impl RangeState {
    fn request(&self) -> ReadRowsRequest {
        ReadRowsRequest {
            table_name: self.table_name.clone(),
            rows: Some(RowSet {
                row_keys: Vec::new(),
                row_ranges: vec![RowRange {
                    start_key: Some(StartKey::StartKeyClosed(self.start.clone())),
                    end_key: (!self.stop.is_empty()).then(|| EndKey::EndKeyOpen(self.stop.clone())),
                }],
            }),
            reversed: self.reversed,
            filter: self.row_filter.clone(),
            rows_limit: self
                .remaining
                .map_or(0, |n| i64::try_from(n).unwrap_or(i64::MAX)),
            ..Default::default()
        }
    }

    /// The end of the total timeout: progress must come by then.
    fn deadline(&self) -> tokio::time::Instant {
        tokio::time::Instant::from_std(self.tries.deadline())
    }

    /// The range returned a row, or the server scanned further: its
    /// failures start again, and so does its total timeout.
    fn progressed(&mut self) {
        let total = self.client.options().total_timeout;
        self.tries.progressed(deadline_after(total));
    }

    /// The time an attempt may wait for `limit`, within the total timeout.
    fn wait(&self, limit: Duration) -> tokio::time::Instant {
        (tokio::time::Instant::now() + limit).min(self.deadline())
    }

    /// After a failure: `Ok` to retry, once the backoff has passed, or the
    /// error that ends the range.
    async fn retry_after(&mut self, failure: Failure) -> Result<(), Error> {
        let retries = self.tries.failed();
        let timeout = |st: &RangeState, last: String| {
            st.client.counters().timeout();
            Error::Timeout {
                call: "ReadRows",
                deadline: st.client.options().total_timeout,
                retries,
                last: Some(last),
            }
        };
        let (retryable, text) = match &failure {
            Failure::Call(e) => (transient(e), e.to_string()),
            Failure::Stalled(what) => (true, (*what).to_string()),
        };
        if self.tries.passed() {
            return Err(timeout(self, text));
        }
        let wait = match (retryable, self.tries.retry()) {
            (true, Ok(wait)) => wait,
            (_, Err(Spent::Deadline)) if retryable => return Err(timeout(self, text)),
            _ => {
                return Err(match failure {
                    Failure::Call(e) => Error::from(e),
                    Failure::Stalled(_) => timeout(self, text),
                })
            }
        };
        self.retries.fetch_add(1, Ordering::Relaxed);
        self.client.counters().retry();
        self.rows = None;
        self.last_error = Some(text);
        tokio::time::sleep(wait).await;
        Ok(())
    }
}

/// The rows of one range, reopened after the last row returned when the
/// read fails for a transient reason or stalls past its deadlines.
fn range_stream(state: RangeState) -> RangeStream {
    stream::unfold(Some(state), |state| async move {
        let mut st = state?;
        loop {
            if st.remaining == Some(0) {
                return None;
            }
            if st.rows.is_none() {
                let request = st.request();
                let until = st.wait(st.client.options().attempt_timeout);
                let opened = tokio::time::timeout_at(until, read_rows(&st.client, request)).await;
                let failure = match opened {
                    Ok(Ok(rows)) => {
                        st.rows = Some(rows);
                        None
                    }
                    Ok(Err(e)) => Some(Failure::Call(e)),
                    Err(_) => Some(Failure::Stalled(
                        "ReadRows did not open within its attempt timeout",
                    )),
                };
                if let Some(failure) = failure {
                    match st.retry_after(failure).await {
                        Ok(()) => continue,
                        Err(e) => return Some((Err(e), None)),
                    }
                }
            }
            let until = st.wait(st.client.options().idle_timeout);
            let next = st.rows.as_mut().map(|r| r.next())?;
            let failure = match tokio::time::timeout_at(until, next).await {
                // A sparse filtered scan's progress: no row, but the
                // server scanned this far (the idle timer counts it, and
                // a retry resumes after it).
                Ok(Some(Ok(Merged::Scanned(key)))) => {
                    st.progressed();
                    resume_after(&mut st.start, &mut st.stop, &key, st.reversed);
                    continue;
                }
                Ok(Some(Ok(Merged::Row(key, cells)))) => {
                    let row = (key, cells);
                    st.progressed();
                    st.client.counters().rows(1);
                    resume_after(&mut st.start, &mut st.stop, &row.0, st.reversed);
                    if let Some(n) = &mut st.remaining {
                        *n -= 1;
                    }
                    return Some((Ok(row), Some(st)));
                }
                Ok(Some(Err(e))) => Failure::Call(e),
                Ok(None) => return None,
                Err(_) => Failure::Stalled("no row within the idle timeout"),
            };
            match st.retry_after(failure).await {
                Ok(()) => continue,
                Err(e) => return Some((Err(e), None)),
            }
        }
    })
    .boxed()
}

/// The merged rows of a scan: see [`stream_scan`]. Merged by rowkey-core's
/// heap ([`MergeHeads`]), as every engine's reads are.
pub struct RowStream {
    streams: Vec<RangeStream>,
    /// The next row of each range, once read, ordered by key after the
    /// family prefix and salt.
    heads: MergeHeads<Row>,
    /// The range's stream has ended.
    done: Vec<bool>,
    /// Rows still to return, when limited.
    remaining: Option<u64>,
    /// An error was returned: the stream has ended.
    failed: bool,
    /// Rows received from the server so far, over all ranges.
    received: u64,
    retries: Arc<AtomicU64>,
    /// A skip scan whose regex is not exact: rows are checked here too.
    check: Option<KeyFilter>,
}

impl RowStream {
    fn new(
        streams: Vec<RangeStream>,
        head_len: usize,
        limit: Option<u64>,
        retries: Arc<AtomicU64>,
        reversed: bool,
    ) -> RowStream {
        let n = streams.len();
        RowStream {
            streams,
            heads: if reversed {
                MergeHeads::new_reversed(head_len, n)
            } else {
                MergeHeads::new(head_len, n)
            },
            done: vec![false; n],
            remaining: limit,
            failed: false,
            received: 0,
            retries,
            check: None,
        }
    }

    /// The rows received from the server so far over all ranges: what the
    /// scan cost, which with a limit is at most the limit per range.
    pub fn rows_received(&self) -> u64 {
        self.received
    }

    /// The ranges whose `ReadRows` call is still open. Once the stream
    /// has ended (its limit reached, an error returned, or every range
    /// read) this is 0: every call was dropped, which cancels it on the
    /// server, without waiting for the `RowStream` to be dropped.
    pub fn open_ranges(&self) -> usize {
        self.done.iter().filter(|d| !**d).count()
    }

    /// Drops every range's stream (cancelling its call) and the rows
    /// waiting in the merge.
    fn close(&mut self) {
        self.streams.clear();
        self.done.clear();
        self.heads = MergeHeads::new(0, 0);
    }

    /// The transient failures retried so far over all ranges.
    pub fn retries(&self) -> u64 {
        self.retries.load(Ordering::Relaxed)
    }
}

impl Stream for RowStream {
    type Item = Result<Row, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.failed || this.remaining == Some(0) {
            this.close();
            return Poll::Ready(None);
        }
        // Every range needs its next row (or its end) before the smallest
        // can be known.
        let mut pending = false;
        for i in 0..this.streams.len() {
            if this.heads.has_head(i) || this.done[i] {
                continue;
            }
            loop {
                match this.streams[i].poll_next_unpin(cx) {
                    Poll::Ready(Some(Ok(row))) => {
                        this.received += 1;
                        // A row the server's filter let through that the
                        // skip-scan filter does not match.
                        if this.check.as_ref().is_some_and(|f| !f.matches(&row.0)) {
                            continue;
                        }
                        this.heads.push(i, row);
                    }
                    Poll::Ready(Some(Err(e))) => {
                        this.failed = true;
                        this.close();
                        return Poll::Ready(Some(Err(e)));
                    }
                    Poll::Ready(None) => this.done[i] = true,
                    Poll::Pending => pending = true,
                }
                break;
            }
        }
        if pending {
            return Poll::Pending;
        }
        match this.heads.pop() {
            None => {
                this.close();
                Poll::Ready(None)
            }
            Some((_, row)) => {
                if let Some(n) = &mut this.remaining {
                    *n -= 1;
                    if *n == 0 {
                        // The limit is reached: the other ranges' reads
                        // are cancelled now, not when the stream is dropped.
                        this.close();
                    }
                }
                Poll::Ready(Some(Ok(row)))
            }
        }
    }
}
