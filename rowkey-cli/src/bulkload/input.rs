//! What `rowkey bulkload` reads: files, directories, globs and standard
//! input, cut into shares (a text file whole, a Parquet file's row
//! groups one by one), and the readers that turn each share's rows into
//! keys and cells.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use rowkey_core::error_chain as chain;
use rowkey_core::{DynLayout, Value};
use rowkey_hbase::bulk::{BadRow, ColumnIndex, ColumnMap};
use rowkey_hbase::Cell;

use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ProjectionMask;

/// An input's format.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub(crate) enum Format {
    /// A header line, then one row per line.
    Csv,
    /// One JSON object per line.
    Jsonl,
    /// Apache Parquet (columns by name; row groups shared among workers).
    Parquet,
}

/// One input: a file, or standard input (`None`).
#[derive(Debug)]
pub(super) struct Input {
    pub(super) path: Option<PathBuf>,
    pub(super) format: Format,
}

impl Input {
    /// The input's name in messages: its path, or `-`.
    pub(super) fn name(&self) -> String {
        self.path
            .as_ref()
            .map_or_else(|| String::from("-"), |p| p.display().to_string())
    }
}

/// One share of the input, taken by one sorter: a text file whole, or
/// one row group of a Parquet file.
#[derive(Debug, Clone, Copy)]
pub(super) struct Share {
    /// Its input, an index into the inputs.
    pub(super) input: usize,
    /// A Parquet file's row group, and the file's row number of its
    /// first row (1-based).
    pub(super) row_group: Option<(usize, u64)>,
    /// Its size in bytes (compressed, for a row group), for progress.
    pub(super) bytes: u64,
}

/// The inputs `--input` names, in order: `-` is standard input; a
/// directory, its files (not hidden, not starting with `_`, as Hadoop's
/// readers skip them) sorted; a pattern with `*`, `?` or `[`, the files
/// it matches sorted; anything else, a file. Each file's format is
/// `format`, or its name's (`.csv`, `.jsonl`/`.json`, `.parquet`/`.parq`).
pub(super) fn inputs(args: &[String], format: Option<Format>) -> Result<Vec<Input>, String> {
    let mut out = Vec::new();
    for arg in args {
        if arg == "-" {
            let format = format.ok_or("--input -: say its format with --format")?;
            if format == Format::Parquet {
                return Err(
                    "--input -: Parquet cannot be read from standard input (its footer comes last); give the file".into(),
                );
            }
            out.push(Input { path: None, format });
            continue;
        }
        let path = Path::new(arg);
        let files: Vec<PathBuf> = if path.is_dir() {
            let mut files = Vec::new();
            for entry in
                std::fs::read_dir(path).map_err(|e| format!("--input {arg}: {}", chain(&e)))?
            {
                let entry = entry.map_err(|e| format!("--input {arg}: {}", chain(&e)))?;
                let name = entry.file_name().to_string_lossy().into_owned();
                if entry.path().is_file() && !name.starts_with(['.', '_']) {
                    files.push(entry.path());
                }
            }
            if files.is_empty() {
                return Err(format!("--input {arg}: the directory has no files"));
            }
            files.sort();
            files
        } else if arg.contains(['*', '?', '[']) {
            let mut files = Vec::new();
            for entry in glob::glob(arg).map_err(|e| format!("--input {arg}: {}", chain(&e)))? {
                let p = entry.map_err(|e| format!("--input {arg}: {}", chain(&e)))?;
                if p.is_file() {
                    files.push(p);
                }
            }
            if files.is_empty() {
                return Err(format!("--input {arg}: no file matches"));
            }
            files.sort();
            files
        } else if path.is_file() {
            vec![path.to_path_buf()]
        } else {
            return Err(format!("--input {arg}: no such file or directory"));
        };
        for file in files {
            let format = match (format, file.extension().and_then(|e| e.to_str())) {
                (Some(f), _) => f,
                (None, Some("csv")) => Format::Csv,
                (None, Some("jsonl" | "json")) => Format::Jsonl,
                (None, Some("parquet" | "parq")) => Format::Parquet,
                _ => {
                    return Err(format!(
                        "--input {}: say its format with --format (csv, jsonl or parquet)",
                        file.display()
                    ))
                }
            };
            out.push(Input {
                path: Some(file),
                format,
            });
        }
    }
    Ok(out)
}

