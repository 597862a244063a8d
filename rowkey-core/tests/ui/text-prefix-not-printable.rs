use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(text, sep = "_", prefix = b"\x01")]
struct Key {
    id: u32,
}

fn main() {}
