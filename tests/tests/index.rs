//! Secondary indexes on redb and fjall: the suite (`rowkey_tests::index`)
//! with one transaction per put and step by step as on HBase, held-out
//! checks (an index backfilled after an interruption, leftovers planted by
//! hand, text keys), errors, the bytes of FORMAT.md and the rows read of
//! BENCHMARKS.md. `tests/index_servers.rs` runs the suite on HBase and
//! Bigtable.

use std::collections::BTreeSet;
use std::ops::ControlFlow;
use std::time::Duration;

use rowkey_core::index::{Index, IndexedTable, Record, Store};
use rowkey_core::prelude::*;
use rowkey_tests::index::*;
use serde::{Deserialize, Serialize};

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

#[test]
fn batched_puts_and_deletes_agree_with_a_model_and_survive_a_crash_at_any_step() {
    let db = redb_db();
    batches_and_queries(rowkey_core::redb::IndexStore::new(&db, "logs"));
    crash_batches(rowkey_core::redb::IndexStore::new(&db, "tx"), true);
    crash_batches(
        PerStep(rowkey_core::redb::IndexStore::new(&db, "steps")),
        false,
    );
    let (_dir, db) = fjall_db();
    batches_and_queries(rowkey_core::fjall::IndexStore::new(&db, "logs").unwrap());
    crash_batches(
        rowkey_core::fjall::IndexStore::new(&db, "tx").unwrap(),
        true,
    );
    crash_batches(
        PerStep(rowkey_core::fjall::IndexStore::new(&db, "steps").unwrap()),
        false,
    );
}

#[test]
fn records_stored_as_cells_are_written_queried_and_read_back() {
    let db = redb_db();
    let t = cell_records(rowkey_core::redb::IndexStore::new(&db, "cells"));
    // redb keeps one value a row: the cells' frame.
    let key = SensorKey { id: 5 }.encode_to_vec().unwrap();
    let value = t.store().get_many(&[key]).unwrap().pop().flatten().unwrap();
    let cells = rowkey_core::index::decode_cells(&value).unwrap();
    assert_eq!(cells, reading(5, 1).to_cells());
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
    // One page at a time: the stop comes after exactly two pages.
    let mut pages = 0;
    let first = t
        .backfill::<ByCode>()
        .unwrap()
        .page_size(1_000)
        .workers(1)
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

    // Four pages at once, stopped after two: the pages in flight finish,
    // the checkpoint is the last row of the pages read (all done), and a
    // resumed run does the rest.
    let fresh =
        IndexedTable::new(rowkey_core::redb::IndexStore::new(&db, "logs2")).with_index::<ByGuid>();
    let mut rng = Rng(99);
    for id in 0..10_000 {
        fresh.put(&LogKey { id }, &rng.log()).unwrap();
    }
    let t = table(rowkey_core::redb::IndexStore::new(&db, "logs2"));
    let mut pages = 0;
    let first = t
        .backfill::<ByCode>()
        .unwrap()
        .page_size(500)
        .workers(4)
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
    assert!(
        first.data_rows >= 1_000 && first.data_rows % 500 == 0,
        "{first:?}"
    );
    let checkpoint = first.checkpoint.clone().unwrap();
    assert_eq!(LogKey::decode(&checkpoint).unwrap().id, first.data_rows - 1);
    assert_eq!(t.verify::<ByCode>().unwrap().valid, first.entries);
    let rest = t
        .backfill::<ByCode>()
        .unwrap()
        .page_size(500)
        .workers(4)
        .resume_from(&checkpoint)
        .run()
        .unwrap();
    assert!(rest.complete);
    assert_eq!(first.data_rows + rest.data_rows, 10_000);
    assert_eq!(first.entries + rest.entries, coded);
    let done = t.verify::<ByCode>().unwrap();
    assert!(done.is_clean() && done.valid == coded, "{done:?}");
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
    // The same check cut into many parts (as an HBase table's regions cut
    // it, each read on a thread of its own): the same counts.
    let cut = table(Hinted(store.clone(), Default::default()));
    assert_eq!(cut.verify::<ByGuid>().unwrap(), found);
    // A scan a part (the hints' own reads aside): 50 data rows and 101
    // index rows cut every 7th, far more than the 4 buckets and the data.
    let scans = cut.store().1.load(std::sync::atomic::Ordering::Relaxed);
    assert!(scans >= 20, "{scans} scans");
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
    // A covering index's entry: the timestamp, then the covered values.
    let log = Log {
        group: 0,
        guid1: 7,
        guid2: 1,
        code: 3,
        date: 20_000,
    };
    let value = [
        rowkey_core::index::entry_value(1_700_000_000_000).as_slice(),
        &rowkey_core::index::covered_value::<ByDay>(&LogKey { id: 2 }, &log),
    ]
    .concat();
    assert_eq!(
        value,
        [0x00, 0x00, 0x01, 0x8B, 0xCF, 0xE5, 0x68, 0x00, 0x03, 0x07]
    );
    let covering = IndexedTable::new(&store).with_covering_index::<ByDay>();
    covering.put(&LogKey { id: 2 }, &log).unwrap();
    let page = store.scan(b"I3", b"I4", None, 10).unwrap();
    assert_eq!(page.rows[0].1[8..], [0x03, 0x07]);
}

