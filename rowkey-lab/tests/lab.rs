//! The lab's library API on key types of its own and on the built-in
//! designs: the hot spot shows (in the measurements and in the heatmap's
//! data), salting spreads it, every answer is checked, and a wrong plan
//! fails the run.

use rowkey_core::prelude::*;
use rowkey_lab::builtin::{self, Subjects, DESIGNS};
use rowkey_lab::{
    Access, BoxError, Design, Event, Lab, Query, RedbStore, Report, Settings, Store, Workload,
};

/// A user-defined event and three key designs for it.
#[derive(Debug, Clone, Copy)]
struct Reading {
    sensor: u32,
    at: i64,
}

#[derive(RowKey)]
struct AtFirst {
    at: i64,
    sensor: u32,
}

#[derive(RowKey)]
#[salt(buckets = 8)]
struct SaltedAt {
    at: i64,
    sensor: u32,
}

#[derive(RowKey)]
#[salt(buckets = 8, by(sensor))]
struct SensorNewest {
    sensor: u32,
    #[desc_ts]
    at: i64,
}

fn readings(n: i64) -> Vec<Reading> {
    (0..n)
        .map(|i| Reading {
            sensor: (i * 7919 % 97) as u32,
            at: 1_000_000 + i * 5,
        })
        .collect()
}

fn settings() -> Settings {
    Settings {
        split_bytes: 1_000 * 32,
        windows: 20,
        query_runs: 1,
        ..Settings::default()
    }
}

fn run<E: Sync>(lab: Lab<E>) -> Result<Report, BoxError> {
    let dir = tempfile::tempdir()?;
    let mut store = RedbStore::create(dir.path())?;
    lab.settings(settings()).run(&mut store)
}

fn sensor_lab(events: Vec<Reading>) -> Lab<Reading> {
    let window = (1_010_000, 1_030_000);
    Lab::new(events)
        .design(Design::new("at_first", |r: &Reading| AtFirst {
            at: r.at,
            sensor: r.sensor,
        }))
        .design(Design::new("salted_at", |r: &Reading| SaltedAt {
            at: r.at,
            sensor: r.sensor,
        }))
        .design(Design::new("sensor_newest", |r: &Reading| SensorNewest {
            sensor: r.sensor,
            at: r.at,
        }))
        .query(Query::new(
            "sensor 5 in a window",
            move |r: &Reading| r.sensor == 5 && (window.0..window.1).contains(&r.at),
            move |d: &Design<Reading>| {
                let range = window.0..window.1;
                Ok::<_, BoxError>(match d.name() {
                    n if n.starts_with("sensor_newest") => {
                        Access::scan(SensorNewest::range_by_sensor_at(5, range))
                    }
                    "salted_at" => Access::scan(SaltedAt::range_by_at(range))
                        .filter(|r: &Reading| r.sensor == 5),
                    _ => Access::scan(AtFirst::range_by_at(range))
                        .filter(|r: &Reading| r.sensor == 5),
                })
            },
        ))
        .query(
            Query::new(
                "latest 3 of sensor 7",
                |r: &Reading| r.sensor == 7,
                |d: &Design<Reading>| {
                    Ok::<_, BoxError>(match d.name() {
                        n if n.starts_with("sensor_newest") => {
                            Access::scan(SensorNewest::scan_by_sensor(7)).limit(3)
                        }
                        // Oldest first: read backwards (per bucket).
                        "salted_at" => Access::scan(SaltedAt::scan_all())
                            .filter(|r: &Reading| r.sensor == 7)
                            .reverse()
                            .limit(3),
                        _ => Access::scan(AtFirst::scan_all())
                            .filter(|r: &Reading| r.sensor == 7)
                            .reverse()
                            .limit(3),
                    })
                },
            )
            .newest(3, |r| r.at),
        )
}

