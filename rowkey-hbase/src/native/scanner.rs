//! A scan of one row range, region after region, in batches: the whole
//! state machine of HBase's scanners (`next_call_seq`, heartbeats, rows
//! sent in parts and put together, `more_results_in_region`, forward and
//! reversed), and after any scanner-lost error (an unknown, reset or
//! out-of-order scanner, a region moved, split or closed, a server stopped,
//! an answer lost with its connection) a new scanner from after the last
//! row returned: no gap, no duplicate.

use std::time::Duration;

use rowkey_hbase_protocol::{pb, wire};

use super::client::NativeClient;
use super::conn::CallError;
use super::convert::{call_error, moved_to, remote_error, specifier};
use super::regions::{self, Region};
use crate::types::{versioned, Stamped};
use crate::{Cell, Error, Row, VersionedRow};

const CLIENT_SERVICE: &str = "ClientService";
/// Scanners [`NativeClient::scan_many`] runs at once.
const SCANS_IN_FLIGHT: usize = 64;

impl NativeClient {
    /// The rows of `table` from `start` (inclusive) to `stop` (exclusive;
    /// empty: to the end), at most `limit`, region by region: a
    /// [`scanner`](Self::scanner) read to its end.
    pub async fn scan(
        &self,
        table: &str,
        start: &[u8],
        stop: &[u8],
        limit: Option<usize>,
    ) -> Result<Vec<Row>, Error> {
        let options = ScanOptions {
            limit,
            ..ScanOptions::default()
        };
        self.scanner(table, start, stop, options).collect().await
    }

    /// Many small scans of `table` at once (the newest rows of 500 devices,
    /// say): every range of every scan read by its own scanner, at most
    /// 64 calls in flight, each scan's ranges merged in key order (after
    /// their salt or prefix, as [`Client::scan`](crate::Client::scan)
    /// merges) and cut to `limit_each` rows. One answer per scan, in the
    /// order of `scans`.
    pub async fn scan_many(
        &self,
        table: &str,
        scans: &[rowkey_core::Scan],
        limit_each: Option<usize>,
    ) -> Result<Vec<Vec<Row>>, Error> {
        use futures_util::StreamExt as _;
        let options = ScanOptions {
            limit: limit_each,
            // A small scan's rows in its first call.
            batch: limit_each.map_or(1_000, |l| u32::try_from(l.clamp(1, 1_000)).unwrap_or(1_000)),
            ..ScanOptions::default()
        };
        let jobs: Vec<(usize, usize, NativeScanner)> = scans
            .iter()
            .enumerate()
            .flat_map(|(i, scan)| {
                let options = options.clone();
                scan.ranges().enumerate().map(move |(j, r)| {
                    (
                        i,
                        j,
                        self.scanner(table, r.start(), r.stop(), options.clone()),
                    )
                })
            })
            .collect();
        let mut per_range: Vec<Vec<Vec<Row>>> = scans
            .iter()
            .map(|s| vec![Vec::new(); s.range_count()])
            .collect();
        let mut done = futures_util::stream::iter(jobs)
            .map(|(i, j, scanner)| async move { (i, j, scanner.collect().await) })
            .buffer_unordered(SCANS_IN_FLIGHT);
        while let Some((i, j, rows)) = done.next().await {
            per_range[i][j] = rows?;
        }
        Ok(scans
            .iter()
            .zip(per_range)
            .map(|(scan, ranges)| {
                let merged = rowkey_core::merge_salted_with(
                    scan.head_len(),
                    ranges.into_iter().map(Vec::into_iter),
                );
                merged.take(limit_each.unwrap_or(usize::MAX)).collect()
            })
            .collect())
    }

    /// A scan of `[start, stop)` of `table` (`stop` empty: to the end),
    /// read a batch at a time, resumed after its last row when HBase loses
    /// its scanner (see [`NativeScanner`]).
    pub fn scanner(
        &self,
        table: &str,
        start: &[u8],
        stop: &[u8],
        options: ScanOptions,
    ) -> NativeScanner {
        NativeScanner::new(self.clone(), table, start, stop, options)
    }
}