/// FORMAT.md, "A record stored as cells": the example frame's bytes; a
/// frame read back; and frames that lie (a count or a length past the
/// bytes, a varint over 64 bits, bytes after the last cell, a family not
/// UTF-8) refused with the reason, never a panic or an allocation of the
/// size they state.
#[test]
fn a_cells_frame_is_the_bytes_format_md_gives_and_a_bad_one_is_refused() {
    use rowkey_core::index::{decode_cells, encode_cells};
    let cells = vec![
        (
            "d".to_string(),
            b"temp".to_vec(),
            21i64.to_be_bytes().to_vec(),
        ),
        ("d".to_string(), b"fw".to_vec(), b"fw-1".to_vec()),
    ];
    let frame = encode_cells(&cells);
    let hex: Vec<String> = frame.iter().map(|b| format!("{b:02X}")).collect();
    assert_eq!(
        hex.join(" "),
        "02 01 64 04 74 65 6D 70 08 00 00 00 00 00 00 00 15 01 64 02 66 77 04 66 77 2D 31"
    );
    assert_eq!(decode_cells(&frame).unwrap(), cells);
    // A value of 300 bytes: its length takes two bytes (AC 02).
    let long = vec![("f".to_string(), Vec::new(), vec![7; 300])];
    let frame = encode_cells(&long);
    assert_eq!(&frame[..6], &[0x01, 0x01, b'f', 0x00, 0xAC, 0x02]);
    assert_eq!(decode_cells(&frame).unwrap(), long);
    for (bytes, says) in [
        (&[0xFF, 0xFF, 0xFF, 0x0F][..], "cannot hold"),
        (
            &[0x01, 0x01, b'd', 0x00, 0x09, 1, 2][..],
            "a value's length of 9 bytes",
        ),
        (
            &[0x01, 0x01, b'd', 0x00][..],
            "ends inside a value's length",
        ),
        (
            &[
                0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02,
            ][..],
            "over 64 bits",
        ),
        (&[0x00, 0x00][..], "1 bytes after the last cell"),
        (&[0x01, 0x01, 0xFF, 0x00, 0x00][..], "not UTF-8"),
        (&[][..], "ends inside the cell count"),
    ] {
        let err = decode_cells(bytes).unwrap_err().to_string();
        assert!(err.contains(says), "{bytes:02X?}: {err}");
    }
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

/// The table's split points cover every family: the data rows' start,
/// each index's start and a salted index's buckets, sorted; `check`
/// names the unsalted families (the data rows and `ByCode` here), which a
/// table pre-split at those points holds in one region each.
#[test]
fn split_points_cover_every_family_and_check_names_the_unsalted_ones() {
    let db = redb_db();
    let t = table(rowkey_core::redb::IndexStore::new(&db, "logs"));
    let mut want: Vec<Vec<u8>> = vec![b"D".to_vec(), b"I1".to_vec(), b"I2".to_vec()];
    want.extend(ByGuid::split_points());
    want.sort();
    want.dedup();
    assert_eq!(t.split_points(), want);
    assert_eq!(
        t.split_points().len(),
        3 + 3,
        "three families, three more buckets of ByGuid"
    );
    let warnings = t.check();
    assert_eq!(warnings.len(), 2, "{warnings:#?}");
    assert!(
        warnings[0].starts_with("`LogKey` (prefix \"D\") has no salt"),
        "{warnings:#?}"
    );
    assert!(
        warnings[1].starts_with("`ByCode` (prefix \"I2\") has no salt"),
        "{warnings:#?}"
    );
}

#[test]
fn covered_values_answer_from_the_index_and_are_verified_and_mended() {
    let db = redb_db();
    covered_values(rowkey_core::redb::IndexStore::new(&db, "tx"), true);
    covered_values(
        PerStep(rowkey_core::redb::IndexStore::new(&db, "steps")),
        false,
    );
    let (_dir, db) = fjall_db();
    covered_values(
        rowkey_core::fjall::IndexStore::new(&db, "tx").unwrap(),
        true,
    );
    covered_values(
        PerStep(rowkey_core::fjall::IndexStore::new(&db, "steps").unwrap()),
        false,
    );
}

/// An unsalted family (the data rows, ByCode) in one region of the
/// pre-split table is named by `check`, and `sampled_split_points` cuts
/// it into regions of about as many rows; a salted one (ByGuid) keeps its
/// buckets. Sampled from the table or from the records, the same points.
#[test]
fn sampled_split_points_cut_an_unsalted_family_where_its_rows_fall() {
    let db = redb_db();
    let t = table(rowkey_core::redb::IndexStore::new(&db, "logs"));
    let mut rng = Rng(5);
    let rows: Vec<(LogKey, Log)> = (0..4_000).map(|id| (LogKey { id }, rng.log())).collect();
    t.put_many(&rows).unwrap();
    let warnings = t.check();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings
        .iter()
        .any(|w| w.contains("`ByCode`") && w.contains("sampled_split_points")));
    let plain = t.split_points();
    let sampled = t.sampled_split_points(4).unwrap();
    assert!(plain.iter().all(|p| sampled.contains(p)), "{sampled:?}");
    let added: Vec<&Vec<u8>> = sampled.iter().filter(|p| !plain.contains(p)).collect();
    let within = |prefix: &[u8]| added.iter().filter(|p| p.starts_with(prefix)).count();
    assert_eq!(
        (within(b"D"), within(b"I2"), within(b"I1")),
        (3, 3, 0),
        "{added:?}"
    );
    // Each of ByCode's four regions holds about a quarter of its rows.
    let entries = t.store().scan(b"I2", b"I3", None, usize::MAX).unwrap().rows;
    let cuts: Vec<&Vec<u8>> = added
        .iter()
        .copied()
        .filter(|p| p.starts_with(b"I2"))
        .collect();
    let mut counts = [0usize; 4];
    for (key, _) in &entries {
        counts[cuts.iter().filter(|c| key >= **c).count()] += 1;
    }
    for n in counts {
        let share = n as f64 / entries.len() as f64;
        assert!((0.2..0.3).contains(&share), "{counts:?}");
    }
    let from_records = t
        .split_points_from(rows.iter().map(|(k, r)| (k, r)), 4)
        .unwrap();
    assert_eq!(from_records, sampled);
    assert_eq!(t.sampled_split_points(1).unwrap(), plain);
}

