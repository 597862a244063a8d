//! The hot-spot lab: one workload, four row-key designs, measured on redb.
//!
//! Each design is a `#[derive(RowKey)]` struct. The lab writes the same
//! events under each design into its own redb database, while a region model
//! splits the key space the way HBase does (pre-split at `split_points()` for
//! salted designs, 16 even splits of the first byte otherwise, and a region
//! splits at its middle key once it holds more than `split_rows` rows). It
//! reports how concentrated the recent writes are and runs three typical
//! queries on each design, checking every answer against the workload.

use std::collections::HashMap;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use redb::{Database, Durability, ReadableDatabase, ReadableTable, TableDefinition};
use rowkey_core::prelude::*;
use rowkey_core::{merge_salted, Layout, Scan};

const TABLE: TableDefinition<'_, &[u8], u8> = TableDefinition::new("events");
const EPOCH: i64 = 1_700_000_000_000;
const BUCKETS: usize = 16;

/// Row key: timestamp first, the naive design.
#[derive(RowKey, Debug, Clone, Copy, PartialEq)]
pub struct TsFirst {
    /// Event time, milliseconds.
    pub ts_millis: i64,
    /// The user.
    pub user_id: u64,
}

/// Row key: the timestamp's bytes reversed, so the fast-changing low byte
/// leads.
#[derive(RowKey, Debug, Clone, Copy, PartialEq)]
pub struct ReversedTs {
    /// Event time, milliseconds, bytes reversed.
    #[reverse]
    pub ts_millis: i64,
    /// The user.
    pub user_id: u64,
}

/// Row key: a salt byte over the whole key, then timestamp first.
#[derive(RowKey, Debug, Clone, Copy, PartialEq)]
#[salt(buckets = 16)]
pub struct SaltedTs {
    /// Event time, milliseconds.
    pub ts_millis: i64,
    /// The user.
    pub user_id: u64,
}

/// Row key: field promotion. Salted by user, user first, newest first.
#[derive(RowKey, Debug, Clone, Copy, PartialEq)]
#[salt(buckets = 16, by(user_id))]
pub struct UserNewest {
    /// The user.
    pub user_id: u64,
    /// Event time, milliseconds, newest first.
    #[desc_ts]
    pub ts_millis: i64,
}

/// The lab's settings.
#[derive(Debug, Clone)]
pub struct Config {
    /// Number of events.
    pub events: usize,
    /// Number of distinct users (activity is Zipf-distributed over them).
    pub users: u32,
    /// Seed of the workload generator.
    pub seed: u64,
    /// A region splits when it holds more rows than this; 0: `events / 16`.
    pub split_rows: usize,
    /// The share of the ingest, at its end, whose write spread is measured.
    pub tail: f64,
    /// Where the databases (removed afterwards) and the picture go.
    pub dir: PathBuf,
    /// Show progress bars.
    pub progress: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            events: 1_000_000,
            users: 5_000,
            seed: 42,
            split_rows: 0,
            tail: 0.1,
            dir: std::env::temp_dir().join("rowkey-hotspots"),
            progress: true,
        }
    }
}

/// One event of the workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    /// The user.
    pub user_id: u64,
    /// Event time, milliseconds; strictly increasing, as in live ingest.
    pub ts_millis: i64,
}

/// splitmix64: a small, good generator, so the workload is reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A live-ingest workload: timestamps increasing by 1 to 170 ms (a million
/// events span about a day), users drawn
/// from a Zipf distribution (exponent 1.1) so a few users are very active.
pub fn workload(cfg: &Config) -> Vec<Event> {
    let mut rng = Rng(cfg.seed);
    let users = cfg.users.max(1);
    let mut cdf = Vec::with_capacity(users as usize);
    let mut total = 0.0;
    for rank in 1..=users {
        total += 1.0 / f64::from(rank).powf(1.1);
        cdf.push(total);
    }
    let mut ts = EPOCH;
    (0..cfg.events)
        .map(|_| {
            ts += 1 + (rng.next() % 170) as i64;
            let u = rng.unit() * total;
            let rank = cdf.partition_point(|&c| c < u).min(users as usize - 1);
            Event {
                user_id: rank as u64 + 1,
                ts_millis: ts,
            }
        })
        .collect()
}

