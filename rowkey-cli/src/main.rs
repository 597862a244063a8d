//! `rowkey`: a key layout given as its one-line text (what `T::LAYOUT`
//! prints), used without Rust code.
//!
//! ```text
//! rowkey explain --layout SPEC KEY...         # each part of a key, as T::explain prints it
//! rowkey encode  --layout SPEC field=value... # the key, in HBase shell form and hex
//! rowkey decode  --layout SPEC KEY...         # field=value per field
//! rowkey scan    --layout SPEC field=value... [field=LO..HI]
//! rowkey splits  --layout SPEC [--hbase-create TABLE FAMILY]
//! rowkey bulkload --layout SPEC --input FILE|DIR|GLOB|- --out DIR (--split-points | --regions ADDRESS TABLE) [--index SPEC ...] [--workers N] [--worker I/N]
//! rowkey bulkload commit --out DIR --table TABLE --hbase hbase://MASTER:PORT
//! rowkey migrate plan|run|verify --from SPEC --to SPEC [--set field=value]... [--redb FILE | --fjall DIR] [--table OLD --to-table NEW]
//! rowkey gen python|go|java --layout SPEC --name NAME --package PKG --out DIR [--hbase | --bigtable]
//! rowkey sql --layout SPEC --table NAME (--redb FILE | --fjall DIR | --hbase ADDRESS | --bigtable URI,PROJECT,INSTANCE) [--value NAME=[FAMILY:QUALIFIER:]TYPE]... [--format table|csv|json|parquet] [QUERY]
//! ```
//!
//! The guide's chapter "Layouts as data and the `rowkey` command" (the
//! book in `docs/` of rowkey's repository: `mdbook serve docs`) shows each
//! command at work.
//!
//! `SPEC` is the layout's text, or `@FILE` holding it or its JSON (as
//! `T::LAYOUT.to_json()` writes it). A `KEY` is HBase's `toStringBinary`
//! form (`\x00` escapes; every other character, a space or a `"`, is a
//! byte of the key), in double quotes as the HBase shell prints keys with
//! `--quoted`, or hex with `--hex`; without any, one key per line of
//! standard input, each line's bytes but its line ending.
//!
//! `decode` and `explain` print each key's line as they read it; a key
//! that does not decode is reported on standard error with its line
//! number (or argument) and the others go on. Exit status: 0 when every
//! key was good, 1 when some were not, 2 for a usage error (a bad layout
//! or argument), which names the argument. A closed output (`| head`) ends
//! the command quietly.
//!
//! Values print as [`Value`]'s `Display` writes them, which `encode` and
//! `scan` read back: strings in double quotes with Rust's escapes (`"None"`
//! is a string, `None` an `Option`'s none), bytes as `b"..."`; `--json`
//! prints one JSON object per key for scripts.

use std::io::{self, BufRead, Write};
use std::ops::Bound;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use rowkey_core::error_chain as chain;

mod bulkload;
mod migrate;
mod spec;
mod sql;
use rowkey_core::dynamic::Condition;
use rowkey_core::hbase::{ruby_bytes, ruby_name};
use rowkey_core::{DynLayout, Value};

/// Row keys of a layout given as text.
#[derive(Parser)]
#[command(name = "rowkey", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// `rowkey bulkload`'s own subcommand.
#[derive(Subcommand)]
enum BulkloadCommand {
    /// Loads the HFiles of a load (every worker's `part-*` directory)
    /// into a table through its region servers, splitting a file that
    /// crosses a region boundary; safe to run again after a failure
    /// (HBase moves what it loaded, so a second run loads what is left).
    Commit(bulkload::CommitArgs),
}

#[derive(clap::Args)]
struct LayoutArg {
    /// The layout: its one-line text (`[salt(user_id)/16][user_id u64]...`)
    /// or `@FILE` holding it or its JSON (`T::LAYOUT.to_json()`).
    #[arg(long, short = 'l', value_name = "SPEC")]
    layout: String,
}