/// The inputs' shares, in order: a Parquet file's footer is read for its
/// row groups.
pub(super) fn shares(inputs: &[Input]) -> Result<Vec<Share>, String> {
    let mut out = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let Some(path) = &input.path else {
            out.push(Share {
                input: i,
                row_group: None,
                bytes: 0,
            });
            continue;
        };
        if input.format != Format::Parquet {
            let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
            out.push(Share {
                input: i,
                row_group: None,
                bytes,
            });
            continue;
        }
        let file = File::open(path).map_err(|e| format!("--input {}: {e}", path.display()))?;
        let builder = ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(|e| format!("--input {}: not a Parquet file: {e}", path.display()))?;
        let mut first = 1;
        for (g, group) in builder.metadata().row_groups().iter().enumerate() {
            out.push(Share {
                input: i,
                row_group: Some((g, first)),
                bytes: u64::try_from(group.compressed_size()).unwrap_or(0),
            });
            first += u64::try_from(group.num_rows()).unwrap_or(0);
        }
    }
    Ok(out)
}

/// Where a row is: its input and its line (text) or row (Parquet).
pub(super) struct Place<'a> {
    pub(super) input: &'a str,
    pub(super) line: Option<u64>,
    pub(super) row: Option<u64>,
}

/// Where the rows of a share go.
pub(super) trait Sink {
    /// Puts one row and its index entries; an error ends the load.
    fn put(
        &mut self,
        place: &Place<'_>,
        key: &[u8],
        cells: &[Cell],
        entries: &[Vec<u8>],
    ) -> Result<(), String>;
    /// Puts a batch's good rows; its bad ones are returned.
    fn put_batch(
        &mut self,
        batch: &arrow_array::RecordBatch,
        map: &ColumnMap,
    ) -> Result<Vec<BadRow>, String>;
    /// A bad row: its column (empty for the whole row) and why.
    fn bad(&mut self, place: &Place<'_>, column: &str, reason: &str) -> Result<(), String>;
    /// Bytes of input read.
    fn read(&mut self, bytes: u64);
}

/// How the rows of a text input become cells.
pub(super) struct Reading<'a> {
    pub(super) layout: &'a DynLayout,
    /// `--family`.
    pub(super) family: &'a str,
    /// `--value`s.
    pub(super) values: &'a [ValueColumn],
    /// The map a Parquet input's batches go through.
    pub(super) map: &'a ColumnMap,
    /// `--index`es.
    pub(super) indexes: &'a [ColumnIndex],
}

impl Reading<'_> {
    /// A row's entries in every index, from the text of each column an
    /// index reads (`text(column)`; `None`: the row has no such column),
    /// or the column and why not.
    fn entries<'t>(
        &self,
        text: impl Fn(&str) -> Option<&'t str>,
        key: &[u8],
    ) -> Result<Vec<Vec<u8>>, (String, String)> {
        self.indexes
            .iter()
            .map(|ix| {
                let texts = ix
                    .columns()
                    .map(|c| {
                        text(c)
                            .ok_or_else(|| (c.to_string(), "no value for the index field".into()))
                    })
                    .collect::<Result<Vec<&str>, _>>()?;
                ix.entry_from_texts(&texts, key)
            })
            .collect()
    }
}

/// Where a value column goes: `--value COLUMN[=FAMILY:QUALIFIER]`.
#[derive(Debug, Clone)]
pub(crate) struct ValueColumn {
    pub(crate) column: String,
    pub(crate) family: String,
    pub(crate) qualifier: Vec<u8>,
}

