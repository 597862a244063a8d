//! Bulk load end to end: rows put in random order under a memory budget
//! that forces spills, one HFile per region and family, loaded by HBase's
//! own `BulkLoadHFiles` (each file verified by the region server), then
//! read back through the Thrift gateway and compared with a model.

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use rowkey_core::prelude::*;
use rowkey_hbase::bulk::{BulkError, BulkLoad};
use rowkey_hbase::hfile::Compression;
use rowkey_hbase::testing::{read_hfiles, HBase};
use rowkey_hbase::Cell;

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 8, by(user))]
struct Event {
    user: u32,
    #[desc_ts]
    ts: i64,
    #[fixed(6)]
    kind: String,
}

const TS: i64 = 1_700_000_000_000;

/// The model: each row's cells by (family, qualifier), the last put's
/// value.
type Model = BTreeMap<Vec<u8>, BTreeMap<(String, Vec<u8>), Vec<u8>>>;

/// A cell as a file holds it: row, family, qualifier, value.
type FileCell = (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>);

/// `n` random rows of 1 to 4 cells in two families, put in a random order,
/// one row in ten put a second time with other values; the model of what
/// the table must hold.
fn random_puts(n: usize) -> (Vec<(Event, Vec<Cell>)>, Model) {
    let strategy = prop::collection::vec(
        (
            0u32..5_000,
            0i64..1_000_000,
            "[a-z]{0,6}",
            prop::collection::vec(
                (
                    prop::sample::select(vec!["d", "m"]),
                    prop::sample::select(vec![&b"a"[..], b"b", b"q", b""]),
                    prop::collection::vec(any::<u8>(), 0..40),
                ),
                1..5,
            ),
        ),
        n,
    );
    let mut runner = TestRunner::deterministic();
    let rows = strategy.new_tree(&mut runner).unwrap().current();
    // Each row's puts: its cells, and for one row in ten a second put of
    // other values for the same cells.
    let mut rows_puts: Vec<(Event, Vec<Vec<Cell>>)> = Vec::with_capacity(n);
    let mut slots = Vec::new();
    for (i, (user, ts, kind, cells)) in rows.into_iter().enumerate() {
        let key = Event {
            user,
            ts: TS + ts,
            kind,
        };
        let cells: Vec<Cell> = cells
            .into_iter()
            .map(|(f, q, v)| (f.to_string(), q.to_vec(), v))
            .collect();
        let mut puts = vec![cells];
        if i % 10 == 3 {
            let again = puts[0]
                .iter()
                .map(|(f, q, v)| (f.clone(), q.clone(), [v.as_slice(), b"!"].concat()))
                .collect();
            puts.push(again);
        }
        slots.extend(std::iter::repeat_n(i, puts.len()));
        rows_puts.push((key, puts));
    }
    // All puts in a random order: a row's first put is the first of its
    // slots to come, its second put the second.
    let order = prop::collection::vec(any::<u64>(), slots.len())
        .new_tree(&mut runner)
        .unwrap()
        .current();
    let mut keyed: Vec<(u64, usize)> = order.into_iter().zip(slots).collect();
    keyed.sort();
    let mut next = vec![0usize; rows_puts.len()];
    let shuffled: Vec<(Event, Vec<Cell>)> = keyed
        .into_iter()
        .map(|(_, i)| {
            let (key, puts) = &rows_puts[i];
            next[i] += 1;
            (key.clone(), puts[next[i] - 1].clone())
        })
        .collect();
    let mut model = Model::new();
    for (key, cells) in &shuffled {
        let row = model.entry(key.encode_to_vec().unwrap()).or_default();
        for (f, q, v) in cells {
            row.insert((f.clone(), q.clone()), v.clone());
        }
    }
    (shuffled, model)
}

fn sorted(mut cells: Vec<Cell>) -> Vec<Cell> {
    cells.sort();
    cells
}