#[derive(clap::Args)]
struct KeysArg {
    /// Keys in HBase's toStringBinary form (quoted or not); one per line on
    /// standard input when none is given.
    #[arg(value_name = "KEY")]
    keys: Vec<String>,
    /// The keys are hex (`0a1b...`).
    #[arg(long, conflicts_with = "quoted")]
    hex: bool,
    /// The keys are in double quotes, as the HBase shell prints them (the
    /// quotes are removed, and required).
    #[arg(long)]
    quoted: bool,
}

// One command is parsed once per run: its size does not matter (and clap
// cannot flatten an `Option<Box<Args>>`).
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Each part of each key: offsets, bytes and value, or where it stops.
    Explain {
        #[command(flatten)]
        layout: LayoutArg,
        #[command(flatten)]
        keys: KeysArg,
    },
    /// The key of `field=value` arguments (every field, in any order).
    Encode {
        #[command(flatten)]
        layout: LayoutArg,
        /// `field=value`: a number, true/false, a string, bytes as
        /// toStringBinary text, `None` for an Option field's None.
        #[arg(value_name = "FIELD=VALUE", required = true)]
        values: Vec<String>,
    },
    /// The fields of each key, as `field=value`.
    Decode {
        #[command(flatten)]
        layout: LayoutArg,
        #[command(flatten)]
        keys: KeysArg,
        /// One JSON object per key: `{"key": ..., "member": ..., "fields":
        /// {...}}` (integers as numbers, strings and `toStringBinary`
        /// bytes as strings, `None` as null).
        #[arg(long)]
        json: bool,
    },
    /// The start and stop rows of a scan, one pair per salt bucket: the
    /// leading fields' values, then optionally a range of the next field.
    Scan {
        #[command(flatten)]
        layout: LayoutArg,
        /// `field=value` for the leading fields, in key order, then at most
        /// one `field=LO..HI` (`LO..=HI`, `LO..`, `..HI`) on the next field.
        #[arg(value_name = "FIELD=VALUE")]
        values: Vec<String>,
        /// The table, to print whole HBase shell `scan` commands.
        #[arg(long, value_name = "TABLE")]
        table: Option<String>,
    },
    /// Where a table of these keys should be split: one region per salt
    /// bucket; for a key family, a boundary at each member's prefix too.
    Splits {
        #[command(flatten)]
        layout: LayoutArg,
        /// Print the HBase shell statement that creates the table pre-split.
        #[arg(long, num_args = 2, value_names = ["TABLE", "FAMILY"], conflicts_with = "hbase_split")]
        hbase_create: Option<Vec<String>>,
        /// Print HBase shell `split` statements that pre-split an existing
        /// table (for a member added later: with `--member`).
        #[arg(long, value_name = "TABLE")]
        hbase_split: Option<String>,
        /// Only this member of a key family: its prefix and its own split
        /// points (a member added to a table that holds the others).
        #[arg(long, value_name = "NAME")]
        member: Option<String>,
    },
    /// Rows of CSV, JSON-lines or Parquet files written as HFiles, one per
    /// region and family, for HBase's bulk load: the key from the columns
    /// named as its fields, a cell per other column. `rowkey bulkload
    /// commit` then loads them through the region servers.
    #[command(args_conflicts_with_subcommands = true)]
    Bulkload {
        #[command(subcommand)]
        commit: Option<BulkloadCommand>,
        #[command(flatten)]
        layout: Option<LayoutArg>,
        #[command(flatten)]
        args: Option<bulkload::BulkloadArgs>,
    },
    /// A table moved from one key layout to another while it is in use:
    /// `plan` (the layouts side by side, split points, rows to move),
    /// `run` (the copy, resumable), `verify` (both tables compared).
    Migrate {
        #[command(subcommand)]
        step: migrate::Step,
    },
    /// Typed keys of the layout in another language, byte for byte the
    /// derive's (`rowkey_codegen`): writes the files under `--out` and
    /// prints their paths. A layout the language's generator does not
    /// write yet is refused, naming the field.
    Gen {
        /// The language: `python` (a module `PKG.py` with a frozen
        /// dataclass `NAME`; an XXH3 salt needs the `xxhash` package) or
        /// `go` (package `PKG`: `name.go` and `rowkey_helpers.go`; an XXH3
        /// salt needs `github.com/zeebo/xxh3`) or `java` (a record `NAME`
        /// in `PKG/NAME.java` and `PKG/RowkeyHelpers.java`; an XXH3 salt
        /// needs `net.openhft:zero-allocation-hashing`).
        #[arg(value_name = "LANGUAGE", value_parser = ["python", "go", "java"])]
        language: String,
        #[command(flatten)]
        layout: LayoutArg,
        /// The type's name.
        #[arg(long)]
        name: String,
        /// The package or module.
        #[arg(long)]
        package: String,
        /// The folder to write into (created if missing).
        #[arg(long, value_name = "DIR")]
        out: std::path::PathBuf,
        /// Java: also `NAMEHBase.java`, the scans as HBase client `Scan`s
        /// (needs `org.apache.hadoop.hbase:hbase-client`).
        #[arg(long)]
        hbase: bool,
        /// Go: also `name_bigtable.go` and `rowkey_bigtable.go`, the scans
        /// as `bigtable.RowRangeList`s of Google's Go client (needs
        /// `cloud.google.com/go/bigtable`).
        #[arg(long)]
        bigtable: bool,
    },
    /// SQL over one table of the layout: its key fields as columns, key
    /// predicates pushed down as rowkey's scans (DataFusion).
    Sql(sql::SqlArgs),
}

