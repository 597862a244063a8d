//! Moving a table to another key layout (`rowkey_core::migrate`) on redb
//! and fjall: a salt of 10 buckets (`mod`) to 32 with the timestamp turned
//! `desc_ts` while a writer thread keeps writing and deleting through
//! `MigratingTable`; a copy stopped half-way and resumed; a field added in
//! the middle (`set`) and a mapped move; planted differences found and
//! named by `verify`; the migrations refused when they are built.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use redb::backends::InMemoryBackend;
use redb::{Database, ReadableDatabase, TableDefinition};
use rowkey_core::migrate::{MigrateError, Migration, Phase, PAGE_ROWS};
use rowkey_core::prelude::*;
use rowkey_core::{DynLayout, Value};

const OLD: &str = "[salt(user_id)/10 mod][user_id u64][ts i64]";
const NEW: &str = "[salt(user_id)/32][user_id u64][ts desc_ts i64]";

type Rows<'a> = TableDefinition<'a, &'static [u8], &'static [u8]>;

fn layouts() -> (DynLayout, DynLayout) {
    (
        DynLayout::parse(OLD).unwrap(),
        DynLayout::parse(NEW).unwrap(),
    )
}

fn memory() -> Database {
    Database::builder()
        .create_with_backend(InMemoryBackend::new())
        .unwrap()
}

fn key(layout: &DynLayout, user: u64, ts: i64) -> Vec<u8> {
    layout.encode(&[user.into(), ts.into()]).unwrap()
}

/// `n` rows of users 0..50, values naming the row.
fn fill_redb(db: &Database, table: &str, old: &DynLayout, n: u64) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut model = BTreeMap::new();
    let tx = db.begin_write().unwrap();
    {
        let mut t = tx.open_table(Rows::new(table)).unwrap();
        for i in 0..n {
            let k = key(old, i % 50, i as i64 * 7);
            let v = format!("row {i}").into_bytes();
            t.insert(k.as_slice(), v.as_slice()).unwrap();
            model.insert(k, v);
        }
    }
    tx.commit().unwrap();
    model
}

fn redb_rows(db: &Database, table: &str) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let tx = db.begin_read().unwrap();
    let t = tx.open_table(Rows::new(table)).unwrap();
    redb::ReadableTable::iter(&t)
        .unwrap()
        .map(|r| {
            let (k, v) = r.unwrap();
            (k.value().to_vec(), v.value().to_vec())
        })
        .collect()
}

/// The model's rows under their new keys.
fn rekeyed(model: &BTreeMap<Vec<u8>, Vec<u8>>, m: &Migration) -> BTreeMap<Vec<u8>, Vec<u8>> {
    model
        .iter()
        .map(|(k, v)| (m.rekey(k).unwrap(), v.clone()))
        .collect()
}

