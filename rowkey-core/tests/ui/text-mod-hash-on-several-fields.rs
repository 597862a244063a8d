use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(text, sep = "_")]
#[salt(buckets = 10, by(region, phone), hash = "mod")]
struct Call {
    region: u8,
    phone: u64,
}

fn main() {}
