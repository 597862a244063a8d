//! `rowkey`: a key layout given as its one-line text (what `T::LAYOUT`
//! prints), used without Rust code.
//!
//! ```text
//! rowkey explain --layout SPEC KEY...         # each part of a key, as T::explain prints it
//! rowkey encode  --layout SPEC field=value... # the key, in HBase shell form and hex
//! rowkey decode  --layout SPEC KEY...         # field=value per field
//! rowkey scan    --layout SPEC field=value... [field=LO..HI]
//! rowkey splits  --layout SPEC [--hbase-create TABLE FAMILY]
//! ```
//!
//! `SPEC` is the layout's text, or `@FILE` holding it or its JSON (as
//! `T::LAYOUT.to_json()` writes it). A `KEY` is HBase's
//! `toStringBinary` form (`\x00` escapes, in double quotes or not, as the
//! HBase shell prints keys), or hex with `--hex`; without any, one key per
//! line of standard input. Every error exits with status 2 and names the
//! argument it is about.

use std::io::{self, BufRead, Write};
use std::ops::Bound;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use rowkey_core::{DynLayout, Value};

/// Row keys of a layout given as text.
#[derive(Parser)]
#[command(name = "rowkey", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
    #[arg(long)]
    hex: bool,
}

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
    /// Where a table of these keys should be split (one region per bucket).
    Splits {
        #[command(flatten)]
        layout: LayoutArg,
        /// Print the HBase shell statement that creates the table pre-split.
        #[arg(long, num_args = 2, value_names = ["TABLE", "FAMILY"])]
        hbase_create: Option<Vec<String>>,
    },
}

/// An error for the user: what is wrong, naming the argument.
struct Fail(String);

