use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    #[desc_ts]
    #[reverse]
    ts: i64,
}

fn main() {}
