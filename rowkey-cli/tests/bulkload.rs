//! `rowkey bulkload`: rows of CSV and JSON-lines files become HFiles whose
//! cells HBase's own reader reads, keyed as the derive keys them; loaded
//! into a real HBase by its own tool, they read back through Thrift; a bad
//! row stops the load naming its line and field.

use std::collections::BTreeSet;

use rowkey_core::prelude::*;
use rowkey_hbase::testing::{read_hfiles, HBase};

mod common;
use common::{key, ok, rowkey, Cell, UserEvent, SPEC};

/// 300 events: (user, ts, kind, clicks, page).
fn events() -> Vec<(u64, i64, String, u32, String)> {
    (0..300u64)
        .map(|i| {
            let kind = ["click", "view", "buy"][i as usize % 3].to_string();
            (
                i % 41,
                1_700_000_000_000 + i as i64,
                kind,
                i as u32 * 7,
                format!("/p,{i}"),
            )
        })
        .collect()
}

/// The cells the files must hold: (row, family, qualifier, value).
fn want() -> BTreeSet<Cell> {
    let mut want = BTreeSet::new();
    for (user_id, ts_millis, kind, clicks, page) in events() {
        let row = key(user_id, ts_millis, &kind);
        want.insert((
            row.clone(),
            b"d".to_vec(),
            b"clicks".to_vec(),
            clicks.to_string().into_bytes(),
        ));
        want.insert((row, b"d".to_vec(), b"page".to_vec(), page.into_bytes()));
    }
    want
}

/// The salt buckets the events fall in: one file each.
fn buckets() -> usize {
    let buckets: BTreeSet<u8> = events()
        .into_iter()
        .map(|(user_id, ts_millis, kind, _, _)| key(user_id, ts_millis, &kind)[0])
        .collect();
    buckets.len()
}

