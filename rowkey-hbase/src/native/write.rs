//! The native client's writes: rows put or deleted in `Multi` calls per
//! region server (at most 2 MiB each, 4 in flight per server), the rows
//! of a region that moved or a server that was overloaded sent again,
//! the rows HBase refuses named; and deletes of single columns.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use super::client::{NativeClient, Refusal, OVERLOADED_PAUSE};
use super::convert::{
    busy_class, first_line, moved_class, moved_to, mutation, remote_error, specifier, Write,
};
use super::regions;
use crate::{Error, Row};
use rowkey_hbase_protocol::pb;

/// The most bytes of rows one `Multi` call carries (HBase's Java client
/// flushes its 2 MiB write buffer so).
const MULTI_BYTES: usize = 2 << 20;
/// `Multi` calls in flight per region server for one write or read.
const MULTI_IN_FLIGHT: usize = 4;
/// A row to write and its cells' own timestamps (one per cell; empty:
/// the write's).
type Stamped = (Row, Vec<i64>);
/// Rows with their places in the caller's batch.
type Numbered = Vec<(usize, Stamped)>;

/// One server's rows by region cut into `Multi` calls of at most
/// [`MULTI_BYTES`] (a row larger than that alone), regions in order.
fn multi_batches(by_region: BTreeMap<Vec<u8>, Numbered>) -> Vec<Vec<(Vec<u8>, Numbered)>> {
    let mut batches = Vec::new();
    let mut batch: Vec<(Vec<u8>, Numbered)> = Vec::new();
    let mut bytes = 0;
    for (name, rows) in by_region {
        for row in rows {
            let (_, ((key, cells), _)) = &row;
            let size = key.len()
                + cells
                    .iter()
                    .map(|(f, q, v)| f.len() + q.len() + v.len() + 16)
                    .sum::<usize>();
            if bytes > 0 && bytes + size > MULTI_BYTES {
                batches.push(std::mem::take(&mut batch));
                bytes = 0;
            }
            bytes += size;
            match batch.last_mut() {
                Some((last, rows)) if *last == name => rows.push(row),
                _ => batch.push((name.clone(), vec![row])),
            }
        }
    }
    if !batch.is_empty() {
        batches.push(batch);
    }
    batches
}

/// The `Multi` request writing `regions`' rows as `write` says.
fn multi_request(regions: &[(Vec<u8>, Numbered)], write: Write) -> pb::MultiRequest {
    pb::MultiRequest {
        region_action: regions
            .iter()
            .map(|(name, rows)| pb::RegionAction {
                region: specifier(name),
                atomic: None,
                action: rows
                    .iter()
                    .enumerate()
                    .map(|(j, (_, (row, stamps)))| pb::Action {
                        index: Some(j as u32),
                        mutation: Some(mutation(row, stamps, write)),
                        ..Default::default()
                    })
                    .collect(),
                condition: None,
            })
            .collect(),
        ..Default::default()
    }
}

/// A `Multi` call's batch and what it got: the answer and its cellblock,
/// or the refusal.
pub(super) type MultiAnswer<B> = (B, Result<(pb::MultiResponse, Vec<u8>), Refusal>);

impl NativeClient {
    /// Each server's batches sent as `Multi` calls, [`MULTI_IN_FLIGHT`]
    /// at once per server (its handler threads serve them side by side),
    /// all servers at once: each batch with its answer, in no set order.
    /// The writes and the batched gets send their calls so.
    pub(super) async fn multi_calls<B>(
        &self,
        table: &str,
        per_server: Vec<(String, Vec<B>)>,
        request: impl Fn(&B) -> pb::MultiRequest + Copy,
    ) -> Vec<MultiAnswer<B>> {
        use futures_util::StreamExt as _;
        let per_server = per_server.into_iter().map(|(server, batches)| async move {
            let server = &server;
            futures_util::stream::iter(batches)
                .map(|batch| async move {
                    let answer = self
                        .call(server, "Multi", &request(&batch), &[], table)
                        .await;
                    (batch, answer)
                })
                .buffer_unordered(MULTI_IN_FLIGHT)
                .collect::<Vec<_>>()
                .await
        });
        futures_util::future::join_all(per_server)
            .await
            .into_iter()
            .flatten()
            .collect()
    }

    /// Writes `rows` of `table` (each row's cells, stamped by the region
    /// servers): one `Multi` call per region server, the rows of a region
    /// that moved sent again to where it is now, the rows HBase refuses
    /// [`Error::Rejected`] by their places in `rows`.
    pub async fn put(&self, table: &str, rows: Vec<Row>) -> Result<(), Error> {
        self.write(table, rows, Write::default()).await
    }

