//! `rowkey bulkload`: rows of CSV, JSON-lines and Parquet files written
//! as HFiles, one per region and family (and per sorter), for HBase's
//! bulk load; `rowkey bulkload commit` loads them through the region
//! servers.
//!
//! Each input row gives the key's fields by name (a column, or a JSON
//! member, per field, in the text `encode` takes; a Parquet column of the
//! field's Arrow type, see `rowkey_hbase::bulk::ColumnMap`) and its cells:
//! every other column, or those named by `--value`, each a cell of
//! `--family` whose qualifier is the column's name (`--value
//! COLUMN=FAMILY:QUALIFIER` to choose both); a row with no value column
//! gets one empty cell (the family's empty qualifier). In JSON lines a
//! value that is `null`, or a member an object does not have, is no cell;
//! a string is its UTF-8 bytes, a number its JSON text, an array of
//! integers 0 to 255 those bytes; any other value (`true`, an object)
//! makes the row bad. The regions come from the layout's split points or
//! from the table itself.
//!
//! # Sorters and workers
//! The input is cut into shares (a text file whole, a Parquet file's row
//! groups one by one). `--workers N` runs N sorters in this process, each
//! taking the next share, each with `--memory / N`; `--worker I/N` makes
//! this process take the shares whose index is I modulo N, so N processes
//! anywhere split one input with no coordinator. With either, each sorter
//! writes `OUT/part-I-T/FAMILY/FILE` (I the worker, T the sorter): first
//! under `OUT/_part-I-T.tmp/`, renamed when its files are whole, so a
//! worker killed half-way leaves nothing `commit` loads (it skips names
//! starting with `_`), and its re-run starts that directory again. With
//! neither, one sorter writes `OUT/FAMILY/FILE`, as `hbase
//! completebulkload OUT TABLE` takes it.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use rowkey_core::error_chain as chain;
use rowkey_core::hbase::to_string_binary;
use rowkey_core::{DynLayout, TimeUnit};
use rowkey_hbase::bulk::{
    dirs, BadRow, BulkLoad, BulkSummary, CellEncoding, ColumnIndex, ColumnMap,
};
use rowkey_hbase::hfile::{Bloom, Compression};
use rowkey_hbase::Cell;

mod commit;
mod input;

pub(crate) use commit::{commit, CommitArgs};
use input::{Format, Place, Share, Sink, ValueColumn};

