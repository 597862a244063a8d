use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    #[fixed(8, padding = b' ')]
    kind: String,
}

fn main() {}
