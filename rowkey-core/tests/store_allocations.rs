//! A merged scan of a salted redb typed table allocates per range (and per
//! page redb reads), not per row: the merge compares keys in place through
//! redb's guards (`rowkey_core::redb::StoredKey`) instead of copying each
//! key out. Counted by a global allocator, per thread.
use redb::{backends::InMemoryBackend, Database, ReadableDatabase};
use rowkey_core::prelude::*;
use rowkey_core::redb::KeyTableDefinition;

#[path = "common/counting.rs"]
mod counting;
use counting::allocations;

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 16, by(user))]
struct Event {
    user: u32,
    #[desc_ts]
    ts: i64,
}

const EVENTS: KeyTableDefinition<Event, u32> = KeyTableDefinition::new("events");

/// Allocations of a merged scan of every row, and the rows it returned.
fn scan_allocations(rows: u32) -> (usize, usize) {
    let db = Database::builder()
        .create_with_backend(InMemoryBackend::new())
        .unwrap();
    let tx = db.begin_write().unwrap();
    {
        let mut t = EVENTS.open(&tx).unwrap();
        for i in 0..rows {
            t.insert(
                &Event {
                    user: i % 500,
                    ts: i64::from(i),
                },
                i,
            )
            .unwrap();
        }
    }
    tx.commit().unwrap();
    let tx = db.begin_read().unwrap();
    let t = EVENTS.open_read(&tx).unwrap();
    let scan = Event::scan_all();
    let mut n = 0;
    let count = allocations(|| {
        for row in t.scan(&scan).unwrap() {
            let (event, value) = row.unwrap();
            assert_eq!(value.value(), event.ts as u32);
            n += 1;
        }
    });
    (count, n)
}

#[test]
fn a_merged_scan_allocates_per_range_not_per_row() {
    let (small, n_small) = scan_allocations(4_000);
    let (large, n_large) = scan_allocations(8_000);
    assert_eq!((n_small, n_large), (4_000, 8_000));
    // 4,000 more rows; a copy per row would be 4,000 more allocations.
    let extra = large.saturating_sub(small);
    println!("{small} allocations for 4,000 rows, {large} for 8,000");
    assert!(extra < 400, "{extra} more allocations for 4,000 more rows");
}
