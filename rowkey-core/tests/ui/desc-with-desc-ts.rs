use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    #[desc]
    #[desc_ts]
    ts: i64,
}

fn main() {}
