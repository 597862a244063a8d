//! Merged scans: one server-side scanner per range, read in batches, each
//! resumed after its last row when its scanner is lost.

use std::collections::VecDeque;
use std::marker::PhantomData;
use std::time::{Duration, Instant};

use rowkey_core::clock::Tries;
use rowkey_core::hbase::to_string_binary;
use rowkey_core::scan::resume_after;
use rowkey_core::{DecodeRowKey, KeyFilter, MergeHeads, Scan};

use crate::client::Client;
use crate::error::Error;
use crate::gateway::pool::Lease;
use crate::gateway::transport::Thrift;
use crate::shared::filter::{filter_bytes_per_range, Pushdown};
use crate::thrift::{TScan, TTHBaseServiceSyncClient};
use crate::types::{stamped_cells, Cell, ReadOptions, Row, Stamped};

/// One range's scanner, the rows it has fetched and not yet merged, and
/// what is left of the range to read.
struct RangeReader {
    /// The open scanner; `None` before it is opened again (after its
    /// gateway went away, say) and once the range is done.
    scanner: Option<i32>,
    buffer: VecDeque<Stamped>,
    /// Rows fetched from this range.
    read: usize,
    /// What is left to read, `[start, stop)`: forwards, `start` moves past
    /// each batch's last row; backwards, `stop` moves down to it.
    start: Vec<u8>,
    stop: Vec<u8>,
    /// The filter the region servers run, if any.
    filter: Option<Vec<u8>>,
    /// The scan's connection its scanner was opened on (a count of the
    /// scan's connections): a scanner id means something only to the
    /// gateway that gave it.
    epoch: u64,
    /// Batches of a filtered range that timed out and were resumed: each
    /// doubles the next batch's deadline.
    patience: u32,
    /// A native client's scanner of the range (it resumes by itself).
    #[cfg(feature = "native")]
    native: Option<crate::native::NativeScanner>,
    /// Rows the region servers read for the range's closed native
    /// scanner (scan metrics).
    #[cfg(feature = "native")]
    scanned: u64,
    done: bool,
}

/// The most rows a range with a filter on the region servers asks for per
/// batch (and per region-server call, `TScan.caching`): HBase's gateway
/// answers only once it has the whole batch, so a filter that matches
/// rarely makes every row of a batch cost many rows read.
pub(crate) const FILTERED_BATCH: usize = 64;

/// How often a filtered range's batch may time out and be resumed from
/// its last row, each time with twice the deadline (2, 4, 8 request
/// timeouts): a sparse filter on a healthy server needs time, not luck.
pub(crate) const SPARSE_RESUMES: u32 = 3;

/// How a scan's scanners are opened.
struct Plan {
    table: String,
    reversed: bool,
    /// The limit on the rows read per range (none when rows are checked
    /// here: some may be dropped).
    range_limit: Option<usize>,
    batch: usize,
    /// Versions and time range asked for, and the cells' timestamps kept
    /// (`Some`: a scan of [`Client::scan_versions`](crate::Client::scan_versions)).
    read: Option<ReadOptions>,
}

impl Plan {
    /// The rows a batch of `range` asks for: at most [`FILTERED_BATCH`]
    /// when the region servers filter it.
    fn batch_of(&self, range: &RangeReader) -> usize {
        match range.filter {
            Some(_) => self.batch.min(FILTERED_BATCH),
            None => self.batch,
        }
    }
}

