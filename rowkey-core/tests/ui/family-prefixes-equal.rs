use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(prefix = "D")]
struct Order {
    id: u64,
}

#[derive(RowKey)]
#[rowkey(prefix = "D")]
struct Invoice {
    id: u64,
}

#[derive(RowKey)]
enum Row {
    Order(Order),
    Invoice(Invoice),
}

fn main() {}
