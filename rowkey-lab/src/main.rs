//! The hot-spot lab's command: a workload (generated, or your CSV) stored
//! under row-key designs, with HBase-style regions and servers, measured,
//! queried, and drawn as key-visualizer heatmaps in an HTML report.
//!
//! Run: `cargo run --release -p rowkey-lab -- --help`

use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::PossibleValuesParser;
use clap::{Parser, ValueEnum};
use rowkey_core::DynLayout;
use rowkey_lab::builtin::{self, Entity, Subjects, DEFAULT_DESIGNS, DEFAULT_MIX, DESIGNS};
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
    #[arg(long = "design", value_name = "NAME=LAYOUT", value_parser = runtime::parse_design)]
    own_designs: Vec<(String, DynLayout)>,

    /// The query mix the verdict weighs: how often each query runs
    /// (`latest`: one entity's latest 20; `minute`: everything of the last
    /// minute; `hour`: one entity's hour). A query not named weighs 0.
    #[arg(long, value_name = "Q=W,...", default_value = DEFAULT_MIX, value_parser = mix)]
    mix: Mix,

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

/// A query mix's weights (a type of its own: clap reads a `Vec` as
/// repeated values).
#[derive(Debug, Clone)]
struct Mix(Vec<f64>);

fn mix(s: &str) -> Result<Mix, String> {
    builtin::parse_mix(s).map(Mix)
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
    for name in names {
        lab = lab.design(builtin::design_for(name, subjects).expect("clap checked the name"));
    }
    for (name, layout) in &args.own_designs {
        let d = runtime::design(name, layout.clone(), &columns, subjects, user_names.clone())
            .map_err(|e| format!("--design {name}: {e}"))?;
        lab = lab.design(d);
    }
    for q in builtin::queries(subjects) {
        lab = lab.query(q);
    }
    std::fs::create_dir_all(&args.out).map_err(|e| format!("--out {}: {e}", args.out.display()))?;
    let report = {
        let mut store = store(&args, split_bytes)?;
        lab.run(store.as_mut())?
    };
    let mut report = report.with_mix(args.mix.0.clone());
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
    Ok(())
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rowkey-lab: {e}");
            ExitCode::FAILURE
        }
    }
}