/// `rowkey bulkload`'s arguments after `--layout`.
#[derive(clap::Args)]
pub(crate) struct BulkloadArgs {
    /// The rows (repeat it, or give several): a file, a directory (its
    /// files, not those starting with `.` or `_`), a glob (`'lake/*.parquet'`)
    /// or `-` for standard input. A file's format is its name's (`.csv`
    /// with a header line, `.jsonl`/`.json` one object per line,
    /// `.parquet`) or `--format`'s.
    #[arg(long, value_name = "PATH", num_args = 1.., required = true)]
    input: Vec<String>,
    /// The inputs' format, when their names do not say it.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// The directory of the HFiles, local or `hdfs://NAMENODE:PORT/PATH`
    /// (written straight to HDFS): `DIR/FAMILY/FILE`, or with
    /// `--workers`/`--worker`, `DIR/part-I-T/FAMILY/FILE`.
    #[arg(long, value_name = "DIR", required = true)]
    out: PathBuf,
    /// Cut the files at the layout's split points (one region per salt
    /// bucket), as a table created with `rowkey splits --hbase-create` is
    /// pre-split.
    #[arg(
        long,
        conflicts_with_all = ["regions", "create_table"],
        required_unless_present_any = ["regions", "create_table"]
    )]
    split_points: bool,
    /// `ADDRESS TABLE`: cut the files at the regions the table has now,
    /// asked of HBase: its Thrift2 gateway's `HOST:PORT`, or
    /// `hbase://MASTER:PORT[,...]` (HBase's masters, no gateway) or
    /// `zk://QUORUM[/PARENT]`. With `--create-table`, `N`: the new
    /// table's regions, cut at equal row counts of a sample of the input.
    #[arg(long, num_args = 1..=2, value_names = ["ADDRESS|N", "TABLE"])]
    regions: Option<Vec<String>>,
    /// Create the table (`ADDRESS TABLE`, as for `--regions`) once the
    /// input is read, pre-split for it: a salted key at its layout's split
    /// points; an unsalted one into `--regions N` regions of about equal
    /// row counts, from a sample of the input (`--sample`). The table must
    /// not exist. Its families are `--family` and those of `--value`s. One
    /// process only (not with `--worker`).
    #[arg(long, num_args = 2, value_names = ["ADDRESS", "TABLE"], conflicts_with = "worker")]
    create_table: Option<Vec<String>>,
    /// With `--create-table --regions N`: the fraction of rows each sorter
    /// considers for its sample (kept in a reservoir of at most 100,000
    /// keys per sorter).
    #[arg(long, default_value_t = 0.01, value_name = "FRACTION")]
    sample: f64,
    /// The column family of the value columns (and of index entries).
    #[arg(long, default_value = "d")]
    family: String,
    /// An index whose entries go into the same files (repeat it): its
    /// key's layout (text, JSON or `@FILE`, as `--layout`), every field
    /// but the last read from the input column of its name, the last the
    /// row's key (`[event Event 9]`, as the index's derive prints it). An
    /// entry is a row of `--family` whose `v` cell holds the load's
    /// timestamp, as rowkey's `IndexedTable` writes it; the layout and
    /// each index need a prefix of their own. A row whose entry's field is
    /// bad is a bad row, written neither.
    #[arg(long = "index", value_name = "SPEC")]
    indexes: Vec<String>,
    /// A value column, `COLUMN` or `COLUMN=FAMILY:QUALIFIER` (repeat it);
    /// without any, every column that is not a key field. In JSON lines, a
    /// member that is `null` or absent from an object is no cell; a string
    /// is its bytes, a number its text, an array of 0 to 255 those bytes.
    #[arg(long = "value", value_name = "COLUMN[=FAMILY:QUALIFIER]")]
    values: Vec<String>,
    /// How a Parquet column's values become cell bytes: `binary`, HBase's
    /// `Bytes.toBytes` of the column's Java type (what a Java service
    /// reads with `Bytes.toLong`), or `text`, as a CSV load writes them.
    #[arg(long, value_enum, default_value = "binary")]
    cell_encoding: CellEncodingArg,
    /// The unit of a Parquet timestamp column filling an integer key field
    /// that has no `ts(unit)` of its own (a plain `i64`, a `desc_ts` one).
    #[arg(long, value_enum, default_value = "millis")]
    timestamp_unit: UnitArg,
    /// The process's memory budget in MiB: 32 MiB and 12 more per sorter
    /// are kept for the program, reading the input and writing the files;
    /// the rest is shared by the sorters (at least a quarter of it), past
    /// which sorted runs spill to disk. Peak memory stays under it from 64
    /// MiB up.
    #[arg(long, default_value_t = 256, value_name = "MIB")]
    memory: usize,
    /// Sorters in this process, each taking the next share of the input
    /// (a file, a Parquet row group).
    #[arg(long, default_value_t = 1, value_name = "N")]
    workers: usize,
    /// This process is worker I of N: it takes every Nth share of the
    /// input, from the Ith (0-based).
    #[arg(long, value_name = "I/N", value_parser = parse_worker)]
    worker: Option<(usize, usize)>,
    /// A bad row (a field that does not parse, a key too long, a short
    /// line): `fail` lists every one on standard error and writes no file;
    /// `skip` loads the others and writes each bad one to the report.
    #[arg(long, value_enum, default_value = "fail")]
    bad_rows: BadRowsArg,
    /// Where `--bad-rows skip` writes the bad rows, one JSON object each
    /// (`input`, `line` or `row`, `column`, `reason`); default
    /// `OUT.bad-rows-I.jsonl` beside the output directory (I the worker;
    /// `bad-rows-I.jsonl` here for an output on HDFS).
    #[arg(long, value_name = "FILE")]
    bad_rows_report: Option<PathBuf>,
    /// How the blocks are compressed (Snappy and Zstandard need HBase's
    /// pure-Java codecs on the cluster: see the README).
    #[arg(long, value_enum, default_value = "none")]
    compression: Codec,
    /// Each file's Bloom filter (`row`: HBase's default for a family).
    #[arg(long, value_enum, default_value = "row")]
    bloom: BloomArg,
    /// Every cell's timestamp in milliseconds (default: now).
    #[arg(long, value_name = "MILLIS")]
    timestamp: Option<i64>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
}