/// Every cell of the files under `dir`, as HBase's reader reads them.
fn cells_in(dir: &std::path::Path) -> BTreeSet<Cell> {
    let files: Vec<std::path::PathBuf> = std::fs::read_dir(dir.join("d"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let mut cells = BTreeSet::new();
    for read in read_hfiles(&files).unwrap() {
        assert_eq!(read.checksum_failures, 0);
        for c in read.cells {
            assert_eq!(c.timestamp, 1_234);
            cells.insert((c.row, c.family, c.qualifier, c.value));
        }
    }
    cells
}

/// The events as CSV, with a header line, at `path`.
fn write_csv(path: &std::path::Path) {
    let mut text = String::from("user_id,ts_millis,kind,clicks,page\n");
    for (u, ts, kind, clicks, page) in events() {
        text.push_str(&format!("{u},{ts},{kind},{clicks},\"{page}\"\n"));
    }
    std::fs::write(path, text).unwrap();
}

/// `rowkey bulkload` of `input` into `out`, every cell at timestamp 1234,
/// cut as `cut` says (`--split-points`, or `--regions ADDR TABLE`); its
/// standard output, after checking it succeeded.
fn bulkload(input: &std::path::Path, out: &std::path::Path, cut: &[&str]) -> String {
    let mut args = vec![
        "bulkload",
        "--layout",
        SPEC,
        "--input",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--timestamp",
        "1234",
    ];
    args.extend_from_slice(cut);
    let run = rowkey(&args);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    String::from_utf8(run.stdout).unwrap()
}

#[test]
fn csv_and_json_lines_become_the_derives_keys_in_hfiles() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("rows.csv");
    write_csv(&csv);
    let jsonl = dir.path().join("rows.jsonl");
    let mut text = String::new();
    for (u, ts, kind, clicks, page) in events() {
        text.push_str(&format!(
            "{{\"user_id\": {u}, \"ts_millis\": {ts}, \"kind\": \"{kind}\", \"clicks\": {clicks}, \"page\": \"{page}\"}}\n"
        ));
    }
    std::fs::write(&jsonl, text).unwrap();

    for input in [&csv, &jsonl] {
        let out = dir.path().join(format!(
            "out-{}",
            input.extension().unwrap().to_str().unwrap()
        ));
        let stdout = bulkload(input, &out, &["--split-points"]);
        assert!(
            stdout.starts_with(&format!(
                "300 input rows (0 bad): 300 rows, 600 cells in {} files",
                buckets()
            )),
            "{stdout}"
        );
        assert_eq!(stdout.matches("\nregion [").count(), 16, "{stdout}");
        assert!(
            cells_in(&out) == want(),
            "{} differs from the derive's",
            input.display()
        );
    }
}

/// JSON lines whose value members are `null`, absent from some objects
/// (with and without `--value`), numbers and byte arrays: `null` and
/// absent are no cell (they used to be the 4 bytes `None`, and an absent
/// `--value` column stopped the load); a value of another type is an
/// error naming the line and the member.
#[test]
fn json_nulls_and_absent_values_are_no_cells() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("rows.jsonl");
    std::fs::write(
        &jsonl,
        "{\"user_id\": 1, \"ts_millis\": 5, \"kind\": \"click\", \"clicks\": null, \"page\": \"/a\"}\n\
         {\"user_id\": 2, \"ts_millis\": 6, \"kind\": \"view\", \"clicks\": 3}\n\
         {\"user_id\": 3, \"ts_millis\": 7, \"kind\": \"buy\", \"page\": [0, 255]}\n",
    )
    .unwrap();
    let cell =
        |row: Vec<u8>, q: &str, v: &[u8]| (row, b"d".to_vec(), q.as_bytes().to_vec(), v.to_vec());
    let want: BTreeSet<Cell> = [
        cell(key(1, 5, "click"), "page", b"/a"),
        cell(key(2, 6, "view"), "clicks", b"3"),
        cell(key(3, 7, "buy"), "page", &[0, 255]),
    ]
    .into();
    for values in [&[][..], &["--value", "clicks", "--value", "page"][..]] {
        let out = dir.path().join(format!("out{}", values.len()));
        let mut cut = vec!["--split-points"];
        cut.extend_from_slice(values);
        let stdout = bulkload(&jsonl, &out, &cut);
        assert!(
            stdout.starts_with("3 input rows (0 bad): 3 rows, 3 cells"),
            "{stdout}"
        );
        assert!(cells_in(&out) == want, "{values:?}");
    }
    std::fs::write(
        &jsonl,
        "{\"user_id\": 1, \"ts_millis\": 5, \"kind\": \"click\", \"clicks\": 1}\n\
         {\"user_id\": 2, \"ts_millis\": 6, \"kind\": \"view\", \"clicks\": true}\n",
    )
    .unwrap();
    let out = dir.path().join("bad");
    let run = rowkey(&[
        "bulkload",
        "--layout",
        SPEC,
        "--input",
        jsonl.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--split-points",
    ]);
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("rows.jsonl line 2, column `clicks`: a boolean, and a value is"),
        "{stderr}"
    );
}

#[test]
fn a_bad_row_stops_the_load_naming_its_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("rows.csv");
    std::fs::write(&csv, "user_id,ts_millis,kind\n1,5,click\n2,x,view\n").unwrap();
    let out = dir.path().join("out");
    let args = [
        "bulkload",
        "--layout",
        SPEC,
        "--input",
        csv.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--split-points",
    ];
    let run = rowkey(&args);
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("rows.csv line 3, column `ts_millis`: `x` is not an i64"),
        "{stderr}"
    );
    assert!(
        stderr.contains("1 bad row (listed above): nothing written"),
        "{stderr}"
    );
    assert!(!out.join("d").exists(), "no file written");

    std::fs::write(&csv, "user_id,kind\n1,click\n").unwrap();
    let run = rowkey(&args);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("no column for the key field `ts_millis`"),
        "{stderr}"
    );

    // An argument that is wrong is a usage error (status 2), named.
    let txt = dir.path().join("rows.txt");
    std::fs::write(&txt, "user_id,ts_millis,kind\n1,5,click\n").unwrap();
    let mut args = args;
    args[4] = txt.to_str().unwrap();
    let run = rowkey(&args);
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("say its format with --format"), "{stderr}");
}

