//! Moving a Bigtable table to another key layout (feature `migrate`): the
//! copy, its verification and the table a service writes through
//! meanwhile; see [`rowkey_core::migrate`] for the [`Migration`] and the
//! rules every engine follows.
//!
//! [`migrate()`] reads the old table part by part (its layout's salt
//! buckets; the whole table when unsalted), several parts at once
//! ([`MigrateOptions::workers`]), the newest cell of each column with its
//! timestamp, and writes each row under its new key into the new table
//! through a [`BulkWriter`](crate::BulkWriter) with the cells' own
//! timestamps ([`BulkWriter::push_versioned`](crate::BulkWriter::push_versioned)).
//! [`create_target`] makes the new table, with the old one's column
//! families and their garbage-collection rules, pre-split at the new
//! layout's split points, and the checkpoint table
//! `{to_table}.rowkey-migrate` ([`checkpoint_table`]).
//!
//! A page of rows ([`MigrateOptions::page_rows`]) is written, then
//! checked against the old table as it is now, then checkpointed (the
//! last old key copied): a migration killed at any point resumes after
//! its last page, and the rows of a page written again are the same
//! cells (same timestamps), so nothing is doubled.
//!
//! **Why the check.** Bigtable keeps no delete markers: a delete removes
//! the cells there are, and a cell written after it with an older
//! timestamp is simply there. So a row a service deletes through
//! [`MigratingTable`] after the copy read it, but before the copy wrote
//! it, would come back in the new table. After each page is written, the
//! copy reads the page's old rows again and deletes from the new table,
//! by their exact timestamps (`DeleteFromColumn` over that one
//! timestamp), the cells it wrote that the old row no longer has as its
//! newest: a row deleted, a column deleted or written again. A delete
//! after that check reaches the new table itself (the service's write
//! goes to both), so no interleaving leaves a deleted row, and a newer
//! write of a row (a later timestamp) stays the one Bigtable returns,
//! whatever the copy writes. The check costs a second read of each page.
//!
//! Times come from two clocks: Bigtable stamped the old table's cells
//! (or its writers did), and [`MigratingTable`] stamps its writes with
//! the client's clock. A writer whose clock runs behind could write a
//! cell older than the one it replaces; keep the clocks in step.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Instant;

use bigtable_rs::bigtable::RowCell;
use bigtable_rs::google::bigtable::v2::row_range::{EndKey, StartKey};
use bigtable_rs::google::bigtable::v2::{
    mutate_rows_request, mutation, row_filter, Mutation, ReadRowsRequest, RowFilter, RowRange,
    RowSet, TimestampRange,
};
use futures_util::stream::{self, StreamExt, TryStreamExt};
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin;
use rowkey_core::clock::Clock;
use rowkey_core::migrate::{
    self, Mark, MigrateError, MigrateReport, Migration, Phase, Progress, Route, Verifier,
    VerifyReport,
};
use rowkey_core::Scan;

use crate::stream::{open_filtered, read_all, Row};
use crate::write::{entry, send_batch, Cell};
use crate::{AdminClient, Client, Error};

/// How [`migrate()`] copies: the parts read at once, the pages, the
/// bytes in flight.
#[derive(Clone, Debug)]
pub struct MigrateOptions {
    workers: usize,
    page_rows: usize,
    memory: usize,
    progress: Option<Arc<Progress>>,
}

impl Default for MigrateOptions {
    /// 4 workers, pages of 5,000 rows, 64 MiB in flight.
    fn default() -> MigrateOptions {
        MigrateOptions {
            workers: 4,
            page_rows: 5_000,
            memory: 64 << 20,
            progress: None,
        }
    }
}

impl MigrateOptions {
    /// Parts copied at once (4 by default; at least 1).
    #[must_use]
    pub fn workers(mut self, n: usize) -> MigrateOptions {
        self.workers = n.max(1);
        self
    }

    /// The rows of a page: written, checked and checkpointed together
    /// (5,000 by default; at least 1).
    #[must_use]
    pub fn page_rows(mut self, n: usize) -> MigrateOptions {
        self.page_rows = n.max(1);
        self
    }

    /// Counts the copy as it goes into `progress`, for a watcher (a
    /// progress bar) to read.
    #[must_use]
    pub fn progress(mut self, progress: Arc<Progress>) -> MigrateOptions {
        self.progress = Some(progress);
        self
    }