fn parse_worker(text: &str) -> Result<(usize, usize), String> {
    let parsed = text
        .split_once('/')
        .and_then(|(i, n)| Some((i.parse::<usize>().ok()?, n.parse::<usize>().ok()?)));
    match parsed {
        Some((i, n)) if i < n => Ok((i, n)),
        _ => Err(format!("`{text}` is not I/N with 0 <= I < N (`0/4`)")),
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum CellEncodingArg {
    Binary,
    Text,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum UnitArg {
    Secs,
    Millis,
    Micros,
    Nanos,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum BadRowsArg {
    Fail,
    Skip,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum BloomArg {
    None,
    Row,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Codec {
    None,
    Gz,
    Snappy,
    Zstd,
}

/// Why a load stopped.
pub(crate) enum Stop {
    /// An argument is wrong (exit status 2): it is named.
    Usage(String),
    /// The load failed (exit status 1): the input line and field, or the
    /// file.
    Failed(String),
}

/// The bad rows of every sorter: counted, and listed on standard error
/// (`fail`) or in the report (`skip`).
struct BadRows {
    mode: BadRowsArg,
    count: AtomicU64,
    out: Mutex<Box<dyn Write + Send>>,
}

impl BadRows {
    fn record(&self, place: &Place<'_>, column: &str, reason: &str) -> Result<(), String> {
        self.count.fetch_add(1, Ordering::Relaxed);
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        let written = match self.mode {
            BadRowsArg::Fail => {
                let at = match (place.line, place.row) {
                    (Some(line), _) => format!("line {line}"),
                    (None, Some(row)) => format!("row {row}"),
                    (None, None) => String::new(),
                };
                let column = if column.is_empty() {
                    String::new()
                } else {
                    format!(", column `{column}`")
                };
                writeln!(out, "rowkey: {} {at}{column}: {reason}", place.input)
            }
            BadRowsArg::Skip => {
                let mut o = serde_json::Map::new();
                o.insert("input".into(), place.input.into());
                if let Some(line) = place.line {
                    o.insert("line".into(), line.into());
                }
                if let Some(row) = place.row {
                    o.insert("row".into(), row.into());
                }
                o.insert("column".into(), column.into());
                o.insert("reason".into(), reason.into());
                writeln!(out, "{}", serde_json::Value::Object(o))
            }
        };
        written.map_err(|e| format!("cannot write the bad rows: {}", chain(&e)))
    }

    fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }
}

/// One sorter: its load and what it has done.
struct Sorter<'a> {
    load: BulkLoad,
    rows: u64,
    bytes: u64,
    bad: &'a BadRows,
    bar: ProgressBar,
}

impl Sorter<'_> {
    fn show(&self) {
        self.bar.set_position(self.rows);
        self.bar.set_message(format!(
            "{} read, {} spills",
            indicatif::HumanBytes(self.bytes),
            self.load.spills()
        ));
    }

    /// Once a row is bad in `fail` mode nothing will be written: the rest
    /// is only read for its bad rows.
    fn failing(&self) -> bool {
        self.bad.mode == BadRowsArg::Fail && self.bad.count() > 0
    }
}

impl Sink for Sorter<'_> {
    fn put(
        &mut self,
        place: &Place<'_>,
        key: &[u8],
        cells: &[Cell],
        entries: &[Vec<u8>],
    ) -> Result<(), String> {
        if self.failing() {
            return Ok(());
        }
        match self.load.put_raw_indexed(key, cells, entries) {
            Ok(()) => {
                self.rows += 1;
                if self.rows % 65_536 == 0 {
                    self.show();
                }
                Ok(())
            }
            // The row's own fault is a bad row; anything else ends the
            // load.
            Err(e) if e.is_row_fault() => self.bad.record(place, "", &e.to_string()),
            Err(e) => Err(chain(&e)),
        }
    }

    fn put_batch(
        &mut self,
        batch: &arrow_array::RecordBatch,
        map: &ColumnMap,
    ) -> Result<Vec<BadRow>, String> {
        let mut bad = Vec::new();
        let put = self
            .load
            .put_batch_skipping(batch, map, &mut bad)
            .map_err(|e| chain(&e))?;
        self.rows += put as u64;
        self.show();
        Ok(bad)
    }

    fn bad(&mut self, place: &Place<'_>, column: &str, reason: &str) -> Result<(), String> {
        self.bad.record(place, column, reason)
    }

    fn read(&mut self, bytes: u64) {
        self.bytes += bytes;
    }
}

/// Runs the load: reads every row, writes the files, prints the summary
/// to `out`.
pub(crate) fn run(
    layout: &DynLayout,
    args: &BulkloadArgs,
    out: &mut dyn Write,
) -> Result<(), Stop> {
    if !layout.members().is_empty() {
        return Err(Stop::Usage(String::from(
            "--layout: bulkload takes one key's layout, not a key family: give a member's",
        )));
    }
    if args.workers == 0 || args.workers > 1024 {
        return Err(Stop::Usage(format!(
            "--workers {}: from 1 to 1024",
            args.workers
        )));
    }
    if let Some(ts) = args.timestamp {
        if !(0..i64::MAX).contains(&ts) {
            return Err(Stop::Usage(format!(
                "--timestamp {ts}: from 0 to {}",
                i64::MAX - 1
            )));
        }
    }
    let inputs = input::inputs(&args.input, args.format).map_err(Stop::Usage)?;
    let map = ColumnMap::new(layout, &args.family)
        .map_err(|e| Stop::Usage(format!("--layout: {}", chain(&e))))?
        .encoding(match args.cell_encoding {
            CellEncodingArg::Binary => CellEncoding::Binary,
            CellEncodingArg::Text => CellEncoding::Text,
        })
        .timestamps(match args.timestamp_unit {
            UnitArg::Secs => TimeUnit::Secs,
            UnitArg::Millis => TimeUnit::Millis,
            UnitArg::Micros => TimeUnit::Micros,
            UnitArg::Nanos => TimeUnit::Nanos,
        });
    let values: Vec<ValueColumn> = args
        .values
        .iter()
        .map(|v| ValueColumn::parse(v, &args.family))
        .collect::<Result<_, _>>()
        .map_err(Stop::Usage)?;
    let indexes: Vec<ColumnIndex> = args
        .indexes
        .iter()
        .map(|spec| {
            let index = crate::spec::layout("--index", spec).map_err(Stop::Usage)?;
            ColumnIndex::new(&index, layout)
                .map_err(|e| Stop::Usage(format!("--index: {}", chain(&e))))
        })
        .collect::<Result<_, _>>()?;
    let map = indexes
        .iter()
        .fold(value_map(map, &values), |map, ix| map.index(ix));
    let shares = input::shares(&inputs).map_err(Stop::Failed)?;
    let (index, of) = args.worker.unwrap_or((0, 1));
    let mine: Vec<Share> = shares
        .into_iter()
        .enumerate()
        .filter(|(k, _)| k % of == index)
        .map(|(_, s)| s)
        .collect();
    let boundaries = boundaries(layout, &indexes, args)?;
    let new_table = NewTable::plan(layout, args, &values)?;
    let parted = args.workers > 1 || args.worker.is_some();
    let dirs = sorter_dirs(&args.out, parted, index, args.workers)?;

    let bad = BadRows {
        mode: args.bad_rows,
        count: AtomicU64::new(0),
        out: Mutex::new(bad_rows_out(args, index)?),
    };
    let reading = input::Reading {
        layout,
        family: &args.family,
        values: &values,
        map: &map,
        indexes: &indexes,
    };
    let bars = MultiProgress::new();
    let style = ProgressStyle::with_template("{prefix} {pos} rows {per_sec} {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    let next = AtomicUsize::new(0);
    let memory = sort_budget(args.memory, args.workers);
    // Every sorter reads its shares; the files are written only when no
    // sorter failed (and, with `fail`, no row was bad).
    let read: Vec<Result<Sorter<'_>, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = dirs
            .iter()
            .enumerate()
            .map(|(t, (dir, _))| {
                let bar = bars.add(ProgressBar::no_length().with_style(style.clone()));
                bar.set_prefix(format!("worker {index}.{t}"));
                let mut load = new_load(dir, args, &boundaries, memory);
                if matches!(
                    &new_table,
                    Some(NewTable {
                        sampled: Some(_),
                        ..
                    })
                ) {
                    load = load.sample(args.sample, (index * args.workers + t) as u64);
                }
                let mut sorter = Sorter {
                    load,
                    rows: 0,
                    bytes: 0,
                    bad: &bad,
                    bar,
                };
                let (mine, inputs, reading, next) = (&mine, &inputs, &reading, &next);
                scope.spawn(move || {
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(share) = mine.get(k) else { break };
                        input::read(share, inputs, reading, &mut sorter)?;
                        sorter.show();
                    }
                    Ok(sorter)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a sorter panicked".into())))
            .collect()
    });
    let mut sorters = match read.into_iter().collect::<Result<Vec<_>, String>>() {
        Ok(s) => s,
        Err(e) => {
            remove_staging(&dirs, parted);
            return Err(Stop::Failed(e));
        }
    };
    let bad_count = bad.count();
    if args.bad_rows == BadRowsArg::Fail && bad_count > 0 {
        drop(sorters);
        remove_staging(&dirs, parted);
        return Err(Stop::Failed(format!(
            "{bad_count} bad row{} (listed above): nothing written (--bad-rows skip loads the others)",
            if bad_count == 1 { "" } else { "s" }
        )));
    }
    let rows_in: u64 = sorters.iter().map(|s| s.rows).sum();
    if let Some(t) = &new_table {
        if let Err(e) = t.create(layout, &indexes, &mut sorters) {
            drop(sorters);
            remove_staging(&dirs, parted);
            return Err(e);
        }
    }
    let finished: Vec<Result<Option<BulkSummary>, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = sorters
            .into_iter()
            .zip(&dirs)
            .map(|(sorter, (staging, part))| {
                scope.spawn(move || finish(sorter, staging, part.as_deref()))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a sorter panicked".into())))
            .collect()
    });
    bars.clear().ok();
    let summaries = match finished.into_iter().collect::<Result<Vec<_>, String>>() {
        Ok(s) => s,
        Err(e) => {
            remove_staging(&dirs, parted);
            return Err(Stop::Failed(e));
        }
    };
    let written: Vec<(PathBuf, BulkSummary)> = dirs
        .iter()
        .zip(summaries)
        .filter_map(|((staging, part), s)| Some((part.clone().unwrap_or(staging.clone()), s?)))
        .collect();
    let summary = Summary {
        rows_in,
        bad: bad_count,
        parts: &written,
        out: &args.out,
        table: new_table.as_ref().map(|t| t.name.as_str()).or(args
            .regions
            .as_ref()
            .and_then(|r| r.get(1))
            .map(String::as_str)),
        parted,
    };
    let printed = if args.json {
        summary.json(out)
    } else {
        summary.text(out)
    };
    printed.map_err(|e| Stop::Failed(format!("cannot write: {}", chain(&e))))
}

/// Each sorter's share of `--memory` (MiB) in bytes: what is left after
/// the program's own (32 MiB) and each sorter's reading and writing (12
/// MiB: a Parquet batch, an HFile's block and index, a 4 MiB chunk for
/// HDFS, the merge's read buffers), and at least a quarter of the budget.
fn sort_budget(memory_mib: usize, sorters: usize) -> usize {
    let reserve = 32 + 12 * sorters;
    let sorting = memory_mib.saturating_sub(reserve).max(memory_mib / 4);
    sorting.saturating_mul(1 << 20) / sorters.max(1)
}

/// The map with `--value`s.
fn value_map(mut map: ColumnMap, values: &[ValueColumn]) -> ColumnMap {
    for v in values {
        map = map.value(&v.column, &v.family, &v.qualifier);
    }
    map
}

/// A table `--create-table` makes once the input is read.
struct NewTable {
    client: rowkey_hbase::Client,
    name: String,
    families: Vec<String>,
    /// An unsalted key's regions, cut from the sample; `None`: the
    /// layout's split points.
    sampled: Option<usize>,
}

impl NewTable {
    /// Checks the arguments and that the table is not there yet.
    fn plan(
        layout: &DynLayout,
        args: &BulkloadArgs,
        values: &[ValueColumn],
    ) -> Result<Option<NewTable>, Stop> {
        let Some(c) = &args.create_table else {
            return Ok(None);
        };
        let (addr, name) = (&c[0], &c[1]);
        let salted = layout.layout().salt().is_some();
        let sampled = match (args.regions.as_deref(), salted) {
            (None, true) => None,
            (Some([_]), true) => {
                return Err(Stop::Usage(format!(
                    "--regions: {name}'s key is salted: its regions are its buckets (leave --regions out)"
                )))
            }
            (Some([n]), false) => match n.parse::<usize>() {
                Ok(n) if (1..=10_000).contains(&n) => Some(n),
                _ => return Err(Stop::Usage(format!("--regions {n}: from 1 to 10000"))),
            },
            (None, false) => {
                return Err(Stop::Usage(format!(
                    "--create-table {addr} {name}: say how many regions with --regions N (the key is not salted)"
                )))
            }
            (Some(_), _) => {
                return Err(Stop::Usage(
                    "--regions ADDRESS TABLE cuts at an existing table's regions: with --create-table give --regions N"
                        .into(),
                ))
            }
        };
        if !(args.sample > 0.0 && args.sample <= 1.0) {
            return Err(Stop::Usage(format!(
                "--sample {}: from 0 (excluded) to 1",
                args.sample
            )));
        }
        let client = rowkey_hbase::Client::for_address(addr)
            .and_then(|b| b.build())
            .map_err(|e| Stop::Usage(format!("--create-table {addr}: {}", chain(&e))))?;
        match client.table_exists(name) {
            Ok(false) => {}
            Ok(true) => {
                return Err(Stop::Usage(format!(
                    "--create-table {addr} {name}: the table exists (--regions {addr} {name} cuts the files at its regions)"
                )))
            }
            Err(e) => return Err(Stop::Failed(format!("--create-table {addr} {name}: {}", chain(&e)))),
        }
        let mut families = vec![args.family.clone()];
        families.extend(values.iter().map(|v| v.family.clone()));
        families.sort();
        families.dedup();
        Ok(Some(NewTable {
            client,
            name: name.clone(),
            families,
            sampled,
        }))
    }

    /// Creates the table, pre-split at the sample's cuts (set on every
    /// sorter's load) or the layout's split points.
    fn create(
        &self,
        layout: &DynLayout,
        indexes: &[ColumnIndex],
        sorters: &mut [Sorter<'_>],
    ) -> Result<(), Stop> {
        let points = match self.sampled {
            Some(n) => {
                let loads: Vec<&BulkLoad> = sorters.iter().map(|s| &s.load).collect();
                let points = with_indexes(BulkLoad::sampled_split_points(&loads, n), indexes);
                for s in sorters.iter_mut() {
                    s.load.set_split_points(&points);
                }
                points
            }
            None => with_indexes(layout.split_points(), indexes),
        };
        let families: Vec<&str> = self.families.iter().map(String::as_str).collect();
        self.client
            .create_table(&self.name, &families, &points)
            .map_err(|e| Stop::Failed(format!("--create-table {}: {e}", self.name)))
    }
}

/// `points` and, for each index, the start of its rows (its prefix) and
/// its salt buckets', so that no index shares a region with the data rows
/// (`IndexedTable::split_points`); sorted, each once.
fn with_indexes(points: Vec<Vec<u8>>, indexes: &[ColumnIndex]) -> Vec<Vec<u8>> {
    let mut all: std::collections::BTreeSet<Vec<u8>> = points.into_iter().collect();
    for ix in indexes {
        all.insert(ix.layout().layout().prefix().to_vec());
        all.extend(ix.layout().split_points());
    }
    all.remove(&Vec::new());
    all.into_iter().collect()
}

/// Where the files are cut: the layout's split points (and its indexes'),
/// or the table's regions now (a table `--create-table` makes: set once
/// it is made).
fn boundaries(
    layout: &DynLayout,
    indexes: &[ColumnIndex],
    args: &BulkloadArgs,
) -> Result<Vec<Vec<u8>>, Stop> {
    let r = match (&args.regions, &args.create_table) {
        (_, Some(_)) | (None, None) => return Ok(with_indexes(layout.split_points(), indexes)),
        (Some(r), None) => r,
    };
    let [addr, table] = r.as_slice() else {
        return Err(Stop::Usage(format!(
            "--regions {}: give ADDRESS TABLE (a number of regions goes with --create-table)",
            r.join(" ")
        )));
    };
    let regions = rowkey_hbase::Client::for_address(addr)
        .and_then(|b| b.build())
        .and_then(|c| c.region_locations(table))
        .map_err(|e| match e {
            // A table that is not there: the arguments are wrong.
            rowkey_hbase::Error::TableNotFound { .. } => {
                Stop::Usage(format!("--regions {addr} {table}: {}", chain(&e)))
            }
            e => Stop::Failed(format!("--regions {addr} {table}: {}", chain(&e))),
        })?;
    Ok(regions.into_iter().map(|r| r.start).collect())
}

/// Each sorter's directory as it writes, and where it goes when whole
/// (`None`: it writes in place). A part written before is refused; a
/// staging directory a killed run left is removed.
#[allow(clippy::type_complexity)]
fn sorter_dirs(
    out: &Path,
    parted: bool,
    index: usize,
    workers: usize,
) -> Result<Vec<(PathBuf, Option<PathBuf>)>, Stop> {
    if !parted {
        return Ok(vec![(out.to_path_buf(), None)]);
    }
    let mut dirs = Vec::with_capacity(workers);
    for t in 0..workers {
        let part = out.join(format!("part-{index}-{t}"));
        let there =
            dirs::exists(&part).map_err(|e| Stop::Failed(format!("--out: {}", chain(&e))))?;
        if there {
            return Err(Stop::Usage(format!(
                "--out: {} exists: worker {index}'s share is written already (commit it, or remove it to write it again)",
                part.display()
            )));
        }
        let staging = out.join(format!("_part-{index}-{t}.tmp"));
        dirs::remove_all(&staging)
            .map_err(|e| Stop::Failed(format!("{}: {e}", staging.display())))?;
        dirs.push((staging, Some(part)));
    }
    Ok(dirs)
}

/// Removes what the sorters staged (a load that stopped).
fn remove_staging(sorters: &[(PathBuf, Option<PathBuf>)], parted: bool) {
    if parted {
        for (staging, _) in sorters {
            let _ = dirs::remove_all(staging);
        }
    }
}

fn new_load(dir: &Path, args: &BulkloadArgs, boundaries: &[Vec<u8>], memory: usize) -> BulkLoad {
    let mut load = BulkLoad::new(dir)
        .memory(memory)
        .split_points(boundaries)
        .compression(match args.compression {
            Codec::None => Compression::None,
            Codec::Gz => Compression::Gzip,
            Codec::Snappy => Compression::Snappy,
            Codec::Zstd => Compression::Zstd,
        })
        .bloom(match args.bloom {
            BloomArg::None => Bloom::None,
            BloomArg::Row => Bloom::Row,
        });
    if let Some(ts) = args.timestamp {
        load = load.timestamp(ts);
    }
    if !args.indexes.is_empty() {
        load = load.index_family(&args.family);
    }
    load
}

/// Where bad rows go: standard error (`fail`), the report (`skip`).
fn bad_rows_out(args: &BulkloadArgs, index: usize) -> Result<Box<dyn Write + Send>, Stop> {
    if args.bad_rows == BadRowsArg::Fail {
        return Ok(Box::new(io::stderr()));
    }
    let path = args.bad_rows_report.clone().unwrap_or_else(|| {
        let mut name = args.out.as_os_str().to_owned();
        name.push(format!(".bad-rows-{index}.jsonl"));
        PathBuf::from(name)
    });
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent)
            .map_err(|e| Stop::Failed(format!("--bad-rows-report {}: {e}", parent.display())))?;
    }
    let file = fs::File::create(&path)
        .map_err(|e| Stop::Failed(format!("--bad-rows-report {}: {e}", path.display())))?;
    Ok(Box::new(io::BufWriter::new(file)))
}

/// Writes a sorter's files and moves them to their part (`None`: a
/// sorter that got no row writes nothing).
fn finish(
    sorter: Sorter<'_>,
    staging: &Path,
    part: Option<&Path>,
) -> Result<Option<BulkSummary>, String> {
    sorter.bar.finish_and_clear();
    if part.is_some() && sorter.rows == 0 {
        drop(sorter);
        let _ = dirs::remove_all(staging);
        return Ok(None);
    }
    let summary = sorter
        .load
        .finish()
        .map_err(|e| format!("--out {}: {e}", staging.display()))?;
    if let Some(part) = part {
        dirs::rename(staging, part).map_err(|e| format!("{}: {e}", part.display()))?;
    }
    Ok(Some(summary))
}

/// What a run wrote, all sorters together.
struct Summary<'a> {
    rows_in: u64,
    bad: u64,
    parts: &'a [(PathBuf, BulkSummary)],
    out: &'a Path,
    table: Option<&'a str>,
    parted: bool,
}

/// One region's totals over every part.
#[derive(Default)]
struct RegionTotal {
    start: Vec<u8>,
    end: Vec<u8>,
    rows: u64,
    cells: u64,
    files: usize,
    bytes: u64,
}

impl Summary<'_> {
    fn regions(&self) -> Vec<RegionTotal> {
        let mut totals: Vec<RegionTotal> = Vec::new();
        for (_, s) in self.parts {
            for (i, r) in s.regions.iter().enumerate() {
                if totals.len() <= i {
                    totals.push(RegionTotal {
                        start: r.start.clone(),
                        end: r.end.clone(),
                        ..RegionTotal::default()
                    });
                }
                let t = &mut totals[i];
                t.rows += r.rows;
                t.cells += r.cells;
                t.files += r.files;
                t.bytes += r.bytes;
            }
        }
        totals
    }

    fn total(&self, f: impl Fn(&BulkSummary) -> u64) -> u64 {
        self.parts.iter().map(|(_, s)| f(s)).sum()
    }

    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(
            out,
            "{} input rows ({} bad): {} rows, {} cells in {} files ({} bytes) under {}, {} part{}; {} sorted runs spilled",
            self.rows_in + self.bad,
            self.bad,
            self.total(|s| s.rows),
            self.total(|s| s.cells),
            self.total(|s| s.files.len() as u64),
            self.total(|s| s.bytes),
            self.out.display(),
            self.parts.len(),
            if self.parts.len() == 1 { "" } else { "s" },
            self.total(|s| s.spills as u64),
        )?;
        for r in self.regions() {
            writeln!(
                out,
                "region [{}, {}): {} rows, {} cells, {} files, {} bytes",
                to_string_binary(&r.start),
                to_string_binary(&r.end),
                r.rows,
                r.cells,
                r.files,
                r.bytes
            )?;
        }
        let table = self.table.unwrap_or("TABLE");
        if self.parted {
            writeln!(
                out,
                "load them with: rowkey bulkload commit --out {} --table {table} --hbase ADDRESS",
                self.out.display()
            )
        } else {
            writeln!(
                out,
                "load them with: rowkey bulkload commit --out {0} --table {table} --hbase ADDRESS, or hbase completebulkload {0} {table}",
                self.out.display()
            )
        }
    }

    fn json(&self, out: &mut dyn Write) -> io::Result<()> {
        let regions: Vec<serde_json::Value> = self
            .regions()
            .iter()
            .map(|r| {
                serde_json::json!({
                    "start": to_string_binary(&r.start),
                    "end": to_string_binary(&r.end),
                    "rows": r.rows,
                    "cells": r.cells,
                    "files": r.files,
                    "bytes": r.bytes,
                })
            })
            .collect();
        let parts: Vec<serde_json::Value> = self
            .parts
            .iter()
            .map(|(dir, s)| {
                serde_json::json!({
                    "dir": dir.display().to_string(),
                    "rows": s.rows,
                    "files": s.files.len(),
                    "bytes": s.bytes,
                    "spills": s.spills,
                })
            })
            .collect();
        let value = serde_json::json!({
            "input_rows": self.rows_in + self.bad,
            "bad_rows": self.bad,
            "rows": self.total(|s| s.rows),
            "cells": self.total(|s| s.cells),
            "files": self.total(|s| s.files.len() as u64),
            "bytes": self.total(|s| s.bytes),
            "spills": self.total(|s| s.spills as u64),
            "out": self.out.display().to_string(),
            "parts": parts,
            "regions": regions,
        });
        writeln!(out, "{value}")
    }
}

#[cfg(test)]
mod tests {
    use crate::bulkload::sort_budget;

    #[test]
    fn the_sorters_share_what_reading_and_writing_leave() {
        const MIB: usize = 1 << 20;
        assert_eq!(sort_budget(256, 1), 212 * MIB);
        assert_eq!(sort_budget(256, 2), 100 * MIB);
        // A small budget still sorts, in a quarter of it.
        assert_eq!(sort_budget(1, 1), 0);
        assert_eq!(sort_budget(40, 1), 10 * MIB);
    }
}
