use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(text, sep = "_")]
struct Key {
    #[fixed(4, pad = 0xFF)]
    tag: String,
    id: u32,
}

fn main() {}
