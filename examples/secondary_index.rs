//! A secondary index in the same table, as key families: data rows under
//! the prefix `D`, index rows under `I` (salted, so that one busy customer
//! does not make a hot spot), and an enum over both that decodes any row of
//! the table. No tag is passed by hand anywhere.
//!
//! Run: `cargo run -p examples --example secondary_index`

use std::collections::BTreeMap;

use rowkey_core::prelude::*;

/// How an order was placed: stored as its discriminant.
#[derive(KeyField, Debug, Clone, Copy, PartialEq)]
#[repr(u8)]
enum Channel {
    Web = 1,
    Store = 2,
}

/// `D` + order id -> the order.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "D")]
struct OrderRow {
    order_id: u64,
}

/// `I` + bucket + customer + newest first + channel + the data row's key:
/// the key is the whole entry.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "I")]
#[salt(buckets = 4, by(customer))]
struct ByCustomer {
    customer: String,
    #[desc_ts]
    placed_at: i64,
    channel: Channel,
    order: OrderRow,
}

/// Any row of the table.
#[derive(RowKey, Debug, PartialEq)]
enum Row {
    Order(OrderRow),
    ByCustomer(ByCustomer),
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut table: BTreeMap<Vec<u8>, String> = BTreeMap::new();
    let orders = [
        (1, "alice", 100, Channel::Web),
        (2, "bob", 110, Channel::Store),
        (3, "alice", 120, Channel::Store),
        (4, "carol", 130, Channel::Web),
        (5, "alice", 140, Channel::Web),
    ];
    for (id, customer, t, channel) in orders {
        let data = OrderRow { order_id: id };
        table.insert(data.encode().to_vec(), format!("order {id} of {customer}"));
        let index = ByCustomer {
            customer: customer.into(),
            placed_at: t,
            channel,
            order: data,
        };
        table.insert(index.encode_to_vec()?, String::new());
    }

    // Alice's orders, newest first: one index range (her bucket), then the
    // data rows the index points at.
    let scan = ByCustomer::scan_by_customer("alice");
    let range = scan.ranges().next().expect("one bucket");
    let index: Vec<ByCustomer> = table
        .range::<[u8], _>(range.bounds())
        .map(|(k, _)| ByCustomer::decode(k))
        .collect::<Result<_, _>>()?;
    let ids: Vec<u64> = index.iter().map(|e| e.order.order_id).collect();
    assert_eq!(ids, [5, 3, 1]);
    for entry in &index {
        println!(
            "{:?}: {}",
            entry.channel,
            table[&entry.order.encode().to_vec()]
        );
    }

    // Every row of the table, decoded as its family.
    let all = Row::scan_all();
    let range = all.ranges().next().expect("one range");
    let mut counts = BTreeMap::new();
    for (k, _) in table.range::<[u8], _>(range.bounds()) {
        *counts.entry(Row::decode(k)?.family()).or_insert(0) += 1;
    }
    assert_eq!(counts, BTreeMap::from([("ByCustomer", 5), ("Order", 5)]));
    println!("families: {counts:?}");

    // A row of no family is an error that says so.
    let err = Row::decode(b"X\x00").unwrap_err();
    println!("{err}");
    Ok(())
}

/// The key layouts, frozen: a change to a key's fields, types, order or
/// attributes fails this test, showing the old and the new layout.
#[test]
fn layouts_are_frozen() {
    rowkey_core::assert_layout::<OrderRow>(
        0xb638c3671267831e,
        "[prefix \"D\" 1][order_id u64 8] = 9 bytes",
    );
    rowkey_core::assert_layout::<ByCustomer>(0x7c396d01068ee77c, "[prefix \"I\" 1][salt(customer)/4 1][customer String >=2][placed_at desc_ts i64 8][channel Channel 1][order OrderRow 9] >= 22 bytes");
    rowkey_core::assert_layout::<Row>(0xecc5d42dbee6f56c, "OrderRow: [prefix \"D\" 1][order_id u64 8] = 9 bytes | ByCustomer: [prefix \"I\" 1][salt(customer)/4 1][customer String >=2][placed_at desc_ts i64 8][channel Channel 1][order OrderRow 9] >= 22 bytes");
}
