use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(text, sep = "_")]
struct Maybe {
    id: Option<u32>,
    name: String,
}

fn main() {}
