use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    #[desc_ts]
    ts: i16,
}

fn main() {}