/// Why the command stops early.
enum Fail {
    /// A usage error for the user: what is wrong, naming the argument.
    Usage(String),
    /// The output was closed (`| head`): stop quietly.
    Closed,
    /// The work failed (a bulk load's input row, its files): what and
    /// where.
    Failed(String),
}

impl From<io::Error> for Fail {
    fn from(e: io::Error) -> Fail {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Fail::Closed
        } else {
            Fail::Usage(format!("cannot read or write: {}", chain(&e)))
        }
    }
}

/// A usage error.
fn usage(msg: String) -> Fail {
    Fail::Usage(msg)
}

/// Whether every key read was good.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keys {
    AllGood,
    SomeBad,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut out = io::stdout().lock();
    match run(cli.command, &mut out).and_then(|keys| Ok((keys, out.flush()?))) {
        Ok((Keys::AllGood, ())) => ExitCode::SUCCESS,
        Ok((Keys::SomeBad, ())) => ExitCode::from(1),
        Err(Fail::Closed) => ExitCode::SUCCESS,
        Err(Fail::Usage(msg)) => {
            let _ = out.flush();
            eprintln!("rowkey: {msg}");
            ExitCode::from(2)
        }
        Err(Fail::Failed(msg)) => {
            let _ = out.flush();
            eprintln!("rowkey: {msg}");
            ExitCode::from(1)
        }
    }
}

