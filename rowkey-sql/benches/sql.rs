//! SQL over a million rows: each query through a `KeyTable` with its key
//! predicates pushed down against the same table with pushdown off (every
//! row read, DataFusion filtering), in the same run: rows read and time.
//!
//! `cargo bench -p rowkey-sql --bench sql` prints a Markdown table
//! (BENCHMARKS.md, "SQL").

use std::sync::Arc;
use std::time::{Duration, Instant};

use rowkey_core::prelude::*;
use rowkey_sql::datafusion::prelude::{SessionConfig, SessionContext};
use rowkey_sql::KeyTable;

/// One user's events, salted into 16 buckets: the README's key.
#[derive(RowKey)]
#[salt(buckets = 16, by(user_id))]
struct UserEvent {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
    #[fixed(8)]
    kind: String,
}

/// Readings by site and minute: an unsalted key.
#[derive(RowKey)]
struct Reading {
    site: u32,
    minute: u32,
}

const ROWS: u64 = 1_000_000;
const KINDS: [&str; 4] = ["click", "view", "buy", "scroll"];
const BASE: i64 = 1_700_000_000_000;

fn write(db: &redb::Database, table: &str, keys: impl Iterator<Item = Vec<u8>>) {
    let tx = db.begin_write().unwrap();
    {
        let mut t = tx
            .open_table(redb::TableDefinition::<&[u8], &[u8]>::new(table))
            .unwrap();
        for k in keys {
            t.insert(k.as_slice(), &[][..]).unwrap();
        }
    }
    tx.commit().unwrap();
}

/// The median of three runs' times, and the rows the last run read.
fn measure(
    rt: &tokio::runtime::Runtime,
    ctx: &SessionContext,
    table: &KeyTable,
    sql: &str,
) -> (Duration, u64, usize) {
    let mut times = Vec::new();
    let mut read = 0;
    let mut rows = 0;
    for _ in 0..3 {
        let before = table.rows_read();
        let start = Instant::now();
        let batches = rt
            .block_on(async { ctx.sql(sql).await?.collect().await })
            .unwrap();
        times.push(start.elapsed());
        read = table.rows_read() - before;
        rows = batches.iter().map(|b| b.num_rows()).sum();
    }
    times.sort();
    (times[1], read, rows)
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let db = Arc::new(redb::Database::create(dir.path().join("sql.redb")).unwrap());
    let users = ROWS / 100;
    write(
        &db,
        "events",
        (0..ROWS).map(|i| {
            let event = UserEvent {
                user_id: i % users,
                ts_millis: BASE + (i / users) as i64 * 1_000,
                kind: KINDS[(i % 7 % 4) as usize].into(),
            };
            event.encode_to_vec().unwrap()
        }),
    );
    write(
        &db,
        "readings",
        (0..ROWS as u32).map(|i| {
            let reading = Reading {
                site: i / 1_000,
                minute: i % 1_000,
            };
            reading.encode_to_vec().unwrap()
        }),
    );
    let rt = tokio::runtime::Runtime::new().unwrap();
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(4));
    let table = |name: &str, layout| KeyTable::redb(db.clone(), name, layout).unwrap();
    let pushed = [
        Arc::new(table("events", UserEvent::LAYOUT)),
        Arc::new(table("readings", Reading::LAYOUT)),
    ];
    let full = [
        Arc::new(table("events", UserEvent::LAYOUT).without_pushdown()),
        Arc::new(table("readings", Reading::LAYOUT).without_pushdown()),
    ];
    ctx.register_table("events", pushed[0].clone()).unwrap();
    ctx.register_table("readings", pushed[1].clone()).unwrap();
    ctx.register_table("events_full", full[0].clone()).unwrap();
    ctx.register_table("readings_full", full[1].clone())
        .unwrap();

    let queries: [(usize, &str, &str); 6] = [
        (
            0,
            "one user's last minute (a range in one bucket)",
            "SELECT * FROM {} WHERE user_id = 4242 AND ts_millis >= 1700000040000",
        ),
        (
            0,
            "three users, one kind (3 buckets, skip scan)",
            "SELECT * FROM {} WHERE user_id IN (1, 2, 3) AND kind = 'buy'",
        ),
        (
            0,
            "a count by kind over every row",
            "SELECT kind, count(*) FROM {} GROUP BY kind",
        ),
        (
            1,
            "one minute of every site (skip scan)",
            "SELECT * FROM {} WHERE minute = 42",
        ),
        (
            1,
            "ORDER BY the key LIMIT 10",
            "SELECT * FROM {} ORDER BY site, minute LIMIT 10",
        ),
        (
            1,
            "sites 10 to 19, minutes under 5",
            "SELECT * FROM {} WHERE site BETWEEN 10 AND 19 AND minute < 5",
        ),
    ];
    println!("| query | rows | rows read, pushed down | rows read, not | time, pushed down | time, not | speed-up |");
    println!("|---|---|---|---|---|---|---|");
    for (t, what, sql) in queries {
        let name = ["events", "readings"][t];
        let (fast, fast_read, rows) = measure(&rt, &ctx, &pushed[t], &sql.replace("{}", name));
        let full_name = format!("{name}_full");
        let (slow, slow_read, slow_rows) =
            measure(&rt, &ctx, &full[t], &sql.replace("{}", &full_name));
        assert_eq!(rows, slow_rows, "{what}: the same answer");
        println!(
            "| {what} | {rows} | {fast_read} | {slow_read} | {:.1} ms | {:.1} ms | {:.0}x |",
            fast.as_secs_f64() * 1e3,
            slow.as_secs_f64() * 1e3,
            slow.as_secs_f64() / fast.as_secs_f64()
        );
    }
}
