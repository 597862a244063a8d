//! A live table moved to another key layout on a real HBase (ZooKeeper, a
//! master, two region servers and the gateway on loopback): 200,000 rows
//! under `[salt(user_id)/10 mod][user_id u64][ts i64]` moved to
//! `[salt(user_id)/32][user_id u64][ts desc_ts i64]` by bulk load while a
//! writer keeps putting and deleting through `MigratingTable` (old keys
//! during the copy, both after); every row of the model reads back through
//! the new key with its cells and `verify` is clean; the same move by puts
//! stopped after half the regions and resumed (the done regions skipped,
//! counted) gives the same cells with the same timestamps; a planted
//! difference is found and named, read through the gateway client.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use rowkey_core::migrate::{MigrateError, Migration, Phase};
use rowkey_core::{DynLayout, Scan, Value};
use rowkey_hbase::migrate::{self, MigrateOptions, MigratingTable};
use rowkey_hbase::testing::HBase;
use rowkey_hbase::{Cell, Client, ReadOptions, TableOptions, VersionedRow, WriteOptions};

const OLD: &str = "[salt(user_id)/10 mod][user_id u64][ts i64]";
const NEW: &str = "[salt(user_id)/32][user_id u64][ts desc_ts i64]";
const ROWS: u64 = 200_000;
/// Users 0 to 49 in the table: 4,000 rows each, 20,000 per old bucket.
const USERS: u64 = 50;

/// Each row's cells by (family, qualifier).
type Model = BTreeMap<Vec<u8>, BTreeMap<(String, Vec<u8>), Vec<u8>>>;

fn key(layout: &DynLayout, user: u64, ts: i64) -> Vec<u8> {
    layout.encode(&[user.into(), ts.into()]).unwrap()
}

fn cells_of(i: u64) -> Vec<Cell> {
    let mut cells = vec![("d".to_string(), b"v".to_vec(), i.to_be_bytes().to_vec())];
    if i.is_multiple_of(7) {
        cells.push((
            "m".to_string(),
            b"note".to_vec(),
            format!("n{i}").into_bytes(),
        ));
    }
    cells
}

/// The whole table, each row's newest cells.
fn table_rows(client: &Client, table: &str) -> Model {
    client
        .scan(table, &Scan::from_bounds(b"", b""), None)
        .unwrap()
        .map(|r| {
            let (k, cells) = r.unwrap();
            (k, cells.into_iter().map(|(f, q, v)| ((f, q), v)).collect())
        })
        .collect()
}

