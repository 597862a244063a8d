//! What pushdown reads and reports: the rows a query reads against the
//! typed API's skip scan for the same predicate, a LIMIT on the key's
//! order, EXPLAIN's plan, exact and inexact filters, the cap of 64 `OR`
//! branches, `now() - INTERVAL` as an exact range, bad input.

use std::sync::Arc;

use redb::ReadableDatabase;
use rowkey_core::prelude::*;
use rowkey_sql::datafusion::arrow::util::pretty::pretty_format_batches;
use rowkey_sql::datafusion::prelude::{SessionConfig, SessionContext};
use rowkey_sql::{KeyTable, ValueColumn, ValueType};

#[derive(RowKey, Debug, Clone)]
#[salt(buckets = 8, by(user_id))]
struct Event {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
    #[fixed(8)]
    kind: String,
}

#[derive(RowKey, Debug, Clone)]
struct Sensor {
    site: u32,
    minute: u16,
    temp: f64,
}

const KINDS: [&str; 4] = ["click", "view", "buy", "scroll"];

fn db_with<K: RowKey>(rows: impl Iterator<Item = K>) -> (tempfile::TempDir, Arc<redb::Database>) {
    let dir = tempfile::tempdir().unwrap();
    let db = Arc::new(redb::Database::create(dir.path().join("t.redb")).unwrap());
    let tx = db.begin_write().unwrap();
    {
        let mut t = tx.open_table(def()).unwrap();
        for k in rows {
            t.insert(k.encode_to_vec().unwrap().as_slice(), &b"v"[..])
                .unwrap();
        }
    }
    tx.commit().unwrap();
    (dir, db)
}

fn def() -> redb::TableDefinition<'static, &'static [u8], &'static [u8]> {
    redb::TableDefinition::new("t")
}

fn events() -> impl Iterator<Item = Event> {
    (0..300u64).flat_map(|user_id| {
        (0..30i64).map(move |i| Event {
            user_id,
            ts_millis: 1_700_000_000_000 + i * 1000,
            kind: KINDS[(i % 4) as usize].into(),
        })
    })
}

/// The rows the typed API's skip scan reads for `filter` on redb.
fn typed_rows_read(db: &redb::Database, filter: &rowkey_core::scan::KeyFilter) -> (u64, usize) {
    let tx = db.begin_read().unwrap();
    let t = tx.open_table(def()).unwrap();
    let rows = rowkey_core::redb::filter_raw(&t, filter).unwrap();
    let cost = rows.cost().clone();
    let n = rows.count();
    (cost.rows_read(), n)
}

async fn rows(ctx: &SessionContext, sql: &str) -> usize {
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    batches.iter().map(|b| b.num_rows()).sum()
}

async fn explain(ctx: &SessionContext, sql: &str) -> String {
    let batches = ctx
        .sql(&format!("EXPLAIN {sql}"))
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    pretty_format_batches(&batches).unwrap().to_string()
}

