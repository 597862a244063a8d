use rowkey_core::prelude::*;

#[derive(RowKey)]
#[salt(buckets = 8, hash = "murmur3")]
struct Key {
    id: u64,
}

fn main() {}