/// The four designs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Design {
    /// `[ts][user]`.
    TsFirst,
    /// `[reversed ts][user]`.
    ReversedTs,
    /// `[salt(all)][ts][user]`.
    SaltedTs,
    /// `[salt(user)][user][MAX - ts]`.
    UserNewest,
}

impl Design {
    /// All designs, in report order.
    pub const ALL: [Design; 4] = [
        Design::TsFirst,
        Design::ReversedTs,
        Design::SaltedTs,
        Design::UserNewest,
    ];

    /// A short name.
    pub fn name(self) -> &'static str {
        match self {
            Design::TsFirst => "timestamp first",
            Design::ReversedTs => "reversed timestamp",
            Design::SaltedTs => "salted (16)",
            Design::UserNewest => "salt by user, newest first",
        }
    }

    /// The key layout, from the key type's descriptor: its `Display` is the
    /// one-line summary the report shows.
    pub fn layout(self) -> &'static Layout {
        match self {
            Design::TsFirst => TsFirst::LAYOUT,
            Design::ReversedTs => ReversedTs::LAYOUT,
            Design::SaltedTs => SaltedTs::LAYOUT,
            Design::UserNewest => UserNewest::LAYOUT,
        }
    }

    fn key(self, e: &Event) -> Vec<u8> {
        let (user_id, ts_millis) = (e.user_id, e.ts_millis);
        match self {
            Design::TsFirst => TsFirst { ts_millis, user_id }.encode().to_vec(),
            Design::ReversedTs => ReversedTs { ts_millis, user_id }.encode().to_vec(),
            Design::SaltedTs => SaltedTs { ts_millis, user_id }.encode().to_vec(),
            Design::UserNewest => UserNewest { user_id, ts_millis }.encode().to_vec(),
        }
    }

    fn event(self, key: &[u8]) -> Event {
        let (user_id, ts_millis) = match self {
            Design::TsFirst => TsFirst::decode(key).map(|k| (k.user_id, k.ts_millis)),
            Design::ReversedTs => ReversedTs::decode(key).map(|k| (k.user_id, k.ts_millis)),
            Design::SaltedTs => SaltedTs::decode(key).map(|k| (k.user_id, k.ts_millis)),
            Design::UserNewest => UserNewest::decode(key).map(|k| (k.user_id, k.ts_millis)),
        }
        .expect("the lab decodes only keys it wrote");
        Event { user_id, ts_millis }
    }

    /// Where the table starts split: one region per bucket when salted,
    /// 16 even splits of the first byte otherwise.
    fn initial_splits(self) -> Vec<Vec<u8>> {
        match self {
            Design::SaltedTs => SaltedTs::split_points(),
            Design::UserNewest => UserNewest::split_points(),
            _ => (1..BUCKETS)
                .map(|i| vec![(i * 256 / BUCKETS) as u8])
                .collect(),
        }
    }
}

/// The table's regions, split as HBase splits them.
struct Regions {
    /// Start key of each region; the first is empty.
    starts: Vec<Vec<u8>>,
    rows: Vec<usize>,
    split_rows: usize,
    splits: usize,
}

impl Regions {
    fn new(splits: Vec<Vec<u8>>, split_rows: usize) -> Self {
        let mut starts = vec![Vec::new()];
        starts.extend(splits);
        let rows = vec![0; starts.len()];
        Regions {
            starts,
            rows,
            split_rows,
            splits: 0,
        }
    }

    fn region_of(&self, key: &[u8]) -> usize {
        self.starts.partition_point(|s| s.as_slice() <= key) - 1
    }

    fn end_of(&self, i: usize) -> Bound<&[u8]> {
        self.starts
            .get(i + 1)
            .map_or(Bound::Unbounded, |s| Bound::Excluded(s.as_slice()))
    }
}

/// What the ingest of one design measured.
#[derive(Debug, Clone)]
pub struct Ingest {
    /// The design.
    pub design: Design,
    /// Mean, over windows of the ingest's tail, of the share of the window's
    /// writes that went to the busiest region.
    pub hottest_share: f64,
    /// Regions at the end.
    pub regions: usize,
    /// Splits during the ingest.
    pub splits: usize,
    /// Rows in the largest region over the mean rows per region.
    pub max_over_mean: f64,
    /// Each final region's share of the tail's writes, in key order.
    pub tail_shares: Vec<f64>,
    /// Wall time of the ingest (writes and region bookkeeping).
    pub elapsed: Duration,
}