#[test]
fn user_defined_keys_show_the_hot_spot_and_the_cheapest_reads() {
    let report = run(sensor_lab(readings(20_000))).expect("every answer is correct");
    let at_first = report.design("at_first").unwrap();
    let salted = report.design("salted_at").unwrap();
    let newest = report.design("sensor_newest").unwrap();

    // The layouts come from the key types.
    assert_eq!(at_first.layout.to_string(), AtFirst::LAYOUT.to_string());
    assert_eq!(at_first.ingest.key_bytes, 20_000 * 12);
    assert_eq!(salted.ingest.bytes_per_row(), 13.0);

    // Time first: one region and one server take every recent write.
    assert!(
        at_first.ingest.recent_busiest_region > 0.95,
        "{:?}",
        at_first.ingest
    );
    assert!(at_first.ingest.recent_busiest_server > 0.95);
    assert!(
        at_first.ingest.splits > 5,
        "regions split as the table grows"
    );
    // Salting spreads them over the regions and the four servers.
    assert!(
        salted.ingest.recent_busiest_region < 0.25,
        "{:?}",
        salted.ingest
    );
    assert!(salted.ingest.recent_busiest_server < 0.5);
    assert_eq!(salted.ingest.regions_per_server.len(), 4);
    let per = &salted.ingest.regions_per_server;
    assert!(
        per.iter().max().unwrap() - per.iter().min().unwrap() <= 1,
        "balanced: {per:?}"
    );

    // The heatmap's data, not just its picture: the hot design's last
    // window writes to one region, at the end of the key space.
    let h = &at_first.heatmap;
    let last = h.windows() - 1;
    let written: Vec<usize> = (0..at_first.ingest.regions)
        .filter(|&g| h.region_writes(last)[g] > 0)
        .collect();
    assert_eq!(
        written,
        [at_first.ingest.regions - 1],
        "one region: the last"
    );
    assert_eq!(at_first.ingest.windows.last().unwrap().regions_written, 1);
    assert!(salted.ingest.windows.last().unwrap().regions_written >= 8);
    assert_eq!(h.region_writes(last).iter().sum::<u32>(), 1_000);
    assert!((0..h.rows() - 4).all(|row| h.cell(last, row) == 0));
    // The salted design's last window writes to every bucket's regions.
    let s = &salted.heatmap;
    let spread = s
        .region_writes(s.windows() - 1)
        .iter()
        .filter(|&&c| c > 0)
        .count();
    assert!(spread >= 8, "{spread} regions written");

    // The queries: rows read and answers.
    let window_rows = newest.queries[0].rows;
    assert!(window_rows > 0);
    assert_eq!(
        newest.queries[0].rows_read, window_rows,
        "reads only its answer"
    );
    assert_eq!(
        at_first.queries[0].rows_read, 4_000,
        "reads the whole window"
    );
    assert_eq!(salted.queries[0].ranges, 8);
    assert_eq!(
        (newest.queries[1].rows_read, newest.queries[1].rows),
        (3, 3)
    );
    // Backwards reads stop at the third of sensor 7's rows (one in 97),
    // in each of the salted design's 8 buckets.
    assert_eq!(at_first.queries[1].rows, 3);
    assert!(
        at_first.queries[1].rows_read < 300,
        "{:?}",
        at_first.queries[1]
    );
    assert_eq!((salted.queries[1].rows, salted.queries[1].ranges), (3, 8));
    assert!(
        salted.queries[1].rows_read < 8 * 300,
        "{:?}",
        salted.queries[1]
    );
    assert_eq!(report.winner(1).unwrap().name, "sensor_newest");
}

/// redb without forks (the lab runs its designs one after another) and,
/// unless `reversed`, without reversed reads (as Bigtable's emulator is for
/// bigtable_rs).
struct Limited {
    store: RedbStore,
    name: &'static str,
    reversed: bool,
}

impl Limited {
    fn forward_only(store: RedbStore) -> Self {
        Limited {
            store,
            name: "forward-only redb",
            reversed: false,
        }
    }
    fn one_lane(store: RedbStore) -> Self {
        Limited {
            store,
            name: "redb",
            reversed: true,
        }
    }
}