impl<E: std::fmt::Display> From<E> for Fail {
    fn from(e: E) -> Fail {
        Fail(e.to_string())
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut out = io::stdout().lock();
    match run(cli.command, &mut out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail(msg)) => {
            let _ = out.flush();
            eprintln!("rowkey: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run(command: Command, out: &mut dyn Write) -> Result<(), Fail> {
    match command {
        Command::Explain { layout, keys } => {
            let layout = load(&layout.layout)?;
            for (_, key) in read_keys(&keys)? {
                writeln!(out, "{}", layout.explain(&key[..]))?;
            }
        }
        Command::Encode { layout, values } => {
            let layout = load(&layout.layout)?;
            let values = all_values(&layout, &values)?;
            let key = layout
                .encode(&values)
                .map_err(|e| Fail(format!("cannot encode the key: {e}")))?;
            writeln!(out, "{}", shell(&key))?;
            writeln!(out, "{}", hex(&key))?;
        }
        Command::Decode { layout, keys } => {
            let layout = load(&layout.layout)?;
            for (arg, key) in read_keys(&keys)? {
                let values = layout
                    .decode(&key)
                    .map_err(|e| Fail(format!("key `{arg}`: {e}")))?;
                // A key family's key: its member's fields, after its name.
                let (of, member) = match layout.member_of(&key) {
                    Some(m) => (m, format!("{}: ", m.layout().name())),
                    None => (&layout, String::new()),
                };
                let fields: Vec<String> = of
                    .field_names()
                    .zip(&values)
                    .map(|(n, v)| format!("{n}={}", show(v)))
                    .collect();
                writeln!(out, "{member}{}", fields.join(" "))?;
            }
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
                .map_err(|e| Fail(format!("cannot encode the scan: {e}")))?;
            for r in scan.ranges() {
                let stop = if r.stop().is_empty() {
                    String::new()
                } else {
                    format!(", STOPROW => {}", shell(r.stop()))
                };
                match &table {
                    Some(t) => writeln!(
                        out,
                        "scan {}, {{STARTROW => {}{stop}}}",
                        quote(t),
                        shell(r.start())
                    )?,
                    None => writeln!(out, "STARTROW => {}{stop}", shell(r.start()))?,
                }
            }
        }
        Command::Splits {
            layout,
            hbase_create,
        } => {
            let layout = load(&layout.layout)?;
            let splits = layout.split_points();
            match hbase_create.as_deref() {
                Some([table, family]) => {
                    let list: Vec<String> = splits.iter().map(|s| shell(s)).collect();
                    if list.is_empty() {
                        writeln!(out, "create {}, {}", quote(table), quote(family))?;
                    } else {
                        writeln!(
                            out,
                            "create {}, {}, SPLITS => [{}]",
                            quote(table),
                            quote(family),
                            list.join(", ")
                        )?;
                    }
                }
                _ => {
                    for s in &splits {
                        writeln!(out, "{}", shell(s))?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// The layout of `--layout`: the text, or `@FILE`.
fn load(spec: &str) -> Result<DynLayout, Fail> {
    let (text, from) = match spec.strip_prefix('@') {
        Some(path) => (
            std::fs::read_to_string(path)
                .map_err(|e| Fail(format!("--layout {spec}: cannot read {path}: {e}")))?,
            format!("--layout {spec}"),
        ),
        None => (spec.to_owned(), "--layout".to_owned()),
    };
    let text = text.trim();
    // JSON as `T::LAYOUT.to_json()` writes it, or the one-line text.
    let layout = if text.starts_with('{') {
        DynLayout::from_json(text)
    } else {
        DynLayout::parse(text)
    };
    layout.map_err(|e| Fail(format!("{from}: {e}")))
}

/// The keys of the arguments, or of standard input: each with its text.
fn read_keys(keys: &KeysArg) -> Result<Vec<(String, Vec<u8>)>, Fail> {
    let texts: Vec<String> = if keys.keys.is_empty() {
        let mut lines = Vec::new();
        for line in io::stdin().lock().lines() {
            let line = line?;
            if !line.trim().is_empty() {
                lines.push(line.trim().to_owned());
            }
        }
        lines
    } else {
        keys.keys.clone()
    };
    texts
        .into_iter()
        .map(|t| {
            let key = parse_key(&t, keys.hex).map_err(|e| Fail(format!("key `{t}`: {e}")))?;
            Ok((t, key))
        })
        .collect()
}

fn parse_key(text: &str, is_hex: bool) -> Result<Vec<u8>, String> {
    if is_hex {
        let h: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        if h.len() % 2 != 0 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err("not hex (an even number of 0-9, a-f)".into());
        }
        return Ok((0..h.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap_or_default())
            .collect());
    }
    let unquoted = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(text);
    rowkey_core::hbase::from_string_binary(unquoted).map_err(|e| e.to_string())
}

/// `field=value`, split.
fn pair(arg: &str) -> Result<(&str, &str), Fail> {
    arg.split_once('=')
        .ok_or_else(|| Fail(format!("argument `{arg}`: expected FIELD=VALUE")))
}

/// One value per field, from `field=value` arguments in any order.
fn all_values(layout: &DynLayout, args: &[String]) -> Result<Vec<Value>, Fail> {
    let names: Vec<&str> = layout.field_names().collect();
    let mut values: Vec<Option<Value>> = vec![None; names.len()];
    for arg in args {
        let (name, text) = pair(arg)?;
        let i = layout
            .field_index(name)
            .map_err(|e| Fail(format!("argument `{arg}`: {e}")))?;
        if values[i].is_some() {
            return Err(Fail(format!("argument `{arg}`: `{name}` given twice")));
        }
        let v = layout
            .value(name, text)
            .map_err(|e| Fail(format!("argument `{arg}`: {e}")))?;
        values[i] = Some(v);
    }
    let missing: Vec<&str> = names
        .iter()
        .zip(&values)
        .filter(|(_, v)| v.is_none())
        .map(|(n, _)| *n)
        .collect();
    if !missing.is_empty() {
        return Err(Fail(format!("no value for {}", missing.join(", "))));
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
            .map_err(|e| Fail(format!("argument `{arg}`: {e}")))?;
        if range.is_some() {
            return Err(Fail(format!(
                "argument `{arg}`: nothing may follow the range"
            )));
        }
        if i != leading.len() {
            let expected = names.get(leading.len()).copied().unwrap_or("none");
            return Err(Fail(format!(
                "argument `{arg}`: the scan's fields are the leading ones in key order; the next is `{expected}`"
            )));
        }
        let value = |t: &str| {
            layout
                .value(name, t)
                .map_err(|e| Fail(format!("argument `{arg}`: {e}")))
        };
        if let Some((lo, hi)) = text.split_once("..") {
            let (hi, inclusive) = match hi.strip_prefix('=') {
                Some(h) => (h, true),
                None => (hi, false),
            };
            let lo = if lo.is_empty() {
                Bound::Unbounded
            } else {
                Bound::Included(value(lo)?)
            };
            let hi = match (hi.is_empty(), inclusive) {
                (true, false) => Bound::Unbounded,
                (true, true) => {
                    return Err(Fail(format!("argument `{arg}`: `..=` needs an end")));
                }
                (false, true) => Bound::Included(value(hi)?),
                (false, false) => Bound::Excluded(value(hi)?),
            };
            range = Some((lo, hi));
        } else {
            leading.push(value(text)?);
        }
    }
    Ok((leading, range))
}

/// A value as `field=value` prints it (the form `encode` reads back).
fn show(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        Value::Bytes(b) => rowkey_core::hbase::to_string_binary(b),
        Value::Option(Some(v)) => show(v),
        v => v.to_string(),
    }
}

/// Bytes as a double-quoted string of the HBase shell (Ruby): printable
/// ASCII as itself, every other byte and `"`, `\`, `#` as `\xNN`.
fn shell(bytes: &[u8]) -> String {
    let mut s = String::from("\"");
    for &b in bytes {
        if (0x20..0x7F).contains(&b) && !matches!(b, b'"' | b'\\' | b'#') {
            s.push(b as char);
        } else {
            s.push_str(&format!("\\x{b:02X}"));
        }
    }
    s.push('"');
    s
}

/// A name in single quotes for the HBase shell.
fn quote(name: &str) -> String {
    format!("'{}'", name.replace('\\', "\\\\").replace('\'', "\\'"))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
