//! Evolving a layout with `#[rowkey(added)]`: keys written by a struct are
//! decoded by the struct with one and with two added trailing fields (as
//! `None`), keys of the new structs with all-`None` added fields are the old
//! bytes, and in one redb table, old and new keys together come back from
//! the generated scans as the right rows, in order.

use std::collections::BTreeMap;

use redb::backends::InMemoryBackend;
use redb::{Database, ReadableDatabase, TableDefinition};
use rowkey_core::prelude::*;
use rowkey_core::{merge_salted_with, Scan};

const TABLE: TableDefinition<'_, &[u8], ()> = TableDefinition::new("events");

/// Version 1, as deployed. Its last field is fixed-width: fields can be
/// added after it (not after a string stored raw to the end of the key).
mod v1 {
    use rowkey_core::prelude::*;

    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[salt(buckets = 4)]
    pub struct Event {
        pub user: u32,
        #[desc_ts]
        pub ts: i64,
        pub kind: Option<String>,
        pub seq: u16,
    }
}

/// Version 2: a `region` added.
mod v2 {
    use rowkey_core::prelude::*;

    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[salt(buckets = 4)]
    pub struct Event {
        pub user: u32,
        #[desc_ts]
        pub ts: i64,
        pub kind: Option<String>,
        pub seq: u16,
        #[rowkey(added)]
        pub region: Option<u16>,
    }
}

/// Version 3: a `source` added after it.
mod v3 {
    use rowkey_core::prelude::*;

    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[salt(buckets = 4)]
    pub struct Event {
        pub user: u32,
        #[desc_ts]
        pub ts: i64,
        pub kind: Option<String>,
        pub seq: u16,
        #[rowkey(added)]
        pub region: Option<u16>,
        #[rowkey(added)]
        pub source: Option<String>,
    }
}

fn v1_events() -> Vec<v1::Event> {
    let mut out = Vec::new();
    for user in [1u32, 2, 3, 7] {
        for ts in [100i64, 200, 300] {
            let kind = match (user + ts as u32) % 3 {
                0 => None,
                1 => Some("click".to_string()),
                _ => Some("view\0x".to_string()),
            };
            out.push(v1::Event {
                user,
                ts,
                kind,
                seq: 1,
            });
        }
    }
    out
}

fn v3_events() -> Vec<v3::Event> {
    let mut out = Vec::new();
    for user in [1u32, 2, 5] {
        for (i, ts) in [150i64, 200, 250].into_iter().enumerate() {
            let (region, source) = match i {
                0 => (Some(44), None),
                1 => (None, Some("api".to_string())),
                _ => (Some(1), Some("web".to_string())),
            };
            out.push(v3::Event {
                user,
                ts,
                kind: Some("click".into()),
                seq: 1,
                region,
                source,
            });
        }
    }
    out
}

fn upgrade(e: &v1::Event) -> v3::Event {
    v3::Event {
        user: e.user,
        ts: e.ts,
        kind: e.kind.clone(),
        seq: e.seq,
        region: None,
        source: None,
    }
}

#[test]
fn old_keys_decode_with_added_fields_as_none_and_keep_their_bytes() {
    for old in v1_events() {
        let key = old.encode_to_vec().unwrap();
        let two = v2::Event::decode(&key).unwrap();
        assert_eq!(
            two,
            v2::Event {
                user: old.user,
                ts: old.ts,
                kind: old.kind.clone(),
                seq: old.seq,
                region: None
            }
        );
        let three = v3::Event::decode(&key).unwrap();
        assert_eq!(three, upgrade(&old));
        // Re-encoding an upgraded old key writes the old bytes, and the
        // salt is the same: added fields are not hashed.
        assert_eq!(two.encode_to_vec().unwrap(), key);
        assert_eq!(three.encode_to_vec().unwrap(), key);
        assert_eq!(three.bucket(), old.bucket());
    }
    // v2 keys are v3 keys too.
    let with_region = v2::Event {
        user: 9,
        ts: 1,
        kind: None,
        seq: 0,
        region: Some(3),
    };
    let key = with_region.encode_to_vec().unwrap();
    let three = v3::Event::decode(&key).unwrap();
    assert_eq!((three.region, three.source.as_deref()), (Some(3), None));
    assert_eq!(three.encode_to_vec().unwrap(), key);
    // A v3 key with only the second added field writes the first's None tag.
    let only_source = v3::Event {
        source: Some("s".into()),
        ..upgrade(&v1_events()[0])
    };
    let key = only_source.encode_to_vec().unwrap();
    assert_eq!(v3::Event::decode(&key).unwrap(), only_source);
    // region's None: its tag and zeroed width (3); source: tag, "s", 00 00.
    assert_eq!(key.len(), v1_events()[0].encoded_len() + 3 + 4);
    // Old code cannot read new keys that use the added fields: it says so.
    assert_eq!(
        v1::Event::decode(&key).unwrap_err(),
        DecodeError::TrailingBytes { count: 7 }
    );
}

