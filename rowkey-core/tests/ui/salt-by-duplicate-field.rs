use rowkey_core::prelude::*;

#[derive(RowKey)]
#[salt(buckets = 8, by(user_id, user_id))]
struct Key {
    user_id: u64,
}

fn main() {}
