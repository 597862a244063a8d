//! `rowkey bulkload` at scale, without a cluster: Parquet files (written
//! by the `parquet` crate and by pyarrow) become the derive's keys in
//! HFiles; sorters in one process and workers in separate processes write
//! the same cells as one sorter; bad rows are listed or skipped into a
//! report; a worker killed half-way leaves nothing a commit would load.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use arrow_array::{Int32Array, RecordBatch, StringArray, TimestampMillisecondArray, UInt64Array};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use rowkey_core::prelude::*;
use rowkey_hbase::hfile::HFileReader;

mod common;
use common::{key, ok, rowkey, Cell, UserEvent, SPEC};

/// Event `i`: (user, ts, kind, clicks, page; every tenth page null).
fn event(i: u64) -> (u64, i64, &'static str, i32, Option<String>) {
    (
        i % 997,
        1_700_000_000_000 + i as i64,
        ["click", "view", "buy"][i as usize % 3],
        i as i32 * 7,
        (i % 10 != 0).then(|| format!("/p,{i}")),
    )
}

/// The cells `rows` events make: clicks as HBase's `Bytes.toBytes(int)`,
/// the page's UTF-8 (none for a null).
fn want(rows: impl IntoIterator<Item = u64>) -> BTreeSet<Cell> {
    let mut want = BTreeSet::new();
    for i in rows {
        let (user_id, ts_millis, kind, clicks, page) = event(i);
        let row = key(user_id, ts_millis, kind);
        want.insert((
            row.clone(),
            b"d".to_vec(),
            b"clicks".to_vec(),
            clicks.to_be_bytes().to_vec(),
        ));
        if let Some(page) = page {
            want.insert((row, b"d".to_vec(), b"page".to_vec(), page.into_bytes()));
        }
    }
    want
}

/// A Parquet file of events `0..rows`, row groups of `group` rows,
/// written by the `parquet` crate.
fn write_parquet(path: &Path, rows: u64, group: usize) {
    write_events(path, 0..rows, group)
}

/// A Parquet file of events `range`, in row groups of 3,000.
fn write_parquet_range(path: &Path, range: std::ops::Range<u64>) {
    write_events(path, range, 3_000)
}

fn write_events(path: &Path, range: std::ops::Range<u64>, group: usize) {
    let schema = Arc::new(Schema::new(vec![
        Field::new("user_id", DataType::UInt64, false),
        Field::new(
            "ts_millis",
            DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
            false,
        ),
        Field::new("kind", DataType::Utf8, false),
        Field::new("clicks", DataType::Int32, false),
        Field::new("page", DataType::Utf8, true),
    ]));
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group))
        .build();
    let mut writer = ArrowWriter::try_new(
        std::fs::File::create(path).unwrap(),
        schema.clone(),
        Some(props),
    )
    .unwrap();
    for chunk in range.collect::<Vec<_>>().chunks(4096) {
        let events: Vec<_> = chunk.iter().map(|&i| event(i)).collect();
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(UInt64Array::from_iter_values(events.iter().map(|e| e.0))),
                Arc::new(
                    TimestampMillisecondArray::from_iter_values(events.iter().map(|e| e.1))
                        .with_timezone("UTC"),
                ),
                Arc::new(StringArray::from_iter_values(events.iter().map(|e| e.2))),
                Arc::new(Int32Array::from_iter_values(events.iter().map(|e| e.3))),
                Arc::new(StringArray::from_iter(events.iter().map(|e| e.4.clone()))),
            ],
        )
        .unwrap();
        writer.write(&batch).unwrap();
    }
    writer.close().unwrap();
}

/// Every cell of the HFiles under `dir` (its `part-*/FAMILY/` files, or
/// its own `FAMILY/` ones), read back by rowkey's HFile reader.
fn cells_under(dir: &Path) -> BTreeSet<Cell> {
    let mut loads: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && name(p).starts_with("part-"))
        .collect();
    if loads.is_empty() {
        loads.push(dir.to_path_buf());
    }
    let mut cells = BTreeSet::new();
    for load in loads {
        for family in std::fs::read_dir(&load).unwrap() {
            let family = family.unwrap().path();
            if !family.is_dir() || name(&family).starts_with(['.', '_']) {
                continue;
            }
            for file in std::fs::read_dir(&family).unwrap() {
                let file = file.unwrap().path();
                if !file.is_file() {
                    continue;
                }
                let mut reader = HFileReader::open(&file).unwrap();
                while let Some(c) = reader.next_cell().unwrap() {
                    let fresh = cells.insert((c.row, c.family, c.qualifier, c.value));
                    assert!(fresh, "a cell written twice, in {}", file.display());
                }
            }
        }
    }
    cells
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

