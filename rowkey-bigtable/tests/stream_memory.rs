//! A streamed scan's memory does not grow with the rows it reads: the peak
//! heap of the whole test process while streaming 100,000 rows from the
//! emulator is about that of streaming 10,000, while collecting them with
//! `read_scan` grows with the rows (which shows that the measure sees
//! growth). Heap bytes are counted by a global allocator, so this is its own
//! test binary with one test.
//!
//! It stalled one run in four while the data client was bigtable_rs's,
//! with h2's default windows (likely the ranges waiting unread filling the
//! connection window, see `rowkey_bigtable::Client::endpoint`); on rowkey's
//! sized channel it passed 5 runs of 5.
// A counting allocator has to implement the unsafe GlobalAlloc trait.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use futures_util::StreamExt;
use rowkey_bigtable::emulator::Emulator;
use rowkey_bigtable::{create_table, read_scan, stream_scan, write_rows};
use rowkey_core::prelude::*;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(live, Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` and returns the peak heap above the live heap at its start.
async fn peak_during<F: std::future::Future<Output = usize>>(f: F) -> (usize, usize) {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let rows = f.await;
    (PEAK.load(Relaxed) - base, rows)
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 16)]
struct Event {
    #[desc_ts]
    ts: i64,
    user: u32,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamed_scans_do_not_grow_with_the_rows_read() {
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let client = emulator.client("rowkey-test", "rowkey").unwrap();
    let mut admin = emulator.admin().await.unwrap();
    let instance = "projects/rowkey-test/instances/rowkey";
    create_table(
        &mut admin,
        instance,
        "events",
        &["d"],
        &Event::split_points(),
    )
    .await
    .unwrap();
    let rows: Vec<Event> = (0..100_000)
        .map(|i| Event {
            ts: 1_700_000_000_000 + i,
            user: (i % 1_000) as u32,
        })
        .collect();
    for chunk in rows.chunks(5_000) {
        let cells = chunk.iter().map(|e| {
            (
                e.clone(),
                vec![("d".to_string(), b"v".to_vec(), vec![7u8; 300])],
            )
        });
        write_rows(&client, "events", cells).await.unwrap();
    }

    let stream = |limit: Option<u64>| {
        let client = client.clone();
        async move {
            let mut s = stream_scan(&client, "events", &Event::scan_all(), limit)
                .await
                .unwrap();
            let mut n = 0;
            while let Some(row) = s.next().await {
                row.unwrap();
                n += 1;
            }
            n
        }
    };
    let (small, n) = peak_during(stream(Some(10_000))).await;
    assert_eq!(n, 10_000);
    let (large, n) = peak_during(stream(None)).await;
    assert_eq!(n, 100_000);
    let (collected, n) = peak_during(async {
        read_scan(&client, "events", &Event::scan_all())
            .await
            .unwrap()
            .len()
    })
    .await;
    assert_eq!(n, 100_000);
    println!(
        "peak heap: stream 10k rows {small} B, stream 100k rows {large} B, collect 100k rows {collected} B"
    );
    assert!(
        large < 2 * small,
        "streaming 10x the rows took {large} B at the peak against {small} B"
    );
    assert!(
        collected > 5 * large,
        "collecting ({collected} B) should dwarf streaming ({large} B)"
    );
}
