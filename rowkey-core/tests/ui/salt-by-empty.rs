use rowkey_core::prelude::*;

#[derive(RowKey)]
#[salt(buckets = 8, by())]
struct Key {
    user_id: u64,
}

fn main() {}
