//! Secondary indexes (`rowkey_core::index`) on every engine's store: redb
//! and fjall (one transaction per put, and step by step as on HBase), a
//! real HBase, and Bigtable's emulator (its async store run by the same
//! suite through a blocking adapter, and by `AsyncIndexedTable`). The seed's log table (data rows `D`, a guid index
//! with an entry per guid, a code index), checked against a full-scan
//! oracle over the data rows after crashes at every write step,
//! concurrent updates, backfills, and leftovers planted by hand.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use std::time::Duration;

use rowkey_core::index::testing::{FailAt, Failed};
use rowkey_core::index::{
    AsyncIndexedTable, AsyncStore, Index, IndexError, IndexedTable, Page, Record, Store, StoreTx,
};
use rowkey_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(RowKey, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[rowkey(prefix = "D")]
struct LogKey {
    id: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Log {
    group: u32,
    guid1: u64,
    guid2: u64,
    code: u32,
    date: u32,
}

/// `I1` + group + guid + date + the log: one entry per guid, so a query on
/// a guid finds logs that hold it as either.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "I1")]
#[salt(buckets = 4, by(group))]
struct ByGuid {
    group: u32,
    guid: u64,
    date: u32,
    log: LogKey,
}

impl Index for ByGuid {
    type Data = LogKey;
    type Record = Log;
    fn entries(log: &LogKey, r: &Log) -> impl IntoIterator<Item = Self> {
        [r.guid1, r.guid2].map(|guid| ByGuid {
            group: r.group,
            guid,
            date: r.date,
            log: *log,
        })
    }
    fn data_key(&self) -> LogKey {
        self.log
    }
}

/// `I2` + group + code + date + the log.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "I2")]
struct ByCode {
    group: u32,
    code: u32,
    date: u32,
    log: LogKey,
}

impl Index for ByCode {
    type Data = LogKey;
    type Record = Log;
    fn entries(log: &LogKey, r: &Log) -> impl IntoIterator<Item = Self> {
        // Code 0 means "none": such logs are not in this index.
        (r.code != 0).then_some(ByCode {
            group: r.group,
            code: r.code,
            date: r.date,
            log: *log,
        })
    }
    fn data_key(&self) -> LogKey {
        self.log
    }
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    fn log(&mut self) -> Log {
        Log {
            group: self.below(3) as u32,
            guid1: self.below(20),
            guid2: self.below(20),
            code: self.below(4) as u32,
            date: 20_000 + self.below(5) as u32,
        }
    }
}

type Table<S> = IndexedTable<S, LogKey, Log>;

fn table<S: Store>(store: S) -> Table<S> {
    IndexedTable::new(store)
        .with_index::<ByGuid>()
        .with_index::<ByCode>()
}

/// Every data row, by a full scan of the `D` family.
fn data_rows<S: Store>(store: &S) -> Vec<(LogKey, Log)> {
    let page = store.scan(b"D", b"E", None, 1_000_000).unwrap();
    page.rows
        .iter()
        .map(|(k, v)| {
            let log: Log = postcard::from_bytes(v).unwrap();
            (LogKey::decode(k).unwrap(), log)
        })
        .collect()
}

/// The queries every check runs: through each index, and the union.
fn check_queries<S: Store>(t: &Table<S>)
where
    S::Error: std::fmt::Debug,
{
    let rows = data_rows(t.store());
    for group in 0..3 {
        for guid in [0, 7, 19] {
            let filter = ByGuid::filter().group(group).guid(guid).build().unwrap();
            let got = sorted(t.query::<ByGuid>(&filter).unwrap());
            let want: BTreeSet<LogKey> = rows
                .iter()
                .filter(|(_, r)| r.group == group && (r.guid1 == guid || r.guid2 == guid))
                .map(|(k, _)| *k)
                .collect();
            assert_eq!(got, want, "group {group} guid {guid}");
        }
        for code in 1..4 {
            let filter = ByCode::filter()
                .group(group)
                .code(code)
                .date(20_001..20_004)
                .build()
                .unwrap();
            let got = sorted(t.query::<ByCode>(&filter).unwrap());
            let want: BTreeSet<LogKey> = rows
                .iter()
                .filter(|(_, r)| {
                    r.group == group && r.code == code && (20_001..20_004).contains(&r.date)
                })
                .map(|(k, _)| *k)
                .collect();
            assert_eq!(got, want, "group {group} code {code}");
        }
        let either = [
            ByGuid::filter().group(group).guid(3).build().unwrap(),
            ByCode::filter().group(group).code(2).build().unwrap(),
        ];
        let got = sorted(t.query_any(&either).unwrap());
        let want: BTreeSet<LogKey> = rows
            .iter()
            .filter(|(_, r)| r.group == group && (r.guid1 == 3 || r.guid2 == 3 || r.code == 2))
            .map(|(k, _)| *k)
            .collect();
        assert_eq!(got, want, "group {group}: guid 3 or code 2");
    }
}

/// The data keys of a query's records, checking each record against its
/// data row and that none comes twice.
fn sorted<E: std::fmt::Debug>(
    hits: impl Iterator<Item = Result<(LogKey, Log), E>>,
) -> BTreeSet<LogKey> {
    let mut out = BTreeSet::new();
    for hit in hits {
        let (k, _) = hit.unwrap();
        assert!(out.insert(k), "{k:?} returned twice");
    }
    out
}

fn redb_db() -> redb::Database {
    redb::Database::builder()
        .create_with_backend(redb::backends::InMemoryBackend::new())
        .unwrap()
}

fn fjall_db() -> (tempfile::TempDir, fjall::SingleWriterTxDatabase) {
    let dir = tempfile::tempdir().unwrap();
    let db = fjall::SingleWriterTxDatabase::builder(dir.path())
        .open()
        .unwrap();
    (dir, db)
}

/// Puts, changes of indexed values (A to B and back), deletes: queries
/// equal the oracle and `verify` is clean after each round.
fn puts_and_queries<S: Store>(store: S)
where
    S::Error: std::fmt::Debug,
{
    let t = table(store);
    let mut rng = Rng(7);
    for round in 0..4 {
        for id in 0..300 {
            t.put(&LogKey { id }, &rng.log()).unwrap();
        }
        for id in (round..300).step_by(7) {
            assert!(t.delete(&LogKey { id }).unwrap());
        }
        check_queries(&t);
        for report in [t.verify::<ByGuid>().unwrap(), t.verify::<ByCode>().unwrap()] {
            assert!(report.is_clean(), "round {round}: {report:?}");
            assert!(report.valid > 0);
        }
    }
    assert!(!t.delete(&LogKey { id: 1_000_000 }).unwrap());
    let log = Log {
        group: 1,
        guid1: 5,
        guid2: 6,
        code: 1,
        date: 20_000,
    };
    t.put(&LogKey { id: 9 }, &log).unwrap();
    assert_eq!(t.get(&LogKey { id: 9 }).unwrap(), Some(log));
    assert_eq!(t.get(&LogKey { id: 1_000_000 }).unwrap(), None);
}

#[test]
fn puts_deletes_and_queries_agree_with_the_data_rows_on_redb() {
    let db = redb_db();
    puts_and_queries(rowkey_core::redb::IndexStore::new(&db, "logs"));
}

#[test]
fn puts_deletes_and_queries_agree_with_the_data_rows_on_fjall() {
    let (_dir, db) = fjall_db();
    puts_and_queries(rowkey_core::fjall::IndexStore::new(&db, "logs").unwrap());
}

/// A store whose every write step is its own transaction, as on HBase and
/// Bigtable (atomic per row, never across rows): what a crash between the
/// steps of a put leaves is real here. Real redb underneath.
struct PerStep<S>(S);

struct PerStepTx<'a, S>(&'a S);

impl<S: Store> StoreTx for PerStepTx<'_, S> {
    type Error = S::Error;
    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, S::Error> {
        Ok(self.0.get_many(&[key.to_vec()])?.pop().flatten())
    }
    fn put(&mut self, rows: &[(Vec<u8>, Vec<u8>)], ts: u64) -> Result<(), S::Error> {
        self.0.write(|tx| tx.put(rows, ts))
    }
    fn delete(&mut self, keys: &[Vec<u8>], ts: u64) -> Result<(), S::Error> {
        self.0.write(|tx| tx.delete(keys, ts))
    }
}

