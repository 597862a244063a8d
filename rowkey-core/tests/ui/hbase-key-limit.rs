use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    blob: [u8; 40000],
}

fn main() {}
