use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(text, sep = "_")]
struct Feed {
    #[desc_ts(max = 9999999999)]
    #[digits(9)]
    ts: u64,
    uid: String,
}

fn main() {}
