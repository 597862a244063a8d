//! The log table rowkey grew from, with its indexes kept by rowkey: each
//! log stored once under a data key `D-…`, and index rows in the same
//! pre-split table: `I-1` (group, guid, date → log: one entry for each of
//! a log's two guids, so a query on a guid finds logs holding it as
//! either) and `I-2` (group, code, date → log). A third index, `I-3`
//! (level, date → log), is added after the logs were written, built by a
//! backfill and checked by `verify`. Every query is checked against a
//! full scan of the data rows.
//!
//! Run against an HBase Thrift2 gateway (`hbase thrift2 start`, port 9090):
//! `HBASE_THRIFT=127.0.0.1:9090 cargo run -p examples --example log_index`.
//! Its test starts a real standalone HBase (`rowkey_hbase::testing`).

use std::collections::BTreeSet;

use rowkey_core::index::{Index, IndexedTable};
use rowkey_core::prelude::*;
use rowkey_hbase::{Client, IndexStore};
use serde::{Deserialize, Serialize};

/// `D-` + day + sequence number: a log's data row.
#[derive(RowKey, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[rowkey(prefix = "D-")]
struct LogKey {
    day: u32,
    seq: u32,
}

/// What a data row holds (written with postcard, feature `index-serde`).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Log {
    group: u32,
    guid1: u64,
    guid2: u64,
    code: u32,
    level: u8,
    message: String,
}

/// `I-1` + bucket + group + guid + date + the log.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "I-1")]
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
    fn entries(key: &LogKey, log: &Log) -> impl IntoIterator<Item = Self> {
        [log.guid1, log.guid2].map(|guid| ByGuid {
            group: log.group,
            guid,
            date: key.day,
            log: *key,
        })
    }
    fn data_key(&self) -> LogKey {
        self.log
    }
}

/// `I-2` + group + code + date + the log.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "I-2")]
struct ByCode {
    group: u32,
    code: u32,
    date: u32,
    log: LogKey,
}

impl Index for ByCode {
    type Data = LogKey;
    type Record = Log;
    fn entries(key: &LogKey, log: &Log) -> impl IntoIterator<Item = Self> {
        [ByCode {
            group: log.group,
            code: log.code,
            date: key.day,
            log: *key,
        }]
    }
    fn data_key(&self) -> LogKey {
        self.log
    }
}

/// `I-3` + level + date + the log: added later. Only warnings and errors
/// (levels 3 and up) are indexed.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "I-3")]
struct ByLevel {
    level: u8,
    date: u32,
    log: LogKey,
}

impl Index for ByLevel {
    type Data = LogKey;
    type Record = Log;
    fn entries(key: &LogKey, log: &Log) -> impl IntoIterator<Item = Self> {
        (log.level >= 3).then_some(ByLevel {
            level: log.level,
            date: key.day,
            log: *key,
        })
    }
    fn data_key(&self) -> LogKey {
        self.log
    }
}

/// 2,000 logs over four days.
fn logs() -> Vec<(LogKey, Log)> {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    (0..2_000u32)
        .map(|seq| {
            let key = LogKey {
                day: 20_000 + seq % 4,
                seq,
            };
            let log = Log {
                group: next(3) as u32,
                guid1: next(50),
                guid2: next(50),
                code: next(10) as u32,
                level: next(5) as u8,
                message: format!("log {seq}"),
            };
            (key, log)
        })
        .collect()
}

