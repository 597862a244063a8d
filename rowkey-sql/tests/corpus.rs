//! The query corpus: each query over rowkey's tables (redb, fjall, HBase
//! through the native client, the Bigtable emulator; the same rows in
//! each) answers what DataFusion answers over the same rows loaded as a
//! `MemTable`, built here from the Rust values, not from rowkey's
//! decoding.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use rowkey_core::prelude::*;
use rowkey_sql::datafusion::arrow::array::{
    ArrayRef, BinaryArray, BooleanArray, Float64Array, Int16Array, Int64Array, RecordBatch,
    StringArray, TimestampMillisecondArray, UInt16Array, UInt32Array, UInt64Array,
};
use rowkey_sql::datafusion::arrow::util::pretty::pretty_format_batches;
use rowkey_sql::datafusion::catalog::MemTable;
use rowkey_sql::datafusion::datasource::TableProvider;
use rowkey_sql::datafusion::prelude::{SessionConfig, SessionContext};
use rowkey_sql::{KeyTable, ValueColumn, ValueType};

#[derive(RowKey, Debug, Clone)]
#[salt(buckets = 8, by(user_id))]
struct Event {
    user_id: u64,
    #[desc_ts]
    #[ts(millis)]
    ts: chrono::DateTime<chrono::Utc>,
    #[fixed(8)]
    kind: String,
}

/// A field enum: its column is the variant's name.
#[derive(KeyField, Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i16)]
enum Grade {
    Low = -5,
    Mid = 0,
    High = 300,
}

impl Grade {
    fn name(self) -> &'static str {
        match self {
            Grade::Low => "Low",
            Grade::Mid => "Mid",
            Grade::High => "High",
        }
    }
}

#[derive(RowKey, Debug, Clone)]
struct Reading {
    site: String,
    sensor: u32,
    #[desc]
    level: i16,
    on: bool,
    batch: Option<u16>,
    temp: f64,
    code: char,
    grade: Grade,
    raw: Vec<u8>,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "D")]
struct Order {
    id: u64,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "I")]
