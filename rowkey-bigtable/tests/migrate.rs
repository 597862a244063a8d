//! A live table moved to another key layout on the Bigtable emulator:
//! 20,000 rows under `[salt(user_id)/10 mod][user_id u64][ts i64]`
//! (two families, cells stamped by the server) moved to a layout with a
//! new field in the middle (`set`) by a copy stopped after its first
//! page and resumed while a service puts, overwrites and deletes through
//! `MigratingTable`; every row of the model reads back under its new key
//! with its cells and their timestamps, and `verify` is clean. A mapped
//! move whose copy meets a row deleted, and one overwritten, between its
//! read and its write (the service's writes made from inside the mapping)
//! leaves neither the deleted row nor the old cell. Planted differences
//! are found, counted and named.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures_util::StreamExt;
use rowkey_bigtable::emulator::Emulator;
use rowkey_bigtable::migrate::{self, MigrateOptions, MigratingTable};
use rowkey_bigtable::{create_table, stream_scan, write_raw_rows, Cell, Client};
use rowkey_core::migrate::{Migration, Phase};
use rowkey_core::{DynLayout, Scan, Value};

const OLD: &str = "[salt(user_id)/10 mod][user_id u64][ts i64]";
const NEW: &str = "[salt(user_id)/8][user_id u64][region u8][ts desc_ts i64]";
const ROWS: u64 = 20_000;
const USERS: u64 = 50;
const INSTANCE: &str = "projects/p/instances/i";

/// Each row's newest cells by (family, qualifier): value and timestamp.
type Model = BTreeMap<Vec<u8>, BTreeMap<(String, Vec<u8>), (Vec<u8>, i64)>>;

fn key(layout: &DynLayout, user: u64, ts: i64) -> Vec<u8> {
    layout.encode(&[user.into(), ts.into()]).unwrap()
}

fn cells_of(i: u64) -> Vec<Cell> {
    let mut cells = vec![("d".to_string(), b"v".to_vec(), i.to_be_bytes().to_vec())];
    if i % 7 == 0 {
        cells.push((
            "m".to_string(),
            b"note".to_vec(),
            format!("n{i}").into_bytes(),
        ));
    }
    cells
}