/// The rows of [`Client::scan`]: `Result<(key, cells), Error>` in merged key
/// order. Holds at most `ranges × batch` rows, and a clone of the client
/// (not a borrow): it can be sent to another thread and outlive the
/// client value it came from.
///
/// A range whose scanner is lost (the gateway restarted, the connection
/// failed, the scanner expired, its region moved) is opened again after
/// the last row it returned, so the rows have no gap and no duplicate, up
/// to the client's [`RetryPolicy`](crate::RetryPolicy) attempts per batch.
///
/// A range the region servers filter (a skip scan with rowkey's filter or
/// HBase's) reads at most 64 rows per batch: the gateway answers only
/// once a batch is full, so a filter that matches one row in 200,000
/// reads that many per row returned. Such a batch that passes
/// [`request_timeout`](crate::ClientBuilder::request_timeout) is not an
/// error on its first three timeouts: the range is opened again after its
/// last row with twice the deadline each time (2, 4, then 8 request
/// timeouts), counted in [`retries`](Self::retries). Other scans end
/// with [`Error::Timeout`].
///
/// A scan holds one of the pool's connections, on which its scanners live
/// (a gateway's scanner ids mean nothing to another gateway, or to the
/// same one after a restart), until its last row is read or it is
/// dropped. When that connection fails, every range is opened again on a
/// new one. Behind a load balancer, the HTTP transport needs sticky
/// sessions for the same reason.
pub struct Rows {
    client: Client,
    /// The scan's connection (none before the first call and after one
    /// failed), and how many it has had.
    conn: Option<Lease>,
    epoch: u64,
    plan: Plan,
    ranges: Vec<RangeReader>,
    heads: MergeHeads<Stamped>,
    /// The limit on the rows yielded.
    limit: Option<usize>,
    yielded: usize,
    started: bool,
    /// An error met while refilling a range, yielded after the row that was
    /// already popped; then the scan ends.
    pending: Option<Error>,
    failed: bool,
    /// The scan ended because its connection failed: its scanners are not
    /// closed (they went with it).
    lost: bool,
    /// A skip scan: where its filter runs, and the filter when rows are
    /// checked here.
    pushdown: Option<Pushdown>,
    check: Option<KeyFilter>,
    retries: usize,
    span: tracing::Span,
    opened: Instant,
}

impl Rows {
    pub(crate) fn open(
        client: &Client,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
        reversed: bool,
    ) -> Result<Rows, Error> {
        Rows::open_with(client, table, scan, limit, reversed, None, None, None)
    }

    /// A skip scan: the filter's ranges, with the filter HBase runs
    /// ([`filter_bytes`](crate::filter_bytes)) or, where it has none,
    /// checked here; with `keys_only`, HBase's `KeyOnlyFilter` too.
    pub(crate) fn open_filter(
        client: &Client,
        table: &str,
        filter: &KeyFilter,
        scan: &Scan,
        limit: Option<usize>,
        keys_only: bool,
    ) -> Result<Rows, Error> {
        let open = |server: bool| {
            let (pushdown, mut per_range) = filter_bytes_per_range(filter, scan, server);
            if keys_only {
                per_range = per_range
                    .into_iter()
                    .map(|f| Some(crate::shared::filter::keys_only(f)))
                    .collect();
            }
            // Rows are checked here whatever the server runs (HBase's own
            // filters let keys that are not of the layout through; rowkey's
            // is exact, and the check then costs a `matches` per row
            // returned), so the limit counts matched rows here and is never
            // sent as `TScan.limit`: a page is never short while more rows
            // exist.
            let rows = Rows::open_with(
                client,
                table,
                scan,
                limit,
                false,
                Some(per_range),
                Some(filter),
                None,
            );
            rows.map(|rows| (rows, pushdown))
        };
        let (mut rows, pushdown) = match open(client.uses_server_filter(table)) {
            Err(e) if lacks_server_filter(&e) => {
                tracing::warn!(
                    table,
                    error = %e,
                    "the HBase servers lack rowkey's filter (rowkey.hbase.KeyFilter): skip scans use HBase's own filters"
                );
                client.server_filter_missing(table);
                open(false)?
            }
            other => other?,
        };
        // The server's filters match like `matches` on keys of the layout;
        // a row of another layout in the table is dropped here too (the
        // check is set in `open_with`, before the first batch).
        rows.pushdown = Some(pushdown);
        Ok(rows)
    }

    /// A scan with `filter` (HBase's serialized filters, one per range)
    /// sent as is.
    pub(crate) fn open_raw_filter(
        client: &Client,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
        filter: Vec<Option<Vec<u8>>>,
    ) -> Result<Rows, Error> {
        Rows::open_with(client, table, scan, limit, false, Some(filter), None, None)
    }

    /// The rows of `scan` with the versions and time range `read` asks
    /// for, each cell's timestamp kept.
    pub(crate) fn open_versions(
        client: &Client,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
        read: &ReadOptions,
    ) -> Result<Rows, Error> {
        Rows::open_with(client, table, scan, limit, false, None, None, Some(read))
    }

