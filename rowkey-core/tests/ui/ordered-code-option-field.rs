use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(ordered_code)]
struct Event {
    user: i64,
    name: Option<String>,
}

fn main() {}
