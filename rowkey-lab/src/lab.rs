//! The lab's engine: the ingest with its region model, the queries and
//! their checks, run over every design, generic over your event type.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::design::{Design, Query};
use crate::heatmap::Heatmap;
use crate::regions::{KeyLog, Regions};
use crate::results::{DesignReport, EngineIngest, Ingest, QueryRun, Report, Window};
use crate::settings::Settings;
use crate::store::Store;
use crate::BoxError;

/// A run of the lab: a workload, the designs to compare and the queries to
/// run on each.
///
/// ```
/// use rowkey_core::prelude::*;
/// use rowkey_lab::{Access, Design, Lab, Query, RedbStore};
///
/// #[derive(RowKey)]
/// struct Seq { id: u64 }
///
/// let dir = tempfile::tempdir()?;
/// let events: Vec<u64> = (0..1_000).collect();
/// let report = Lab::new(events)
///     .design(Design::new("seq", |&id: &u64| Seq { id }))
///     .query(Query::new("ids below 10", |&id: &u64| id < 10, |_: &Design<u64>| {
///         Ok::<_, rowkey_lab::BoxError>(Access::scan(Seq::range_by_id(..10)))
///     }))
///     .run(&mut RedbStore::create(dir.path())?)?;
/// let seq = report.design("seq").unwrap();
/// assert_eq!((seq.queries[0].rows_read, seq.queries[0].rows), (10, 10));
/// assert_eq!(seq.ingest.key_bytes, 8_000);
/// # Ok::<(), rowkey_lab::BoxError>(())
/// ```
pub struct Lab<E> {
    events: Vec<E>,
    designs: Vec<Design<E>>,
    queries: Vec<Query<E>>,
    settings: Settings,
    /// Where each design's rows are kept after its run.
    keep: Option<std::sync::Arc<redb::Database>>,
}

impl<E> Lab<E> {
    /// A lab on `events`, in arrival order.
    pub fn new(events: Vec<E>) -> Self {
        Lab {
            events,
            designs: Vec::new(),
            queries: Vec::new(),
            settings: Settings::default(),
            keep: None,
        }
    }

    /// Adds a design.
    pub fn design(mut self, design: Design<E>) -> Self {
        self.designs.push(design);
        self
    }

    /// Adds a query.
    pub fn query(mut self, query: Query<E>) -> Self {
        self.queries.push(query);
        self
    }

    /// Replaces the settings.
    pub fn settings(mut self, settings: Settings) -> Self {
        self.settings = settings;
        self
    }

    /// Keeps each design's rows in `db` after its run, in a table named
    /// as the design (replaced if there is one): the row's key, and as its
    /// value the index of the event it stores, 8 big-endian bytes. A table
    /// `rowkey sql` and `rowkey_sql::KeyTable::redb` read with the design's
    /// layout (`--value event=int64`).
    pub fn keep_rows(mut self, db: std::sync::Arc<redb::Database>) -> Self {
        self.keep = Some(db);
        self
    }

    /// The workload.
    pub fn events(&self) -> &[E] {
        &self.events
    }