    /// The bytes of writes in flight, all workers together (64 MiB by
    /// default; each worker's [`BulkWriter`](crate::BulkWriter) gets its
    /// share, at least 1 MiB).
    #[must_use]
    pub fn memory(mut self, bytes: usize) -> MigrateOptions {
        self.memory = bytes;
        self
    }
}

/// The table of a migration's checkpoint: `{to_table}.rowkey-migrate`.
pub fn checkpoint_table(to_table: &str) -> String {
    format!("{to_table}.rowkey-migrate")
}

/// The checkpoint's one family.
const MARKS: &str = "m";

/// A store error of `op` on `table`.
fn store<'a>(op: &'static str, table: &'a str) -> impl Fn(Error) -> MigrateError + 'a {
    move |e| MigrateError::store(op, table, e)
}

/// Creates `to_table`, when it is missing, with `from_table`'s column
/// families and their garbage-collection rules, pre-split at the new
/// layout's split points (one tablet per salt bucket), and the
/// checkpoint table. [`migrate()`] calls it; call it before a
/// [`MigratingTable`] writes.
pub async fn create_target(
    admin: &mut AdminClient,
    client: &Client,
    from_table: &str,
    to_table: &str,
    migration: &Migration,
) -> Result<(), MigrateError> {
    let Some(old) = get_table(admin, client, from_table).await? else {
        return Err(MigrateError::store(
            "open",
            from_table,
            "the table does not exist",
        ));
    };
    let (instance, _) = client
        .table_name(to_table)
        .rsplit_once("/tables/")
        .map(|(i, t)| (i.to_string(), t.to_string()))
        .unwrap_or_default();
    if get_table(admin, client, to_table).await?.is_none() {
        let request = admin::CreateTableRequest {
            parent: instance.clone(),
            table_id: to_table.to_string(),
            table: Some(admin::Table {
                column_families: old.column_families,
                ..Default::default()
            }),
            initial_splits: migration
                .to()
                .split_points()
                .into_iter()
                .map(|key| admin::create_table_request::Split { key })
                .collect(),
        };
        create(admin, client, to_table, request).await?;
    }
    let marks = checkpoint_table(to_table);
    if get_table(admin, client, &marks).await?.is_none() {
        let request = crate::create_table_request(&instance, &marks, &[MARKS], &[]);
        create(admin, client, &marks, request).await?;
    }
    Ok(())
}

/// The table's schema, `None` when it does not exist.
async fn get_table(
    admin: &mut AdminClient,
    client: &Client,
    table: &str,
) -> Result<Option<admin::Table>, MigrateError> {
    let request = admin::GetTableRequest {
        name: client.table_name(table),
        view: admin::table::View::SchemaView as i32,
    };
    match admin.get_table(request).await {
        Ok(t) => Ok(Some(t.into_inner())),
        Err(s) if s.code() == tonic::Code::NotFound => Ok(None),
        Err(s) => Err(MigrateError::store("open", table, Error::Admin(s.into()))),
    }
}

/// Creates a table; one created meanwhile by another caller is no error.
async fn create(
    admin: &mut AdminClient,
    client: &Client,
    table: &str,
    request: admin::CreateTableRequest,
) -> Result<(), MigrateError> {
    match admin.create_table(request).await {
        Ok(_) => Ok(()),
        Err(s) if s.code() == tonic::Code::AlreadyExists => Ok(()),
        Err(s) => match get_table(admin, client, table).await {
            Ok(Some(_)) => Ok(()),
            _ => Err(MigrateError::store("create", table, Error::Admin(s.into()))),
        },
    }
}

/// Copies the rows of `from_table` into `to_table`, each re-keyed by
/// `migration`, creating the new table and the checkpoint when missing
/// ([`create_target`]); see the [module documentation](self).
pub async fn migrate(
    client: &Client,
    admin: &mut AdminClient,
    from_table: &str,
    to_table: &str,
    migration: &Migration,
    options: &MigrateOptions,
) -> Result<MigrateReport, MigrateError> {
    migration.check()?;
    let started = Instant::now();
    create_target(admin, client, from_table, to_table, migration).await?;
    let parts = migrate::parts(migration);
    let marks = Marks {
        client,
        table: checkpoint_table(to_table),
    };
    let id = migrate::checkpoint_id(migration, parts.len());
    match marks.get("migration").await? {
        Some(found) if found == id => {}
        Some(_) => {
            return Err(MigrateError::Checkpoint {
                table: marks.table.clone(),
                problem: "it belongs to a migration between other layouts; drop it, or copy into another table".into(),
            })
        }
        None => marks.set("migration", id).await?,
    }
    let counters = options.progress.clone().unwrap_or_default();
    counters.set_parts(parts.len() as u64);
    let copy = Copy {
        client,
        from: from_table,
        to: to_table,
        migration,
        options,
        marks: &marks,
        counters: &counters,
    };
    stream::iter(parts.iter().enumerate())
        .map(|(i, part)| copy.part(i, part))
        .buffer_unordered(options.workers)
        .try_collect::<Vec<()>>()
        .await?;
    let mut report = counters.report();
    report.elapsed = started.elapsed();
    Ok(report)
}

