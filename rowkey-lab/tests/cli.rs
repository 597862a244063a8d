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
        "--servers",
        "--split-rows",
        "--windows",
        "--store",
        "--out",
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
            &["--store", "hbase"],
            "invalid value 'hbase' for '--store <STORE>'",
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
            "--split-rows",
            "500",
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
    assert!(stdout.contains("winner: mod_user_newest"), "{stdout}");
    // The redb file is gone.
    let left: Vec<_> = std::fs::read_dir(&report)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".redb"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
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
    assert!(stdout.starts_with("events from mine.csv;"), "{stdout}");
    assert!(stdout.contains("3000 events on redb"), "{stdout}");
    assert!(dir.path().join("out/report.html").exists());
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
            "--split-rows",
            "300",
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
    // designs (binary or text: the faster wins a tie) read only the 20 rows
    // of one user's latest.
    assert!(
        stdout.contains("winner: user_newest") || stdout.contains("winner: mod_user_newest"),
        "{stdout}"
    );
    let left: Vec<String> = emulators()
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    assert!(left.is_empty(), "emulator processes left behind: {left:?}");
}
