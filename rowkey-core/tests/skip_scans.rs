//! Skip scans on the typed tables (`filter` on redb and fjall): they return
//! exactly the rows the filter matches, in key order with salt buckets
//! merged, and read few rows: for the per-user, newest-first events key
//! (`[salt(user)/16][user][MAX - ts]`), all events of one minute of 2,000
//! users × 50 events read at most the rows returned plus two per user,
//! where a full scan reads all 100,000. Runs of rows that do not match are
//! read on when short and sought past when long.

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
    // The floor: the rows returned and one row per user past its minute
    // (the seek's start); adaptive seeks may read on a little more.
    assert!(
        read <= got.len() as u64 + 2 * users,
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
    // The floor: the rows returned and one row per user past its minute
    // (the seek's start); adaptive seeks may read on a little more.
    assert!(
        read <= got.len() as u64 + 2 * users,
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

// Tables hold more than keys of their layout: rows of another tool, a
// half-written import, keys written before fields were added. A skip scan
// over them must end, with exactly the stored keys of the layout that
// match (each hint strictly past the key it is for).
#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 4, by(user))]
struct Messy {
    user: u32,
    #[desc_ts]
    ts: i64,
    page: String,
    tag: u8,
    #[rowkey(added)]
    a: Option<u16>,
    #[rowkey(added)]
    b: Option<String>,
}

const MESSY: KeyTableDefinition<Messy, u32> = KeyTableDefinition::new("messy");

fn messy() -> impl Strategy<Value = Messy> {
    (
        0..6u32,
        -3..4i64,
        proptest::sample::select(vec!["", "a", "a\0b", "b"]),
        proptest::option::of(0..3u16),
        proptest::option::of(proptest::sample::select(vec!["", "x"])),
    )
        .prop_map(|(user, ts, page, a, b)| Messy {
            user,
            ts,
            page: page.to_owned(),
            tag: 1,
            a,
            // An added field is written only after the ones before it.
            b: a.and(b.map(str::to_owned)),
        })
}

/// What a stored key can be: a key of the layout, the same cut short at
/// every length, or followed by trailing bytes.
#[derive(Debug, Clone)]
enum Stored {
    Whole(Messy),
    Cut(Messy, usize),
    Trailing(Messy, Vec<u8>),
}

fn stored() -> impl Strategy<Value = Stored> {
    prop_oneof![
        messy().prop_map(Stored::Whole),
        (messy(), 0..40usize).prop_map(|(m, n)| Stored::Cut(m, n)),
        (messy(), proptest::collection::vec(any::<u8>(), 1..3))
            .prop_map(|(m, t)| Stored::Trailing(m, t)),
    ]
}

impl Stored {
    fn bytes(&self) -> Vec<u8> {
        match self {
            Stored::Whole(m) => m.encode_to_vec().unwrap(),
            Stored::Cut(m, n) => {
                let mut k = m.encode_to_vec().unwrap();
                k.truncate(*n % k.len().max(1));
                k
            }
            Stored::Trailing(m, t) => {
                let mut k = m.encode_to_vec().unwrap();
                k.extend_from_slice(t);
                k
            }
        }
    }
}

/// Every key in 0..=len of every key stored: each cut at every length.
fn with_every_cut(keys: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = keys
        .iter()
        .flat_map(|k| (0..=k.len()).map(|n| k[..n].to_vec()))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The stored keys that are keys of the layout (they decode, as a whole)
/// and whose values satisfy `keep`, sorted as the merged buckets are.
fn messy_model(keys: &[Vec<u8>], keep: impl Fn(&Messy) -> bool) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = keys
        .iter()
        .filter(|k| Messy::decode(k).is_ok_and(|m| keep(&m)))
        .cloned()
        .collect();
    out.sort_by(|a, b| a[1..].cmp(&b[1..]).then(a.cmp(b)));
    out
}

/// The raw keys a skip scan returns on redb and on fjall.
fn skip_scan_both(keys: &[Vec<u8>], filter: &KeyFilter) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let db = Database::builder()
        .create_with_backend(InMemoryBackend::new())
        .unwrap();
    let raw: redb::TableDefinition<'_, &[u8], u32> = redb::TableDefinition::new(MESSY.name());
    let tx = db.begin_write().unwrap();
    {
        let mut t = tx.open_table(raw).unwrap();
        for k in keys {
            t.insert(k.as_slice(), 0).unwrap();
        }
    }
    tx.commit().unwrap();
    let tx = db.begin_read().unwrap();
    let table = tx.open_table(raw).unwrap();
    let from_redb = rowkey_core::redb::filter_raw(&table, filter)
        .unwrap()
        .map(|r| r.unwrap().0.as_ref().to_vec())
        .collect();

    let dir = tempfile::tempdir().unwrap();
    let fdb = fjall::Database::builder(dir.path()).open().unwrap();
    let ks = fdb
        .keyspace("messy", fjall::KeyspaceCreateOptions::default)
        .unwrap();
    for k in keys {
        ks.insert(k, b"").unwrap();
    }
    let table = rowkey_core::fjall::KeyTable::<Messy>::new(ks);
    let from_fjall = table
        .filter(filter)
        .unwrap()
        .map(|r| r.unwrap().0.encode_to_vec().unwrap())
        .collect();
    (from_redb, from_fjall)
}

#[test]
fn keys_cut_inside_a_constrained_part_or_a_free_string_end_the_scan() {
    // One in five keys cut short (inside the constrained `ts`, inside the
    // free `page`) beside the real ones: the scan used to seek back to
    // such a key and read it again forever.
    let t0 = 1_700_000_000_000i64;
    let mut keys = Vec::new();
    for user in 0..50u32 {
        for i in 0..10i64 {
            let m = Messy {
                user,
                ts: t0 + i * 1_000,
                page: format!("page-{}", i % 3),
                tag: 1,
                a: None,
                b: None,
            };
            let k = m.encode_to_vec().unwrap();
            if i % 5 == 0 {
                // 1 salt + 4 user + 3 of ts's 8 bytes; then 4 bytes into page.
                keys.push(k[..8].to_vec());
                keys.push(k[..17].to_vec());
            }
            keys.push(k);
        }
    }
    let window = t0 + 2_000..t0 + 6_000;
    let filter = Messy::filter().ts(window.clone()).build().unwrap();
    let want = messy_model(&keys, |m| window.contains(&m.ts));
    assert_eq!(want.len(), 50 * 4);
    let (redb, fjall) = skip_scan_both(&keys, &filter);
    assert_eq!(redb, want, "redb");
    assert_eq!(fjall, want, "fjall");

    let filter = Messy::filter().page("page-1").build().unwrap();
    let want = messy_model(&keys, |m| m.page == "page-1");
    let (redb, fjall) = skip_scan_both(&keys, &filter);
    assert_eq!(redb, want, "redb");
    assert_eq!(fjall, want, "fjall");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
    #[test]
    fn keys_not_of_the_layout_never_loop_and_never_match(
        rows in proptest::collection::vec(stored(), 0..24),
        users in proptest::option::of(proptest::collection::vec(0..6u32, 0..3)),
        window in proptest::option::of((-3..4i64, 0..4i64)),
        page in proptest::option::of(proptest::sample::select(vec!["", "a", "a\0b", "b"])),
        every_cut in any::<bool>(),
    ) {
        let mut keys: Vec<Vec<u8>> = rows.iter().map(Stored::bytes).collect();
        if every_cut {
            keys = with_every_cut(&keys);
        }
        keys.sort();
        keys.dedup();
        // A store holds no empty key (fjall refuses one).
        keys.retain(|k| !k.is_empty());
        let mut b = Messy::filter();
        if let Some(us) = &users {
            b = b.user(any_of(us.clone()));
        }
        if let Some((from, len)) = window {
            b = b.ts(from..from + len);
        }
        if let Some(p) = page {
            b = b.page(p);
        }
        let filter = b.build().unwrap();
        let keep = |m: &Messy| {
            users.as_ref().is_none_or(|us| us.contains(&m.user))
                && window.is_none_or(|(from, len)| (from..from + len).contains(&m.ts))
                && page.is_none_or(|p| m.page == p)
        };
        let want = messy_model(&keys, keep);
        // `matches` agrees with the values on every stored key.
        for k in &keys {
            let by_value = Messy::decode(k).is_ok_and(|m| keep(&m));
            prop_assert_eq!(filter.matches(k), by_value, "key {:02x?}", k);
            // A key that does not match gets a hint strictly past it.
            if !by_value {
                if let Some(h) = filter.seek_hint(k) {
                    prop_assert!(h.as_slice() > k.as_slice(), "hint {:02x?} for {:02x?}", h, k);
                }
            }
        }
        let (redb, fjall) = skip_scan_both(&keys, &filter);
        prop_assert_eq!(&redb, &want);
        prop_assert_eq!(&fjall, &want);
    }
}

// A fixed-width key: runs of matches are read by comparing keys with the
// run's end, not matching each (the length still checked, so keys of
// another length in the table are never returned).
#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 3, by(a))]
struct Fixed {
    a: u8,
    #[desc]
    b: u16,
    c: u8,
}

fn small_pred(max: u16) -> impl Strategy<Value = Option<(u8, u16, u16)>> {
    proptest::option::of((0..3u8, 0..max, 0..max))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]
    #[test]
    fn fixed_width_runs_return_the_model_among_foreign_keys(
        rows in proptest::collection::vec((0..4u8, 0..6u16, 0..4u8), 0..120),
        foreign in proptest::collection::vec((any::<prop::sample::Index>(), any::<bool>(), any::<u8>()), 0..20),
        a in small_pred(4),
        b in small_pred(6),
        c in small_pred(4),
    ) {
        let mut f = Fixed::filter();
        // (kind, x, y): a value, `any_of` two, or a range.
        if let Some((kind, x, y)) = a {
            let (x, y) = (x as u8, y as u8);
            f = match kind { 0 => f.a(x), 1 => f.a(any_of([x, y])), _ => f.a(x.min(y)..=x.max(y)) };
        }
        if let Some((kind, x, y)) = b {
            f = match kind { 0 => f.b(x), 1 => f.b(any_of([x, y])), _ => f.b(x.min(y)..x.max(y)) };
        }
        if let Some((kind, x, y)) = c {
            let (x, y) = (x as u8, y as u8);
            f = match kind { 0 => f.c(x), 1 => f.c(any_of([x, y])), _ => f.c(x.min(y)..) };
        }
        let filter = f.build().unwrap();
        let mut keys: Vec<Vec<u8>> = rows
            .iter()
            .map(|&(a, b, c)| Fixed { a, b, c }.encode_to_vec().unwrap())
            .collect();
        // Keys of other lengths beside them: one byte more or less.
        for (i, longer, byte) in &foreign {
            if keys.is_empty() {
                break;
            }
            let mut k = keys[i.index(keys.len())].clone();
            if *longer { k.push(*byte) } else { k.pop(); }
            keys.push(k);
        }
        let mut want: Vec<Vec<u8>> = keys.iter().filter(|k| filter.matches(k)).cloned().collect();
        want.sort_by(|x, y| x[1..].cmp(&y[1..]));
        want.dedup();

        let table_def: redb::TableDefinition<'static, &'static [u8], ()> = redb::TableDefinition::new("raw");
        let db = Database::builder().create_with_backend(InMemoryBackend::new()).unwrap();
        let tx = db.begin_write().unwrap();
        {
            let mut t = tx.open_table(table_def).unwrap();
            for k in &keys {
                t.insert(k.as_slice(), ()).unwrap();
            }
        }
        tx.commit().unwrap();
        let tx = db.begin_read().unwrap();
        let t = tx.open_table(table_def).unwrap();
        let got: Vec<Vec<u8>> = rowkey_core::redb::filter_raw(&t, &filter)
            .unwrap()
            .map(|r| r.unwrap().0.as_ref().to_vec())
            .collect();
        prop_assert_eq!(got, want);
    }
}

