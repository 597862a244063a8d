use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(text, sep = "\t")]
struct Key {
    a: u32,
    b: u32,
}

fn main() {}