    #[allow(clippy::too_many_arguments)]
    fn open_with(
        client: &Client,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
        reversed: bool,
        filter: Option<Vec<Option<Vec<u8>>>>,
        check: Option<&KeyFilter>,
        read: Option<&ReadOptions>,
    ) -> Result<Rows, Error> {
        let n = scan.range_count();
        let span = tracing::debug_span!(
            "hbase_scan",
            table,
            call = if reversed { "scan_reversed" } else { "scan" },
            ranges = n,
            reversed,
            rows_read = tracing::field::Empty,
            rows_returned = tracing::field::Empty,
            retries = tracing::field::Empty,
            elapsed_us = tracing::field::Empty,
        );
        let mut rows = Rows {
            client: client.clone(),
            plan: Plan {
                table: table.to_string(),
                reversed,
                range_limit: match &filter {
                    Some(_) => None,
                    None => limit,
                },
                batch: client.scan_batch,
                read: read.cloned(),
            },
            conn: None,
            epoch: 0,
            ranges: Vec::with_capacity(n),
            heads: if reversed {
                MergeHeads::new_reversed(scan.head_len(), n)
            } else {
                MergeHeads::new(scan.head_len(), n)
            },
            limit,
            yielded: 0,
            started: false,
            pending: None,
            failed: false,
            lost: false,
            pushdown: None,
            // Rows the filter does not match are skipped from the first
            // batch on.
            check: check.cloned(),
            retries: 0,
            span,
            opened: Instant::now(),
        };
        if limit == Some(0) {
            return Ok(rows);
        }
        let mut per_range = filter.map(Vec::into_iter);
        for r in scan.ranges() {
            // Pushed before its scanner opens, so that a failure closes
            // the ones opened before it.
            rows.ranges.push(RangeReader {
                scanner: None,
                buffer: VecDeque::new(),
                read: 0,
                start: r.start().to_vec(),
                stop: r.stop().to_vec(),
                filter: per_range.as_mut().and_then(|f| f.next().flatten()),
                epoch: 0,
                patience: 0,
                #[cfg(feature = "native")]
                native: None,
                #[cfg(feature = "native")]
                scanned: 0,
                done: false,
            });
            let i = rows.ranges.len() - 1;
            let span = rows.span.clone();
            let _entered = span.enter();
            // A native scanner opens with its first batch.
            #[cfg(feature = "native")]
            if client.native_backend().is_some() {
                continue;
            }
            rows.open_scanner(i)
                .map_err(|e| client.missing_table(e, "openScanner", table))?;
        }
        // Each range's first batch, now: a scan that cannot read (a
        // missing table, which HBase's gateway reports only then) fails
        // here, when it opens, not on its first row.
        rows.started = true;
        {
            let span = rows.span.clone();
            let _entered = span.enter();
            for i in 0..rows.ranges.len() {
                rows.refill(i)
                    .map_err(|e| client.missing_table(e, "getScannerRows", table))?;
            }
        }
        Ok(rows)
    }

    /// The rows read for this scan so far, over all ranges. On a gateway
    /// client, the rows the gateway sent (with a limit, at most `limit ×
    /// ranges`); on a native client, the rows the region servers read, as
    /// HBase's scan metrics count them (`ROWS_SCANNED`): every row a filter
    /// on the servers looked at too, so a skip scan's cost shows here.
    pub fn rows_read(&self) -> usize {
        self.ranges
            .iter()
            .map(|r| {
                #[cfg(feature = "native")]
                if self.client.native_backend().is_some() {
                    let open = r.native.as_ref().map_or(0, |n| n.rows_scanned());
                    return usize::try_from(r.scanned + open).unwrap_or(usize::MAX);
                }
                r.read
            })
            .sum()
    }

    /// Scanners opened again after one was lost.
    pub fn retries(&self) -> usize {
        self.retries
    }

    /// For a skip scan ([`Client::filter`]), where its filter runs: on the
    /// region servers, or here (every row of its ranges sent).
    pub fn pushdown(&self) -> Option<Pushdown> {
        self.pushdown
    }