/// The whole table with timestamps.
fn versioned(client: &Client, table: &str) -> Vec<VersionedRow> {
    client
        .scan_versions(
            table,
            &Scan::from_bounds(b"", b""),
            None,
            &ReadOptions::new(),
        )
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// How two tables differ: counts and a few keys of each kind.
fn diff(got: &Model, want: &Model) -> String {
    let missing: Vec<_> = want.keys().filter(|k| !got.contains_key(*k)).collect();
    let extra: Vec<_> = got.keys().filter(|k| !want.contains_key(*k)).collect();
    let differing: Vec<_> = want
        .iter()
        .filter(|(k, v)| got.get(*k).is_some_and(|g| g != *v))
        .map(|(k, v)| (k, v, &got[k]))
        .collect();
    format!(
        "{} missing {:?}, {} extra {:?}, {} differing {:?}",
        missing.len(),
        &missing[..missing.len().min(3)],
        extra.len(),
        &extra[..extra.len().min(3)],
        differing.len(),
        &differing[..differing.len().min(3)]
    )
}

fn rekeyed(model: &Model, m: &Migration) -> Model {
    model
        .iter()
        .map(|(k, v)| (m.rekey(k).unwrap(), v.clone()))
        .collect()
}

#[test]
fn a_salt_change_under_writes_by_bulk_load_and_by_resumed_puts() {
    let hbase = HBase::start_with(2).unwrap_or_else(|e| panic!("HBase starts: {e}"));
    let client = Client::native(hbase.bootstrap()).build().unwrap();
    let gateway = hbase.client().unwrap();
    let (old, new) = (
        DynLayout::parse(OLD).unwrap(),
        DynLayout::parse(NEW).unwrap(),
    );
    client
        .create_table("events", &["d", "m"], &old.split_points())
        .unwrap();
    let mut model = Model::new();
    let rows: Vec<(Vec<u8>, Vec<Cell>)> = (0..ROWS)
        .map(|i| (key(&old, i % USERS, i as i64 * 3), cells_of(i)))
        .collect();
    for (k, cells) in &rows {
        let row = model.entry(k.clone()).or_default();
        row.extend(
            cells
                .iter()
                .map(|(f, q, v)| ((f.clone(), q.clone()), v.clone())),
        );
    }
    client.write_raw_rows("events", rows).unwrap();

    // The copy by bulk load, a writer beside it.
    let migration = Migration::new(old.layout(), new.layout()).unwrap();
    let table = MigratingTable::new(&client, "events", "events_v2", &migration).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let options = MigrateOptions::bulk_load(dir.path())
        .workers(4)
        .memory(64 << 20);
    let (started, done) = (AtomicBool::new(false), AtomicBool::new(false));
    let (report, writes) = std::thread::scope(|s| {
        let writer = s.spawn(|| {
            let mut i: u64 = 0;
            let mut after = 0;
            while after < 300 {
                if done.load(Ordering::Acquire) {
                    after += 1;
                }
                // Users 50 to 59 are new rows; the others replace or delete.
                let user = (i * 7919) % 60;
                let k = key(&old, user, 3 * (user + USERS * ((i * 31) % 4_000)) as i64);
                if i.is_multiple_of(3) {
                    table.delete(&k).unwrap();
                    model.remove(&k);
                } else {
                    let cells =
                        vec![("d".to_string(), b"v".to_vec(), format!("w{i}").into_bytes())];
                    table.put(&k, cells.clone()).unwrap();
                    let row = model.entry(k).or_default();
                    row.extend(cells.into_iter().map(|(f, q, v)| ((f, q), v)));
                }
                i += 1;
                started.store(true, Ordering::Release);
            }
            i
        });
        while !started.load(Ordering::Acquire) && !writer.is_finished() {
            std::thread::yield_now();
        }
        let report =
            migrate::migrate(&client, "events", "events_v2", &migration, &options).unwrap();
        done.store(true, Ordering::Release);
        (report, writer.join().unwrap())
    });
    assert_eq!(report.parts, 10, "one part per old region: {report}");
    assert_eq!(report.parts_skipped, 0);
    assert!(report.rows_written >= ROWS - 2 * writes, "{report}");
    eprintln!("bulk-load copy beside {writes} writes: {report}");

    table.set_phase(Phase::Cutover);
    for (k, cells) in model.iter().step_by(97) {
        let got: BTreeMap<_, _> = table
            .get(k)
            .unwrap()
            .unwrap_or_default()
            .into_iter()
            .map(|(f, q, v)| ((f, q), v))
            .collect();
        assert_eq!(&got, cells, "row {k:?} through its new key");
    }
    let (got, want) = (
        table_rows(&client, "events_v2"),
        rekeyed(&model, &migration),
    );
    assert!(
        got == want,
        "the new table is the model: {}",
        diff(&got, &want)
    );
    let old_rows = table_rows(&client, "events");
    assert!(
        old_rows == model,
        "the old table is the model: {}",
        diff(&old_rows, &model)
    );
    let clean = migrate::verify(&client, "events", "events_v2", &migration).unwrap();
    assert!(clean.is_clean(), "{clean}");
    assert_eq!(clean.rows_new, model.len() as u64);

    // The same move by puts, stopped in the sixth region (bucket 5: users
    // 5, 15, 25, 35 and 45 in that order, two pages of 5,000 rows
    // written) at user 35's first row by a mapping that refuses it, then
    // resumed.
    let stopping = Migration::new(old.layout(), new.layout())
        .unwrap()
        .map(|v: &[Value]| {
            if v[0] == Value::U64(35) {
                return Err("stopped here".into());
            }
            Ok(v.to_vec())
        });
    let puts = MigrateOptions::puts().workers(1).page_rows(5_000);
    let err = migrate::migrate(&client, "events", "events_p", &stopping, &puts).unwrap_err();
    assert!(matches!(err, MigrateError::Rekey { .. }), "{err}");
    let first = table_rows(&client, "events_p").len() as u64;
    let resumed = migrate::migrate(&client, "events", "events_p", &migration, &puts).unwrap();
    assert_eq!(
        (resumed.parts_skipped, resumed.parts_resumed),
        (5, 1),
        "{resumed}"
    );
    assert_eq!(
        first + resumed.rows_written,
        model.len() as u64,
        "no row copied twice: {resumed}"
    );
    assert!(
        versioned(&client, "events_p") == versioned(&client, "events_v2"),
        "puts and bulk load wrote the same cells with the same timestamps"
    );
    let again = migrate::migrate(&client, "events", "events_p", &migration, &puts).unwrap();
    assert_eq!((again.parts_skipped, again.rows_read), (10, 0), "{again}");

    // A planted difference, found through the gateway client.
    let (planted, _) = model
        .iter()
        .find(|(k, _)| old.decode(k).unwrap()[0] == Value::U64(7))
        .unwrap();
    let ts = old.decode(planted).unwrap()[1].clone();
    let cell: Cell = ("d".into(), b"v".to_vec(), b"tampered".to_vec());
    client
        .write_raw_rows(
            "events_p",
            [(migration.rekey(planted).unwrap(), vec![cell])],
        )
        .unwrap();
    let found = migrate::verify(&gateway, "events", "events_p", &migration).unwrap();
    assert_eq!(
        (found.missing, found.extra, found.differing),
        (0, 0, 1),
        "{found}"
    );
    assert_eq!(found.examples.differing, [format!("(user_id=7, ts={ts})")]);

    // A row the copy has read, deleted through the migrating table, the
    // new table major-compacted, then the copy's page written: the row
    // stays deleted (the new table keeps its delete markers through
    // compactions; without them the copied cells would come back).
    // `small` keeps 3 versions of a cell: so does the new table.
    let three = TableOptions {
        versions: Some(3),
        ..TableOptions::default()
    };
    client
        .create_table_with("small", &["d", "m"], &old.split_points(), three)
        .unwrap();
    let small: Vec<(Vec<u8>, Vec<Cell>)> = (0..1_000)
        .map(|i| (key(&old, i % 20, i as i64), cells_of(i)))
        .collect();
    client.write_raw_rows("small", small).unwrap();
    let watched = key(&old, 3, 43);
    let small_table = MigratingTable::new(&client, "small", "small_v2", &migration).unwrap();
    let (read_tx, read_rx) = std::sync::mpsc::channel::<()>();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let done_rx = std::sync::Mutex::new(done_rx);
    let hooked = Migration::new(old.layout(), new.layout())
        .unwrap()
        .map(move |v: &[Value]| {
            if v == [Value::U64(3), Value::I64(43)] {
                read_tx.send(()).unwrap();
                done_rx.lock().unwrap().recv().unwrap();
            }
            Ok(v.to_vec())
        });
    let (cluster, table, row) = (&hbase, &small_table, &watched);
    std::thread::scope(|s| {
        s.spawn(move || {
            read_rx.recv().unwrap();
            table.delete(row).unwrap();
            cluster.major_compact("small_v2").unwrap();
            done_tx.send(()).unwrap();
        });
        migrate::migrate(&client, "small", "small_v2", &hooked, &puts).unwrap();
    });
    assert_eq!(client.get_raw("small", &watched).unwrap(), None);
    let moved = migration.rekey(&watched).unwrap();
    assert_eq!(
        client.get_raw("small_v2", &moved).unwrap(),
        None,
        "a deleted row came back"
    );
    let small_check = migrate::verify(&client, "small", "small_v2", &migration).unwrap();
    assert!(
        small_check.is_clean() && small_check.rows_new == 999,
        "{small_check}"
    );

    // The new table took the old one's family settings (3 versions kept);
    // so does a table made like it through the gateway.
    gateway
        .create_table_like("small_gw", "small", &[], TableOptions::default())
        .unwrap();
    for table in ["small_v2", "small_gw"] {
        for ts in [10, 20, 30, 40] {
            let write = WriteOptions {
                timestamp: Some(ts),
                ..WriteOptions::default()
            };
            let cell: Cell = ("m".into(), b"kept".to_vec(), ts.to_be_bytes().to_vec());
            client
                .write_raw_rows_with(table, [(b"versions".to_vec(), vec![cell])], write)
                .unwrap();
        }
        let kept = client
            .get_versions_raw(table, b"versions", &ReadOptions::new().versions(5))
            .unwrap()
            .unwrap();
        let times: Vec<i64> = kept.iter().map(|c| c.timestamp).collect();
        assert_eq!(times, [40, 30, 20], "{table} keeps 3 versions");
    }

    // Another migration into a table with a checkpoint is refused.
    let other = DynLayout::parse("[user_id u64][ts i64]").unwrap();
    let wrong = Migration::new(old.layout(), other.layout()).unwrap();
    let err = migrate::migrate(&client, "events", "events_p", &wrong, &puts).unwrap_err();
    assert!(
        err.to_string()
            .contains("belongs to a migration between other layouts"),
        "{err}"
    );
}