fn load_args<'a>(input: &'a str, out: &'a str, more: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "bulkload",
        "--layout",
        SPEC,
        "--input",
        input,
        "--out",
        out,
        "--split-points",
    ];
    args.extend_from_slice(more);
    args
}

/// One sorter, three sorters over a Parquet file's row groups, and two
/// worker processes of two sorters each: the same cells, the derive's
/// keys, HBase's `Bytes.toBytes` values, no cell for a null.
#[test]
fn parquet_row_groups_shared_by_sorters_and_workers_make_the_same_cells() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("events.parquet");
    write_parquet(&file, 20_000, 3_000);
    let input = file.to_str().unwrap();
    let want = want(0..20_000);

    let one = dir.path().join("one");
    let stdout = ok(&load_args(input, one.to_str().unwrap(), &[]));
    assert!(stdout.starts_with("20000 input rows (0 bad)"), "{stdout}");
    assert!(one.join("d").is_dir(), "one sorter writes OUT/FAMILY");
    assert!(
        cells_under(&one) == want,
        "one sorter's cells differ from the input's"
    );

    let three = dir.path().join("three");
    let json = ok(&load_args(
        input,
        three.to_str().unwrap(),
        &["--workers", "3", "--json"],
    ));
    let summary: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(summary["rows"], 20_000);
    assert_eq!(summary["parts"].as_array().unwrap().len(), 3, "{json}");
    let region_files: u64 = summary["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["files"].as_u64().unwrap())
        .sum();
    assert_eq!(region_files, summary["files"].as_u64().unwrap());
    assert!(cells_under(&three) == want, "three sorters' cells differ");

    let two = dir.path().join("two");
    for worker in ["0/2", "1/2"] {
        ok(&load_args(
            input,
            two.to_str().unwrap(),
            &["--workers", "2", "--worker", worker],
        ));
    }
    let parts: BTreeSet<String> = std::fs::read_dir(&two)
        .unwrap()
        .map(|e| name(&e.unwrap().path()))
        .collect();
    let expected: BTreeSet<String> = ["part-0-0", "part-0-1", "part-1-0", "part-1-1"]
        .map(String::from)
        .into();
    assert_eq!(parts, expected);
    assert!(cells_under(&two) == want, "two workers' cells differ");

    // A worker's share written twice is refused, naming it.
    let run = rowkey(&load_args(
        input,
        two.to_str().unwrap(),
        &["--workers", "2", "--worker", "1/2"],
    ));
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("part-1-0 exists"), "{stderr}");

    // Values as text, as a CSV load writes them.
    let text = dir.path().join("text");
    ok(&load_args(
        input,
        text.to_str().unwrap(),
        &["--cell-encoding", "text", "--value", "clicks"],
    ));
    let row = key(5, 1_700_000_000_005, "buy");
    let cell = (row, b"d".to_vec(), b"clicks".to_vec(), b"35".to_vec());
    let cells = cells_under(&text);
    assert_eq!(cells.len(), 20_000, "one cell per row: only --value clicks");
    assert!(cells.contains(&cell));
}

