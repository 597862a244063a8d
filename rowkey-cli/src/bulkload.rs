//! `rowkey bulkload`: the rows of a CSV or JSON-lines file written as
//! HFiles, one per region and family, for HBase's bulk load
//! (`hbase completebulkload DIR TABLE`).
//!
//! Each input row gives the key's fields by name (a column, or a JSON
//! member, per field, in the text `encode` takes) and its cells: every
//! other column, or those named by `--value`, each a cell of `--family`
//! whose qualifier is the column's name (`--value COLUMN=FAMILY:QUALIFIER`
//! to choose both); a row with no value column gets one empty cell (the
//! family's empty qualifier). In JSON lines a value that is `null`, or a
//! member an object does not have, is no cell; a string is its UTF-8
//! bytes, a number its JSON text, an array of integers 0 to 255 those
//! bytes; any other value (`true`, an object) is an error naming the line
//! and the member. The regions come from the layout's split points or
//! from the table itself through its Thrift gateway.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use rowkey_core::hbase::to_string_binary;
use rowkey_core::{DynLayout, Value};
use rowkey_hbase::bulk::{BulkLoad, BulkSummary};
use rowkey_hbase::hfile::{Bloom, Compression};
use rowkey_hbase::Cell;

/// `rowkey bulkload`'s arguments after `--layout`.
#[derive(clap::Args)]
pub(crate) struct BulkloadArgs {
    /// The rows: a CSV file with a header line (`.csv`) or one JSON object
    /// per line (`.jsonl`, `.json`).
    #[arg(long, value_name = "FILE")]
    input: PathBuf,
    /// The input's format, when its name does not say it.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// The directory of the HFiles (`DIR/FAMILY/FILE`).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Cut the files at the layout's split points (one region per salt
    /// bucket), as a table created with `rowkey splits --hbase-create` is
    /// pre-split.
    #[arg(long, conflicts_with = "regions", required_unless_present = "regions")]
    split_points: bool,
    /// Cut the files at the regions the table has now, asked of HBase:
    /// its Thrift2 gateway's `HOST:PORT`, or `hbase://MASTER:PORT[,...]`
    /// (HBase's masters, no gateway) or `zk://QUORUM[/PARENT]`.
    #[arg(long, num_args = 2, value_names = ["ADDRESS", "TABLE"])]
    regions: Option<Vec<String>>,
    /// The column family of the value columns.
    #[arg(long, default_value = "d")]
    family: String,
    /// A value column, `COLUMN` or `COLUMN=FAMILY:QUALIFIER` (repeat it);
    /// without any, every column that is not a key field. In JSON lines, a
    /// member that is `null` or absent from an object is no cell; a string
    /// is its bytes, a number its text, an array of 0 to 255 those bytes.
    #[arg(long = "value", value_name = "COLUMN[=FAMILY:QUALIFIER]")]
    values: Vec<String>,
    /// The sort's memory budget in MiB; past it, sorted runs spill to disk.
    #[arg(long, default_value_t = 256, value_name = "MIB")]
    memory: usize,
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
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    Csv,
    Jsonl,
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

/// Where a value column goes.
struct ValueColumn {
    column: String,
    family: String,
    qualifier: Vec<u8>,
}

/// Why a load stopped.
pub(crate) enum Stop {
    /// An argument is wrong (exit status 2): it is named.
    Usage(String),
    /// The load failed (exit status 1): the input line and field, or the
    /// file.
    Failed(String),
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
    let format = match (args.format, args.input.extension().and_then(|e| e.to_str())) {
        (Some(f), _) => f,
        (None, Some("csv")) => Format::Csv,
        (None, Some("jsonl" | "json")) => Format::Jsonl,
        _ => {
            return Err(Stop::Usage(format!(
                "--input {}: say its format with --format (csv or jsonl)",
                args.input.display()
            )))
        }
    };
    let mut load = BulkLoad::new(&args.out)
        .memory(args.memory.saturating_mul(1 << 20))
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
        if !(0..i64::MAX).contains(&ts) {
            return Err(Stop::Usage(format!(
                "--timestamp {ts}: from 0 to {}",
                i64::MAX - 1
            )));
        }
        load = load.timestamp(ts);
    }
    load = match &args.regions {
        Some(r) => {
            let (addr, table) = (&r[0], &r[1]);
            let regions = rowkey_hbase::Client::for_address(addr)
                .and_then(|b| b.build())
                .and_then(|c| c.region_locations(table))
                .map_err(|e| match e {
                    // A table that is not there: the arguments are wrong.
                    rowkey_hbase::Error::TableNotFound { .. } => {
                        Stop::Usage(format!("--regions {addr} {table}: {e}"))
                    }
                    e => Stop::Failed(format!("--regions {addr} {table}: {e}")),
                })?;
            load.regions(&regions)
        }
        None => load.split_points(&layout.split_points()),
    };

