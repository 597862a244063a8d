//! A one-to-many relation as a tall table: one row per reply, keyed by
//! thread id and reply id, instead of one ever-growing wide row per thread.
//! Pages are ranges that start after the last key seen.
//!
//! Run: `cargo run --example tall_table`

use std::collections::BTreeMap;
use std::ops::Bound;

use rowkey_core::prelude::*;

#[derive(RowKey, Debug, Clone, Copy, PartialEq)]
struct Reply {
    thread_id: u64,
    reply_id: u32,
}

fn main() {
    let mut table = BTreeMap::new();
    for thread_id in 1..=3u64 {
        for reply_id in 0..(25 * thread_id as u32) {
            table.insert(
                Reply {
                    thread_id,
                    reply_id,
                }
                .encode(),
                format!("reply {reply_id} in thread {thread_id}"),
            );
        }
    }

    // Read thread 2 in pages of 10, each page starting after the last reply.
    let mut after = Bound::Unbounded;
    let mut pages = Vec::new();
    loop {
        let scan = Reply::range_by_thread_id_reply_id(2, (after, Bound::Unbounded));
        let range = scan.ranges().next().unwrap();
        let page: Vec<Reply> = table
            .range::<[u8], _>(range.bounds())
            .take(10)
            .map(|(k, _)| Reply::decode(k).unwrap())
            .collect();
        let Some(last) = page.last() else { break };
        after = Bound::Excluded(last.reply_id);
        pages.push(page);
    }
    let sizes: Vec<usize> = pages.iter().map(Vec::len).collect();
    println!("thread 2: pages of {sizes:?}");
    assert_eq!(sizes, [10, 10, 10, 10, 10]);
    let ids: Vec<u32> = pages.iter().flatten().map(|r| r.reply_id).collect();
    assert_eq!(
        ids,
        (0..50).collect::<Vec<_>>(),
        "every reply once, in order"
    );
    // And the other threads are untouched by those scans.
    assert_eq!(
        table
            .range::<[u8], _>(
                Reply::scan_by_thread_id(3)
                    .ranges()
                    .next()
                    .unwrap()
                    .bounds()
            )
            .count(),
        75
    );
}

#[cfg(test)]
#[test]
fn example_runs() {
    main();
}

/// The key layouts, frozen: a change to a key's fields, types, order or
/// attributes fails this test, showing the old and the new layout.
#[test]
fn layouts_are_frozen() {
    rowkey_core::assert_layout::<Reply>(
        0xef69f6eeacf84182,
        "[thread_id u64 8][reply_id u32 4] = 12 bytes",
    );
}
