//! The command line: `--help`, errors that name the flag (exit status 2),
//! errors of the run (status 1), a small run that writes the report where it
//! says, a run on a CSV file, and (with the `bigtable` feature) a run on an
//! emulator the lab starts and stops.

use std::path::Path;
use std::process::{Command, Output};

fn lab(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rowkey-lab"))
        .args(args)
        .current_dir(cwd)
        .env_remove("BIGTABLE_EMULATOR_HOST")
        .output()
        .expect("the lab's binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn help_exits_zero_and_lists_the_flags() {
    let dir = tempfile::tempdir().unwrap();
    let out = lab(&["--help"], dir.path());
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    for flag in [
        "--workload",
        "--csv",
        "--user-col",
        "--ts-col",
        "--events",
        "--users",
        "--seed",
        "--designs",
        "--design",
        "--servers",
        "--split-bytes",
        "--windows",
        "--mix",
        "--entity",
        "--store",
        "--out",
        "--keep-rows",
    ] {
        assert!(help.contains(flag), "{flag} in:\n{help}");
    }
    assert!(help.contains("mod_user_newest") && help.contains("timeseries"));
}

#[test]
fn bad_flags_are_errors_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 7] = [
        // Once silently 705032704 through an `as u32` cast.
        (
            &["--users", "5_000_000_000"],
            "invalid value '5_000_000_000' for '--users <N>': 5000000000 is not in 1..=10000000",
        ),
        (
            &["--events", "0"],
            "invalid value '0' for '--events <N>': 0 is not in 1..=50000000",
        ),
        (&["--seed", "-1"], "unexpected argument '-1' found"),
        (
            &["--servers", "many"],
            "invalid value 'many' for '--servers <N>': `many` is not a whole number",
        ),
        (
            &["--designs", "ts_first,nope"],
            "invalid value 'nope' for '--designs <NAMES>'",
        ),
        (
            &["--store", "tikv"],
            "invalid value 'tikv' for '--store <STORE>'",
        ),
        (
            &["--user-col", "u"],
            "the following required arguments were not provided:\n  --csv <FILE>",
        ),
    ];
    for (args, message) in cases {
        let out = lab(args, dir.path());
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}:\n{err}");
    }
    // The design error lists the designs there are.
    let err = text(&lab(&["--designs", "nope"], dir.path()).stderr);
    assert!(
        err.contains("[possible values: ts_first, reversed_ts"),
        "{err}"
    );
}

#[test]
fn a_bad_csv_is_an_error_naming_the_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("e.csv"), "user_id,ts\n1,10\n2,later\n").unwrap();
    let out = lab(&["--csv", "e.csv", "--no-progress"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "rowkey-lab: line 3, column `ts`: `later` is not a time in milliseconds since the epoch (an i64)\n"
    );
    let out = lab(&["--csv", "missing.csv"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).starts_with("rowkey-lab: cannot read missing.csv: "));
}

#[test]
fn a_small_run_writes_the_report_to_the_directory_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let out = lab(
        &[
            "--events",
            "6_000",
            "--users",
            "50",
            "--designs",
            "ts_first,salted_ts,mod_user_newest",
            "--split-bytes",
            "16_000",
            "--no-progress",
        ],
        dir.path(),
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    // The default directory is in the current folder, and the run names it.
    let report = dir.path().join("rowkey-lab-report");
    let named = std::fs::canonicalize(&report).unwrap();
    assert!(
        stdout.contains(&format!("report and heatmaps in {}", named.display())),
        "{stdout}"
    );
    let html = std::fs::read_to_string(report.join("report.html")).unwrap();
    assert!(html.starts_with("<!doctype html>"));
    assert_eq!(
        html.matches("<svg").count(),
        3,
        "one heatmap per design, inline"
    );
    assert!(
        !html.contains("src=\"http") && !html.contains("href=\"http"),
        "self-contained"
    );
    for design in ["ts_first", "salted_ts", "mod_user_newest"] {
        let svg = std::fs::read_to_string(report.join(format!("heatmap-{design}.svg"))).unwrap();
        assert!(
            svg.contains(&format!("{design}: busiest region")),
            "{svg:.200}"
        );
    }
    // Decided by rows read: mod_user_newest alone reads only one user's rows.
    assert!(
        stdout.contains("winner: mod_user_newest (fewest rows read"),
        "{stdout}"
    );
    // The verdict comes first: one design and why, then who was asked about.
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[1].starts_with("use mod_user_newest: its writes spread"),
        "{stdout}"
    );
    assert!(
        lines[2].starts_with("The per-user queries ask about entity 1 (the hottest, "),
        "{stdout}"
    );
    assert!(lines[3].starts_with("Hottest entities: 1 ("), "{stdout}");
    assert!(
        html.contains("<strong>use mod_user_newest: "),
        "the HTML report opens with it too"
    );
    // The redb file is gone.
    let left: Vec<_> = std::fs::read_dir(&report)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".redb"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The verdict's first line for a small run with `args` added.
