use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(text, sep = "_")]
struct Key {
    #[desc]
    delta: i32,
}

fn main() {}
