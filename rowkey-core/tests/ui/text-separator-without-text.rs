use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(sep = "_")]
struct Key {
    a: u32,
    b: u32,
}

fn main() {}