/// The checkpoint table: a row per mark, its value in `m:v`.
struct Marks<'a> {
    client: &'a Client,
    table: String,
}

impl Marks<'_> {
    async fn get(&self, name: &str) -> Result<Option<Vec<u8>>, MigrateError> {
        let rows = read_rows(self.client, &self.table, vec![name.as_bytes().to_vec()]).await?;
        Ok(rows
            .into_iter()
            .next()
            .and_then(|(_, cells)| cells.into_iter().next().map(|c| c.value)))
    }

    async fn set(&self, name: &str, value: Vec<u8>) -> Result<(), MigrateError> {
        let cell: Cell = (MARKS.into(), b"v".to_vec(), value);
        // Stamped by the server: the newest mark is the one read.
        let e = entry(name.as_bytes().to_vec(), vec![cell], -1);
        mutate(self.client, &self.table, vec![e]).await
    }

    fn corrupt(&self, name: &str) -> MigrateError {
        MigrateError::Checkpoint {
            table: self.table.clone(),
            problem: format!("its `{name}` row is not one a migration writes"),
        }
    }
}

/// The filter every read of the copy and the verification applies: the
/// newest cell of each column.
fn newest() -> RowFilter {
    RowFilter {
        filter: Some(row_filter::Filter::CellsPerColumnLimitFilter(1)),
    }
}

/// The rows of `keys` (their newest cells), within the client's deadlines
/// and retries.
async fn read_rows(
    client: &Client,
    table: &str,
    keys: Vec<Vec<u8>>,
) -> Result<Vec<Row>, MigrateError> {
    read_set(
        client,
        table,
        RowSet {
            row_keys: keys,
            row_ranges: Vec::new(),
        },
    )
    .await
}

/// The rows of `rows` (their newest cells), within the client's deadlines
/// and retries.
async fn read_set(client: &Client, table: &str, rows: RowSet) -> Result<Vec<Row>, MigrateError> {
    let request = ReadRowsRequest {
        table_name: client.table_name(table),
        rows: Some(rows),
        filter: Some(newest()),
        ..Default::default()
    };
    read_all(client, request)
        .await
        .map_err(store("read", table))
}

/// Sends `entries` in one `MutateRows` request: an error when any is not
/// applied.
async fn mutate(
    client: &Client,
    table: &str,
    entries: Vec<mutate_rows_request::Entry>,
) -> Result<(), MigrateError> {
    let positions: Vec<usize> = (0..entries.len()).collect();
    let outcome = send_batch(client, table, entries, &positions).await;
    if let Some(e) = outcome.failed {
        return Err(MigrateError::store("write", table, e));
    }
    if !outcome.rejected.is_empty() {
        let e = Error::Rejected {
            rejected: outcome.rejected,
        };
        return Err(MigrateError::store("write", table, e));
    }
    Ok(())
}

/// A stream of the rows of `[start, end)` of `table` (`end` empty: to the
/// table's end), newest cells only, each range retried from its last row.
fn scan(client: &Client, table: &str, start: &[u8], end: &[u8]) -> crate::RowStream {
    open_filtered(
        client,
        table,
        &Scan::from_bounds(start, end),
        (None, None),
        client.options().retry,
        false,
        Some(newest()),
    )
}

/// A cell as the copy remembers it: family, qualifier, timestamp.
type CellId = (String, Vec<u8>, i64);

/// A row of a page: its old key, its new key and the cells written.
type PageRow = (Vec<u8>, Vec<u8>, Vec<CellId>);

/// The key and cells' bytes of a row.
fn row_bytes(key: &[u8], cells: &[RowCell]) -> u64 {
    let cells: usize = cells
        .iter()
        .map(|c| c.family_name.len() + c.qualifier.len() + c.value.len() + 8)
        .sum();
    (key.len() + cells) as u64
}

