//! The seeds' import measured: rows from a Parquet file to a loaded table
//! by `rowkey bulkload` (sorters, HFiles straight to HDFS) and `rowkey
//! bulkload commit` (the region servers' bulk-load calls), against HBase's
//! own tools on the same rows: `ImportTsv` with `importtsv.bulk.output`
//! (MapReduce's local runner, one reducer per region) then
//! `completebulkload`, all on the test HBase over a MiniDFSCluster, in one
//! run.
//!
//! The figure is rows per CPU-second of the importing processes (user +
//! system time of each, from `wait4`), so the two compare per core
//! whatever the machine runs beside them; wall time and peak memory are
//! printed beside it (rowkey's runs fail above their `--memory 256`). The
//! servers' own work (HBase moving the loaded files) is the same for both
//! and not counted.
//!
//! `cargo bench -p rowkey-cli --bench import` (`ROWKEY_IMPORT_ROWS`, default
//! 1,000,000). Every table is counted after its load: a run that lost rows
//! fails.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use arrow_array::{Int32Array, RecordBatch, StringArray, TimestampMillisecondArray, UInt64Array};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use rowkey_hbase::testing::{launcher, HBase};

// The tests' key and layout text.
#[path = "../tests/common/mod.rs"]
mod common;
use common::{key, UserEvent, SPEC};

/// Event `i`: user, timestamp, kind, clicks, page.
fn event(i: u64) -> (u64, i64, &'static str, i32, String) {
    (
        i % 100_003,
        1_700_000_000_000 + i as i64,
        ["click", "view", "buy"][i as usize % 3],
        (i % 1000) as i32,
        format!("/p/{}", i % 5000),
    )
}

/// What one process cost: wall seconds, CPU seconds, peak RSS in MiB.
struct Cost {
    wall: f64,
    cpu: f64,
    peak_mib: f64,
}

/// Runs `command` to its end, reaped by `wait4` for its resource use.
#[allow(unsafe_code, clippy::zombie_processes)]
fn run(mut command: Command) -> Cost {
    let start = Instant::now();
    let child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn");
    let pid = child.id() as libc::pid_t;
    let mut out = child.stdout.expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut out, &mut text).ok();
        text
    });
    let mut status = 0;
    // SAFETY: plain FFI; `usage` is a zeroed rusage the call fills.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: plain FFI on the child this process spawned and has not
    // reaped; `status` and `usage` are the call's out-parameters.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed().as_secs_f64();
    let text = reader.join().unwrap_or_default();
    assert_eq!(reaped, pid, "wait4");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{command:?} failed: {text}"
    );
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Cost {
        wall,
        cpu: secs(usage.ru_utime) + secs(usage.ru_stime),
        peak_mib: usage.ru_maxrss as f64 / 1024.0,
    }
}

fn rowkey(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rowkey"));
    c.args(args);
    c
}

fn write_inputs(dir: &Path, rows: u64) {
    let schema = Arc::new(Schema::new(vec![
        Field::new("user_id", DataType::UInt64, false),
        Field::new(
            "ts_millis",
            DataType::Timestamp(TimeUnit::Millisecond, None),
            false,
        ),
        Field::new("kind", DataType::Utf8, false),
        Field::new("clicks", DataType::Int32, false),
        Field::new("page", DataType::Utf8, false),
    ]));
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(125_000))
        .build();
    let file = std::fs::File::create(dir.join("events.parquet")).unwrap();
    let mut parquet = ArrowWriter::try_new(file, schema.clone(), Some(props)).unwrap();
    let mut csv = std::io::BufWriter::new(std::fs::File::create(dir.join("events.csv")).unwrap());
    let mut tsv = std::io::BufWriter::new(std::fs::File::create(dir.join("keyed.csv")).unwrap());
    writeln!(csv, "user_id,ts_millis,kind,clicks,page").unwrap();
    let mut at = 0;
    while at < rows {
        let chunk: Vec<_> = (at..rows.min(at + 8192)).map(event).collect();
        at += chunk.len() as u64;
        for (u, ts, kind, clicks, page) in &chunk {
            writeln!(csv, "{u},{ts},{kind},{clicks},{page}").unwrap();
            // HBase's tool takes the row key as the text of a column: the
            // same key, in hex.
            let row = key(*u, *ts, kind);
            let hex: String = row.iter().map(|b| format!("{b:02x}")).collect();
            writeln!(tsv, "{hex},{clicks},{page}").unwrap();
        }
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(UInt64Array::from_iter_values(chunk.iter().map(|e| e.0))),
                Arc::new(TimestampMillisecondArray::from_iter_values(
                    chunk.iter().map(|e| e.1),
                )),
                Arc::new(StringArray::from_iter_values(chunk.iter().map(|e| e.2))),
                Arc::new(Int32Array::from_iter_values(chunk.iter().map(|e| e.3))),
                Arc::new(StringArray::from_iter_values(
                    chunk.iter().map(|e| e.4.as_str()),
                )),
            ],
        )
        .unwrap();
        parquet.write(&batch).unwrap();
    }
    parquet.close().unwrap();
}

