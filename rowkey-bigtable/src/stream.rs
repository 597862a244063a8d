//! Streaming reads: one `ReadRows` stream per range of a scan, merged
//! lazily in key order (after the salt byte when the scan fans out over
//! buckets), as OpenTSDB's `SaltScanner` and HBaseWD's `DistributedScanner`
//! do. Memory is bounded by the number of ranges times one response batch,
//! not by the number of rows read.

use std::pin::Pin;
use std::task::{Context, Poll};

use bigtable_rs::bigtable::{BigTable, RowCell};
use bigtable_rs::google::bigtable::v2::{ReadRowsRequest, RowSet};
use futures_util::stream::{BoxStream, Stream, StreamExt};
use rowkey_core::hbase::to_string_binary;
use rowkey_core::{DecodeRowKey, Scan};

use crate::{row_range, Error};

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
/// A failure of any range's stream (the server going away part way, say)
/// is yielded as an error, after which the stream ends: a stream that ends
/// without an error has returned every row of the scan (up to `limit`).
///
/// For the next page after the last key `k` a page returned, read
/// `scan.after(&k)`.
pub async fn stream_scan(
    client: &BigTable,
    table: &str,
    scan: &Scan,
    limit: Option<u64>,
) -> Result<RowStream, Error> {
    let table_name = client.get_full_table_name(table);
    let rows_limit = limit.map_or(0, |n| i64::try_from(n).unwrap_or(i64::MAX));
    let opens = scan.ranges().map(|r| {
        let mut c = client.clone();
        let request = ReadRowsRequest {
            table_name: table_name.clone(),
            rows: Some(RowSet {
                row_keys: Vec::new(),
                row_ranges: vec![row_range(&r)],
            }),
            rows_limit,
            ..Default::default()
        };
        async move {
            let stream = c.stream_rows(request).await?;
            Ok::<_, Error>(stream.boxed())
        }
    });
    let streams = futures_util::future::try_join_all(opens).await?;
    Ok(RowStream::new(streams, scan.range_count() > 1, limit))
}

/// [`stream_scan`] with each row key decoded as a `T`.
///
/// A row whose key is not a `T` (a row written by another program, say) is
/// yielded as an [`Error::ForeignRow`] naming the key in HBase's
/// `toStringBinary` form, and the stream goes on with the next row: the
/// other buckets' streams are still drained. Transport errors end the
/// stream as in [`stream_scan`].
pub async fn stream_typed<T>(
    client: &BigTable,
    table: &str,
    scan: &Scan,
    limit: Option<u64>,
) -> Result<impl Stream<Item = Result<(T, Vec<RowCell>), Error>>, Error>
where
    T: for<'a> DecodeRowKey<'a>,
{
    let rows = stream_scan(client, table, scan, limit).await?;
    Ok(rows.map(|row| {
        let (key, cells) = row?;
        match T::decode(&key) {
            Ok(t) => Ok((t, cells)),
            Err(source) => Err(Error::ForeignRow {
                key: to_string_binary(&key),
                source,
            }),
        }
    }))
}

type RangeStream = BoxStream<'static, Result<Row, bigtable_rs::bigtable::Error>>;

/// The merged rows of a scan: see [`stream_scan`].
pub struct RowStream {
    streams: Vec<RangeStream>,
    /// The next row of each range, once read.
    heads: Vec<Option<Row>>,
    /// The range's stream has ended.
    done: Vec<bool>,
    /// Compare keys after the salt byte (the scan fans out over buckets).
    skip: usize,
    /// Rows still to return, when limited.
    remaining: Option<u64>,
    /// An error was returned: the stream has ended.
    failed: bool,
    /// Rows received from the server so far, over all ranges.
    received: u64,
}

impl RowStream {
    fn new(streams: Vec<RangeStream>, salted: bool, limit: Option<u64>) -> RowStream {
        let n = streams.len();
        RowStream {
            streams,
            heads: (0..n).map(|_| None).collect(),
            done: vec![false; n],
            skip: usize::from(salted),
            remaining: limit,
            failed: false,
            received: 0,
        }
    }

    /// The rows received from the server so far over all ranges: what the
    /// scan cost, which with a limit is at most the limit per range.
    pub fn rows_received(&self) -> u64 {
        self.received
    }
}

impl Stream for RowStream {
    type Item = Result<Row, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.failed || this.remaining == Some(0) {
            return Poll::Ready(None);
        }
        // Every range needs its next row (or its end) before the smallest
        // can be known.
        let mut pending = false;
        for i in 0..this.streams.len() {
            if this.heads[i].is_some() || this.done[i] {
                continue;
            }
            match this.streams[i].poll_next_unpin(cx) {
                Poll::Ready(Some(Ok(row))) => {
                    this.received += 1;
                    this.heads[i] = Some(row);
                }
                Poll::Ready(Some(Err(e))) => {
                    this.failed = true;
                    return Poll::Ready(Some(Err(Error::Bigtable(e))));
                }
                Poll::Ready(None) => this.done[i] = true,
                Poll::Pending => pending = true,
            }
        }
        if pending {
            return Poll::Pending;
        }
        let skip = this.skip;
        let next = this
            .heads
            .iter()
            .enumerate()
            .filter_map(|(i, h)| h.as_ref().map(|(k, _)| (i, k.get(skip..).unwrap_or(&[]))))
            .min_by(|a, b| a.1.cmp(b.1))
            .map(|(i, _)| i);
        match next {
            None => Poll::Ready(None),
            Some(i) => {
                if let Some(n) = &mut this.remaining {
                    *n -= 1;
                }
                Poll::Ready(this.heads[i].take().map(Ok))
            }
        }
    }
}
