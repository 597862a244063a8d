use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    #[desc_ts(max = 9999999999)]
    ts: u64,
}

fn main() {}