/// The regions asked of a real table; the files loaded by HBase's own
/// bulk load; every row read back through the gateway.
#[test]
fn files_cut_at_a_tables_regions_load_into_it() {
    let hbase = HBase::start().unwrap();
    let client = hbase.client().unwrap();
    client
        .create_table("events", &["d"], &UserEvent::split_points())
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("rows.csv");
    write_csv(&csv);
    let out = dir.path().join("out");
    let addr = hbase.gateway_addr();
    // A table that is not there: refused (status 2), naming it, no file
    // written (it used to write one region's files, and loading them
    // created the table).
    let missing = dir.path().join("missing");
    let run = rowkey(&[
        "bulkload",
        "--layout",
        SPEC,
        "--input",
        csv.to_str().unwrap(),
        "--out",
        missing.to_str().unwrap(),
        "--regions",
        &addr,
        "no_such_table",
    ]);
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("table no_such_table does not exist"),
        "{stderr}"
    );
    assert!(!missing.exists(), "no file written");

    // The same regions asked of HBase's masters, no gateway: the same
    // files.
    let native = dir.path().join("native");
    let bootstrap = format!("hbase://{}", hbase.bootstrap());
    bulkload(&csv, &native, &["--regions", &bootstrap, "events"]);
    let names = |d: &std::path::Path| -> Vec<(String, u64)> {
        let mut files: Vec<(String, u64)> = std::fs::read_dir(d.join("d"))
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().into_string().unwrap(),
                    e.metadata().unwrap().len(),
                )
            })
            .collect();
        files.sort();
        files
    };

    let stdout = bulkload(&csv, &out, &["--regions", &addr, "events"]);
    assert_eq!(
        names(&native).len(),
        names(&out).len(),
        "one file per region either way"
    );
    assert!(stdout.contains("hbase completebulkload"), "{stdout}");
    assert_eq!(hbase.bulk_load(&out, "events").unwrap(), buckets());
    // The files were moved: a second load of the folder loads nothing.
    assert_eq!(hbase.bulk_load(&out, "events").unwrap(), 0);
    // Loading into a table that is not there is an error, and no table.
    let again = dir.path().join("again");
    bulkload(&csv, &again, &["--split-points"]);
    assert!(hbase.bulk_load(&again, "no_such_table").is_err());
    assert!(!client.table_exists("no_such_table").unwrap());
    let mut read = BTreeSet::new();
    for row in client
        .scan_typed::<UserEvent>("events", &UserEvent::scan_all(), None)
        .unwrap()
    {
        let (key, cells) = row.unwrap();
        let row = key.encode_to_vec().unwrap();
        for (f, q, v) in cells {
            read.insert((row.clone(), f.into_bytes(), q, v));
        }
    }
    assert!(read == want(), "the table differs from the input");

    // The table moved to 8 salt buckets by `rowkey migrate` through the
    // masters: planned, copied by bulk load, verified clean; a row
    // deleted from the new table is then found missing (status 1).
    let to = "[salt(user_id)/8][user_id u64][ts_millis desc_ts i64][kind fixed(8) String]";
    let step = |step: &'static str, more: &[&str]| {
        let mut args = vec![
            "migrate",
            step,
            "--from",
            SPEC,
            "--to",
            to,
            "--hbase",
            &bootstrap,
            "--table",
            "events",
            "--to-table",
            "events_v2",
        ];
        args.extend_from_slice(more);
        rowkey(&args)
    };
    let stdout = |run: &std::process::Output| String::from_utf8_lossy(&run.stdout).into_owned();
    let plan = step("plan", &[]);
    assert!(plan.status.success(), "{plan:?}");
    assert!(
        stdout(&plan).contains("to move: 300 rows"),
        "{}",
        stdout(&plan)
    );
    let loads = dir.path().join("migrate");
    let run = step("run", &["--bulk-dir", loads.to_str().unwrap()]);
    assert!(run.status.success(), "{run:?}");
    assert!(
        stdout(&run).starts_with("300 rows copied"),
        "{}",
        stdout(&run)
    );
    let verify = step("verify", &[]);
    assert_eq!(verify.status.code(), Some(0), "{verify:?}");
    assert!(
        stdout(&verify).starts_with("300 rows old, 300 new: 0 missing, 0 extra, 0 differing"),
        "{}",
        stdout(&verify)
    );
    let moved: Vec<Vec<u8>> = client
        .scan("events_v2", &rowkey_core::Scan::from_bounds(b"", b""), None)
        .unwrap()
        .map(|r| r.unwrap().0)
        .collect();
    assert_eq!(moved.len(), 300);
    assert!(moved.iter().all(|k| k[0] < 8), "8 buckets");
    client
        .delete_raw_rows_with("events_v2", [moved[0].clone()], Default::default())
        .unwrap();
    let found = step("verify", &[]);
    assert_eq!(found.status.code(), Some(1), "{found:?}");
    assert!(
        stdout(&found).contains("1 missing") && stdout(&found).contains("\n  missing (user_id="),
        "{}",
        stdout(&found)
    );

    indexed_load_into(&hbase, &bootstrap);
}