impl ValueColumn {
    /// A `--value` argument; `family` when it names none (the qualifier
    /// is then the column's name).
    pub(crate) fn parse(v: &str, family: &str) -> Result<ValueColumn, String> {
        let (column, family, qualifier) = match v.split_once('=') {
            None => (v, family, v),
            Some((c, t)) => {
                let (f, q) = t
                    .split_once(':')
                    .ok_or_else(|| format!("--value {v}: not COLUMN=FAMILY:QUALIFIER"))?;
                (c, f, q)
            }
        };
        Ok(ValueColumn {
            column: column.to_string(),
            family: family.to_string(),
            qualifier: qualifier.as_bytes().to_vec(),
        })
    }

    /// Every column of `columns` that is not a key field, a cell of
    /// `family` named as the column.
    fn others(columns: &[String], fields: &[&str], family: &str) -> Vec<ValueColumn> {
        columns
            .iter()
            .filter(|c| !fields.contains(&c.as_str()))
            .map(|c| ValueColumn {
                column: c.clone(),
                family: family.to_string(),
                qualifier: c.as_bytes().to_vec(),
            })
            .collect()
    }
}

/// Reads one share into `sink`.
pub(super) fn read(
    share: &Share,
    inputs: &[Input],
    reading: &Reading<'_>,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    let input = &inputs[share.input];
    let name = input.name();
    if let Some((group, first)) = share.row_group {
        let path = input.path.as_deref().unwrap_or(Path::new("-"));
        return read_parquet(path, &name, group, first, share.bytes, reading, sink);
    }
    let raw: Box<dyn Read> = match &input.path {
        Some(path) => {
            Box::new(File::open(path).map_err(|e| format!("--input {name}: {}", chain(&e)))?)
        }
        None => Box::new(io::stdin().lock()),
    };
    let reader = BufReader::with_capacity(1 << 20, raw);
    match input.format {
        Format::Csv => read_csv(&name, reader, reading, sink),
        Format::Jsonl => read_jsonl(&name, reader, reading, sink),
        Format::Parquet => Err(format!("--input {name}: a Parquet file without row groups")),
    }
}

fn read_parquet(
    path: &Path,
    name: &str,
    group: usize,
    first: u64,
    bytes: u64,
    reading: &Reading<'_>,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    let file = File::open(path).map_err(|e| format!("--input {name}: {}", chain(&e)))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| format!("--input {name}: not a Parquet file: {}", chain(&e)))?;
    // Only the columns the map reads: the key fields and the values
    // named (every column when none is).
    let schema = builder.schema().clone();
    let mask = if reading.values.is_empty() {
        ProjectionMask::all()
    } else {
        let mut wanted: Vec<&str> = reading.layout.field_names().collect();
        for v in reading.values {
            wanted.push(&v.column);
        }
        for c in reading.indexes.iter().flat_map(ColumnIndex::columns) {
            wanted.push(c);
        }
        let roots: Vec<usize> = wanted
            .iter()
            .filter_map(|w| schema.index_of(w).ok())
            .collect();
        ProjectionMask::roots(builder.parquet_schema(), roots)
    };
    let reader = builder
        .with_row_groups(vec![group])
        .with_projection(mask)
        .with_batch_size(8192)
        .build()
        .map_err(|e| format!("--input {name}: {}", chain(&e)))?;
    let mut row = first;
    for batch in reader {
        let batch =
            batch.map_err(|e| format!("--input {name}, row group {group}: {}", chain(&e)))?;
        let bad = sink
            .put_batch(&batch, reading.map)
            .map_err(|e| format!("--input {name}: {e}"))?;
        for b in bad {
            let place = Place {
                input: name,
                line: None,
                row: Some(row + b.row as u64),
            };
            sink.bad(&place, &b.column, &b.reason)?;
        }
        row += batch.num_rows() as u64;
    }
    sink.read(bytes);
    Ok(())
}