fn run(command: Command, out: &mut dyn Write) -> Result<Keys, Fail> {
    match command {
        Command::Explain { layout, keys } => {
            let layout = load(&layout.layout)?;
            return each_key(&keys, |key| {
                writeln!(out, "{}", layout.explain(key))?;
                Ok(Ok(()))
            });
        }
        Command::Encode { layout, values } => {
            let layout = load(&layout.layout)?;
            let values = all_values(&layout, &values)?;
            let key = layout
                .encode(&values)
                .map_err(|e| usage(format!("cannot encode the key: {}", chain(&e))))?;
            writeln!(out, "{}", ruby_bytes(&key))?;
            writeln!(out, "{}", hex(&key))?;
        }
        Command::Decode { layout, keys, json } => {
            let layout = load(&layout.layout)?;
            return each_key(&keys, |key| {
                let values = match layout.decode(key) {
                    Ok(values) => values,
                    Err(e) => return Ok(Err(chain(&e))),
                };
                // A key family's key: its member's fields, after its name.
                let member = layout.member_of(key);
                let of = member.unwrap_or(&layout);
                let names = of.field_names();
                if json {
                    let fields: Vec<String> = names
                        .zip(&values)
                        .map(|(n, v)| format!("{}: {}", json_string(n), json_value(v)))
                        .collect();
                    let member = member
                        .map_or_else(|| String::from("null"), |m| json_string(m.layout().name()));
                    writeln!(
                        out,
                        "{{\"key\": {}, \"member\": {member}, \"fields\": {{{}}}}}",
                        json_string(&rowkey_core::hbase::to_string_binary(key)),
                        fields.join(", ")
                    )?;
                } else {
                    let fields: Vec<String> = names
                        .zip(&values)
                        .map(|(n, v)| format!("{n}={v}"))
                        .collect();
                    let member =
                        member.map_or_else(String::new, |m| format!("{}: ", m.layout().name()));
                    writeln!(out, "{member}{}", fields.join(" "))?;
                }
                Ok(Ok(()))
            });
        }
        Command::Scan {
            layout,
            values,
            table,
        } => {
            let layout = load(&layout.layout)?;
            let (leading, range) = scan_args(&layout, &values)?;
            let scan = layout
                .scan(&leading, range)
                .map_err(|e| usage(format!("cannot encode the scan: {}", chain(&e))))?;
            for r in scan.ranges() {
                let stop = if r.stop().is_empty() {
                    String::new()
                } else {
                    format!(", STOPROW => {}", ruby_bytes(r.stop()))
                };
                match &table {
                    Some(t) => writeln!(
                        out,
                        "scan {}, {{STARTROW => {}{stop}}}",
                        ruby_name(t),
                        ruby_bytes(r.start())
                    )?,
                    None => writeln!(out, "STARTROW => {}{stop}", ruby_bytes(r.start()))?,
                }
            }
        }
        Command::Bulkload {
            commit,
            layout,
            args,
        } => {
            let stopped = |stop| match stop {
                bulkload::Stop::Usage(msg) => Fail::Usage(msg),
                bulkload::Stop::Failed(msg) => Fail::Failed(msg),
            };
            match (commit, layout, args) {
                (Some(BulkloadCommand::Commit(c)), _, _) => {
                    bulkload::commit(&c, out).map_err(stopped)?;
                }
                (None, Some(layout), Some(args)) => {
                    let layout = load(&layout.layout)?;
                    bulkload::run(&layout, &args, out).map_err(stopped)?;
                }
                _ => {
                    return Err(Fail::Usage(
                        "bulkload: give --layout, --input, --out and where to cut the files, or `bulkload commit`"
                            .into(),
                    ))
                }
            }
        }
        Command::Gen {
            language,
            layout,
            name,
            package,
            out: dir,
            hbase,
            bigtable,
        } => {
            let layout = load(&layout.layout)?;
            let language = match language.as_str() {
                "python" => rowkey_codegen::Language::Python,
                "go" => rowkey_codegen::Language::Go,
                "java" => rowkey_codegen::Language::Java,
                other => return Err(usage(format!("gen: no generator for `{other}`"))),
            };
            let options = rowkey_codegen::Options::default()
                .hbase(hbase)
                .bigtable(bigtable);
            let files =
                rowkey_codegen::generate_with(layout.layout(), language, &name, &package, options)
                    .map_err(|e| usage(format!("gen: {}", chain(&e))))?;
            for f in files {
                // Every file inside --out: a generated path is relative and
                // of plain names (the generators check their names; this
                // holds whatever they write).
                let inside = std::path::Path::new(&f.path)
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)));
                if !inside {
                    return Err(Fail::Failed(format!(
                        "gen: `{}` is not a path inside --out",
                        f.path
                    )));
                }
                let path = dir.join(&f.path);
                // The output folder, and a Java package's folders in it.
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|e| Fail::Failed(format!("--out {}: {e}", parent.display())))?;
                }
                std::fs::write(&path, f.contents)
                    .map_err(|e| Fail::Failed(format!("{}: {e}", path.display())))?;
                writeln!(out, "{}", path.display())?;
            }
        }
        Command::Sql(args) => match sql::run(args, out) {
            Ok(()) => {}
            Err(sql::Stop::Usage(msg)) => return Err(Fail::Usage(msg)),
            Err(sql::Stop::Failed(msg)) => return Err(Fail::Failed(msg)),
            Err(sql::Stop::Io(e)) => return Err(e.into()),
        },
        Command::Migrate { step } => {
            return match migrate::run(step, out) {
                Ok(true) => Ok(Keys::AllGood),
                Ok(false) => Ok(Keys::SomeBad),
                Err(migrate::Stop::Usage(msg)) => Err(Fail::Usage(msg)),
                Err(migrate::Stop::Failed(msg)) => Err(Fail::Failed(msg)),
                Err(migrate::Stop::Io(e)) => Err(e.into()),
            }
        }
        Command::Splits {
            layout,
            hbase_create,
            hbase_split,
            member,
        } => {
            let layout = load(&layout.layout)?;
            let splits = match &member {
                None => layout.split_points(),
                Some(name) => {
                    let m = layout.member(name).ok_or_else(|| {
                        let names: Vec<&str> =
                            layout.members().iter().map(|m| m.layout().name()).collect();
                        usage(format!(
                            "--member {name}: no such member; the family's members are {}",
                            if names.is_empty() {
                                "none (not a key family)".to_owned()
                            } else {
                                names.join(", ")
                            }
                        ))
                    })?;
                    let mut points = vec![m.layout().prefix().to_vec()];
                    points.extend(m.split_points());
                    points
                }
            };
            if let Some([table, family]) = hbase_create.as_deref() {
                writeln!(
                    out,
                    "{}",
                    rowkey_core::hbase::create_table_statement(table, &[family], &splits)
                )?;
            } else if let Some(table) = &hbase_split {
                for line in rowkey_core::hbase::split_statements(table, &splits) {
                    writeln!(out, "{line}")?;
                }
            } else {
                for s in &splits {
                    writeln!(out, "{}", rowkey_core::hbase::shell_key(s))?;
                }
            }
        }
    }
    Ok(Keys::AllGood)
}