#[salt(buckets = 4, by(customer))]
struct ByCustomer {
    customer: String,
    #[desc_ts]
    ts: i64,
    order: Order,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[allow(dead_code)]
enum Row {
    Order(Order),
    ByCustomer(ByCustomer),
}

/// Milliseconds now, to the whole minute, less 10 hours: the events span
/// the 10 hours to now, each at a minute and 30 seconds, so that `now()`
/// read a few milliseconds apart by the two sides of a query never falls
/// on a row.
fn base_ms() -> i64 {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    let now = i64::try_from(now.as_millis()).unwrap();
    now - now % 60_000 - 10 * 3_600_000 + 30_000
}

const KINDS: [&str; 4] = ["click", "view", "buy", "scroll"];

fn events(base: i64) -> Vec<(Event, Vec<u8>)> {
    let mut rows = Vec::new();
    for user_id in 0..200u64 {
        for i in 0..20i64 {
            let event = Event {
                user_id,
                ts: chrono::DateTime::from_timestamp_millis(
                    base + i * 30 * 60_000 + (user_id as i64 % 7) * 60_000,
                )
                .unwrap(),
                kind: KINDS[((user_id as i64 + i) % 4) as usize].into(),
            };
            rows.push((
                event,
                format!("{{\"n\":{}}}", user_id * 100 + i as u64).into_bytes(),
            ));
        }
    }
    rows
}

const SITES: [&str; 5] = ["a", "ab", "b", "ba", "c"];

fn readings() -> Vec<(Reading, Vec<u8>)> {
    let mut rows = Vec::new();
    let mut n = 0i64;
    for site in SITES {
        for sensor in 0..6u32 {
            for level in (-15i16..=15).step_by(5) {
                n += 1;
                let temp = match n % 11 {
                    0 => -0.0,
                    1 => 0.0,
                    2 => f64::NAN,
                    k => 17.0 + k as f64 * 0.75,
                };
                let reading = Reading {
                    site: site.into(),
                    sensor,
                    level,
                    on: n % 3 == 0,
                    batch: (n % 4 != 0).then_some((n % 9) as u16),
                    temp,
                    code: ['x', 'y', 'é'][(n % 3) as usize],
                    grade: [Grade::Low, Grade::Mid, Grade::High][(n % 5 % 3) as usize],
                    raw: vec![(n % 4) as u8, 2],
                };
                rows.push((reading, (n * 37).to_be_bytes().to_vec()));
            }
        }
    }
    rows
}

fn family() -> Vec<Vec<u8>> {
    let mut keys = Vec::new();
    for id in 0..120u64 {
        keys.push(Order { id }.encode_to_vec().unwrap());
        let customer = ["alice", "bob", "bea", "carl"][(id % 4) as usize];
        let by = ByCustomer {
            customer: customer.into(),
            ts: 1_000 + id as i64,
            order: Order { id },
        };
        keys.push(by.encode_to_vec().unwrap());
    }
    keys
}

fn column(array: impl rowkey_sql::datafusion::arrow::array::Array + 'static) -> ArrayRef {
    Arc::new(array)
}

/// The oracle's batch of `rows`, in the table's schema.
fn mem(table: &KeyTable, columns: Vec<ArrayRef>) -> Arc<MemTable> {
    let schema = table.schema();
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    Arc::new(MemTable::try_new(schema, vec![vec![batch]]).unwrap())
}

fn event_columns(rows: &[(Event, Vec<u8>)]) -> Vec<ArrayRef> {
    vec![
        column(UInt64Array::from_iter_values(
            rows.iter().map(|(e, _)| e.user_id),
        )),
        column(
            TimestampMillisecondArray::from_iter_values(
                rows.iter().map(|(e, _)| e.ts.timestamp_millis()),
            )
            .with_timezone("UTC"),
        ),
        column(StringArray::from_iter_values(
            rows.iter().map(|(e, _)| &e.kind),
        )),
        column(StringArray::from_iter_values(
            rows.iter().map(|(_, v)| std::str::from_utf8(v).unwrap()),
        )),
    ]
}

fn reading_columns(rows: &[(Reading, Vec<u8>)]) -> Vec<ArrayRef> {
    let r = || rows.iter().map(|(r, _)| r);
    vec![
        column(StringArray::from_iter_values(r().map(|r| &r.site))),
        column(UInt32Array::from_iter_values(r().map(|r| r.sensor))),
        column(Int16Array::from_iter_values(r().map(|r| r.level))),
        column(BooleanArray::from_iter(r().map(|r| Some(r.on)))),
        column(UInt16Array::from_iter(r().map(|r| r.batch))),
        column(Float64Array::from_iter_values(r().map(|r| r.temp))),
        column(StringArray::from_iter_values(
            r().map(|r| r.code.to_string()),
        )),
        column(StringArray::from_iter_values(r().map(|r| r.grade.name()))),
        column(BinaryArray::from_iter_values(r().map(|r| &r.raw))),
        column(Int64Array::from_iter_values(
            rows.iter()
                .map(|(_, v)| i64::from_be_bytes(v[..].try_into().unwrap())),
        )),
    ]
}

fn family_columns(keys: &[Vec<u8>]) -> (Vec<ArrayRef>, Vec<ArrayRef>) {
    let orders: Vec<Order> = keys.iter().filter_map(|k| Order::decode(k).ok()).collect();
    let by: Vec<ByCustomer> = keys
        .iter()
        .filter_map(|k| ByCustomer::decode(k).ok())
        .collect();
    (
        vec![column(UInt64Array::from_iter_values(
            orders.iter().map(|o| o.id),
        ))],
        vec![
            column(StringArray::from_iter_values(
                by.iter().map(|b| &b.customer),
            )),
            column(Int64Array::from_iter_values(by.iter().map(|b| b.ts))),
            column(BinaryArray::from_iter_values(
                by.iter().map(|b| b.order.encode().to_vec()),
            )),
        ],
    )
}

/// A store under test, holding the corpus's rows in tables named as the
/// SQL tables (HBase and Bigtable: a family `d`, the value in `d:v`).
// The directories and servers are held to be dropped with the store.
#[allow(dead_code)]
enum Store {
    Redb(tempfile::TempDir, Arc<redb::Database>),
    Fjall(tempfile::TempDir, fjall::Database),
    HBase(rowkey_hbase::Client, Box<rowkey_hbase::testing::HBase>),
    Bigtable(
        Box<rowkey_bigtable::Client>,
        rowkey_bigtable::emulator::Emulator,
    ),
}

impl Store {
    fn redb() -> Store {
        let dir = tempfile::tempdir().unwrap();
        let db = Arc::new(redb::Database::create(dir.path().join("sql.redb")).unwrap());
        Store::Redb(dir, db)
    }

