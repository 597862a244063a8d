use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(text, sep = "_")]
struct Key {
    #[digits(0)]
    id: u32,
}

fn main() {}