/// The value columns of an input whose columns are `columns`: the
/// `--value`s (each must be one of them), or every column not a key field.
fn value_columns(
    reading: &Reading<'_>,
    columns: &[String],
    fields: &[&str],
) -> Result<Vec<ValueColumn>, String> {
    if reading.values.is_empty() {
        return Ok(ValueColumn::others(columns, fields, reading.family));
    }
    for v in reading.values {
        if !columns.contains(&v.column) {
            return Err(format!("--value: the input has no column `{}`", v.column));
        }
    }
    Ok(reading.values.to_vec())
}

/// The key of one input row from its fields' texts, or the field and why
/// not.
fn key(layout: &DynLayout, fields: &[&str], texts: &[&str]) -> Result<Vec<u8>, (String, String)> {
    let values: Vec<Value> = fields
        .iter()
        .zip(texts)
        .map(|(f, t)| {
            layout
                .value(f, t)
                .map_err(|e| (f.to_string(), e.message().to_string()))
        })
        .collect::<Result<_, _>>()?;
    layout
        .encode(&values)
        .map_err(|e| (String::new(), e.to_string()))
}

/// Puts a row; a row without value columns gets one empty cell (the
/// family's empty qualifier), as HBase keeps no row without a cell.
fn put(
    sink: &mut dyn Sink,
    place: &Place<'_>,
    key: &[u8],
    cells: &[Cell],
    entries: &[Vec<u8>],
    family: &str,
) -> Result<(), String> {
    let empty;
    let cells = if cells.is_empty() {
        empty = [(family.to_string(), Vec::new(), Vec::new())];
        &empty[..]
    } else {
        cells
    };
    sink.put(place, key, cells, entries)
}

fn read_csv(
    name: &str,
    input: impl Read,
    reading: &Reading<'_>,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    let fields: Vec<&str> = reading.layout.field_names().collect();
    let mut reader = csv::Reader::from_reader(input);
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| format!("--input {name}: {}", chain(&e)))?
        .iter()
        .map(str::to_string)
        .collect();
    let key_at: Vec<usize> = fields
        .iter()
        .map(|f| {
            header
                .iter()
                .position(|h| h == f)
                .ok_or_else(|| format!("--input {name}: no column for the key field `{f}`"))
        })
        .collect::<Result<_, _>>()?;
    for ix in reading.indexes {
        for c in ix.columns() {
            if !header.iter().any(|h| h == c) {
                return Err(format!(
                    "--input {name}: no column for the field `{c}` of the index {}",
                    ix.name()
                ));
            }
        }
    }
    let values = value_columns(reading, &header, &fields)?;
    let value_at: Vec<usize> = values
        .iter()
        .map(|v| header.iter().position(|h| *h == v.column).unwrap_or(0))
        .collect();
    let mut record = csv::StringRecord::new();
    let mut cells: Vec<Cell> = Vec::with_capacity(values.len());
    let mut last = 0;
    loop {
        let line = reader.position().line();
        let place = Place {
            input: name,
            line: Some(line),
            row: None,
        };
        let read = reader.read_record(&mut record);
        let at = reader.position().byte();
        sink.read(at - last);
        last = at;
        match read {
            Ok(true) => {}
            Ok(false) => break,
            // A row of its own that is wrong: the others go on.
            Err(e)
                if matches!(
                    e.kind(),
                    csv::ErrorKind::UnequalLengths { .. } | csv::ErrorKind::Utf8 { .. }
                ) =>
            {
                sink.bad(&place, "", &e.to_string())?;
                continue;
            }
            Err(e) => return Err(format!("--input {name}: {}", chain(&e))),
        }
        let texts: Vec<&str> = key_at
            .iter()
            .map(|&i| record.get(i).unwrap_or(""))
            .collect();
        let key = match key(reading.layout, &fields, &texts) {
            Ok(key) => key,
            Err((column, reason)) => {
                sink.bad(&place, &column, &reason)?;
                continue;
            }
        };
        let text = |c: &str| {
            header
                .iter()
                .position(|h| h == c)
                .and_then(|i| record.get(i))
        };
        let entries = match reading.entries(text, &key) {
            Ok(entries) => entries,
            Err((column, reason)) => {
                sink.bad(&place, &column, &reason)?;
                continue;
            }
        };
        cells.clear();
        for (v, &i) in values.iter().zip(&value_at) {
            let text = record.get(i).unwrap_or("");
            cells.push((
                v.family.clone(),
                v.qualifier.clone(),
                text.as_bytes().to_vec(),
            ));
        }
        put(sink, &place, &key, &cells, &entries, reading.family)?;
    }
    Ok(())
}

