use rowkey_core::prelude::*;

#[derive(RowKey)]
#[salt(buckets = 8)]
#[salt(buckets = 16)]
struct Key {
    user_id: u64,
}

fn main() {}
