//! What the native client's messages say, in rowkey's types and errors:
//! region specifiers, puts, a result's cells, a scan response's rows, and
//! HBase's exceptions as [`Error`]s.

use std::collections::BTreeMap;
use std::time::Duration;

use rowkey_hbase_protocol::{pb, wire};

use super::conn::CallError;
use crate::{Cell, Error, Row};

/// The specifier of the region named `name`.
pub(super) fn specifier(name: &[u8]) -> pb::RegionSpecifier {
    pb::RegionSpecifier {
        r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
        value: name.to_vec(),
    }
}

/// How a write's rows are applied: put or deleted, stamped by the
/// client (`timestamp`) or the region server, with a durability (HBase's
/// `Durability` code; `None`: the table's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Write {
    /// Delete each row whole (every version up to the timestamp).
    pub delete: bool,
    /// The cells' timestamp (or the newest a delete removes), ms.
    pub timestamp: Option<i64>,
    /// `MutationProto.Durability`.
    pub durability: Option<i32>,
}

/// The mutation of `row` (its cells put, or the row deleted) as `write`
/// says; `stamps`, when not empty, each cell's own timestamp.
pub(super) fn mutation((key, cells): &Row, stamps: &[i64], write: Write) -> pb::MutationProto {
    let mut families: BTreeMap<&str, Vec<pb::mutation_proto::column_value::QualifierValue>> =
        BTreeMap::new();
    for (i, (family, qualifier, value)) in cells.iter().enumerate() {
        families.entry(family).or_default().push(
            pb::mutation_proto::column_value::QualifierValue {
                qualifier: Some(qualifier.clone()),
                value: Some(value.clone()),
                timestamp: stamps.get(i).and_then(|&t| u64::try_from(t).ok()),
                ..Default::default()
            },
        );
    }
    let kind = match write.delete {
        true => pb::mutation_proto::MutationType::Delete,
        false => pb::mutation_proto::MutationType::Put,
    };
    pb::MutationProto {
        row: Some(key.clone()),
        mutate_type: Some(kind as i32),
        column_value: families
            .into_iter()
            .map(
                |(family, qualifier_value)| pb::mutation_proto::ColumnValue {
                    family: family.as_bytes().to_vec(),
                    qualifier_value,
                },
            )
            .collect(),
        timestamp: write.timestamp.and_then(|t| u64::try_from(t).ok()),
        durability: write.durability,
        ..Default::default()
    }
}

/// A result's cells, `(row, cell)`: in the message, or in the cellblock
/// (`associated_cell_count` of them).
pub(super) fn result_cells(
    result: &pb::Result,
    block: &[u8],
    table: &str,
    op: &'static str,
) -> Result<Vec<(Vec<u8>, Cell)>, Error> {
    Ok(stamped_result_cells(result, block, table, op)?
        .into_iter()
        .map(|(row, cell, _)| (row, cell))
        .collect())
}

/// [`result_cells`] with each cell's timestamp.
pub(super) fn stamped_result_cells(
    result: &pb::Result,
    block: &[u8],
    table: &str,
    op: &'static str,
) -> Result<Vec<(Vec<u8>, Cell, i64)>, Error> {
    let mut out: Vec<(Vec<u8>, Cell, i64)> = result
        .cell
        .iter()
        .map(|c| {
            (
                c.row.clone().unwrap_or_default(),
                (
                    String::from_utf8_lossy(c.family.as_deref().unwrap_or_default()).into_owned(),
                    c.qualifier.clone().unwrap_or_default(),
                    c.value.clone().unwrap_or_default(),
                ),
                c.timestamp
                    .map_or(0, |t| i64::try_from(t).unwrap_or(i64::MAX)),
            )
        })
        .collect();
    let count = usize::try_from(result.associated_cell_count.unwrap_or(0)).unwrap_or(0);
    if count > 0 {
        let kvs = wire::cells(block, count).map_err(|e| Error::Connection {
            op,
            table: table.into(),
            server: String::new(),
            cause: e.to_string(),
        })?;
        out.extend(kvs.into_iter().map(|kv| {
            let ts = kv.timestamp;
            let (row, cell) = kv_cell(kv);
            (row, cell, ts)
        }));
    }
    Ok(out)
}

/// The cells of several results of one answer (a `Multi` call's), in
/// order: each result's own cells, then its share of the cellblock, which
/// holds the results' cells one result after another.
pub(super) fn results_cells(
    results: &[&pb::Result],
    block: &[u8],
    table: &str,
    op: &'static str,
) -> Result<Vec<Vec<Cell>>, Error> {
    let counts: Vec<usize> = results
        .iter()
        .map(|r| usize::try_from(r.associated_cell_count.unwrap_or(0)).unwrap_or(usize::MAX))
        .collect();
    let total = counts
        .iter()
        .try_fold(0usize, |t, &n| t.checked_add(n))
        .unwrap_or(usize::MAX);
    // `wire::cells` stops at the block's end: a count beyond it is an
    // error, never an allocation of that size.
    let mut kvs = wire::cells(block, total)
        .map_err(|e| Error::Connection {
            op,
            table: table.into(),
            server: String::new(),
            cause: e.to_string(),
        })?
        .into_iter();
    Ok(results
        .iter()
        .zip(counts)
        .map(|(result, count)| {
            let own = result.cell.iter().map(|c| {
                (
                    String::from_utf8_lossy(c.family.as_deref().unwrap_or_default()).into_owned(),
                    c.qualifier.clone().unwrap_or_default(),
                    c.value.clone().unwrap_or_default(),
                )
            });
            own.chain(kvs.by_ref().take(count).map(|kv| kv_cell(kv).1))
                .collect()
        })
        .collect())
}

