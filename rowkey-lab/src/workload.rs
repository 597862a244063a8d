//! Workloads: the built-in generators and a reader for your own events.
//!
//! Every built-in workload produces [`Event`]s, one entity (a user, a device,
//! an order, a phone number) and a time, in arrival order, so the built-in
//! designs and queries work on all of them. A workload of your own types
//! needs no `Event` at all: hand [`Lab::new`](crate::Lab::new) any `Vec<E>`.

use std::fmt;
use std::io::Read;
use std::path::Path;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, Zipf};

/// One event of the built-in workloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Event {
    /// The entity the event belongs to: a user, a device, an order id, a
    /// phone number.
    pub user_id: u64,
    /// Event time, milliseconds since the Unix epoch.
    pub ts_millis: i64,
}

/// Where the built-in workloads' clocks start: 2023-11-14T22:13:20Z.
pub const EPOCH_MILLIS: i64 = 1_700_000_000_000;

/// The built-in workload generators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// Live ingest: one event at a time, 1 to 170 ms apart, from `entities`
    /// users whose activity is Zipf-distributed (exponent 1.1), so a few
    /// users are very active.
    Ingest,
    /// OpenTSDB-style time series: `entities` devices each report every
    /// 10 seconds (with up to a second of jitter).
    TimeSeries,
    /// Orders with sequential ids (1, 2, 3, ...), one every 1 to 50 ms.
    Orders,
    /// Call records: `entities` subscribers with 11-digit phone numbers
    /// (`1xx xxxx xxxx`), Zipf-distributed activity, one call every 1 to
    /// 100 ms.
    Calls,
}

impl Workload {
    /// Every generator, in the order `--help` lists them.
    pub const ALL: [Workload; 4] = [
        Workload::Ingest,
        Workload::TimeSeries,
        Workload::Orders,
        Workload::Calls,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Ingest => "ingest",
            Workload::TimeSeries => "timeseries",
            Workload::Orders => "orders",
            Workload::Calls => "calls",
        }
    }

    /// What the entity of an event is in this workload.
    pub fn entity(self) -> &'static str {
        match self {
            Workload::Ingest => "users",
            Workload::TimeSeries => "devices",
            Workload::Orders => "orders",
            Workload::Calls => "subscribers",
        }
    }

    /// `events` events over `entities` entities, reproducible from `seed`.
    /// `entities` is ignored by [`Workload::Orders`] (every order is new) and
    /// treated as at least 1 by the others.
    ///
    /// ```
    /// use rowkey_lab::Workload;
    /// let events = Workload::Ingest.generate(1_000, 50, 7);
    /// assert_eq!(events.len(), 1_000);
    /// assert!(events.windows(2).all(|w| w[0].ts_millis < w[1].ts_millis));
    /// assert!(events.iter().all(|e| (1..=50).contains(&e.user_id)));
    /// assert_eq!(events, Workload::Ingest.generate(1_000, 50, 7));
    /// ```
    pub fn generate(self, events: usize, entities: u64, seed: u64) -> Vec<Event> {
        let mut rng = StdRng::seed_from_u64(seed);
        let entities = entities.max(1);
        // Zipf over 1..=entities; `Zipf::new` fails only for n < 1 or s < 0.
        let zipf = Zipf::new(entities as f64, 1.1).expect("n >= 1 and s >= 0");
        let mut ts = EPOCH_MILLIS;
        match self {
            Workload::Ingest => (0..events)
                .map(|_| {
                    ts += rng.random_range(1..=170);
                    let user_id = (zipf.sample(&mut rng) as u64).clamp(1, entities);
                    Event {
                        user_id,
                        ts_millis: ts,
                    }
                })
                .collect(),
            Workload::Calls => {
                // A fixed pool of phone numbers, ranked by activity.
                let phones: Vec<u64> = (0..entities)
                    .map(|_| rng.random_range(13_000_000_000..=19_999_999_999))
                    .collect();
                (0..events)
                    .map(|_| {
                        ts += rng.random_range(1..=100);
                        let rank = (zipf.sample(&mut rng) as u64).clamp(1, entities);
                        Event {
                            user_id: phones[(rank - 1) as usize],
                            ts_millis: ts,
                        }
                    })
                    .collect()
            }
            Workload::Orders => (1..=events as u64)
                .map(|id| {
                    ts += rng.random_range(1..=50);
                    Event {
                        user_id: id,
                        ts_millis: ts,
                    }
                })
                .collect(),
            Workload::TimeSeries => {
                // Device d reports at t0 + k * 10 s + jitter; merged in time
                // order, as a collector receives them.
                let mut out = Vec::with_capacity(events);
                let mut round = 0i64;
                while out.len() < events {
                    let base = EPOCH_MILLIS + round * 10_000;
                    let mut batch: Vec<Event> = (1..=entities)
                        .take(events - out.len())
                        .map(|device| Event {
                            user_id: device,
                            ts_millis: base + rng.random_range(0..1_000),
                        })
                        .collect();
                    batch.sort_by_key(|e| (e.ts_millis, e.user_id));
                    out.extend(batch);
                    round += 1;
                }
                out
            }
        }
    }
}

