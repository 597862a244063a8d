use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(text, sep = "_")]
struct Key {
    #[reverse]
    name: String,
}

fn main() {}