    /// Stores the workload under every design, measures, runs every query
    /// on every design and checks each answer against the workload. Where
    /// the store can be shared ([`Store::fork`]), the designs run on as
    /// many threads as there are cores, each design in its own table.
    ///
    /// Two designs with one name are an error: the report and its readers
    /// tell designs apart by name.
    pub fn run(&self, store: &mut dyn Store) -> Result<Report, BoxError>
    where
        E: Sync,
    {
        let mut names = std::collections::HashSet::new();
        if let Some(d) = self.designs.iter().find(|d| !names.insert(d.name())) {
            return Err(format!(
                "two designs are named `{}`: give each its own name",
                d.name()
            )
            .into());
        }
        let bars = indicatif::MultiProgress::new();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut forks: Vec<Box<dyn Store + Send>> = (1..threads.min(self.designs.len()))
            .map_while(|_| store.fork())
            .collect();
        // Each lane (this thread's store, then each fork on a thread of
        // its own) takes the next design not yet taken: the slow designs
        // do not queue behind each other.
        let next = std::sync::atomic::AtomicUsize::new(0);
        let results: std::sync::Mutex<Vec<Option<Result<DesignReport, BoxError>>>> =
            std::sync::Mutex::new((0..self.designs.len()).map(|_| None).collect());
        let lane = |store: &mut dyn Store| loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if i >= self.designs.len() {
                return;
            }
            let result = self.run_in_table(store, i, &bars);
            results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(result);
        };
        std::thread::scope(|scope| {
            for fork in &mut forks {
                let lane = &lane;
                scope.spawn(move || lane(fork.as_mut()));
            }
            lane(store);
        });
        let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
        let designs = results
            .into_iter()
            .map(|r| r.expect("every design ran"))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Report {
            events: self.events.len(),
            store: store.name(),
            settings: self.settings.clone(),
            queries: self.queries.iter().map(|q| q.name.clone()).collect(),
            designs,
            mix: vec![1.0; self.queries.len()],
            notes: Vec::new(),
        })
    }

    /// Design `i` in table `d{i}`, created and dropped here.
    fn run_in_table(
        &self,
        store: &mut dyn Store,
        i: usize,
        bars: &indicatif::MultiProgress,
    ) -> Result<DesignReport, BoxError> {
        let design = &self.designs[i];
        let table = format!("d{i}");
        store.create_table(&table, design.split_points())?;
        let mut result = self.run_design(store, &table, design, bars);
        if let (Ok(_), Some(db)) = (&result, &self.keep) {
            if let Err(e) = crate::kept::keep(store, &table, db, design.name()) {
                let e = rowkey_core::error_chain(&*e);
                result = Err(format!("keeping the rows of `{}`: {e}", design.name()).into());
            }
        }
        let dropped = store.drop_table(&table);
        let report = result?;
        dropped?;
        Ok(report)
    }

    fn run_design(
        &self,
        store: &mut dyn Store,
        table: &str,
        design: &Design<E>,
        bars: &indicatif::MultiProgress,
    ) -> Result<DesignReport, BoxError> {
        let (ingest, regions, alive) = self.ingest(store, table, design, bars)?;
        // The keys again, one at a time: keeping every key of a design
        // (besides the region model's) doubled the lab's memory.
        let heatmap = Heatmap::measure(
            self.events.len(),
            |i, out| design.key_into(&self.events[i], out),
            &regions,
            self.settings.windows,
            self.settings.key_rows,
        )?;
        let engine_heatmap = ingest.engine.as_ref().map(|e| {
            Heatmap::from_engine(&e.window_writes, regions.keys(), self.settings.key_rows)
        });
        drop(regions);
        let mut queries = Vec::with_capacity(self.queries.len());
        for query in &self.queries {
            queries.push(self.run_query(store, table, design, query, &alive)?);
        }
        Ok(DesignReport {
            name: design.name.clone(),
            layout: design.layout,
            ingest,
            engine_heatmap,
            heatmap,
            queries,
        })
    }

    /// Writes every event under `design`, with the region model; returns the
    /// measurements, the final regions and which events' rows survived (an
    /// event whose key a later event repeats was overwritten).
    fn ingest(
        &self,
        store: &mut dyn Store,
        table: &str,
        design: &Design<E>,
        bars: &indicatif::MultiProgress,
    ) -> Result<Ingested, BoxError> {
        // Rows per write transaction: each commit costs a pass over the
        // table's dirty pages (20,000 made the default run 15% slower).
        const BATCH: usize = 100_000;
        let start = Instant::now();
        let s = &self.settings;
        let n = self.events.len();
        let mut regions = Regions::new(design.split_points(), s.split_bytes_for(n), s.servers);
        let balance_every = s.balance_every_for(n);
        // The recent writes (the last `tail` of the events), by the server
        // that took each one when it was written: the busiest-server figure,
        // whatever the measurement windows.
        let recent_from = n - ((n as f64 * s.tail).ceil() as usize).clamp(1, n.max(1));
        let mut recent_server_writes = vec![0usize; regions.servers()];
        let windows = s.windows.clamp(1, n.max(1));
        let mut stats = Vec::with_capacity(windows);
        // The keys not yet written or not yet counted in their window.
        let mut keys = KeyLog::default();
        let mut key = Vec::new();
        // The first event of the current window and of the unwritten batch.
        let (mut window_start, mut batch_start, mut window) = (0, 0, 0);
        let mut alive = vec![true; n];
        let (mut key_bytes, mut overwrites) = (0u64, 0usize);
        let bar = bars.add(progress(s.progress, n, design.name()));
        // The engine's own regions and write counts, where it reports them.
        let mut engine = match store.engine_regions(table) {
            None => None,
            Some(regions) => Some(EngineTrack::new(regions?)),
        };
        let write = |store: &mut dyn Store, keys: &KeyLog, from: usize| {
            let rows: Vec<(&[u8], u64)> = keys
                .iter_from(from)
                .enumerate()
                .map(|(j, k)| (k, (from + j) as u64))
                .collect();
            store.write(table, &rows)
        };
        for (i, event) in self.events.iter().enumerate() {
            design.key_into(event, &mut key).map_err(|e| {
                format!(
                    "design `{}`: the key of event {i} cannot be built: {e}",
                    design.name
                )
            })?;
            let (region, overwritten) = regions.write(&key, i);
            if i >= recent_from {
                // The region index from before any split this write caused:
                // a daughter stays on its parent's server.
                recent_server_writes[regions.server_of(region)] += 1;
            }
            match overwritten {
                None => key_bytes += key.len() as u64,
                Some(old) => {
                    overwrites += 1;
                    alive[old] = false;
                }
            }
            keys.push(&key);
            if i + 1 - batch_start == BATCH {
                write(store, &keys, batch_start)?;
                batch_start = i + 1;
                bar.inc(BATCH as u64);
            }
            if (i + 1) * windows / n > window {
                if let Some(e) = engine.as_mut() {
                    // The window's rows reach the engine before it is asked.
                    write(store, &keys, batch_start)?;
                    bar.inc((i + 1 - batch_start) as u64);
                    batch_start = i + 1;
                    let now = store.engine_regions(table).expect("reported before")?;
                    e.window(now);
                }
                // The window's writes, by the regions and servers at its end:
                // a region that split during the window counts as its
                // daughters, which is where the writes are now served.
                let mut region_writes = vec![0usize; regions.len()];
                let mut server_writes = vec![0usize; regions.servers()];
                let window_keys = keys.iter_from(window_start);
                let window_writes = window_keys.len();
                for k in window_keys {
                    let r = regions.region_of(k);
                    region_writes[r] += 1;
                    server_writes[regions.server_of(r)] += 1;
                }
                let writes = window_writes.max(1) as f64;
                stats.push(Window {
                    writes: window_writes,
                    busiest_region: *region_writes.iter().max().unwrap_or(&0) as f64 / writes,
                    busiest_server: *server_writes.iter().max().unwrap_or(&0) as f64 / writes,
                    regions_written: region_writes.iter().filter(|&&c| c > 0).count(),
                });
                window_start = i + 1;
                window += 1;
            }
            keys.forget_before(batch_start.min(window_start));
            if (i + 1) % balance_every == 0 {
                regions.balance();
            }
        }
        write(store, &keys, batch_start)?;
        bar.finish_and_clear();
        // The busiest region at a time: the mean over the recent windows
        // (a region that takes every write while it splits is busiest in
        // each window, whichever daughter it is).
        let tail = ((stats.len() as f64 * s.tail).ceil() as usize).clamp(1, stats.len().max(1));
        let windows_recent = &stats[stats.len().saturating_sub(tail)..];
        let recent_busiest_region = windows_recent.iter().map(|w| w.busiest_region).sum::<f64>()
            / windows_recent.len().max(1) as f64;
        // The busiest server over the recent writes as one block, by the
        // server that took each write: not a mean over windows, so the
        // figure does not depend on --windows.
        let recent_busiest_server = *recent_server_writes.iter().max().unwrap_or(&0) as f64
            / (n - recent_from).max(1) as f64;
        let rows = regions.keys().len();
        let engine = engine.map(|e| e.finish(tail));
        let ingest = Ingest {
            engine,
            rows,
            overwrites,
            key_bytes,
            regions: regions.len(),
            splits: regions.splits(),
            max_over_mean: *regions.rows().iter().max().unwrap_or(&0) as f64
                / (rows.max(1) as f64 / regions.len() as f64),
            regions_per_server: regions.regions_per_server(),
            recent_busiest_region,
            recent_busiest_server,
            windows: stats,
            elapsed: start.elapsed(),
        };
        Ok((ingest, regions, alive))
    }

    fn run_query(
        &self,
        store: &mut dyn Store,
        table: &str,
        design: &Design<E>,
        query: &Query<E>,
        alive: &[bool],
    ) -> Result<QueryRun, BoxError> {
        let context = || format!("design `{}`, query `{}`", design.name, query.name);
        let access = match design.own_plan(&query.name) {
            Some(plan) => plan(),
            None => (query.plan)(design),
        }
        .map_err(|e| format!("{}: {}", context(), rowkey_core::error_chain(&*e)))?;
        let mut best: Option<QueryRun> = None;
        let mut answer = Vec::new();
        for _ in 0..self.settings.query_runs.max(1) {
            answer.clear();
            let mut read = 0;
            let t = Instant::now();
            let mut bad_index = None;
            // Whether the row is kept; `None`: its index is not an event.
            let keep = |index: u64, answer: &mut Vec<usize>| -> Option<bool> {
                let event = self.events.get(index as usize)?;
                let kept = access.filter.as_ref().is_none_or(|keep| keep(event));
                if kept {
                    answer.push(index as usize);
                }
                Some(kept)
            };
            let reverse = access.reverse && store.reads_reversed();
            let mut seeks = 0;
            if let Some(filter) = &access.skip {
                let cost = store.skip_scan(table, filter, &mut |_, index| {
                    if keep(index, &mut answer).is_none() {
                        bad_index = Some(index);
                        return false;
                    }
                    access.limit.is_none_or(|n| answer.len() < n)
                })?;
                read = cost.rows_read;
                seeks = cost.seeks;
            } else if reverse {
                let mut range_kept = (usize::MAX, 0);
                store.scan_reverse(table, &access.scan, &mut |range, _, index| {
                    read += 1;
                    if range_kept.0 != range {
                        range_kept = (range, 0);
                    }
                    match keep(index, &mut answer) {
                        None => {
                            bad_index = Some(index);
                            false
                        }
                        Some(kept) => {
                            range_kept.1 += usize::from(kept);
                            access.limit.is_none_or(|n| range_kept.1 < n)
                        }
                    }
                })?;
            } else {
                store.scan(table, &access.scan, &mut |_, index| {
                    read += 1;
                    if keep(index, &mut answer).is_none() {
                        bad_index = Some(index);
                        return false;
                    }
                    // A backwards plan run forwards reads every row.
                    access.reverse || access.limit.is_none_or(|n| answer.len() < n)
                })?;
            }
            if let Some((n, time)) = &query.newest {
                if access.limit.is_none() || access.reverse {
                    // The client keeps the newest n of what it read.
                    answer.sort_by_key(|&i| std::cmp::Reverse(time(&self.events[i])));
                    answer.truncate(*n);
                }
            }
            let elapsed = t.elapsed();
            if let Some(index) = bad_index {
                return Err(format!(
                    "{}: a row holds event index {index}, not in the workload",
                    context()
                )
                .into());
            }
            if best.as_ref().is_none_or(|b| elapsed < b.time) {
                best = Some(QueryRun {
                    ranges: access.scan.range_count(),
                    rows_read: read,
                    seeks,
                    rows: answer.len(),
                    time: elapsed,
                });
            }
            // The rows are the same every run: only a cheap query's time,
            // which noise dominates, is worth measuring again.
            if elapsed >= REPEAT_BELOW {
                break;
            }
        }
        self.check(query, &answer, alive)
            .map_err(|e| format!("{}: wrong answer: {e}", context()))?;
        Ok(best.expect("at least one run"))
    }

    /// Checks an answer (event indices) against the workload.
    fn check(&self, query: &Query<E>, answer: &[usize], alive: &[bool]) -> Result<(), String> {
        let mut expected: Vec<usize> = (0..self.events.len())
            .filter(|&i| alive[i] && (query.expect)(&self.events[i]))
            .collect();
        let mut got = answer.to_vec();
        got.sort_unstable();
        if got.windows(2).any(|w| w[0] == w[1]) {
            return Err("a row was returned twice".into());
        }
        if let Some(&i) = got
            .iter()
            .find(|&&i| !alive[i] || !(query.expect)(&self.events[i]))
        {
            return Err(format!("event {i} is not in the answer but was returned"));
        }
        match &query.newest {
            None => {
                if got.len() != expected.len() {
                    return Err(format!("{} rows, expected {}", got.len(), expected.len()));
                }
            }
            Some((n, time)) => {
                expected.sort_by_key(|&i| std::cmp::Reverse(time(&self.events[i])));
                let want = expected.len().min(*n);
                if got.len() != want {
                    return Err(format!("{} rows, expected the newest {want}", got.len()));
                }
                if let Some(&nth) = expected.get(want.wrapping_sub(1)) {
                    let floor = time(&self.events[nth]);
                    if let Some(&i) = got.iter().find(|&&i| time(&self.events[i]) < floor) {
                        return Err(format!("event {i} is not among the newest {want}"));
                    }
                }
            }
        }
        Ok(())
    }
}

