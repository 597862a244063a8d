//! The secondary-index suite (`rowkey_tests::index`) on a real HBase and
//! on Bigtable's emulator (its async store through the suite's blocking
//! adapter, and `AsyncIndexedTable` from spawned tasks).

use std::collections::BTreeSet;
use std::time::Duration;

use rowkey_core::index::{AsyncIndexedTable, AsyncStore, Covering, IndexedTable, Record, Store};
use rowkey_core::prelude::*;
use rowkey_tests::index::*;

/// The suite on a real HBase (two region servers, rowkey's filter on the
/// servers), through the gateway and through the native client: puts and
/// queries, a crash at every step (HBase has no
/// transaction across rows: what a crash leaves is real), and concurrent
/// updates, whose timestamp-bounded deletes keep a racing writer's entry.
#[test]
fn hbase_index_store() {
    let server =
        rowkey_hbase::testing::HBase::start_with(2).unwrap_or_else(|e| panic!("HBase starts: {e}"));
    let client = server.client_builder().server_filter(true).build().unwrap();
    // Pre-split where the indexed table says: a region for each family's
    // start and each of ByGuid's buckets.
    let store = |name: &str| {
        let splits = table(rowkey_hbase::IndexStore::new(&client, name, "d")).split_points();
        client.create_table(name, &["d"], &splits).unwrap();
        rowkey_hbase::IndexStore::new(&client, name, "d")
    };
    let logs = store("logs");
    let regions = client.region_locations("logs").unwrap();
    let starts: Vec<Vec<u8>> = regions.iter().map(|r| r.start.clone()).collect();
    assert!(
        starts.contains(&b"I2".to_vec()),
        "ByCode's rows start a region"
    );
    assert_eq!(regions.len(), ByGuid::split_points().len() + 3 + 1);
    puts_and_queries(logs);
    crash_at_every_step(store("crashes"), false);
    batches_and_queries(store("batches"));
    crash_batches(store("batch_crashes"), false);
    hot_rows(store("hot"), false);
    // The same suite through the native client (no gateway).
    let native = rowkey_hbase::Client::native(server.bootstrap())
        .server_filter(true)
        .build()
        .unwrap();
    let native_store = |name: &str| {
        let splits = table(rowkey_hbase::IndexStore::new(&native, name, "d")).split_points();
        native.create_table(name, &["d"], &splits).unwrap();
        rowkey_hbase::IndexStore::new(&native, name, "d")
    };
    puts_and_queries(native_store("native_logs"));
    crash_at_every_step(native_store("native_crashes"), false);
    batches_and_queries(native_store("native_batches"));
    crash_batches(native_store("native_batch_crashes"), false);
    hot_rows(native_store("native_hot"), false);
    covered_values(native_store("native_covered"), false);
    // Records stored as cells: HBase's own Java client reads their rows
    // as columns (no rowkey code on that side), a note a record dropped
    // is gone from its row, and the records are queried through the
    // index.
    let cells = cell_records({
        let splits = IndexedTable::<_, SensorKey, Reading>::new(rowkey_hbase::IndexStore::new(
            &native, "cells", "d",
        ))
        .with_index::<BySite>()
        .split_points();
        native.create_table("cells", &["d"], &splits).unwrap();
        rowkey_hbase::IndexStore::new(&native, "cells", "d")
    });
    // Sensor 0's first record had a note (d:note), its second has none.
    assert!(reading(0, 0).note.is_some() && reading(0, 1).note.is_none());
    for id in [0u64, 1, 2, 299] {
        let key = SensorKey { id }.encode_to_vec().unwrap();
        let mut want = reading(id, 1).to_cells();
        want.sort();
        assert_eq!(server.java_get("cells", &key).unwrap(), want, "sensor {id}");
    }
    // The same records in a bulk load: their rows are columns too.
    let loaded = tempfile::tempdir().unwrap();
    let mut load = rowkey_hbase::bulk::BulkLoad::new(loaded.path().join("cells"))
        .split_points(&cells.split_points())
        .index_family("d")
        .index::<BySite>();
    for id in 0..40 {
        load.put_indexed(&SensorKey { id }, &reading(id, 2))
            .unwrap();
    }
    load.finish().unwrap();
    native
        .create_table("cells_bulk", &["d"], &cells.split_points())
        .unwrap();
    native
        .bulk_load(loaded.path().join("cells"), "cells_bulk")
        .unwrap();
    let key = SensorKey { id: 4 }.encode_to_vec().unwrap();
    let mut want = reading(4, 2).to_cells();
    want.sort();
    assert_eq!(server.java_get("cells_bulk", &key).unwrap(), want);
    let bulk_cells = IndexedTable::<_, SensorKey, Reading>::new(rowkey_hbase::IndexStore::new(
        &native,
        "cells_bulk",
        "d",
    ))
    .with_index::<BySite>();
    let report = bulk_cells.verify::<BySite>().unwrap();
    assert!(report.is_clean() && report.valid == 40, "{report:?}");
    assert_eq!(
        bulk_cells.get(&SensorKey { id: 4 }).unwrap(),
        Some(reading(4, 2))
    );
    let err = cells
        .store()
        .write(|tx| {
            tx.put_cells(
                &[(
                    b"S-bad".to_vec(),
                    vec![("d".into(), b"v".to_vec(), vec![1])],
                )],
                1,
            )
        })
        .unwrap_err();
    assert!(err.to_string().contains("d:v"), "{err}");

    // One bulk load writes the data rows and both indexes' entries: the
    // indexes are whole after it (verify clean), and queries equal the
    // oracle.
    // The table pre-split at points sampled from the records: the
    // unsalted families (data rows, ByCode) in four regions each.
    let mut rng = Rng(41);
    let model: std::collections::BTreeMap<LogKey, Log> =
        (0..20_000).map(|id| (LogKey { id }, rng.log())).collect();
    let splits = table(rowkey_hbase::IndexStore::new(&native, "bulk", "d"))
        .split_points_from(&model, 4)
        .unwrap();
    native.create_table("bulk", &["d"], &splits).unwrap();
    let starts: Vec<Vec<u8>> = native
        .region_locations("bulk")
        .unwrap()
        .into_iter()
        .map(|r| r.start)
        .collect();
    let regions_of = |prefix: &[u8]| starts.iter().filter(|s| s.starts_with(prefix)).count();
    assert_eq!((regions_of(b"D"), regions_of(b"I2")), (4, 4), "{starts:?}");
    let dir = tempfile::tempdir().unwrap();
    let mut load = rowkey_hbase::bulk::BulkLoad::new(dir.path().join("load"))
        .split_points(&splits)
        .index_family("d")
        .index::<ByGuid>()
        .index::<ByCode>()
        .covering_index::<ByDay>();
    for (key, log) in &model {
        load.put_indexed(key, log).unwrap();
    }
    let summary = load.finish().unwrap();
    let entries: u64 = model
        .iter()
        .map(|(k, l)| {
            let guids = rowkey_core::index::entry_keys::<ByGuid>(k, l).unwrap();
            let codes = rowkey_core::index::entry_keys::<ByCode>(k, l).unwrap();
            (guids.len() + codes.len()) as u64
        })
        .sum();
    assert_eq!(summary.rows, 20_000 + entries + 20_000);
    native.bulk_load(dir.path().join("load"), "bulk").unwrap();
    let bulk = table(rowkey_hbase::IndexStore::new(&native, "bulk", "d"));
    let by_day = IndexedTable::new(rowkey_hbase::IndexStore::new(&native, "bulk", "d"))
        .with_covering_index::<ByDay>();
    assert!(by_day.verify::<ByDay>().unwrap().is_clean());
    let ids = model.iter().map(|(k, l)| (k.id, l.clone())).collect();
    for group in 0..3 {
        let (got, want) = covered_answer(&by_day, group, &ids);
        assert!(
            got == want,
            "bulk-loaded covered values of group {group} differ"
        );
    }
    assert!(data_rows(bulk.store()) == model.into_iter().collect::<Vec<_>>());
    let guid = bulk.verify::<ByGuid>().unwrap();
    let code = bulk.verify::<ByCode>().unwrap();
    assert!(guid.is_clean() && code.is_clean(), "{guid:?} {code:?}");
    assert_eq!(guid.valid + code.valid, entries);
    check_queries(&bulk);
    // A record put without an index over its types is refused.
    let mut wrong = rowkey_hbase::bulk::BulkLoad::new(dir.path().join("wrong")).index_family("d");
    let err = wrong
        .put_indexed(&LogKey { id: 1 }, &rng.log())
        .unwrap_err();
    assert!(err.to_string().contains("no index of this load"), "{err}");

    // The guid queries ran on the region servers.
    let t = table(store("pushed"));
    t.put(
        &LogKey { id: 1 },
        &Log {
            group: 0,
            guid1: 7,
            guid2: 8,
            code: 1,
            date: 20_000,
        },
    )
    .unwrap();
    let filter = ByGuid::filter().group(0).guid(7).build().unwrap();
    let rows = client
        .filter_in("pushed", &filter, &filter.scan(), None)
        .unwrap();
    assert_eq!(rows.pushdown(), Some(rowkey_hbase::Pushdown::Server));
    assert_eq!(rows.count(), 1);
    // A delete removes only the versions at or before its timestamp: the
    // entry a racing writer wrote after it stays.
    let raw = store("racing");
    let entry = b"I2 racing".to_vec();
    raw.write(|tx| tx.put(&[(entry.clone(), b"new".to_vec())], 2_000))
        .unwrap();
    raw.write(|tx| tx.delete(std::slice::from_ref(&entry), 1_000))
        .unwrap();
    assert_eq!(
        raw.get_many(std::slice::from_ref(&entry)).unwrap(),
        [Some(b"new".to_vec())]
    );
    raw.write(|tx| tx.delete(std::slice::from_ref(&entry), 2_000))
        .unwrap();
    assert_eq!(raw.get_many(std::slice::from_ref(&entry)).unwrap(), [None]);
}

