use rowkey_core::prelude::*;

#[derive(RowKey)]
#[salt(buckets = 0)]
struct Key {
    id: u64,
}

fn main() {}
