use rowkey_core::prelude::*;

#[derive(RowKey)]
#[salt(buckets = 8, by(user_id, kind))]
struct Event {
    user_id: u64,
    #[rowkey(added)]
    kind: Option<u16>,
}

fn main() {}