    /// The next row of range `i` into the merge, fetching a batch when its
    /// buffer is empty.
    fn refill(&mut self, i: usize) -> Result<(), Error> {
        // Rows the filter does not match (checked here) are skipped.
        loop {
            self.fetch(i)?;
            let range = &mut self.ranges[i];
            match range.buffer.pop_front() {
                Some(row) if self.check.as_ref().is_some_and(|f| !f.matches(&row.0)) => continue,
                Some(row) => {
                    self.heads.push(i, row);
                    return Ok(());
                }
                None => return Ok(()),
            }
        }
    }

    /// A batch of range `i`'s rows when its buffer is empty. A scanner that
    /// is lost is opened again where the range's rows stopped, as often as
    /// the retry policy allows.
    fn fetch(&mut self, i: usize) -> Result<(), Error> {
        let range = &self.ranges[i];
        if !range.buffer.is_empty() || range.done {
            return Ok(());
        }
        #[cfg(feature = "native")]
        if self.client.native_backend().is_some() {
            return self.fetch_native(i);
        }
        let batch = self.plan.batch_of(range);
        let want = match self.plan.range_limit {
            Some(l) => batch.min(l - range.read.min(l)),
            None => batch,
        };
        if want == 0 {
            self.close(i);
            return Ok(());
        }
        let want = i32::try_from(want).unwrap_or(i32::MAX);
        // Resumptions after a lost scanner: as many as the policy allows
        // (each batch has its own deadline).
        let mut tries = Tries::within(self.client.retry_policy(), Duration::MAX);
        loop {
            if self.ranges[i].epoch != self.epoch {
                // Opened on a connection that failed since: gone with it.
                self.ranges[i].scanner = None;
            }
            if self.ranges[i].scanner.is_none() {
                self.open_scanner(i)?;
            }
            let id = self.ranges[i].scanner.expect("opened");
            let patience = self.ranges[i].patience;
            let deadline = self.client.deadline_times(1 << patience);
            let fetched = self.call("getScannerRows", None, deadline, |t| {
                t.get_scanner_rows(id, want)
            });
            let fetched = match fetched {
                Ok(fetched) => fetched,
                // A filtered batch that timed out: the gateway is still
                // reading rows the filter passes over. Its scanner is void
                // with the connection; a new one reads on from the last
                // row returned, given twice the time.
                Err(e)
                    if e.is_timeout()
                        && self.ranges[i].filter.is_some()
                        && patience < SPARSE_RESUMES =>
                {
                    tracing::warn!(
                        table = %self.plan.table,
                        error = %e,
                        deadline_x = 2u32 << patience,
                        "a filtered scan's batch timed out (a sparse filter?); resuming after its last row"
                    );
                    self.ranges[i].scanner = None;
                    self.ranges[i].patience += 1;
                    self.client.count_retry();
                    self.retries += 1;
                    continue;
                }
                Err(e) => {
                    if let (true, Ok(pause)) = (lost(&e), tries.retry()) {
                        tracing::debug!(error = %e, "scanner lost; resuming after its last row");
                        self.ranges[i].scanner = None;
                        self.client.count_retry();
                        self.retries += 1;
                        std::thread::sleep(pause);
                        continue;
                    }
                    self.lost = self.conn.is_none();
                    return Err(e);
                }
            };
            self.client.count_rows(fetched.len());
            let Some(last) = fetched.last().and_then(|r| r.row.clone()) else {
                self.close(i);
                return Ok(());
            };
            let range = &mut self.ranges[i];
            range.read += fetched.len();
            resume_after(&mut range.start, &mut range.stop, &last, self.plan.reversed);
            let stamps = self.plan.read.is_some();
            range.buffer.extend(fetched.into_iter().map(|r| {
                (
                    r.row.unwrap_or_default(),
                    stamped_cells(r.column_values, stamps),
                )
            }));
            return Ok(());
        }
    }