fn verdict(dir: &Path, args: &[&str]) -> String {
    run_lines(dir, args).into_iter().nth(1).unwrap_or_default()
}

/// The verdict, the ranking and the query winners of a small run: every
/// line that does not show a time.
fn decisions(dir: &Path, args: &[&str]) -> Vec<String> {
    run_lines(dir, args)
        .into_iter()
        .filter(|l| {
            l.starts_with("use ")
                || l.contains("winner")
                || l.trim_start()
                    .starts_with(|c: char| c.is_ascii_digit() || c == '=')
        })
        .filter(|l| !l.contains("ms") && !l.ends_with('s'))
        .collect()
}

fn run_lines(dir: &Path, args: &[&str]) -> Vec<String> {
    let mut all = vec![
        "--events",
        "8_000",
        "--users",
        "1000",
        "--no-progress",
        "--out",
        "out",
    ];
    all.extend_from_slice(args);
    let out = lab(&all, dir);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    stdout.lines().map(str::to_string).collect()
}

#[test]
fn the_mix_decides_the_recommendation_and_runs_agree() {
    let dir = tempfile::tempdir().unwrap();
    // Everything of the last minute only: a time-ordered design that is no
    // hot spot.
    let recent = verdict(dir.path(), &["--mix", "minute=1"]);
    assert!(recent.starts_with("use salted_ts: "), "{recent}");
    // Per-user queries only: a per-user design, the binary one (shorter
    // keys, equal reads).
    let per_user = verdict(dir.path(), &["--mix", "latest=1,hour=1"]);
    assert!(per_user.starts_with("use user_newest: "), "{per_user}");
    assert!(per_user.contains("shorter keys"), "{per_user}");
    // Deterministic: counted, not timed.
    let first = decisions(dir.path(), &[]);
    assert!(
        first.iter().filter(|l| l.contains("winner")).count() == 3,
        "{first:?}"
    );
    assert!(first.iter().any(|l| l.starts_with("  1.")), "{first:?}");
    assert_eq!(
        decisions(dir.path(), &[]),
        first,
        "two runs, one verdict and the same winners"
    );
    // A bad mix names its part.
    let out = lab(&["--mix", "latest=x"], dir.path());
    assert!(
        text(&out.stderr).contains("`x` (for `latest`) is not a weight"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn the_entity_is_chosen_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let run = |entity: &str| {
        let args = [
            "--events",
            "5_000",
            "--users",
            "50",
            "--designs",
            "user_newest",
            "--no-progress",
            "--out",
            "o",
            "--entity",
            entity,
        ];
        let out = lab(&args, dir.path());
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let hottest = run("hottest");
    assert!(
        hottest.contains("ask about entity 1 (the hottest, "),
        "{hottest}"
    );
    let median = run("median");
    assert!(median.contains("(the median by events, "), "{median}");
    assert!(
        median.contains("% of the writes)."),
        "the asked entity's share: {median}"
    );
    let seven = run("7");
    assert!(seven.contains("ask about entity 7 (as asked, "), "{seven}");
    let out = lab(
        &[
            "--events",
            "1_000",
            "--users",
            "5",
            "--entity",
            "999",
            "--no-progress",
            "--out",
            "o",
        ],
        dir.path(),
    );
    assert!(
        text(&out.stderr).contains("entity 999 has no events"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_csv_workload_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("ts,user\n");
    for i in 0..3_000u64 {
        csv.push_str(&format!("{},{}\n", 1_700_000_000_000 + i * 20, i % 37));
    }
    std::fs::write(dir.path().join("mine.csv"), csv).unwrap();
    let out = lab(
        &[
            "--csv",
            "mine.csv",
            "--user-col",
            "user",
            "--ts-col",
            "ts",
            "--designs",
            "ts_first,user_newest",
            "--out",
            "out",
            "--no-progress",
        ],
        dir.path(),
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.starts_with("events from mine.csv\n"), "{stdout}");
    assert!(stdout.contains("3000 events on redb"), "{stdout}");
    assert!(dir.path().join("out/report.html").exists());
}

/// A design given as a layout's text, on a CSV whose entity ids are
/// strings: it runs beside the built-in designs, stores the string ids
/// (its rows read back as the query answers, which the lab checks), and its
/// per-user queries read only the entity's rows.
#[test]
fn a_design_given_as_text_runs_on_string_ids_beside_the_built_ins() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("user,kind,ts\n");
    for i in 0..3_000u64 {
        // A few busy users and many quiet ones, ids as names.
        let user = if i % 3 == 0 { i % 5 } else { i % 97 };
        csv.push_str(&format!(
            "user-{user},click,{}\n",
            1_700_000_000_000 + i * 20
        ));
    }
    std::fs::write(dir.path().join("named.csv"), csv).unwrap();
    let mine = "mine=[salt(user)/8][user String][ts desc_ts i64]";
    let out = lab(
        &[
            "--csv",
            "named.csv",
            "--user-col",
            "user",
            "--designs",
            "ts_first,user_newest",
            "--design",
            mine,
            "--design",
            "oldest=[user_id u64][ts_millis i64]",
            "--design",
            "scrambled=[user_id u64][ts_millis reverse i64]",
            "--out",
            "out",
            "--no-progress",
        ],
        dir.path(),
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The entity is named by its string.
    assert!(
        stdout.contains("The per-user queries ask about entity user-"),
        "{stdout}"
    );
    assert!(dir.path().join("out/report.html").exists());
    assert!(
        stdout.contains(
            "mine        [salt(user)/8 1][user String >=2][ts desc_ts i64 8] >= 11 bytes"
        ),
        "the layout in the report: {stdout}"
    );
    assert!(dir.path().join("out/heatmap-mine.svg").exists());
    // Each per-user query: `mine` reads exactly the answer (its plan scans
    // the entity's rows), as user_newest does.
    let rows = |query: &str, design: &str| -> (u64, u64) {
        let section = stdout
            .split(&format!("\n{query}\n"))
            .nth(1)
            .unwrap_or_else(|| panic!("{query} in {stdout}"));
        let line = section
            .lines()
            .find(|l| l.split_whitespace().next() == Some(design))
            .unwrap_or_else(|| panic!("{design} under {query}"));
        let cols: Vec<&str> = line.split_whitespace().collect();
        (cols[3].parse().unwrap(), cols[4].parse().unwrap())
    };
    for query in [
        "latest 20 events of one user",
        "one user's events in an hour",
    ] {
        let (read, returned) = rows(query, "mine");
        assert_eq!(read, returned, "{query}: mine reads only its answer");
        assert_eq!(
            rows(query, "user_newest").1,
            returned,
            "{query}: same answer"
        );
        assert_eq!(rows(query, "oldest").1, returned, "{query}: same answer");
    }
    // Oldest first: the latest 20 read backwards, 20 rows.
    assert_eq!(rows("latest 20 events of one user", "oldest"), (20, 20));
    // Reversed time bytes: not time order, so the user's rows are all read
    // (and the answer, which the lab checks, is still right).
    let (read, returned) = rows("latest 20 events of one user", "scrambled");
    assert_eq!(returned, 20);
    assert!(read > 20, "{read}");
}

#[test]
fn a_bad_design_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = lab(&["--design", "mine=[user_id u64 4]"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("for '--design <NAME=LAYOUT>': design `mine`: field `user_id` (at byte 1): the text gives width 4, but u64 is 8 bytes"),
        "{err}"
    );
    let out = lab(
        &["--design", "mine=[user_id u64][kind u8]", "--events", "100"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("--design mine: design `mine`: field `kind` is no column of the events"),
        "{err}"
    );
}

/// PIDs of running HBase launchers.
#[cfg(feature = "hbase")]
fn hbase_jvms() -> Vec<String> {
    let out = Command::new("pgrep")
        .args(["-f", "rowkey\\.hbase\\.Launcher"])
        .output()
        .expect("pgrep runs");
    text(&out.stdout).lines().map(str::to_string).collect()
}

#[cfg(feature = "hbase")]
#[test]
fn the_lab_runs_on_a_real_hbase_and_shows_it_beside_the_model() {
    let before = hbase_jvms();
    let dir = tempfile::tempdir().unwrap();
    let out = lab(
        &[
            "--store",
            "hbase",
            "--events",
            "12_000",
            "--designs",
            "ts_first,salted_ts,user_newest",
            "--users",
            "500",
            "--servers",
            "3",
            "--no-progress",
        ],
        dir.path(),
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    assert!(stdout.contains("12000 events on hbase"), "{stdout}");
    // The last minute of every user, on the newest-first per-user key: a
    // skip scan that rowkey's filter runs on the region servers. They read
    // the rows returned and about one more per user (the row past the
    // minute, from which the filter seeks to the next user), as the filter
    // counts them; without it, all 12,000 rows would be sent here.
    let minute: Vec<usize> = stdout
        .lines()
        .skip_while(|l| *l != "all events of the last minute")
        .find(|l| l.trim_start().starts_with("user_newest"))
        .unwrap_or_else(|| panic!("no last minute for user_newest:\n{stdout}"))
        .split_whitespace()
        .skip(1)
        .take(4)
        .map(|f| f.parse().unwrap())
        .collect();
    let [_, seeks, read, rows] = minute[..] else {
        unreachable!()
    };
    assert!(rows > 0 && read >= rows, "{minute:?}");
    assert!(
        read <= rows + 2 * 500,
        "the region servers read {read} rows for {rows} returned\n{stdout}"
    );
    assert!(seeks > 0 && seeks <= read, "{minute:?}");
    // The engine's own figures: `design  m/hb (from n)  rgn m%/hb%  srv m%/hb%`.
    let row = |design: &str| -> (usize, usize, f64) {
        let line = stdout
            .lines()
            .skip_while(|l| !l.starts_with("on hbase itself"))
            .find(|l| l.starts_with(design))
            .unwrap_or_else(|| panic!("no HBase figures for {design}:\n{stdout}"));
        let f: Vec<&str> = line.split_whitespace().collect();
        let (regions, from) = (f[1].split('/').nth(1).unwrap(), f[3].trim_end_matches(')'));
        let server = f[5].split('/').nth(1).unwrap().trim_end_matches('%');
        (
            regions.parse().unwrap(),
            from.parse().unwrap(),
            server.parse().unwrap(),
        )
    };
    let (ts_regions, ts_from, ts_server) = row("ts_first");
    let (_, salted_from, salted_server) = row("salted_ts");
    assert!(
        ts_server > 90.0,
        "ts_first's busiest HBase server: {ts_server}%\n{stdout}"
    );
    assert!(
        salted_server < 60.0,
        "salted_ts's busiest HBase server: {salted_server}%\n{stdout}"
    );
    assert_eq!(
        (ts_from, salted_from),
        (1, 16),
        "pre-split as the key types say"
    );
    assert!(
        ts_regions > ts_from,
        "HBase split ts_first's region during the ingest\n{stdout}"
    );
    // HBase's own heatmap beside the model's, from its per-region counts.
    let report = dir.path().join("rowkey-lab-report");
    let svg = std::fs::read_to_string(report.join("heatmap-ts_first-hbase.svg")).unwrap();
    assert!(
        svg.contains("ts_first on hbase: busiest region"),
        "{svg:.300}"
    );
    let html = std::fs::read_to_string(report.join("report.html")).unwrap();
    assert!(html.contains("On hbase itself, next to the model"));
    assert!(html.contains("ts_first on hbase, from its region servers' own write counts"));
    let left: Vec<String> = hbase_jvms()
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    assert!(left.is_empty(), "the lab left HBase running: {left:?}");
}

/// PIDs of running `cbtemulator` processes.
#[cfg(feature = "bigtable")]
fn emulators() -> Vec<String> {
    let out = Command::new("pgrep")
        .args(["-x", "cbtemulator"])
        .output()
        .expect("pgrep runs");
    text(&out.stdout).lines().map(str::to_string).collect()
}

#[cfg(feature = "bigtable")]
#[test]
fn the_lab_runs_on_the_bigtable_emulator_and_stops_it() {
    let before = emulators();
    let dir = tempfile::tempdir().unwrap();
    let out = lab(
        &[
            "--store",
            "bigtable",
            "--events",
            "3_000",
            "--users",
            "40",
            "--designs",
            "ts_first,salted_ts,user_newest,mod_user_newest",
            "--split-bytes",
            "9_600",
            "--no-progress",
        ],
        dir.path(),
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    assert!(
        stdout.contains("3000 events on bigtable (emulator)"),
        "{stdout}"
    );
    // Every answer was read from the emulator and checked; the promoted
    // designs (binary and text) tie, each reading only the 20 rows of one
    // user's latest.
    assert!(
        stdout.contains("winners (tie): user_newest, mod_user_newest"),
        "{stdout}"
    );
    // ts_first reads backwards from the table's end (a reversed scan on the
    // emulator, announced in the bigtable-features header), not all 3,000
    // rows forwards.
    let ts_first_latest: usize = stdout
        .lines()
        .skip_while(|l| *l != "latest 20 events of one user")
        .find(|l| l.trim_start().starts_with("ts_first"))
        .and_then(|l| l.split_whitespace().nth(2))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no ts_first row for the latest 20:\n{stdout}"));
    assert!(
        ts_first_latest < 1_000,
        "ts_first read {ts_first_latest} rows\n{stdout}"
    );
    let left: Vec<String> = emulators()
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    assert!(left.is_empty(), "emulator processes left behind: {left:?}");
}

/// The rows of query `query`'s table for `design`: ranges, seeks, rows
/// read, rows returned.
fn query_row(stdout: &str, query: &str, design: &str) -> [u64; 4] {
    let line = stdout
        .lines()
        .skip_while(|l| *l != query)
        .find(|l| l.split_whitespace().next() == Some(design))
        .unwrap_or_else(|| panic!("no row of {design} for {query}:\n{stdout}"));
    let f: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .take(4)
        .map(|f| f.parse().unwrap())
        .collect();
    [f[0], f[1], f[2], f[3]]
}

/// The lab's standard output for `args`, which must succeed.
fn ok(dir: &Path, args: &[&str]) -> String {
    let out = lab(args, dir);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    stdout
}

/// A design with a field the events do not have (`metric`), drawn from a
/// CSV sample of the table's keys as often as the sample holds each
/// value; the team's own query on it planned as a skip scan on every
/// design with the field (reading only its rows) and checked against the
/// workload; the table's layout compared as `current`, and the verdict
/// naming the `rowkey migrate plan` command that moves it.
#[test]
fn a_field_the_events_lack_is_drawn_from_a_sample_and_the_teams_query_runs() {
    let dir = tempfile::tempdir().unwrap();
    // metric 3 in one key of eight.
    let mut csv = String::from("metric,user_id\n");
    for i in 0..2_000 {
        csv.push_str(&format!("{},{}\n", [1, 1, 1, 1, 2, 2, 3, 7][i % 8], i % 50));
    }
    std::fs::write(dir.path().join("keys.csv"), csv).unwrap();
    // Time first: a hot spot, which any salted design beats.
    let table = "[ts_millis i64][user_id u64]";
    let stdout = ok(
        dir.path(),
        &[
            "--events",
            "20000",
            "--users",
            "300",
            "--designs",
            "ts_first,user_newest",
            "--design",
            "by_metric=[salt(user_id)/8][metric u8][user_id u64][ts_millis desc_ts i64]",
            "--sample-from",
            "keys.csv",
            "--query",
            "m3: metric=3",
            "--query",
            "u7: user_id=7 ts_millis=1700000000000..",
            "--table-layout",
            table,
            "--no-progress",
        ],
    );
    assert!(
        stdout.contains("Fields drawn from 2000 keys of keys.csv"),
        "{stdout}"
    );
    let [ranges, _, read, rows] = query_row(&stdout, "m3", "by_metric");
    assert_eq!(
        (ranges, read),
        (8, rows),
        "one range per bucket, only its rows"
    );
    assert!(
        (2_000..3_000).contains(&rows),
        "{rows} of 20000 with metric 3"
    );
    let [_, _, full, same] = query_row(&stdout, "m3", "user_newest");
    assert_eq!(
        (full, same),
        (20_000, rows),
        "a design without the field reads all"
    );
    // The built-in key types plan the query on their own fields too.
    let [_, _, read, rows] = query_row(&stdout, "u7", "user_newest");
    assert!(rows > 0 && read == rows, "u7: {read} read for {rows}");
    assert!(
        stdout.contains("  current "),
        "the table's layout is compared:\n{stdout}"
    );
    let step = stdout
        .lines()
        .find(|l| l.starts_with("To move a table to "))
        .unwrap_or_else(|| panic!("no migrate step:\n{stdout}"));
    let quoted: Vec<&str> = step.split('\'').skip(1).step_by(2).collect();
    assert_eq!(quoted.len(), 2, "{step}");
    assert!(step.contains("rowkey migrate plan --from '"), "{step}");
    let from = rowkey_core::DynLayout::parse(quoted[0]).unwrap();
    assert_eq!(
        from.layout().to_string(),
        rowkey_core::DynLayout::parse(table)
            .unwrap()
            .layout()
            .to_string()
    );
    rowkey_core::DynLayout::parse(quoted[1]).unwrap();

    // A stated distribution instead: one value in four.
    let stdout = ok(
        dir.path(),
        &[
            "--events",
            "20000",
            "--designs",
            "user_newest",
            "--design",
            "by_metric=[salt(user_id)/8][metric u8][user_id u64][ts_millis desc_ts i64]",
            "--field",
            "metric=uniform(0..4)",
            "--query",
            "m2: metric=2",
            "--no-progress",
        ],
    );
    let [_, _, read, rows] = query_row(&stdout, "m2", "by_metric");
    assert_eq!(read, rows);
    assert!(
        (4_000..6_000).contains(&rows),
        "{rows} of 20000 with metric 2"
    );
    assert!(
        stdout.contains("--from 'THE LAYOUT OF YOUR TABLE'"),
        "{stdout}"
    );

    // The table's layout ranking first: no move.
    let stdout = ok(
        dir.path(),
        &[
            "--events",
            "20000",
            "--users",
            "300",
            "--designs",
            "ts_first,user_newest",
            "--table-layout",
            "[user_id u64][ts_millis i64]",
            "--no-progress",
        ],
    );
    assert!(
        stdout.starts_with("workload ingest (300 users, seed 42)\nuse current:"),
        "{stdout}"
    );
    assert!(
        stdout.contains("The table you have ranks first: no move is needed."),
        "{stdout}"
    );
}

#[test]
fn a_field_without_values_and_a_query_no_design_serves_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let design = "m=[metric u8][user_id u64][ts_millis i64]";
    let run = |args: &[&str]| {
        let mut all = vec!["--events", "1000", "--no-progress"];
        all.extend_from_slice(args);
        let out = lab(&all, dir.path());
        (out.status.code(), text(&out.stderr))
    };
    let (code, err) = run(&["--design", design]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("field `metric` is no column of the events")
            && err.contains("--field metric=DIST"),
        "{err}"
    );
    let (code, err) = run(&[
        "--design",
        design,
        "--field",
        "metric=uniform(0..9)",
        "--query",
        "q: nope=1",
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("--query q: no design has every field it names (nope)"),
        "{err}"
    );
    let (code, err) = run(&[
        "--design",
        design,
        "--field",
        "metric=uniform(0..9)",
        "--query",
        "hour: metric=1",
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("--query hour: a query of that name is already run"),
        "{err}"
    );
    let (code, err) = run(&["--field", "metric=normal(1)"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("`normal(1)` is no distribution"), "{err}");
    let (code, err) = run(&["--design", design, "--field", "metric=uniform(0..300)"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("field `metric` cannot hold the drawn value `299`"),
        "{err}"
    );
}

/// The sample read from a live table on a real HBase (through its
/// masters, no gateway), spread over its salt buckets: a field the
/// events do not have (`region`, 9 in nine keys of ten) drawn as often
/// as the table holds each value, the table's own layout compared as
/// `current`.
#[cfg(feature = "hbase")]
#[test]
fn a_field_is_drawn_from_a_live_hbase_tables_keys() {
    use rowkey_hbase::testing::HBase;

    let hbase = HBase::start().unwrap();
    let client = hbase.client().unwrap();
    let spec = "[salt(user_id)/4][region u8][user_id u64][ts_millis i64]";
    let layout = rowkey_core::DynLayout::parse(spec).unwrap();
    client
        .create_table("events", &["d"], &layout.split_points())
        .unwrap();
    let rows = (0..1_000u64).map(|i| {
        let region: u8 = if i % 10 == 0 { 2 } else { 9 };
        let key = layout
            .encode(&[region.into(), (i % 40).into(), (i as i64).into()])
            .unwrap();
        (key, vec![("d".to_string(), b"v".to_vec(), b"x".to_vec())])
    });
    client.write_raw_rows("events", rows).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let address = format!("hbase://{}", hbase.bootstrap());
    let stdout = ok(
        dir.path(),
        &[
            "--events",
            "5000",
            "--designs",
            "user_newest",
            "--sample-from",
            &address,
            "--sample-table",
            "events",
            "--table-layout",
            spec,
            "--query",
            "r9: region=9",
            "--no-progress",
        ],
    );
    assert!(
        stdout.contains(&format!(
            "Fields drawn from 1000 keys of table events at {address}."
        )),
        "{stdout}"
    );
    let [_, _, read, rows] = query_row(&stdout, "r9", "current");
    assert_eq!(read, rows, "a skip scan of the table's own layout");
    assert!((4_200..4_800).contains(&rows), "{rows} of 5000 in region 9");
}

/// `--keep-rows`: each design's rows in the file, a table per design
/// (keys of its layout, the event's index as 8 big-endian bytes),
/// replaced by a second run, and the `rowkey sql` line that asks the
/// first design's table printed last.
#[test]
fn kept_rows_are_each_designs_table_and_the_sql_line_is_printed() {
    use redb::{ReadableDatabase, ReadableTable, ReadableTableMetadata};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lab.redb");
    let run = || {
        let out = lab(
            &[
                "--events",
                "1500",
                "--designs",
                "ts_first,salted_ts",
                "--no-progress",
                "--keep-rows",
                "lab.redb",
            ],
            dir.path(),
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    run();
    let stdout = run();
    let layout = rowkey_lab::builtin::design("ts_first").unwrap().layout();
    let args = rowkey_lab::kept::sql_args(std::path::Path::new("lab.redb"), "ts_first", layout);
    assert_eq!(
        stdout.lines().last().map(str::trim),
        Some(rowkey_lab::kept::shell_line(&args).as_str()),
        "{stdout}"
    );
    assert!(stdout.contains("--value event=int64 'SELECT count(*) AS events FROM \"ts_first\"'"));
    // The README shows the line a default run prints.
    let readme = include_str!("../../README.md");
    assert!(
        readme.contains(&rowkey_lab::kept::shell_line(&args)),
        "README.md's SQL section shows the line the lab prints: {}",
        rowkey_lab::kept::shell_line(&args)
    );

    let db = redb::Database::open(&path).unwrap();
    let tx = db.begin_read().unwrap();
    for name in ["ts_first", "salted_ts"] {
        let layout = rowkey_lab::builtin::design(name).unwrap().layout();
        let dynamic = rowkey_core::DynLayout::parse(&layout.to_string()).unwrap();
        let def = redb::TableDefinition::<&[u8], &[u8]>::new(name);
        let table = tx.open_table(def).unwrap();
        let rows = table.len().unwrap();
        // At most one row per event (a repeated key overwrites), and the
        // second run replaced the first's rows.
        assert!((1_400..=1_500).contains(&rows), "{name}: {rows} rows");
        for row in table.iter().unwrap() {
            let (key, value) = row.unwrap();
            dynamic.decode(key.value()).unwrap();
            let event = u64::from_be_bytes(value.value().try_into().unwrap());
            assert!(event < 1_500, "{name}: event {event}");
        }
    }
}
