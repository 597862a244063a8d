use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(text, sep = "_")]
#[salt(buckets = 10, by(user), hash = "mod")]
struct Event {
    user: String,
    ts: u64,
}

fn main() {}