fn model_cells(row: &BTreeMap<(String, Vec<u8>), Vec<u8>>) -> Vec<Cell> {
    sorted(
        row.iter()
            .map(|((f, q), v)| (f.clone(), q.clone(), v.clone()))
            .collect(),
    )
}

/// Everything `table` holds, by a typed scan of the whole key, equals the
/// model; a scan of a few users and a get of every 97th row too.
fn check_table(client: &rowkey_hbase::Client, table: &str, model: &Model) {
    let mut read = Model::new();
    for row in client
        .scan_typed::<Event>(table, &Event::scan_all(), None)
        .unwrap()
    {
        let (key, cells) = row.unwrap();
        let entry = read.entry(key.encode_to_vec().unwrap()).or_default();
        for (f, q, v) in cells {
            entry.insert((f, q), v);
        }
    }
    assert_eq!(read.len(), model.len(), "rows in {table}");
    assert!(read == *model, "{table} differs from the model");

    for user in [0u32, 17, 4_999] {
        let got: Vec<Vec<u8>> = client
            .scan_typed::<Event>(table, &Event::scan_by_user(user), None)
            .unwrap()
            .map(|r| r.unwrap().0.encode_to_vec().unwrap())
            .collect();
        let mut want: Vec<Vec<u8>> = model
            .keys()
            .filter(|k| Event::decode(k).unwrap().user == user)
            .cloned()
            .collect();
        want.sort();
        let mut got_sorted = got.clone();
        got_sorted.sort();
        assert_eq!(got_sorted, want, "user {user}");
    }
    for (key, row) in model.iter().step_by(97) {
        let cells = client.get_raw(table, key).unwrap().expect("a loaded row");
        assert_eq!(sorted(cells), model_cells(row));
    }
}

/// A test HBase with a table `events` of families `d` and `m`, pre-split
/// at the key's salt buckets.
fn pre_split_table() -> (HBase, rowkey_hbase::Client) {
    let hbase = HBase::start().unwrap();
    let client = hbase.client().unwrap();
    client
        .create_table("events", &["d", "m"], &Event::split_points())
        .unwrap();
    (hbase, client)
}

#[test]
fn fifty_thousand_random_rows_bulk_loaded_into_a_pre_split_table() {
    let (puts, model) = random_puts(50_000);
    let (hbase, client) = pre_split_table();

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("load");
    let mut load = BulkLoad::new(&out)
        .regions(&client.region_locations("events").unwrap())
        .memory(1 << 20)
        .block_size(4 * 1024)
        .compression(Compression::Gzip)
        .timestamp(TS);
    for (key, cells) in &puts {
        load.put_row(key, cells).unwrap();
    }
    let summary = load.finish().unwrap();
    assert!(summary.spills >= 3, "a 1 MiB budget spills: {summary:?}");
    assert_eq!(summary.rows, model.len() as u64);
    let cells: usize = model.values().map(BTreeMap::len).sum();
    assert_eq!(summary.cells, cells as u64);
    assert_eq!(summary.regions.len(), 8);
    // One file per region and family, every region with rows in both.
    for (i, region) in summary.regions.iter().enumerate() {
        for family in ["d", "m"] {
            let files = summary
                .files
                .iter()
                .filter(|f| f.region == i && f.family == family)
                .count();
            assert_eq!(files, 1, "region {i}, family {family}");
        }
        assert!(region.rows > 1_000, "{region:?}");
    }
    // The sort's scratch directory is gone; only the families are left.
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["d", "m"]);

    let loaded = hbase.bulk_load(&out, "events").unwrap();
    assert_eq!(loaded, 16);
    // HBase took each file as it was: one store file per region and
    // family, none split.
    let stores = hbase.store_files("events").unwrap();
    assert_eq!(stores.len(), 16);
    assert!(stores.iter().all(|s| s.files == 1), "{stores:?}");

    check_table(&client, "events", &model);
    assert_eq!(
        hbase.log_tail().matches("Exception").count(),
        0,
        "{}",
        hbase.log_tail()
    );
}