/// The engine's regions over an ingest: write counts per window from the
/// engine's own metrics.
struct EngineTrack {
    /// Regions at the start (the pre-split).
    initial: usize,
    /// Each region's write count at the last look, by start key.
    last: std::collections::HashMap<Vec<u8>, u64>,
    /// Per window: the busiest region's share and each server's writes.
    windows: Vec<(f64, std::collections::BTreeMap<String, u64>, u64)>,
    /// Per window, each region's start key and writes.
    window_writes: Vec<Vec<(Vec<u8>, u64)>>,
    /// The regions at the last look.
    regions: Vec<crate::store::EngineRegion>,
}

impl EngineTrack {
    fn new(regions: Vec<crate::store::EngineRegion>) -> Self {
        let last = regions
            .iter()
            .map(|r| (r.start.clone(), r.writes))
            .collect();
        EngineTrack {
            initial: regions.len(),
            last,
            windows: Vec::new(),
            window_writes: Vec::new(),
            regions,
        }
    }

    /// The writes since the last look: a region's count grew by the delta;
    /// a new region (a daughter of a split, or a region reopened on
    /// another server) counts from 0.
    fn window(&mut self, now: Vec<crate::store::EngineRegion>) {
        let mut servers = std::collections::BTreeMap::new();
        let (mut busiest, mut total) = (0u64, 0u64);
        let mut per_region = Vec::with_capacity(now.len());
        for r in &now {
            let before = self.last.get(&r.start).copied().unwrap_or(0);
            let delta = if r.writes >= before {
                r.writes - before
            } else {
                r.writes
            };
            *servers.entry(r.server.clone()).or_insert(0) += delta;
            busiest = busiest.max(delta);
            total += delta;
            per_region.push((r.start.clone(), delta));
        }
        self.window_writes.push(per_region);
        self.last = now.iter().map(|r| (r.start.clone(), r.writes)).collect();
        self.regions = now;
        let share = if total == 0 {
            0.0
        } else {
            busiest as f64 / total as f64
        };
        self.windows.push((share, servers, total));
    }