impl Store for Limited {
    fn name(&self) -> &'static str {
        self.name
    }
    fn reads_reversed(&self) -> bool {
        self.reversed
    }
    fn create_table(&mut self, table: &str, splits: &[Vec<u8>]) -> Result<(), BoxError> {
        self.store.create_table(table, splits)
    }
    fn write(&mut self, table: &str, rows: &[(&[u8], u64)]) -> Result<(), BoxError> {
        self.store.write(table, rows)
    }
    fn scan(
        &mut self,
        table: &str,
        scan: &rowkey_core::Scan,
        row: &mut dyn FnMut(&[u8], u64) -> bool,
    ) -> Result<(), BoxError> {
        self.store.scan(table, scan, row)
    }
    fn scan_reverse(
        &mut self,
        table: &str,
        scan: &rowkey_core::Scan,
        row: &mut dyn FnMut(usize, &[u8], u64) -> bool,
    ) -> Result<(), BoxError> {
        assert!(
            self.reversed,
            "the lab asked a forward-only store to read backwards"
        );
        self.store.scan_reverse(table, scan, row)
    }
    fn drop_table(&mut self, table: &str) -> Result<(), BoxError> {
        self.store.drop_table(table)
    }
}

#[test]
fn a_backwards_plan_on_a_store_without_reversed_reads_reads_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Limited::forward_only(RedbStore::create(dir.path()).unwrap());
    let report = sensor_lab(readings(5_000))
        .settings(settings())
        .run(&mut store)
        .expect("the answer is still the newest 3");
    for name in ["at_first", "salted_at"] {
        let q = &report.design(name).unwrap().queries[1];
        assert_eq!((q.rows_read, q.rows), (5_000, 3), "{name}");
    }
    assert_eq!(report.store, "forward-only redb");
}

#[test]
fn a_plan_that_misses_rows_fails_the_run() {
    let lab = Lab::new(readings(2_000))
        .design(Design::new("at_first", |r: &Reading| AtFirst {
            at: r.at,
            sensor: r.sensor,
        }))
        .query(Query::new(
            "before 1_005_000",
            |r: &Reading| r.at < 1_005_000,
            // Off by one: `..=` would be right for `at <= 1_004_995`, but
            // this stops 5 ms early.
            |_: &Design<Reading>| {
                Ok::<_, BoxError>(Access::scan(AtFirst::range_by_at(..1_004_995)))
            },
        ));
    let e = run(lab).unwrap_err().to_string();
    assert_eq!(
        e,
        "design `at_first`, query `before 1_005_000`: wrong answer: 999 rows, expected 1000"
    );
}

#[test]
fn a_limit_on_a_key_that_is_not_newest_first_is_caught() {
    let lab = Lab::new(readings(2_000))
        .design(Design::new("at_first", |r: &Reading| AtFirst {
            at: r.at,
            sensor: r.sensor,
        }))
        .query(
            Query::new(
                "latest 5",
                |_: &Reading| true,
                |d: &Design<Reading>| {
                    // Oldest first: the first 5 rows are the oldest.
                    Ok::<_, BoxError>(Access::scan(d.scan_all()).limit(5))
                },
            )
            .newest(5, |r| r.at),
        );
    let e = run(lab).unwrap_err().to_string();
    assert!(e.ends_with("is not among the newest 5"), "{e}");
}

#[test]
fn keys_that_collide_are_counted_and_answers_allow_for_them() {
    // Two readings per (sensor, at): the second overwrites the first.
    let mut events = readings(1_000);
    events.extend(readings(1_000));
    events.sort_by_key(|r| r.at);
    let report = run(sensor_lab(events)).expect("answers over the surviving rows");
    let d = report.design("sensor_newest").unwrap();
    assert_eq!((d.ingest.rows, d.ingest.overwrites), (1_000, 1_000));
    assert_eq!(d.ingest.key_bytes, 13_000);
}

#[test]
fn the_verdict_ranks_by_hot_spot_then_reads_then_key_bytes_and_marks_ties() {
    let lab =
        sensor_lab(readings(6_000)).design(Design::new("sensor_newest_too", |r: &Reading| {
            SensorNewest {
                sensor: r.sensor,
                at: r.at,
            }
        }));
    let report = run(lab).unwrap();
    let verdict = report.verdict();
    let names: Vec<&str> = verdict.ranking.iter().map(|r| r.name.as_str()).collect();
    // at_first writes to one region at a time: a hot spot, last whatever
    // it reads.
    assert_eq!(
        names,
        [
            "sensor_newest",
            "sensor_newest_too",
            "salted_at",
            "at_first"
        ]
    );
    let ties: Vec<bool> = verdict.ranking.iter().map(|r| r.tie).collect();
    assert_eq!(ties, [false, true, false, false]);
    assert!(verdict.ranking[3].hot_spot && !verdict.ranking[2].hot_spot);
    assert!(
        verdict
            .summary()
            .starts_with("use sensor_newest (tied with sensor_newest_too): "),
        "{}",
        verdict.summary()
    );
    // The same key under two names: both win each query, by rows read.
    let winners: Vec<&str> = report.winners(0).iter().map(|d| d.name.as_str()).collect();
    assert_eq!(winners, ["sensor_newest", "sensor_newest_too"]);
    // A mix of only the latest-3 query: salted_at reads backwards per
    // bucket, more than sensor_newest's 3 rows.
    let only_latest = report.clone().with_mix(vec![0.0, 1.0]).verdict();
    assert_eq!(only_latest.ranking[0].read_cost, 4.0, "3 rows and 1 range");
}

