use rowkey_core::prelude::*;

// 16 bytes before the field was added, 19 with it: keys written from now
// on can be longer than max_len.
#[derive(RowKey)]
#[rowkey(max_len = 16)]
struct Event {
    user: u64,
    ts: u64,
    #[rowkey(added)]
    shard: Option<u16>,
}

fn main() {}