fn run(addr: &str) -> Result<(), Box<dyn std::error::Error>> {
    let hbase = Client::connect(addr)?;
    // One table: its data rows, and each index's rows (`I-1` salted into
    // four regions of its own).
    let mut splits: Vec<Vec<u8>> = ByGuid::split_points();
    splits.extend([b"I-1".to_vec(), b"I-2".to_vec(), b"I-3".to_vec()]);
    splits.sort();
    hbase.create_table("logs", &["d"], &splits)?;
    let store = IndexStore::new(&hbase, "logs", "d");
    let table = IndexedTable::new(store.clone())
        .with_index::<ByGuid>()
        .with_index::<ByCode>();
    let logs = logs();
    for (key, log) in &logs {
        table.put(key, log)?;
    }

    // The OR query: group 1's logs holding guid 7 in either field.
    let filter = ByGuid::filter().group(1).guid(7).build()?;
    let mut hits = table.query::<ByGuid>(&filter)?;
    let found: BTreeSet<LogKey> = hits
        .by_ref()
        .map(|h| h.map(|(k, _)| k))
        .collect::<Result<_, _>>()?;
    let want: BTreeSet<LogKey> = logs
        .iter()
        .filter(|(_, l)| l.group == 1 && (l.guid1 == 7 || l.guid2 == 7))
        .map(|(k, _)| *k)
        .collect();
    assert_eq!(found, want);
    // The index reads its answer: one entry and one data row per log
    // (a log holding guid 7 twice has one entry).
    let stats = hits.stats();
    let n = found.len() as u64;
    assert_eq!(
        (stats.index_rows, stats.data_gets, stats.returned),
        (n, n, n)
    );
    println!(
        "guid 7 in group 1: {} logs; {} index rows, {} data rows fetched",
        found.len(),
        stats.index_rows,
        stats.data_gets
    );

    // Code 4 of group 2 on two of the four days: a range in the index.
    let filter = ByCode::filter()
        .group(2)
        .code(4)
        .date(20_001..20_003)
        .build()?;
    let found = table.query::<ByCode>(&filter)?.count();
    let want = logs
        .iter()
        .filter(|(k, l)| l.group == 2 && l.code == 4 && (20_001..20_003).contains(&k.day))
        .count();
    assert_eq!(found, want);
    println!("code 4 of group 2 on days 20001-20002: {found} logs");

    // A new query key later: add the index, re-scan the history once to
    // build it; new logs are written with it from now on.
    let table = table.with_index::<ByLevel>();
    let before = table.verify::<ByLevel>()?;
    let backfill = table.backfill::<ByLevel>()?.run()?;
    let after = table.verify::<ByLevel>()?;
    println!(
        "I-3 added: {} entries missing, backfill read {} logs and wrote {} entries, now {} valid",
        before.missing, backfill.data_rows, backfill.entries, after.valid
    );
    assert!(after.is_clean());
    assert_eq!(after.valid, before.missing);
    let errors = table
        .query::<ByLevel>(&ByLevel::filter().level(4).build()?)?
        .count();
    assert_eq!(errors, logs.iter().filter(|(_, l)| l.level == 4).count());
    println!("level 4 (errors): {errors} logs");
    Ok(())
}

fn main() {
    let Ok(addr) = std::env::var("HBASE_THRIFT") else {
        eprintln!("set HBASE_THRIFT to an HBase Thrift2 gateway, e.g. 127.0.0.1:9090");
        std::process::exit(2);
    };
    if let Err(e) = run(&addr) {
        eprintln!("log_index: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
#[test]
fn example_runs_against_a_real_hbase() {
    let hbase = rowkey_hbase::testing::HBase::start().expect("HBase starts");
    run(&hbase.thrift_addr().to_string()).unwrap();
}

/// The key layouts, frozen.
#[cfg(test)]
#[test]
fn layouts_are_frozen() {
    rowkey_core::assert_layout::<LogKey>(
        0x810bd7ca7ae973c4,
        "[prefix \"D-\" 2][day u32 4][seq u32 4] = 10 bytes",
    );
    rowkey_core::assert_layout::<ByGuid>(0x15ec632112654beb, "[prefix \"I-1\" 3][salt(group)/4 1][group u32 4][guid u64 8][date u32 4][log LogKey 10] = 30 bytes");
    rowkey_core::assert_layout::<ByCode>(
        0x8997c0ce6b2ce037,
        "[prefix \"I-2\" 3][group u32 4][code u32 4][date u32 4][log LogKey 10] = 25 bytes",
    );
    rowkey_core::assert_layout::<ByLevel>(
        0x860fc7c93429e4f1,
        "[prefix \"I-3\" 3][level u8 1][date u32 4][log LogKey 10] = 18 bytes",
    );
}