fn context(partitions: usize) -> SessionContext {
    SessionContext::new_with_config(SessionConfig::new().with_target_partitions(partitions))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exact_pushdown_reads_what_the_typed_skip_scan_reads() {
    let (_dir, db) = db_with(events());
    let table = Arc::new(KeyTable::redb(db.clone(), "t", Event::LAYOUT).unwrap());
    let ctx = context(4);
    ctx.register_table("events", table.clone()).unwrap();
    let from = 1_700_000_000_000 + 20_000;
    let cases: Vec<(String, rowkey_core::scan::KeyFilter)> = vec![
        (
            format!("user_id = 42 AND ts_millis >= {from}"),
            Event::filter()
                .user_id(42)
                .ts_millis(from..)
                .build()
                .unwrap(),
        ),
        (
            "user_id IN (7, 8, 9) AND kind = 'buy'".into(),
            Event::filter()
                .user_id(rowkey_core::scan::any_of([7, 8, 9]))
                .kind("buy")
                .build()
                .unwrap(),
        ),
        (
            // Every bucket: a skip scan over each, side by side.
            "kind = 'view'".into(),
            Event::filter().kind("view").build().unwrap(),
        ),
        (
            format!("ts_millis BETWEEN {from} AND {}", from + 2_000),
            Event::filter()
                .ts_millis(from..=from + 2_000)
                .build()
                .unwrap(),
        ),
    ];
    for (predicate, filter) in cases {
        let sql = format!("SELECT * FROM events WHERE {predicate}");
        let plan = explain(&ctx, &sql).await;
        assert!(plan.contains("pushdown=skip scan"), "{plan}");
        assert!(
            !plan.contains("FilterExec"),
            "exact, so DataFusion filters nothing: {plan}"
        );
        let before = table.rows_read();
        let got = rows(&ctx, &sql).await;
        let read = table.rows_read() - before;
        let (floor, want) = typed_rows_read(&db, &filter);
        assert_eq!(got, want, "{predicate}");
        assert_eq!(read, floor, "{predicate}: rows read");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_scan_without_pushdown_reads_every_row() {
    let (_dir, db) = db_with(events());
    let pushed = Arc::new(KeyTable::redb(db.clone(), "t", Event::LAYOUT).unwrap());
    let full = Arc::new(
        KeyTable::redb(db, "t", Event::LAYOUT)
            .unwrap()
            .without_pushdown(),
    );
    let ctx = context(4);
    ctx.register_table("pushed", pushed.clone()).unwrap();
    ctx.register_table("full", full.clone()).unwrap();
    let q = |t: &str| format!("SELECT * FROM {t} WHERE user_id = 42 AND kind = 'buy'");
    assert_eq!(rows(&ctx, &q("pushed")).await, rows(&ctx, &q("full")).await);
    assert_eq!(full.rows_read(), 9_000);
    assert!(pushed.rows_read() <= 30, "{}", pushed.rows_read());
    assert!(explain(&ctx, &q("full")).await.contains("FilterExec"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn order_by_the_leading_field_with_a_limit_reads_only_the_limit() {
    let (_dir, db) = db_with((0..20_000u32).map(|i| Sensor {
        site: i / 100,
        minute: (i % 100) as u16,
        temp: f64::from(i),
    }));
    let table = Arc::new(KeyTable::redb(db, "t", Sensor::LAYOUT).unwrap());
    let ctx = context(4);
    ctx.register_table("sensors", table.clone()).unwrap();
    let sql = "SELECT site, minute FROM sensors ORDER BY site, minute LIMIT 10";
    let plan = explain(&ctx, sql).await;
    assert!(!plan.contains("SortExec"), "the key's order: {plan}");
    assert!(plan.contains("fetch=10"), "{plan}");
    assert_eq!(rows(&ctx, sql).await, 10);
    assert!(table.rows_read() <= 10, "{} rows read", table.rows_read());

    // A later field first: DataFusion sorts, reading every row.
    let sql = "SELECT site, minute FROM sensors ORDER BY minute, site LIMIT 10";
    assert!(explain(&ctx, sql).await.contains("SortExec"));
    let before = table.rows_read();
    assert_eq!(rows(&ctx, sql).await, 10);
    assert_eq!(table.rows_read() - before, 20_000);

    // An exact filter and a LIMIT: the scan stops at the limit.
    let before = table.rows_read();
    assert_eq!(
        rows(&ctx, "SELECT * FROM sensors WHERE minute = 7 LIMIT 3").await,
        3
    );
    let read = table.rows_read() - before;
    assert!(read < 400, "{read} rows read for 3 matches a site apart");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_names_the_plan_and_what_was_exact() {
    let (_dir, db) = db_with((0..2_000u32).map(|i| Sensor {
        site: i / 100,
        minute: (i % 100) as u16,
        temp: f64::from(i % 7),
    }));
    let table = Arc::new(KeyTable::redb(db, "t", Sensor::LAYOUT).unwrap());
    let ctx = context(4);
    ctx.register_table("sensors", table.clone()).unwrap();

    let plan = explain(
        &ctx,
        "SELECT * FROM sensors WHERE site IN (1, 2) AND minute < 5 AND temp > 3.0",
    )
    .await;
    assert!(plan.contains("KeyScanExec: redb `Sensor`"), "{plan}");
    assert!(
        plan.contains("pushdown=skip scan, branches=1, ranges=1"),
        "{plan}"
    );
    assert!(
        plan.contains("exact=[site = UInt32(1) OR site = UInt32(2), minute < UInt16(5)]"),
        "{plan}"
    );
    assert!(plan.contains("inexact=[temp > Float64(3)]"), "{plan}");
    // The float is checked again by DataFusion; the key predicates are not.
    assert!(plan.contains("FilterExec: temp@2 > 3"), "{plan}");

    let plan = explain(&ctx, "SELECT * FROM sensors WHERE site = 3 OR minute = 4").await;
    assert!(plan.contains("branches=2"), "{plan}");
    assert!(plan.contains("partitions=2"), "{plan}");

    // Up to 64 branches an OR is pushed; past them, not at all: a full
    // scan DataFusion filters, with the same answer.
    let or = |n: u32| {
        let terms: Vec<String> = (0..n)
            .map(|i| format!("(site = {i} AND minute = {i})"))
            .collect();
        format!("SELECT * FROM sensors WHERE {}", terms.join(" OR "))
    };
    let plan = explain(&ctx, &or(64)).await;
    assert!(plan.contains("pushdown=skip scan, branches=64"), "{plan}");
    assert!(!plan.contains("FilterExec"), "{plan}");
    assert_eq!(rows(&ctx, &or(64)).await, 20);
    let plan = explain(&ctx, &or(65)).await;
    assert!(plan.contains("pushdown=full scan"), "{plan}");
    assert!(plan.contains("FilterExec"), "{plan}");
    assert_eq!(rows(&ctx, &or(65)).await, 20);

    // EXPLAIN ANALYZE: rows read beside rows returned.
    let batches = ctx
        .sql("EXPLAIN ANALYZE SELECT * FROM sensors WHERE minute = 42")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    let analyzed = pretty_format_batches(&batches).unwrap().to_string();
    assert!(analyzed.contains("output_rows=20"), "{analyzed}");
    assert!(analyzed.contains("rows_read="), "{analyzed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_tables_and_values_are_named() {
    let (_dir, db) = db_with(events().take(10));
    let err = KeyTable::redb(db.clone(), "t", Event::LAYOUT)
        .unwrap()
        .value(ValueColumn::whole("body", ValueType::Utf8))
        .unwrap()
        .value(ValueColumn::whole("body", ValueType::Binary))
        .unwrap_err();
    assert_eq!(err.to_string(), "two columns named `body`");
    let err = KeyTable::redb(db.clone(), "t", Event::LAYOUT)
        .unwrap()
        .value(ValueColumn::cell("c", "d", "c", ValueType::Binary))
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("value column `c`: a cell column"),
        "{err}"
    );
    let err = KeyTable::redb(db.clone(), "t", Event::LAYOUT)
        .unwrap()
        .member("X")
        .unwrap_err();
    assert_eq!(err.to_string(), "`Event` is not a key family");

    // A value of the wrong width fails the query, naming column and row.
    let table = KeyTable::redb(db, "t", Event::LAYOUT)
        .unwrap()
        .value(ValueColumn::whole("n", ValueType::Int64))
        .unwrap();
    let ctx = context(1);
    ctx.register_table("events", Arc::new(table)).unwrap();
    let err = ctx
        .sql("SELECT n FROM events")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("column `n`, row \\x0")
            && err.contains("1 bytes, but Int64 is 8 big-endian bytes"),
        "{err}"
    );
}

#[derive(RowKey, Debug, Clone)]
struct Visit {
    page: u32,
    #[ts(millis)]
    at: chrono::DateTime<chrono::Utc>,
}

/// `now() - INTERVAL` arrives folded into a timestamp literal of the
/// column's unit: pushed as an exact range, reading the last hour's rows
/// only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn now_minus_an_interval_is_an_exact_range() {
    // A millisecond key: `#[ts(millis)]` refuses a finer time.
    let now =
        chrono::DateTime::from_timestamp_millis(chrono::Utc::now().timestamp_millis()).unwrap();
    let (_dir, db) = db_with((0..3u32).flat_map(|page| {
        (0..180).map(move |minutes| Visit {
            page,
            at: now - chrono::Duration::minutes(minutes),
        })
    }));
    let table = Arc::new(KeyTable::redb(db, "t", Visit::LAYOUT).unwrap());
    let ctx = context(4);
    ctx.register_table("visits", table.clone()).unwrap();
    let sql = "SELECT * FROM visits WHERE page = 1 AND at > now() - INTERVAL '1' HOUR";
    let plan = explain(&ctx, sql).await;
    assert!(
        plan.contains("pushdown=skip scan, branches=1, ranges=1, exact=[page = UInt32(1), at > "),
        "{plan}"
    );
    assert!(plan.contains("inexact=[]"), "{plan}");
    assert!(!plan.contains("FilterExec"), "{plan}");
    let before = table.rows_read();
    assert_eq!(rows(&ctx, sql).await, 60);
    assert_eq!(table.rows_read() - before, 60);
}