impl fmt::Display for Workload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A CSV input that cannot be read as events.
#[derive(Debug, thiserror::Error)]
pub enum CsvError {
    /// The file could not be opened or read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The header has no column of that name.
    #[error("the CSV header has no column `{column}` (it has: {header})")]
    MissingColumn {
        /// The column asked for.
        column: String,
        /// The header's columns, comma-separated.
        header: String,
    },
    /// A line is not valid CSV, or has too few fields.
    #[error("line {line}: {message}")]
    Malformed {
        /// The 1-based line number in the file.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// A value is not a number of the column's kind.
    #[error("line {line}, column `{column}`: {message}")]
    BadValue {
        /// The 1-based line number in the file.
        line: u64,
        /// The column's name.
        column: String,
        /// The value and what was expected.
        message: String,
    },
    /// The file has a header but no events.
    #[error("no events: the CSV has a header and no rows")]
    Empty,
}

/// Reads events from CSV with a header line: `user_col` holds the entity
/// (an unsigned integer) and `ts_col` the time in milliseconds since the
/// epoch (an integer such as `1700000000123`). Other columns are ignored. Events are sorted by time
/// (stably), since the lab replays them in arrival order.
///
/// Every bad value is an error naming its line and column:
///
/// ```
/// use rowkey_lab::workload::read_csv;
/// let good = "user_id,kind,ts\n7,click,1700000000001\n3,view,1700000000000\n";
/// let events = read_csv(good.as_bytes(), "user_id", "ts").unwrap();
/// assert_eq!((events[0].user_id, events[1].user_id), (3, 7));
///
/// let bad = "user_id,ts\n7,1700000000001\n-3,1700000000000\n";
/// let e = read_csv(bad.as_bytes(), "user_id", "ts").unwrap_err();
/// assert_eq!(e.to_string(), "line 3, column `user_id`: `-3` is not an unsigned integer (0 to 18446744073709551615)");
/// ```
pub fn read_csv(input: impl Read, user_col: &str, ts_col: &str) -> Result<Vec<Event>, CsvError> {
    read(input, user_col, ts_col, false).map(|csv| csv.events)
}

/// Events read from CSV, with the entities' names when they are strings.
#[derive(Debug, Clone, PartialEq)]
pub struct Csv {
    /// The events, in time order.
    pub events: Vec<Event>,
    /// With string entity ids ([`read_csv_named`]): each id's text, by its
    /// number (`events[i].user_id` indexes it).
    pub names: Option<Vec<String>>,
}

/// [`read_csv`] where the entity column holds strings (user names, UUIDs,
/// phone numbers with a `+`): each distinct string is numbered in the
/// order it first appears, [`Event::user_id`] is that number, and
/// [`Csv::names`] gives the strings back (for designs that store the
/// string itself).
///
/// ```
/// use rowkey_lab::workload::read_csv_named;
/// let csv = read_csv_named("user,ts\nbob,2\nal,1\nbob,3\n".as_bytes(), "user", "ts").unwrap();
/// let ids: Vec<u64> = csv.events.iter().map(|e| e.user_id).collect();
/// assert_eq!(ids, [1, 0, 0]);
/// assert_eq!(csv.names.unwrap(), ["bob", "al"]);
/// ```
pub fn read_csv_named(input: impl Read, user_col: &str, ts_col: &str) -> Result<Csv, CsvError> {
    read(input, user_col, ts_col, true)
}

fn read(input: impl Read, user_col: &str, ts_col: &str, named: bool) -> Result<Csv, CsvError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .from_reader(input);
    let header = reader
        .headers()
        .map_err(|e| CsvError::Malformed {
            line: 1,
            message: e.to_string(),
        })?
        .clone();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| CsvError::MissingColumn {
                column: name.to_string(),
                header: header.iter().collect::<Vec<_>>().join(","),
            })
    };
    let (user_at, ts_at) = (column(user_col)?, column(ts_col)?);
    let mut events = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let mut numbers: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
    for record in reader.records() {
        let record = record.map_err(|e| CsvError::Malformed {
            line: e.position().map_or(0, |p| p.line()),
            message: match e.kind() {
                csv::ErrorKind::UnequalLengths {
                    expected_len, len, ..
                } => format!("{len} fields, but the header has {expected_len}"),
                _ => e.to_string(),
            },
        })?;
        let line = record.position().map_or(0, |p| p.line());
        let field = |at: usize, name: &str| {
            record.get(at).ok_or_else(|| CsvError::Malformed {
                line,
                message: format!("no value for column `{name}`"),
            })
        };
        let user = field(user_at, user_col)?;
        let ts = field(ts_at, ts_col)?;
        let user_id = if named {
            *numbers.entry(user.to_owned()).or_insert_with(|| {
                names.push(user.to_owned());
                names.len() as u64 - 1
            })
        } else {
            user.parse::<u64>().map_err(|_| CsvError::BadValue {
                line,
                column: user_col.to_string(),
                message: format!("`{user}` is not an unsigned integer (0 to {})", u64::MAX),
            })?
        };
        let ts_millis = ts.parse::<i64>().map_err(|_| CsvError::BadValue {
            line,
            column: ts_col.to_string(),
            message: format!("`{ts}` is not a time in milliseconds since the epoch (an i64)"),
        })?;
        events.push(Event { user_id, ts_millis });
    }
    if events.is_empty() {
        return Err(CsvError::Empty);
    }
    events.sort_by_key(|e| e.ts_millis);
    Ok(Csv {
        events,
        names: named.then_some(names),
    })
}

/// [`read_csv`] on a file.
pub fn read_csv_file(path: &Path, user_col: &str, ts_col: &str) -> Result<Vec<Event>, CsvError> {
    read_csv(open(path)?, user_col, ts_col)
}

/// [`read_csv_named`] on a file.
pub fn read_csv_file_named(path: &Path, user_col: &str, ts_col: &str) -> Result<Csv, CsvError> {
    read_csv_named(open(path)?, user_col, ts_col)
}

fn open(path: &Path) -> Result<std::io::BufReader<std::fs::File>, CsvError> {
    let file = std::fs::File::open(path).map_err(|source| CsvError::Io {
        path: path.display().to_string(),
        source,
    })?;
    Ok(std::io::BufReader::new(file))
}