/// What every worker shares.
struct Copy<'a> {
    client: &'a Client,
    from: &'a str,
    to: &'a str,
    migration: &'a Migration,
    options: &'a MigrateOptions,
    marks: &'a Marks<'a>,
    counters: &'a Progress,
}

impl Copy<'_> {
    /// Copies part `i` from where its checkpoint says, page by page.
    async fn part(
        &self,
        i: usize,
        (start, end): &(Vec<u8>, Option<Vec<u8>>),
    ) -> Result<(), MigrateError> {
        let name = format!("part/{i}");
        let from = match self.marks.get(&name).await?.as_deref().map(Mark::parse) {
            Some(Some(Mark::Done)) => {
                self.counters.part_skipped();
                return Ok(());
            }
            Some(Some(Mark::After(last))) => {
                self.counters.part_resumed();
                Mark::next_key(last)
            }
            None => start.clone(),
            Some(None) => return Err(self.marks.corrupt(&name)),
        };
        let mut rows = scan(self.client, self.from, &from, end.as_deref().unwrap_or(b""));
        let share = (self.options.memory / self.options.workers).max(1 << 20);
        let mut page: Vec<PageRow> = Vec::with_capacity(self.options.page_rows);
        let mut writer = self.writer(share);
        while let Some(row) = rows.next().await {
            let (key, cells) = row.map_err(store("read", self.from))?;
            let bytes = row_bytes(&key, &cells);
            let new_key = self.migration.rekey(&key)?;
            self.counters
                .row_read(bytes, bytes + new_key.len() as u64 - key.len() as u64);
            let ids = cells
                .iter()
                .map(|c| {
                    (
                        c.family_name.clone(),
                        c.qualifier.clone(),
                        c.timestamp_micros,
                    )
                })
                .collect();
            writer
                .push_versioned(new_key.clone(), cells)
                .await
                .map_err(store("write", self.to))?;
            page.push((key, new_key, ids));
            if page.len() == self.options.page_rows {
                self.finish_page(&mut writer, &mut page, &name, false)
                    .await?;
                writer = self.writer(share);
            }
        }
        self.finish_page(&mut writer, &mut page, &name, true).await
    }

    fn writer(&self, bytes: usize) -> crate::BulkWriter {
        self.client
            .bulk_writer(self.to)
            .max_in_flight_bytes(bytes)
            .max_in_flight_requests(4)
    }

    /// Waits for a page's writes, takes back the cells whose old row has
    /// changed since it was read (see the [module documentation](self)),
    /// and checkpoints the page: its last old key, or (`done`) the part.
    async fn finish_page(
        &self,
        writer: &mut crate::BulkWriter,
        page: &mut Vec<PageRow>,
        name: &str,
        done: bool,
    ) -> Result<(), MigrateError> {
        let report = writer.flush().await.map_err(store("write", self.to))?;
        if !report.rejected.is_empty() {
            let e = Error::Rejected {
                rejected: report.rejected,
            };
            return Err(MigrateError::store("write", self.to, e));
        }
        self.counters.rows_written(report.rows_written);
        if let (Some(first), Some(last)) = (page.first(), page.last()) {
            self.take_back(&first.0, &last.0, page).await?;
        }
        let mark = match (done, page.last()) {
            (false, Some((last, _, _))) => Mark::After(last).to_bytes(),
            _ => Mark::Done.to_bytes(),
        };
        page.clear();
        self.marks.set(name, mark).await?;
        if done {
            self.counters.part_done();
        }
        Ok(())
    }

    /// Deletes from the new table each cell of `page` its old row no
    /// longer has as its newest (the old rows `first..=last` read again).
    async fn take_back(
        &self,
        first: &[u8],
        last: &[u8],
        page: &[PageRow],
    ) -> Result<(), MigrateError> {
        let range = RowRange {
            start_key: Some(StartKey::StartKeyClosed(first.to_vec())),
            end_key: Some(EndKey::EndKeyClosed(last.to_vec())),
        };
        let now = read_set(
            self.client,
            self.from,
            RowSet {
                row_keys: Vec::new(),
                row_ranges: vec![range],
            },
        )
        .await?;
        let now: HashMap<Vec<u8>, BTreeSet<CellId>> = now
            .into_iter()
            .map(|(key, cells)| {
                let ids = cells
                    .into_iter()
                    .map(|c| (c.family_name, c.qualifier, c.timestamp_micros))
                    .collect();
                (key, ids)
            })
            .collect();
        let mut entries = Vec::new();
        for (old_key, new_key, written) in page {
            let current = now.get(old_key);
            let gone: Vec<Mutation> = written
                .iter()
                .filter(|id| !current.is_some_and(|c| c.contains(*id)))
                .map(|(family, qualifier, ts)| exact_delete(family, qualifier, *ts))
                .collect();
            if !gone.is_empty() {
                entries.push(mutate_rows_request::Entry {
                    row_key: new_key.clone(),
                    mutations: gone,
                    ..Default::default()
                });
            }
        }
        for chunk in entries.chunks(1_000) {
            mutate(self.client, self.to, chunk.to_vec()).await?;
        }
        Ok(())
    }
}

