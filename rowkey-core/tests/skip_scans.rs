//! Skip scans on the typed tables (`filter` on redb and fjall): they return
//! exactly the rows the filter matches, in key order with salt buckets
//! merged, and read few rows: for the per-user, newest-first events key
//! (`[salt(user)/16][user][MAX - ts]`), all events of one minute of 2,000
//! users × 50 events read at most 3 × (rows returned + users) rows, where
//! a full scan reads all 100,000.

use chrono::{DateTime, Utc};
use proptest::prelude::*;
use redb::backends::InMemoryBackend;
use redb::{Database, ReadableDatabase};
use rowkey_core::prelude::*;
use rowkey_core::redb::KeyTableDefinition;
use rowkey_core::{any_of, KeyFilter};
use uuid::Uuid;

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 16, by(user_id))]
struct UserNewest {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
}

const EVENTS: KeyTableDefinition<UserNewest, u32> = KeyTableDefinition::new("events");

/// 2,000 users, 50 events each, one every 7 seconds from a start that
/// depends on the user (so the minute's events differ per user).
fn events() -> Vec<UserNewest> {
    let t0 = 1_700_000_000_000i64;
    let mut rows = Vec::new();
    for user_id in 0..2_000u64 {
        let start = t0 + (user_id as i64 % 97) * 3_000;
        for i in 0..50 {
            rows.push(UserNewest {
                user_id,
                ts_millis: start + i * 7_000,
            });
        }
    }
    rows
}

/// The rows a filter must return, in key order: the matching keys, sorted
/// as merged buckets are (by the key after the salt byte).
fn model<K: RowKey>(rows: &[K], filter: &KeyFilter, head: usize) -> Vec<Vec<u8>> {
    let mut keys: Vec<Vec<u8>> = rows
        .iter()
        .map(|r| r.encode_to_vec().unwrap())
        .filter(|k| filter.matches(k))
        .collect();
    keys.sort_by(|a, b| a[head..].cmp(&b[head..]));
    // A table holds one row per key.
    keys.dedup();
    keys
}

fn redb_with(rows: &[UserNewest]) -> Database {
    let db = Database::builder()
        .create_with_backend(InMemoryBackend::new())
        .unwrap();
    let tx = db.begin_write().unwrap();
    {
        let mut t = EVENTS.open(&tx).unwrap();
        for (i, r) in rows.iter().enumerate() {
            t.insert(r, i as u32).unwrap();
        }
    }
    tx.commit().unwrap();
    db
}

fn fjall_with(
    rows: &[UserNewest],
) -> (tempfile::TempDir, rowkey_core::fjall::KeyTable<UserNewest>) {
    let dir = tempfile::tempdir().unwrap();
    let db = fjall::Database::builder(dir.path()).open().unwrap();
    let ks = db
        .keyspace("events", fjall::KeyspaceCreateOptions::default)
        .unwrap();
    let t = rowkey_core::fjall::KeyTable::new(ks);
    for r in rows {
        t.insert(r, *b"").unwrap();
    }
    (dir, t)
}

#[test]
fn last_minute_of_every_user_reads_a_few_rows_per_user() {
    let rows = events();
    let t0 = 1_700_000_000_000i64;
    let minute = t0 + 150_000..t0 + 210_000;
    let filter = UserNewest::filter()
        .ts_millis(minute.clone())
        .build()
        .unwrap();
    let want = model(&rows, &filter, 1);
    assert!(want.len() > 2_000, "{} rows in the minute", want.len());
    let users = 2_000u64;

    let db = redb_with(&rows);
    let tx = db.begin_read().unwrap();
    let table = EVENTS.open_read(&tx).unwrap();
    let got = table.filter(&filter).unwrap();
    let cost = got.cost().clone();
    let got: Vec<Vec<u8>> = got.map(|r| r.unwrap().0.encode_to_vec().unwrap()).collect();
    assert_eq!(got, want, "redb: the minute's rows in key order");
    let (read, seeks) = (cost.rows_read(), cost.seeks());
    println!(
        "redb: {} rows returned, {read} read, {seeks} seeks",
        got.len()
    );
    assert!(
        read <= 3 * (got.len() as u64 + users),
        "redb read {read} rows for {}",
        got.len()
    );
    // A full scan reads every row.
    assert_eq!(
        table.scan(&UserNewest::scan_all()).unwrap().count(),
        rows.len()
    );

    let (_dir, table) = fjall_with(&rows);
    let got = table.filter(&filter).unwrap();
    let cost = got.cost().clone();
    let got: Vec<Vec<u8>> = got.map(|r| r.unwrap().0.encode_to_vec().unwrap()).collect();
    assert_eq!(got, want, "fjall: the minute's rows in key order");
    let read = cost.rows_read();
    println!(
        "fjall: {} rows returned, {read} read, {} seeks",
        got.len(),
        cost.seeks()
    );
    assert!(
        read <= 3 * (got.len() as u64 + users),
        "fjall read {read} rows for {}",
        got.len()
    );
}

