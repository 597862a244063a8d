use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(max_len = 8)]
struct Key {
    user_id: u64,
    name: String,
    tail: u8,
}

fn main() {}
