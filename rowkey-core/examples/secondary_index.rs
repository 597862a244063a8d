//! A secondary index in the same table: data rows start with `D`, index rows
//! with `I`, and an index row's key carries the data row's id.
//!
//! Run: `cargo run --example secondary_index`

use std::collections::BTreeMap;

use rowkey_core::prelude::*;

/// `D` + order id -> the order.
#[derive(RowKey, Debug, Clone, PartialEq)]
struct OrderRow {
    kind: [u8; 1],
    order_id: u64,
}

/// `I` + customer + newest first + order id -> nothing: the key is the entry.
#[derive(RowKey, Debug, Clone, PartialEq)]
struct ByCustomer {
    kind: [u8; 1],
    customer: String,
    #[desc_ts]
    placed_at: i64,
    order_id: u64,
}

fn main() {
    let mut table: BTreeMap<Vec<u8>, String> = BTreeMap::new();
    let orders = [
        (1, "alice", 100),
        (2, "bob", 110),
        (3, "alice", 120),
        (4, "carol", 130),
        (5, "alice", 140),
    ];
    for (id, customer, t) in orders {
        let data = OrderRow {
            kind: *b"D",
            order_id: id,
        };
        table.insert(data.encode().to_vec(), format!("order {id} of {customer}"));
        let index = ByCustomer {
            kind: *b"I",
            customer: customer.into(),
            placed_at: t,
            order_id: id,
        };
        table.insert(index.encode_to_vec().unwrap(), String::new());
    }

    // Alice's orders, newest first: read the index range, then the data rows.
    let scan = ByCustomer::scan_by_kind_customer(*b"I", "alice");
    let range = scan.ranges().next().unwrap();
    let ids: Vec<u64> = table
        .range::<[u8], _>(range.bounds())
        .map(|(k, _)| ByCustomer::decode(k).unwrap().order_id)
        .collect();
    assert_eq!(ids, [5, 3, 1]);
    for id in &ids {
        let data = &table[&OrderRow {
            kind: *b"D",
            order_id: *id,
        }
        .encode()
        .to_vec()];
        println!("{data}");
    }

    // "alice" is escaped and terminated, so "alicexyz" or "ali" never match.
    table.insert(
        ByCustomer {
            kind: *b"I",
            customer: "alicexyz".into(),
            placed_at: 1,
            order_id: 9,
        }
        .encode_to_vec()
        .unwrap(),
        String::new(),
    );
    assert_eq!(table.range::<[u8], _>(range.bounds()).count(), 3);

    // The data rows are a range of their own.
    let data = OrderRow::scan_by_kind(*b"D");
    let r = data.ranges().next().unwrap();
    assert_eq!(table.range::<[u8], _>(r.bounds()).count(), 5);
    println!(
        "{} data rows, {} index rows in one table",
        5,
        table.len() - 5
    );
}

#[cfg(test)]
#[test]
fn example_runs() {
    main();
}
