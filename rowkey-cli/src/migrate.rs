//! `rowkey migrate plan|run|verify`: a table moved from one layout to
//! another (`rowkey_core::migrate`), on redb, fjall, HBase and Bigtable.

use std::io::Write;
use std::path::PathBuf;

use clap::Subcommand;
use rowkey_core::error_chain as chain;
use rowkey_core::hbase::shell_key;
use std::sync::Arc;
use std::time::Duration;

use rowkey_core::migrate::{MigrateError, MigrateReport, Migration, Progress};

use crate::spec;

/// The step of `rowkey migrate`.
#[derive(Subcommand)]
pub enum Step {
    /// Both layouts side by side, field by field; the key size change; the
    /// new table's split points; with a table, the rows and bytes to move
    /// (each row re-keyed, so a row the migration refuses is found now).
    Plan(Args),
    /// Copies the old table into the new one, re-keyed, with a checkpoint
    /// per page: run again after a failure, it goes on where it stopped.
    Run(Args),
    /// Compares the new table with the old one re-keyed: rows missing,
    /// extra and differing, with examples. Exit status 1 when any.
    Verify(Args),
}

/// What every step takes.
#[derive(clap::Args)]
pub struct Args {
    /// The old layout: its text or `@FILE`.
    #[arg(long, value_name = "SPEC")]
    from: String,
    /// The new layout: its text or `@FILE`.
    #[arg(long, value_name = "SPEC")]
    to: String,
    /// `field=value`: the value of a field only the new layout has, in
    /// every row.
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    set: Vec<String>,
    /// A redb database file holding the tables.
    #[arg(long, value_name = "FILE", conflicts_with = "fjall")]
    redb: Option<PathBuf>,
    /// A fjall database folder holding the keyspaces (opened as a
    /// single-writer transactional database).
    #[arg(long, value_name = "DIR", conflicts_with = "hbase")]
    fjall: Option<PathBuf>,
    /// HBase: `hbase://MASTER:PORT[,...]` or `zk://QUORUM[/PARENT]` (the
    /// native client), or a Thrift gateway's `HOST:PORT` (puts only).
    #[arg(long, value_name = "ADDRESS", conflicts_with_all = ["redb", "bigtable"])]
    hbase: Option<String>,
    /// Bigtable at a plaintext endpoint, `http://HOST:PORT` (the
    /// emulator's form), with `--project` and `--instance`.
    #[arg(long, value_name = "ENDPOINT", conflicts_with_all = ["redb", "fjall"], requires_all = ["project", "instance"])]
    bigtable: Option<String>,
    /// With `--bigtable`, the project.
    #[arg(long, requires = "bigtable")]
    project: Option<String>,
    /// With `--bigtable`, the instance.
    #[arg(long, requires = "bigtable")]
    instance: Option<String>,
    /// With `--hbase`, `run` writes HFiles under this directory (local or
    /// `hdfs://`) and bulk-loads them (the native client); without it,
    /// puts.
    #[arg(long, value_name = "DIR", requires = "hbase")]
    bulk_dir: Option<PathBuf>,
    /// With `--hbase` or `--bigtable`, the parts (regions, salt buckets)
    /// copied at once.
    #[arg(long, value_name = "N", default_value_t = 4)]
    workers: usize,
    /// The old table (or keyspace).
    #[arg(long, value_name = "TABLE")]
    table: Option<String>,
    /// The new table (or keyspace).
    #[arg(long, value_name = "TABLE")]
    to_table: Option<String>,
}

/// Runs `copy` while a progress line on standard error (when it is a
/// terminal) shows the rows copied, the rate and the parts done.
fn watch<F>(progress: &Progress, copy: F) -> Result<MigrateReport, MigrateError>
where
    F: FnOnce() -> Result<MigrateReport, MigrateError> + Send,
{
    let bar = indicatif::ProgressBar::new_spinner().with_style(
        indicatif::ProgressStyle::with_template("{spinner} {elapsed} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
    );
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let started = std::time::Instant::now();
            while !done.load(std::sync::atomic::Ordering::Acquire) {
                let now = progress.report();
                let secs = started.elapsed().as_secs_f64().max(1e-3);
                bar.set_message(format!(
                    "{} rows read, {} written ({:.0} rows/s); parts {}/{} done",
                    now.rows_read,
                    now.rows_written,
                    now.rows_read as f64 / secs,
                    progress.parts_done(),
                    now.parts
                ));
                bar.tick();
                std::thread::sleep(Duration::from_millis(200));
            }
            bar.finish_and_clear();
        });
        let result = copy();
        done.store(true, std::sync::atomic::Ordering::Release);
        result
    })
}