/// Files written without the table's boundaries span every region: HBase's
/// tool splits them at the regions and still loads every cell.
#[test]
fn a_file_across_regions_is_split_by_hbase_and_loaded() {
    let (puts, model) = random_puts(5_000);
    let (hbase, client) = pre_split_table();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("load");
    // Zstandard: HBase reads the file to split it.
    let mut load = BulkLoad::new(&out)
        .compression(Compression::Zstd)
        .timestamp(TS);
    for (key, cells) in &puts {
        load.put_row(key, cells).unwrap();
    }
    let summary = load.finish().unwrap();
    assert_eq!((summary.files.len(), summary.spills), (2, 0));
    hbase.bulk_load(&out, "events").unwrap();
    check_table(&client, "events", &model);
    let stores = hbase.store_files("events").unwrap();
    assert!(stores.iter().all(|s| s.files == 1), "{stores:?}");
}

/// The merge of spilled runs writes the same cells as a sort in memory;
/// files roll between rows past their size, never inside one.
#[test]
fn spilled_and_in_memory_loads_write_the_same_cells() {
    let (puts, model) = random_puts(3_000);
    let dir = tempfile::tempdir().unwrap();
    // Every file as HBase reads it (one JVM for all), checked against
    // the summary; all cells, sorted.
    let read_all = |out: &std::path::Path, summary: &rowkey_hbase::bulk::BulkSummary| {
        let paths: Vec<&std::path::Path> = summary.files.iter().map(|f| f.path.as_path()).collect();
        assert!(paths.iter().all(|p| p.starts_with(out)));
        let mut cells = Vec::new();
        let mut rows_by_file = Vec::new();
        for (file, read) in summary.files.iter().zip(read_hfiles(&paths).unwrap()) {
            assert_eq!(read.checksum_failures, 0);
            assert_eq!(read.cells.len() as u64, file.cells);
            let mut rows: Vec<Vec<u8>> = read.cells.iter().map(|c| c.row.clone()).collect();
            rows.dedup();
            assert_eq!(rows.len() as u64, file.rows);
            rows_by_file.extend(rows.into_iter().map(|r| (file.family.clone(), r)));
            cells.extend(
                read.cells
                    .into_iter()
                    .map(|c| (c.row, c.family, c.qualifier, c.value)),
            );
        }
        cells.sort();
        (cells, rows_by_file)
    };
    let load = |name: &str, memory: usize, max_file: u64| {
        let out = dir.path().join(name);
        let mut load = BulkLoad::new(&out)
            .split_points(&Event::split_points())
            .memory(memory)
            .max_file_size(max_file)
            .timestamp(TS);
        for (key, cells) in &puts {
            load.put_row(key, cells).unwrap();
        }
        let summary = load.finish().unwrap();
        let (cells, rows) = read_all(&out, &summary);
        (cells, rows, summary)
    };
    let (memory, _, in_memory) = load("memory", 1 << 30, u64::MAX);
    // An 8 KiB budget: over 64 runs, so runs are merged before the end.
    let (spilled, mut rows, with_spills) = load("spilled", 8 << 10, 4 << 10);
    assert_eq!(in_memory.spills, 0);
    assert!(with_spills.spills > 64, "{}", with_spills.spills);
    assert!(
        memory == spilled,
        "spilled and in-memory loads wrote other cells"
    );
    assert_eq!(in_memory.files.len(), 16);
    assert!(
        with_spills.files.len() > 48,
        "rolled: {}",
        with_spills.files.len()
    );
    // No row is in two files of one family.
    let n = rows.len();
    rows.sort();
    rows.dedup();
    assert_eq!(rows.len(), n, "a row was split across files");
    // Each cell as it was put last.
    let mut want: Vec<FileCell> = model
        .iter()
        .flat_map(|(row, cells)| {
            cells
                .iter()
                .map(move |((f, q), v)| (row.clone(), f.as_bytes().to_vec(), q.clone(), v.clone()))
        })
        .collect();
    want.sort();
    assert!(memory == want, "the files differ from the model");
}