#[test]
fn the_measurement_windows_do_not_change_the_write_spread() {
    let events = Workload::Ingest.generate(20_000, 300, 7);
    let subjects = Subjects::of(&events);
    let figures = |windows: usize| {
        let mut lab = Lab::new(events.clone()).settings(Settings {
            windows,
            query_runs: 1,
            ..Settings::default()
        });
        for name in ["ts_first", "salted_ts", "user_newest", "mod_user_newest"] {
            lab = lab.design(builtin::design_for(name, subjects).unwrap());
        }
        let dir = tempfile::tempdir().unwrap();
        let report = lab
            .run(&mut RedbStore::create(dir.path()).unwrap())
            .unwrap();
        report
            .designs
            .iter()
            .map(|d| {
                let i = &d.ingest;
                (
                    d.name.clone(),
                    i.recent_busiest_server,
                    i.regions,
                    i.regions_per_server.clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    // The balancer runs on its own period and the busiest-server figure is
    // one block of recent writes: 30 or 120 heatmap columns give the same
    // numbers. (The busiest region is a mean over windows, a figure of
    // the heatmap's resolution.)
    assert_eq!(figures(30), figures(120));
}

#[test]
fn a_text_design_splits_into_more_regions_than_a_binary_one() {
    let events = Workload::Ingest.generate(20_000, 300, 7);
    let subjects = Subjects::of(&events);
    let mut lab = Lab::new(events).settings(Settings {
        query_runs: 1,
        ..Settings::default()
    });
    for name in ["ts_first", "ts_user"] {
        lab = lab.design(builtin::design_for(name, subjects).unwrap());
    }
    let dir = tempfile::tempdir().unwrap();
    let report = lab
        .run(&mut RedbStore::create(dir.path()).unwrap())
        .unwrap();
    let regions = |n: &str| report.design(n).unwrap().ingest.regions;
    // [ts][user] in 16 bytes against the same fields as 34 bytes of text.
    assert!(
        regions("ts_user") > regions("ts_first"),
        "text {} binary {}",
        regions("ts_user"),
        regions("ts_first")
    );
}

#[test]
fn a_renamed_design_keeps_its_plans() {
    let events = Workload::Ingest.generate(6_000, 80, 5);
    let subjects = Subjects::of(&events);
    let mut lab = Lab::new(events).settings(Settings {
        query_runs: 1,
        ..Settings::default()
    });
    lab = lab.design(
        builtin::design_for("user_newest", subjects)
            .unwrap()
            .renamed("per_user"),
    );
    lab = lab.design(builtin::design("user_newest").unwrap().renamed("no_plans"));
    for q in builtin::queries(subjects) {
        lab = lab.query(q);
    }
    let dir = tempfile::tempdir().unwrap();
    let report = lab
        .run(&mut RedbStore::create(dir.path()).unwrap())
        .unwrap();
    let latest = |name: &str| report.design(name).unwrap().queries[0].clone();
    // Its own plan: the 20 rows of the user's latest, whatever its name.
    assert_eq!(
        (latest("per_user").rows_read, latest("per_user").rows),
        (20, 20)
    );
    // The same key without plans reads the whole table (the query's plan).
    assert_eq!(latest("no_plans").rows_read, 6_000);
}

#[test]
fn the_last_minute_on_a_per_user_key_is_a_skip_scan() {
    let events = Workload::Ingest.generate(30_000, 400, 9);
    let subjects = Subjects::of(&events);
    let mut lab = Lab::new(events).settings(Settings {
        query_runs: 1,
        ..Settings::default()
    });
    for name in ["user_newest", "mod_user_newest", "user_first"] {
        lab = lab.design(builtin::design_for(name, subjects).unwrap());
    }
    lab = lab.design(builtin::design("user_newest").unwrap().renamed("no_plans"));
    for q in builtin::queries(subjects) {
        lab = lab.query(q);
    }
    let dir = tempfile::tempdir().unwrap();
    let report = lab
        .run(&mut RedbStore::create(dir.path()).unwrap())
        .unwrap();
    let minute = |name: &str| report.design(name).unwrap().queries[1].clone();
    // The answer is checked by the lab; here, what it cost: at most the
    // rows returned plus two rows and one seek per user (its first row
    // after the minute, and the next user's first), not the whole table.
    let full = minute("no_plans");
    assert_eq!((full.rows_read, full.seeks), (30_000, 0));
    for name in ["user_newest", "mod_user_newest", "user_first"] {
        let run = minute(name);
        assert_eq!(run.rows, full.rows, "{name}");
        assert!(run.seeks > 0 && run.seeks <= 2 * 400, "{name}: {run:?}");
        assert!(run.rows_read <= run.rows + 2 * 400, "{name}: {run:?}");
    }
}

#[test]
fn two_designs_with_one_name_are_an_error() {
    let lab = sensor_lab(readings(10)).design(Design::new("at_first", |r: &Reading| AtFirst {
        at: r.at,
        sensor: r.sensor,
    }));
    let e = run(lab).unwrap_err().to_string();
    assert_eq!(
        e,
        "two designs are named `at_first`: give each its own name"
    );
}

#[test]
fn a_workload_at_the_epoch_runs_every_query_on_every_design() {
    // Times from 0: the last minute and the hour reach before 1970, which
    // the text keys (unsigned times) clamp instead of failing the query.
    let events: Vec<Event> = (0..3_000u64)
        .map(|i| Event {
            user_id: i % 17,
            ts_millis: (i * 7) as i64,
        })
        .collect();
    let subjects = Subjects::of(&events);
    assert!(subjects.hour.0 < 0, "{subjects:?}");
    let mut lab = Lab::new(events);
    for name in DESIGNS {
        lab = lab.design(builtin::design_for(name, subjects).unwrap());
    }
    for q in builtin::queries(subjects) {
        lab = lab.query(q);
    }
    let report = run(lab).unwrap_or_else(|e| panic!("{e}"));
    let minute = &report.design("ts_user").unwrap().queries[1];
    assert_eq!(
        minute.rows, minute.rows_read,
        "the clamped range reads only its answer"
    );
}

#[test]
fn workloads_at_the_ends_of_i64_time_do_not_overflow() {
    for (first, now) in [
        (i64::MIN, i64::MAX),
        (i64::MIN, i64::MIN + 10),
        (i64::MAX - 10, i64::MAX),
        (0, 5),
    ] {
        let events = vec![
            Event {
                user_id: 1,
                ts_millis: first,
            },
            Event {
                user_id: 1,
                ts_millis: now,
            },
        ];
        let s = Subjects::of(&events);
        assert_eq!(s.now, now);
        assert!(s.hour.0 <= s.hour.1, "{s:?}");
        assert!((first..=now).contains(&first.midpoint(now)));
        // The queries' plans are built without overflow too.
        assert_eq!(builtin::queries(s).len(), 3);
    }
}

#[test]
fn a_key_that_cannot_be_built_names_the_design_and_the_event() {
    let lab = Lab::new(vec![1_i64, 2, -3]).design(builtin_ts_user_like());
    let e = run(lab).unwrap_err().to_string();
    assert_eq!(
        e,
        "design `ts_user`: the key of event 2 cannot be built: time -3 is before 1970"
    );
}

fn builtin_ts_user_like() -> Design<i64> {
    #[derive(RowKey)]
    #[rowkey(text, sep = "_")]
    struct TsText {
        #[digits(13)]
        ts: u64,
    }
    Design::try_new("ts_user", |&ts: &i64| {
        u64::try_from(ts)
            .map(|ts| TsText { ts })
            .map_err(|_| format!("time {ts} is before 1970"))
    })
}

#[test]
fn every_builtin_design_answers_every_query_on_every_workload() {
    for workload in Workload::ALL {
        let events = workload.generate(4_000, 60, 3);
        let subjects = Subjects::of(&events);
        let mut lab = Lab::new(events.clone());
        for name in DESIGNS {
            lab = lab.design(builtin::design_for(name, subjects).unwrap());
        }
        for q in builtin::queries(subjects) {
            lab = lab.query(q);
        }
        let report = run(lab).unwrap_or_else(|e| panic!("{workload}: {e}"));
        let hot = |name: &str| report.design(name).unwrap().ingest.recent_busiest_region;
        assert!(
            hot("ts_first") > 0.9,
            "{workload}: ts_first {}",
            hot("ts_first")
        );
        assert!(
            hot("ts_user") > 0.9,
            "{workload}: ts_user {}",
            hot("ts_user")
        );
        for spread in ["reversed_ts", "salted_ts", "reversed_ts_user"] {
            assert!(hot(spread) < 0.3, "{workload}: {spread} {}", hot(spread));
        }
        if workload == Workload::Orders {
            // Sequential ids: the id-first key is a hot spot, salting by
            // the id spreads it.
            assert!(
                hot("user_first") > 0.9,
                "orders: user_first {}",
                hot("user_first")
            );
            assert!(
                hot("user_newest") < 0.3,
                "orders: user_newest {}",
                hot("user_newest")
            );
        }
        // The promoted designs read only their answer for one user's latest.
        for promoted in ["user_newest", "mod_user_newest"] {
            let q = &report.design(promoted).unwrap().queries[0];
            assert_eq!(q.rows_read, q.rows, "{workload}: {promoted}");
        }
    }
}

#[test]
fn the_guide_shows_the_layouts_the_key_types_describe() {
    let chapter = include_str!("../../docs/src/lab.md");
    for name in builtin::DEFAULT_DESIGNS {
        let layout = builtin::design(name).unwrap().layout().to_string();
        assert!(
            chapter.contains(&format!("{name:<16} {layout}")),
            "the guide's lab chapter shows {name}: {layout}"
        );
    }
}

/// Designs that ingest side by side (each in a database of its own) give
/// the figures the designs give one after another: only the times differ.
#[test]
fn designs_in_parallel_give_the_same_figures_as_in_sequence() {
    // Two directories: each store's database file is named after the process.
    let (dir, other) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let store = RedbStore::create(dir.path()).unwrap();
    assert!(
        store.fork().is_some(),
        "redb forks: the lab runs designs in parallel"
    );
    let mut parallel = store;
    let mut sequential = Limited::one_lane(RedbStore::create(other.path()).unwrap());
    let a = sensor_lab(readings(4_000))
        .settings(settings())
        .run(&mut parallel)
        .unwrap();
    let b = sensor_lab(readings(4_000))
        .settings(settings())
        .run(&mut sequential)
        .unwrap();
    let names = |r: &Report| r.designs.iter().map(|d| d.name.clone()).collect::<Vec<_>>();
    let added = ["at_first", "salted_at", "sensor_newest"];
    assert_eq!(
        names(&a),
        added,
        "the report lists the designs in the order added"
    );
    assert_eq!(names(&b), added);
    for (x, y) in a.designs.iter().zip(&b.designs) {
        assert_eq!(x.name, y.name, "design order");
        let (i, j) = (&x.ingest, &y.ingest);
        assert_eq!(
            (i.rows, i.overwrites, i.key_bytes, i.regions, i.splits),
            (j.rows, j.overwrites, j.key_bytes, j.regions, j.splits),
            "{}",
            x.name
        );
        assert_eq!(i.regions_per_server, j.regions_per_server, "{}", x.name);
        assert_eq!(i.windows, j.windows, "{}", x.name);
        assert_eq!(x.heatmap, y.heatmap, "{}", x.name);
        let q = |r: &[rowkey_lab::QueryRun]| -> Vec<(usize, usize, usize)> {
            r.iter().map(|q| (q.ranges, q.rows_read, q.rows)).collect()
        };
        assert_eq!(q(&x.queries), q(&y.queries), "{}", x.name);
    }
}
