//! A salted, newest-first event table on Bigtable: define, pre-split, write,
//! scan one user's last hour, scan all users merged.
//!
//! Run against an emulator (`gcloud beta emulators bigtable start`, or the
//! `cbtemulator` binary):
//! `BIGTABLE_EMULATOR_HOST=127.0.0.1:8086 cargo run -p examples --example bigtable_events`

use rowkey_bigtable::{connect_admin, create_table, read_typed, write_rows, Client};
use rowkey_core::prelude::*;

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 16, by(user_id))]
struct UserEvent {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
    #[fixed(8)]
    kind: String,
}

async fn run(host: &str) -> Result<(), Box<dyn std::error::Error>> {
    let (project, instance) = ("rowkey-example", "events");
    let client = Client::connect_lazy(&format!("http://{host}"), project, instance)?;
    let mut admin = connect_admin(&format!("http://{host}")).await?;
    let table = format!("user_events_{}", std::process::id());

    // One tablet per bucket from the start.
    create_table(
        &mut admin,
        &format!("projects/{project}/instances/{instance}"),
        &table,
        &["d"],
        &UserEvent::split_points(),
    )
    .await?;

    let now = 1_700_000_000_000i64;
    let events: Vec<UserEvent> = (0..600i64)
        .map(|i| UserEvent {
            user_id: (i % 6) as u64,
            ts_millis: now - i * 30_000,
            kind: ["click", "view"][(i % 2) as usize].into(),
        })
        .collect();
    let cell = |e: &UserEvent| {
        vec![(
            "d".to_string(),
            b"kind".to_vec(),
            e.kind.clone().into_bytes(),
        )]
    };
    write_rows(&client, &table, events.iter().map(|e| (e.clone(), cell(e)))).await?;
    println!(
        "wrote {} events into {table}, pre-split into {} tablets",
        events.len(),
        UserEvent::split_points().len() + 1
    );

    // User 3's last hour: one range in one bucket, newest first.
    let scan = UserEvent::range_by_user_id_ts_millis(3, now - 3_600_000..=now);
    let last_hour: Vec<(UserEvent, _)> = read_typed(&client, &table, &scan).await?;
    println!(
        "user 3, last hour: {} events from {} range(s)",
        last_hour.len(),
        scan.range_count()
    );
    for (e, _) in last_hour.iter().take(3) {
        println!("  {} {}", e.ts_millis, e.kind);
    }
    assert_eq!(last_hour.len(), 20, "every 6th event of 120 half-minutes");
    assert!(
        last_hour
            .windows(2)
            .all(|w| w[0].0.ts_millis > w[1].0.ts_millis),
        "newest first"
    );

    // Everyone: 16 ranges read concurrently, merged into (user, newest first).
    let all: Vec<(UserEvent, _)> = read_typed(&client, &table, &UserEvent::scan_all()).await?;
    assert_eq!(all.len(), events.len());
    assert!(all
        .windows(2)
        .all(|w| (w[0].0.user_id, -w[0].0.ts_millis) < (w[1].0.user_id, -w[1].0.ts_millis)));
    println!(
        "all users: {} events from 16 ranges, merged in (user, newest first) order",
        all.len()
    );
    Ok(())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let Ok(host) = std::env::var("BIGTABLE_EMULATOR_HOST") else {
        eprintln!("set BIGTABLE_EMULATOR_HOST to a Bigtable emulator, e.g. 127.0.0.1:8086");
        std::process::exit(2);
    };
    if let Err(e) = run(&host).await {
        eprintln!("bigtable_events: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn example_runs_against_the_emulator() {
    let emulator =
        rowkey_bigtable::emulator::Emulator::start().expect("the Bigtable emulator starts");
    run(&emulator.host()).await.unwrap();
}

/// The key layout, frozen: a change to the key's fields, types, order or
/// attributes fails this test, showing the old and the new layout.
#[cfg(test)]
#[test]
fn layout_is_frozen() {
    rowkey_core::assert_layout::<UserEvent>(
        0x1c91113669b500a3,
        "[salt(user_id)/16 1][user_id u64 8][ts_millis desc_ts i64 8][kind fixed(8) String 8] = 25 bytes",
    );
}