    fn fjall() -> Store {
        let dir = tempfile::tempdir().unwrap();
        let db = fjall::Database::builder(dir.path().join("fjall"))
            .open()
            .unwrap();
        Store::Fjall(dir, db)
    }

    async fn write(&self, table: &str, splits: &[Vec<u8>], rows: Vec<(Vec<u8>, Vec<u8>)>) {
        let cells = || {
            rows.iter()
                .map(|(k, v)| (k.clone(), vec![("d".to_owned(), b"v".to_vec(), v.clone())]))
                .collect::<Vec<_>>()
        };
        match self {
            Store::Redb(_, db) => {
                let tx = db.begin_write().unwrap();
                {
                    let def = redb::TableDefinition::<&[u8], &[u8]>::new(table);
                    let mut t = tx.open_table(def).unwrap();
                    for (k, v) in &rows {
                        t.insert(k.as_slice(), v.as_slice()).unwrap();
                    }
                }
                tx.commit().unwrap();
            }
            Store::Fjall(_, db) => {
                let ks = db
                    .keyspace(table, fjall::KeyspaceCreateOptions::default)
                    .unwrap();
                for (k, v) in rows {
                    ks.insert(k, v).unwrap();
                }
            }
            Store::HBase(client, _) => tokio::task::block_in_place(|| {
                client.create_table(table, &["d"], splits).unwrap();
                client.write_raw_rows(table, cells()).unwrap();
            }),
            Store::Bigtable(client, emulator) => {
                let mut admin = emulator.admin().await.unwrap();
                rowkey_bigtable::create_table(
                    &mut admin,
                    "projects/p/instances/i",
                    table,
                    &["d"],
                    splits,
                )
                .await
                .unwrap();
                rowkey_bigtable::write_raw_rows(client, table, cells())
                    .await
                    .unwrap();
            }
        }
    }

    /// `table` of `layout`.
    fn table(&self, table: &str, layout: &'static rowkey_core::Layout) -> KeyTable {
        match self {
            Store::Redb(_, db) => KeyTable::redb(db.clone(), table, layout),
            Store::Fjall(_, db) => KeyTable::fjall(db.clone(), table, layout),
            Store::HBase(client, _) => KeyTable::hbase(client.clone(), table, layout),
            Store::Bigtable(client, _) => KeyTable::bigtable((**client).clone(), table, layout),
        }
        .unwrap()
    }

