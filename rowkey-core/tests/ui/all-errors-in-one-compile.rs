use rowkey_core::prelude::*;

#[derive(RowKey)]
#[salt(buckets = 0, by(missing))]
struct Key {
    #[fixed(8)]
    id: u64,
    #[desc_ts]
    #[reverse]
    ts: i64,
}

fn main() {}