/// Where the tables are.
enum Store {
    Redb(redb::Database),
    Fjall(fjall::SingleWriterTxDatabase),
    HBase(rowkey_hbase::Client),
    Bigtable(Box<Bigtable>),
}

/// A Bigtable client and the runtime its calls run on.
struct Bigtable {
    runtime: tokio::runtime::Runtime,
    client: rowkey_bigtable::Client,
    endpoint: String,
}

/// Why `rowkey migrate` stops early.
pub enum Stop {
    /// A bad argument: what is wrong, naming it (exit status 2).
    Usage(String),
    /// The copy or the verification failed: what and where (status 1).
    Failed(String),
    /// The output could not be written.
    Io(std::io::Error),
}

impl From<std::io::Error> for Stop {
    fn from(e: std::io::Error) -> Stop {
        Stop::Io(e)
    }
}

fn usage(msg: String) -> Stop {
    Stop::Usage(msg)
}

/// Runs one step: `Ok(false)` when `verify` found differences.
pub fn run(step: Step, out: &mut dyn Write) -> Result<bool, Stop> {
    let (step, args) = match step {
        Step::Plan(a) => ("plan", a),
        Step::Run(a) => ("run", a),
        Step::Verify(a) => ("verify", a),
    };
    let from = spec::layout("--from", &args.from).map_err(Stop::Usage)?;
    let to = spec::layout("--to", &args.to).map_err(Stop::Usage)?;
    let mut migration = Migration::new(from.layout(), to.layout())
        .map_err(|e| usage(rowkey_core::error_chain(&e)))?;
    for arg in &args.set {
        let (field, text) = spec::pair(arg).map_err(Stop::Usage)?;
        let value = to
            .value(field, text)
            .map_err(|e| usage(format!("--set {arg}: {}", chain(&e))))?;
        migration = migration.set(field, value);
    }
    migration
        .check()
        .map_err(|e| usage(rowkey_core::error_chain(&e)))?;
    let store = open(&args)?;
    if step == "plan" {
        plan(&migration, store.as_ref(), &args, out)?;
        return Ok(true);
    }
    let (Some(store), Some(old), Some(new)) = (store, &args.table, &args.to_table) else {
        return Err(usage(format!(
            "migrate {step}: needs --redb FILE, --fjall DIR, --hbase ADDRESS or --bigtable ENDPOINT, --table and --to-table"
        )));
    };
    let failed = |e: MigrateError| Stop::Failed(rowkey_core::error_chain(&e));
    if step == "run" {
        let report = match &store {
            Store::Redb(db) => rowkey_core::redb::migrate(db, old, new, &migration),
            Store::Fjall(db) => rowkey_core::fjall::migrate(db, old, new, &migration),
            Store::HBase(client) => {
                use rowkey_hbase::migrate::{migrate, MigrateOptions};
                let options = match &args.bulk_dir {
                    Some(dir) => MigrateOptions::bulk_load(dir),
                    None => MigrateOptions::puts(),
                };
                let progress = Arc::new(Progress::default());
                let options = options.workers(args.workers).progress(progress.clone());
                watch(&progress, || {
                    migrate(client, old, new, &migration, &options)
                })
            }
            Store::Bigtable(bt) => {
                use rowkey_bigtable::migrate::{migrate, MigrateOptions};
                let progress = Arc::new(Progress::default());
                let options = MigrateOptions::default()
                    .workers(args.workers)
                    .progress(progress.clone());
                watch(&progress, || {
                    bt.runtime.block_on(async {
                        let mut admin = bt.admin().await?;
                        migrate(&bt.client, &mut admin, old, new, &migration, &options).await
                    })
                })
            }
        }
        .map_err(failed)?;
        writeln!(out, "{report}")?;
        writeln!(
            out,
            "next: rowkey migrate verify with the same arguments, then move reads to `{new}`"
        )?;
        return Ok(true);
    }
    let report = match &store {
        Store::Redb(db) => rowkey_core::redb::verify(db, old, new, &migration),
        Store::Fjall(db) => rowkey_core::fjall::verify(db, old, new, &migration),
        Store::HBase(client) => rowkey_hbase::migrate::verify(client, old, new, &migration),
        Store::Bigtable(bt) => bt.runtime.block_on(rowkey_bigtable::migrate::verify(
            &bt.client, old, new, &migration,
        )),
    }
    .map_err(failed)?;
    writeln!(out, "{report}")?;
    Ok(report.is_clean())
}

