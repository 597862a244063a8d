use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(ordered_code)]
#[salt(buckets = 65, by(user))]
struct Event {
    user: i64,
}

fn main() {}