/// An order's key: the data rows of an indexed table.
#[derive(RowKey, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[rowkey(prefix = "D")]
struct Order {
    id: u64,
}

/// An order as its row's cells: `d:kind` and `d:clicks`, as the CSV load
/// writes them (their text).
#[derive(Debug, Clone, PartialEq)]
struct OrderRow {
    kind: String,
    clicks: u32,
}

impl rowkey_core::index::Record for OrderRow {
    const CELLS: bool = true;
    fn to_cells(&self) -> Vec<rowkey_core::index::Cell> {
        vec![
            ("d".into(), b"kind".to_vec(), self.kind.as_bytes().to_vec()),
            (
                "d".into(),
                b"clicks".to_vec(),
                self.clicks.to_string().into_bytes(),
            ),
        ]
    }
    fn from_cells(
        cells: &[rowkey_core::index::Cell],
    ) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        let cell = |q: &[u8]| {
            cells
                .iter()
                .find(|c| c.1 == q)
                .map(|c| String::from_utf8(c.2.clone()))
                .ok_or("a cell is missing")
        };
        Ok(OrderRow {
            kind: cell(b"kind")??,
            clicks: cell(b"clicks")??.parse()?,
        })
    }
}

/// `I` + kind + the order: what `rowkey bulkload --index` writes from the
/// CSV's `kind` column.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "I")]
struct ByKind {
    #[fixed(8)]
    kind: String,
    order: Order,
}

impl rowkey_core::index::Index for ByKind {
    type Data = Order;
    type Record = OrderRow;
    fn entries(order: &Order, r: &OrderRow) -> impl IntoIterator<Item = Self> {
        [ByKind {
            kind: r.kind.clone(),
            order: *order,
        }]
    }
    fn data_key(&self) -> Order {
        self.order
    }
}

/// 300 orders: (id, kind, clicks).
fn orders() -> Vec<(u64, String, u32)> {
    events()
        .into_iter()
        .enumerate()
        .map(|(i, (_, _, kind, clicks, _))| (i as u64 * 3, kind, clicks))
        .collect()
}

/// The orders as CSV at `path`, with `extra` lines after them.
fn write_orders(path: &std::path::Path, extra: &str) {
    let mut text = String::from("id,kind,clicks\n");
    for (id, kind, clicks) in orders() {
        text.push_str(&format!("{id},{kind},{clicks}\n"));
    }
    text.push_str(extra);
    std::fs::write(path, text).unwrap();
}

