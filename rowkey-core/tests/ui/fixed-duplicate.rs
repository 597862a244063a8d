use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    #[fixed(8)]
    #[fixed(4)]
    kind: String,
}

fn main() {}
