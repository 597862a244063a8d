use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(ordered_code)]
struct Event {
    user: i64,
    #[desc_ts]
    ts: i64,
}

fn main() {}