/// `[series u32][ts u32]` with `per` rows in each of `series` series, and
/// a skip scan for ts 1: what it returns, reads and seeks.
fn skip_series(series: u32, per: u32) -> (u64, u64, u64) {
    #[derive(RowKey)]
    struct Point {
        series: u32,
        ts: u32,
    }
    let def: KeyTableDefinition<Point, ()> = KeyTableDefinition::new("points");
    let db = Database::builder()
        .create_with_backend(InMemoryBackend::new())
        .unwrap();
    let tx = db.begin_write().unwrap();
    {
        let mut t = def.open(&tx).unwrap();
        for s in 0..series {
            for ts in 0..per {
                t.insert(&Point { series: s, ts }, ()).unwrap();
            }
        }
    }
    tx.commit().unwrap();
    let tx = db.begin_read().unwrap();
    let t = def.open_read(&tx).unwrap();
    let filter = Point::filter().ts(1).build().unwrap();
    let rows = t.filter(&filter).unwrap();
    let cost = rows.cost().clone();
    let returned = rows.count() as u64;
    (returned, cost.rows_read(), cost.seeks())
}

#[test]
fn short_runs_are_read_on_and_long_runs_sought_past() {
    // 20,000 series of 4 rows, one match each: the runs that do not match
    // are 3 rows, cheaper to read than to seek past. After the first run
    // (sought past while it is measured), every run is read on.
    let (returned, read, seeks) = skip_series(20_000, 4);
    assert_eq!(returned, 20_000);
    assert_eq!(read, 80_000, "every row");
    assert!(seeks <= 2, "{seeks} seeks");
    // 20 series of 4,000 rows: the runs are 3,998 rows; each is sought
    // past (the first run, one row before the first match, is read on,
    // and so is the next, up to 16 rows, before the stream seeks at once).
    let (returned, read, seeks) = skip_series(20, 4_000);
    assert_eq!(returned, 20);
    assert_eq!(seeks, 20, "one seek past each series' match");
    assert!(read <= returned + 21 + 16, "{read} rows read");
}
