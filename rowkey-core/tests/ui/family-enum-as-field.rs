use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(prefix = "D")]
struct Order {
    id: u64,
}

#[derive(RowKey)]
enum Row {
    Order(Order),
}

#[derive(RowKey)]
struct Wrapper {
    row: Row,
}

fn main() {}
