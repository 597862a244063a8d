use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(align = 8)]
struct Key {
    user_id: u64,
    kind: u8,
}

fn main() {}