    /// A batch of range `i`'s rows from the native client's scanner of it
    /// (opened on the first), the range closed when it has no more.
    #[cfg(feature = "native")]
    fn fetch_native(&mut self, i: usize) -> Result<(), Error> {
        let client = self.client.clone();
        let native = client.native_backend().expect("a native client");
        let range = &mut self.ranges[i];
        if range.native.is_none() {
            let filter = match &range.filter {
                Some(bytes) => Some(
                    <crate::native::pb::Filter as prost::Message>::decode(bytes.as_slice())
                        .map_err(|e| {
                            Error::Config(format!("a scan filter that is not HBase's: {e}"))
                        })?,
                ),
                None => None,
            };
            let options = crate::native::ScanOptions {
                batch: u32::try_from(self.plan.batch).unwrap_or(u32::MAX),
                reversed: self.plan.reversed,
                limit: self.plan.range_limit,
                read: self.plan.read.clone(),
                filter,
                ..crate::native::ScanOptions::default()
            };
            let scanner =
                native
                    .client()
                    .scanner(&self.plan.table, &range.start, &range.stop, options);
            range.native = Some(scanner);
        }
        loop {
            let scanner = self.ranges[i].native.as_mut().expect("opened above");
            match native.block_on(scanner.next_stamped_batch())? {
                // A heartbeat: the servers are still reading.
                Some(rows) if rows.is_empty() => continue,
                // Counted by the native client (Client::stats adds them).
                Some(rows) => {
                    let range = &mut self.ranges[i];
                    range.read += rows.len();
                    range.buffer.extend(rows);
                    return Ok(());
                }
                None => {
                    self.close(i);
                    return Ok(());
                }
            }
        }
    }

    /// Opens range `i`'s scanner on what is left of it, on the scan's
    /// connection (a new one when it has none), tried again while the
    /// error is retryable.
    fn open_scanner(&mut self, i: usize) -> Result<(), Error> {
        let plan = &self.plan;
        let range = &self.ranges[i];
        let caching = i32::try_from(plan.batch_of(range)).unwrap_or(i32::MAX);
        let limit = plan
            .range_limit
            .map(|l| i32::try_from(l - range.read.min(l)).unwrap_or(i32::MAX));
        let mut t = tscan(
            &range.start,
            &range.stop,
            plan.reversed,
            Some(caching),
            limit,
        );
        t.filter_bytes.clone_from(&range.filter);
        if let Some(read) = &plan.read {
            t.max_versions = Some(i32::try_from(read.max_versions()).unwrap_or(i32::MAX));
            t.time_range = read
                .range()
                .map(|r| crate::thrift::TTimeRange::new(r.start, r.end));
        }
        let mut tries = Tries::new(self.client.retry_policy(), self.client.deadline());
        let table = plan.table.as_bytes().to_vec();
        let start = range.start.clone();
        loop {
            let opened = self.call("openScanner", Some(&start), tries.deadline(), |thrift| {
                thrift.open_scanner(table.clone(), t.clone())
            });
            match opened {
                Ok(id) => {
                    let range = &mut self.ranges[i];
                    range.scanner = Some(id);
                    range.epoch = self.epoch;
                    return Ok(());
                }
                Err(e) => {
                    let pause = match tries.retry() {
                        Ok(pause) if !e.is_timeout() && e.is_retryable() => pause,
                        _ => {
                            self.lost = self.conn.is_none();
                            return Err(e);
                        }
                    };
                    self.client.count_retry();
                    self.retries += 1;
                    std::thread::sleep(pause);
                }
            }
        }
    }

    /// Closes a finished range's scanner (the gateway frees it; an error is
    /// of no consequence to the rows), and gives the scan's connection back
    /// once every range is done.
    fn close(&mut self, i: usize) {
        let range = &mut self.ranges[i];
        range.done = true;
        #[cfg(feature = "native")]
        if let Some(mut scanner) = range.native.take() {
            range.scanned += scanner.rows_scanned();
            if let Some(n) = self.client.native_backend() {
                n.block_on(scanner.close());
            }
        }
        if let Some(id) = range.scanner.take() {
            if range.epoch == self.epoch && self.conn.is_some() {
                let _ = self.close_scanner(id, self.client.deadline());
            }
        }
        if self.ranges.iter().all(|r| r.done) {
            self.release();
        }
    }

    /// Closes scanner `id` on the scan's connection by `deadline`.
    fn close_scanner(&mut self, id: i32, deadline: std::time::Instant) -> Result<(), Error> {
        self.call("closeScanner", None, deadline, |t| t.close_scanner(id))
    }