/// The whole table, each row's newest cells with their timestamps.
async fn table_rows(client: &Client, table: &str) -> Model {
    let mut rows = stream_scan(client, table, &Scan::from_bounds(b"", b""), None)
        .await
        .unwrap();
    let mut model = Model::new();
    while let Some(row) = rows.next().await {
        let (k, cells) = row.unwrap();
        let row = model.entry(k).or_default();
        for c in cells {
            let cell = row
                .entry((c.family_name, c.qualifier))
                .or_insert((c.value.clone(), c.timestamp_micros));
            if c.timestamp_micros > cell.1 {
                *cell = (c.value, c.timestamp_micros);
            }
        }
    }
    model
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

/// The old table: `ROWS` rows of `USERS` users, in two families.
async fn fill(client: &Client, admin: &mut rowkey_bigtable::AdminClient, old: &DynLayout) -> Model {
    create_table(admin, INSTANCE, "events", &["d", "m"], &old.split_points())
        .await
        .unwrap();
    let rows: Vec<(Vec<u8>, Vec<Cell>)> = (0..ROWS)
        .map(|i| (key(old, i % USERS, i as i64 * 3), cells_of(i)))
        .collect();
    write_raw_rows(client, "events", rows).await.unwrap();
    table_rows(client, "events").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_field_added_under_writes_resumed_and_verified() {
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let client = emulator.client("p", "i").unwrap();
    let mut admin = emulator.admin().await.unwrap();
    let (old, new) = (
        DynLayout::parse(OLD).unwrap(),
        DynLayout::parse(NEW).unwrap(),
    );
    let mut model = fill(&client, &mut admin, &old).await;
    assert_eq!(model.len() as u64, ROWS);

    // `region` is new: refused until it has a value, before anything is
    // created.
    let unset = Migration::new(old.layout(), new.layout()).unwrap();
    let options = MigrateOptions::default().workers(2).page_rows(500);
    let refused = migrate::migrate(&client, &mut admin, "events", "events_v2", &unset, &options)
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("field `region`"), "{refused}");
    let migration = unset.set("region", 3u8);

    // The first run stops (dropped, as a killed process) once part 0 has
    // a page checkpointed.
    let marks = migrate::checkpoint_table("events_v2");
    let first = async {
        migrate::migrate(
            &client,
            &mut admin,
            "events",
            "events_v2",
            &migration,
            &options,
        )
        .await
    };
    let watch = async {
        loop {
            let mut rows = stream_scan(
                &client,
                &marks,
                &Scan::from_bounds(b"part/0", b"part/1"),
                None,
            )
            .await
            .unwrap();
            if matches!(rows.next().await, Some(Ok(_))) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::select! {
        r = first => panic!("the first run was to be stopped, and ended: {r:?}"),
        () = watch => {}
    }

    // The service writes through the migrating table while the copy
    // resumes: new rows, overwrites of existing ones, deletes.
    let table = MigratingTable::new(&client, "events", "events_v2", &migration);
    let written = AtomicU64::new(0);
    let service = async {
        let mut changes = Vec::new();
        for j in 0..600u64 {
            let i = (j * 7_919) % ROWS;
            let k = key(&old, i % USERS, i as i64 * 3);
            match j % 3 {
                0 => {
                    table.delete(&k).await.unwrap();
                    changes.push((k, None));
                }
                1 => {
                    let cells = vec![(
                        "d".to_string(),
                        b"v".to_vec(),
                        format!("again {j}").into_bytes(),
                    )];
                    table.put(&k, cells.clone()).await.unwrap();
                    changes.push((k, Some(cells)));
                }
                _ => {
                    let k = key(&old, j % USERS, -(j as i64) - 1);
                    let cells = vec![(
                        "d".to_string(),
                        b"v".to_vec(),
                        format!("new {j}").into_bytes(),
                    )];
                    table.put(&k, cells.clone()).await.unwrap();
                    changes.push((k, Some(cells)));
                }
            }
            written.fetch_add(1, Ordering::Relaxed);
        }
        changes
    };
    let copy = migrate::migrate(
        &client,
        &mut admin,
        "events",
        "events_v2",
        &migration,
        &options,
    );
    let (report, changes) = tokio::join!(copy, service);
    let report = report.unwrap();
    assert_eq!(report.parts, 10, "{report}");
    assert!(
        report.parts_resumed >= 1,
        "part 0 resumes after its page: {report}"
    );
    assert!(
        report.rows_read < ROWS,
        "the resumed run reads less than the table: {report}"
    );
    assert_eq!(written.load(Ordering::Relaxed), 600);

    // The old table as the service left it: each row it touched as its
    // last change says, every other row as it was.
    let now_old = table_rows(&client, "events").await;
    let mut last: BTreeMap<&Vec<u8>, &Option<Vec<Cell>>> = BTreeMap::new();
    for (k, change) in &changes {
        last.insert(k, change);
    }
    for (k, change) in &last {
        let values = now_old.get(*k).map(|row| {
            row.iter()
                .map(|((f, q), (v, _))| (f.clone(), q.clone(), v.clone()))
                .collect::<Vec<_>>()
        });
        let want = change.as_ref().map(|cells| {
            // A put of `d:v` over a row keeps its other columns.
            let mut want: BTreeMap<(String, Vec<u8>), Vec<u8>> = model
                .get(*k)
                .filter(|_| !changes.iter().any(|(k2, c)| k2 == *k && c.is_none()))
                .map(|row| {
                    row.iter()
                        .map(|(c, (v, _))| (c.clone(), v.clone()))
                        .collect()
                })
                .unwrap_or_default();
            for (f, q, v) in cells {
                want.insert((f.clone(), q.clone()), v.clone());
            }
            want.into_iter()
                .map(|((f, q), v)| (f, q, v))
                .collect::<Vec<_>>()
        });
        assert_eq!(values, want, "row {k:?} after the service's changes");
    }
    for (k, row) in &model {
        if !last.contains_key(k) {
            assert_eq!(now_old.get(k), Some(row), "an untouched row");
        }
    }
    model = now_old;

    // Cut over: the new table holds every row under its new key, with the
    // old cells' timestamps.
    table.set_phase(Phase::Cutover);
    let now_new = table_rows(&client, "events_v2").await;
    let want = rekeyed(&model, &migration);
    assert!(now_new == want, "the new table: {}", diff(&now_new, &want));
    let (k, cells) = changes.iter().rev().find(|(_, c)| c.is_some()).unwrap();
    assert_eq!(table.get(k).await.unwrap().as_ref(), cells.as_ref());
    let clean = migrate::verify(&client, "events", "events_v2", &migration)
        .await
        .unwrap();
    assert!(clean.is_clean(), "{clean}");
    assert_eq!(clean.rows_old, model.len() as u64);
    assert_eq!(clean.rows_new, model.len() as u64);

    // Run again: every part is done, nothing is read.
    let again = migrate::migrate(
        &client,
        &mut admin,
        "events",
        "events_v2",
        &migration,
        &options,
    )
    .await
    .unwrap();
    assert_eq!((again.parts_skipped, again.rows_read), (10, 0), "{again}");

    // Planted differences: a row deleted from the new table, one changed,
    // one added.
    let (gone, changed) = {
        let mut keys = model.keys();
        (
            keys.next().unwrap().clone(),
            keys.nth(4_000).unwrap().clone(),
        )
    };
    let changed = migration.rekey(&changed).unwrap();
    let extra = new
        .encode(&[7u64.into(), 3u8.into(), 1_234_567i64.into()])
        .unwrap();
    let done = MigratingTable::new(&client, "events", "events_v2", &migration);
    done.set_phase(Phase::Done);
    done.delete(&gone).await.unwrap();
    write_raw_rows(
        &client,
        "events_v2",
        [
            (
                changed,
                vec![("d".to_string(), b"v".to_vec(), b"planted".to_vec())],
            ),
            (
                extra,
                vec![("d".to_string(), b"v".to_vec(), b"extra".to_vec())],
            ),
        ],
    )
    .await
    .unwrap();
    let found = migrate::verify(&client, "events", "events_v2", &migration)
        .await
        .unwrap();
    assert_eq!(
        (found.missing, found.extra, found.differing),
        (1, 1, 1),
        "{found}"
    );
    let named = |v: &[String]| v.iter().any(|e| e.starts_with("(user_id="));
    assert!(
        named(&found.examples.missing) && named(&found.examples.extra),
        "{found:?}"
    );
    assert!(
        found.examples.extra[0].contains("user_id=7, region=3, ts=1234567"),
        "{found:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_deleted_or_written_between_the_copys_read_and_write_stays_so() {
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let client = emulator.client("p", "i").unwrap();
    let mut admin = emulator.admin().await.unwrap();
    let (old, new) = (
        DynLayout::parse(OLD).unwrap(),
        DynLayout::parse(NEW).unwrap(),
    );
    let model = fill(&client, &mut admin, &old).await;

    // The pure rule, and the same rule with the service's writes made
    // from inside it for two rows: after the copy read them, before it
    // writes them.
    let region = |v: &[Value]| -> Vec<Value> {
        let user = match v[0] {
            Value::U64(u) => u,
            _ => unreachable!("user_id is a u64"),
        };
        vec![v[0].clone(), Value::U8((user % 3) as u8), v[1].clone()]
    };
    let pure: &'static Migration = Box::leak(Box::new(
        Migration::mapped(old.layout(), new.layout(), move |v: &[Value]| Ok(region(v))).unwrap(),
    ));
    let (deleted, rewritten) = (key(&old, 5, 5 * 3), key(&old, 6, 6 * 3));
    let service: &'static MigratingTable<'static> = Box::leak(Box::new(MigratingTable::new(
        &client,
        "events",
        "events_v2",
        pure,
    )));
    let old_layout = DynLayout::parse(OLD).unwrap();
    let (deleted_, rewritten_) = (deleted.clone(), rewritten.clone());
    let racing = Migration::mapped(old.layout(), new.layout(), move |v: &[Value]| {
        let k = old_layout.encode(v).unwrap();
        if k == deleted_ || k == rewritten_ {
            tokio::task::block_in_place(|| {
                tokio::runtime::Handle::current().block_on(async {
                    if k == deleted_ {
                        service.delete(&k).await
                    } else {
                        let cells = vec![("d".to_string(), b"v".to_vec(), b"rewritten".to_vec())];
                        service.put(&k, cells).await
                    }
                })
            })?;
        }
        Ok(region(v))
    })
    .unwrap();
    let options = MigrateOptions::default().workers(1).page_rows(1_000);
    let report = migrate::migrate(
        &client,
        &mut admin,
        "events",
        "events_v2",
        &racing,
        &options,
    )
    .await
    .unwrap();
    assert_eq!(report.rows_read, ROWS, "{report}");

    let now_new = table_rows(&client, "events_v2").await;
    assert!(
        !now_new.contains_key(&pure.rekey(&deleted).unwrap()),
        "a row deleted after the copy read it is not in the new table"
    );
    let now_old = table_rows(&client, "events").await;
    let new_key = pure.rekey(&rewritten).unwrap();
    assert_eq!(now_new[&new_key], now_old[&rewritten]);
    assert_eq!(
        now_new[&new_key][&("d".to_string(), b"v".to_vec())].0,
        b"rewritten"
    );
    assert_ne!(now_old[&rewritten], model[&rewritten]);
    // The cell the copy brought (older, the value before the rewrite) is
    // taken back: one version of `d:v` is left.
    let mut versions = stream_scan(
        &client,
        "events_v2",
        &Scan::from_bounds(&new_key, &[new_key.as_slice(), &[0]].concat()),
        None,
    )
    .await
    .unwrap();
    let (_, cells) = versions.next().await.unwrap().unwrap();
    assert_eq!(cells.len(), 1, "{cells:?}");
    let clean = migrate::verify(&client, "events", "events_v2", pure)
        .await
        .unwrap();
    assert!(clean.is_clean(), "{clean}");
    assert_eq!(clean.rows_new, ROWS - 1);
}
