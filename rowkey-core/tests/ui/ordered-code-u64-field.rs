use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(ordered_code)]
struct Event {
    user: u64,
    name: String,
}

fn main() {}
