//! `rowkey sql`: SQL over one table of one layout (rowkey-sql on
//! DataFusion), a query given or a prompt with history.

use std::io::{self, IsTerminal, Read, Write};
use std::path::PathBuf;
use std::sync::Arc;

use rowkey_core::error_chain as chain;
use rowkey_sql::datafusion::arrow::array::RecordBatch;
use rowkey_sql::datafusion::arrow::datatypes::DataType;
use rowkey_sql::datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use rowkey_sql::datafusion::arrow::util::pretty::pretty_format_batches;
use rowkey_sql::datafusion::prelude::SessionContext;
use rowkey_sql::datafusion::sql::parser::DFParser;
use rowkey_sql::{KeyTable, ValueColumn, ValueType};

/// Why `rowkey sql` stops.
pub enum Stop {
    /// A usage error: what is wrong, naming the argument.
    Usage(String),
    /// A statement failed.
    Failed(String),
    /// Reading or writing failed (a closed output: stop quietly).
    Io(io::Error),
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Stop {
        Stop::Io(e)
    }
}

/// The arguments of `rowkey sql`.
#[derive(clap::Args)]
pub struct SqlArgs {
    /// The layout: its one-line text (`[salt(user_id)/16][user_id u64]...`)
    /// or `@FILE` holding it or its JSON (`T::LAYOUT.to_json()`).
    #[arg(long, short = 'l', value_name = "SPEC")]
    layout: String,
    /// The table's name in SQL, and in its store (a redb table, a fjall
    /// keyspace, an HBase or Bigtable table).
    #[arg(long)]
    table: String,
    /// A redb database file (a table of `&[u8]` keys and values).
    #[arg(long, value_name = "FILE", group = "store")]
    redb: Option<PathBuf>,
    /// A fjall database folder.
    #[arg(long, value_name = "DIR", group = "store")]
    fjall: Option<PathBuf>,
    /// HBase: `hbase://HOST:PORT` (the native client), `zk://HOST:PORT`,
    /// or a Thrift2 gateway's `HOST:PORT`.
    #[arg(long, value_name = "ADDRESS", group = "store")]
    hbase: Option<String>,
    /// Bigtable: `URI,PROJECT,INSTANCE` (a plaintext endpoint such as
    /// the emulator's `http://127.0.0.1:8086`).
    #[arg(long, value_name = "URI,PROJECT,INSTANCE", group = "store")]
    bigtable: Option<String>,
    /// A key family's member: the table of its keys.
    #[arg(long, value_name = "NAME")]
    member: Option<String>,
    /// A value column: `NAME=TYPE` (redb, fjall: the row's whole value)
    /// or `NAME=FAMILY:QUALIFIER:TYPE` (HBase, Bigtable: a cell); TYPE is
    /// binary, utf8, int64, float64 or json.
    #[arg(long = "value", value_name = "SPEC")]
    values: Vec<String>,
    /// How results print: table, csv, json (one object per row) or
    /// parquet (the file's bytes).
    #[arg(long, default_value = "table", value_parser = ["table", "csv", "json", "parquet"])]
    format: String,
    /// The statements to run (`;` between them); none: a prompt when the
    /// input is a terminal, else the statements on standard input.
    query: Option<String>,
}

/// Runs `rowkey sql`.
pub fn run(args: SqlArgs, out: &mut dyn Write) -> Result<(), Stop> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Stop::Failed(format!("starting the runtime: {}", chain(&e))))?;
    let _in_runtime = runtime.enter();
    let table = Arc::new(table(&args)?);
    let ctx = SessionContext::new();
    ctx.register_table(args.table.as_str(), table.clone())
        .map_err(|e| Stop::Usage(format!("--table {}: {e}", args.table)))?;
    let session = Session {
        ctx,
        table,
        format: args.format.clone(),
        runtime: &runtime,
    };
    if let Some(query) = &args.query {
        return session.statements(query, out);
    }
    let stdin = io::stdin();
    if stdin.is_terminal() {
        return session.prompt(out);
    }
    let mut text = String::new();
    stdin.lock().read_to_string(&mut text)?;
    session.statements(&text, out)
}