fn open(args: &Args) -> Result<Option<Store>, Stop> {
    if let Some(path) = &args.redb {
        let db = redb::Database::open(path)
            .map_err(|e| usage(format!("--redb {}: {e}", path.display())))?;
        return Ok(Some(Store::Redb(db)));
    }
    if let Some(path) = &args.fjall {
        if !path.is_dir() {
            return Err(usage(format!("--fjall {}: no such folder", path.display())));
        }
        let db = fjall::SingleWriterTxDatabase::builder(path)
            .open()
            .map_err(|e| usage(format!("--fjall {}: {e}", path.display())))?;
        return Ok(Some(Store::Fjall(db)));
    }
    if let Some(address) = &args.hbase {
        let client = rowkey_hbase::Client::for_address(address)
            .and_then(|b| b.build())
            .map_err(|e| usage(format!("--hbase {address}: {}", chain(&e))))?;
        return Ok(Some(Store::HBase(client)));
    }
    if let (Some(endpoint), Some(project), Some(instance)) =
        (&args.bigtable, &args.project, &args.instance)
    {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| {
                Stop::Failed(format!(
                    "starting the Bigtable client's runtime: {}",
                    chain(&e)
                ))
            })?;
        let client = {
            let _in = runtime.enter();
            rowkey_bigtable::Client::connect_lazy(endpoint, project, instance)
                .map_err(|e| usage(format!("--bigtable {endpoint}: {}", chain(&e))))?
        };
        return Ok(Some(Store::Bigtable(Box::new(Bigtable {
            runtime,
            client,
            endpoint: endpoint.clone(),
        }))));
    }
    Ok(None)
}

