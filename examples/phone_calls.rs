//! Call records keyed by phone number with a modulo partition prefix: the
//! partition is a hash of the number, so one number's calls stay together
//! in one region while numbers spread over all of them.
//!
//! Run: `cargo run --example phone_calls`

use std::collections::{BTreeMap, BTreeSet};

use rowkey_core::prelude::*;

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 10, by(phone))]
struct Call {
    #[fixed(15)]
    phone: String,
    #[desc_ts]
    ts_millis: i64,
    callee: String,
}

fn main() {
    let now = 1_700_000_000_000i64;
    let mut table = BTreeMap::new();
    let phones: Vec<String> = (0..200).map(|i| format!("+4930555{i:04}")).collect();
    for (i, phone) in phones.iter().enumerate() {
        for c in 0..5 {
            let call = Call {
                phone: phone.clone(),
                ts_millis: now - c * 60_000 - i as i64,
                callee: format!("+1555{c:07}"),
            };
            table.insert(call.encode_to_vec().unwrap(), ());
        }
    }

    // Consecutive numbers land in every partition...
    let partitions: BTreeSet<u8> = table.keys().map(|k| k[0]).collect();
    assert_eq!(partitions.len(), 10);
    // ...and each number's calls in exactly one.
    for phone in &phones {
        let buckets: BTreeSet<u8> = table
            .keys()
            .filter(|k| Call::decode(k).unwrap().phone == *phone)
            .map(|k| k[0])
            .collect();
        assert_eq!(buckets.len(), 1, "{phone}");
    }
    println!(
        "200 numbers over {} partitions, each number's calls in one",
        partitions.len()
    );

    // A number's calls: one range in one partition, newest first.
    let scan = Call::scan_by_phone("+49305550042").unwrap();
    assert_eq!(scan.range_count(), 1);
    let range = scan.ranges().next().unwrap();
    let calls: Vec<Call> = table
        .range::<[u8], _>(range.bounds())
        .map(|(k, _)| Call::decode(k).unwrap())
        .collect();
    assert_eq!(calls.len(), 5);
    assert!(calls.windows(2).all(|w| w[0].ts_millis > w[1].ts_millis));
    println!("calls of +49305550042 (partition {}):", range.start()[0]);
    for c in &calls {
        println!("  {} -> {}", c.ts_millis, c.callee);
    }

    // A number longer than the fixed width is an error, not a truncation.
    let err = Call::scan_by_phone("+4930555004200000").unwrap_err();
    println!("too long: {err}");
    assert!(matches!(err, EncodeError::TooLong { field: "phone", .. }));
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
    rowkey_core::assert_layout::<Call>(0x9e03b13ee9a8ebca, "[salt(phone)/10 1][phone fixed(15) String 15][ts_millis desc_ts i64 8][callee String >=0] >= 24 bytes");
}