/// One query on one design.
#[derive(Debug, Clone)]
pub struct QueryRun {
    /// Ranges the store was asked for.
    pub ranges: usize,
    /// Rows the store returned before the answer was complete.
    pub rows_read: usize,
    /// Rows in the answer.
    pub rows: usize,
    /// Fastest of three runs.
    pub time: Duration,
}

/// The three typical queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Query {
    /// The 20 newest events of one user.
    Latest20,
    /// Every event of the last minute.
    LastMinute,
    /// One user's events in a one-hour window.
    UserHour,
}

impl Query {
    /// All queries, in report order.
    pub const ALL: [Query; 3] = [Query::Latest20, Query::LastMinute, Query::UserHour];

    /// What the query asks.
    pub fn describe(self) -> &'static str {
        match self {
            Query::Latest20 => "latest 20 events of one user",
            Query::LastMinute => "all events of the last minute",
            Query::UserHour => "one user's events in an hour window",
        }
    }
}

/// Everything the lab measured.
#[derive(Debug, Clone)]
pub struct Report {
    /// Per design, in [`Design::ALL`] order.
    pub ingests: Vec<Ingest>,
    /// `queries[q][d]`: query `q` (in [`Query::ALL`] order) on design `d`.
    pub queries: Vec<Vec<QueryRun>>,
    /// The user the per-user queries ask about.
    pub user: u64,
    /// Where the picture was written.
    pub svg: PathBuf,
}

