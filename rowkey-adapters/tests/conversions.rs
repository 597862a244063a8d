//! The converted ranges select exactly the keys the scan's own ranges do.
#![cfg(feature = "tikv")]

use std::ops::RangeBounds;

use proptest::prelude::*;
use rowkey_adapters::tikv;
use rowkey_core::prelude::*;

#[derive(RowKey, Debug, Clone)]
#[salt(buckets = 4, by(user))]
struct Event {
    user: u8,
    #[desc_ts]
    ts: i64,
    tag: Vec<u8>,
}

fn key(user: u8, ts: i64, tag: Vec<u8>) -> Vec<u8> {
    Event { user, ts, tag }.encode_to_vec().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn converted_ranges_select_the_same_keys(
        user in 0u8..6, lo in any::<i64>(), hi in any::<i64>(),
        keys in prop::collection::vec((0u8..6, any::<i64>(), prop::collection::vec(prop_oneof![Just(0u8), Just(0xFF), any::<u8>()], 0..3)), 0..40),
    ) {
        // A range's start is never after its end (that panics, as in BTreeMap).
        let (lo, hi) = (lo.min(hi), lo.max(hi));
        for scan in [Event::scan_all(), Event::scan_by_user(user), Event::range_by_user_ts(user, lo..hi), Event::range_by_user(user..)] {
            let tikv = tikv::bound_ranges(&scan);
            prop_assert_eq!(tikv.len(), scan.range_count());
            for (u, ts, tag) in &keys {
                let k = key(*u, *ts, tag.clone());
                let want = scan.ranges().any(|r| r.contains(&k));
                let tk = tikv_client::Key::from(k.clone());
                prop_assert_eq!(tikv.iter().any(|r| r.contains(&tk)), want);
            }
        }
    }
}

#[derive(RowKey)]
struct Plain {
    id: u32,
}

#[test]
fn open_ended_ranges_have_no_stop_row() {
    // A salted bucket ends where the next begins...
    let (start, end) = tikv::bound_ranges(&Event::scan_all())
        .pop()
        .unwrap()
        .into_keys();
    assert_eq!(
        (Vec::<u8>::from(start), end.map(Vec::<u8>::from)),
        (vec![3], Some(vec![4]))
    );
    // ...an open range of an unsalted key runs to the end of the table.
    let scan = Plain::range_by_id(7..);
    let (start, end) = tikv::bound_ranges(&scan).pop().unwrap().into_keys();
    assert_eq!(Vec::<u8>::from(start), vec![0, 0, 0, 7]);
    assert!(end.is_none());
    // An empty scan has no ranges at all.
    let empty = Event::range_by_user_ts(1, 5..5);
    assert!(tikv::bound_ranges(&empty).is_empty());
}