    /// [`put`](Self::put) with every cell stamped `timestamp` (ms).
    pub async fn put_stamped(
        &self,
        table: &str,
        rows: Vec<Row>,
        timestamp: i64,
    ) -> Result<(), Error> {
        let write = Write {
            timestamp: Some(timestamp),
            ..Write::default()
        };
        self.write(table, rows, write).await
    }

    /// Deletes the rows `keys` of `table` whole (every version up to
    /// `timestamp`, or up to the region server's time when `None`), as
    /// [`put`](Self::put) sends its rows.
    pub async fn delete(
        &self,
        table: &str,
        keys: Vec<Vec<u8>>,
        timestamp: Option<i64>,
    ) -> Result<(), Error> {
        let rows = keys.into_iter().map(|k| (k, Vec::new())).collect();
        let write = Write {
            delete: true,
            timestamp,
            durability: None,
        };
        self.write(table, rows, write).await
    }

    /// Deletes `columns` of the row `row` of `table` (each whole, or one
    /// version of it): one `Mutate` call to the row's region server.
    pub async fn delete_columns(
        &self,
        table: &str,
        row: &[u8],
        columns: &[crate::ColumnDelete],
    ) -> Result<(), Error> {
        use pb::mutation_proto::{column_value::QualifierValue, ColumnValue, DeleteType};
        let mut families: BTreeMap<&str, Vec<QualifierValue>> = BTreeMap::new();
        for c in columns {
            let kind = match c.version {
                Some(_) => DeleteType::DeleteOneVersion,
                None => DeleteType::DeleteMultipleVersions,
            };
            families.entry(&c.family).or_default().push(QualifierValue {
                qualifier: Some(c.qualifier.clone()),
                timestamp: c.version.and_then(|t| u64::try_from(t).ok()),
                delete_type: Some(kind as i32),
                ..Default::default()
            });
        }
        let mutation = pb::MutationProto {
            row: Some(row.to_vec()),
            mutate_type: Some(pb::mutation_proto::MutationType::Delete as i32),
            column_value: families
                .into_iter()
                .map(|(family, qualifier_value)| ColumnValue {
                    family: family.as_bytes().to_vec(),
                    qualifier_value,
                })
                .collect(),
            ..Default::default()
        };
        self.on_region(table, row, "Mutate", |region| {
            let request = pb::MutateRequest {
                region: specifier(&region.name),
                mutation: mutation.clone(),
                condition: None,
                nonce_group: None,
            };
            async move {
                let _: (pb::MutateResponse, _) = self
                    .call(&region.server, "Mutate", &request, &[], table)
                    .await?;
                Ok(())
            }
        })
        .await
    }

    /// Rows put or deleted as `write` says, one `Multi` call per region
    /// server, the rows of a region that moved sent again to where it is
    /// now; rows HBase refuses are [`Error::Rejected`], by their places in
    /// `rows`.
    pub(crate) async fn write(
        &self,
        table: &str,
        rows: Vec<Row>,
        write: Write,
    ) -> Result<(), Error> {
        let rows = rows.into_iter().map(|row| (row, Vec::new())).collect();
        self.within("Multi", table, self.write_tries(table, rows, write))
            .await
    }

    /// Puts `rows` of `table`, each cell with its own timestamp (a copy of
    /// cells as [`scan_versions`](crate::Client::scan_versions) read
    /// them), as [`put`](Self::put) sends its rows.
    pub async fn put_versioned(
        &self,
        table: &str,
        rows: Vec<crate::VersionedRow>,
    ) -> Result<(), Error> {
        let rows = rows
            .into_iter()
            .map(|(key, cells)| {
                let stamps = cells.iter().map(|c| c.timestamp).collect();
                let cells = cells
                    .into_iter()
                    .map(|c| (c.family, c.qualifier, c.value))
                    .collect();
                ((key, cells), stamps)
            })
            .collect();
        self.within(
            "Multi",
            table,
            self.write_tries(table, rows, Write::default()),
        )
        .await
    }

