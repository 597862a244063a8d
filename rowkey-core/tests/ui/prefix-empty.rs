use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(prefix = "")]
struct Key {
    id: u64,
}

fn main() {}
