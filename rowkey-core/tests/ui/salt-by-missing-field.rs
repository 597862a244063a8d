use rowkey_core::prelude::*;

#[derive(RowKey)]
#[salt(buckets = 8, by(user))]
struct Key {
    user_id: u64,
    ts: i64,
}

fn main() {}