/// `rowkey bulkload --index` of the orders: the data rows' cells, and
/// beside them each order's `ByKind` entry, the bytes rowkey's
/// `IndexedTable` writes; a row whose indexed value does not fit is a bad
/// row naming its line and column, written neither.
#[test]
fn indexed_rows_carry_their_entries_into_the_same_files() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("orders.csv");
    write_orders(&csv, "");
    let (data, index) = (Order::LAYOUT.to_string(), ByKind::LAYOUT.to_string());
    let out = dir.path().join("out");
    let args = |out: &std::path::Path| {
        vec![
            "bulkload".to_string(),
            "--layout".into(),
            data.clone(),
            "--index".into(),
            index.clone(),
            "--input".into(),
            csv.to_str().unwrap().into(),
            "--out".into(),
            out.to_str().unwrap().into(),
            "--timestamp".into(),
            "1234".into(),
            "--split-points".into(),
        ]
    };
    let run = |args: &[String]| rowkey(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let done = run(&args(&out));
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let mut want = BTreeSet::new();
    for (id, kind, clicks) in orders() {
        let order = Order { id };
        let row = OrderRow { kind, clicks };
        for (f, q, v) in rowkey_core::index::Record::to_cells(&row) {
            want.insert((order.encode_to_vec().unwrap(), f.into_bytes(), q, v));
        }
        for entry in rowkey_core::index::entry_keys::<ByKind>(&order, &row).unwrap() {
            let ts = rowkey_core::index::entry_value(1234).to_vec();
            want.insert((entry, b"d".to_vec(), b"v".to_vec(), ts));
        }
    }
    assert_eq!(want.len(), 900);
    assert!(
        cells_in(&out) == want,
        "the files differ from the rows and entries"
    );

    // A kind longer than its fixed(8): the row is bad, named; nothing
    // written.
    write_orders(&csv, "9000,checkout-started,1\n");
    let bad = dir.path().join("bad");
    let failed = run(&args(&bad));
    assert_eq!(failed.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(stderr.contains("line 302, column `kind`"), "{stderr}");
    assert!(!bad.join("d").exists(), "no file written");
    // An index whose last field is not the data key: refused up front.
    let mut wrong = args(&bad);
    wrong[4] = "[prefix \"I\"][kind fixed(8) String][order u32]".into();
    let refused = run(&wrong);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("last field `order` must be the data key"),
        "{stderr}"
    );
}

/// The orders and their entries bulk-loaded into a new table pre-split
/// for both (`--create-table`, `--regions 3` from a sample of the rows,
/// the index's rows starting a region), committed natively: rowkey's
/// `IndexedTable` finds the index whole and answers from it.
fn indexed_load_into(hbase: &HBase, bootstrap: &str) {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("orders.csv");
    write_orders(&csv, "");
    let out = dir.path().join("orders");
    let (data, index) = (Order::LAYOUT.to_string(), ByKind::LAYOUT.to_string());
    ok(&[
        "bulkload",
        "--layout",
        &data,
        "--index",
        &index,
        "--input",
        csv.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--create-table",
        bootstrap,
        "orders",
        "--regions",
        "3",
        "--sample",
        "1",
    ]);
    ok(&[
        "bulkload",
        "commit",
        "--out",
        out.to_str().unwrap(),
        "--table",
        "orders",
        "--hbase",
        bootstrap,
    ]);
    let client = hbase.client().unwrap();
    let starts: Vec<Vec<u8>> = client
        .region_locations("orders")
        .unwrap()
        .into_iter()
        .map(|r| r.start)
        .collect();
    assert!(starts.contains(&b"I".to_vec()), "{starts:?}");
    let table = rowkey_core::index::IndexedTable::new(rowkey_hbase::IndexStore::new(
        &client, "orders", "d",
    ))
    .with_index::<ByKind>();
    let report = table.verify::<ByKind>().unwrap();
    assert!(report.is_clean() && report.valid == 300, "{report:?}");
    let views = ByKind::filter().kind("view").build().unwrap();
    let mut got: Vec<u64> = table
        .query::<ByKind>(&views)
        .unwrap()
        .map(|hit| hit.unwrap().0.id)
        .collect();
    got.sort();
    let want: Vec<u64> = orders()
        .into_iter()
        .filter(|o| o.1 == "view")
        .map(|o| o.0)
        .collect();
    assert_eq!(got, want);
}
