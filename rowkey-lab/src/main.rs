//! The hot-spot lab's command: a workload (generated, or your CSV) stored
//! under row-key designs, with HBase-style regions and servers, measured,
//! queried, and drawn as key-visualizer heatmaps in an HTML report.
//!
//! Run: `cargo run --release -p rowkey-lab -- --help`; the guide's chapter
//! "Designing a key with the lab" (the book in `docs/` of rowkey's
//! repository: `mdbook serve docs`) walks through it.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::PossibleValuesParser;
use clap::{Parser, ValueEnum};
use rowkey_core::error_chain as chain;
use rowkey_core::DynLayout;
use rowkey_lab::ask::Asked;
use rowkey_lab::builtin::{
    self, Entity, Subjects, DEFAULT_DESIGNS, DEFAULT_MIX, DESIGNS, HOUR, LATEST, MINUTE,
};
use rowkey_lab::draw::{self, Draw, Draws};
use rowkey_lab::runtime::{self, Columns};
use rowkey_lab::{report, workload, BoxError, Lab, RedbStore, Settings, Store, Workload};

/// Which row key should I use? Stores one workload under several row-key
/// designs, models the table's regions and region servers the way HBase
/// splits and balances them, and reports where the writes land (a
/// key-visualizer heatmap per design), how long the keys are and what three
/// typical queries cost, checking every answer against the workload.
#[derive(Debug, Parser)]
#[command(name = "rowkey-lab", version)]
struct Args {
    /// The built-in workload to generate.
    #[arg(long, value_enum, default_value_t = WorkloadArg::Ingest)]
    workload: WorkloadArg,

    /// Read the events from this CSV file (with a header) instead of
    /// generating them.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,

    /// The CSV column holding the entity (user, device, phone): an unsigned
    /// integer, or any string when a --design stores the entity as a
    /// `String` (the built-in designs then store each string's number, in
    /// order of first appearance).
    #[arg(long, value_name = "NAME", default_value = "user_id", requires = "csv")]
    user_col: String,

    /// The CSV column holding the time, milliseconds since the epoch.
    #[arg(long, value_name = "NAME", default_value = "ts", requires = "csv")]
    ts_col: String,

    /// Events to generate [default: 500_000; 20_000 with --store bigtable
    /// or hbase].
    #[arg(long, value_name = "N", value_parser = count(1, 50_000_000))]
    events: Option<u64>,

    /// Distinct users (devices in `timeseries`, subscribers in `calls`).
    #[arg(long, visible_aliases = ["devices", "subscribers"], value_name = "N", default_value = "5000", value_parser = count(1, 10_000_000))]
    users: u64,

    /// Seed of the workload generator.
    #[arg(long, value_name = "N", default_value = "42", value_parser = count(0, u64::MAX))]
    seed: u64,

    /// The designs to compare, comma-separated [default: all but user_first].
    #[arg(long, value_name = "NAMES", value_delimiter = ',', value_parser = PossibleValuesParser::new(DESIGNS))]
    designs: Vec<String>,

    /// A design of your own, as a layout's text, compared beside the
    /// built-in ones (repeatable): `--design
    /// 'mine=[salt(user_id)/16][user_id u64][ts_millis desc_ts i64]'`.
    /// Fields bind to the events by name: `user_id` (or the --user-col
    /// column) and `ts_millis` (or the --ts-col column). A `String` entity
    /// field reads the CSV's entity ids as strings.
    /// A field no column of the events holds (`metric`, `region`) takes
    /// values from --field or --sample-from.
    #[arg(long = "design", value_name = "NAME=LAYOUT", value_parser = runtime::parse_design)]
    own_designs: Vec<(String, DynLayout)>,

    /// Values for a --design field the events do not have, drawn for each
    /// event (the same under every design): `NAME=uniform(LO..HI)` or
    /// `NAME=choice(A,B,...)`, with `@user` at the end for one value per
    /// entity (repeatable; overrides --sample-from for that field).
    #[arg(long = "field", value_name = "NAME=DIST", value_parser = draw::parse_field)]
    fields: Vec<(String, Draw)>,

    /// Draw the fields the events do not have from a sample of your
    /// table's keys: a CSV file of keys (a header naming the fields, one
    /// key per line), or a live HBase table (a gateway's `host:port`,
    /// `hbase://MASTER:PORT` or `zk://QUORUM`, with --sample-table and
    /// --table-layout; needs the `hbase` feature). Each value is drawn
    /// as often as the sample holds it.
    #[arg(long, value_name = "FILE.csv|ADDRESS")]
    sample_from: Option<String>,

