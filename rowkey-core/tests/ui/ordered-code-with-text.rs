use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(ordered_code, text, sep = "_")]
struct Event {
    user: i64,
}

fn main() {}
