use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(text, sep = "_")]
struct Blob {
    id: u32,
    data: Vec<u8>,
}

fn main() {}
