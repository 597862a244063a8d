//! `rowkey bulkload commit`: the files of a load (every worker's part)
//! loaded into a table through its region servers, HBase's
//! `BulkLoadHFile` calls with no Java step.

use std::io::Write;
use std::path::{Path, PathBuf};

use rowkey_core::error_chain as chain;
use rowkey_hbase::bulk::BulkLoadReport;

use super::Stop;

/// `rowkey bulkload commit`'s arguments.
#[derive(clap::Args)]
pub(crate) struct CommitArgs {
    /// The load's directory, local or `hdfs://NAMENODE:PORT/PATH`: its
    /// `part-*` directories (one per sorter of `--workers`/`--worker`), or,
    /// with none, the directory itself (`DIR/FAMILY/FILE`).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The table to load into.
    #[arg(long)]
    table: String,
    /// HBase: `hbase://MASTER:PORT[,...]` or `zk://QUORUM[/PARENT]` (the
    /// native client: a Thrift gateway has no bulk-load call).
    #[arg(long, value_name = "ADDRESS")]
    hbase: String,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

/// The directories to load: `part-*` under `out`, sorted, or `out`.
fn parts(out: &Path) -> Result<Vec<PathBuf>, Stop> {
    let entries = rowkey_hbase::bulk::dirs::list(out)
        .map_err(|e| Stop::Usage(format!("--out {}: {e}", out.display())))?;
    let mut parts = Vec::new();
    for (name, dir) in entries {
        if name.starts_with("part-") && dir {
            parts.push(out.join(name));
        }
    }
    parts.sort();
    if parts.is_empty() {
        parts.push(out.to_path_buf());
    }
    Ok(parts)
}

/// Loads every part; a run after a failure loads what is left (HBase
/// moved what it loaded out of the directories).
pub(crate) fn commit(args: &CommitArgs, out: &mut dyn Write) -> Result<(), Stop> {
    let parts = parts(&args.out)?;
    let client = rowkey_hbase::Client::for_address(&args.hbase)
        .and_then(|b| b.build())
        .map_err(|e| Stop::Usage(format!("--hbase {}: {e}", args.hbase)))?;
    let mut total = BulkLoadReport::default();
    let mut each = Vec::with_capacity(parts.len());
    for part in &parts {
        let report = client.bulk_load(part, &args.table).map_err(|e| match e {
            rowkey_hbase::Error::TableNotFound { .. } => {
                Stop::Usage(format!("--table {}: {e}", args.table))
            }
            rowkey_hbase::Error::Config(_) => Stop::Usage(format!("--hbase {}: {e}", args.hbase)),
            e => Stop::Failed(format!("{}: {e}", part.display())),
        })?;
        total.files += report.files;
        total.split += report.split;
        total.regions += report.regions;
        each.push(report);
    }
    let written = if args.json {
        let parts: Vec<serde_json::Value> = parts
            .iter()
            .zip(&each)
            .map(|(p, r)| {
                serde_json::json!({
                    "dir": p.display().to_string(),
                    "files": r.files,
                    "split": r.split,
                    "calls": r.regions,
                })
            })
            .collect();
        writeln!(
            out,
            "{}",
            serde_json::json!({
                "table": args.table,
                "files": total.files,
                "split": total.split,
                "calls": total.regions,
                "parts": parts,
            })
        )
    } else {
        let mut w = writeln!(
            out,
            "{}: {} files loaded ({} split at a region boundary first) in {} calls, from {} director{}",
            args.table,
            total.files,
            total.split,
            total.regions,
            parts.len(),
            if parts.len() == 1 { "y" } else { "ies" }
        );
        if total.files == 0 && w.is_ok() {
            w = writeln!(out, "nothing to load: every file is loaded already");
        }
        w
    };
    written.map_err(|e| Stop::Failed(format!("cannot write: {}", chain(&e))))
}
