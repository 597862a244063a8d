//! The secondary-index suite (`rowkey_core::index`), run on every engine's
//! store by `tests/index.rs` (redb, fjall) and `tests/index_servers.rs`
//! (HBase, Bigtable): the seed's log table (data rows `D`, a guid index
//! with an entry per guid, a code index), checked against a full-scan
//! oracle over the data rows after crashes at every write step and
//! concurrent updates; and the adapters that run the suite on a store
//! that writes step by step ([`PerStep`]) or is async ([`BlockOn`]).

use std::collections::BTreeSet;
use std::time::Duration;

use rowkey_core::index::testing::{FailAt, Failed};
use rowkey_core::index::{
    AsyncStore, Covering, Index, IndexError, IndexedTable, Page, Record, Store, StoreTx,
};
use rowkey_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(RowKey, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[rowkey(prefix = "D")]
pub struct LogKey {
    pub id: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Log {
    pub group: u32,
    pub guid1: u64,
    pub guid2: u64,
    pub code: u32,
    pub date: u32,
}

/// `I1` + group + guid + date + the log: one entry per guid, so a query on
/// a guid finds logs that hold it as either.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "I1")]
#[salt(buckets = 4, by(group))]
pub struct ByGuid {
    pub group: u32,
    pub guid: u64,
    pub date: u32,
    pub log: LogKey,
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
pub struct ByCode {
    pub group: u32,
    pub code: u32,
    pub date: u32,
    pub log: LogKey,
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
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    pub fn log(&mut self) -> Log {
        Log {
            group: self.below(3) as u32,
            guid1: self.below(20),
            guid2: self.below(20),
            code: self.below(4) as u32,
            date: 20_000 + self.below(5) as u32,
        }
    }
}

pub type Table<S> = IndexedTable<S, LogKey, Log>;

pub fn table<S: Store>(store: S) -> Table<S> {
    IndexedTable::new(store)
        .with_index::<ByGuid>()
        .with_index::<ByCode>()
}

/// Every data row, by a full scan of the `D` family.
pub fn data_rows<S: Store>(store: &S) -> Vec<(LogKey, Log)> {
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
pub fn check_queries<S: Store>(t: &Table<S>)
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
pub fn sorted<E: std::fmt::Debug>(
    hits: impl Iterator<Item = Result<(LogKey, Log), E>>,
) -> BTreeSet<LogKey> {
    let mut out = BTreeSet::new();
    for hit in hits {
        let (k, _) = hit.unwrap();
        assert!(out.insert(k), "{k:?} returned twice");
    }
    out
}

pub fn redb_db() -> redb::Database {
    redb::Database::builder()
        .create_with_backend(redb::backends::InMemoryBackend::new())
        .unwrap()
}

pub fn fjall_db() -> (tempfile::TempDir, fjall::SingleWriterTxDatabase) {
    let dir = tempfile::tempdir().unwrap();
    let db = fjall::SingleWriterTxDatabase::builder(dir.path())
        .open()
        .unwrap();
    (dir, db)
}

/// Puts, changes of indexed values (A to B and back), deletes: queries
/// equal the oracle and `verify` is clean after each round.
pub fn puts_and_queries<S: Store + Sync>(store: S)
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

/// `put_many` and `delete_many` in rounds: batches larger than one write
/// (2,600 rows: three writes), a key given twice in a batch (the later
/// record stays), deletes of present and absent keys. After each round
/// the data rows equal a model, every query equals the oracle and
/// `verify` is clean.
pub fn batches_and_queries<S: Store + Sync>(store: S)
where
    S::Error: std::fmt::Debug,
{
    let t = table(store);
    let mut rng = Rng(29);
    let mut model = std::collections::BTreeMap::new();
    for round in 0..3u64 {
        let mut rows: Vec<(LogKey, Log)> = (0..2_600)
            .map(|_| {
                (
                    LogKey {
                        id: rng.below(3_000),
                    },
                    rng.log(),
                )
            })
            .collect();
        // The same key twice, next to each other: the later record wins.
        rows.push((LogKey { id: 7 }, rng.log()));
        rows.push((LogKey { id: 7 }, rng.log()));
        t.put_many(&rows).unwrap();
        for (key, log) in &rows {
            model.insert(key.id, log.clone());
        }
        let gone: Vec<LogKey> = (round..3_100).step_by(5).map(|id| LogKey { id }).collect();
        let there = gone.iter().filter(|k| model.contains_key(&k.id)).count() as u64;
        assert_eq!(t.delete_many(&gone).unwrap(), there, "round {round}");
        for key in &gone {
            model.remove(&key.id);
        }
        let stored: Vec<(u64, Log)> = data_rows(t.store())
            .into_iter()
            .map(|(k, log)| (k.id, log))
            .collect();
        let want: Vec<(u64, Log)> = model.iter().map(|(k, v)| (*k, v.clone())).collect();
        assert!(
            stored == want,
            "round {round}: the data rows differ from the model"
        );
        check_queries(&t);
        for report in [t.verify::<ByGuid>().unwrap(), t.verify::<ByCode>().unwrap()] {
            assert!(report.is_clean(), "round {round}: {report:?}");
            assert!(report.valid > 1_000, "{report:?}");
        }
    }
    assert_eq!(t.delete_many(&[]).unwrap(), 0);
    t.put_many(&[]).unwrap();
}

/// Crashes at every step of a `put_many` and a `delete_many`, as
/// [`crash_at_every_step`] does for single rows. A batch's steps: a put
/// writes every row's new entries (step 1), the data rows (2), then
/// removes the old entries (3); a delete removes the data rows (1), then
/// their entries (2). The put's batch is two rows holding `old` and one
/// new row; the delete's, those two rows and an absent one.
pub fn crash_batches<S: Store + Sync>(store: S, transactional: bool)
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
        ("put", 1, [(0, 0), (0, 0)]),
        // Each old row: guid 5 and code 3 stale; the new row: its guids 3
        // and 5 and its code 3 orphan.
        ("put", 2, [(2, 2), (2, 1)]),
        // Each old row's guid 4 and code 2, stale beside its new record.
        ("put", 3, [(2, 0), (2, 0)]),
        ("delete", 1, [(0, 0), (0, 0)]),
        // Each deleted record's guids 3 and 4 and its code 2.
        ("delete", 2, [(0, 4), (0, 2)]),
    ];
    for (case, (op, step, left)) in cases.into_iter().enumerate() {
        let id = |n: u64| LogKey {
            id: 1_000 + case as u64 * 10 + n,
        };
        t.put_many(&[(id(0), old.clone()), (id(1), old.clone())])
            .unwrap();
        t.store().fail_at(step);
        let err = match op {
            "put" => t
                .put_many(&[
                    (id(0), new.clone()),
                    (id(1), new.clone()),
                    (id(2), new.clone()),
                ])
                .unwrap_err(),
            _ => t.delete_many(&[id(0), id(1), id(3)]).unwrap_err(),
        };
        assert!(
            matches!(err, IndexError::Store(Failed::Injected(s)) if s == step),
            "{op} step {step}: {err}"
        );
        t.store().disarm();
        check_queries(&t);
        let want = if transactional { [(0, 0); 2] } else { left };
        assert_eq!(leftovers(&t), want, "batched {op}, crash at step {step}");
        let removed = t.repair::<ByGuid>(Duration::ZERO).unwrap().removed
            + t.repair::<ByCode>(Duration::ZERO).unwrap().removed;
        assert_eq!(removed, want.iter().map(|(s, o)| s + o).sum::<u64>());
        assert_eq!(leftovers(&t), [(0, 0); 2]);
        // Run again whole, the batch leaves nothing over.
        match op {
            "put" => t
                .put_many(&[
                    (id(0), new.clone()),
                    (id(1), new.clone()),
                    (id(2), new.clone()),
                ])
                .unwrap(),
            _ => {
                // Rows there still: none deleted before the crash.
                let there = if transactional || step == 1 { 2 } else { 0 };
                assert_eq!(t.delete_many(&[id(0), id(1), id(3)]).unwrap(), there);
            }
        }
        assert_eq!(leftovers(&t), [(0, 0); 2]);
        check_queries(&t);
    }
}

/// A store whose every write step is its own transaction, as on HBase and
/// Bigtable (atomic per row, never across rows): what a crash between the
/// steps of a put leaves is real here. Real redb underneath.
pub struct PerStep<S>(pub S);

pub struct PerStepTx<'a, S>(&'a S);

impl<S: Store> StoreTx for PerStepTx<'_, S> {
    type Error = S::Error;
    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, S::Error> {
        Ok(self.0.get_many(&[key.to_vec()])?.pop().flatten())
    }
    fn get_many(&mut self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, S::Error> {
        self.0.get_many(keys)
    }
    fn put(&mut self, rows: &[(Vec<u8>, Vec<u8>)], ts: u64) -> Result<(), S::Error> {
        self.0.write(|tx| tx.put(rows, ts))
    }
    fn put_cells(
        &mut self,
        rows: &[(Vec<u8>, Vec<rowkey_core::index::Cell>)],
        ts: u64,
    ) -> Result<(), S::Error> {
        self.0.write(|tx| tx.put_cells(rows, ts))
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
pub type Leftovers = [(u64, u64); 2];

/// What `verify` counts as left over in each index.
pub fn leftovers<S: Store + Sync>(t: &Table<S>) -> Leftovers
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
pub fn crash_at_every_step<S: Store + Sync>(store: S, transactional: bool)
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

/// Several threads update a few hot rows, each flipping indexed values
/// A → B → A: afterwards every query equals the oracle and no entry is
/// missing. Where a put is one transaction (redb, fjall) none is stale
/// either; on HBase a race can leave a stale entry, which `repair` removes.
pub fn hot_rows<S: Store + Sync>(store: S, transactional: bool)
where
    S::Error: std::fmt::Debug,
{
    let t = table(store);
    std::thread::scope(|s| {
        for thread in 0..4u64 {
            let t = &t;
            s.spawn(move || {
                for (id, log, delete) in hot_writes(thread) {
                    t.put(&LogKey { id }, &log).unwrap();
                    if delete {
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

/// What one writer of [`hot_rows`] does (`thread` of 4): 150 puts of one
/// of 5 rows, each record flipping A → B → A, a delete after every 37th.
pub fn hot_writes(thread: u64) -> Vec<(u64, Log, bool)> {
    let mut rng = Rng(thread + 11);
    (0..150u64)
        .map(|i| {
            let id = rng.below(5);
            let (guid2, code, date) = match (i + thread) % 3 {
                0 | 2 => (2, 1, 20_002),
                _ => (9, 3, 20_003),
            };
            let log = Log {
                group: 2,
                guid1: 1,
                guid2,
                code,
                date,
            };
            (id, log, i % 37 == 0)
        })
        .collect()
}

/// An async store seen as a blocking one: each call run to its end on a
/// runtime of its own, so the blocking suite runs on Bigtable's store.
pub struct BlockOn<S> {
    /// The async store.
    pub store: S,
    /// The runtime its calls run on.
    pub runtime: tokio::runtime::Runtime,
}

pub struct BlockOnTx<'a, S>(&'a BlockOn<S>);

impl<S: AsyncStore> StoreTx for BlockOnTx<'_, S> {
    type Error = S::Error;
    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, S::Error> {
        self.0.runtime.block_on(self.0.store.get(key))
    }
    fn get_many(&mut self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, S::Error> {
        self.0.runtime.block_on(self.0.store.get_many(keys))
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

/// A sensor's data row key.
#[derive(RowKey, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[rowkey(prefix = "S")]
pub struct SensorKey {
    pub id: u64,
}

/// A record stored as cells a Java service reads with HBase's own client:
/// `d:temp` (`Bytes.toBytes(long)`), `d:site` (`Bytes.toBytes(int)`),
/// `d:fw` (UTF-8) and, when there is one, `d:note`.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    pub temp: i64,
    pub site: u32,
    pub fw: String,
    pub note: Option<String>,
}

impl Record for Reading {
    const CELLS: bool = true;

    fn to_cells(&self) -> Vec<rowkey_core::index::Cell> {
        let mut cells = vec![
            (
                "d".into(),
                b"temp".to_vec(),
                self.temp.to_be_bytes().to_vec(),
            ),
            (
                "d".into(),
                b"site".to_vec(),
                self.site.to_be_bytes().to_vec(),
            ),
            ("d".into(), b"fw".to_vec(), self.fw.as_bytes().to_vec()),
        ];
        if let Some(note) = &self.note {
            cells.push(("d".into(), b"note".to_vec(), note.as_bytes().to_vec()));
        }
        cells
    }

    fn from_cells(
        cells: &[rowkey_core::index::Cell],
    ) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        let cell = |q: &[u8]| {
            cells
                .iter()
                .find(|c| c.0 == "d" && c.1 == q)
                .map(|c| c.2.clone())
        };
        let need = |q: &'static str| cell(q.as_bytes()).ok_or(format!("no cell d:{q}"));
        Ok(Reading {
            temp: i64::from_be_bytes(need("temp")?.as_slice().try_into()?),
            site: u32::from_be_bytes(need("site")?.as_slice().try_into()?),
            fw: String::from_utf8(need("fw")?)?,
            note: cell(b"note").map(String::from_utf8).transpose()?,
        })
    }
}

/// `J` + site + the sensor: readings by site.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "J")]
pub struct BySite {
    pub site: u32,
    pub sensor: SensorKey,
}

impl Index for BySite {
    type Data = SensorKey;
    type Record = Reading;
    fn entries(key: &SensorKey, r: &Reading) -> impl IntoIterator<Item = Self> {
        [BySite {
            site: r.site,
            sensor: *key,
        }]
    }
    fn data_key(&self) -> SensorKey {
        self.sensor
    }
}

/// A reading of sensor `id`, version `v`: a note on every third.
pub fn reading(id: u64, v: u64) -> Reading {
    Reading {
        temp: -40 + (id * 7 + v) as i64 % 90,
        site: ((id + v) % 5) as u32,
        fw: format!("fw-{}.{}", v, id % 3),
        note: (id + v).is_multiple_of(3).then(|| format!("checked {id}")),
    }
}

/// Records stored as cells: 300 written by `put_many`, then each written
/// again (its site, and so its entry, changed; its note gone or added),
/// some by single puts; every record read back equals the model, each
/// site's query equals the model and `verify` is clean. Returns the table.
pub fn cell_records<S: Store + Sync>(store: S) -> IndexedTable<S, SensorKey, Reading>
where
    S::Error: std::fmt::Debug,
{
    let t = IndexedTable::new(store).with_index::<BySite>();
    let first: Vec<(SensorKey, Reading)> = (0..300)
        .map(|id| (SensorKey { id }, reading(id, 0)))
        .collect();
    t.put_many(&first).unwrap();
    let again: Vec<(SensorKey, Reading)> = (0..250)
        .map(|id| (SensorKey { id }, reading(id, 1)))
        .collect();
    t.put_many(&again).unwrap();
    for id in 250..300 {
        t.put(&SensorKey { id }, &reading(id, 1)).unwrap();
    }
    for id in [0, 7, 299] {
        assert_eq!(
            t.get(&SensorKey { id }).unwrap(),
            Some(reading(id, 1)),
            "sensor {id}"
        );
    }
    for site in 0..5 {
        let filter = BySite::filter().site(site).build().unwrap();
        let got: BTreeSet<u64> = t
            .query::<BySite>(&filter)
            .unwrap()
            .map(|hit| {
                let (key, record) = hit.unwrap();
                assert_eq!(record, reading(key.id, 1));
                key.id
            })
            .collect();
        let want: BTreeSet<u64> = (0..300).filter(|&id| reading(id, 1).site == site).collect();
        assert_eq!(got, want, "site {site}");
    }
    let report = t.verify::<BySite>().unwrap();
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(report.valid, 300);
    t
}

/// What [`ByDay`]'s entries carry of their log: its code and first guid.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Summary {
    pub code: u32,
    pub guid1: u64,
}

/// `I3` + group + date + the log, covering the log's [`Summary`]: "the
/// codes of a group's logs of a day" is answered from the index alone.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "I3")]
pub struct ByDay {
    pub group: u32,
    pub date: u32,
    pub log: LogKey,
}

impl Index for ByDay {
    type Data = LogKey;
    type Record = Log;
    fn entries(log: &LogKey, r: &Log) -> impl IntoIterator<Item = Self> {
        [ByDay {
            group: r.group,
            date: r.date,
            log: *log,
        }]
    }
    fn data_key(&self) -> LogKey {
        self.log
    }
}

impl Covering for ByDay {
    type Covered = Summary;
    fn covered(_: &LogKey, r: &Log) -> Summary {
        Summary {
            code: r.code,
            guid1: r.guid1,
        }
    }
}

/// Each log's id and covered summary, by id.
pub type Covered = Vec<(u64, Summary)>;

/// A covered query of group `group` and its answer from `model`: each
/// log's key and summary, by key.
pub fn covered_answer<S: Store + Sync>(
    t: &IndexedTable<S, LogKey, Log>,
    group: u32,
    model: &std::collections::BTreeMap<u64, Log>,
) -> (Covered, Covered)
where
    S::Error: std::fmt::Debug,
{
    let filter = ByDay::filter().group(group).build().unwrap();
    let mut query = t.query_covered::<ByDay>(&filter).unwrap();
    let mut got: Covered = query
        .by_ref()
        .map(|hit| hit.map(|(entry, s)| (entry.log.id, s)))
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(query.stats().data_gets, 0, "a covered query read data rows");
    got.sort_by_key(|g| g.0);
    let want = model
        .iter()
        .filter(|(_, log)| log.group == group)
        .map(|(id, log)| (*id, ByDay::covered(&LogKey { id: *id }, log)))
        .collect();
    (got, want)
}

/// Covered values (Phoenix's `INCLUDE`): written by puts, batches and a
/// backfill, answered from the index rows alone and equal to a model;
/// entries written before the index covered anything are an error naming
/// the row, counted by `verify` and written again by `repair`; a put that
/// stops after its entries leaves covered values its data row lacks
/// (without transactions), counted and mended the same way.
pub fn covered_values<S: Store + Sync>(store: S, transactional: bool)
where
    S::Error: std::fmt::Debug + std::fmt::Display,
{
    let store = FailAt::new(store);
    let mut rng = Rng(41);
    let mut model = std::collections::BTreeMap::new();
    // Written first by a table whose ByDay entries cover nothing.
    let plain = IndexedTable::new(&store).with_index::<ByDay>();
    let rows: Vec<(LogKey, Log)> = (0..300).map(|id| (LogKey { id }, rng.log())).collect();
    plain.put_many(&rows).unwrap();
    model.extend(rows.into_iter().map(|(k, l)| (k.id, l)));
    let t = IndexedTable::new(&store)
        .with_index::<ByGuid>()
        .with_covering_index::<ByDay>();
    let filter = ByDay::filter().group(1).build().unwrap();
    let err = t
        .query_covered::<ByDay>(&filter)
        .unwrap()
        .find_map(Result::err)
        .expect("an entry without covered values is an error");
    assert!(
        matches!(err, IndexError::Covered { .. }) && err.to_string().contains("covered values"),
        "{err}"
    );
    let err = plain.query_covered::<ByDay>(&filter);
    assert!(matches!(
        err,
        Err(IndexError::NotCovering { index: "ByDay" })
    ));
    let report = t.verify::<ByDay>().unwrap();
    assert_eq!(
        (report.valid, report.stale_covered),
        (300, 300),
        "{report:?}"
    );
    assert!(!report.is_clean());
    let repaired = t.repair::<ByDay>(Duration::ZERO).unwrap();
    assert_eq!(repaired.written, 300, "{repaired:?}");
    assert!(t.verify::<ByDay>().unwrap().is_clean());
    t.backfill::<ByGuid>().unwrap().run().unwrap();
    // Puts, a batch and deletes, each answered from the index alone.
    for id in 0..40 {
        let log = rng.log();
        t.put(&LogKey { id }, &log).unwrap();
        model.insert(id, log);
    }
    let rows: Vec<(LogKey, Log)> = (250..600).map(|id| (LogKey { id }, rng.log())).collect();
    t.put_many(&rows).unwrap();
    model.extend(rows.into_iter().map(|(k, l)| (k.id, l)));
    let gone: Vec<LogKey> = (0..600).step_by(7).map(|id| LogKey { id }).collect();
    t.delete_many(&gone).unwrap();
    for key in &gone {
        model.remove(&key.id);
    }
    for group in 0..3 {
        let (got, want) = covered_answer(&t, group, &model);
        assert!(!want.is_empty());
        assert!(
            got == want,
            "group {group}: the covered answer differs from the model"
        );
    }
    // A backfill writes covered values over entries that lack them.
    let rows: Vec<(LogKey, Log)> = (1_000..1_100)
        .map(|id| (LogKey { id }, rng.log()))
        .collect();
    plain.put_many(&rows).unwrap();
    model.extend(rows.into_iter().map(|(k, l)| (k.id, l)));
    assert_eq!(t.verify::<ByDay>().unwrap().stale_covered, 100);
    let built = t.backfill::<ByDay>().unwrap().run().unwrap();
    assert_eq!(built.entries as usize, model.len(), "{built:?}");
    assert!(t.verify::<ByDay>().unwrap().is_clean());
    let (got, want) = covered_answer(&t, 0, &model);
    assert!(
        got == want,
        "after the backfill: the covered answer differs from the model"
    );
    // A put of a new code stops after its entries: the entry (same key)
    // covers the new code, the data row still holds the old.
    let key = *model.keys().find(|id| model[id].group == 2).unwrap();
    let mut changed = model[&key].clone();
    changed.code += 10;
    store.fail_at(2);
    t.put(&LogKey { id: key }, &changed).unwrap_err();
    store.disarm();
    let report = t.verify::<ByDay>().unwrap();
    let want = u64::from(!transactional);
    assert_eq!(report.stale_covered, want, "{report:?}");
    let (got, _) = covered_answer(&t, 2, &model);
    let seen = got.iter().find(|g| g.0 == key).unwrap().1.code;
    assert_eq!(
        seen,
        if transactional {
            changed.code - 10
        } else {
            changed.code
        }
    );
    let repaired = t.repair::<ByDay>(Duration::ZERO).unwrap();
    assert_eq!(repaired.written, want, "{repaired:?}");
    let (got, want) = covered_answer(&t, 2, &model);
    assert!(
        got == want,
        "after the repair: the covered answer differs from the model"
    );
    assert!(t.verify::<ByDay>().unwrap().is_clean());
}