/// The scanner HBase holds for the range, on one region.
struct Open {
    region: Region,
    id: u64,
    seq: u64,
}

/// Settings of a [`NativeScanner`].
#[derive(Debug, Clone)]
pub struct ScanOptions {
    /// Rows asked for per call (`ScanRequest.number_of_rows`, and the
    /// scan's `caching`).
    pub batch: u32,
    /// The most bytes of cells a region server sends per call
    /// (`Scan.max_result_size`); a row larger than it comes in parts, put
    /// together here.
    pub max_result_size: u64,
    /// Read from the range's end down to its start.
    pub reversed: bool,
    /// The most rows the scan returns.
    pub limit: Option<usize>,
    /// Versions and time range to read, the cells' timestamps kept
    /// ([`next_versioned_batch`](NativeScanner::next_versioned_batch));
    /// `None`: the newest version of each column.
    pub read: Option<crate::ReadOptions>,
    /// A filter the region servers run (HBase's serialized `Filter`, as
    /// [`filter_bytes`](crate::filter_bytes) writes it, decoded).
    pub filter: Option<pb::Filter>,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            batch: 1_000,
            // HBase's client default (hbase.client.scanner.max.result.size).
            max_result_size: 2 << 20,
            reversed: false,
            limit: None,
            read: None,
            filter: None,
        }
    }
}

/// The rows of `[start, stop)` of a table (`stop` empty: to the table's
/// end), in key order or reversed, read a batch at a time with
/// [`next_batch`](Self::next_batch). A scanner HBase loses is opened
/// again after the last row returned (as often in a row as the client's
/// retry policy allows, with its pauses, within the operation timeout of
/// each batch); dropping it mid-range closes the server's
/// scanner from a task on the current tokio runtime.
pub struct NativeScanner {
    client: NativeClient,
    table: String,
    /// What is left: forwards `start` moves past each row returned,
    /// reversed `stop` moves down to it.
    start: Vec<u8>,
    stop: Vec<u8>,
    options: ScanOptions,
    open: Option<Open>,
    /// A row whose cells came in parts so far.
    partial: Option<Stamped>,
    returned: usize,
    rows_read: u64,
    /// Rows the region servers read for this scan, as their scan metrics
    /// count them (`ROWS_SCANNED`: every row a filter looked at too).
    rows_scanned: u64,
    resumes: usize,
    /// The region cache may be wrong: read `hbase:meta` again.
    stale: bool,
    done: bool,
}

/// Why a call of the scan failed.
enum Failure {
    /// The scanner is gone (or the region elsewhere): open another, where
    /// the region cache says (`relocated`: HBase named the region's new
    /// server, and the cache has it) or where `hbase:meta` says.
    Lost {
        why: String,
        relocated: bool,
    },
    Fatal(Error),
}

impl NativeScanner {
    pub(super) fn new(
        client: NativeClient,
        table: &str,
        start: &[u8],
        stop: &[u8],
        options: ScanOptions,
    ) -> NativeScanner {
        NativeScanner {
            client,
            table: table.to_owned(),
            start: start.to_vec(),
            stop: stop.to_vec(),
            done: options.limit == Some(0) || (!stop.is_empty() && start >= stop),
            options,
            open: None,
            partial: None,
            returned: 0,
            rows_read: 0,
            rows_scanned: 0,
            resumes: 0,
            stale: false,
        }
    }

    /// Rows returned so far.
    pub fn rows_returned(&self) -> usize {
        self.returned
    }

    /// Rows the region servers read for this scan so far, as HBase's
    /// scan metrics count them (`ROWS_SCANNED`): every row a filter on the
    /// servers looked at, not only those returned, so a skip scan's cost
    /// shows here.
    pub fn rows_scanned(&self) -> u64 {
        self.rows_scanned
    }

