use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    #[rowkey(prefix = "D")]
    id: u64,
}

fn main() {}