/// A redb store that says its rows are cut at every 7th key, as HBase's
/// regions cut a table (`Store::split_hints`).
struct Hinted<'a>(
    rowkey_core::redb::IndexStore<'a>,
    std::sync::atomic::AtomicUsize,
);

impl Store for Hinted<'_> {
    type Error = redb::Error;

    fn scan(
        &self,
        from: &[u8],
        stop: &[u8],
        filter: Option<&rowkey_core::KeyFilter>,
        limit: usize,
    ) -> Result<rowkey_core::index::Page, Self::Error> {
        self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.0.scan(from, stop, filter, limit)
    }

    fn get_many(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, Self::Error> {
        self.0.get_many(keys)
    }

    fn split_hints(&self, from: &[u8], stop: &[u8]) -> Result<Vec<Vec<u8>>, Self::Error> {
        let rows = self.0.scan(from, stop, None, usize::MAX)?.rows;
        self.1.store(0, std::sync::atomic::Ordering::Relaxed);
        Ok(rows
            .into_iter()
            .step_by(7)
            .skip(1)
            .map(|(k, _)| k)
            .collect())
    }

    fn write<R, E: From<Self::Error>>(
        &self,
        steps: impl FnOnce(&mut dyn rowkey_core::index::StoreTx<Error = Self::Error>) -> Result<R, E>,
    ) -> Result<R, E> {
        self.0.write(steps)
    }
}