/// Bigtable's emulator: its index store runs the suite (puts and queries,
/// a crash at every step, concurrent updates), then `AsyncIndexedTable`
/// runs on it from spawned tasks.
#[test]
fn bigtable_index_store() {
    let emulator = rowkey_bigtable::emulator::Emulator::start()
        .expect("the Bigtable emulator starts (Debian: google-cloud-cli-bigtable-emulator)");
    let runtime = || {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    };
    let rt = runtime();
    let client = rt.block_on(async { emulator.client("p", "i") }).unwrap();
    let mut admin = rt.block_on(emulator.admin()).unwrap();
    let mut create = |table: &str| {
        let mut splits = ByGuid::split_points();
        splits.push(b"I2".to_vec());
        splits.sort();
        rt.block_on(rowkey_bigtable::create_table(
            &mut admin,
            &rowkey_bigtable::instance_name("p", "i"),
            table,
            &["d"],
            &splits,
        ))
        .unwrap();
        rowkey_bigtable::IndexStore::new(&client, table, "d")
    };
    let blocking = |store| BlockOn {
        store,
        runtime: runtime(),
    };
    puts_and_queries(blocking(create("logs")));
    crash_at_every_step(blocking(create("crashes")), false);
    crash_batches(blocking(create("batch_crashes")), false);
    covered_values(blocking(create("covered")), false);
    // The async table's covered query: the index rows alone.
    let covering = AsyncIndexedTable::new(create("async_covered")).with_covering_index::<ByDay>();
    let mut rng = Rng(3);
    let rows: Vec<(LogKey, Log)> = (0..700).map(|id| (LogKey { id }, rng.log())).collect();
    rt.block_on(async {
        covering.put_many(&rows).await.unwrap();
        let filter = ByDay::filter().group(2).build().unwrap();
        let mut query = covering.query_covered::<ByDay>(&filter).unwrap();
        let mut got = Vec::new();
        while let Some(hit) = query.next().await {
            let (entry, summary) = hit.unwrap();
            got.push((entry.log.id, summary));
        }
        assert_eq!(query.stats().data_gets, 0);
        got.sort_by_key(|g| g.0);
        let want: Vec<(u64, Summary)> = rows
            .iter()
            .filter(|(_, log)| log.group == 2)
            .map(|(key, log)| (key.id, ByDay::covered(key, log)))
            .collect();
        assert!(
            !want.is_empty() && got == want,
            "the async covered answer differs"
        );
        assert!(covering.verify::<ByDay>().await.unwrap().is_clean());
    });
    // Hot rows on Bigtable run on the async table: a put or delete there
    // removes the replaced record's entries only up to that record's own
    // timestamp (`get_stamped`), which Bigtable needs (its deletes leave
    // no marker) and the blocking adapter cannot give.
    let hot = std::sync::Arc::new(
        AsyncIndexedTable::new(create("hot"))
            .with_index::<ByGuid>()
            .with_index::<ByCode>(),
    );
    rt.block_on(async {
        let tasks: Vec<_> = (0..4u64)
            .map(|thread| {
                let hot = hot.clone();
                tokio::spawn(async move {
                    for (id, log, delete) in hot_writes(thread) {
                        hot.put(&LogKey { id }, &log).await.unwrap();
                        if delete {
                            hot.delete(&LogKey { id }).await.unwrap();
                        }
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
    });
    let seen = rowkey_tests::index::table(blocking(rowkey_bigtable::IndexStore::new(
        &client, "hot", "d",
    )));
    check_queries(&seen);
    rt.block_on(async {
        hot.repair::<ByGuid>(Duration::ZERO).await.unwrap();
        hot.repair::<ByCode>(Duration::ZERO).await.unwrap();
    });
    assert_eq!(leftovers(&seen), [(0, 0); 2]);

    // The async table, from tasks spawned on the runtime (its futures are
    // `Send`): writes, then queries and maintenance against the oracle.
    let table = std::sync::Arc::new(
        AsyncIndexedTable::new(create("async"))
            .with_index::<ByGuid>()
            .with_index::<ByCode>(),
    );
    rt.block_on(async {
        let mut tasks = Vec::new();
        for part in 0..4u64 {
            let table = table.clone();
            tasks.push(tokio::spawn(async move {
                let mut rng = Rng(part + 5);
                for id in (part * 50)..(part * 50 + 50) {
                    table.put(&LogKey { id }, &rng.log()).await.unwrap();
                }
                for id in (part * 50..part * 50 + 50).step_by(9) {
                    assert!(table.delete(&LogKey { id }).await.unwrap());
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
    });
    let oracle = data_rows(&blocking(rowkey_bigtable::IndexStore::new(
        &client, "async", "d",
    )));
    assert_eq!(oracle.len(), 200 - 4 * 6);
    rt.block_on(async {
        for group in 0..3 {
            let filter = ByGuid::filter().group(group).guid(7).build().unwrap();
            let got: BTreeSet<LogKey> = table
                .query::<ByGuid>(&filter)
                .unwrap()
                .collect()
                .await
                .unwrap()
                .into_iter()
                .map(|(k, _)| k)
                .collect();
            let want: BTreeSet<LogKey> = oracle
                .iter()
                .filter(|(_, r)| r.group == group && (r.guid1 == 7 || r.guid2 == 7))
                .map(|(k, _)| *k)
                .collect();
            assert_eq!(got, want, "group {group}");
        }
        let either = [
            ByGuid::filter().guid(3).build().unwrap(),
            ByCode::filter().group(1).code(2).build().unwrap(),
        ];
        let got = table
            .query_any(&either)
            .unwrap()
            .collect()
            .await
            .unwrap()
            .len();
        let want = oracle
            .iter()
            .filter(|(_, r)| r.guid1 == 3 || r.guid2 == 3 || (r.group == 1 && r.code == 2))
            .count();
        assert_eq!(got, want);
        assert!(table.verify::<ByGuid>().await.unwrap().is_clean());
        assert_eq!(
            table.get(&LogKey { id: 1 }).await.unwrap(),
            oracle
                .iter()
                .find(|(k, _)| k.id == 1)
                .map(|(_, r)| r.clone())
        );
        // An orphan planted by hand is dropped by queries and mended.
        let orphan = ByGuid {
            group: 0,
            guid: 7,
            date: 20_000,
            log: LogKey { id: 9_999 },
        };
        table
            .store()
            .put(
                &[(orphan.encode_to_vec().unwrap(), 1u64.to_be_bytes().to_vec())],
                1,
            )
            .await
            .unwrap();
        let report = table.verify::<ByGuid>().await.unwrap();
        assert_eq!(report.orphan, 1);
        let mut q = table
            .query::<ByGuid>(&ByGuid::filter().group(0).guid(7).build().unwrap())
            .unwrap();
        while let Some(hit) = q.next().await {
            assert_ne!(hit.unwrap().0.id, 9_999);
        }
        assert_eq!(q.stats().orphan, 1);
        assert_eq!(
            table
                .repair::<ByGuid>(Duration::ZERO)
                .await
                .unwrap()
                .removed,
            1
        );
        assert!(table.verify::<ByGuid>().await.unwrap().is_clean());
        // A backfill from scratch writes every entry again, and the index
        // stays clean.
        let report = table
            .backfill::<ByCode>()
            .unwrap()
            .page_size(50)
            .run()
            .await
            .unwrap();
        assert!(report.complete);
        assert_eq!(report.data_rows, oracle.len() as u64);
        assert!(table.verify::<ByCode>().await.unwrap().is_clean());
    });

    // Batches on the async table: each batch's previous records in one
    // read and their old entries removed in one call, each up to its own
    // record's timestamp.
    let batched = AsyncIndexedTable::new(create("async_batches"))
        .with_index::<ByGuid>()
        .with_index::<ByCode>();
    let mut model = std::collections::BTreeMap::new();
    rt.block_on(async {
        let mut rng = Rng(31);
        let rows: Vec<(LogKey, Log)> = (0..2_600)
            .map(|_| {
                (
                    LogKey {
                        id: rng.below(3_000),
                    },
                    rng.log(),
                )
            })
            .collect();
        batched.put_many(&rows).await.unwrap();
        // A second record for 500 keys: their first records' entries go.
        let again: Vec<(LogKey, Log)> = rows[..500].iter().map(|(k, _)| (*k, rng.log())).collect();
        batched.put_many(&again).await.unwrap();
        for (key, log) in rows.iter().chain(&again) {
            model.insert(*key, log.clone());
        }
        let gone: Vec<LogKey> = (0..3_100).step_by(4).map(|id| LogKey { id }).collect();
        let there = gone.iter().filter(|k| model.contains_key(k)).count() as u64;
        assert_eq!(batched.delete_many(&gone).await.unwrap(), there);
        for key in &gone {
            model.remove(key);
        }
        for report in [
            batched.verify::<ByGuid>().await.unwrap(),
            batched.verify::<ByCode>().await.unwrap(),
        ] {
            assert!(report.is_clean(), "{report:?}");
            assert!(report.valid > 500, "{report:?}");
        }
    });
    let seen = rowkey_tests::index::table(blocking(rowkey_bigtable::IndexStore::new(
        &client,
        "async_batches",
        "d",
    )));
    let stored: Vec<(LogKey, Log)> = data_rows(seen.store());
    assert!(
        stored == model.into_iter().collect::<Vec<_>>(),
        "the batched data rows differ from the model"
    );
    check_queries(&seen);

    // A put racing a delete of its key, steps interleaved as the race
    // goes wrong: the put writes its entries; the delete reads the old
    // record and deletes the data row; the put's data row lands after it
    // (Bigtable keeps it: a delete leaves no marker); then the delete
    // removes the old record's entries, which the new record shares. The
    // oracle: the data row there is the put's record, so its entries are
    // there too, and a query by them finds it.
    let raced = std::sync::Arc::new(
        AsyncIndexedTable::new(Gated::new(create("raced"), LogKey { id: 5 }))
            .with_index::<ByGuid>()
            .with_index::<ByCode>(),
    );
    let old = Log {
        group: 0,
        guid1: 7,
        guid2: 8,
        code: 1,
        date: 20_000,
    };
    let new = Log {
        code: 2,
        ..old.clone()
    };
    rt.block_on(async {
        raced.put(&LogKey { id: 5 }, &old).await.unwrap();
        raced.store().arm();
        let put = tokio::spawn({
            let (t, new) = (raced.clone(), new.clone());
            async move { t.put(&LogKey { id: 5 }, &new).await }
        });
        // The put has written its entries and waits to write its data row.
        raced.store().put_waits.acquire().await.unwrap().forget();
        let delete = tokio::spawn({
            let t = raced.clone();
            async move { t.delete(&LogKey { id: 5 }).await }
        });
        put.await.unwrap().unwrap();
        assert!(delete.await.unwrap().unwrap());
        raced.store().disarm();
        assert_eq!(
            raced.get(&LogKey { id: 5 }).await.unwrap(),
            Some(new.clone())
        );
        let found = raced
            .query::<ByGuid>(&ByGuid::filter().group(0).guid(7).build().unwrap())
            .unwrap()
            .collect()
            .await
            .unwrap();
        assert_eq!(found.len(), 1, "the record is found by its guid");
        for (name, report) in [
            ("ByGuid", raced.verify::<ByGuid>().await.unwrap()),
            ("ByCode", raced.verify::<ByCode>().await.unwrap()),
        ] {
            assert!(report.is_clean(), "{name}: {report:?}");
        }
    });
}

/// An index store whose steps on one key's record are held so that a
/// put and a delete of it interleave as a race would: once armed, the
/// data row's put waits for its delete, and every removal of entries
/// waits for the data row's put.
struct Gated<S> {
    inner: S,
    data_key: Vec<u8>,
    armed: std::sync::atomic::AtomicBool,
    /// A permit when the data row's put starts waiting.
    put_waits: tokio::sync::Semaphore,
    /// Permits once the data row is deleted.
    deleted: tokio::sync::Semaphore,
    /// Permits once the data row is put.
    written: tokio::sync::Semaphore,
}

impl<S> Gated<S> {
    fn new(inner: S, key: LogKey) -> Self {
        Gated {
            inner,
            data_key: key.encode_to_vec().unwrap(),
            armed: false.into(),
            put_waits: tokio::sync::Semaphore::new(0),
            deleted: tokio::sync::Semaphore::new(0),
            written: tokio::sync::Semaphore::new(0),
        }
    }

    fn arm(&self) {
        self.armed.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    fn disarm(&self) {
        self.armed.store(false, std::sync::atomic::Ordering::SeqCst);
    }

    fn armed(&self) -> bool {
        self.armed.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// Permits enough for every waiter.
const ALL: usize = 1_000;

impl<S: AsyncStore + Send> AsyncStore for Gated<S> {
    type Error = S::Error;

    async fn scan(
        &self,
        from: &[u8],
        stop: &[u8],
        filter: Option<&KeyFilter>,
        limit: usize,
    ) -> Result<rowkey_core::index::Page, S::Error> {
        self.inner.scan(from, stop, filter, limit).await
    }

    async fn get_many(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, S::Error> {
        self.inner.get_many(keys).await
    }

    async fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, S::Error> {
        self.inner.get(key).await
    }

    async fn get_stamped(&self, key: &[u8]) -> Result<rowkey_core::index::Stamped, S::Error> {
        self.inner.get_stamped(key).await
    }

    async fn put(&self, rows: &[(Vec<u8>, Vec<u8>)], ts: u64) -> Result<(), S::Error> {
        let data = self.armed() && rows.iter().any(|(k, _)| *k == self.data_key);
        if data {
            self.put_waits.add_permits(1);
            self.deleted.acquire().await.unwrap().forget();
        }
        self.inner.put(rows, ts).await?;
        if data {
            self.written.add_permits(ALL);
        }
        Ok(())
    }

    async fn delete(&self, keys: &[Vec<u8>], ts: u64) -> Result<(), S::Error> {
        let data = keys.contains(&self.data_key);
        if self.armed() && !data {
            self.written.acquire().await.unwrap().forget();
        }
        self.inner.delete(keys, ts).await?;
        if self.armed() && data {
            self.deleted.add_permits(ALL);
        }
        Ok(())
    }
}