    /// One call on the scan's connection (one from the pool when it has
    /// none). Scanner ids belong to the gateway they were opened on: when
    /// the call leaves the scan without its connection (it failed on it),
    /// the next one may reach another gateway, so every id the scan holds
    /// is void from then on (the epoch moves on). Every call of a scan
    /// goes through here, closes included.
    fn call<T>(
        &mut self,
        op: &'static str,
        key: Option<&[u8]>,
        deadline: std::time::Instant,
        f: impl FnOnce(&mut Thrift) -> thrift::Result<T>,
    ) -> Result<T, Error> {
        let result = self
            .client
            .on(&mut self.conn, op, &self.plan.table, key, deadline, f);
        if self.conn.is_none() {
            self.epoch += 1;
        }
        result
    }

    /// Gives the scan's connection back to the pool: the ids of scanners
    /// still held are void too (the next connection may reach another
    /// gateway).
    fn release(&mut self) {
        self.client.release(self.conn.take());
        self.epoch += 1;
    }

    /// Closes every scanner still open on the scan's connection, at most
    /// one second each, stopping at the first that fails (a gateway that
    /// went away took its scanners with it; one not closed otherwise
    /// expires on the gateway), and gives the connection back.
    fn close_all(&mut self) {
        for i in 0..self.ranges.len() {
            let r = &mut self.ranges[i];
            r.done = true;
            #[cfg(feature = "native")]
            if let Some(mut scanner) = r.native.take() {
                if let Some(n) = self.client.native_backend() {
                    n.block_on(scanner.close());
                }
            }
            let Some(id) = r.scanner.take() else { continue };
            if self.lost || self.conn.is_none() || r.epoch != self.epoch {
                continue;
            }
            let closed = self.close_scanner(id, self.client.short_deadline());
            if closed.is_err() && self.conn.is_none() {
                break;
            }
        }
        self.release();
    }

    fn fail(&mut self, e: Error) -> Option<Result<Stamped, Error>> {
        self.failed = true;
        Some(Err(e))
    }

    /// Rows fetched per call: what an async scan reads per trip.
    #[cfg(feature = "tokio")]
    pub(crate) fn client_batch(&self) -> usize {
        self.plan.batch
    }

    pub(crate) fn table(&self) -> &str {
        &self.plan.table
    }
}

/// A scanner lost with its gateway, its connection or its lease: worth
/// opening again where its rows stopped. A scan past its deadline is not.
fn lost(e: &Error) -> bool {
    match e {
        Error::Timeout { .. } => false,
        // The gateway forgot the scanner (it restarted, or the scanner
        // expired: "Invalid scanner Id") or HBase lost it
        // (UnknownScannerException, a region that moved under it).
        Error::Server { message, .. } => {
            let m = message.to_ascii_lowercase();
            e.is_retryable() || m.contains("scanner") || m.contains("notservingregion")
        }
        _ => e.is_retryable(),
    }
}

impl Iterator for Rows {
    type Item = Result<Row, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_stamped()
            .map(|row| row.map(|(key, (cells, _))| (key, cells)))
    }
}

impl Rows {
    /// The next row in merged order, with its cells' timestamps when the
    /// scan keeps them.
    fn next_stamped(&mut self) -> Option<Result<Stamped, Error>> {
        if self.failed {
            return None;
        }
        let span = self.span.clone();
        let _entered = span.enter();
        if let Some(e) = self.pending.take() {
            return self.fail(e);
        }
        if self.limit.is_some_and(|l| self.yielded >= l) {
            return None;
        }
        if !self.started {
            self.started = true;
            for i in 0..self.ranges.len() {
                if let Err(e) = self.refill(i) {
                    return self.fail(e);
                }
            }
        }
        let Some((i, row)) = self.heads.pop() else {
            self.release();
            return None;
        };
        self.yielded += 1;
        if self.limit.is_some_and(|l| self.yielded >= l) {
            // The last row asked for: the scanners closed and the
            // connection back in the pool now, not when the scan is dropped.
            self.close_all();
        } else if let Err(e) = self.refill(i) {
            // Range i's next row is not smaller than this one, so an error
            // reading it can wait until this row is out.
            self.pending = Some(e);
        }
        Some(Ok(row))
    }
}

