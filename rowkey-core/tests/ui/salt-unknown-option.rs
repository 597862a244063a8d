use rowkey_core::prelude::*;

#[derive(RowKey)]
#[salt(bucket = 8)]
struct Key {
    id: u64,
}

fn main() {}
