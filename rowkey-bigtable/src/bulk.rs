//! The bulk writer: rows pushed one at a time, sent in `MutateRows`
//! requests that run concurrently within a budget of bytes and requests in
//! flight (flow control, as Google's Java `Batcher` and Go `ApplyBulk`
//! give), retried where that is safe.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bigtable_rs::bigtable::RowCell;
use bigtable_rs::google::bigtable::v2::mutate_rows_request::Entry;
use bigtable_rs::google::bigtable::v2::{mutation, Mutation};
use rowkey_core::clock::Tries;
use rowkey_core::hbase::to_string_binary;
use rowkey_core::RowKey;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::retry::transient;
use crate::write::{
    entry, entry_bytes, send_batch, unsendable, Cell, INVALID_ARGUMENT, MAX_MUTATIONS,
    MAX_REQUEST_BYTES,
};
use crate::{chain, Client, Error, RejectedRow};

/// What a [`BulkWriter`] did, from [`BulkWriter::flush`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BulkReport {
    /// Rows the server confirmed.
    pub rows_written: u64,
    /// Rows not written, each with its position among the rows pushed,
    /// its key and why: refused before sending, refused by the server, or
    /// in a request that failed for good.
    pub rejected: Vec<RejectedRow>,
    /// Requests (or rows within one) sent again after a transient failure.
    pub retries: u64,
    /// `MutateRows` requests sent, retries included.
    pub requests: u64,
    /// Bytes of the requests sent, retries included.
    pub bytes: u64,
    /// The most bytes that were in flight at once (never above the budget).
    pub max_in_flight_bytes: usize,
    /// The most requests that were in flight at once (never above the
    /// budget).
    pub max_in_flight_requests: usize,
}

/// Writes any number of rows with bounded memory: rows are pushed one at a
/// time ([`push`](Self::push), [`push_row`](Self::push_row)), gathered into
/// `MutateRows` requests and sent concurrently, at most
/// [`max_in_flight_bytes`](Self::max_in_flight_bytes) bytes and
/// [`max_in_flight_requests`](Self::max_in_flight_requests) requests at
/// once; a push waits while the budget is spent. [`flush`](Self::flush)
/// waits for every request and returns the [`BulkReport`].
///
/// Each request's cells carry one timestamp, from a clock that strictly
/// increases within the writer (the wall clock in milliseconds, Bigtable's
/// granularity, or one more than the last request's when that is not
/// behind it), so a request sent again writes the same cells, and of two
/// pushes of one key the later is the newer version whatever order their
/// requests are applied in, retries included: a key pushed while it is
/// already in the request being gathered sends that request first.
/// Requests that fail for a transient reason, and rows the server answers
/// with `UNAVAILABLE`, `DEADLINE_EXCEEDED` or `ABORTED`, are retried with
/// the client's [`RetryPolicy`](crate::RetryPolicy) policy (jittered backoff). Memory:
/// the budget, plus one request being gathered (and its keys), plus a copy
/// of each request in flight for its retries.
///
/// [`push`](Self::push) is cancel-safe: a push cancelled while it waits
/// for the budget (`timeout`, `select!`) leaves every row pushed before it
/// in the writer, and its own row not pushed. A writer dropped without
/// [`flush`](Self::flush) lets the requests already sent finish on the
/// runtime (detached) and logs a `tracing` warning with the rows it had
/// gathered and never sent.
///
/// ```no_run
/// # async fn demo(client: rowkey_bigtable::Client) -> Result<(), rowkey_bigtable::Error> {
/// let mut writer = client
///     .bulk_writer("events")
///     .max_in_flight_bytes(8 << 20)
///     .max_in_flight_requests(8);
/// for i in 0..1_000_000u32 {
///     writer.push(i.to_be_bytes().to_vec(), vec![("d".into(), b"v".to_vec(), b"x".to_vec())]).await?;
/// }
/// let report = writer.flush().await?;
/// assert!(report.rejected.is_empty());
/// # Ok(()) }
/// ```
pub struct BulkWriter {
    client: Client,
    table: String,
    max_bytes: usize,
    max_requests: usize,
    /// The writer's clock: each request's timestamp, in milliseconds.
    clock: rowkey_core::clock::Clock,
    /// The timestamp of the request being gathered, in microseconds.
    batch_stamp: i64,
    /// The hashes of the keys of the request being gathered: a key seen
    /// again sends the request first (a hash shared by two keys only
    /// sends it early), with no copy of the key.
    batch_keys: std::collections::HashSet<u64>,
    hasher: std::collections::hash_map::RandomState,
    batch: Vec<Entry>,
    positions: Vec<usize>,
    batch_bytes: usize,
    batch_mutations: usize,
    /// Rows pushed so far.
    pushed: usize,
    /// The budget, once the first request is sent.
    gate: Option<(Arc<Semaphore>, Arc<Semaphore>)>,
    tasks: JoinSet<Done>,
    report: BulkReport,
    meter: Arc<Meter>,
}