#[test]
fn bad_rows_and_families_are_refused_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut load = BulkLoad::new(dir.path());
    let cell = |f: &str| vec![(f.to_string(), b"q".to_vec(), b"v".to_vec())];
    let e = load.put_raw_row(b"", &cell("d")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "bulk load: a row key of 0 bytes (): HBase takes 1 to 32767"
    );
    let e = load.put_raw_row(b"k\x01", &[]).unwrap_err();
    assert_eq!(e.to_string(), "bulk load: row k\\x01 has no cells");
    for family in ["", ".d", "a:b", "a/b"] {
        let e = load.put_raw_row(b"k", &cell(family)).unwrap_err();
        assert!(matches!(e, BulkError::BadFamily { .. }), "{family}: {e}");
    }
    let long = vec![b'k'; 32_768];
    assert!(matches!(
        load.put_raw_row(&long, &cell("d")),
        Err(BulkError::BadRow { len: 32_768, .. })
    ));
    // Nothing refused reached the files.
    load.put_raw_row(b"k", &cell("d")).unwrap();
    let summary = load.finish().unwrap();
    assert_eq!(
        (summary.rows, summary.cells, summary.files.len()),
        (1, 1, 1)
    );
}

/// The load's hidden folder of sorted runs, if it has one.
fn run_dir(dir: &std::path::Path) -> Option<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(".rowkey-sort-")
        })
}

/// A row of about 100 bytes, one cell.
fn row(i: u32) -> (Vec<u8>, Vec<Cell>) {
    let key = format!("row{i:08}").into_bytes();
    (key, vec![("d".into(), b"q".to_vec(), vec![b'v'; 64])])
}

/// The sorted runs on disk fail mid-load (their folder is taken away):
/// the spill that fails says so, every later put and `finish` return
/// `Failed` naming the cause, and the load's folder holds no family
/// folder that a bulk load would take. (The old load took its 64 runs out
/// of its list before the merge that failed, and then finished without
/// their rows.)
#[test]
fn a_failed_spill_ends_the_load_and_leaves_no_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("load");
    let mut load = BulkLoad::new(&out).memory(2 << 10);
    let mut i = 0;
    while run_dir(&out).is_none() {
        let (k, c) = row(i);
        load.put_raw_row(&k, &c).unwrap();
        i += 1;
    }
    std::fs::remove_dir_all(run_dir(&out).unwrap()).unwrap();
    let first = loop {
        let (k, c) = row(i);
        i += 1;
        if let Err(e) = load.put_raw_row(&k, &c) {
            break e;
        }
        assert!(i < 10_000, "no spill failed");
    };
    assert!(matches!(first, BulkError::Io { .. }), "{first}");
    let (k, c) = row(i);
    let later = load.put_raw_row(&k, &c).unwrap_err();
    let BulkError::Failed { cause } = &later else {
        panic!("{later}")
    };
    assert_eq!(cause, &first.to_string());
    let end = load.finish().unwrap_err();
    assert!(matches!(end, BulkError::Failed { .. }), "{end}");
    let left: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A folder with a file in it is refused (a bulk load of it would take
/// that file too); a new or empty one is taken.
#[test]
fn a_load_into_a_folder_with_files_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("old"), b"x").unwrap();
    let mut load = BulkLoad::new(dir.path());
    let (k, c) = row(1);
    load.put_raw_row(&k, &c).unwrap();
    let e = load.finish().unwrap_err();
    assert!(matches!(e, BulkError::NotEmpty { .. }), "{e}");
    assert!(e.to_string().contains("is not empty"), "{e}");

    let empty = tempfile::tempdir().unwrap();
    let mut load = BulkLoad::new(empty.path());
    load.put_raw_row(&k, &c).unwrap();
    let summary = load.finish().unwrap();
    assert_eq!(summary.files.len(), 1);
    assert!(summary.files[0].path.starts_with(empty.path().join("d")));
    assert!(summary.files[0].path.is_file());
}