/// The table the arguments name.
fn table(args: &SqlArgs) -> Result<KeyTable, Stop> {
    let layout = crate::spec::layout("--layout", &args.layout)
        .map_err(Stop::Usage)?
        .layout();
    let failed = |e: rowkey_sql::Error| Stop::Usage(format!("--table {}: {e}", args.table));
    let mut table = if let Some(path) = &args.redb {
        let db = redb::Database::create(path)
            .map_err(|e| Stop::Usage(format!("--redb {}: {e}", path.display())))?;
        KeyTable::redb(Arc::new(db), &args.table, layout).map_err(failed)?
    } else if let Some(path) = &args.fjall {
        let db = fjall::Database::builder(path)
            .open()
            .map_err(|e| Stop::Usage(format!("--fjall {}: {e}", path.display())))?;
        KeyTable::fjall(db, &args.table, layout).map_err(failed)?
    } else if let Some(address) = &args.hbase {
        let client = rowkey_hbase::Client::for_address(address)
            .and_then(|b| b.build())
            .map_err(|e| Stop::Usage(format!("--hbase {address}: {}", chain(&e))))?;
        KeyTable::hbase(client, &args.table, layout).map_err(failed)?
    } else if let Some(spec) = &args.bigtable {
        let [uri, project, instance] = spec.splitn(3, ',').collect::<Vec<_>>()[..] else {
            return Err(Stop::Usage(format!(
                "--bigtable {spec}: URI,PROJECT,INSTANCE (three parts, comma-separated)"
            )));
        };
        let client = rowkey_bigtable::Client::connect_lazy(uri, project, instance)
            .map_err(|e| Stop::Usage(format!("--bigtable {spec}: {}", chain(&e))))?;
        KeyTable::bigtable(client, &args.table, layout).map_err(failed)?
    } else {
        return Err(Stop::Usage(
            "sql: needs --redb FILE, --fjall DIR, --hbase ADDRESS or --bigtable URI,PROJECT,INSTANCE"
                .into(),
        ));
    };
    if let Some(member) = &args.member {
        table = table
            .member(member)
            .map_err(|e| Stop::Usage(format!("--member {member}: {}", chain(&e))))?;
    }
    for spec in &args.values {
        let column = value_column(spec).map_err(|e| Stop::Usage(format!("--value {spec}: {e}")))?;
        table = table
            .value(column)
            .map_err(|e| Stop::Usage(format!("--value {spec}: {}", chain(&e))))?;
    }
    Ok(table)
}

/// `NAME=TYPE` or `NAME=FAMILY:QUALIFIER:TYPE`.
fn value_column(spec: &str) -> Result<ValueColumn, String> {
    let (name, rest) = spec
        .split_once('=')
        .ok_or("NAME=TYPE or NAME=FAMILY:QUALIFIER:TYPE")?;
    let parts: Vec<&str> = rest.split(':').collect();
    let ty = |t: &str| match t.to_ascii_lowercase().as_str() {
        "binary" => Ok(ValueType::Binary),
        "utf8" => Ok(ValueType::Utf8),
        "int64" => Ok(ValueType::Int64),
        "float64" => Ok(ValueType::Float64),
        "json" => Ok(ValueType::Json),
        _ => Err(format!(
            "`{t}` is not a type: binary, utf8, int64, float64 or json"
        )),
    };
    match parts[..] {
        [t] => Ok(ValueColumn::whole(name, ty(t)?)),
        [family, qualifier, t] => Ok(ValueColumn::cell(name, family, qualifier, ty(t)?)),
        _ => Err("NAME=TYPE or NAME=FAMILY:QUALIFIER:TYPE".into()),
    }
}

/// A session: the context its statements run in.
struct Session<'r> {
    ctx: SessionContext,
    table: Arc<KeyTable>,
    format: String,
    runtime: &'r tokio::runtime::Runtime,
}

impl Session<'_> {
    /// Runs each statement of `text` (and `\d`), printing its result; the
    /// first that fails stops the run.
    fn statements(&self, text: &str, out: &mut dyn Write) -> Result<(), Stop> {
        if text.trim() == "\\d" {
            writeln!(out, "{}", self.table.describe())?;
            return Ok(());
        }
        let statements = DFParser::parse_sql(text).map_err(|e| Stop::Usage(chain(&e)))?;
        for statement in statements {
            let batches = self
                .runtime
                .block_on(async {
                    let plan = self.ctx.state().statement_to_plan(statement).await?;
                    self.ctx.execute_logical_plan(plan).await?.collect().await
                })
                .map_err(|e| Stop::Failed(chain(&e)))?;
            print(&batches, &self.format, out)?;
        }
        Ok(())
    }

    /// The prompt: statements end with `;`, `\d` describes the table,
    /// `\q` (or end of input) quits; a statement that fails prints its
    /// error and the prompt goes on. History is kept in
    /// `~/.rowkey_sql_history`.
    fn prompt(&self, out: &mut dyn Write) -> Result<(), Stop> {
        let mut editor = rustyline::DefaultEditor::new()
            .map_err(|e| Stop::Failed(format!("the prompt: {}", chain(&e))))?;
        let history =
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".rowkey_sql_history"));
        if let Some(h) = &history {
            let _ = editor.load_history(h);
        }
        writeln!(
            out,
            "{}\n\\d describes the table, \\q quits; end statements with ;",
            self.table.describe()
        )?;
        let mut pending = String::new();
        loop {
            let prompt = if pending.is_empty() {
                "rowkey> "
            } else {
                "   ...> "
            };
            let line = match editor.readline(prompt) {
                Ok(line) => line,
                Err(rustyline::error::ReadlineError::Interrupted) => {
                    pending.clear();
                    continue;
                }
                Err(_) => break,
            };
            let trimmed = line.trim();
            if pending.is_empty() && (trimmed == "\\q" || trimmed == "\\d") {
                let _ = editor.add_history_entry(trimmed);
                if trimmed == "\\q" {
                    break;
                }
                writeln!(out, "{}", self.table.describe())?;
                continue;
            }
            pending.push_str(&line);
            pending.push('\n');
            if !trimmed.ends_with(';') {
                continue;
            }
            let _ = editor.add_history_entry(pending.trim());
            match self.statements(&pending, out) {
                Ok(()) => {}
                Err(Stop::Failed(e) | Stop::Usage(e)) => writeln!(out, "error: {e}")?,
                Err(Stop::Io(e)) => return Err(Stop::Io(e)),
            }
            out.flush()?;
            pending.clear();
        }
        if let Some(h) = &history {
            let _ = editor.save_history(h);
        }
        Ok(())
    }
}