/// What is in flight now, and the most that was.
#[derive(Default)]
struct Meter {
    bytes: AtomicUsize,
    requests: AtomicUsize,
    max_bytes: AtomicUsize,
    max_requests: AtomicUsize,
}

impl Meter {
    fn start(&self, bytes: usize) {
        let b = self.bytes.fetch_add(bytes, Ordering::SeqCst) + bytes;
        let r = self.requests.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_bytes.fetch_max(b, Ordering::SeqCst);
        self.max_requests.fetch_max(r, Ordering::SeqCst);
    }

    fn end(&self, bytes: usize) {
        self.bytes.fetch_sub(bytes, Ordering::SeqCst);
        self.requests.fetch_sub(1, Ordering::SeqCst);
    }
}

/// One request's result, over its retries.
#[derive(Default)]
struct Done {
    written: u64,
    rejected: Vec<RejectedRow>,
    retries: u64,
    requests: u64,
    bytes: u64,
}

impl Client {
    /// A [`BulkWriter`] to `table`, with a budget of 64 MiB and 16 requests
    /// in flight.
    pub fn bulk_writer(&self, table: &str) -> BulkWriter {
        BulkWriter {
            client: self.clone(),
            table: table.to_string(),
            max_bytes: 64 << 20,
            max_requests: 16,
            clock: rowkey_core::clock::Clock::default(),
            batch_stamp: 0,
            batch_keys: std::collections::HashSet::new(),
            hasher: std::collections::hash_map::RandomState::new(),
            batch: Vec::new(),
            positions: Vec::new(),
            batch_bytes: 0,
            batch_mutations: 0,
            pushed: 0,
            gate: None,
            tasks: JoinSet::new(),
            report: BulkReport::default(),
            meter: Arc::new(Meter::default()),
        }
    }
}

impl BulkWriter {
    /// The most request bytes in flight at once (default 64 MiB). A row
    /// larger than this is sent alone, as the budget's only request.
    ///
    /// # Panics
    /// If `n` is 0, or once rows are pushed.
    pub fn max_in_flight_bytes(mut self, n: usize) -> Self {
        assert!(
            n > 0 && self.pushed == 0,
            "set the budget, above 0, before pushing"
        );
        self.max_bytes = n;
        self
    }

    /// The most requests in flight at once (default 16).
    ///
    /// # Panics
    /// If `n` is 0, or once rows are pushed.
    pub fn max_in_flight_requests(mut self, n: usize) -> Self {
        assert!(
            n > 0 && self.pushed == 0,
            "set the budget, above 0, before pushing"
        );
        self.max_requests = n;
        self
    }

    /// The bytes at which a request is sent: the budget shared by the
    /// requests it allows, at most [`MAX_REQUEST_BYTES`].
    fn request_bytes(&self) -> usize {
        (self.max_bytes / self.max_requests).clamp(1, MAX_REQUEST_BYTES)
    }

    /// Adds a row `(key bytes, cells)`; sends a request when one is full,
    /// waiting while the budget is spent. A row Bigtable would refuse (an
    /// empty key, one over 4 KiB, no cells) is not sent and is reported
    /// in the [`BulkReport`].
    ///
    /// Cancel-safe: see the [type's documentation](Self).
    pub async fn push(&mut self, key: Vec<u8>, cells: Vec<Cell>) -> Result<(), Error> {
        if let Some(r) = unsendable(self.pushed, &key, cells.len()) {
            self.pushed += 1;
            self.report.rejected.push(r);
            return Ok(());
        }
        // Sized with a timestamp of today's length (the batch's, or a
        // stand-in before the first): the stamp is set once it is known.
        let sizing = if self.batch_stamp == 0 {
            1_700_000_000_000_000
        } else {
            self.batch_stamp
        };
        self.add(entry(key, cells, sizing), Some(sizing)).await;
        Ok(())
    }