/// A Parquet file pyarrow wrote (dictionary-encoded strings, timestamps in
/// microseconds, Snappy pages): the same cells; a timestamp with a part of
/// a millisecond is a bad row, skipped into the report.
#[test]
fn a_file_pyarrow_wrote_loads_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("events.parquet");
    let script = format!(
        r#"
import pyarrow as pa, pyarrow.parquet as pq
n = 5000
users = [i % 997 for i in range(n)]
ts = [(1_700_000_000_000 + i) * 1000 for i in range(n)]
ts[4321] += 1  # a part of a millisecond
kinds = [["click", "view", "buy"][i % 3] for i in range(n)]
t = pa.table({{
    "user_id": pa.array(users, pa.uint64()),
    "ts_millis": pa.array(ts, pa.timestamp("us", tz="UTC")),
    "kind": pa.array(kinds).dictionary_encode(),
    "clicks": pa.array([i * 7 for i in range(n)], pa.int32()),
    "page": pa.array([None if i % 10 == 0 else f"/p,{{i}}" for i in range(n)]),
}})
pq.write_table(t, r"{}", row_group_size=1500, compression="snappy")
"#,
        file.display()
    );
    let py = Command::new("python3")
        .args(["-c", &script])
        .output()
        .expect("python3");
    assert!(
        py.status.success(),
        "pyarrow could not write the file (pip install pyarrow; .ci/run installs it): {}",
        String::from_utf8_lossy(&py.stderr)
    );
    let out = dir.path().join("out");
    let report = dir.path().join("bad.jsonl");
    let stdout = ok(&load_args(
        file.to_str().unwrap(),
        out.to_str().unwrap(),
        &[
            "--workers",
            "2",
            "--bad-rows",
            "skip",
            "--bad-rows-report",
            report.to_str().unwrap(),
        ],
    ));
    assert!(stdout.starts_with("5000 input rows (1 bad)"), "{stdout}");
    let bad = std::fs::read_to_string(&report).unwrap();
    let lines: Vec<serde_json::Value> = bad
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{bad}");
    assert_eq!(lines[0]["row"], 4322, "rows count from 1: {bad}");
    assert_eq!(lines[0]["column"], "ts_millis");
    assert!(
        lines[0]["reason"]
            .as_str()
            .unwrap()
            .contains("not a whole number"),
        "{bad}"
    );
    assert!(cells_under(&out) == want((0..5000).filter(|&i| i != 4321)));
}

/// `fail` lists every bad row and writes nothing; `skip` loads the others
/// and reports each bad one with its line and field.
#[test]
fn bad_rows_are_all_listed_or_skipped_into_a_report() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("rows.csv");
    std::fs::write(
        &csv,
        "user_id,ts_millis,kind,clicks\n1,5,click,3\n2,x,view,4\n3,7\n4,8,buy,5\n-1,9,buy,6\n",
    )
    .unwrap();
    let out = dir.path().join("fail");
    let run = rowkey(&load_args(
        csv.to_str().unwrap(),
        out.to_str().unwrap(),
        &["--workers", "2"],
    ));
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    for listed in [
        "rows.csv line 3, column `ts_millis`: `x` is not an i64",
        "rows.csv line 4: ",
        "rows.csv line 6, column `user_id`: `-1` is not a u64",
        "3 bad rows (listed above): nothing written",
    ] {
        assert!(stderr.contains(listed), "{listed:?} in {stderr}");
    }
    let left: Vec<_> = std::fs::read_dir(&out)
        .map(|d| d.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "nothing written: {left:?}");

    let out = dir.path().join("skip");
    let stdout = ok(&load_args(
        csv.to_str().unwrap(),
        out.to_str().unwrap(),
        &["--bad-rows", "skip"],
    ));
    assert!(stdout.starts_with("5 input rows (3 bad)"), "{stdout}");
    let report = std::fs::read_to_string(dir.path().join("skip.bad-rows-0.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = report
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let at: Vec<(u64, &str)> = lines
        .iter()
        .map(|l| (l["line"].as_u64().unwrap(), l["column"].as_str().unwrap()))
        .collect();
    assert_eq!(at, [(3, "ts_millis"), (4, ""), (6, "user_id")], "{report}");
    let rows: BTreeSet<Vec<u8>> = cells_under(&out).into_iter().map(|c| c.0).collect();
    let want: BTreeSet<Vec<u8>> = [(1, 5, "click"), (4, 8, "buy")]
        .map(|(user_id, ts_millis, kind)| key(user_id, ts_millis, kind))
        .into();
    assert_eq!(rows, want);
}

/// CSV from standard input: the same files as from the file.
#[test]
fn standard_input_loads_as_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("user_id,ts_millis,kind,clicks\n");
    for i in 0..500u64 {
        let (u, ts, kind, clicks, _) = event(i);
        text.push_str(&format!("{u},{ts},{kind},{clicks}\n"));
    }
    let csv = dir.path().join("rows.csv");
    std::fs::write(&csv, &text).unwrap();
    let from_file = dir.path().join("file");
    ok(&load_args(
        csv.to_str().unwrap(),
        from_file.to_str().unwrap(),
        &["--timestamp", "1"],
    ));
    let from_stdin = dir.path().join("stdin");
    let mut child = Command::new(env!("CARGO_BIN_EXE_rowkey"))
        .args(load_args(
            "-",
            from_stdin.to_str().unwrap(),
            &["--format", "csv", "--timestamp", "1"],
        ))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let run = child.wait_with_output().unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let a = cells_under(&from_file);
    assert_eq!(a.len(), 500);
    assert!(a == cells_under(&from_stdin));
}

