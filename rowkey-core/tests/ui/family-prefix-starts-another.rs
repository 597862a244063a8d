use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(prefix = "I")]
struct ByCustomer {
    id: u64,
}

#[derive(RowKey)]
#[rowkey(prefix = "IX")]
struct ByDate {
    day: u32,
}

#[derive(RowKey)]
enum Row {
    ByCustomer(ByCustomer),
    ByDate(ByDate),
}

fn main() {}