/// The issue's move on redb: 12,000 rows (6 pages of the copy) while a
/// writer puts and deletes rows of every bucket through the migrating
/// table, old keys during the copy and both after; at the end every row
/// the model holds reads back through the new key and `verify` is clean.
#[test]
fn redb_salt_change_under_writes() {
    let (old, new) = layouts();
    let db = memory();
    let model = fill_redb(&db, "events", &old, 12_000);
    let migration = Migration::new(old.layout(), new.layout()).unwrap();
    let table = rowkey_core::redb::MigratingTable::new(&db, "events", "events_v2", &migration);
    let (started, done) = (AtomicBool::new(false), AtomicBool::new(false));
    let model = std::thread::scope(|s| {
        let writer = s.spawn(|| {
            let mut model = model;
            let mut i: u64 = 0;
            // Until the copy is over, and as many writes again after.
            let mut after = None;
            while after.is_none_or(|n| i < n) {
                if after.is_none() && done.load(Ordering::Acquire) {
                    after = Some(2 * i.max(1));
                }
                let user = (i * 7919) % 60; // users 50..59 are new rows
                let k = key(&old, user, (i % 40) as i64 * 7);
                if i % 3 == 0 {
                    table.delete(&k).unwrap();
                    model.remove(&k);
                } else {
                    let v = format!("write {i}").into_bytes();
                    table.put(&k, &v).unwrap();
                    model.insert(k, v);
                }
                i += 1;
                started.store(true, Ordering::Release);
            }
            model
        });
        while !started.load(Ordering::Acquire) {
            std::thread::yield_now();
        }
        let report = rowkey_core::redb::migrate(&db, "events", "events_v2", &migration).unwrap();
        assert_eq!(report.parts, 10, "one part per old bucket");
        assert!(report.rows_read >= 12_000 - 12_000 / 3, "{report}");
        done.store(true, Ordering::Release);
        writer.join().unwrap()
    });
    table.set_phase(Phase::Cutover);
    for (k, v) in &model {
        assert_eq!(table.get(k).unwrap().as_deref(), Some(v.as_slice()));
    }
    assert_eq!(redb_rows(&db, "events_v2"), rekeyed(&model, &migration));
    let report = rowkey_core::redb::verify(&db, "events", "events_v2", &migration).unwrap();
    assert!(report.is_clean(), "{report}");
    assert_eq!(report.rows_old, model.len() as u64);
    assert_eq!(report.rows_new, model.len() as u64);

    // Done: the old table is no longer written.
    table.set_phase(Phase::Done);
    let k = key(&old, 99, 1);
    table.put(&k, b"late").unwrap();
    assert_eq!(table.get(&k).unwrap().as_deref(), Some(&b"late"[..]));
    assert!(!redb_rows(&db, "events").contains_key(&k));
}

/// The same move with the writes placed between the copy's pages, not
/// left to the scheduler: the copy stopped half-way (by a mapping that
/// refuses one row), then puts and deletes of rows in parts already
/// copied, in the part under way (before and after its checkpoint) and
/// in parts not yet read, then the copy resumed: the new table is the
/// model's rows, none lost to the copy and none brought back by it.
#[test]
fn writes_between_pages() {
    let (old, new) = layouts();
    let db = memory();
    let mut model = fill_redb(&db, "events", &old, 30_000);
    let migration = Migration::new(old.layout(), new.layout()).unwrap();
    let stop_at = [Value::U64(45), Value::I64(545 * 7)];
    let stopping = Migration::new(old.layout(), new.layout())
        .unwrap()
        .map(move |v: &[Value]| {
            if v == stop_at {
                return Err("stop here".into());
            }
            Ok(v.to_vec())
        });
    let table = rowkey_core::redb::MigratingTable::new(&db, "events", "events_v2", &migration);
    assert!(rowkey_core::redb::migrate(&db, "events", "events_v2", &stopping).is_err());
    // Users 0 and 10 (bucket 0, copied), 5 (bucket 5, in its committed
    // first page) and 45 (bucket 5, after the checkpoint), 9 (bucket 9,
    // not started): a row of each replaced, one deleted, one added.
    for user in [0u64, 10, 5, 45, 9] {
        let replaced = key(&old, user, (user as i64 + 50 * 3) * 7);
        let deleted = key(&old, user, (user as i64 + 50 * 4) * 7);
        let added = key(&old, user, -1);
        for k in [&replaced, &deleted] {
            assert!(model.contains_key(k), "user {user}: a row of the table");
        }
        table.put(&replaced, b"replaced").unwrap();
        model.insert(replaced, b"replaced".to_vec());
        table.delete(&deleted).unwrap();
        model.remove(&deleted);
        table.put(&added, b"added").unwrap();
        model.insert(added, b"added".to_vec());
    }
    let report = rowkey_core::redb::migrate(&db, "events", "events_v2", &migration).unwrap();
    assert_eq!(
        (report.parts_skipped, report.parts_resumed),
        (5, 1),
        "{report}"
    );
    assert_eq!(redb_rows(&db, "events_v2"), rekeyed(&model, &migration));
    assert!(
        rowkey_core::redb::verify(&db, "events", "events_v2", &migration)
            .unwrap()
            .is_clean()
    );
}