    /// Adds a row whose cells carry their own timestamps, as a read
    /// returns them ([`RowCell`]s; labels are not written): they are
    /// written with those timestamps rather than the writer's clock, so a
    /// row copied from another table keeps its cells' times, and a newer
    /// cell of the same column written meanwhile stays the newer. A row
    /// Bigtable would refuse is reported as [`push`](Self::push) reports
    /// it, and so is a cell with a negative timestamp (it would ask for
    /// the server's time).
    ///
    /// Cancel-safe: see the [type's documentation](Self).
    pub async fn push_versioned(&mut self, key: Vec<u8>, cells: Vec<RowCell>) -> Result<(), Error> {
        let index = self.pushed;
        let refused = unsendable(index, &key, cells.len()).or_else(|| {
            let bad = cells.iter().find(|c| c.timestamp_micros < 0)?;
            Some(RejectedRow {
                index,
                key: to_string_binary(&key),
                code: INVALID_ARGUMENT,
                message: format!("a cell's timestamp is {} µs, below 0", bad.timestamp_micros),
            })
        });
        if let Some(r) = refused {
            self.pushed += 1;
            self.report.rejected.push(r);
            return Ok(());
        }
        let mutations = cells
            .into_iter()
            .map(|c| Mutation {
                mutation: Some(mutation::Mutation::SetCell(mutation::SetCell {
                    family_name: c.family_name,
                    column_qualifier: c.qualifier,
                    timestamp_micros: c.timestamp_micros,
                    value: c.value,
                })),
            })
            .collect();
        let e = Entry {
            row_key: key,
            mutations,
            ..Default::default()
        };
        self.add(e, None).await;
        Ok(())
    }

    /// Adds an entry to the request being gathered (sending that one
    /// first when it is full or holds the key), stamped with the request's
    /// timestamp when `sizing` (the stamp it was sized with) is given.
    async fn add(&mut self, mut e: Entry, sizing: Option<i64>) {
        let index = self.pushed;
        let (bytes, mutations) = (entry_bytes(&e), e.mutations.len());
        let key_hash = std::hash::BuildHasher::hash_one(&self.hasher, &e.row_key);
        if !self.batch.is_empty()
            && (self.batch_bytes + bytes > self.request_bytes()
                || self.batch_mutations + mutations > MAX_MUTATIONS
                || self.batch_keys.contains(&key_hash))
        {
            // The only await: cancelled here, nothing has changed.
            self.send().await;
        }
        if self.batch.is_empty() {
            self.batch_stamp = self.next_stamp();
        }
        if sizing.is_some_and(|s| s != self.batch_stamp) {
            stamp(&mut e, self.batch_stamp);
        }
        self.pushed += 1;
        self.batch_keys.insert(key_hash);
        self.batch.push(e);
        self.positions.push(index);
        self.batch_bytes += bytes;
        self.batch_mutations += mutations;
    }

    /// The next request's timestamp in microseconds: the writer's clock
    /// (the wall clock in milliseconds, or one more than the last
    /// request's).
    fn next_stamp(&mut self) -> i64 {
        self.clock.next().min(i64::MAX / 1000) * 1000
    }

    /// [`push`](Self::push) with a typed key; a key that cannot be encoded
    /// is [`Error::Encode`] and nothing is pushed.
    pub async fn push_row<K: RowKey>(&mut self, key: &K, cells: Vec<Cell>) -> Result<(), Error> {
        let key = key.encode_to_vec().map_err(Error::Encode)?;
        self.push(key, cells).await
    }

    /// Sends the request gathered so far, once the budget has room. The
    /// request is taken from the writer only once the budget is granted,
    /// so a cancelled send leaves it there.
    async fn send(&mut self) {
        let (bytes_gate, requests_gate) = self
            .gate
            .get_or_insert_with(|| {
                (
                    Arc::new(Semaphore::new(self.max_bytes.min(Semaphore::MAX_PERMITS))),
                    Arc::new(Semaphore::new(self.max_requests)),
                )
            })
            .clone();
        // Requests that ended are counted as they end, not at the flush.
        while let Some(done) = self.tasks.try_join_next() {
            self.count(done);
        }
        let bytes = self.batch_bytes;
        let permits = u32::try_from(bytes.clamp(1, self.max_bytes)).unwrap_or(u32::MAX);
        let held = (
            bytes_gate
                .acquire_many_owned(permits)
                .await
                .expect("the budget is never closed"),
            requests_gate
                .acquire_owned()
                .await
                .expect("the budget is never closed"),
        );
        // Granted: nothing is awaited from here until the request is
        // spawned.
        let entries = std::mem::take(&mut self.batch);
        let positions = std::mem::take(&mut self.positions);
        self.batch_bytes = 0;
        self.batch_mutations = 0;
        self.batch_keys.clear();
        let counted = permits as usize;
        self.meter.start(counted);
        let (client, table, meter) = (
            self.client.clone(),
            self.table.clone(),
            Arc::clone(&self.meter),
        );
        self.tasks.spawn(async move {
            let done = write_batch(&client, &table, entries, positions, bytes).await;
            meter.end(counted);
            drop(held);
            done
        });
    }