/// About 1,700 spills of one-row-per-cell runs: merges are by levels of
/// 16, so each row is written to runs once per level (the spill, then
/// levels 1 and 2) and the runs' bytes stay under 3 times the rows'; the
/// old merge of all 64 runs rewrote everything every 63 spills (about 9
/// times the rows' bytes here, and growing with the load). The files hold
/// every row.
#[test]
fn merges_write_each_row_once_per_level() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("load");
    let n = 12_000u32;
    let mut load = BulkLoad::new(&out).memory(1 << 10);
    let mut record_bytes = 0u64;
    for i in (0..n).rev() {
        let (k, c) = row(i);
        // A run's record: lengths, row, family index, qualifier, value,
        // timestamp, sequence.
        record_bytes += (4 + k.len() + 2 + 4 + c[0].1.len() + 4 + c[0].2.len() + 8 + 8) as u64;
        load.put_raw_row(&k, &c).unwrap();
    }
    let summary = load.finish().unwrap();
    assert!(summary.spills >= 900, "{} spills", summary.spills);
    assert_eq!(summary.rows, u64::from(n));
    let ratio = summary.run_bytes as f64 / record_bytes as f64;
    assert!(
        (2.0..3.0).contains(&ratio),
        "runs' bytes {} for {record_bytes} bytes of rows ({ratio:.2}x) in {} spills",
        summary.run_bytes,
        summary.spills
    );
}