    /// The figures over the last `tail` windows.
    fn finish(self, tail: usize) -> EngineIngest {
        let recent = &self.windows[self.windows.len().saturating_sub(tail)..];
        let counted = recent.iter().filter(|w| w.2 > 0).count().max(1) as f64;
        let recent_busiest_region = recent.iter().map(|w| w.0).sum::<f64>() / counted;
        // Per window, like the region figure: HBase's balancer moves
        // regions on its own, and a hot region that moves mid-tail is still
        // on one server at a time (summed over the tail, two servers would
        // each seem to take part of it).
        let recent_busiest_server = recent
            .iter()
            .filter(|w| w.2 > 0)
            .map(|(_, per, total)| *per.values().max().unwrap_or(&0) as f64 / *total as f64)
            .sum::<f64>()
            / counted;
        let mut per_server = std::collections::BTreeMap::new();
        for r in &self.regions {
            *per_server.entry(r.server.clone()).or_insert(0usize) += 1;
        }
        EngineIngest {
            regions: self.regions.len(),
            initial_regions: self.initial,
            recent_busiest_region,
            recent_busiest_server,
            regions_per_server: per_server.into_values().collect(),
            writes_counted: self.windows.iter().map(|w| w.2).sum(),
            window_writes: self.window_writes,
        }
    }
}

/// What an ingest leaves: its measurements, the final regions, every
/// event's key in arrival order, and which events' rows survived.
type Ingested = (Ingest, Regions, Vec<bool>);

/// A query that takes longer than this runs once, however many
/// [`Settings::query_runs`] there are.
const REPEAT_BELOW: Duration = Duration::from_millis(10);

fn progress(show: bool, len: usize, what: &str) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len as u64);
    bar.set_style(
        ProgressStyle::with_template("{msg:24} [{bar:40}] {pos}/{len} {per_sec}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}