#[test]
fn added_fields_sort_after_the_old_key_in_value_order() {
    let base = upgrade(&v1_events()[0]);
    type Added = (Option<u16>, Option<String>);
    let mut keys: Vec<(Vec<u8>, Added)> = Vec::new();
    for region in [None, Some(0), Some(9)] {
        for source in [None, Some(String::new()), Some("a".to_string())] {
            let e = v3::Event {
                region,
                source: source.clone(),
                ..base.clone()
            };
            keys.push((e.encode_to_vec().unwrap(), (region, source)));
        }
    }
    keys.sort();
    let values: Vec<_> = keys.iter().map(|(_, v)| v.clone()).collect();
    let mut sorted = values.clone();
    sorted.sort();
    assert_eq!(
        values, sorted,
        "key order is (region, source) order, None first"
    );
}

fn store(keys: &[Vec<u8>]) -> Database {
    let db = Database::builder()
        .create_with_backend(InMemoryBackend::new())
        .unwrap();
    let tx = db.begin_write().unwrap();
    {
        let mut table = tx.open_table(TABLE).unwrap();
        for k in keys {
            table.insert(k.as_slice(), ()).unwrap();
        }
    }
    tx.commit().unwrap();
    db
}

fn read(db: &Database, scan: &Scan) -> Vec<v3::Event> {
    let tx = db.begin_read().unwrap();
    let table = tx.open_table(TABLE).unwrap();
    let streams: Vec<_> = scan
        .ranges()
        .map(|r| {
            table
                .range::<&[u8]>(r.bounds())
                .unwrap()
                .map(|e| e.map(|(k, _)| (k.value().to_vec(), ())))
        })
        .collect();
    merge_salted_with(scan.head_len(), streams)
        .map(|r| v3::Event::decode(&r.unwrap().0).unwrap())
        .collect()
}

/// The rows `keep` selects, in the order of their keys after the salt.
fn expected(all: &[v3::Event], keep: impl Fn(&v3::Event) -> bool) -> Vec<v3::Event> {
    let mut rows: BTreeMap<Vec<u8>, v3::Event> = BTreeMap::new();
    for e in all.iter().filter(|e| keep(e)) {
        let key = e.encode_to_vec().unwrap();
        rows.insert(key[v3::Event::HEAD_LEN..].to_vec(), e.clone());
    }
    rows.into_values().collect()
}

#[test]
fn scans_over_old_and_new_keys_in_one_redb_table() {
    let old = v1_events();
    let new = v3_events();
    let mut keys: Vec<Vec<u8>> = old.iter().map(|e| e.encode_to_vec().unwrap()).collect();
    keys.extend(new.iter().map(|e| e.encode_to_vec().unwrap()));
    let db = store(&keys);
    let all: Vec<v3::Event> = old.iter().map(upgrade).chain(new.iter().cloned()).collect();
    assert_eq!(all.len(), 21);

    assert_eq!(read(&db, &v3::Event::scan_all()), expected(&all, |_| true));
    for user in [1, 2, 3, 5, 7, 8] {
        let got = read(&db, &v3::Event::scan_by_user(user));
        assert_eq!(got, expected(&all, |e| e.user == user), "user {user}");
        let got = read(&db, &v3::Event::range_by_user_ts(user, 150..=250));
        assert_eq!(
            got,
            expected(&all, |e| e.user == user && (150..=250).contains(&e.ts)),
            "user {user}, ts 150..=250"
        );
        for ts in [100, 200] {
            // Equality on every field an old key has: the old row and the
            // new rows that extend it.
            let got = read(
                &db,
                &v3::Event::scan_by_user_ts_kind_seq(user, ts, Some("click"), 1),
            );
            let want = expected(&all, |e| {
                e.user == user && e.ts == ts && e.kind.as_deref() == Some("click") && e.seq == 1
            });
            assert_eq!(got, want, "user {user}, ts {ts}, click");
            if user == 2 && ts == 200 {
                assert_eq!(got.len(), 2, "the old row and a new one: {got:?}");
            }
        }
    }
    // User 2 at ts 200 has an old row and a new one.
    let both = read(&db, &v3::Event::scan_by_user_ts(2, 200));
    assert!(both.iter().any(|e| e.source.is_none()), "{both:?}");
    assert!(both.iter().any(|e| e.source.is_some()), "{both:?}");
    // The v2 struct's scans read the same table: their rows decode.
    let v2_rows = v2::Event::scan_by_user(1);
    assert!(!read(&db, &v2_rows).is_empty());
}