/// Planted differences: a value changed, a row removed and a row added in
/// the new table are each counted and named, decoded.
#[test]
fn verify_names_what_differs() {
    let (old, new) = layouts();
    let db = memory();
    fill_redb(&db, "events", &old, 3_000);
    let migration = Migration::new(old.layout(), new.layout()).unwrap();
    rowkey_core::redb::migrate(&db, "events", "events_v2", &migration).unwrap();
    let tx = db.begin_write().unwrap();
    {
        let mut t = tx.open_table(Rows::new("events_v2")).unwrap();
        let changed = new.encode(&[3u64.into(), 21i64.into()]).unwrap();
        assert!(t
            .insert(changed.as_slice(), &b"tampered"[..])
            .unwrap()
            .is_some());
        let gone = new.encode(&[4u64.into(), 28i64.into()]).unwrap();
        assert!(t.remove(gone.as_slice()).unwrap().is_some());
        let extra = new.encode(&[77u64.into(), 5i64.into()]).unwrap();
        t.insert(extra.as_slice(), &b"stray"[..]).unwrap();
    }
    tx.commit().unwrap();
    let report = rowkey_core::redb::verify(&db, "events", "events_v2", &migration).unwrap();
    assert_eq!((report.rows_old, report.rows_new), (3_000, 3_000));
    assert_eq!(
        (report.missing, report.extra, report.differing),
        (1, 1, 1),
        "{report}"
    );
    assert_eq!(report.examples.differing, ["(user_id=3, ts=21)"]);
    assert_eq!(report.examples.missing, ["(user_id=4, ts=28)"]);
    assert_eq!(report.examples.extra, ["(user_id=77, ts=5)"]);
    assert!(report.to_string().contains("differing (user_id=3, ts=21)"));
}

/// A copy stopped by a failing row half-way resumes where it was: the
/// done parts skipped (counted), no row written twice, the same table as
/// one straight copy.
#[test]
fn stopped_copy_resumes() {
    let (old, new) = layouts();
    let db = memory();
    let model = fill_redb(&db, "events", &old, 30_000);
    // Each old bucket holds 3,000 rows (users 5, 15, 25, 35 and 45 in
    // bucket 5, sorted by user then ts): 2 pages. The copy fails on a row
    // of user 45 in bucket 5's second page, its first page committed.
    let poisoned = Migration::new(old.layout(), new.layout())
        .unwrap()
        .map(|v: &[Value]| {
            if v == [Value::U64(45), Value::I64(545 * 7)] {
                return Err("poisoned row".into());
            }
            Ok(v.to_vec())
        });
    let err = rowkey_core::redb::migrate(&db, "events", "events_v2", &poisoned).unwrap_err();
    assert!(matches!(err, MigrateError::Rekey { .. }), "{err}");
    assert_eq!(
        std::error::Error::source(&err).unwrap().to_string(),
        "poisoned row"
    );
    let first = redb_rows(&db, "events_v2").len() as u64;
    assert_eq!(
        first,
        5 * 3_000 + PAGE_ROWS as u64,
        "buckets 0 to 4 and a page of 5"
    );

    let migration = Migration::new(old.layout(), new.layout()).unwrap();
    let report = rowkey_core::redb::migrate(&db, "events", "events_v2", &migration).unwrap();
    assert_eq!(
        report.parts_skipped, 5,
        "buckets 0 to 4 were done: {report}"
    );
    assert_eq!(report.parts_resumed, 1, "bucket 5 was under way: {report}");
    assert_eq!(first + report.rows_written, 30_000, "no row copied twice");
    assert_eq!(redb_rows(&db, "events_v2"), rekeyed(&model, &migration));
    // A third run finds everything done.
    let again = rowkey_core::redb::migrate(&db, "events", "events_v2", &migration).unwrap();
    assert_eq!((again.parts_skipped, again.rows_read), (10, 0));

    // Another migration into the same table is refused by its checkpoint.
    let other = DynLayout::parse("[user_id u64][ts i64]").unwrap();
    let wrong = Migration::new(old.layout(), other.layout()).unwrap();
    let err = rowkey_core::redb::migrate(&db, "events", "events_v2", &wrong).unwrap_err();
    assert!(
        err.to_string().starts_with(
            "the checkpoint of table `events_v2`: it belongs to a migration between other layouts"
        ),
        "{err}"
    );
}

