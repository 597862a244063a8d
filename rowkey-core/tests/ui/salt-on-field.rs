use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    #[salt(buckets = 8)]
    user_id: u64,
}

fn main() {}