    fn count(&mut self, done: Result<Done, tokio::task::JoinError>) {
        let done = match done {
            Ok(d) => d,
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        };
        let r = &mut self.report;
        r.rows_written += done.written;
        r.rejected.extend(done.rejected);
        r.retries += done.retries;
        r.requests += done.requests;
        r.bytes += done.bytes;
    }

    /// Sends what is gathered, waits for every request, and returns what
    /// the writer did since it was made.
    pub async fn flush(&mut self) -> Result<BulkReport, Error> {
        if !self.batch.is_empty() {
            self.send().await;
        }
        while let Some(done) = self.tasks.join_next().await {
            self.count(done);
        }
        let mut report = self.report.clone();
        report.rejected.sort_by_key(|r| r.index);
        report.max_in_flight_bytes = self.meter.max_bytes.load(Ordering::SeqCst);
        report.max_in_flight_requests = self.meter.max_requests.load(Ordering::SeqCst);
        Ok(report)
    }
}

impl Drop for BulkWriter {
    /// Requests already sent finish on the runtime (detached, not
    /// aborted); the rows gathered and never sent are logged.
    fn drop(&mut self) {
        self.tasks.detach_all();
        if !self.batch.is_empty() {
            tracing::warn!(
                table = %self.table,
                rows = self.batch.len(),
                first = %to_string_binary(&self.batch[0].row_key),
                "a BulkWriter dropped without flush: rows gathered and never sent"
            );
        }
    }
}

/// Sets every cell of `e` to the timestamp `micros`.
fn stamp(e: &mut Entry, micros: i64) {
    for m in &mut e.mutations {
        if let Some(mutation::Mutation::SetCell(c)) = &mut m.mutation {
            c.timestamp_micros = micros;
        }
    }
}

/// One request, its transient failures retried: a request that failed as
/// a whole is sent again with the rows it did not confirm, and rows the
/// server answered with a retryable code are sent again.
async fn write_batch(
    client: &Client,
    table: &str,
    mut entries: Vec<Entry>,
    mut positions: Vec<usize>,
    mut bytes: usize,
) -> Done {
    // As many tries as the policy allows (each request has its own
    // deadline).
    let mut tries = Tries::within(client.options().retry, Duration::MAX);
    let mut done = Done::default();
    loop {
        done.requests += 1;
        done.bytes += bytes as u64;
        let outcome = send_batch(client, table, entries.clone(), &positions).await;
        done.written += outcome.written as u64;
        let transient_failure = match &outcome.failed {
            Some(Error::Bigtable(e)) => transient(e.get_ref()),
            Some(Error::Timeout { .. }) => true,
            _ => false,
        };
        // The rows to send again: those with a retryable status, and those
        // the failed request left unconfirmed.
        let mut again: Vec<usize> = outcome.retryable.clone();
        if transient_failure {
            let unconfirmed: std::collections::HashSet<usize> =
                outcome.unconfirmed.iter().copied().collect();
            again.extend((0..positions.len()).filter(|i| unconfirmed.contains(&positions[*i])));
        }
        let pause = match again.is_empty() {
            true => None,
            false => tries.retry().ok(),
        };
        let retrying = pause.is_some();
        for r in outcome.rejected {
            // A retryable refusal is reported only if it is not retried.
            let retried = retrying && again.iter().any(|&i| positions[i] == r.index);
            if !retried {
                done.rejected.push(r);
            }
        }
        let Some(pause) = pause else {
            if let Some(e) = outcome.failed {
                let message = chain(&e);
                let unconfirmed: std::collections::HashSet<usize> =
                    outcome.unconfirmed.iter().copied().collect();
                for (e, &p) in entries.iter().zip(&positions) {
                    if unconfirmed.contains(&p) {
                        done.rejected.push(RejectedRow {
                            index: p,
                            key: to_string_binary(&e.row_key),
                            code: 2,
                            message: message.clone(),
                        });
                    }
                }
            }
            return done;
        };
        done.retries += 1;
        client.counters().retry();
        again.sort_unstable();
        entries = again.iter().map(|&i| entries[i].clone()).collect();
        positions = again.iter().map(|&i| positions[i]).collect();
        bytes = entries.iter().map(entry_bytes).sum();
        tokio::time::sleep(pause).await;
    }
}
