use rowkey_core::prelude::*;

#[derive(RowKey)]
#[salt(buckets = 300)]
struct Key {
    id: u64,
}

fn main() {}