impl<S: Store> Store for PerStep<S> {
    type Error = S::Error;
    fn scan(
        &self,
        from: &[u8],
        stop: &[u8],
        filter: Option<&KeyFilter>,
        limit: usize,
    ) -> Result<Page, S::Error> {
        self.0.scan(from, stop, filter, limit)
    }
    fn get_many(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, S::Error> {
        self.0.get_many(keys)
    }
    fn write<R, E: From<S::Error>>(
        &self,
        steps: impl FnOnce(&mut dyn StoreTx<Error = S::Error>) -> Result<R, E>,
    ) -> Result<R, E> {
        steps(&mut PerStepTx(&self.0))
    }
}

/// `(stale, orphan)` entries of `ByGuid`, then of `ByCode`.
type Leftovers = [(u64, u64); 2];

/// What `verify` counts as left over in each index.
fn leftovers<S: Store>(t: &Table<S>) -> Leftovers
where
    S::Error: std::fmt::Debug,
{
    let g = t.verify::<ByGuid>().unwrap();
    let c = t.verify::<ByCode>().unwrap();
    for r in [g, c] {
        assert_eq!((r.missing, r.undecodable), (0, 0), "{r:?}");
    }
    [(g.stale, g.orphan), (c.stale, c.orphan)]
}

/// Crashes at every step of a put and of a delete. The write order is:
/// a put writes the new entries (step 1), the data row (2), then removes
/// the old entries (3); a delete removes the data row (1), then the
/// entries (2). After each crash every query equals the oracle, `verify`
/// counts exactly what the crash left (nothing where the store has
/// transactions), `repair` within the grace period spares it, `repair`
/// after it leaves `verify` clean, and a second `repair` changes nothing.
fn crash_at_every_step<S: Store>(store: S, transactional: bool)
where
    S::Error: std::fmt::Debug + std::fmt::Display,
{
    let t = table(FailAt::new(store));
    let old = Log {
        group: 1,
        guid1: 3,
        guid2: 4,
        code: 2,
        date: 20_001,
    };
    let new = Log {
        group: 1,
        guid1: 3,
        guid2: 5,
        code: 3,
        date: 20_001,
    };
    // (operation, step, leftovers without transactions: [(stale, orphan)])
    let cases: [(&str, u64, Leftovers); 5] = [
        // Nothing written yet.
        ("put", 1, [(0, 0), (0, 0)]),
        // The new entries (guid 5, code 3) beside the old record.
        ("put", 2, [(1, 0), (1, 0)]),
        // The old entries (guid 4, code 2) beside the new record.
        ("put", 3, [(1, 0), (1, 0)]),
        ("delete", 1, [(0, 0), (0, 0)]),
        // The record's entries (guids 3 and 4, code 2) without it.
        ("delete", 2, [(0, 2), (0, 1)]),
    ];
    for (id, (op, step, left)) in cases.into_iter().enumerate() {
        let key = LogKey { id: id as u64 };
        t.put(&key, &old).unwrap();
        t.store().fail_at(step);
        let err = match op {
            "put" => t.put(&key, &new).unwrap_err(),
            _ => t.delete(&key).unwrap_err(),
        };
        assert!(
            matches!(err, IndexError::Store(Failed::Injected(s)) if s == step),
            "{op} step {step}: {err}"
        );
        t.store().disarm();
        check_queries(&t);
        let want = if transactional { [(0, 0); 2] } else { left };
        assert_eq!(leftovers(&t), want, "{op}, crash at step {step}");
        let count = want.iter().map(|(s, o)| s + o).sum::<u64>();
        let spared = t
            .repair::<ByGuid>(Duration::from_secs(3600))
            .unwrap()
            .spared
            + t.repair::<ByCode>(Duration::from_secs(3600))
                .unwrap()
                .spared;
        assert_eq!(
            spared, count,
            "{op} step {step}: a young leftover is spared"
        );
        assert_eq!(leftovers(&t), want);
        let removed = t.repair::<ByGuid>(Duration::ZERO).unwrap().removed
            + t.repair::<ByCode>(Duration::ZERO).unwrap().removed;
        assert_eq!(removed, count, "{op} step {step}");
        assert_eq!(leftovers(&t), [(0, 0); 2]);
        for again in [
            t.repair::<ByGuid>(Duration::ZERO).unwrap(),
            t.repair::<ByCode>(Duration::ZERO).unwrap(),
        ] {
            assert_eq!(
                (again.written, again.removed, again.spared),
                (0, 0, 0),
                "{again:?}"
            );
        }
        check_queries(&t);
    }
}

#[test]
fn a_crash_at_any_write_step_never_gives_a_wrong_answer() {
    let db = redb_db();
    crash_at_every_step(rowkey_core::redb::IndexStore::new(&db, "tx"), true);
    crash_at_every_step(
        PerStep(rowkey_core::redb::IndexStore::new(&db, "steps")),
        false,
    );
    let (_dir, db) = fjall_db();
    crash_at_every_step(
        rowkey_core::fjall::IndexStore::new(&db, "tx").unwrap(),
        true,
    );
    crash_at_every_step(
        PerStep(rowkey_core::fjall::IndexStore::new(&db, "steps").unwrap()),
        false,
    );
}

/// Several threads update a few hot rows, each flipping indexed values
/// A → B → A: afterwards every query equals the oracle and no entry is
/// missing. Where a put is one transaction (redb, fjall) none is stale
/// either; on HBase a race can leave a stale entry, which `repair` removes.
fn hot_rows<S: Store + Sync>(store: S, transactional: bool)
where
    S::Error: std::fmt::Debug,
{
    let t = table(store);
    std::thread::scope(|s| {
        for thread in 0..4u64 {
            let t = &t;
            s.spawn(move || {
                let mut rng = Rng(thread + 11);
                for i in 0..150u64 {
                    let id = rng.below(5);
                    let a = Log {
                        group: 2,
                        guid1: 1,
                        guid2: 2,
                        code: 1,
                        date: 20_002,
                    };
                    let b = Log {
                        group: 2,
                        guid1: 1,
                        guid2: 9,
                        code: 3,
                        date: 20_003,
                    };
                    let log = match (i + thread) % 3 {
                        0 | 2 => a,
                        _ => b,
                    };
                    t.put(&LogKey { id }, &log).unwrap();
                    if i % 37 == 0 {
                        t.delete(&LogKey { id }).unwrap();
                    }
                }
            });
        }
    });
    check_queries(&t);
    let left = leftovers(&t);
    if transactional {
        assert_eq!(left, [(0, 0); 2]);
    } else {
        t.repair::<ByGuid>(Duration::ZERO).unwrap();
        t.repair::<ByCode>(Duration::ZERO).unwrap();
        assert_eq!(leftovers(&t), [(0, 0); 2]);
    }
}

#[test]
fn concurrent_updates_of_hot_rows_keep_the_index_exact() {
    let db = redb_db();
    hot_rows(rowkey_core::redb::IndexStore::new(&db, "logs"), true);
    let (_dir, db) = fjall_db();
    hot_rows(
        rowkey_core::fjall::IndexStore::new(&db, "logs").unwrap(),
        true,
    );
}

/// An index added after 10,000 rows were written: `verify` counts every
/// entry missing, a backfill interrupted after two pages and resumed from
/// its checkpoint builds it, and queries through it equal the oracle.
#[test]
fn an_index_added_later_is_backfilled_after_an_interruption() {
    let db = redb_db();
    let store = rowkey_core::redb::IndexStore::new(&db, "logs");
    let before = IndexedTable::new(store.clone()).with_index::<ByGuid>();
    let mut rng = Rng(99);
    let mut coded = 0;
    for id in 0..10_000 {
        let log = rng.log();
        coded += u64::from(log.code != 0);
        before.put(&LogKey { id }, &log).unwrap();
    }
    let t = table(store);
    let report = t.verify::<ByCode>().unwrap();
    assert_eq!((report.valid, report.missing), (0, coded));
    let mut pages = 0;
    let first = t
        .backfill::<ByCode>()
        .unwrap()
        .page_size(1_000)
        .on_progress(|_| {
            pages += 1;
            if pages == 2 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .run()
        .unwrap();
    assert!(!first.complete);
    assert_eq!(first.data_rows, 2_000);
    let checkpoint = first.checkpoint.clone().unwrap();
    assert_eq!(LogKey::decode(&checkpoint).unwrap(), LogKey { id: 1_999 });
    let partial = t.verify::<ByCode>().unwrap();
    assert_eq!(partial.valid, first.entries);
    assert_eq!(partial.valid + partial.missing, coded);
    let rest = t
        .backfill::<ByCode>()
        .unwrap()
        .resume_from(&checkpoint)
        .run()
        .unwrap();
    assert!(rest.complete);
    assert_eq!(rest.data_rows, 8_000);
    assert_eq!(first.entries + rest.entries, coded);
    let done = t.verify::<ByCode>().unwrap();
    assert_eq!(done.valid, coded);
    assert!(done.is_clean(), "{done:?}");
    check_queries(&t);
    // A backfill is idempotent: a second one writes the same entries.
    let again = t.backfill::<ByCode>().unwrap().run().unwrap();
    assert_eq!(again.entries, coded);
    assert_eq!(t.verify::<ByCode>().unwrap(), done);
}

/// Leftovers planted by raw writes (an entry whose data row is gone, an
/// entry of a value the record does not hold, a record whose entry was
/// removed, an index row that does not decode): `verify` finds each, a
/// query drops and counts them, `repair` mends what it can.
#[test]
fn planted_orphans_stale_and_missing_entries_are_found_and_mended() {
    let db = redb_db();
    let store = rowkey_core::redb::IndexStore::new(&db, "logs");
    let t = table(store.clone());
    for id in 0..50 {
        let log = Log {
            group: 0,
            guid1: id % 5,
            guid2: 7,
            code: 1,
            date: 20_000,
        };
        t.put(&LogKey { id }, &log).unwrap();
    }
    let entry = |guid, id| {
        ByGuid {
            group: 0,
            guid,
            date: 20_000,
            log: LogKey { id },
        }
        .encode_to_vec()
        .unwrap()
    };
    let ts = 1u64.to_be_bytes().to_vec(); // written long ago
    store
        .write(|tx| {
            // An orphan: log 500 does not exist.
            tx.put(&[(entry(7, 500), ts.clone())], 1)?;
            // Stale: log 3 holds guids 3 and 7, not 4.
            tx.put(&[(entry(4, 3), ts.clone())], 1)?;
            // Missing: log 10's entry for guid 7.
            tx.delete(&[entry(7, 10)], 1)?;
            // Not a key of the index at all.
            tx.put(&[(b"I1\x00junk".to_vec(), ts.clone())], 1)?;
            Ok::<_, redb::Error>(())
        })
        .unwrap();
    let found = t.verify::<ByGuid>().unwrap();
    assert_eq!(
        (found.orphan, found.stale, found.missing, found.undecodable),
        (1, 1, 1, 1),
        "{found:?}"
    );
    assert_eq!(found.valid, 50 * 2 - 1);
    // Guid 7 in group 0: every log; the orphan dropped, log 10 missed
    // (its entry is gone) until the repair.
    let mut q = t
        .query::<ByGuid>(&ByGuid::filter().group(0).guid(7).build().unwrap())
        .unwrap();
    let ids = sorted(q.by_ref());
    assert_eq!(ids.len(), 49);
    assert!(!ids.contains(&LogKey { id: 10 }));
    assert_eq!((q.stats().orphan, q.stats().returned), (1, 49));
    let mut q = t
        .query::<ByGuid>(&ByGuid::filter().group(0).guid(4).build().unwrap())
        .unwrap();
    let ids = sorted(q.by_ref());
    assert_eq!(ids.len(), 10);
    assert_eq!(q.stats().stale, 1);
    let repair = t.repair::<ByGuid>(Duration::from_secs(60)).unwrap();
    assert_eq!(
        (repair.written, repair.removed, repair.spared),
        (1, 2, 0),
        "{repair:?}"
    );
    let after = t.verify::<ByGuid>().unwrap();
    assert_eq!(
        (
            after.valid,
            after.missing,
            after.orphan,
            after.stale,
            after.undecodable
        ),
        (100, 0, 0, 0, 1)
    );
    let again = t.repair::<ByGuid>(Duration::ZERO).unwrap();
    assert_eq!((again.written, again.removed), (0, 0));
    check_queries(&t);
}

#[test]
fn a_query_through_an_index_the_table_lacks_or_with_another_layout_is_an_error() {
    let db = redb_db();
    let t =
        IndexedTable::new(rowkey_core::redb::IndexStore::new(&db, "logs")).with_index::<ByGuid>();
    let by_code = ByCode::filter().code(1).build().unwrap();
    let err = t.query::<ByCode>(&by_code).err().unwrap();
    assert_eq!(
        err.to_string(),
        "`ByCode` is not an index of this table (add it with `with_index`)"
    );
    let err = t.query::<ByGuid>(&by_code).err().unwrap();
    assert_eq!(
        err.to_string(),
        "the filter is for keys of `ByCode`, not of the index `ByGuid`"
    );
    assert!(t.query_any(&[by_code]).is_err());
}

#[test]
#[should_panic(expected = "the prefixes of `ByGuid` and `ByGuid` overlap")]
fn adding_an_index_twice_panics() {
    let db = redb_db();
    let _ = table(rowkey_core::redb::IndexStore::new(&db, "logs")).with_index::<ByGuid>();
}

/// The suite on a real HBase (two region servers, rowkey's filter on the
/// servers): puts and queries, a crash at every step (HBase has no
/// transaction across rows: what a crash leaves is real), and concurrent
/// updates, whose timestamp-bounded deletes keep a racing writer's entry.
#[test]
fn hbase_index_store() {
    let server =
        rowkey_hbase::testing::HBase::start_with(2).unwrap_or_else(|e| panic!("HBase starts: {e}"));
    let client = server.client_builder().server_filter(true).build().unwrap();
    let store = |table: &str| {
        let mut splits = ByGuid::split_points();
        splits.push(b"I2".to_vec());
        splits.sort();
        client.create_table(table, &["d"], &splits).unwrap();
        rowkey_hbase::IndexStore::new(&client, table, "d")
    };
    puts_and_queries(store("logs"));
    crash_at_every_step(store("crashes"), false);
    hot_rows(store("hot"), false);
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

/// An async store seen as a blocking one: each call run to its end on a
/// runtime of its own, so the blocking suite runs on Bigtable's store.
struct BlockOn<S> {
    store: S,
    runtime: tokio::runtime::Runtime,
}

struct BlockOnTx<'a, S>(&'a BlockOn<S>);

impl<S: AsyncStore> StoreTx for BlockOnTx<'_, S> {
    type Error = S::Error;
    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, S::Error> {
        self.0.runtime.block_on(self.0.store.get(key))
    }
    fn put(&mut self, rows: &[(Vec<u8>, Vec<u8>)], ts: u64) -> Result<(), S::Error> {
        self.0.runtime.block_on(self.0.store.put(rows, ts))
    }
    fn delete(&mut self, keys: &[Vec<u8>], ts: u64) -> Result<(), S::Error> {
        self.0.runtime.block_on(self.0.store.delete(keys, ts))
    }
}

impl<S: AsyncStore> Store for BlockOn<S> {
    type Error = S::Error;
    fn scan(
        &self,
        from: &[u8],
        stop: &[u8],
        filter: Option<&KeyFilter>,
        limit: usize,
    ) -> Result<Page, S::Error> {
        self.runtime
            .block_on(self.store.scan(from, stop, filter, limit))
    }
    fn get_many(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, S::Error> {
        self.runtime.block_on(self.store.get_many(keys))
    }
    fn write<R, E: From<S::Error>>(
        &self,
        steps: impl FnOnce(&mut dyn StoreTx<Error = S::Error>) -> Result<R, E>,
    ) -> Result<R, E> {
        steps(&mut BlockOnTx(self))
    }
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
    hot_rows(blocking(create("hot")), false);

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
}

/// A data key by day, whose record holds the user: the query "user U's
/// events of two days" answered through an index on (user, day), by a skip
/// scan of the data rows of those days (the user is not in the data key,
/// so every row of the days is read and its record checked), and by a full
/// scan. Rows read are counts (BENCHMARKS.md, "Secondary indexes").
#[derive(RowKey, Debug, Clone, Copy, PartialEq)]
#[rowkey(prefix = "E")]
struct Event {
    day: u32,
    seq: u32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct EventRecord {
    user: u32,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "U")]
struct ByUser {
    user: u32,
    day: u32,
    event: Event,
}

impl Index for ByUser {
    type Data = Event;
    type Record = EventRecord;
    fn entries(event: &Event, r: &EventRecord) -> impl IntoIterator<Item = Self> {
        [ByUser {
            user: r.user,
            day: event.day,
            event: *event,
        }]
    }
    fn data_key(&self) -> Event {
        self.event
    }
}

#[test]
fn an_index_query_reads_its_answer_where_scans_read_the_days_or_the_table() {
    const EVENTS: u32 = 100_000;
    println!("| users | returned | index: index rows + data gets (store rows read) | skip scan of 2 days | full scan |");
    println!("|---|---|---|---|---|");
    for users in [10u32, 100, 1_000] {
        let db = redb_db();
        let store = rowkey_core::redb::IndexStore::new(&db, "events");
        let t = IndexedTable::new(store.clone()).with_index::<ByUser>();
        // The data rows in one write, then the index by a backfill.
        let mut rng = Rng(u64::from(users));
        let rows: Vec<(Vec<u8>, Vec<u8>)> = (0..EVENTS)
            .map(|seq| {
                let record = EventRecord {
                    user: rng.below(u64::from(users)) as u32,
                };
                (
                    Event { day: seq % 10, seq }.encode_to_vec().unwrap(),
                    record.to_value(),
                )
            })
            .collect();
        store.write(|tx| tx.put(&rows, 1)).unwrap();
        let built = t
            .backfill::<ByUser>()
            .unwrap()
            .page_size(10_000)
            .run()
            .unwrap();
        assert_eq!(built.entries, u64::from(EVENTS));
        let user = 3;
        let mut q = t
            .query::<ByUser>(&ByUser::filter().user(user).day(4..6).build().unwrap())
            .unwrap();
        let by_index: BTreeSet<u32> = q.by_ref().map(|h| h.unwrap().0.seq).collect();
        let stats = q.stats();
        // The skip scan of the data rows: every row of days 4 and 5.
        let days = Event::filter().day(4..6).build().unwrap();
        let mut skip_read = 0;
        let mut by_skip = BTreeSet::new();
        for range in days.scan().ranges() {
            let page = store
                .scan(range.start(), range.stop(), Some(&days), 1_000_000)
                .unwrap();
            skip_read += page.read;
            for (k, v) in page.rows {
                if postcard::from_bytes::<EventRecord>(&v).unwrap().user == user {
                    by_skip.insert(Event::decode(&k).unwrap().seq);
                }
            }
        }
        let full = store.scan(b"E", b"F", None, 1_000_000).unwrap();
        let by_full: BTreeSet<u32> = full
            .rows
            .iter()
            .filter(|(k, v)| {
                let day = Event::decode(k).unwrap().day;
                (4..6).contains(&day)
                    && postcard::from_bytes::<EventRecord>(v).unwrap().user == user
            })
            .map(|(k, _)| Event::decode(k).unwrap().seq)
            .collect();
        assert_eq!(by_index, by_full);
        assert_eq!(by_skip, by_full);
        let n = by_index.len() as u64;
        // The index reads its answer: one index row and one data row per
        // event returned (and the store reads one index row past the end).
        assert_eq!(
            (stats.index_rows, stats.data_gets, stats.returned),
            (n, n, n)
        );
        assert!(stats.store_rows_read <= n + 1, "{stats:?}");
        assert_eq!(skip_read, u64::from(EVENTS / 10 * 2));
        assert_eq!(full.read, u64::from(EVENTS));
        println!(
            "| {users} | {n} | {} + {} ({}) | {skip_read} | {} |",
            stats.index_rows, stats.data_gets, stats.store_rows_read, full.read
        );
    }
}

/// FORMAT.md, "Secondary index rows": the example entry's bytes, and an
/// index row's value, the write's timestamp in milliseconds.
#[test]
fn index_rows_are_the_bytes_format_md_gives() {
    #[derive(RowKey, Debug, Clone, Copy, PartialEq)]
    #[rowkey(prefix = "D-")]
    struct DayKey {
        day: u32,
        seq: u32,
    }
    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(prefix = "I-1")]
    #[salt(buckets = 4, by(group))]
    struct Entry {
        group: u32,
        guid: u64,
        date: u32,
        log: DayKey,
    }
    let entry = Entry {
        group: 1,
        guid: 7,
        date: 20_000,
        log: DayKey {
            day: 20_000,
            seq: 5,
        },
    };
    assert_eq!(
        rowkey_core::hbase::to_string_binary(&entry.encode_to_vec().unwrap()),
        "I-1\\x03\\x00\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x07\\x00\\x00N D-\\x00\\x00N \\x00\\x00\\x00\\x05"
    );
    // A put's entry holds the put's time.
    let db = redb_db();
    let store = rowkey_core::redb::IndexStore::new(&db, "logs");
    let t = table(store.clone());
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    t.put(
        &LogKey { id: 1 },
        &Log {
            group: 0,
            guid1: 1,
            guid2: 1,
            code: 0,
            date: 20_000,
        },
    )
    .unwrap();
    let page = store.scan(b"I1", b"I2", None, 10).unwrap();
    assert_eq!(page.rows.len(), 1, "one entry: both guids are 1");
    let ts = u64::from_be_bytes(page.rows[0].1.as_slice().try_into().unwrap());
    assert!(ts >= before && ts < before + 60_000, "{ts} {before}");
}

/// Text keys, as the seed's table has them: `D-_date_seq` data rows and
/// `I-1_group_guid_date_seq` entries. A text key cannot nest another key
/// (its fields are digits and strings), so the entry ends with the data
/// key's own fields, which keeps each entry unique and gives the data key
/// back.
#[derive(RowKey, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[rowkey(text, sep = "_", prefix = "D-")]
struct TextLog {
    date: u32,
    seq: u32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct TextRecord {
    group: String,
    guid1: String,
    guid2: String,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(text, sep = "_", prefix = "I-1")]
struct TextByGuid {
    group: String,
    guid: String,
    date: u32,
    seq: u32,
}

impl Index for TextByGuid {
    type Data = TextLog;
    type Record = TextRecord;
    fn entries(log: &TextLog, r: &TextRecord) -> impl IntoIterator<Item = Self> {
        [&r.guid1, &r.guid2].map(|guid| TextByGuid {
            group: r.group.clone(),
            guid: guid.clone(),
            date: log.date,
            seq: log.seq,
        })
    }
    fn data_key(&self) -> TextLog {
        TextLog {
            date: self.date,
            seq: self.seq,
        }
    }
}

#[test]
fn text_index_keys_as_the_seed_writes_them() {
    let db = redb_db();
    let store = rowkey_core::redb::IndexStore::new(&db, "logs");
    let t = IndexedTable::new(store.clone()).with_index::<TextByGuid>();
    let guids = ["a1f", "b2e", "c3d"];
    for seq in 0..60u32 {
        let record = TextRecord {
            group: format!("g{}", seq % 2),
            guid1: guids[seq as usize % 3].into(),
            guid2: guids[(seq as usize + 1) % 3].into(),
        };
        t.put(
            &TextLog {
                date: 20_000 + seq % 3,
                seq,
            },
            &record,
        )
        .unwrap();
    }
    // Two logs with the same group, guid and date have two entries.
    let page = store
        .scan(b"I-1_g0_a1f_", b"I-1_g0_a1f`", None, 100)
        .unwrap();
    let keys: Vec<String> = page
        .rows
        .iter()
        .map(|(k, _)| String::from_utf8(k.clone()).unwrap())
        .collect();
    assert_eq!(keys.len(), 20, "{keys:?}");
    assert!(
        keys.contains(&"I-1_g0_a1f_0000020000_0000000000".to_string()),
        "{keys:?}"
    );
    let filter = TextByGuid::filter()
        .group("g0")
        .guid("a1f")
        .build()
        .unwrap();
    let got: BTreeSet<u32> = t
        .query::<TextByGuid>(&filter)
        .unwrap()
        .map(|h| h.unwrap().0.seq)
        .collect();
    let want: BTreeSet<u32> = (0..60)
        .filter(|s| s % 2 == 0 && (s % 3 == 0 || (s + 1) % 3 == 0))
        .collect();
    assert_eq!(got, want);
    assert!(t.verify::<TextByGuid>().unwrap().is_clean());
}