    /// Scanners opened again after one was lost.
    pub fn resumes(&self) -> usize {
        self.resumes
    }

    /// The next rows, `None` once the range is read (or the limit
    /// reached). A batch may be empty while a server is still reading (a
    /// heartbeat of a filtered scan).
    pub async fn next_batch(&mut self) -> Result<Option<Vec<Row>>, Error> {
        let batch = self.next_stamped_batch().await?;
        Ok(batch.map(|rows| rows.into_iter().map(|(k, (cells, _))| (k, cells)).collect()))
    }

    /// [`next_batch`](Self::next_batch) with each row's cells as
    /// [`VersionedCell`](crate::VersionedCell)s: their timestamps, every
    /// version [`ScanOptions::read`] asked for.
    pub async fn next_versioned_batch(&mut self) -> Result<Option<Vec<VersionedRow>>, Error> {
        let batch = self.next_stamped_batch().await?;
        Ok(batch.map(|rows| rows.into_iter().map(versioned).collect()))
    }

    pub(crate) async fn next_stamped_batch(&mut self) -> Result<Option<Vec<Stamped>>, Error> {
        let client = self.client.clone();
        let table = self.table.clone();
        let batch = client.within("Scan", &table, self.next_batch_tries()).await;
        if batch.is_err() {
            self.done = true;
        }
        batch
    }