/// The native client's bulk load (`Client::bulk_load`: HBase's protocol
/// from Rust, no Java step) against HBase's own tool: the same files
/// loaded into two tables read back alike. The native load's table split
/// after its files were written, so the two files of the split region
/// (one per family) are split by rowkey first; a second run finds nothing
/// left to load; a family the table lacks is refused by name.
#[cfg(feature = "native")]
#[test]
fn the_native_bulk_load_reads_back_as_hbases_tool_and_splits_files() {
    let (puts, model) = random_puts(20_000);
    let hbase = HBase::builder().gateway(false).start().unwrap();
    let client = hbase.client().unwrap();
    assert!(client.is_native());
    for table in ["by_tool", "by_rowkey"] {
        client
            .create_table(table, &["d", "m"], &Event::split_points())
            .unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let regions = client.region_locations("by_rowkey").unwrap();
    let write = |out: &std::path::Path| {
        let mut load = BulkLoad::new(out)
            .regions(&regions)
            .compression(Compression::Gzip)
            .block_size(4 * 1024)
            .timestamp(TS);
        for (key, cells) in &puts {
            load.put_row(key, cells).unwrap();
        }
        load.finish().unwrap()
    };
    let (java, native) = (dir.path().join("java"), dir.path().join("native"));
    assert_eq!(write(&java).files.len(), 16);
    assert_eq!(write(&native).files.len(), 16);
    assert_eq!(hbase.bulk_load(&java, "by_tool").unwrap(), 16);

    // The native load's table splits inside its fourth region.
    let r = &regions[3];
    let inside: Vec<&Vec<u8>> = model
        .keys()
        .filter(|k| k.as_slice() >= r.start.as_slice() && k.as_slice() < r.end.as_slice())
        .collect();
    let split_at = inside[inside.len() / 2].clone();
    hbase.split_region("by_rowkey", &split_at).unwrap();
    assert_eq!(client.region_locations("by_rowkey").unwrap().len(), 9);

    let report = client
        .bulk_load(&native, "by_rowkey")
        .unwrap_or_else(|e| panic!("{e}\n{}", hbase.log_tail()));
    assert_eq!(
        (report.files, report.split, report.regions),
        (18, 2, 9),
        "{report:?}"
    );
    check_table(&client, "by_rowkey", &model);
    let everything = |table: &str| -> Vec<(Vec<u8>, Vec<Cell>)> {
        client
            .scan(table, &rowkey_core::Scan::from_bounds(b"", b""), None)
            .unwrap()
            .map(|r| {
                let (k, c) = r.unwrap();
                (k, sorted(c))
            })
            .collect()
    };
    assert!(
        everything("by_rowkey") == everything("by_tool"),
        "the native load reads back as HBase's tool's"
    );
    // Each region and family holds one store file: the split file's
    // halves went each to its own region.
    let stores = hbase.store_files("by_rowkey").unwrap();
    assert_eq!(stores.len(), 18);
    assert!(stores.iter().all(|s| s.files == 1), "{stores:?}");

    // Loaded files were moved into the table: nothing is loaded twice.
    let again = client.bulk_load(&native, "by_rowkey").unwrap();
    assert_eq!(again.files, 0, "{again:?}");
    check_table(&client, "by_rowkey", &model);

    // A family the table does not have: refused before anything loads.
    let other = dir.path().join("other");
    let mut load = BulkLoad::new(&other).timestamp(TS);
    load.put_raw_row(b"r", &[("x".into(), b"q".to_vec(), b"v".to_vec())])
        .unwrap();
    load.finish().unwrap();
    let e = client.bulk_load(&other, "by_rowkey").unwrap_err();
    assert!(
        matches!(e, rowkey_hbase::Error::BulkLoad { .. }) && e.to_string().contains("\"x\""),
        "{e}"
    );
    // A missing table is refused at once.
    let e = client.bulk_load(&native, "no_such_table").unwrap_err();
    assert!(
        matches!(e, rowkey_hbase::Error::TableNotFound { .. }),
        "{e}"
    );
}

/// A cell as a file holds it with its timestamp: row, qualifier,
/// timestamp, value.
type StampedCell = (Vec<u8>, Vec<u8>, i64, Vec<u8>);

/// Cells put with their own timestamps (`put_versioned_row`, as a
/// migration copies a table): versions of one column are each written,
/// newest first, in a load that spills between them; a cell put again with
/// the same timestamp is written once, as put last; a timestamp HBase
/// would not keep is refused naming the row.
#[test]
fn versioned_cells_keep_their_timestamps_across_spills() {
    use rowkey_hbase::hfile::HFileReader;
    use rowkey_hbase::VersionedCell;
    let cell = |q: &str, ts: i64, v: &str| VersionedCell {
        family: "d".into(),
        qualifier: q.as_bytes().to_vec(),
        timestamp: ts,
        value: v.as_bytes().to_vec(),
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("load");
    // A budget of one row: each put spills the one before.
    let mut load = BulkLoad::new(&out).memory(1);
    load.put_versioned_row(b"r1", &[cell("a", 5, "old")])
        .unwrap();
    load.put_versioned_row(b"r2", &[cell("a", 1, "x")]).unwrap();
    load.put_versioned_row(b"r1", &[cell("a", 9, "new"), cell("b", 7, "b1")])
        .unwrap();
    load.put_versioned_row(b"r1", &[cell("a", 5, "old, put again")])
        .unwrap();
    let err = load
        .put_versioned_row(b"r3", &[cell("a", i64::MAX, "latest")])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "bulk load: row r3 has a cell stamped 9223372036854775807 (from 0 to i64::MAX - 1)"
    );
    assert!(err.is_row_fault());
    let summary = load.finish().unwrap();
    assert!(summary.spills >= 3, "{}", summary.spills);
    let mut cells = Vec::new();
    for file in &summary.files {
        let mut reader = HFileReader::open(&file.path).unwrap();
        while let Some(c) = reader.next_cell().unwrap() {
            cells.push((c.row, c.qualifier, c.timestamp, c.value));
        }
    }
    let want: Vec<StampedCell> = [
        ("r1", "a", 9, "new"),
        ("r1", "a", 5, "old, put again"),
        ("r1", "b", 7, "b1"),
        ("r2", "a", 1, "x"),
    ]
    .iter()
    .map(|(r, q, t, v)| {
        (
            r.as_bytes().to_vec(),
            q.as_bytes().to_vec(),
            *t,
            v.as_bytes().to_vec(),
        )
    })
    .collect();
    assert_eq!(cells, want);
}