/// A field added in the middle (`set`) and a mapped move on redb, a
/// mapped move on fjall (text digits to binary, a field renamed), all
/// verified; a planted difference on fjall found.
#[test]
fn set_and_map_on_both_stores() {
    let (old, _) = layouts();
    let db = memory();
    let model = fill_redb(&db, "events", &old, 2 * PAGE_ROWS as u64 + 1);
    let middle = DynLayout::parse("[salt(user_id)/8][user_id u64][region u8][ts i64]").unwrap();
    let migration = Migration::new(old.layout(), middle.layout()).unwrap();
    let err = rowkey_core::redb::migrate(&db, "events", "events_v3", &migration).unwrap_err();
    assert_eq!(
        err.to_string(),
        "field `region` of the new layout has no value: give it one with Migration::set, or map the old values with Migration::mapped"
    );
    let tx = db.begin_read().unwrap();
    assert!(
        tx.open_table(Rows::new("events_v3")).is_err(),
        "nothing written before the check"
    );
    drop(tx);
    let migration = migration.set("region", 7u8);
    let report = rowkey_core::redb::migrate(&db, "events", "events_v3", &migration).unwrap();
    assert_eq!(report.rows_written, model.len() as u64);
    let copied = redb_rows(&db, "events_v3");
    let (k, _) = copied.first_key_value().unwrap();
    assert_eq!(middle.decode(k).unwrap()[1], Value::U8(7));
    assert!(
        rowkey_core::redb::verify(&db, "events", "events_v3", &migration)
            .unwrap()
            .is_clean()
    );

    // redb, mapped: a field computed from the old values, placed first.
    let by_region = DynLayout::parse("[salt(user_id)/8][region u8][user_id u64][ts i64]").unwrap();
    let mapped = Migration::mapped(old.layout(), by_region.layout(), |v: &[Value]| {
        let Value::U64(user) = v[0] else {
            return Err("user_id is not a u64".into());
        };
        Ok(vec![
            Value::U8((user % 4) as u8),
            v[0].clone(),
            v[1].clone(),
        ])
    })
    .unwrap();
    let report = rowkey_core::redb::migrate(&db, "events", "events_v4", &mapped).unwrap();
    assert_eq!(report.rows_written, model.len() as u64);
    let clean = rowkey_core::redb::verify(&db, "events", "events_v4", &mapped).unwrap();
    assert!(clean.is_clean(), "{clean}");
    let k = by_region
        .encode(&[1u8.into(), 13u64.into(), 91i64.into()])
        .unwrap();
    assert_eq!(
        redb_rows(&db, "events_v4").get(&k),
        model.get(&key(&old, 13, 91))
    );
    assert!(model.contains_key(&key(&old, 13, 91)));

    // fjall: a text key of digits to a binary key with the field renamed.
    let dir = tempfile::tempdir().unwrap();
    let fj = fjall::SingleWriterTxDatabase::builder(dir.path())
        .open()
        .unwrap();
    let text = DynLayout::parse(r#"text("_") [host digits(4) u32][ts digits(13) i64]"#).unwrap();
    let binary = DynLayout::parse("[host_id u32][ts i64]").unwrap();
    let ks = fj
        .keyspace("hosts", fjall::KeyspaceCreateOptions::default)
        .unwrap();
    for i in 0..2_500u32 {
        let k = text
            .encode(&[(i % 97).into(), i64::from(i).into()])
            .unwrap();
        ks.insert(k, format!("v{i}")).unwrap();
    }
    let mapped =
        Migration::mapped(text.layout(), binary.layout(), |v: &[Value]| Ok(v.to_vec())).unwrap();
    let report = rowkey_core::fjall::migrate(&fj, "hosts", "hosts_v2", &mapped).unwrap();
    assert_eq!((report.rows_written, report.parts), (2_500, 1));
    let clean = rowkey_core::fjall::verify(&fj, "hosts", "hosts_v2", &mapped).unwrap();
    assert!(clean.is_clean(), "{clean}");
    assert_eq!(clean.rows_new, 2_500);
    let v2 = fj
        .keyspace("hosts_v2", fjall::KeyspaceCreateOptions::default)
        .unwrap();
    let k = binary.encode(&[11u32.into(), 205i64.into()]).unwrap();
    assert_eq!(v2.get(&k).unwrap().as_deref(), Some(&b"v205"[..]));
    v2.insert(k, "changed").unwrap();
    let found = rowkey_core::fjall::verify(&fj, "hosts", "hosts_v2", &mapped).unwrap();
    assert_eq!((found.missing, found.extra, found.differing), (0, 0, 1));
    assert_eq!(found.examples.differing, ["(host_id=11, ts=205)"]);
}

/// fjall's migrating table under a concurrent writer, with derived keys
/// and a typed migration.
#[test]
fn fjall_typed_move_under_writes() {
    #[derive(RowKey, Debug, PartialEq)]
    #[salt(buckets = 10, by(user), hash = "mod")]
    struct Old {
        user: u64,
        ts: i64,
    }
    #[derive(RowKey, Debug, PartialEq)]
    #[salt(buckets = 32, by(user))]
    struct New {
        user: u64,
        #[desc_ts]
        ts: i64,
    }
    let dir = tempfile::tempdir().unwrap();
    let db = fjall::SingleWriterTxDatabase::builder(dir.path())
        .open()
        .unwrap();
    let ks = db
        .keyspace("events", fjall::KeyspaceCreateOptions::default)
        .unwrap();
    let mut model = BTreeMap::new();
    for i in 0..6_000u64 {
        let k = Old {
            user: i % 40,
            ts: i as i64,
        }
        .encode_to_vec()
        .unwrap();
        ks.insert(k.clone(), i.to_be_bytes()).unwrap();
        model.insert(k, i.to_be_bytes().to_vec());
    }
    let migration = Migration::typed(|o: Old| New {
        user: o.user,
        ts: o.ts,
    })
    .unwrap();
    let table =
        rowkey_core::fjall::MigratingTable::new(&db, "events", "events_v2", &migration).unwrap();
    let done = AtomicBool::new(false);
    let model = std::thread::scope(|s| {
        let writer = s.spawn(|| {
            let mut model = model;
            let mut i = 0u64;
            while !done.load(Ordering::Acquire) || i < 500 {
                let k = Old {
                    user: i % 45,
                    ts: (i % 200) as i64,
                };
                let bytes = k.encode_to_vec().unwrap();
                if i % 4 == 0 {
                    table.remove(&k).unwrap();
                    model.remove(&bytes);
                } else {
                    table.insert(&k, b"new").unwrap();
                    model.insert(bytes, b"new".to_vec());
                }
                i += 1;
            }
            model
        });
        rowkey_core::fjall::migrate(&db, "events", "events_v2", &migration).unwrap();
        done.store(true, Ordering::Release);
        writer.join().unwrap()
    });
    table.set_phase(Phase::Cutover);
    for (k, v) in &model {
        assert_eq!(table.get(k).unwrap().as_deref(), Some(v.as_slice()));
    }
    let report = rowkey_core::fjall::verify(&db, "events", "events_v2", &migration).unwrap();
    assert!(report.is_clean(), "{report}");
    assert_eq!(report.rows_new, model.len() as u64);
    // A key of another layout is refused by the typed calls.
    let err = table.insert(&New { user: 1, ts: 1 }, b"x").unwrap_err();
    assert!(matches!(err, MigrateError::OtherLayout { .. }), "{err}");
}

/// What a migration refuses when it is built, and a missing old table.
#[test]
fn refused_migrations() {
    let old = DynLayout::parse("[user u32][ts i64][kind String]").unwrap();
    let fewer = DynLayout::parse("[user u32][ts i64]").unwrap();
    let err = Migration::new(old.layout(), fewer.layout()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "field `kind` of the old layout is not in the new one: map the old values with Migration::mapped to drop it"
    );
    let retyped = DynLayout::parse("[user u32][ts i64][kind u8]").unwrap();
    let err = Migration::new(old.layout(), retyped.layout()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "field `kind` changes type from String to u8: map the old values with Migration::mapped"
    );
    let narrowed = DynLayout::parse("[user u16][ts i64][kind String]").unwrap();
    assert!(matches!(
        Migration::new(old.layout(), narrowed.layout()),
        Err(MigrateError::TypeChanged { field: "user", .. })
    ));
    // Widened integers are carried.
    let widened = DynLayout::parse("[user i64][ts i128][kind String]").unwrap();
    let m = Migration::new(old.layout(), widened.layout()).unwrap();
    let k = m
        .rekey(
            &old.encode(&[7u32.into(), (-3i64).into(), "a".into()])
                .unwrap(),
        )
        .unwrap();
    assert_eq!(
        widened.decode(&k).unwrap(),
        [Value::I64(7), Value::I128(-3), Value::from("a")]
    );

    let bad_set = Migration::new(old.layout(), widened.layout())
        .unwrap()
        .set("user", 1i64);
    assert_eq!(
        bad_set.check().unwrap_err().to_string(),
        "Migration::set(\"user\"): the old layout gives its values (a constant would make its rows one)"
    );
    let unknown = Migration::new(old.layout(), widened.layout())
        .unwrap()
        .set("region", 1u8);
    assert!(unknown
        .check()
        .unwrap_err()
        .to_string()
        .contains("the new layout has no such field"));

    let family = DynLayout::parse(r#"A: [prefix "a"][id u32] | B: [prefix "b"][id u32]"#).unwrap();
    assert!(matches!(
        Migration::new(family.layout(), old.layout()),
        Err(MigrateError::Family { side: "old", .. })
    ));

    let db = memory();
    let m = Migration::new(old.layout(), old.layout()).unwrap();
    let err = rowkey_core::redb::migrate(&db, "nothing", "nothing_v2", &m).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("open of table `nothing` failed"),
        "{err}"
    );
    let tx = db.begin_read().unwrap();
    assert!(
        tx.list_tables().unwrap().next().is_none(),
        "no table created"
    );
}

mod indexed {
    //! An indexed table (data rows and their index's rows in one redb
    //! table) moved to a new data key while a writer puts, re-homes and
    //! deletes orders through `MigratingIndexedTable`: the copy takes the
    //! data rows only, the new index is backfilled, and the data rows
    //! verify clean, the index verifies clean and answers as a model.

    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicBool, Ordering};

    use rowkey_core::index::{Index, IndexedTable, Record};
    use rowkey_core::migrate::{MigratingIndexedTable, Migration, Phase};
    use rowkey_core::prelude::*;
    use rowkey_core::redb::IndexStore;

    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(prefix = "D")]
    #[salt(buckets = 4, by(id), hash = "mod")]
    struct OldOrder {
        id: u64,
    }

    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(prefix = "D")]
    #[salt(buckets = 16, by(id))]
    struct NewOrder {
        id: u64,
    }

    #[derive(Debug, Clone, PartialEq)]
    struct Order {
        customer: String,
        total: u32,
    }

    impl Record for Order {
        fn to_value(&self) -> Vec<u8> {
            let mut v = self.total.to_be_bytes().to_vec();
            v.extend_from_slice(self.customer.as_bytes());
            v
        }
        fn from_value(bytes: &[u8]) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
            let (total, customer) = bytes.split_at_checked(4).ok_or("short record")?;
            Ok(Order {
                customer: String::from_utf8(customer.to_vec())?,
                total: u32::from_be_bytes(total.try_into()?),
            })
        }
    }

    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(prefix = "I")]
    struct OldByCustomer {
        customer: String,
        order: OldOrder,
    }

    impl Index for OldByCustomer {
        type Data = OldOrder;
        type Record = Order;
        fn entries(key: &OldOrder, r: &Order) -> impl IntoIterator<Item = Self> {
            [OldByCustomer {
                customer: r.customer.clone(),
                order: key.clone(),
            }]
        }
        fn data_key(&self) -> OldOrder {
            self.order.clone()
        }
    }

    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(prefix = "I")]
    struct NewByCustomer {
        customer: String,
        order: NewOrder,
    }

    impl Index for NewByCustomer {
        type Data = NewOrder;
        type Record = Order;
        fn entries(key: &NewOrder, r: &Order) -> impl IntoIterator<Item = Self> {
            [NewByCustomer {
                customer: r.customer.clone(),
                order: key.clone(),
            }]
        }
        fn data_key(&self) -> NewOrder {
            self.order.clone()
        }
    }

    fn order(i: u64) -> Order {
        Order {
            customer: format!("c{}", i % 30),
            total: i as u32,
        }
    }

    #[test]
    fn an_indexed_table_moves_with_its_index_under_writes() {
        let db = redb::Database::builder()
            .create_with_backend(redb::backends::InMemoryBackend::new())
            .unwrap();
        let old = IndexedTable::new(IndexStore::new(&db, "orders")).with_index::<OldByCustomer>();
        let mut model: BTreeMap<u64, Order> = BTreeMap::new();
        for i in 0..5_000u64 {
            old.put(&OldOrder { id: i }, &order(i)).unwrap();
            model.insert(i, order(i));
        }
        let migration = Migration::typed(|o: OldOrder| NewOrder { id: o.id }).unwrap();
        let new =
            IndexedTable::new(IndexStore::new(&db, "orders_v2")).with_index::<NewByCustomer>();
        let table = MigratingIndexedTable::new(old, new, &migration).unwrap();
        let done = AtomicBool::new(false);
        let model = std::thread::scope(|s| {
            let writer = s.spawn(|| {
                let mut model = model;
                let mut i = 0u64;
                while !done.load(Ordering::Acquire) || i < 600 {
                    let id = (i * 7_919) % 6_000;
                    match i % 3 {
                        0 => {
                            table.delete(&OldOrder { id }).unwrap();
                            model.remove(&id);
                        }
                        _ => {
                            // A new order, or one moved to another customer.
                            let r = Order {
                                customer: format!("moved{}", i % 5),
                                total: i as u32,
                            };
                            table.put(&OldOrder { id }, &r).unwrap();
                            model.insert(id, r);
                        }
                    }
                    i += 1;
                }
                model
            });
            let report = rowkey_core::redb::migrate(&db, "orders", "orders_v2", &migration);
            done.store(true, Ordering::Release);
            let model = writer.join().unwrap();
            let report = report.unwrap();
            assert!(report.rows_read >= 4_000, "the data rows only: {report}");
            assert!(report.rows_read <= 6_000, "no index row copied: {report}");
            model
        });
        let backfill = table
            .new_table()
            .backfill::<NewByCustomer>()
            .unwrap()
            .run()
            .unwrap();
        assert!(backfill.complete && backfill.entries > 0, "{backfill:?}");
        let data = rowkey_core::redb::verify(&db, "orders", "orders_v2", &migration).unwrap();
        assert!(data.is_clean(), "{data}");
        assert_eq!(data.rows_new, model.len() as u64);
        let index = table.new_table().verify::<NewByCustomer>().unwrap();
        assert!(index.is_clean(), "{index:?}");
        assert_eq!(index.valid, model.len() as u64);

        table.set_phase(Phase::Cutover);
        for customer in ["c3", "moved2"] {
            let filter = NewByCustomer::filter().customer(customer).build().unwrap();
            let mut got: Vec<u64> = table
                .new_table()
                .query::<NewByCustomer>(&filter)
                .unwrap()
                .map(|hit| hit.map(|(k, _)| k.id))
                .collect::<Result<_, _>>()
                .unwrap();
            got.sort_unstable();
            let want: Vec<u64> = model
                .iter()
                .filter(|(_, r)| r.customer == customer)
                .map(|(id, _)| *id)
                .collect();
            assert!(!want.is_empty());
            assert_eq!(got, want, "{customer}");
        }
        let (id, r) = model.iter().next().unwrap();
        assert_eq!(table.get(&OldOrder { id: *id }).unwrap().as_ref(), Some(r));
    }
}