    /// [`next_batch`](Self::next_batch) with no budget of its own.
    async fn next_batch_tries(&mut self) -> Result<Option<Vec<Stamped>>, Error> {
        let mut tries = self.client.tries();
        loop {
            if self.done {
                return Ok(None);
            }
            match self.step().await {
                Ok(rows) => return Ok(Some(rows)),
                Err(Failure::Fatal(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(Failure::Lost { why, relocated }) => {
                    tracing::debug!(table = %self.table, why, "scanner lost; resuming after the last row");
                    // HBase's word on where a region went is taken once:
                    // a server can name a region it no longer holds (it
                    // moved back), and then hbase:meta decides.
                    self.stale |= !relocated || tries.failed() > 0;
                    self.open = None;
                    // A row half read is read again whole.
                    if let Some((row, _)) = self.partial.take() {
                        self.resume_at(&row);
                    }
                    self.resumes += 1;
                    if let Err(spent) = tries.again().await {
                        self.done = true;
                        let what = format!("the scanner was lost each time ({why})");
                        return Err(spent.error("Scan", &self.table, &what));
                    }
                    self.client.count_retry();
                }
            }
        }
    }

    /// Every row left, read to the end.
    pub async fn collect(mut self) -> Result<Vec<Row>, Error> {
        let mut all = Vec::new();
        while let Some(rows) = self.next_batch().await? {
            all.extend(rows);
        }
        Ok(all)
    }

    /// Closes the server's scanner now (what dropping does, awaited).
    pub async fn close(&mut self) {
        self.done = true;
        if let Some(open) = self.open.take() {
            let _ = close(&self.client, &self.table, &open).await;
        }
    }

    /// One call: opening a scanner on the region the range goes on in, or
    /// the next batch of the open one.
    async fn step(&mut self) -> Result<Vec<Stamped>, Failure> {
        let request = match &self.open {
            Some(open) => pb::ScanRequest {
                scanner_id: Some(open.id),
                number_of_rows: Some(self.options.batch),
                next_call_seq: Some(open.seq),
                client_handles_partials: Some(true),
                client_handles_heartbeats: Some(true),
                limit_of_rows: self.left().map(|l| u32::try_from(l).unwrap_or(u32::MAX)),
                track_scan_metrics: Some(true),
                ..Default::default()
            },
            None => {
                let region = self.region().await?;
                let request = self.open_request(&region);
                self.open = Some(Open {
                    region,
                    id: 0,
                    seq: 0,
                });
                request
            }
        };
        let server = self.open.as_ref().expect("set above").region.server.clone();
        let (response, block) = self.call(&server, &request).await?;
        // Each answer's metrics are that call's.
        if let Some(metrics) = &response.scan_metrics {
            let scanned = metrics
                .metrics
                .iter()
                .filter(|m| m.name.as_deref() == Some("ROWS_SCANNED"))
                .filter_map(|m| u64::try_from(m.value.unwrap_or(0)).ok())
                .sum::<u64>();
            self.rows_scanned = self.rows_scanned.saturating_add(scanned);
        }
        let open = self.open.as_mut().expect("set above");
        if let Some(id) = response.scanner_id {
            open.id = id;
        }
        if request.scanner_id.is_some() {
            open.seq += 1;
        }
        let rows = self.take_rows(&response, &block)?;
        let more_in_region = response.more_results.unwrap_or(true)
            && response.more_results_in_region.unwrap_or(true);
        if self.left() == Some(0) {
            if more_in_region {
                self.close().await;
            } else {
                // The server closed it (the limit, or the region's end):
                // no call to close it again.
                self.open = None;
                self.done = true;
            }
        } else if !more_in_region {
            // The server closed the scanner at the region's end: on to the
            // next region, or done.
            let open = self.open.take().expect("set above");
            self.next_region(&open.region);
        }
        Ok(rows)
    }

    /// The rows of a response, the last one held back while its cells
    /// come in parts; the range's start (or end) moved past them.
    fn take_rows(
        &mut self,
        response: &pb::ScanResponse,
        block: &[u8],
    ) -> Result<Vec<Stamped>, Failure> {
        let table = self.table.clone();
        let bad = |cause: String| {
            Failure::Fatal(Error::Connection {
                op: "Scan",
                table: table.clone(),
                server: String::new(),
                cause,
            })
        };
        let total: u64 = response
            .cells_per_result
            .iter()
            .map(|&n| u64::from(n))
            .sum();
        let total = usize::try_from(total).map_err(|_| bad("too many cells".into()))?;
        let mut kvs = wire::cells(block, total)
            .map_err(|e| bad(e.to_string()))?
            .into_iter();
        let mut rows = Vec::new();
        for (i, &n) in response.cells_per_result.iter().enumerate() {
            let cells: Vec<wire::KeyValue> = kvs.by_ref().take(n as usize).collect();
            let Some(first) = cells.first() else { continue };
            let key = first.row.clone();
            if cells.iter().any(|c| c.row != key) {
                return Err(bad("a result whose cells are of several rows".into()));
            }
            self.rows_read += 1;
            let stamps: Vec<i64> = if self.options.read.is_some() {
                cells.iter().map(|kv| kv.timestamp).collect()
            } else {
                Vec::new()
            };
            let cells: Vec<Cell> = cells
                .into_iter()
                .map(|kv| {
                    (
                        String::from_utf8_lossy(&kv.family).into_owned(),
                        kv.qualifier,
                        kv.value,
                    )
                })
                .collect();
            let cells = (cells, stamps);
            let partial = response
                .partial_flag_per_result
                .get(i)
                .copied()
                .unwrap_or(false);
            let row = match self.partial.take() {
                Some((k, (mut held, mut times))) if k == key => {
                    held.extend(cells.0);
                    times.extend(cells.1);
                    (k, (held, times))
                }
                Some((k, _)) => {
                    return Err(bad(format!(
                        "a row in parts ({}) followed by another row",
                        rowkey_core::hbase::to_string_binary(&k)
                    )))
                }
                None => (key, cells),
            };
            if partial {
                self.partial = Some(row);
                continue;
            }
            self.resume_after(&row.0);
            rows.push(row);
        }
        // A limit counts whole rows: the server's limit may end a part
        // early only with the last row, which it then sends whole.
        if let Some(left) = self.left() {
            rows.truncate(left);
        }
        self.returned += rows.len();
        self.client.count_rows(rows.len());
        Ok(rows)
    }

    /// The range left after `row` was returned (rowkey-core's rule).
    fn resume_after(&mut self, row: &[u8]) {
        rowkey_core::scan::resume_after(
            &mut self.start,
            &mut self.stop,
            row,
            self.options.reversed,
        );
    }

    /// The range left when `row` must be read again.
    fn resume_at(&mut self, row: &[u8]) {
        rowkey_core::scan::resume_at(&mut self.start, &mut self.stop, row, self.options.reversed);
    }

    /// After `region` is read to its end: the next region's part of the
    /// range, or done.
    fn next_region(&mut self, region: &Region) {
        if self.options.reversed {
            if region.start.is_empty() || region.start.as_slice() <= self.start.as_slice() {
                self.done = true;
            } else {
                self.stop = region.start.clone();
            }
        } else if region.end.is_empty()
            || (!self.stop.is_empty() && region.end.as_slice() >= self.stop.as_slice())
        {
            self.done = true;
        } else {
            self.start = region.end.clone();
        }
    }

    fn left(&self) -> Option<usize> {
        self.options.limit.map(|l| l.saturating_sub(self.returned))
    }

    /// The region the range goes on in: forwards the one holding its
    /// start; reversed the one holding the last row before its end.
    async fn region(&mut self) -> Result<Region, Failure> {
        let refresh = std::mem::take(&mut self.stale);
        let regions = self
            .client
            .regions(&self.table, refresh)
            .await
            .map_err(Failure::Fatal)?;
        let found = if self.options.reversed {
            match self.stop.as_slice() {
                [] => regions.last(),
                stop => regions.iter().rev().find(|r| r.start.as_slice() < stop),
            }
        } else {
            regions::find(&regions, &self.start)
        };
        found.cloned().ok_or_else(|| Failure::Lost {
            why: "hbase:meta lists no region for the scan's next row".into(),
            relocated: false,
        })
    }

    fn open_request(&self, region: &Region) -> pb::ScanRequest {
        let o = &self.options;
        let (start_row, stop_row, include_start, include_stop) = if o.reversed {
            // From the end down: the end excluded, the start included.
            (self.stop.clone(), self.start.clone(), false, true)
        } else {
            (self.start.clone(), self.stop.clone(), true, false)
        };
        pb::ScanRequest {
            region: Some(specifier(&region.name)),
            scan: Some(pb::Scan {
                start_row: Some(start_row),
                stop_row: Some(stop_row),
                include_start_row: Some(include_start),
                include_stop_row: Some(include_stop),
                max_versions: Some(o.read.as_ref().map_or(1, |r| r.max_versions())),
                time_range: o
                    .read
                    .as_ref()
                    .and_then(|r| r.range())
                    .map(|r| pb::TimeRange {
                        from: u64::try_from(r.start).ok(),
                        to: u64::try_from(r.end).ok(),
                    }),
                cache_blocks: Some(true),
                caching: Some(o.batch),
                max_result_size: Some(o.max_result_size),
                allow_partial_results: Some(true),
                reversed: Some(o.reversed),
                filter: o.filter.clone(),
                ..Default::default()
            }),
            number_of_rows: Some(o.batch),
            client_handles_partials: Some(true),
            client_handles_heartbeats: Some(true),
            track_scan_metrics: Some(true),
            limit_of_rows: self.left().map(|l| u32::try_from(l).unwrap_or(u32::MAX)),
            ..Default::default()
        }
    }

    async fn call(
        &self,
        server: &str,
        request: &pb::ScanRequest,
    ) -> Result<(pb::ScanResponse, Vec<u8>), Failure> {
        let answer = self.call_once(server, request).await;
        if answer.is_err() {
            self.client.count_failure(server);
        }
        answer
    }

    async fn call_once(
        &self,
        server: &str,
        request: &pb::ScanRequest,
    ) -> Result<(pb::ScanResponse, Vec<u8>), Failure> {
        let timeout = self.client.request_timeout();
        let conn = match self.client.conn(server, CLIENT_SERVICE).await {
            Ok(c) => c,
            Err(CallError::Broken(why)) => {
                return Err(Failure::Lost {
                    why,
                    relocated: false,
                })
            }
            Err(e) => {
                return Err(Failure::Fatal(call_error(
                    e,
                    "Scan",
                    &self.table,
                    server,
                    timeout,
                )))
            }
        };
        match conn
            .call("Scan", request, &[], self.client.deadline())
            .await
        {
            Ok(answer) => Ok(answer),
            Err(CallError::Remote(e)) => {
                let class = e.exception_class_name.as_deref().unwrap_or_default();
                if lost_class(class) {
                    let region = &self.open.as_ref().expect("a call has its region").region;
                    let relocated = moved_to(class, e.stack_trace.as_deref())
                        .is_some_and(|to| self.client.relocate(&self.table, &region.name, to));
                    Err(Failure::Lost {
                        why: class.to_owned(),
                        relocated,
                    })
                } else {
                    Err(Failure::Fatal(remote_error(
                        "Scan",
                        &self.table,
                        None,
                        class,
                        e.stack_trace.as_deref().map(str::as_bytes),
                    )))
                }
            }
            // The answer is lost with the connection: the scanner's
            // position is unknown, so a new one starts after the last row.
            Err(CallError::Broken(why)) => Err(Failure::Lost {
                why,
                relocated: false,
            }),
            Err(e) => Err(Failure::Fatal(call_error(
                e,
                "Scan",
                &self.table,
                server,
                timeout,
            ))),
        }
    }
}

impl Drop for NativeScanner {
    fn drop(&mut self) {
        let Some(open) = self.open.take() else { return };
        if open.id == 0 {
            return;
        }
        // The server's scanner would otherwise wait for its lease to end.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let client = self.client.clone();
            let table = std::mem::take(&mut self.table);
            runtime.spawn(async move {
                let _ = close(&client, &table, &open).await;
            });
        }
    }
}

async fn close(client: &NativeClient, table: &str, open: &Open) -> Result<(), Error> {
    let request = pb::ScanRequest {
        scanner_id: Some(open.id),
        number_of_rows: Some(0),
        close_scanner: Some(true),
        ..Default::default()
    };
    let conn = client
        .conn(&open.region.server, CLIENT_SERVICE)
        .await
        .map_err(|e| call_error(e, "Scan", table, &open.region.server, Duration::ZERO))?;
    conn.call::<pb::ScanResponse>("Scan", &request, &[], client.deadline())
        .await
        .map(|_| ())
        .map_err(|e| {
            call_error(
                e,
                "Scan",
                table,
                &open.region.server,
                client.request_timeout(),
            )
        })
}

/// The exceptions after which a scan goes on with a new scanner.
fn lost_class(class: &str) -> bool {
    [
        "org.apache.hadoop.hbase.UnknownScannerException",
        "org.apache.hadoop.hbase.exceptions.ScannerResetException",
        "org.apache.hadoop.hbase.exceptions.OutOfOrderScannerNextException",
        "org.apache.hadoop.hbase.NotServingRegionException",
        "org.apache.hadoop.hbase.exceptions.RegionMovedException",
        "org.apache.hadoop.hbase.exceptions.RegionOpeningException",
        "org.apache.hadoop.hbase.regionserver.RegionServerStoppedException",
        "org.apache.hadoop.hbase.ipc.ServerNotRunningYetException",
        "org.apache.hadoop.hbase.regionserver.LeaseException",
    ]
    .contains(&class)
        // An overloaded server refused the call before running it: the
        // scan goes on after its last row, after the retry pause.
        || super::convert::busy_class(class)
}