/// A worker killed while it sorts leaves only its staging directory, which
/// a commit skips; run again, it writes its whole share.
#[test]
fn a_killed_worker_leaves_nothing_to_commit_and_its_rerun_completes() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("rows.csv");
    let mut text = String::from("user_id,ts_millis,kind,clicks\n");
    let rows = 150_000u64;
    for i in 0..rows {
        let (u, ts, kind, clicks, _) = event(i);
        text.push_str(&format!("{u},{ts},{kind},{clicks}\n"));
    }
    std::fs::write(&csv, &text).unwrap();
    let out = dir.path().join("out");
    // A 1 MiB budget: it spills sorted runs early, long before it ends.
    let args = load_args(
        csv.to_str().unwrap(),
        out.to_str().unwrap(),
        &["--worker", "0/1", "--memory", "1"],
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_rowkey"))
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let staging = out.join("_part-0-0.tmp");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    // A sort run spilled anywhere under the output: the worker is busy.
    let spilled = || {
        std::fs::read_dir(&out)
            .into_iter()
            .flatten()
            .flatten()
            .any(|sub| {
                std::fs::read_dir(sub.path())
                    .into_iter()
                    .flatten()
                    .flatten()
                    .any(|e| name(&e.path()).starts_with(".rowkey-sort-"))
            })
    };
    while !spilled() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the worker ended before it spilled: make the input larger"
        );
        assert!(std::time::Instant::now() < deadline, "no spill in 60 s");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success(), "killed half-way");
    assert!(!out.join("part-0-0").exists(), "no part of a killed worker");
    assert!(staging.exists());
    assert!(
        cells_under(&out).is_empty(),
        "nothing a commit would load (it takes part-* only)"
    );

    ok(&args);
    assert!(!staging.exists(), "the rerun took the staging directory");
    let rows_written: BTreeSet<Vec<u8>> = cells_under(&out).into_iter().map(|c| c.0).collect();
    assert_eq!(rows_written.len() as u64, rows);
}

/// Regions' file counts, in key order, summed over workers' JSON
/// summaries.
fn region_files(summaries: &[serde_json::Value]) -> Vec<u64> {
    let mut files = Vec::new();
    for s in summaries {
        for (i, r) in s["regions"].as_array().unwrap().iter().enumerate() {
            if files.len() <= i {
                files.push(0);
            }
            files[i] += r["files"].as_u64().unwrap();
        }
    }
    files
}

/// Every cell of the table, as (row, family, qualifier, value).
fn table_cells(client: &rowkey_hbase::Client, table: &str) -> BTreeSet<Cell> {
    let mut cells = BTreeSet::new();
    for row in client
        .scan_typed::<UserEvent>(table, &UserEvent::scan_all(), None)
        .unwrap()
    {
        let (key, row_cells) = row.unwrap();
        let row = key.encode_to_vec().unwrap();
        for (f, q, v) in row_cells {
            cells.insert((row.clone(), f.into_bytes(), q, v));
        }
    }
    cells
}