fn read_jsonl(
    name: &str,
    input: impl BufRead,
    reading: &Reading<'_>,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    let fields: Vec<&str> = reading.layout.field_names().collect();
    let mut cells: Vec<Cell> = Vec::new();
    for (n, line) in input.lines().enumerate() {
        let line = line.map_err(|e| format!("--input {name}: {}", chain(&e)))?;
        sink.read(line.len() as u64 + 1);
        let place = Place {
            input: name,
            line: Some(n as u64 + 1),
            row: None,
        };
        if line.trim().is_empty() {
            continue;
        }
        let object: serde_json::Map<String, serde_json::Value> = match serde_json::from_str(&line) {
            Ok(o) => o,
            Err(e) => {
                sink.bad(&place, "", &format!("not a JSON object: {}", chain(&e)))?;
                continue;
            }
        };
        let texts: Result<Vec<String>, (String, String)> = fields
            .iter()
            .map(|f| match object.get(*f) {
                None => Err((f.to_string(), "no member for the key field".to_string())),
                Some(v) => Ok(json_text(v)),
            })
            .collect();
        let key = texts.and_then(|texts| {
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            key(reading.layout, &fields, &texts)
        });
        let indexed = key.and_then(|key| {
            let texts: Vec<(&str, String)> = reading
                .indexes
                .iter()
                .flat_map(|ix| ix.columns())
                .filter_map(|c| object.get(c).map(|v| (c, json_text(v))))
                .collect();
            let text = |c: &str| texts.iter().find(|t| t.0 == c).map(|t| t.1.as_str());
            let entries = reading.entries(text, &key)?;
            Ok((key, entries))
        });
        let (key, entries) = match indexed {
            Ok(indexed) => indexed,
            Err((column, reason)) => {
                sink.bad(&place, &column, &reason)?;
                continue;
            }
        };
        // The `--value`s are the same for every object (a member one of
        // them lacks is no cell); without them, each object's own members.
        let own;
        let columns: &[ValueColumn] = if reading.values.is_empty() {
            let names: Vec<String> = object.keys().cloned().collect();
            own = ValueColumn::others(&names, &fields, reading.family);
            &own
        } else {
            reading.values
        };
        cells.clear();
        let mut wrong = None;
        for v in columns {
            let Some(value) = object.get(&v.column) else {
                continue;
            };
            match json_bytes(value) {
                Ok(Some(bytes)) => cells.push((v.family.clone(), v.qualifier.clone(), bytes)),
                Ok(None) => {}
                Err(what) => {
                    wrong = Some((v.column.clone(), what));
                    break;
                }
            }
        }
        if let Some((column, what)) = wrong {
            let reason = format!(
                "{what}, and a value is a string, a number or an array of bytes (0 to 255); null or absent is no cell"
            );
            sink.bad(&place, &column, &reason)?;
            continue;
        }
        put(sink, &place, &key, &cells, &entries, reading.family)?;
    }
    Ok(())
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