/// A delete of the one cell of `family:qualifier` at `ts` (microseconds;
/// Bigtable's time ranges are in whole milliseconds, as its timestamps).
fn exact_delete(family: &str, qualifier: &[u8], ts: i64) -> Mutation {
    Mutation {
        mutation: Some(mutation::Mutation::DeleteFromColumn(
            mutation::DeleteFromColumn {
                family_name: family.to_string(),
                column_qualifier: qualifier.to_vec(),
                time_range: Some(TimestampRange {
                    start_timestamp_micros: ts,
                    end_timestamp_micros: ts.saturating_add(1000),
                }),
            },
        )),
    }
}

/// A row's newest cells as the digest reads them: sorted, each family,
/// qualifier, timestamp and value length-prefixed.
fn cells_bytes(mut cells: Vec<RowCell>) -> Vec<u8> {
    cells.sort_by(|a, b| {
        (&a.family_name, &a.qualifier, a.timestamp_micros).cmp(&(
            &b.family_name,
            &b.qualifier,
            b.timestamp_micros,
        ))
    });
    let mut out = Vec::new();
    for c in cells {
        for bytes in [c.family_name.as_bytes(), &c.qualifier] {
            out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
            out.extend_from_slice(bytes);
        }
        out.extend_from_slice(&c.timestamp_micros.to_be_bytes());
        out.extend_from_slice(&(c.value.len() as u32).to_be_bytes());
        out.extend_from_slice(&c.value);
    }
    out
}

/// Every row of `table`, read over `splits`' ranges at once (in no
/// particular order), to `f`.
async fn each_row(
    client: &Client,
    table: &str,
    splits: Vec<Vec<u8>>,
    f: &mut dyn FnMut(Vec<u8>, Vec<RowCell>),
) -> Result<(), MigrateError> {
    let streams: Vec<_> = ranges(splits)
        .iter()
        .map(|(start, end)| scan(client, table, start, end))
        .collect();
    let mut rows = stream::select_all(streams);
    while let Some(row) = rows.next().await {
        let (key, cells) = row.map_err(store("read", table))?;
        f(key, cells);
    }
    Ok(())
}

/// Compares `from_table`, re-keyed by `migration`, with `to_table` as
/// [`rowkey_core::migrate::verify`] does (the newest cell of each column
/// with its timestamp): both read part by part at once, and in the parts
/// whose digests differ, the new rows looked up by key, 1,000 per
/// request. Run it when writes have stopped or are going to both tables
/// ([`Phase::DualWrite`] or [`Phase::Cutover`]): the reads are not one
/// snapshot.
pub async fn verify(
    client: &Client,
    from_table: &str,
    to_table: &str,
    migration: &Migration,
) -> Result<VerifyReport, MigrateError> {
    let old_splits = migration.from().split_points();
    let new_splits = migration.to().split_points();
    let mut v = Verifier::new(migration);
    each_row(client, from_table, old_splits.clone(), &mut |k, cells| {
        v.old_row(&k, &cells_bytes(cells));
    })
    .await?;
    each_row(client, to_table, new_splits.clone(), &mut |k, cells| {
        v.new_row(&k, &cells_bytes(cells));
    })
    .await?;
    if !v.differs() {
        return Ok(v.finish());
    }
    // The old rows of differing parts, and their new keys, 1,000 at a
    // time.
    let mut wanted: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    let mut rows = stream::select_all(
        ranges(old_splits)
            .iter()
            .map(|(s, e)| scan(client, from_table, s, e))
            .collect::<Vec<_>>(),
    );
    loop {
        let row = rows.next().await;
        let end = row.is_none();
        if let Some(row) = row {
            let (key, cells) = row.map_err(store("read", from_table))?;
            if let Some(new_key) = v.wanted(&key) {
                wanted.push((new_key, cells_bytes(cells)));
            }
        }
        if wanted.len() >= 1_000 || (end && !wanted.is_empty()) {
            let keys = wanted.iter().map(|(k, _)| k.clone()).collect();
            let found: HashMap<Vec<u8>, Vec<u8>> = read_rows(client, to_table, keys)
                .await?
                .into_iter()
                .map(|(k, cells)| (k, cells_bytes(cells)))
                .collect();
            for (new_key, old_value) in wanted.drain(..) {
                let got = found.get(&new_key).map(Vec::as_slice);
                v.compare(&new_key, &old_value, got);
            }
        }
        if end {
            break;
        }
    }
    each_row(client, to_table, new_splits, &mut |k, _| v.extra_row(&k)).await?;
    Ok(v.finish())
}