/// Two worker processes of two sorters each over a Parquet file, their
/// HFiles written straight to HDFS (HBase's own, a MiniDFSCluster), one
/// `rowkey bulkload commit` through the region servers (no gateway, no
/// Java tool): the table reads back as the input through a typed scan,
/// each region holds the files the summaries counted, a second commit
/// loads nothing, and a load cut before a region split commits whole (its
/// crossing files split on HDFS). A local load's files are copied in by
/// the region servers (a new table pre-split from a sample).
#[test]
fn workers_files_committed_natively_read_back_as_the_input() {
    // HBase on HDFS, as in production; no compaction merges a region's
    // loaded files while they are counted.
    let hbase = rowkey_hbase::testing::HBase::builder()
        .gateway(false)
        .hdfs(true)
        .setting("hbase.hstore.compaction.min", "1000")
        .setting("hbase.hstore.compaction.max", "1001")
        .start()
        .unwrap();
    let client = hbase.client().unwrap();
    client
        .create_table("imported", &["d"], &UserEvent::split_points())
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("events.parquet");
    let rows = 50_000;
    write_parquet(&file, rows, 6_250);
    // The files go straight to HDFS.
    let hdfs = hbase.hdfs_url().unwrap().to_string();
    let out_s = &format!("{hdfs}/loads/events");
    let input = file.to_str().unwrap();
    let summaries: Vec<serde_json::Value> = ["0/2", "1/2"]
        .iter()
        .map(|w| {
            let json = ok(&load_args(
                input,
                out_s,
                &["--workers", "2", "--worker", w, "--json"],
            ));
            serde_json::from_str(&json).unwrap()
        })
        .collect();
    let files: u64 = summaries.iter().map(|s| s["files"].as_u64().unwrap()).sum();
    let bootstrap = format!("hbase://{}", hbase.bootstrap());
    let commit = |out: &str| -> serde_json::Value {
        let json = ok(&[
            "bulkload", "commit", "--out", out, "--table", "imported", "--hbase", &bootstrap,
            "--json",
        ]);
        serde_json::from_str(&json).unwrap()
    };
    let report = commit(out_s);
    assert_eq!(report["files"].as_u64(), Some(files), "{report}");
    assert_eq!(report["split"], 0);
    assert_eq!(report["parts"].as_array().unwrap().len(), 4);
    let stored: Vec<u64> = hbase
        .store_files("imported")
        .unwrap()
        .iter()
        .map(|s| s.files as u64)
        .collect();
    assert_eq!(
        stored,
        region_files(&summaries),
        "HBase's store files per region"
    );
    let want_first = want(0..rows);
    assert!(
        table_cells(&client, "imported") == want_first,
        "the table differs from the input"
    );

    // HBase moved the files: a second commit loads nothing, changes nothing.
    let again = commit(out_s);
    assert_eq!(again["files"], 0, "{again}");
    let text = ok(&[
        "bulkload", "commit", "--out", out_s, "--table", "imported", "--hbase", &bootstrap,
    ]);
    assert!(text.contains("nothing to load"), "{text}");
    assert_eq!(
        hbase
            .store_files("imported")
            .unwrap()
            .iter()
            .map(|s| s.files as u64)
            .collect::<Vec<_>>(),
        stored
    );

    // Files cut at the old boundaries, then a region splits: the commit
    // splits the files that cross the new boundary and loads them all.
    let file2 = dir.path().join("more.parquet");
    write_parquet_range(&file2, rows..rows + 10_000);
    let out2 = format!("{hdfs}/loads/more");
    ok(&load_args(
        file2.to_str().unwrap(),
        &out2,
        &["--workers", "2"],
    ));
    // Inside bucket 3: its users below 512 on one side, the others on the
    // other.
    hbase
        .split_region("imported", &[3, 0, 0, 0, 0, 0, 0, 2])
        .unwrap();
    let report = commit(&out2);
    assert!(report["split"].as_u64().unwrap() >= 1, "{report}");
    assert!(
        table_cells(&client, "imported") == want(0..rows + 10_000),
        "the table after the split differs"
    );

    // An unsalted key crowded at its low end, a new table pre-split from a
    // sample of the input at equal row counts, not equal key ranges.
    let csv = dir.path().join("skewed.csv");
    let mut text = String::from("user,seq\n");
    let n = 40_000u64;
    for i in 0..n {
        text.push_str(&format!("{},{}\n", i * i / n, i));
    }
    std::fs::write(&csv, text).unwrap();
    let out3 = dir.path().join("out3");
    let json = ok(&[
        "bulkload",
        "--layout",
        "[user u64][seq u32]",
        "--input",
        csv.to_str().unwrap(),
        "--out",
        out3.to_str().unwrap(),
        "--create-table",
        &bootstrap,
        "skewed",
        "--regions",
        "8",
        "--sample",
        "0.05",
        "--workers",
        "2",
        "--json",
    ]);
    let summary: serde_json::Value = serde_json::from_str(&json).unwrap();
    let rows: Vec<u64> = summary["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["rows"].as_u64().unwrap())
        .collect();
    assert_eq!(rows.len(), 8, "{json}");
    for r in &rows {
        assert!(
            (3_500..6_500).contains(r),
            "about 5,000 rows per region: {rows:?}"
        );
    }
    let regions = client.region_locations("skewed").unwrap();
    assert_eq!(regions.len(), 8);
    let report = ok(&[
        "bulkload",
        "commit",
        "--out",
        out3.to_str().unwrap(),
        "--table",
        "skewed",
        "--hbase",
        &bootstrap,
    ]);
    assert!(
        report.starts_with("skewed: 8 files loaded (0 split"),
        "{report}"
    );
    let read = client
        .scan("skewed", &rowkey_core::Scan::from_bounds(&[], &[]), None)
        .unwrap()
        .count();
    assert_eq!(read as u64, n);
}