/// The plan: layouts field by field, key sizes, split points, and with a
/// table the rows and bytes to move.
fn plan(
    migration: &Migration,
    store: Option<&Store>,
    args: &Args,
    out: &mut dyn Write,
) -> Result<(), Stop> {
    let (from, to) = (migration.from().layout(), migration.to().layout());
    writeln!(out, "old: {from}")?;
    writeln!(out, "new: {to}")?;
    if from.salt() != to.salt() {
        let salt = |s: Option<&rowkey_core::layout::SaltLayout>| {
            s.map_or("none".to_owned(), |s| format!("[{s}]"))
        };
        writeln!(out, "salt: {} -> {}", salt(from.salt()), salt(to.salt()))?;
    }
    writeln!(out, "fields:")?;
    for new in to.fields() {
        let old = from.field(new.name());
        let how = match old {
            Some(old) if old.to_string() == new.to_string() => "kept",
            Some(_) => "re-encoded",
            None => "new, set",
        };
        let old = old.map_or("-".to_owned(), |f| format!("[{f}]"));
        let new = format!("[{new}]");
        writeln!(out, "  {old:<28} -> {new:<28} {how}")?;
    }
    let size = |l: &rowkey_core::layout::Layout| match l.fixed_len() {
        Some(n) => format!("{n} bytes"),
        None => format!("{}+ bytes", l.min_len()),
    };
    writeln!(out, "key size: {} -> {}", size(from), size(to))?;
    let splits = to.split_points();
    write!(out, "new split points ({}):", splits.len())?;
    for s in &splits {
        write!(out, " {}", shell_key(s))?;
    }
    writeln!(out)?;
    let (Some(store), Some(table)) = (store, &args.table) else {
        return Ok(());
    };
    let mut moved = Moved::default();
    // A row's key and the bytes of its value (or cells).
    let mut count = |key: &[u8], value: usize| -> Result<(), Stop> {
        let new = migration
            .rekey(key)
            .map_err(|e| Stop::Failed(rowkey_core::error_chain(&e)))?;
        moved.rows += 1;
        moved.old_bytes += (key.len() + value) as u64;
        moved.new_bytes += (new.len() + value) as u64;
        Ok(())
    };
    match store {
        Store::Redb(db) => {
            use redb::{ReadableDatabase, ReadableTable};
            let failed = |e: &dyn std::fmt::Display| Stop::Failed(format!("table `{table}`: {e}"));
            let tx = db.begin_read().map_err(|e| failed(&e))?;
            let rows = tx
                .open_table(redb::TableDefinition::<&[u8], &[u8]>::new(table))
                .map_err(|e| failed(&e))?;
            for row in rows.iter().map_err(|e| failed(&e))? {
                let (k, v) = row.map_err(|e| failed(&e))?;
                count(k.value(), v.value().len())?;
            }
        }
        Store::Fjall(db) => {
            use fjall::Readable;
            if !db.keyspace_exists(table) {
                return Err(Stop::Failed(format!(
                    "keyspace `{table}`: no such keyspace"
                )));
            }
            let failed =
                |e: fjall::Error| Stop::Failed(format!("keyspace `{table}`: {}", chain(&e)));
            let ks = db
                .keyspace(table, fjall::KeyspaceCreateOptions::default)
                .map_err(failed)?;
            for guard in db.read_tx().iter(&ks) {
                let (k, v) = guard.into_inner().map_err(failed)?;
                count(&k, v.len())?;
            }
        }
        Store::Bigtable(bt) => {
            use rowkey_bigtable::bigtable_rs::bigtable::RowCell;
            let failed =
                |e: rowkey_bigtable::Error| Stop::Failed(format!("table `{table}`: {}", chain(&e)));
            let all = rowkey_core::Scan::from_bounds(b"", b"");
            bt.runtime.block_on(async {
                use futures_util::StreamExt;
                let mut rows = rowkey_bigtable::stream_scan(&bt.client, table, &all, None)
                    .await
                    .map_err(failed)?;
                while let Some(row) = rows.next().await {
                    let (k, cells) = row.map_err(failed)?;
                    let value: usize = cells
                        .iter()
                        .map(|c: &RowCell| c.family_name.len() + c.qualifier.len() + c.value.len())
                        .sum();
                    count(&k, value)?;
                }
                Ok::<(), Stop>(())
            })?;
        }
        Store::HBase(client) => {
            let failed =
                |e: rowkey_hbase::Error| Stop::Failed(format!("table `{table}`: {}", chain(&e)));
            let all = rowkey_core::Scan::from_bounds(b"", b"");
            for row in client.scan(table, &all, None).map_err(failed)? {
                let (k, cells) = row.map_err(failed)?;
                let value: usize = cells
                    .iter()
                    .map(|(f, q, v)| f.len() + q.len() + v.len())
                    .sum();
                count(&k, value)?;
            }
        }
    }
    let change = moved.new_bytes as i128 - moved.old_bytes as i128;
    writeln!(
        out,
        "to move: {} rows, {} bytes of keys and values ({} bytes after, {change:+})",
        moved.rows, moved.old_bytes, moved.new_bytes
    )?;
    Ok(())
}

#[derive(Default)]
struct Moved {
    rows: u64,
    old_bytes: u64,
    new_bytes: u64,
}

impl Bigtable {
    /// An admin client at the same endpoint.
    async fn admin(&self) -> Result<rowkey_bigtable::AdminClient, MigrateError> {
        rowkey_bigtable::connect_admin(&self.endpoint)
            .await
            .map_err(|e| MigrateError::store("connect", &self.endpoint, e))
    }
}