    /// With a live --sample-from: the table to sample.
    #[arg(long, value_name = "TABLE", requires = "sample_from")]
    sample_table: Option<String>,

    /// The rows --sample-from reads at most (spread over the table's salt
    /// buckets).
    #[arg(long, value_name = "N", default_value = "10000", value_parser = count(1, 10_000_000))]
    sample_rows: u64,

    /// The layout of the table you have now: compared beside the other
    /// designs (as `current`; its fields bind as a --design's do), it
    /// decodes a live --sample-from's keys, and the verdict names the
    /// `rowkey migrate plan` command from it to the recommended design.
    #[arg(long, value_name = "SPEC", value_parser = parse_layout)]
    table_layout: Option<DynLayout>,

    /// A query of your own, as filters on key fields, run on every design
    /// beside the built-in ones: `--query 'cpu: metric=3
    /// ts_millis=1700000000000..'` (`FIELD=VALUE`, `FIELD=LO..HI`,
    /// `LO..=HI`, `LO..`, `..HI`; every condition holds). A design with
    /// every field reads it as a skip scan of its key, the others scan
    /// everything (repeatable).
    #[arg(long = "query", value_name = "'NAME: FIELD=VALUE ...'", value_parser = Asked::parse)]
    queries: Vec<Asked>,

    /// The query mix the verdict weighs: how often each query runs
    /// (`latest`: one entity's latest 20; `minute`: everything of the last
    /// minute; `hour`: one entity's hour; a --query by its name). A
    /// built-in query not named weighs 0, a --query not named 1.
    #[arg(long, value_name = "Q=W,...")]
    mix: Option<String>,

    /// The entity the per-user queries ask about: `hottest` (most events),
    /// `median`, or an entity id.
    #[arg(long, value_name = "hottest|median|ID", default_value = "hottest")]
    entity: Entity,

    /// Region servers the regions are balanced over.
    #[arg(long, value_name = "N", default_value = "4", value_parser = count(1, 1_000))]
    servers: u64,

    /// A region splits when its rows (keys and values) take more bytes than
    /// this, as HBase splits by store size [default: a sixteenth of the
    /// events at 32 bytes a row, the same for every design].
    #[arg(long, value_name = "BYTES", value_parser = count(64, 1 << 40))]
    split_bytes: Option<u64>,

    /// Time windows of the measurement (the heatmaps' columns).
    #[arg(long, value_name = "N", default_value = "60", value_parser = count(2, 1_000))]
    windows: u64,

    /// With --store hbase: an HBase already running instead of one the lab
    /// starts, by its Thrift2 gateway (`host:port`) or with no gateway
    /// (`hbase://master:port[,...]`, `zk://quorum[/parent]`); the report
    /// then has no engine figures.
    #[arg(long, value_name = "ADDRESS")]
    hbase: Option<String>,

    /// Where the rows go.
    #[arg(long, value_enum, default_value_t = StoreArg::Redb)]
    store: StoreArg,

    /// The directory for the report and the heatmaps (created if missing).
    #[arg(long, value_name = "DIR", default_value = "rowkey-lab-report")]
    out: PathBuf,

    /// Do not show progress bars.
    #[arg(long)]
    no_progress: bool,