/// Runs `one` on each key of the arguments or of standard input, as it is
/// read: a key that is not readable, or that `one` refuses (`Ok(Err)`), is
/// reported on standard error with its line number or argument, and the
/// others go on.
fn each_key(
    keys: &KeysArg,
    mut one: impl FnMut(&[u8]) -> Result<Result<(), String>, Fail>,
) -> Result<Keys, Fail> {
    let mut status = Keys::AllGood;
    let mut check = |at: String, text: &[u8]| -> Result<(), Fail> {
        let result = match parse_key(text, keys) {
            Ok(key) => one(&key)?,
            Err(e) => Err(e),
        };
        if let Err(e) = result {
            status = Keys::SomeBad;
            eprintln!("rowkey: {at}: {e}");
        }
        Ok(())
    };
    if keys.keys.is_empty() {
        let mut stdin = io::stdin().lock();
        let mut line = Vec::new();
        let mut number = 0;
        loop {
            line.clear();
            if stdin.read_until(b'\n', &mut line)? == 0 {
                break;
            }
            number += 1;
            // Only the line ending goes: every other byte is the key's.
            if line.last() == Some(&b'\n') {
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
            }
            check(format!("line {number}"), &line)?;
        }
    } else {
        for k in &keys.keys {
            check(format!("key `{k}`"), k.as_bytes())?;
        }
    }
    Ok(status)
}

/// A JSON string.
fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A value as JSON: integers and booleans as themselves, floats as
/// numbers (or strings when not finite), strings and chars as strings,
/// bytes as their `toStringBinary` string, `None` as null.
fn json_value(v: &Value) -> String {
    match v {
        Value::Str(s) => json_string(s),
        Value::Char(c) => json_string(c.encode_utf8(&mut [0; 4])),
        Value::Bytes(b) => json_string(&rowkey_core::hbase::to_string_binary(b)),
        Value::Option(None) => String::from("null"),
        Value::Option(Some(v)) => json_value(v),
        Value::F32(f) if !f.is_finite() => json_string(&f.to_string()),
        Value::F64(f) if !f.is_finite() => json_string(&f.to_string()),
        v => v.to_string(),
    }
}