fn progress(cfg: &Config, len: usize, what: &str) -> ProgressBar {
    if !cfg.progress {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len as u64);
    bar.set_style(
        ProgressStyle::with_template("{msg:28} [{bar:40}] {pos}/{len} {per_sec}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}

type LabResult<T> = Result<T, Box<dyn std::error::Error>>;

/// Writes the events under one design, tracking regions and the tail's
/// write spread.
fn ingest(cfg: &Config, design: Design, events: &[Event], db: &Database) -> LabResult<Ingest> {
    let start = Instant::now();
    let split_rows = if cfg.split_rows == 0 {
        (events.len() / 16).max(64)
    } else {
        cfg.split_rows
    };
    let mut regions = Regions::new(design.initial_splits(), split_rows);
    let tail_from = events.len() - ((events.len() as f64 * cfg.tail) as usize).min(events.len());
    let window = ((events.len() - tail_from) / 20).max(50);
    let mut window_counts: HashMap<Vec<u8>, usize> = HashMap::new();
    let (mut window_len, mut share_sum, mut windows) = (0usize, 0.0, 0usize);
    let mut tail_keys = Vec::with_capacity(events.len() - tail_from);
    let bar = progress(cfg, events.len(), design.name());
    for (chunk_no, chunk) in events.chunks(50_000).enumerate() {
        let mut tx = db.begin_write()?;
        tx.set_durability(Durability::None)?;
        {
            let mut table = tx.open_table(TABLE)?;
            for (j, e) in chunk.iter().enumerate() {
                let i = chunk_no * 50_000 + j;
                let key = design.key(e);
                table.insert(key.as_slice(), 0)?;
                let r = regions.region_of(&key);
                regions.rows[r] += 1;
                if i >= tail_from {
                    // Count by region start key, so that splits inside a
                    // window do not mix regions up.
                    *window_counts.entry(regions.starts[r].clone()).or_default() += 1;
                    window_len += 1;
                    if window_len == window {
                        share_sum +=
                            *window_counts.values().max().unwrap_or(&0) as f64 / window as f64;
                        windows += 1;
                        window_counts.clear();
                        window_len = 0;
                    }
                    tail_keys.push(key.clone());
                }
                if regions.rows[r] > regions.split_rows {
                    // Split at the middle key, as HBase does.
                    let low = Bound::Included(regions.starts[r].as_slice());
                    let mid = {
                        let mut it = table.range::<&[u8]>((low, regions.end_of(r)))?;
                        it.nth(regions.rows[r] / 2)
                            .transpose()?
                            .map(|(k, _)| k.value().to_vec())
                    };
                    if let Some(mid) = mid {
                        let left = regions.rows[r] / 2;
                        regions.starts.insert(r + 1, mid);
                        regions.rows.insert(r + 1, regions.rows[r] - left);
                        regions.rows[r] = left;
                        regions.splits += 1;
                    }
                }
            }
        }
        tx.commit()?;
        bar.inc(chunk.len() as u64);
    }
    bar.finish_and_clear();
    let mut tail = vec![0usize; regions.starts.len()];
    for k in &tail_keys {
        tail[regions.region_of(k)] += 1;
    }
    let n_tail = tail_keys.len().max(1) as f64;
    let mean = events.len() as f64 / regions.rows.len() as f64;
    Ok(Ingest {
        design,
        hottest_share: if windows == 0 {
            0.0
        } else {
            share_sum / windows as f64
        },
        regions: regions.starts.len(),
        splits: regions.splits,
        max_over_mean: *regions.rows.iter().max().unwrap_or(&0) as f64 / mean,
        tail_shares: tail.iter().map(|&c| c as f64 / n_tail).collect(),
        elapsed: start.elapsed(),
    })
}

/// Reads a scan's ranges from the store, in unsalted key order, stopping
/// once `enough` says the answer is complete.
fn read_scan(
    db: &Database,
    design: Design,
    scan: &Scan,
    mut keep: impl FnMut(&Event) -> bool,
    limit: usize,
) -> LabResult<(usize, Vec<Event>)> {
    let tx = db.begin_read()?;
    let table = tx.open_table(TABLE)?;
    let streams = scan
        .ranges()
        .map(|r| {
            table
                .range::<&[u8]>(r.bounds())
                .map(|it| it.map(|e| e.map(|(k, _)| (k.value().to_vec(), ()))))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (mut read, mut out) = (0, Vec::new());
    for item in merge_salted(streams) {
        let (key, ()) = item?;
        read += 1;
        let e = design.event(&key);
        if keep(&e) {
            out.push(e);
            if out.len() == limit {
                break;
            }
        }
    }
    Ok((read, out))
}

/// Newest-first reverse reads of each range (for designs whose key order is
/// oldest first), merged, until `limit` matches.
fn read_newest(
    db: &Database,
    design: Design,
    scan: &Scan,
    keep: impl Fn(&Event) -> bool,
    limit: usize,
) -> LabResult<(usize, Vec<Event>)> {
    let tx = db.begin_read()?;
    let table = tx.open_table(TABLE)?;
    let (mut read, mut found) = (0, Vec::new());
    for r in scan.ranges() {
        let mut n = 0;
        for item in table.range::<&[u8]>(r.bounds())?.rev() {
            let (k, _) = item?;
            read += 1;
            let e = design.event(k.value());
            if keep(&e) {
                found.push(e);
                n += 1;
                if n == limit {
                    break;
                }
            }
        }
    }
    found.sort_by_key(|e| std::cmp::Reverse(e.ts_millis));
    found.truncate(limit);
    Ok((read, found))
}

/// Runs one query on one design; returns the rows read and the answer in
/// the order the query asks for (newest first).
fn run_query(
    db: &Database,
    design: Design,
    q: Query,
    user: u64,
    now: i64,
    hour: (i64, i64),
) -> LabResult<(usize, usize, Vec<Event>)> {
    let all = usize::MAX;
    let newest_first = |mut v: Vec<Event>| {
        v.sort_by_key(|e| std::cmp::Reverse(e.ts_millis));
        v
    };
    let (scan, (read, found)) = match (design, q) {
        (Design::UserNewest, Query::Latest20) => {
            let s = UserNewest::scan_by_user_id(user);
            let r = read_scan(db, design, &s, |_| true, 20)?;
            (s, r)
        }
        (Design::UserNewest, Query::UserHour) => {
            let s = UserNewest::range_by_user_id_ts_millis(user, hour.0..hour.1);
            let r = read_scan(db, design, &s, |_| true, all)?;
            (s, r)
        }
        (Design::UserNewest, Query::LastMinute) => {
            let s = UserNewest::scan_all();
            let (read, found) = read_scan(db, design, &s, |e| e.ts_millis > now - 60_000, all)?;
            (s, (read, newest_first(found)))
        }
        (Design::ReversedTs, _) => {
            // Reversed bytes have no time order: every query reads everything.
            let s = ReversedTs::scan_all();
            let keep = |e: &Event| match q {
                Query::Latest20 => e.user_id == user,
                Query::LastMinute => e.ts_millis > now - 60_000,
                Query::UserHour => e.user_id == user && (hour.0..hour.1).contains(&e.ts_millis),
            };
            let (read, mut found) = read_scan(db, design, &s, keep, all)?;
            found = newest_first(found);
            if q == Query::Latest20 {
                found.truncate(20);
            }
            (s, (read, found))
        }
        (Design::TsFirst | Design::SaltedTs, Query::Latest20) => {
            let s = if design == Design::TsFirst {
                TsFirst::scan_all()
            } else {
                SaltedTs::scan_all()
            };
            let r = read_newest(db, design, &s, |e| e.user_id == user, 20)?;
            (s, r)
        }
        (Design::TsFirst | Design::SaltedTs, Query::LastMinute | Query::UserHour) => {
            let (range, for_user) = match q {
                Query::LastMinute => ((Bound::Excluded(now - 60_000), Bound::Unbounded), false),
                _ => ((Bound::Included(hour.0), Bound::Excluded(hour.1)), true),
            };
            let s = if design == Design::TsFirst {
                TsFirst::range_by_ts_millis(range)
            } else {
                SaltedTs::range_by_ts_millis(range)
            };
            let (read, found) = read_scan(db, design, &s, |e| !for_user || e.user_id == user, all)?;
            (s, (read, newest_first(found)))
        }
    };
    Ok((scan.range_count(), read, found))
}

/// The expected answer of a query, from the workload itself.
fn expected(events: &[Event], q: Query, user: u64, now: i64, hour: (i64, i64)) -> Vec<Event> {
    let mut v: Vec<Event> = events
        .iter()
        .filter(|e| match q {
            Query::Latest20 => e.user_id == user,
            Query::LastMinute => e.ts_millis > now - 60_000,
            Query::UserHour => e.user_id == user && (hour.0..hour.1).contains(&e.ts_millis),
        })
        .copied()
        .collect();
    v.sort_by_key(|e| std::cmp::Reverse(e.ts_millis));
    if q == Query::Latest20 {
        v.truncate(20);
    }
    v
}

/// Runs the lab: ingest under every design, the three queries on each
/// (every answer checked against the workload), and the picture.
pub fn run(cfg: &Config) -> LabResult<Report> {
    std::fs::create_dir_all(&cfg.dir)?;
    let events = workload(cfg);
    let now = events.last().map_or(EPOCH, |e| e.ts_millis);
    let first = events.first().map_or(EPOCH, |e| e.ts_millis);
    // An hour window in the middle of the data (or all of it when shorter).
    let mid = first + (now - first) / 2;
    let hour = (mid - 1_800_000, mid + 1_800_000);
    // The 10th most active user: busy, but not the busiest.
    let mut counts: HashMap<u64, usize> = HashMap::new();
    for e in &events {
        *counts.entry(e.user_id).or_default() += 1;
    }
    let mut by_count: Vec<(usize, u64)> = counts.into_iter().map(|(u, c)| (c, u)).collect();
    by_count.sort_unstable_by(|a, b| b.cmp(a));
    let user = by_count.get(9).or(by_count.last()).map_or(1, |&(_, u)| u);

    let mut ingests = Vec::new();
    let mut queries = vec![Vec::new(); Query::ALL.len()];
    for design in Design::ALL {
        let path = cfg
            .dir
            .join(format!("{}-{:?}.redb", std::process::id(), design));
        let _ = std::fs::remove_file(&path);
        let result = (|| -> LabResult<()> {
            let db = Database::create(&path)?;
            ingests.push(ingest(cfg, design, &events, &db)?);
            for (qi, q) in Query::ALL.into_iter().enumerate() {
                let want = expected(&events, q, user, now, hour);
                let mut best: Option<QueryRun> = None;
                for _ in 0..3 {
                    let t = Instant::now();
                    let (ranges, rows_read, got) = run_query(&db, design, q, user, now, hour)?;
                    let time = t.elapsed();
                    if got != want {
                        return Err(format!(
                            "{} / {}: {} rows, expected {}",
                            design.name(),
                            q.describe(),
                            got.len(),
                            want.len()
                        )
                        .into());
                    }
                    if best.as_ref().is_none_or(|b| time < b.time) {
                        best = Some(QueryRun {
                            ranges,
                            rows_read,
                            rows: got.len(),
                            time,
                        });
                    }
                }
                queries[qi].push(best.expect("three runs"));
            }
            Ok(())
        })();
        let _ = std::fs::remove_file(&path);
        result?;
    }
    let svg = cfg.dir.join("hotspots.svg");
    draw(&ingests, cfg.tail, &svg)?;
    Ok(Report {
        ingests,
        queries,
        user,
        svg,
    })
}

/// One panel per design: each region's share of the tail's writes.
fn draw(ingests: &[Ingest], tail: f64, path: &Path) -> LabResult<()> {
    use plotters::prelude::*;
    let root = SVGBackend::new(path, (900, 220 * ingests.len() as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    for (area, ing) in root.split_evenly((ingests.len(), 1)).iter().zip(ingests) {
        let n = ing.tail_shares.len();
        let mut chart = ChartBuilder::on(area)
            .caption(
                format!(
                    "{}: {} regions, busiest takes {:.0}% of the last {:.0}% of writes",
                    ing.design.name(),
                    n,
                    ing.hottest_share * 100.0,
                    tail * 100.0
                ),
                ("sans-serif", 16),
            )
            .margin(8)
            .x_label_area_size(24)
            .y_label_area_size(48)
            .build_cartesian_2d(0..n, 0.0..100.0)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("region, in key order")
            .y_desc("% of recent writes")
            .draw()?;
        chart.draw_series(ing.tail_shares.iter().enumerate().map(|(i, s)| {
            let color = if *s > 0.5 { RED } else { BLUE };
            Rectangle::new([(i, 0.0), (i + 1, s * 100.0)], color.mix(0.7).filled())
        }))?;
    }
    root.present()?;
    Ok(())
}

/// The report as a terminal table, naming the winner of each query.
pub fn format_report(cfg: &Config, r: &Report) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} events, {} users (Zipf), seed {}; regions split above {} rows\n",
        cfg.events,
        cfg.users,
        cfg.seed,
        if cfg.split_rows == 0 {
            (cfg.events / 16).max(64)
        } else {
            cfg.split_rows
        }
    );
    // The layout column is as wide as the longest summary.
    let w = r
        .ingests
        .iter()
        .map(|i| i.design.layout().to_string().len())
        .max()
        .unwrap_or(0)
        .max("key layout".len());
    let _ = writeln!(
        s,
        "{:<28} {:<w$} {:>12} {:>8} {:>9} {:>8}",
        "design", "key layout", "busiest rgn", "regions", "max/mean", "ingest"
    );
    let _ = writeln!(
        s,
        "{:<28} {:<w$} {:>12}",
        "",
        "",
        format!("(last {:.0}%)", cfg.tail * 100.0)
    );
    for i in &r.ingests {
        let _ = writeln!(
            s,
            "{:<28} {:<w$} {:>11.1}% {:>8} {:>9.2} {:>7.2}s",
            i.design.name(),
            i.design.layout().to_string(),
            i.hottest_share * 100.0,
            i.regions,
            i.max_over_mean,
            i.elapsed.as_secs_f64()
        );
    }
    for (qi, q) in Query::ALL.into_iter().enumerate() {
        let who = if q == Query::LastMinute {
            String::new()
        } else {
            format!(" (user {})", r.user)
        };
        let _ = writeln!(s, "\n{}{who}", q.describe());
        let _ = writeln!(
            s,
            "  {:<28} {:>7} {:>10} {:>7} {:>10}",
            "design", "ranges", "rows read", "rows", "time"
        );
        for (d, run) in Design::ALL.into_iter().zip(&r.queries[qi]) {
            let _ = writeln!(
                s,
                "  {:<28} {:>7} {:>10} {:>7} {:>8.2}ms",
                d.name(),
                run.ranges,
                run.rows_read,
                run.rows,
                run.time.as_secs_f64() * 1e3
            );
        }
        if let Some(w) = winner(r, qi) {
            let _ = writeln!(s, "  winner: {}", w.name());
        }
    }
    let _ = writeln!(
        s,
        "\npicture of the recent writes per region: {}",
        r.svg.display()
    );
    s
}

/// The design that read the fewest rows for query `qi` (ties: the fastest).
pub fn winner(r: &Report, qi: usize) -> Option<Design> {
    Design::ALL
        .into_iter()
        .zip(&r.queries[qi])
        .min_by(|a, b| {
            a.1.rows_read
                .cmp(&b.1.rows_read)
                .then(a.1.time.cmp(&b.1.time))
        })
        .map(|(d, _)| d)
}