    /// Keep every design's rows in this redb file (a table per design,
    /// named as it, replaced if there: each row's key, and its event's
    /// index as the value), for `rowkey sql`, whose command line for it
    /// the lab prints at the end.
    #[arg(long, value_name = "FILE.redb")]
    keep_rows: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum WorkloadArg {
    /// Live ingest: increasing timestamps, Zipf-skewed users.
    Ingest,
    /// Devices reporting every 10 seconds (OpenTSDB-style).
    Timeseries,
    /// Sequential order ids.
    Orders,
    /// Call records keyed by 11-digit phone numbers.
    Calls,
}

impl From<WorkloadArg> for Workload {
    fn from(w: WorkloadArg) -> Workload {
        match w {
            WorkloadArg::Ingest => Workload::Ingest,
            WorkloadArg::Timeseries => Workload::TimeSeries,
            WorkloadArg::Orders => Workload::Orders,
            WorkloadArg::Calls => Workload::Calls,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum StoreArg {
    /// redb, an embedded sorted store, in a file removed afterwards.
    Redb,
    /// Cloud Bigtable's emulator: the one at BIGTABLE_EMULATOR_HOST, or one
    /// the lab starts and stops (needs the `bigtable` feature).
    Bigtable,
    /// A real HBase: one the lab starts and stops (standalone, --servers
    /// region servers, small regions that split during the ingest, its
    /// balancer on), or the Thrift2 gateway at --hbase (needs the `hbase`
    /// feature, Java 17 and Maven).
    Hbase,
}

/// A layout's text (or `@FILE`), as `rowkey` takes it.
fn parse_layout(spec: &str) -> Result<DynLayout, String> {
    let text = match spec.strip_prefix('@') {
        Some(path) => {
            std::fs::read_to_string(path).map_err(|e| format!("{path}: {}", chain(&e)))?
        }
        None => spec.to_string(),
    };
    DynLayout::parse(text.trim()).map_err(|e| e.to_string())
}

/// The fields drawn: a sample's, then --field's over them.
fn draws(args: &Args) -> Result<(Draws, Option<String>), BoxError> {
    let rows = args.sample_rows as usize;
    let (mut draws, note) = match &args.sample_from {
        None => (Draws::default(), None),
        Some(from) if from.ends_with(".csv") || std::path::Path::new(from).is_file() => {
            let (draws, read) = Draws::from_csv(std::path::Path::new(from), rows)?;
            let note = format!(
                "Fields drawn from {read} keys of {from} (its columns: {}).",
                draws.names().collect::<Vec<_>>().join(", ")
            );
            (draws, Some(note))
        }
        Some(from) => {
            let (Some(table), Some(layout)) = (&args.sample_table, &args.table_layout) else {
                return Err(format!(
                    "--sample-from {from}: a live table needs --sample-table and --table-layout"
                )
                .into());
            };
            let keys = sample(from, table, layout, rows)?;
            let read = keys.len();
            let draws = Draws::from_keys(layout, keys)?;
            (
                draws,
                Some(format!(
                    "Fields drawn from {read} keys of table {table} at {from}."
                )),
            )
        }
    };
    for (name, d) in &args.fields {
        draws.set(name.clone(), d.clone());
    }
    Ok((draws, note))
}

#[cfg(feature = "hbase")]
fn sample(
    from: &str,
    table: &str,
    layout: &DynLayout,
    rows: usize,
) -> Result<Vec<Vec<u8>>, BoxError> {
    rowkey_lab::hbase::sample_keys(from, table, layout, rows)
}

#[cfg(not(feature = "hbase"))]
fn sample(from: &str, _: &str, _: &DynLayout, _: usize) -> Result<Vec<Vec<u8>>, BoxError> {
    Err(format!(
        "--sample-from {from}: this build has no HBase support; \
         run `cargo run --release -p rowkey-lab --features hbase -- ...`"
    )
    .into())
}

/// The verdict's next step: the `rowkey migrate plan` command from the
/// table's layout (or a placeholder) to the recommended design's.
fn migrate_step(report: &rowkey_lab::Report, current: Option<&DynLayout>) -> Option<String> {
    let best = report.verdict().ranking.first()?.name.clone();
    let to = report.design(&best)?.layout.to_string();
    let from = match current {
        Some(l) if best == "current" || l.layout().to_string() == to => {
            return Some("The table you have ranks first: no move is needed.".into());
        }
        Some(l) => l.layout().to_string(),
        None => "THE LAYOUT OF YOUR TABLE".to_string(),
    };
    Some(format!(
        "To move a table to {best}: rowkey migrate plan --from '{from}' --to '{to}' \
         (then run and verify; see \"Changing a key on a live table\" in the guide, docs/src/migrate.md)."
    ))
}

/// A parser for a whole number in `min..=max`; `_` separators allowed
/// (`5_000_000`).
fn count(min: u64, max: u64) -> impl Fn(&str) -> Result<u64, String> + Clone {
    move |s: &str| {
        let n: u64 = s
            .replace('_', "")
            .parse()
            .map_err(|_| format!("`{s}` is not a whole number"))?;
        if (min..=max).contains(&n) {
            Ok(n)
        } else {
            Err(format!("{n} is not in {min}..={max}"))
        }
    }
}

fn store(args: &Args, split_bytes: usize) -> Result<Box<dyn Store>, BoxError> {
    let (kind, dir) = (args.store, args.out.as_path());
    #[cfg(not(feature = "hbase"))]
    let _ = split_bytes;
    match kind {
        StoreArg::Redb => Ok(Box::new(RedbStore::create(dir)?)),
        #[cfg(feature = "bigtable")]
        StoreArg::Bigtable => Ok(Box::new(rowkey_lab::bigtable::BigtableStore::start()?)),
        #[cfg(not(feature = "bigtable"))]
        StoreArg::Bigtable => Err("--store bigtable: this build has no Bigtable support; \
             run `cargo run --release -p rowkey-lab --features bigtable -- --store bigtable`"
            .into()),
        #[cfg(feature = "hbase")]
        StoreArg::Hbase => Ok(match &args.hbase {
            Some(addr) => Box::new(rowkey_lab::hbase::HBaseStore::connect(addr)?),
            None => Box::new(rowkey_lab::hbase::HBaseStore::start(
                args.servers as usize,
                split_bytes,
            )?),
        }),
        #[cfg(not(feature = "hbase"))]
        StoreArg::Hbase => Err("--store hbase: this build has no HBase support; \
             run `cargo run --release -p rowkey-lab --features hbase -- --store hbase`"
            .into()),
    }
}

fn run(args: Args) -> Result<(), BoxError> {
    let columns = Columns {
        user: args.user_col.clone(),
        ts: args.ts_col.clone(),
    };
    // A design that stores the entity as a string reads the ids as strings.
    let named = args
        .own_designs
        .iter()
        .any(|(_, l)| runtime::wants_names(l, &columns));
    let mut user_names = None;
    let events = match &args.csv {
        Some(path) if named => {
            let csv = workload::read_csv_file_named(path, &args.user_col, &args.ts_col)?;
            user_names = csv.names.map(std::sync::Arc::new);
            csv.events
        }
        Some(path) => workload::read_csv_file(path, &args.user_col, &args.ts_col)?,
        None => {
            let default = if matches!(args.store, StoreArg::Bigtable | StoreArg::Hbase) {
                20_000
            } else {
                500_000
            };
            let n = args.events.unwrap_or(default) as usize;
            Workload::from(args.workload).generate(n, args.users, args.seed)
        }
    };
    let names: Vec<&str> = if args.designs.is_empty() {
        DEFAULT_DESIGNS.to_vec()
    } else {
        args.designs.iter().map(String::as_str).collect()
    };
    let subjects = Subjects::about(&events, args.entity)?;
    let hottest = builtin::hottest(&events, 3);
    let entity_share = events.iter().filter(|e| e.user_id == subjects.user).count() as f64
        / events.len().max(1) as f64;
    let settings = Settings {
        split_bytes: args.split_bytes.unwrap_or(0) as usize,
        servers: args.servers as usize,
        windows: args.windows as usize,
        progress: !args.no_progress,
        ..Settings::default()
    };
    let split_bytes = settings.split_bytes_for(events.len());
    let mut lab = Lab::new(events).settings(settings);
    let (draws, sampled) = draws(&args)?;
    let own = |name: &str, layout: &DynLayout| {
        runtime::design_with(
            name,
            layout.clone(),
            &columns,
            &draws,
            subjects,
            user_names.clone(),
        )
        .map_err(|e| format!("--design {name}: {e}"))
    };
    // Every design with its layout as text reads it (a built-in key type's
    // too): a --query is planned on each design with every field it names.
    let mut layouts: Vec<(String, DynLayout)> = Vec::new();
    let mut designs = Vec::new();
    for name in names {
        let d = builtin::design_for(name, subjects).expect("clap checked the name");
        if let Ok(l) = DynLayout::parse(&d.layout().to_string()) {
            layouts.push((name.to_string(), l));
        }
        designs.push(d);
    }
    // The table you have, beside the designs it could move to.
    let current = args
        .table_layout
        .as_ref()
        .map(|l| ("current".to_string(), l.clone()));
    for (name, layout) in args.own_designs.iter().chain(&current) {
        designs.push(own(name, layout).map_err(|e| {
            if current.as_ref().is_some_and(|(n, _)| n == name) {
                format!("--table-layout: {e}")
            } else {
                e
            }
        })?);
        layouts.push((name.clone(), layout.clone()));
    }
    for mut d in designs {
        if let Some((_, layout)) = layouts.iter().find(|(n, _)| n == d.name()) {
            for q in args.queries.iter().filter(|q| q.fits(layout)) {
                d = q
                    .plan_on(d, layout)
                    .map_err(|e| format!("--query {}: {e}", q.name()))?;
            }
        }
        lab = lab.design(d);
    }
    for q in builtin::queries(subjects) {
        lab = lab.query(q);
    }
    for q in &args.queries {
        // The answer, by the first design with every field that binds to
        // the events.
        let reference = layouts
            .iter()
            .filter(|(_, l)| q.fits(l))
            .find_map(|(name, l)| own(name, l).ok().map(|d| (d, l)));
        let Some((design, layout)) = reference else {
            return Err(format!(
                "--query {}: no design has every field it names ({})",
                q.name(),
                q.fields().collect::<Vec<_>>().join(", ")
            )
            .into());
        };
        lab = lab.query(q.query(design, layout)?);
    }
    let mut names: Vec<&str> = builtin::QUERY_NAMES.to_vec();
    for (i, q) in args.queries.iter().enumerate() {
        let taken = names.contains(&q.name())
            || [LATEST, MINUTE, HOUR].contains(&q.name())
            || args.queries[..i].iter().any(|p| p.name() == q.name());
        if taken {
            return Err(
                format!("--query {}: a query of that name is already run", q.name()).into(),
            );
        }
    }
    names.extend(args.queries.iter().map(Asked::name));
    let mut mix = builtin::parse_mix_of(args.mix.as_deref().unwrap_or(DEFAULT_MIX), &names)
        .map_err(|e| format!("--mix: {e}"))?;
    if args.mix.is_none() {
        mix[builtin::QUERY_NAMES.len()..].fill(1.0);
    } else {
        let named = |q: &str| {
            args.mix
                .iter()
                .flat_map(|m| m.split(','))
                .any(|p| p.split('=').next().map(str::trim) == Some(q))
        };
        for (i, q) in args.queries.iter().enumerate() {
            if !named(q.name()) {
                mix[builtin::QUERY_NAMES.len() + i] = 1.0;
            }
        }
    }
    std::fs::create_dir_all(&args.out).map_err(|e| format!("--out {}: {e}", args.out.display()))?;
    if let Some(path) = &args.keep_rows {
        let db = redb::Database::create(path)
            .map_err(|e| format!("--keep-rows {}: {e}", path.display()))?;
        lab = lab.keep_rows(std::sync::Arc::new(db));
    }
    let report = {
        let mut store = store(&args, split_bytes)?;
        lab.run(store.as_mut())?
    };
    let mut report = report.with_mix(mix);
    // An entity by its name when the CSV's ids are strings.
    let entity = |id: u64| match &user_names {
        Some(n) => n
            .get(id as usize)
            .cloned()
            .unwrap_or_else(|| id.to_string()),
        None => id.to_string(),
    };
    report.notes.push(format!(
        "The per-user queries ask about entity {} ({}, {:.2}% of the writes).",
        entity(subjects.user),
        match args.entity {
            Entity::Hottest => "the hottest",
            Entity::Median => "the median by events",
            Entity::Id(_) => "as asked",
        },
        entity_share * 100.0
    ));
    report.notes.push(format!(
        "Hottest entities: {}.",
        hottest
            .iter()
            .map(|(u, s)| format!("{} ({:.2}% of the writes)", entity(*u), s * 100.0))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    if let Some(note) = sampled {
        report.notes.push(note);
    }
    if let Some(step) = migrate_step(&report, args.table_layout.as_ref()) {
        report.notes.push(step);
    }
    let outputs = report::write(&report, &args.out)?;
    let source = match &args.csv {
        Some(path) => format!("events from {}", path.display()),
        None => format!(
            "workload {} ({} {}, seed {})",
            Workload::from(args.workload),
            args.users,
            Workload::from(args.workload).entity(),
            args.seed
        ),
    };
    println!("{source}");
    print!("{}", report::format_table(&report));
    let dir = std::fs::canonicalize(&args.out).unwrap_or(args.out.clone());
    println!("\nreport and heatmaps in {}:", dir.display());
    println!("  {}", outputs.html.display());
    for path in &outputs.heatmaps {
        println!("  {}", path.display());
    }
    if let (Some(path), Some(first)) = (&args.keep_rows, report.designs.first()) {
        println!(
            "\nthe rows of each design in {} (a table per design); ask one with SQL:",
            path.display()
        );
        let args = rowkey_lab::kept::sql_args(path, &first.name, first.layout);
        println!("  {}", rowkey_lab::kept::shell_line(&args));
    }
    Ok(())
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rowkey-lab: {}", chain(&*e));
            ExitCode::FAILURE
        }
    }
}