/// The layout of `--layout`: the text, or `@FILE`.
fn load(spec: &str) -> Result<DynLayout, Fail> {
    spec::layout("--layout", spec).map_err(Fail::Usage)
}

/// A key's bytes from its text: hex with `--hex`; else `toStringBinary`,
/// in double quotes with `--quoted`.
fn parse_key(text: &[u8], keys: &KeysArg) -> Result<Vec<u8>, String> {
    let text = std::str::from_utf8(text).map_err(|_| {
        String::from("not UTF-8: a key is toStringBinary text (\\xNN for a byte) or hex")
    })?;
    if keys.hex {
        if text.len() % 2 != 0 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err("not hex (an even number of 0-9, a-f)".into());
        }
        return Ok((0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap_or_default())
            .collect());
    }
    let text = if keys.quoted {
        text.strip_prefix('"')
            .and_then(|t| t.strip_suffix('"'))
            .ok_or("not in double quotes (--quoted)")?
    } else {
        text
    };
    rowkey_core::hbase::from_string_binary(text).map_err(|e| chain(&e))
}

/// `field=value`, split.
fn pair(arg: &str) -> Result<(&str, &str), Fail> {
    spec::pair(arg).map_err(Fail::Usage)
}

/// One value per field, from `field=value` arguments in any order.
fn all_values(layout: &DynLayout, args: &[String]) -> Result<Vec<Value>, Fail> {
    let names: Vec<&str> = layout.field_names().collect();
    let mut values: Vec<Option<Value>> = vec![None; names.len()];
    for arg in args {
        let (name, text) = pair(arg)?;
        let i = layout
            .field_index(name)
            .map_err(|e| usage(format!("argument `{arg}`: {}", chain(&e))))?;
        if values[i].is_some() {
            return Err(usage(format!("argument `{arg}`: `{name}` given twice")));
        }
        let v = layout
            .value(name, text)
            .map_err(|e| usage(format!("argument `{arg}`: {}", chain(&e))))?;
        values[i] = Some(v);
    }
    let missing: Vec<&str> = names
        .iter()
        .zip(&values)
        .filter(|(_, v)| v.is_none())
        .map(|(n, _)| *n)
        .collect();
    if !missing.is_empty() {
        return Err(usage(format!("no value for {}", missing.join(", "))));
    }
    Ok(values.into_iter().flatten().collect())
}

type ScanArgs = (Vec<Value>, Option<(Bound<Value>, Bound<Value>)>);

/// The leading values and the range of `scan`'s arguments.
fn scan_args(layout: &DynLayout, args: &[String]) -> Result<ScanArgs, Fail> {
    let names: Vec<&str> = layout.field_names().collect();
    let mut leading = Vec::new();
    let mut range = None;
    for arg in args {
        let (name, text) = pair(arg)?;
        let i = layout
            .field_index(name)
            .map_err(|e| usage(format!("argument `{arg}`: {}", chain(&e))))?;
        if range.is_some() {
            return Err(usage(format!(
                "argument `{arg}`: nothing may follow the range"
            )));
        }
        if i != leading.len() {
            let expected = names.get(leading.len()).copied().unwrap_or("none");
            return Err(usage(format!(
                "argument `{arg}`: the scan's fields are the leading ones in key order; the next is `{expected}`"
            )));
        }
        match layout
            .condition(name, text)
            .map_err(|e| usage(format!("argument `{arg}`: {}", chain(&e))))?
        {
            Condition::Range(lo, hi) => range = Some((lo, hi)),
            Condition::Eq(v) => leading.push(v),
        }
    }
    Ok((leading, range))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