/// The ranges between `splits`, the first from the start, the last to the
/// end (empty).
fn ranges(splits: Vec<Vec<u8>>) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut starts = vec![Vec::new()];
    starts.extend(splits);
    let ends: Vec<Vec<u8>> = starts.iter().skip(1).cloned().chain([Vec::new()]).collect();
    starts.into_iter().zip(ends).collect()
}

/// A table being moved to a new layout, as a service writes it meanwhile:
/// rows are given by their old keys, and the [`Phase`] says which tables
/// a write, a delete and a read go to. A write to both tables stamps both
/// with one timestamp from the table's [`Clock`] (milliseconds, strictly
/// increasing), so it is newer than any cell the copy brings from before
/// it; a delete removes the row from both. The two tables are written one
/// after the other (Bigtable has no write across tables): a write that
/// fails may have reached the old table alone, and is to be retried as
/// any failed write is.
///
/// The new table must exist ([`create_target`]). A cheap handle to share
/// (`&self` methods; the phase is an atomic).
pub struct MigratingTable<'a> {
    client: Client,
    route: Route<'a>,
    clock: Clock,
}

impl<'a> MigratingTable<'a> {
    /// `from_table` moving to `to_table` by `migration`, starting in
    /// [`Phase::DualWrite`].
    pub fn new(
        client: &Client,
        from_table: &str,
        to_table: &str,
        migration: &'a Migration,
    ) -> MigratingTable<'a> {
        MigratingTable {
            client: client.clone(),
            route: Route::new(from_table, to_table, migration),
            clock: Clock::default(),
        }
    }

    /// Where writes and reads go now.
    pub fn phase(&self) -> Phase {
        self.route.phase()
    }

    /// Moves to `phase`, for the calls that start after this one.
    pub fn set_phase(&self, phase: Phase) {
        self.route.set_phase(phase);
    }

    /// Writes `cells` to the row of `old_key`: under its old key and its
    /// new one, or ([`Phase::Done`]) its new one only, one timestamp for
    /// both.
    pub async fn put(&self, old_key: &[u8], cells: Vec<Cell>) -> Result<(), MigrateError> {
        let micros = self.clock.next().saturating_mul(1000);
        for (table, key) in self.route.writes(old_key)? {
            mutate(&self.client, table, vec![entry(key, cells.clone(), micros)]).await?;
        }
        Ok(())
    }

    /// Deletes the row of `old_key` from the tables `put` writes.
    pub async fn delete(&self, old_key: &[u8]) -> Result<(), MigrateError> {
        for (table, key) in self.route.writes(old_key)? {
            let e = mutate_rows_request::Entry {
                row_key: key,
                mutations: vec![Mutation {
                    mutation: Some(mutation::Mutation::DeleteFromRow(
                        mutation::DeleteFromRow {},
                    )),
                }],
                ..Default::default()
            };
            mutate(&self.client, table, vec![e]).await?;
        }
        Ok(())
    }

    /// The newest cells of `old_key`'s row: from the old table in
    /// [`Phase::DualWrite`], from the new one (under its new key) after.
    pub async fn get(&self, old_key: &[u8]) -> Result<Option<Vec<Cell>>, MigrateError> {
        let (table, key) = self.route.read(old_key)?;
        let rows = read_rows(&self.client, table, vec![key]).await?;
        Ok(rows.into_iter().next().map(|(_, cells)| {
            cells
                .into_iter()
                .map(|c| (c.family_name, c.qualifier, c.value))
                .collect()
        }))
    }
}