    /// The value column of the store's rows.
    fn value(&self, name: &str, ty: ValueType) -> ValueColumn {
        match self {
            Store::Redb(..) | Store::Fjall(..) => ValueColumn::whole(name, ty),
            _ => ValueColumn::cell(name, "d", "v", ty),
        }
    }
}

/// The tables under test on one store, and the oracle's.
struct Sides {
    rowkey: SessionContext,
    oracle: SessionContext,
    tables: Vec<(&'static str, Arc<KeyTable>)>,
}

fn sides(store: &Store, base: i64) -> Sides {
    let config = SessionConfig::new().with_target_partitions(4);
    let rowkey = SessionContext::new_with_config(config.clone());
    let oracle = SessionContext::new_with_config(config);
    let mut tables = Vec::new();

    let events = events(base);
    let t = store
        .table("events", Event::LAYOUT)
        .value(store.value("body", ValueType::Json))
        .unwrap();
    oracle
        .register_table("events", mem(&t, event_columns(&events)))
        .unwrap();
    tables.push(("events", Arc::new(t)));

    let readings = readings();
    let t = store
        .table("readings", Reading::LAYOUT)
        .value(store.value("amount", ValueType::Int64))
        .unwrap();
    oracle
        .register_table("readings", mem(&t, reading_columns(&readings)))
        .unwrap();
    tables.push(("readings", Arc::new(t)));

    let (orders, by) = family_columns(&family());
    let t = store.table("family", Row::LAYOUT).member("Order").unwrap();
    oracle.register_table("orders", mem(&t, orders)).unwrap();
    tables.push(("orders", Arc::new(t)));
    let t = store
        .table("family", Row::LAYOUT)
        .member("ByCustomer")
        .unwrap();
    oracle.register_table("by_customer", mem(&t, by)).unwrap();
    tables.push(("by_customer", Arc::new(t)));

    for (name, t) in &tables {
        rowkey.register_table(*name, t.clone()).unwrap();
    }
    Sides {
        rowkey,
        oracle,
        tables,
    }
}

async fn fill(store: &Store, base: i64) {
    let events = events(base).into_iter();
    let events = events.map(|(e, v)| (e.encode_to_vec().unwrap(), v));
    store
        .write("events", &Event::split_points(), events.collect())
        .await;
    let readings = readings().into_iter();
    let readings = readings.map(|(r, v)| (r.encode_to_vec().unwrap(), v));
    // Three regions (on HBase): the scans are cut at them.
    let splits = [b"ab\x00\x01".to_vec(), b"c".to_vec()];
    store.write("readings", &splits, readings.collect()).await;
    let family = family().into_iter().map(|k| (k, Vec::new()));
    store
        .write("family", &[b"I".to_vec()], family.collect())
        .await;
}

/// The query's answer as text, its lines sorted unless the query orders
/// them.
async fn answer(ctx: &SessionContext, sql: &str) -> Result<String, String> {
    let batches = ctx
        .sql(sql)
        .await
        .map_err(|e| e.to_string())?
        .collect()
        .await
        .map_err(|e| e.to_string())?;
    let text = pretty_format_batches(&batches).unwrap().to_string();
    if sql.contains("ORDER BY") {
        return Ok(text);
    }
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    Ok(lines.join("\n"))
}

/// A timestamp `minutes` after `base`, as SQL text compared with a
/// timestamp column (cast to its type).
fn ts(base: i64, minutes: i64) -> String {
    let t = chrono::DateTime::from_timestamp_millis(base + minutes * 60_000).unwrap();
    format!("'{}'", t.to_rfc3339())
}

/// The corpus.
fn corpus(base: i64) -> Vec<String> {
    let t = |m| ts(base, m);
    let mut q: Vec<String> = vec![
        // A salted layout: user_id picks the bucket; a desc timestamp.
        "SELECT * FROM events WHERE user_id = 42".into(),
        "SELECT * FROM events WHERE user_id IN (1, 7, 199)".into(),
        "SELECT * FROM events WHERE user_id < 5".into(),
        "SELECT * FROM events WHERE user_id <= 5 AND user_id > 2".into(),
        "SELECT * FROM events WHERE user_id BETWEEN 10 AND 12".into(),
        format!("SELECT * FROM events WHERE user_id = 42 AND ts >= {}", t(200)),
        format!("SELECT * FROM events WHERE user_id = 42 AND ts < {}", t(200)),
        format!("SELECT user_id, ts FROM events WHERE ts BETWEEN {} AND {}", t(90), t(150)),
        format!("SELECT * FROM events WHERE user_id = 3 AND ts = {}", t(33)),
        "SELECT * FROM events WHERE ts > now() - INTERVAL '1' HOUR".into(),
        "SELECT * FROM events WHERE user_id = 8 AND ts > now() - INTERVAL '3' HOUR".into(),
        "SELECT * FROM events WHERE kind = 'click' AND user_id < 30".into(),
        "SELECT * FROM events WHERE kind IN ('buy', 'view') AND user_id < 10".into(),
        "SELECT * FROM events WHERE kind LIKE 'cl%' AND user_id > 180".into(),
        "SELECT * FROM events WHERE kind LIKE 'sc%' AND user_id = 3".into(),
        "SELECT * FROM events WHERE kind > 'click' AND user_id = 9".into(),
        "SELECT * FROM events WHERE user_id = 1 OR kind = 'buy' AND user_id > 190".into(),
        format!(
            "SELECT * FROM events WHERE (user_id = 1 AND ts > {}) OR (user_id = 2 AND kind = 'view')",
            t(300)
        ),
        "SELECT * FROM events WHERE user_id = 42 OR user_id = 43".into(),
        "SELECT * FROM events WHERE user_id > 195 OR user_id < 2".into(),
        "SELECT * FROM events WHERE user_id = 42 ORDER BY ts DESC LIMIT 3".into(),
        "SELECT count(*) FROM events WHERE user_id > 100".into(),
        "SELECT user_id, count(*) FROM events WHERE kind = 'click' GROUP BY user_id".into(),
        "SELECT kind, count(*) FROM events GROUP BY kind".into(),
        "SELECT * FROM events WHERE kind = 'much too long'".into(),
        "SELECT count(*) FROM (SELECT * FROM events WHERE user_id = 42 LIMIT 5)".into(),
        "SELECT user_id, body FROM events WHERE user_id = 42 AND body LIKE '%1%'".into(),
        "SELECT * FROM events WHERE NOT (user_id = 4) AND user_id < 8".into(),
        "SELECT * FROM events WHERE user_id <> 5 AND user_id < 8".into(),
        "SELECT * FROM events WHERE kind IS NULL".into(),
        "SELECT * FROM events WHERE user_id IN (5, 6) AND kind NOT IN ('buy')".into(),
        "SELECT max(ts), min(ts) FROM events WHERE user_id = 77".into(),
        // Every kind of field, unsalted.
        "SELECT * FROM readings WHERE site = 'b'".into(),
        "SELECT * FROM readings WHERE site LIKE 'a%'".into(),
        "SELECT * FROM readings WHERE site > 'b' AND sensor = 3".into(),
        "SELECT * FROM readings WHERE sensor IN (1, 2) AND site = 'c'".into(),
        "SELECT * FROM readings WHERE level > 0".into(),
        "SELECT * FROM readings WHERE level BETWEEN -5 AND 5 AND site = 'a'".into(),
        "SELECT * FROM readings WHERE on = true AND site = 'b'".into(),
        "SELECT * FROM readings WHERE batch IS NULL".into(),
        "SELECT * FROM readings WHERE batch = 7".into(),
        "SELECT * FROM readings WHERE batch > 3".into(),
        "SELECT * FROM readings WHERE batch <= 2 AND site = 'ba'".into(),
        "SELECT * FROM readings WHERE batch IS NULL AND site = 'a' AND sensor = 1".into(),
        "SELECT * FROM readings WHERE temp > 20.5".into(),
        "SELECT * FROM readings WHERE temp = 0.0".into(),
        "SELECT * FROM readings WHERE temp < 1.0 AND site = 'c'".into(),
        "SELECT * FROM readings WHERE code = 'é'".into(),
        "SELECT * FROM readings WHERE code IN ('x', 'y') AND sensor = 0".into(),
        "SELECT * FROM readings WHERE raw = X'0102'".into(),
        "SELECT * FROM readings WHERE grade = 'High' AND site = 'b'".into(),
        "SELECT * FROM readings WHERE grade IN ('Low', 'Mid') AND sensor = 5".into(),
        "SELECT * FROM readings WHERE grade = 'Nope'".into(),
        "SELECT * FROM readings WHERE grade > 'Low' AND site = 'c'".into(),
        "SELECT * FROM readings WHERE site = 'a' ORDER BY site, sensor, level DESC LIMIT 7".into(),
        "SELECT * FROM readings ORDER BY site, sensor, level DESC LIMIT 10".into(),
        "SELECT site, sensor FROM readings ORDER BY site DESC, sensor DESC LIMIT 4".into(),
        "SELECT * FROM readings WHERE site = 'a' OR sensor = 2".into(),
        "SELECT * FROM readings WHERE (site = 'a' OR site = 'c') AND level < 0".into(),
        "SELECT * FROM readings WHERE sensor >= 4 AND amount > 1000".into(),
        "SELECT site, sum(amount) FROM readings GROUP BY site".into(),
        "SELECT * FROM readings WHERE site IN ('a', 'zz') AND sensor < 2 AND level >= 0".into(),
        "SELECT * FROM readings WHERE on = false OR batch IS NULL".into(),
        "SELECT * FROM readings WHERE site LIKE 'b_'".into(),
        "SELECT * FROM readings WHERE site LIKE '%a'".into(),
        "SELECT * FROM readings WHERE CAST(sensor AS BIGINT) = 3 AND site = 'ab'".into(),
        "SELECT * FROM readings WHERE level < -10 OR level > 10".into(),
        "SELECT count(*) FROM readings WHERE site >= 'ab' AND site < 'ba'".into(),
        // A key family's members, in one table.
        "SELECT * FROM orders WHERE id < 50".into(),
        "SELECT count(*) FROM orders".into(),
        "SELECT * FROM orders ORDER BY id LIMIT 5".into(),
        "SELECT * FROM by_customer WHERE customer = 'alice'".into(),
        "SELECT * FROM by_customer WHERE customer LIKE 'b%' AND ts > 1050".into(),
        "SELECT count(*) FROM by_customer".into(),
        "SELECT o.id, b.customer FROM orders o JOIN by_customer b ON b.ts = o.id + 1000 WHERE o.id < 10".into(),
    ];
    q.shrink_to_fit();
    q
}

async fn run_corpus(store: Store) {
    let base = base_ms();
    fill(&store, base).await;
    let sides = sides(&store, base);
    let corpus = corpus(base);
    assert!(corpus.len() >= 60, "{} queries", corpus.len());
    let mut failures = Vec::new();
    for sql in &corpus {
        let ours = answer(&sides.rowkey, sql).await;
        let theirs = answer(&sides.oracle, sql).await;
        let theirs = theirs.unwrap_or_else(|e| panic!("the oracle refused {sql}: {e}"));
        match ours {
            Ok(ours) if ours == theirs => {}
            Ok(ours) => failures.push(format!("{sql}\nrowkey:\n{ours}\noracle:\n{theirs}")),
            Err(e) => failures.push(format!("{sql}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} queries differ:\n{}",
        failures.len(),
        corpus.len(),
        failures.join("\n\n")
    );
    // The answers came from the stores.
    for (name, t) in &sides.tables {
        assert!(t.rows_read() > 0, "{name}");
    }
    // HBase's regions are partitions of their own, each in key order.
    if let Store::HBase(..) = store {
        let plan = answer(
            &sides.rowkey,
            "EXPLAIN SELECT * FROM readings ORDER BY site LIMIT 3",
        )
        .await
        .unwrap();
        assert!(
            plan.contains("KeyScanExec: hbase `Reading`, partitions=3"),
            "{plan}"
        );
        assert!(!plan.contains("SortExec"), "{plan}");
    }
    // A store of cells sends no values to a query of key columns only
    // (HBase's KeyOnlyFilter, Bigtable's strip_value_transformer), and
    // does to one that projects a value (the answers are the corpus's):
    // EXPLAIN says so, and EXPLAIN ANALYZE counts the bytes of value the
    // store sent.
    if !matches!(store, Store::Redb(..) | Store::Fjall(..)) {
        for (sql, keys_only) in [
            ("SELECT user_id, kind FROM events WHERE user_id = 42", true),
            ("SELECT count(*) FROM events", true),
            ("SELECT kind, body FROM events WHERE user_id = 42", false),
        ] {
            let plan = answer(&sides.rowkey, &format!("EXPLAIN {sql}"))
                .await
                .unwrap();
            assert_eq!(plan.contains(", keys only"), keys_only, "{sql}\n{plan}");
            let run = answer(&sides.rowkey, &format!("EXPLAIN ANALYZE {sql}"))
                .await
                .unwrap();
            assert!(run.contains("rows_read="), "{run}");
            let sent = run
                .split_once("value_bytes=")
                .and_then(|(_, after)| after.split([',', ']']).next())
                .unwrap_or_else(|| panic!("no value_bytes in {run}"));
            assert_eq!(sent == "0", keys_only, "{sql}\n{run}");
        }
    }
    inserts(&store, &sides).await;
}

/// `INSERT INTO`: rows from SQL values and from a query, read back; a
/// key that does not fit names its row and column and writes nothing of
/// the statement (on redb and fjall, one transaction; on HBase and
/// Bigtable, the failing row came before any write).
async fn inserts(store: &Store, sides: &Sides) {
    store
        .write("inserted", &Event::split_points(), Vec::new())
        .await;
    let table = store
        .table("inserted", Event::LAYOUT)
        .value(store.value("body", ValueType::Json))
        .unwrap();
    let ctx = &sides.rowkey;
    ctx.register_table("inserted", Arc::new(table)).unwrap();
    let run = |sql: &'static str| async move { ctx.sql(sql).await?.collect().await };
    run("INSERT INTO inserted VALUES \
         (7, '2026-01-02T03:04:05.678Z', 'buy', '{\"a\":1}'), \
         (8, '2026-01-02T03:04:05Z', 'view', '{}')")
    .await
    .unwrap();
    let got = answer(
        ctx,
        "SELECT user_id, CAST(ts AS BIGINT) AS ms, kind, body FROM inserted ORDER BY user_id",
    )
    .await
    .unwrap();
    let want = [
        "+---------+---------------+------+---------+",
        "| user_id | ms            | kind | body    |",
        "+---------+---------------+------+---------+",
        "| 7       | 1767323045678 | buy  | {\"a\":1} |",
        "| 8       | 1767323045000 | view | {}      |",
        "+---------+---------------+------+---------+",
    ];
    assert_eq!(got, want.join("\n"));

    run("INSERT INTO inserted SELECT * FROM events WHERE user_id = 42")
        .await
        .unwrap();
    assert_eq!(
        answer(ctx, "SELECT * FROM inserted WHERE user_id = 42").await,
        answer(ctx, "SELECT * FROM events WHERE user_id = 42").await
    );

    let err = run("INSERT INTO inserted VALUES \
                   (9, '2026-01-01T00:00:00Z', 'buy', '{}'), \
                   (10, '2026-01-01T00:00:00Z', 'much too long', '{}')")
    .await
    .unwrap_err()
    .to_string();
    assert!(err.contains("INSERT: row 2, column `kind`: "), "{err}");
    assert!(err.contains("13 bytes"), "{err}");
    let left = answer(
        ctx,
        "SELECT count(*) AS n FROM inserted WHERE user_id IN (9, 10)",
    )
    .await;
    assert!(
        left.unwrap().contains("| 0 |"),
        "nothing of the statement written"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corpus_on_redb() {
    run_corpus(Store::redb()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corpus_on_fjall() {
    run_corpus(Store::fjall()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corpus_on_hbase_native() {
    let hbase = tokio::task::spawn_blocking(|| rowkey_hbase::testing::HBase::start().unwrap())
        .await
        .unwrap();
    let client = rowkey_hbase::Client::native(hbase.bootstrap())
        .build()
        .unwrap();
    run_corpus(Store::HBase(client, Box::new(hbase))).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corpus_on_bigtable_emulator() {
    let emulator = rowkey_bigtable::emulator::Emulator::start().unwrap();
    let client = emulator.client("p", "i").unwrap();
    run_corpus(Store::Bigtable(Box::new(client), emulator)).await;
}

#[derive(RowKey, Debug, Clone)]
struct Tick {
    n: u32,
}

/// Bigtable's sampled keys (`SampleRowKeys`) cut the scan of an unsalted
/// table into partitions, each in key order: `ORDER BY` the key with a
/// `LIMIT` merges them without a sort, each partition stopping at the
/// limit, and every row is read once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bigtable_table_is_read_in_parts_at_its_sampled_keys() {
    let emulator = rowkey_bigtable::emulator::Emulator::start().unwrap();
    let client = emulator.client("p", "i").unwrap();
    let mut admin = emulator.admin().await.unwrap();
    rowkey_bigtable::create_table(&mut admin, "projects/p/instances/i", "ticks", &["d"], &[])
        .await
        .unwrap();
    const ROWS: u32 = 5_000;
    let rows = (0..ROWS).map(|n| {
        let cell = ("d".to_owned(), b"v".to_vec(), n.to_be_bytes().to_vec());
        (Tick { n }.encode_to_vec().unwrap(), vec![cell])
    });
    rowkey_bigtable::write_raw_rows(&client, "ticks", rows.collect::<Vec<_>>())
        .await
        .unwrap();
    // The emulator samples about one row in a hundred: some 50 keys.
    let samples = rowkey_bigtable::sample_row_keys(&client, "ticks")
        .await
        .unwrap();
    assert!((10..=200).contains(&samples.len()), "{}", samples.len());
    assert!(samples.windows(2).all(|w| w[0].0 < w[1].0));

    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(4));
    let table = Arc::new(KeyTable::bigtable(client, "ticks", Tick::LAYOUT).unwrap());
    ctx.register_table("ticks", table.clone()).unwrap();
    let sql = "SELECT n FROM ticks ORDER BY n LIMIT 10";
    let plan = answer(&ctx, &format!("EXPLAIN {sql}")).await.unwrap();
    assert!(
        plan.contains("KeyScanExec: bigtable `Tick`, partitions=4"),
        "{plan}"
    );
    assert!(!plan.contains("SortExec"), "{plan}");
    let before = table.rows_read();
    let first: Vec<String> = (0..10).map(|n| format!("| {n} ")).collect();
    let got = answer(&ctx, sql).await.unwrap();
    let lines: Vec<&str> = got.lines().skip(3).take(10).collect();
    assert!(
        lines
            .iter()
            .zip(&first)
            .all(|(l, f)| l.starts_with(f.as_str())),
        "{got}"
    );
    assert!(
        table.rows_read() - before <= 40,
        "{}",
        table.rows_read() - before
    );
    let all = answer(&ctx, "SELECT count(*) AS c, sum(n) AS s FROM ticks")
        .await
        .unwrap();
    let sum = u64::from(ROWS) * u64::from(ROWS - 1) / 2;
    assert!(all.contains(&format!("| {ROWS} | {sum} |")), "{all}");
}