#[test]
fn a_filter_for_another_layout_is_an_error() {
    let db = redb_with(&events()[..10]);
    let tx = db.begin_read().unwrap();
    let table = EVENTS.open_read(&tx).unwrap();
    let other = Visit::filter().page("a").build().unwrap();
    let err = table.filter(&other).err().expect("another layout");
    assert_eq!(
        err.to_string(),
        "the filter is for keys of `Visit`, the table's keys are `UserNewest` (another layout)"
    );
    let (_dir, table) = fjall_with(&events()[..10]);
    assert!(table.filter(&other).is_err());
}

#[test]
fn one_user_is_one_bucket_and_one_range() {
    let rows = events();
    let filter = UserNewest::filter()
        .user_id(any_of([7, 1_999]))
        .build()
        .unwrap();
    let db = redb_with(&rows);
    let tx = db.begin_read().unwrap();
    let table = EVENTS.open_read(&tx).unwrap();
    let got: Vec<u64> = table
        .filter(&filter)
        .unwrap()
        .map(|r| r.unwrap().0.user_id)
        .collect();
    assert_eq!(got.len(), 100);
    assert!(got[..50].iter().all(|&u| u == 7) && got[50..].iter().all(|&u| u == 1_999));
    let filter = UserNewest::filter().user_id(7).build().unwrap();
    let rows_of_7 = table.filter(&filter).unwrap();
    let cost = rows_of_7.cost().clone();
    assert_eq!(rows_of_7.count(), 50);
    // The scan is the user's own range: no row of another user is read.
    assert_eq!((cost.rows_read(), cost.seeks()), (50, 0));
}

// Random rows and filters on a salted key with ecosystem types.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 4, by(tenant))]
struct Visit {
    tenant: Uuid,
    #[desc_ts]
    at: DateTime<Utc>,
    page: String,
}

const VISITS: KeyTableDefinition<Visit, u32> = KeyTableDefinition::new("visits");

fn visit() -> impl Strategy<Value = Visit> {
    (
        0..4u128,
        -3..4i64,
        proptest::sample::select(vec!["", "a", "a\0", "b"]),
    )
        .prop_map(|(t, ms, p)| Visit {
            tenant: Uuid::from_u128(t),
            at: DateTime::from_timestamp_millis(ms).unwrap(),
            page: p.to_owned(),
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn random_filters_return_the_model_on_both_stores(
        rows in proptest::collection::vec(visit(), 0..80),
        tenants in proptest::option::of(proptest::collection::vec(0..4u128, 0..3)),
        window in proptest::option::of((-3..4i64, 0..4i64)),
        page in proptest::option::of(proptest::sample::select(vec!["", "a", "a\0", "b"])),
    ) {
        let mut b = Visit::filter();
        if let Some(ts) = &tenants {
            b = b.tenant(any_of(ts.iter().map(|&t| Uuid::from_u128(t)).collect::<Vec<_>>()));
        }
        if let Some((from, len)) = window {
            let ms = |m| DateTime::from_timestamp_millis(m).unwrap();
            b = b.at(ms(from)..ms(from + len));
        }
        if let Some(p) = page {
            b = b.page(p);
        }
        let filter = b.build().unwrap();
        let want = model(&rows, &filter, 1);

        let db = Database::builder().create_with_backend(InMemoryBackend::new()).unwrap();
        let tx = db.begin_write().unwrap();
        {
            let mut t = VISITS.open(&tx).unwrap();
            for r in &rows {
                t.insert(r, 0).unwrap();
            }
        }
        tx.commit().unwrap();
        let tx = db.begin_read().unwrap();
        let table = VISITS.open_read(&tx).unwrap();
        let got: Vec<Vec<u8>> = table.filter(&filter).unwrap().map(|r| r.unwrap().0.encode_to_vec().unwrap()).collect();
        prop_assert_eq!(&got, &want);
        // The same rows through `fold` (the merge's own loop).
        let mut folded = Vec::new();
        table.filter(&filter).unwrap().for_each(|r| folded.push(r.unwrap().0.encode_to_vec().unwrap()));
        prop_assert_eq!(&folded, &want);

        let dir = tempfile::tempdir().unwrap();
        let fdb = fjall::Database::builder(dir.path()).open().unwrap();
        let table = rowkey_core::fjall::KeyTable::new(fdb.keyspace("visits", fjall::KeyspaceCreateOptions::default).unwrap());
        for r in &rows {
            table.insert(r, *b"").unwrap();
        }
        let got: Vec<Vec<u8>> = table.filter(&filter).unwrap().map(|r| r.unwrap().0.encode_to_vec().unwrap()).collect();
        prop_assert_eq!(&got, &want);
        // The same rows through `fold` (the merge's own loop).
        let mut folded = Vec::new();
        table.filter(&filter).unwrap().for_each(|r| folded.push(r.unwrap().0.encode_to_vec().unwrap()));
        prop_assert_eq!(&folded, &want);
    }
}