fn count(client: &rowkey_hbase::Client, table: &str) -> u64 {
    client
        .scan(table, &rowkey_core::Scan::from_bounds(&[], &[]), None)
        .unwrap()
        .map(|r| {
            r.unwrap();
        })
        .count() as u64
}

fn main() {
    let rows: u64 = std::env::var("ROWKEY_IMPORT_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let hbase = HBase::builder()
        .gateway(false)
        .hdfs(true)
        .start()
        .expect("HBase on HDFS");
    let client = hbase.client().unwrap();
    let hdfs = hbase.hdfs_url().unwrap().to_string();
    let bootstrap = format!("hbase://{}", hbase.bootstrap());
    let dir = tempfile::tempdir().unwrap();
    write_inputs(dir.path(), rows);
    let input = |name: &str| dir.path().join(name).display().to_string();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("{rows} rows, {cores} cores; rows per CPU-second of the importing processes");

    let mut report = Vec::new();
    for (name, file, workers) in [
        ("rowkey, Parquet, 1 sorter", "events.parquet", "1"),
        ("rowkey, Parquet, 2 sorters", "events.parquet", "2"),
        ("rowkey, CSV, 1 sorter", "events.csv", "1"),
    ] {
        let table = format!("rk{}", report.len());
        client
            .create_table(&table, &["d"], &UserEvent::split_points())
            .unwrap();
        let out = format!("{hdfs}/loads/{table}");
        let load = run(rowkey(&[
            "bulkload",
            "--layout",
            SPEC,
            "--input",
            &input(file),
            "--out",
            &out,
            "--split-points",
            "--workers",
            workers,
            "--worker",
            "0/1",
            "--memory",
            "256",
        ]));
        let commit = run(rowkey(&[
            "bulkload", "commit", "--out", &out, "--table", &table, "--hbase", &bootstrap,
        ]));
        assert_eq!(count(&client, &table), rows, "{name}: rows lost");
        assert!(
            load.peak_mib < 256.0,
            "{name}: {:.0} MiB at its peak, over --memory 256",
            load.peak_mib
        );
        report.push((name, load, Some(commit)));
    }

    client
        .create_table("tsv", &["d"], &UserEvent::split_points())
        .unwrap();
    let zk = hbase.zookeeper_port().to_string();
    let tsv_out = format!("{hdfs}/loads/tsv");
    let csv_uri = format!("file://{}", input("keyed.csv"));
    let java = launcher(
        &["-Xmx2g"],
        &[
            "importtsv",
            &zk,
            &hdfs,
            "tsv",
            "HBASE_ROW_KEY,d:clicks,d:page",
            ",",
            &csv_uri,
            &tsv_out,
        ],
    )
    .unwrap();
    let tsv = run(java);
    assert_eq!(count(&client, "tsv"), rows, "ImportTsv: rows lost");
    report.push(("HBase ImportTsv + completebulkload, CSV", tsv, None));

    let per_cpu = |c: &Cost, commit: &Option<Cost>| {
        rows as f64 / (c.cpu + commit.as_ref().map_or(0.0, |c| c.cpu))
    };
    let base = per_cpu(&report[3].1, &None);
    println!(
        "{:<42} {:>10} {:>10} {:>8} {:>12} {:>9} {:>8}",
        "import", "write s", "commit s", "CPU s", "rows/CPU-s", "peak MiB", "vs HBase"
    );
    for (name, load, commit) in &report {
        let cpu = load.cpu + commit.as_ref().map_or(0.0, |c| c.cpu);
        let peak = load
            .peak_mib
            .max(commit.as_ref().map_or(0.0, |c| c.peak_mib));
        let rate = per_cpu(load, commit);
        let commit_wall = commit
            .as_ref()
            .map_or_else(|| "-".to_string(), |c| format!("{:.1}", c.wall));
        println!(
            "{name:<42} {:>10.1} {commit_wall:>10} {cpu:>8.1} {rate:>12.0} {peak:>9.0} {:>7.1}x",
            load.wall,
            rate / base
        );
    }
    let best = per_cpu(&report[1].1, &report[1].2);
    for n in [16.0, 64.0, 256.0] {
        println!(
            "a billion rows on {n} cores, CPU-bound: rowkey {:.1} min, HBase's tool {:.1} min",
            1e9 / best / n / 60.0,
            1e9 / base / n / 60.0
        );
    }
}