/// The rows of [`Client::scan_versions`](crate::Client::scan_versions):
/// `Result<(key, cells), Error>` in merged key order, each cell a
/// [`VersionedCell`](crate::VersionedCell) with its timestamp, every
/// version the scan's [`ReadOptions`] ask for. It reads as [`Rows`] does
/// (batches, resumption after a lost scanner, a limit on rows).
pub struct VersionedRows {
    rows: Rows,
}

impl VersionedRows {
    pub(crate) fn new(rows: Rows) -> VersionedRows {
        VersionedRows { rows }
    }

    /// [`Rows::rows_read`].
    pub fn rows_read(&self) -> usize {
        self.rows.rows_read()
    }

    /// [`Rows::retries`].
    pub fn retries(&self) -> usize {
        self.rows.retries()
    }
}

impl Iterator for VersionedRows {
    type Item = Result<crate::VersionedRow, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        self.rows
            .next_stamped()
            .map(|row| row.map(crate::types::versioned))
    }
}

impl Drop for Rows {
    /// Closes the scanners still open (at most one second each): a
    /// scan over a gateway that went away is dropped at once. The
    /// connection goes back to the pool if it is sound.
    fn drop(&mut self) {
        self.span.record("rows_read", self.rows_read());
        self.span.record("rows_returned", self.yielded);
        self.span.record("retries", self.retries);
        self.span
            .record("elapsed_us", self.opened.elapsed().as_micros() as u64);
        self.close_all();
    }
}

/// The rows of [`Client::scan_typed`]: `Result<(K, cells), Error>` in merged
/// key order. A row whose key is not a `K` is an [`Error::ForeignRow`] and
/// the scan goes on; any other error ends it.
pub struct TypedRows<K> {
    rows: Rows,
    key: PhantomData<fn() -> K>,
}

impl<K: for<'a> DecodeRowKey<'a>> TypedRows<K> {
    pub(crate) fn new(rows: Rows) -> Self {
        TypedRows {
            rows,
            key: PhantomData,
        }
    }

    /// The rows fetched from the server so far (see [`Rows::rows_read`]).
    pub fn rows_read(&self) -> usize {
        self.rows.rows_read()
    }

    /// Scanners opened again after one was lost (see [`Rows::retries`]).
    pub fn retries(&self) -> usize {
        self.rows.retries()
    }

    /// For a skip scan ([`Client::filter_typed`]), where its filter runs
    /// (see [`Rows::pushdown`]).
    pub fn pushdown(&self) -> Option<Pushdown> {
        self.rows.pushdown()
    }
}

impl<K: for<'a> DecodeRowKey<'a>> Iterator for TypedRows<K> {
    type Item = Result<(K, Vec<Cell>), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let (key, cells) = match self.rows.next()? {
            Ok(row) => row,
            Err(e) => return Some(Err(e)),
        };
        Some(decode_row(self.rows.table(), key, cells))
    }
}

/// A row's key decoded into `K`, or [`Error::ForeignRow`].
pub(crate) fn decode_row<K: for<'a> DecodeRowKey<'a>>(
    table: &str,
    key: Vec<u8>,
    cells: Vec<Cell>,
) -> Result<(K, Vec<Cell>), Error> {
    match K::decode(&key) {
        Ok(k) => Ok((k, cells)),
        Err(cause) => Err(Error::ForeignRow {
            table: table.to_string(),
            key: to_string_binary(&key),
            type_name: std::any::type_name::<K>(),
            cause,
        }),
    }
}

/// Every range of `scan` as a Thrift2 `TScan`, in [`Scan::ranges`] order,
/// read forwards or (`reversed`) backwards: for a Thrift2 client of your
/// own. [`Client::scan`] uses these, with a batch size (`caching`) and a
/// limit on top.
///
/// ```
/// use rowkey_core::Scan;
///
/// let t = rowkey_hbase::tscans(&Scan::from_bounds(b"a", b"c"), false).remove(0);
/// assert_eq!((t.start_row.as_deref(), t.stop_row.as_deref()), (Some(&b"a"[..]), Some(&b"c"[..])));
/// let r = rowkey_hbase::tscans(&Scan::from_bounds(b"a", b"c"), true).remove(0);
/// assert_eq!((r.start_row.as_deref(), r.reversed), (Some(&b"c"[..]), Some(true)));
/// ```
pub fn tscans(scan: &Scan, reversed: bool) -> Vec<TScan> {
    scan.ranges()
        .map(|r| tscan(r.start(), r.stop(), reversed, None, None))
        .collect()
}

