use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(max_len = 16)]
#[salt(buckets = 16, by(user_id))]
struct UserEvent {
    user_id: u64,
    #[desc_ts]
    ts: i64,
}

fn main() {}