    let file = File::open(&args.input)
        .map_err(|e| Stop::Usage(format!("--input {}: {e}", args.input.display())))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let bar = ProgressBar::new(size).with_style(
        ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {per_sec} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let input = BufReader::with_capacity(1 << 20, bar.wrap_read(file));
    let fields: Vec<&str> = layout.field_names().collect();
    let rows = match format {
        Format::Csv => read_csv(layout, &fields, args, input, &mut load),
        Format::Jsonl => read_jsonl(layout, &fields, args, input, &mut load),
    }
    .map_err(Stop::Failed)?;
    bar.set_message("writing the HFiles");
    let summary = load
        .finish()
        .map_err(|e| Stop::Failed(format!("--out {}: {e}", args.out.display())))?;
    bar.finish_and_clear();
    print_summary(
        &summary,
        rows,
        &args.out,
        args.regions.as_ref().map(|r| r[1].as_str()),
        out,
    )
    .map_err(|e| Stop::Failed(format!("cannot write: {e}")))
}

/// The value columns: `--value`s, or every column not a key field.
fn value_columns(
    args: &BulkloadArgs,
    columns: &[String],
    fields: &[&str],
) -> Result<Vec<ValueColumn>, String> {
    if args.values.is_empty() {
        return Ok(columns
            .iter()
            .filter(|c| !fields.contains(&c.as_str()))
            .map(|c| ValueColumn {
                column: c.clone(),
                family: args.family.clone(),
                qualifier: c.as_bytes().to_vec(),
            })
            .collect());
    }
    args.values
        .iter()
        .map(|v| {
            let (column, target) = match v.split_once('=') {
                Some((c, t)) => (c, Some(t)),
                None => (v.as_str(), None),
            };
            if !columns.iter().any(|c| c == column) {
                return Err(format!("--value {v}: the input has no column `{column}`"));
            }
            let (family, qualifier) = match target {
                None => (args.family.as_str(), column),
                Some(t) => t
                    .split_once(':')
                    .ok_or_else(|| format!("--value {v}: not COLUMN=FAMILY:QUALIFIER"))?,
            };
            Ok(ValueColumn {
                column: column.to_string(),
                family: family.to_string(),
                qualifier: qualifier.as_bytes().to_vec(),
            })
        })
        .collect()
}

/// The key of one input row from its fields' texts.
fn key(layout: &DynLayout, fields: &[&str], texts: &[&str], line: u64) -> Result<Vec<u8>, String> {
    let values: Vec<Value> = fields
        .iter()
        .zip(texts)
        .map(|(f, t)| layout.value(f, t).map_err(|e| format!("line {line}: {e}")))
        .collect::<Result<_, _>>()?;
    layout
        .encode(&values)
        .map_err(|e| format!("line {line}: {e}"))
}

/// Puts a row; a row without value columns gets one empty cell (the
/// family's empty qualifier), as HBase keeps no row without a cell.
fn put(
    load: &mut BulkLoad,
    key: &[u8],
    cells: &[Cell],
    family: &str,
    line: u64,
) -> Result<(), String> {
    let empty;
    let cells = if cells.is_empty() {
        empty = [(family.to_string(), Vec::new(), Vec::new())];
        &empty[..]
    } else {
        cells
    };
    load.put_raw_row(key, cells)
        .map_err(|e| format!("line {line}: {e}"))
}

fn read_csv(
    layout: &DynLayout,
    fields: &[&str],
    args: &BulkloadArgs,
    input: impl Read,
    load: &mut BulkLoad,
) -> Result<u64, String> {
    let mut reader = csv::Reader::from_reader(input);
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| format!("--input {}: {e}", args.input.display()))?
        .iter()
        .map(str::to_string)
        .collect();
    let key_at: Vec<usize> = fields
        .iter()
        .map(|f| {
            header.iter().position(|h| h == f).ok_or_else(|| {
                format!(
                    "--input {}: no column for the key field `{f}`",
                    args.input.display()
                )
            })
        })
        .collect::<Result<_, _>>()?;
    let values = value_columns(args, &header, fields)?;
    let value_at: Vec<usize> = values
        .iter()
        .map(|v| header.iter().position(|h| *h == v.column).unwrap_or(0))
        .collect();
    let mut record = csv::StringRecord::new();
    let mut rows = 0;
    let mut cells: Vec<Cell> = Vec::with_capacity(values.len());
    loop {
        let line = reader.position().line();
        match reader.read_record(&mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => return Err(format!("--input {}: {e}", args.input.display())),
        }
        let texts: Vec<&str> = key_at
            .iter()
            .map(|&i| record.get(i).unwrap_or(""))
            .collect();
        let key = key(layout, fields, &texts, line)?;
        cells.clear();
        for (v, &i) in values.iter().zip(&value_at) {
            let text = record.get(i).unwrap_or("");
            cells.push((
                v.family.clone(),
                v.qualifier.clone(),
                text.as_bytes().to_vec(),
            ));
        }
        put(load, &key, &cells, &args.family, line)?;
        rows += 1;
    }
    Ok(rows)
}