/// The range `[start, stop)` (an empty `stop`: the end of the table) as a
/// Thrift `TScan`.
///
/// Forwards: `startRow` (included) and `stopRow` (excluded), as a
/// [`ScanRange`](rowkey_core::ScanRange) means them. Backwards, HBase starts at `startRow`
/// (included) and stops before `stopRow`, both the wrong way round for a
/// half-open range: the scan starts at the range's stop key, a filter drops
/// that key itself, and a `WHILE` filter ends the scan at the first key
/// below the range's start, so no row outside the range is read or sent.
fn tscan(
    start: &[u8],
    stop: &[u8],
    reversed: bool,
    caching: Option<i32>,
    limit: Option<i32>,
) -> TScan {
    // Not `TScan::default()`: the generated default sets every optional
    // field (an empty filter, `maxVersions` 0, `limit` 0), which HBase
    // refuses.
    #[rustfmt::skip]
    let mut t = TScan::new(
        None, None, None, caching, None, None, None, None, None, None,
        None, None, None, None, limit, None, None, None,
    );
    if !reversed {
        t.start_row = Some(start.to_vec());
        t.stop_row = (!stop.is_empty()).then(|| stop.to_vec());
        return t;
    }
    t.reversed = Some(true);
    let mut filters = Vec::new();
    if !start.is_empty() {
        filters.push(row_filter("WHILE RowFilter(>=, ", start));
    }
    if !stop.is_empty() {
        t.start_row = Some(stop.to_vec());
        filters.push(row_filter("RowFilter(<, ", stop));
    }
    if !filters.is_empty() {
        t.filter_string = Some(filters.join(&b" AND "[..]));
    }
    t
}

/// `{head}'binary:KEY')` in HBase's filter language: the key's bytes as
/// they are, a quote doubled.
fn row_filter(head: &str, key: &[u8]) -> Vec<u8> {
    let mut f = head.as_bytes().to_vec();
    f.extend_from_slice(b"'binary:");
    for &b in key {
        if b == b'\'' {
            f.push(b'\'');
        }
        f.push(b);
    }
    f.extend_from_slice(b"')");
    f
}

/// Whether `e` is HBase saying it cannot load rowkey's filter class (on the
/// gateway, which reads the filter, or on a region server).
fn lacks_server_filter(e: &Error) -> bool {
    match e {
        Error::Server { message, .. } => {
            // Java names the class with dots or, in a class file's own
            // terms (`NoClassDefFoundError`, a jar built for a newer JDK's
            // `UnsupportedClassVersionError`), with slashes.
            (message.contains("rowkey.hbase.KeyFilter")
                || message.contains("rowkey/hbase/KeyFilter"))
                && [
                    "ClassNotFoundException",
                    "NoClassDefFoundError",
                    "UnsupportedClassVersionError",
                    "Unable to find",
                ]
                .iter()
                .any(|m| message.contains(m))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reversed_ranges_become_filters_with_quotes_doubled() {
        let scan = Scan::from_bounds(b"a'b", b"c");
        let r = scan.ranges().next().unwrap();
        let t = tscan(r.start(), r.stop(), true, Some(10), Some(5));
        assert_eq!(t.start_row.as_deref(), Some(&b"c"[..]));
        assert_eq!(t.stop_row, None);
        assert_eq!(t.reversed, Some(true));
        assert_eq!(
            t.filter_string.as_deref(),
            Some(&b"WHILE RowFilter(>=, 'binary:a''b') AND RowFilter(<, 'binary:c')"[..])
        );
        let f = tscan(r.start(), r.stop(), false, Some(10), None);
        assert_eq!(
            (
                f.start_row.as_deref(),
                f.stop_row.as_deref(),
                f.filter_string,
                f.limit
            ),
            (Some(&b"a'b"[..]), Some(&b"c"[..]), None, None)
        );
    }
}
