//! The typed tables on redb (`rowkey_core::redb`) and fjall
//! (`rowkey_core::fjall`): random keys with UUID and timestamp fields,
//! salted and not, stored through the typed table; random typed scans
//! return exactly the rows a filter over the values selects, in the order
//! of the values (salt buckets merged), on both stores. A stored key that
//! does not decode is an error, not a panic.

mod common;

use std::cmp::Reverse;
use std::ops::RangeBounds;
use std::sync::atomic::{AtomicUsize, Ordering};

use chrono::{DateTime, Utc};
use proptest::prelude::*;
use redb::backends::InMemoryBackend;
use redb::{Database, ReadableDatabase};
use rowkey_core::prelude::*;
use rowkey_core::redb::KeyTableDefinition;
use uuid::Uuid;

use common::{range_of, value_of, Range};

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 4, by(tenant))]
struct Salted {
    tenant: Uuid,
    #[desc_ts]
    at: DateTime<Utc>,
    seq: u16,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
struct Plain {
    #[ts(micros)]
    at: jiff::Timestamp,
    #[reverse]
    id: Uuid,
}

const TENANTS: [u128; 4] = [0, 1, 0x0190_b0a0_7e1c_7cc3_8a3b_0000_0000_0001, u128::MAX];
const MILLIS: [i64; 6] = [-86_400_000, -1, 0, 1, 1_700_000_000_000, 1_700_000_000_001];

fn tenant() -> impl Strategy<Value = Uuid> + Clone {
    value_of(&TENANTS).prop_map(Uuid::from_u128)
}

fn at() -> impl Strategy<Value = DateTime<Utc>> + Clone {
    value_of(&MILLIS).prop_map(|ms| DateTime::from_timestamp_millis(ms).unwrap())
}

fn jiff_at() -> impl Strategy<Value = jiff::Timestamp> + Clone {
    value_of(&MILLIS).prop_map(|ms| jiff::Timestamp::from_millisecond(ms).unwrap())
}

fn salted() -> impl Strategy<Value = Salted> {
    (tenant(), at(), 0u16..4).prop_map(|(tenant, at, seq)| Salted { tenant, at, seq })
}

fn plain() -> impl Strategy<Value = Plain> {
    (jiff_at(), tenant()).prop_map(|(at, id)| Plain { at, id })
}

/// A scan of `Salted` and the rows it must return.
#[derive(Debug, Clone)]
enum SaltedScan {
    All,
    Tenant(Uuid),
    TenantAt(Uuid, Range<DateTime<Utc>>),
    Exact(Uuid, DateTime<Utc>),
}

impl SaltedScan {
    fn scan(&self) -> Scan {
        match self {
            SaltedScan::All => Salted::scan_all(),
            SaltedScan::Tenant(t) => Salted::scan_by_tenant(*t),
            SaltedScan::TenantAt(t, r) => Salted::range_by_tenant_at(*t, *r).unwrap(),
            SaltedScan::Exact(t, a) => Salted::scan_by_tenant_at(*t, *a).unwrap(),
        }
    }
    fn selects(&self, row: &Salted) -> bool {
        match self {
            SaltedScan::All => true,
            SaltedScan::Tenant(t) => row.tenant == *t,
            SaltedScan::TenantAt(t, r) => row.tenant == *t && r.contains(&row.at),
            SaltedScan::Exact(t, a) => row.tenant == *t && row.at == *a,
        }
    }
}

fn salted_scan() -> impl Strategy<Value = SaltedScan> {
    prop_oneof![
        Just(SaltedScan::All),
        tenant().prop_map(SaltedScan::Tenant),
        (tenant(), range_of(&at_values())).prop_map(|(t, r)| SaltedScan::TenantAt(t, r)),
        (tenant(), at()).prop_map(|(t, a)| SaltedScan::Exact(t, a)),
    ]
}

fn at_values() -> Vec<DateTime<Utc>> {
    MILLIS
        .iter()
        .map(|&ms| DateTime::from_timestamp_millis(ms).unwrap())
        .collect()
}

fn jiff_values() -> Vec<jiff::Timestamp> {
    MILLIS
        .iter()
        .map(|&ms| jiff::Timestamp::from_millisecond(ms).unwrap())
        .collect()
}

/// The rows `selects` keeps, in the order the scan must return them:
/// by the values (tenant, newest first, seq), whatever their buckets.
fn expected_salted(rows: &[Salted], scan: &SaltedScan) -> Vec<Salted> {
    let mut out: Vec<Salted> = dedup(rows)
        .into_iter()
        .filter(|r| scan.selects(r))
        .collect();
    out.sort_by_key(|r| (r.tenant, Reverse(r.at), r.seq));
    out
}

/// The last write of each key wins, as in both stores.
fn dedup<T: RowKey + Clone>(rows: &[T]) -> Vec<T> {
    let mut seen = std::collections::HashMap::new();
    for r in rows {
        seen.insert(r.encode_to_vec().unwrap(), r.clone());
    }
    seen.into_values().collect()
}

static KEYSPACES: AtomicUsize = AtomicUsize::new(0);

fn fjall_db() -> (tempfile::TempDir, fjall::Database) {
    let dir = tempfile::tempdir().unwrap();
    let db = fjall::Database::builder(dir.path()).open().unwrap();
    (dir, db)
}

fn fjall_table<K>(db: &fjall::Database) -> rowkey_core::fjall::KeyTable<K> {
    let name = format!("t{}", KEYSPACES.fetch_add(1, Ordering::Relaxed));
    rowkey_core::fjall::KeyTable::new(
        db.keyspace(&name, fjall::KeyspaceCreateOptions::default)
            .unwrap(),
    )
}

fn redb_db() -> Database {
    Database::builder()
        .create_with_backend(InMemoryBackend::new())
        .unwrap()
}

const SALTED: KeyTableDefinition<Salted, u32> = KeyTableDefinition::new("salted");
const PLAIN: KeyTableDefinition<Plain, u32> = KeyTableDefinition::new("plain");

/// Stores `rows` (value: the row's index) in redb and fjall through the
/// typed tables, runs `scan` on both and returns the decoded keys, after
/// checking that each returned value is the index of a row with that key.
fn run_both<K>(
    rows: &[K],
    def: KeyTableDefinition<K, u32>,
    scan: &Scan,
    fjall_db: &fjall::Database,
) -> (Vec<K>, Vec<K>)
where
    K: RowKey + for<'de> DecodeRowKey<'de> + Clone + PartialEq + std::fmt::Debug,
{
    let db = redb_db();
    let tx = db.begin_write().unwrap();
    {
        let mut table = def.open(&tx).unwrap();
        for (i, r) in rows.iter().enumerate() {
            table.insert(r, i as u32).unwrap();
        }
    }
    tx.commit().unwrap();
    let tx = db.begin_read().unwrap();
    let table = def.open_read(&tx).unwrap();
    let from_redb: Vec<K> = table
        .scan(scan)
        .unwrap()
        .map(|row| {
            let (k, v) = row.unwrap();
            assert_eq!(rows[v.value() as usize].encode_to_vec(), k.encode_to_vec());
            // get agrees with the scan.
            assert_eq!(table.get(&k).unwrap().unwrap().value(), v.value());
            k
        })
        .collect();
    // `fold` (the merge's own loop) gives what `next` gives.
    let folded = table.scan(scan).unwrap().fold(Vec::new(), |mut v, row| {
        v.push(row.unwrap().0);
        v
    });
    assert_eq!(folded, from_redb, "redb: fold and next disagree");

    let keyspace = fjall_table::<K>(fjall_db);
    for (i, r) in rows.iter().enumerate() {
        keyspace.insert(r, (i as u32).to_be_bytes()).unwrap();
    }
    let from_fjall: Vec<K> = keyspace
        .scan(scan)
        .map(|row| {
            let (k, v) = row.unwrap();
            let i = u32::from_be_bytes(v[..].try_into().unwrap()) as usize;
            assert_eq!(rows[i].encode_to_vec(), k.encode_to_vec());
            k
        })
        .collect();
    let mut folded = Vec::new();
    keyspace
        .scan(scan)
        .for_each(|row| folded.push(row.unwrap().0));
    assert_eq!(folded, from_fjall, "fjall: fold and next disagree");
    (from_redb, from_fjall)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn salted_typed_scans_on_redb_and_fjall(
        rows in prop::collection::vec(salted(), 0..40),
        scans in prop::collection::vec(salted_scan(), 1..4),
    ) {
        let (_dir, db) = fjall_db();
        for scan in &scans {
            let expected = expected_salted(&rows, scan);
            let (redb_rows, fjall_rows) = run_both(&rows, SALTED, &scan.scan(), &db);
            prop_assert_eq!(&redb_rows, &expected, "redb, {:?}", scan);
            prop_assert_eq!(&fjall_rows, &expected, "fjall, {:?}", scan);
        }
    }

    #[test]
    fn unsalted_typed_scans_on_redb_and_fjall(
        rows in prop::collection::vec(plain(), 0..40),
        range in range_of(&jiff_values()),
    ) {
        let (_dir, db) = fjall_db();
        let mut expected: Vec<Plain> = dedup(&rows).into_iter().filter(|r| range.contains(&r.at)).collect();
        // Time order, then the id's reversed bytes (#[reverse]).
        expected.sort_by_key(|r| (r.at, r.id.as_u128().swap_bytes()));
        let scan = Plain::range_by_at(range).unwrap();
        let (redb_rows, fjall_rows) = run_both(&rows, PLAIN, &scan, &db);
        prop_assert_eq!(&redb_rows, &expected);
        prop_assert_eq!(&fjall_rows, &expected);
    }
}

#[test]
fn insert_get_remove_by_typed_key() {
    let row = Salted {
        tenant: Uuid::from_u128(7),
        at: DateTime::from_timestamp_millis(5).unwrap(),
        seq: 1,
    };
    let db = redb_db();
    let tx = db.begin_write().unwrap();
    {
        let mut t = SALTED.open(&tx).unwrap();
        assert!(!t.insert(&row, 1).unwrap());
        assert!(t.insert(&row, 2).unwrap(), "a second insert replaces");
        assert_eq!(t.get(&row).unwrap().unwrap().value(), 2);
        assert!(t.remove(&row).unwrap());
        assert!(t.get(&row).unwrap().is_none());
        assert!(!t.remove(&row).unwrap());
    }
    tx.commit().unwrap();

    let (_dir, fdb) = fjall_db();
    let t = fjall_table::<Salted>(&fdb);
    t.insert(&row, "a").unwrap();
    assert_eq!(t.get(&row).unwrap().as_deref(), Some(&b"a"[..]));
    t.remove(&row).unwrap();
    assert_eq!(t.get(&row).unwrap(), None);

    // A key that cannot be encoded is an error before the store is touched.
    let finer = Salted {
        at: DateTime::from_timestamp_nanos(1),
        ..row
    };
    assert!(matches!(
        t.insert(&finer, "x").unwrap_err(),
        rowkey_core::fjall::Error::Encode(EncodeError::Time { field: "at", .. })
    ));
}

#[test]
fn a_stored_key_that_does_not_decode_is_an_error_not_a_panic() {
    let good = Plain {
        at: jiff::Timestamp::from_millisecond(1).unwrap(),
        id: Uuid::from_u128(1),
    };
    // Bytes another program (or another layout) wrote: too short for Plain.
    let junk: &[u8] = b"\x80\x00";
    let db = redb_db();
    let tx = db.begin_write().unwrap();
    {
        let mut table = PLAIN.open(&tx).unwrap();
        table.insert(&good, 1).unwrap();
        // The redb table underneath, through `raw()` (or `into_inner`).
        let mut raw = table.into_inner();
        raw.insert(junk, 9).unwrap();
    }
    tx.commit().unwrap();
    let tx = db.begin_read().unwrap();
    let table = PLAIN.open_read(&tx).unwrap();
    let rows: Vec<_> = table.scan(&Plain::scan_all()).unwrap().collect();
    assert_eq!(rows.len(), 2);
    match &rows[0] {
        Err(rowkey_core::redb::Error::Decode { key, error }) => {
            assert_eq!(key, junk);
            assert!(matches!(
                error,
                DecodeError::UnexpectedEnd { field: "at", .. }
            ));
        }
        Err(other) => panic!("expected a decode error, got {other:?}"),
        Ok((k, _)) => panic!("expected a decode error, got the row of {k:?}"),
    }
    let err = rowkey_core::error_chain(rows[0].as_ref().err().unwrap());
    assert!(
        err.starts_with("stored key \"\\x80\\x00\" is not a key of this table: field `at`"),
        "{err}"
    );
    assert_eq!(rows[1].as_ref().unwrap().0, good);

    let (_dir, fdb) = fjall_db();
    let t = fjall_table::<Plain>(&fdb);
    t.inner().insert(junk, b"x").unwrap();
    t.insert(&good, b"y").unwrap();
    let rows: Vec<_> = t.scan(&Plain::scan_all()).collect();
    assert!(matches!(&rows[0], Err(rowkey_core::fjall::Error::Decode { key, .. }) if key == junk));
    assert_eq!(rows[1].as_ref().unwrap().0, good);
}