fn read_jsonl(
    layout: &DynLayout,
    fields: &[&str],
    args: &BulkloadArgs,
    input: impl BufRead,
    load: &mut BulkLoad,
) -> Result<u64, String> {
    let mut rows = 0;
    let mut cells: Vec<Cell> = Vec::new();
    for (n, line) in input.lines().enumerate() {
        let n = n as u64 + 1;
        let line = line.map_err(|e| format!("--input {}: {e}", args.input.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        let object: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&line).map_err(|e| format!("line {n}: not a JSON object: {e}"))?;
        let texts: Vec<String> = fields
            .iter()
            .map(|f| match object.get(*f) {
                None => Err(format!("line {n}: no member for the key field `{f}`")),
                Some(v) => Ok(json_text(v)),
            })
            .collect::<Result<_, _>>()?;
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let key = key(layout, fields, &texts, n)?;
        // The `--value`s are the same for every object (a member one of
        // them lacks is no cell); without them, each object's own members.
        let columns = if args.values.is_empty() {
            let names: Vec<String> = object.keys().cloned().collect();
            value_columns(args, &names, fields)?
        } else {
            let names: Vec<String> = args
                .values
                .iter()
                .map(|v| v.split_once('=').map_or(v.as_str(), |(c, _)| c).to_string())
                .collect();
            value_columns(args, &names, fields)?
        };
        cells.clear();
        for v in columns {
            let Some(value) = object.get(&v.column) else {
                continue;
            };
            if let Some(bytes) = json_bytes(value).map_err(|what| {
                format!(
                    "line {n}: member `{}` is {what}: a value is a string, a number or an array of bytes (0 to 255); null or absent is no cell",
                    v.column
                )
            })? {
                cells.push((v.family, v.qualifier, bytes));
            }
        }
        put(load, &key, &cells, &args.family, n)?;
        rows += 1;
    }
    Ok(rows)
}

/// A value member's cell bytes: a string's UTF-8, a number's JSON text, an
/// array of integers 0 to 255 as those bytes; `None` for `null` (no cell);
/// what any other value is, as the error.
fn json_bytes(v: &serde_json::Value) -> Result<Option<Vec<u8>>, &'static str> {
    match v {
        serde_json::Value::Null => Ok(None),
        serde_json::Value::String(s) => Ok(Some(s.as_bytes().to_vec())),
        serde_json::Value::Number(n) => Ok(Some(n.to_string().into_bytes())),
        serde_json::Value::Array(items) => items
            .iter()
            .map(|i| {
                i.as_u64()
                    .and_then(|b| u8::try_from(b).ok())
                    .ok_or("an array of other than bytes")
            })
            .collect::<Result<Vec<u8>, _>>()
            .map(Some),
        serde_json::Value::Bool(_) => Err("a boolean"),
        serde_json::Value::Object(_) => Err("an object"),
    }
}

/// A JSON key member as the text `encode` takes: strings as they are,
/// `null` as `None`, anything else as JSON.
fn json_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::from("None"),
        other => other.to_string(),
    }
}

fn print_summary(
    summary: &BulkSummary,
    rows: u64,
    dir: &Path,
    table: Option<&str>,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(
        out,
        "{rows} input rows: {} rows, {} cells in {} files ({} bytes) under {}; {} sorted runs spilled",
        summary.rows,
        summary.cells,
        summary.files.len(),
        summary.bytes,
        dir.display(),
        summary.spills
    )?;
    for r in &summary.regions {
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
    writeln!(
        out,
        "load them with: hbase completebulkload {} {}",
        dir.display(),
        table.unwrap_or("TABLE")
    )
}