/// Prints a statement's result in `format`.
fn print(batches: &[RecordBatch], format: &str, out: &mut dyn Write) -> Result<(), Stop> {
    match format {
        "csv" => csv(batches, out),
        "json" => json(batches, out),
        "parquet" => parquet(batches, out),
        _ => {
            if batches.iter().all(|b| b.num_rows() == 0)
                && batches.iter().all(|b| b.num_columns() == 0)
            {
                return Ok(());
            }
            let table = pretty_format_batches(batches).map_err(|e| Stop::Failed(chain(&e)))?;
            writeln!(out, "{table}")?;
            Ok(())
        }
    }
}

fn formatters<'a>(
    batch: &'a RecordBatch,
    options: &'a FormatOptions<'a>,
) -> Result<Vec<ArrayFormatter<'a>>, Stop> {
    batch
        .columns()
        .iter()
        .map(|c| ArrayFormatter::try_new(c.as_ref(), options))
        .collect::<Result<_, _>>()
        .map_err(|e| Stop::Failed(chain(&e)))
}

/// CSV with a header line; a field with a comma, quote or line break in
/// double quotes.
fn csv(batches: &[RecordBatch], out: &mut dyn Write) -> Result<(), Stop> {
    let quote = |s: String| {
        if s.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s
        }
    };
    let Some(first) = batches.first() else {
        return Ok(());
    };
    let header: Vec<String> = first
        .schema()
        .fields()
        .iter()
        .map(|f| quote(f.name().clone()))
        .collect();
    writeln!(out, "{}", header.join(","))?;
    let options = FormatOptions::default();
    for batch in batches {
        let columns = formatters(batch, &options)?;
        for row in 0..batch.num_rows() {
            let fields: Vec<String> = columns
                .iter()
                .zip(batch.columns())
                .map(|(f, c)| {
                    if c.is_null(row) {
                        String::new()
                    } else {
                        quote(f.value(row).to_string())
                    }
                })
                .collect();
            writeln!(out, "{}", fields.join(","))?;
        }
    }
    Ok(())
}

/// One JSON object per row: numbers and booleans as JSON's, NULL as
/// null, anything else as the text the table shows.
fn json(batches: &[RecordBatch], out: &mut dyn Write) -> Result<(), Stop> {
    let options = FormatOptions::default();
    for batch in batches {
        let schema = batch.schema();
        let columns = formatters(batch, &options)?;
        for row in 0..batch.num_rows() {
            let mut object = serde_json::Map::new();
            for ((field, f), c) in schema.fields().iter().zip(&columns).zip(batch.columns()) {
                let text = f.value(row).to_string();
                let value = if c.is_null(row) {
                    serde_json::Value::Null
                } else if field.data_type().is_numeric() || *field.data_type() == DataType::Boolean
                {
                    serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text))
                } else {
                    serde_json::Value::String(text)
                };
                object.insert(field.name().clone(), value);
            }
            writeln!(out, "{}", serde_json::Value::Object(object))?;
        }
    }
    Ok(())
}

/// The result as a Parquet file's bytes.
fn parquet(batches: &[RecordBatch], out: &mut dyn Write) -> Result<(), Stop> {
    let Some(first) = batches.first() else {
        return Ok(());
    };
    let failed =
        |e: parquet::errors::ParquetError| Stop::Failed(format!("writing Parquet: {}", chain(&e)));
    let mut bytes = Vec::new();
    let mut writer =
        parquet::arrow::ArrowWriter::try_new(&mut bytes, first.schema(), None).map_err(failed)?;
    for batch in batches {
        writer.write(batch).map_err(failed)?;
    }
    writer.close().map_err(failed)?;
    out.write_all(&bytes)?;
    Ok(())
}