    /// [`write`](Self::write) with no budget of its own.
    async fn write_tries(
        &self,
        table: &str,
        rows: Vec<Stamped>,
        write: Write,
    ) -> Result<(), Error> {
        // A region's or a row's refusal in a `Multi` answer, as an error.
        let multi_error =
            |e: &pb::NameBytesPair| remote_error("Multi", table, None, &e.name, e.value.as_deref());
        let total = rows.len();
        let mut left: Vec<(usize, Stamped)> = rows.into_iter().enumerate().collect();
        let mut rejected = Vec::new();
        // Read hbase:meta again only when a region moved without HBase
        // saying where.
        let mut refresh = false;
        let mut tries = self.tries();
        while !left.is_empty() {
            let first = tries.failed() == 0;
            // The last error of a server that was overloaded this round.
            let mut busy: Option<Error> = None;
            let regions = self.regions(table, refresh).await?;
            refresh = false;
            // Rows by server, then by region.
            let mut by_server: BTreeMap<String, BTreeMap<Vec<u8>, Numbered>> = BTreeMap::new();
            for (i, row) in left.drain(..) {
                let region =
                    regions::find(&regions, &row.0 .0).ok_or_else(|| Error::Connection {
                        op: "Multi",
                        table: table.into(),
                        server: String::new(),
                        cause: "hbase:meta lists no region for a row".into(),
                    })?;
                by_server
                    .entry(region.server.clone())
                    .or_default()
                    .entry(region.name.clone())
                    .or_default()
                    .push((i, row));
            }
            // Each server's rows in Multi calls of at most MULTI_BYTES.
            let per_server = by_server
                .into_iter()
                .map(|(server, by_region)| (server, multi_batches(by_region)))
                .collect();
            let answers = self
                .multi_calls(table, per_server, |regions| multi_request(regions, write))
                .await;
            for (regions, answer) in answers {
                let response = match answer {
                    Ok((response, _)) => response,
                    Err(Refusal::Moved(_)) => {
                        refresh = true;
                        left.extend(regions.into_iter().flat_map(|(_, rows)| rows));
                        continue;
                    }
                    Err(Refusal::Busy(e)) => {
                        busy = Some(e);
                        left.extend(regions.into_iter().flat_map(|(_, rows)| rows));
                        continue;
                    }
                    Err(Refusal::Fatal(e)) => return Err(e),
                };
                for ((name, rows), result) in regions.into_iter().zip(
                    response
                        .region_action_result
                        .into_iter()
                        .map(Some)
                        .chain(std::iter::repeat(None)),
                ) {
                    let Some(result) = result else {
                        refresh = true;
                        left.extend(rows);
                        continue;
                    };
                    if let Some(e) = &result.exception {
                        if moved_class(&e.name) {
                            let trace = e.value.as_deref().map(String::from_utf8_lossy);
                            let to = moved_to(&e.name, trace.as_deref());
                            // Taken once, as in `on_region`.
                            let relocated = first
                                && to.is_some_and(|server| self.relocate(table, &name, server));
                            if !relocated {
                                refresh = true;
                            }
                            left.extend(rows);
                            continue;
                        }
                        if busy_class(&e.name) {
                            busy = Some(multi_error(e));
                            left.extend(rows);
                            continue;
                        }
                        return Err(multi_error(e));
                    }
                    let mut failed: HashMap<u32, &pb::NameBytesPair> = HashMap::new();
                    for r in &result.result_or_exception {
                        if let (Some(i), Some(e)) = (r.index, &r.exception) {
                            failed.insert(i, e);
                        }
                    }
                    for (j, (i, row)) in rows.into_iter().enumerate() {
                        match failed.get(&(j as u32)) {
                            None => {}
                            Some(e) if moved_class(&e.name) => {
                                refresh = true;
                                left.push((i, row));
                            }
                            // A region over its memstore limit, a quota:
                            // the row again, after a pause.
                            Some(e) if busy_class(&e.name) => {
                                busy = Some(multi_error(e));
                                left.push((i, row));
                            }
                            Some(e) => rejected.push(crate::RejectedRow {
                                index: i,
                                key: rowkey_core::hbase::to_string_binary(&row.0 .0),
                                message: first_line(&e.name, e.value.as_deref()),
                            }),
                        }
                    }
                }
            }
            if !left.is_empty() {
                let pause = if busy.is_some() {
                    OVERLOADED_PAUSE
                } else {
                    Duration::ZERO
                };
                if let Err(spent) = tries.again_after(pause).await {
                    if let Some(e) = busy {
                        return Err(e);
                    }
                    let what =
                        format!("{} rows not written: their regions kept moving", left.len());
                    return Err(spent.error("Multi", table, &what));
                }
                self.count_retry();
            }
        }
        if rejected.is_empty() {
            Ok(())
        } else {
            rejected.sort_by_key(|r| r.index);
            Err(Error::rejected("Multi", table, rejected, total))
        }
    }
}
