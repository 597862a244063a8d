//! A table moved to another key layout on the test HBase (two region
//! servers), in one run: 400,000 rows of the salt change (10
//! `mod` buckets to 32, the timestamp turned `desc_ts`) copied by bulk
//! load (HFiles sorted in memory, loaded through the region servers) and
//! by puts (pages of 5,000 rows through the native client), 4 regions at
//! once each; then `verify` of the result. Rows per second of each, and
//! the ratio.
//!
//! `cargo bench -p rowkey-hbase --features native,migrate --bench migrate`
//! (a few minutes). Wall-clock figures on a shared machine: read the
//! ratio, and see BENCHMARKS.md for the run they come from.

use std::time::Instant;

use rowkey_core::migrate::Migration;
use rowkey_core::DynLayout;
use rowkey_hbase::migrate::{self, MigrateOptions};
use rowkey_hbase::testing::HBase;
use rowkey_hbase::{Cell, Client};

const ROWS: u64 = 400_000;

fn main() {
    let hbase = HBase::start_with(2).expect("HBase starts");
    let client = Client::native(hbase.bootstrap()).build().expect("client");
    let old = DynLayout::parse("[salt(user_id)/10 mod][user_id u64][ts i64]").unwrap();
    let new = DynLayout::parse("[salt(user_id)/32][user_id u64][ts desc_ts i64]").unwrap();
    client
        .create_table("events", &["d"], &old.split_points())
        .unwrap();
    let rows = (0..ROWS).map(|i| {
        let key = old
            .encode(&[(i % 1_000).into(), (i as i64).into()])
            .unwrap();
        let cells: Vec<Cell> = vec![
            ("d".into(), b"v".to_vec(), i.to_be_bytes().to_vec()),
            ("d".into(), b"kind".to_vec(), b"click".to_vec()),
        ];
        (key, cells)
    });
    client.write_raw_rows("events", rows).unwrap();
    let migration = Migration::new(old.layout(), new.layout()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut rates = Vec::new();
    for (name, table, options) in [
        (
            "bulk load",
            "by_bulk",
            MigrateOptions::bulk_load(dir.path()).workers(4),
        ),
        ("puts", "by_puts", MigrateOptions::puts().workers(4)),
    ] {
        let started = Instant::now();
        let report = migrate::migrate(&client, "events", table, &migration, &options).unwrap();
        let secs = started.elapsed().as_secs_f64();
        assert_eq!(report.rows_written, ROWS);
        let rate = ROWS as f64 / secs;
        println!("{name:>9}: {ROWS} rows in {secs:.1} s, {rate:.0} rows/s");
        rates.push(rate);
        let started = Instant::now();
        let check = migrate::verify(&client, "events", table, &migration).unwrap();
        assert!(check.is_clean(), "{check}");
        println!(
            "   verify: {} rows in {:.1} s",
            check.rows_new,
            started.elapsed().as_secs_f64()
        );
    }
    println!("bulk load / puts: {:.2}x", rates[0] / rates[1]);
}