fn kv_cell(kv: wire::KeyValue) -> (Vec<u8>, Cell) {
    (
        kv.row,
        (
            String::from_utf8_lossy(&kv.family).into_owned(),
            kv.qualifier,
            kv.value,
        ),
    )
}

/// A scan response's rows: the cellblock's cells split by
/// `cells_per_result`, or the results in the message.
pub(super) fn scan_rows(
    response: &pb::ScanResponse,
    block: &[u8],
    table: &str,
) -> Result<Vec<Row>, Error> {
    let bad = |cause: String| Error::Connection {
        op: "Scan",
        table: table.into(),
        server: String::new(),
        cause,
    };
    if !response.results.is_empty() {
        let mut rows = Vec::with_capacity(response.results.len());
        for r in &response.results {
            let cells = result_cells(r, &[], table, "Scan")?;
            if let Some((row, _)) = cells.first() {
                let row = row.clone();
                rows.push((row, cells.into_iter().map(|(_, c)| c).collect()));
            }
        }
        return Ok(rows);
    }
    let total: u64 = response
        .cells_per_result
        .iter()
        .map(|&n| u64::from(n))
        .sum();
    let total = usize::try_from(total).map_err(|_| bad("too many cells".into()))?;
    let mut kvs = wire::cells(block, total)
        .map_err(|e| bad(e.to_string()))?
        .into_iter();
    let mut rows = Vec::with_capacity(response.cells_per_result.len());
    for &n in &response.cells_per_result {
        let cells: Vec<wire::KeyValue> = kvs.by_ref().take(n as usize).collect();
        let Some(first) = cells.first() else { continue };
        let row = first.row.clone();
        if cells.iter().any(|c| c.row != row) {
            return Err(bad("a result whose cells are of several rows".into()));
        }
        rows.push((row, cells.into_iter().map(|kv| kv_cell(kv).1).collect()));
    }
    Ok(rows)
}

/// The exceptions that say a region is not where the client looked.
pub(super) fn moved_class(class: &str) -> bool {
    [
        "org.apache.hadoop.hbase.NotServingRegionException",
        "org.apache.hadoop.hbase.exceptions.RegionMovedException",
        "org.apache.hadoop.hbase.exceptions.RegionOpeningException",
        "org.apache.hadoop.hbase.regionserver.RegionServerStoppedException",
        "org.apache.hadoop.hbase.ipc.ServerNotRunningYetException",
    ]
    .contains(&class)
}

/// The exceptions of a server that is overloaded or throttling, after
/// which HBase's client sends the call again after a longer pause: its
/// call queue full, a region over its memstore limit, a quota exceeded,
/// a call dropped while queued.
pub(super) fn busy_class(class: &str) -> bool {
    [
        "org.apache.hadoop.hbase.CallQueueTooBigException",
        "org.apache.hadoop.hbase.CallDroppedException",
        "org.apache.hadoop.hbase.RegionTooBusyException",
        "org.apache.hadoop.hbase.ipc.ServerTooBusyException",
        "org.apache.hadoop.hbase.quotas.RpcThrottlingException",
        "org.apache.hadoop.hbase.quotas.ThrottlingException",
    ]
    .contains(&class)
}

/// The server a `RegionMovedException` names (`Region moved to:
/// hostname=H port=P startCode=S.`), `host:port`.
pub(super) fn moved_to(class: &str, trace: Option<&str>) -> Option<String> {
    if class != "org.apache.hadoop.hbase.exceptions.RegionMovedException" {
        return None;
    }
    let text = trace?.lines().next()?;
    let field = |name: &str| {
        let at = text.find(name)? + name.len();
        let value: String = text[at..]
            .chars()
            .take_while(|c| !c.is_whitespace())
            .collect();
        (!value.is_empty()).then_some(value)
    };
    let host = field("hostname=")?;
    let port: u16 = field("port=")?.parse().ok()?;
    Some(format!("{host}:{port}"))
}

/// `Class: the first line of the trace`, HBase's refusal in one line.
pub(super) fn first_line(class: &str, trace: Option<&[u8]>) -> String {
    let trace = trace.map(String::from_utf8_lossy).unwrap_or_default();
    let line = trace.lines().next().unwrap_or_default();
    if line.starts_with(class) {
        line.to_owned()
    } else if line.is_empty() {
        class.to_owned()
    } else {
        format!("{class}: {line}")
    }
}

pub(super) fn remote_error(
    op: &'static str,
    table: &str,
    key: Option<String>,
    class: &str,
    trace: Option<&[u8]>,
) -> Error {
    if class == "org.apache.hadoop.hbase.TableNotFoundException" {
        return Error::TableNotFound {
            op,
            table: table.into(),
        };
    }
    let message = first_line(class, trace);
    if let Some(denied) = Error::access_denied(op, table, &message) {
        return denied;
    }
    Error::Server {
        op,
        table: table.into(),
        key,
        message,
        can_retry: false,
    }
}

pub(super) fn call_error(
    e: CallError,
    op: &'static str,
    table: &str,
    server: &str,
    timeout: Duration,
) -> Error {
    match e {
        CallError::Timeout => Error::Timeout {
            op,
            table: table.into(),
            deadline: timeout,
        },
        CallError::Broken(cause) => Error::Connection {
            op,
            table: table.into(),
            server: server.into(),
            cause,
        },
        CallError::Refused(cause) => Error::Security {
            op,
            table: table.into(),
            server: server.into(),
            cause,
        },
        CallError::Remote(e) => remote_error(
            op,
            table,
            None,
            e.exception_class_name.as_deref().unwrap_or_default(),
            e.stack_trace.as_deref().map(str::as_bytes),
        ),
    }
}
