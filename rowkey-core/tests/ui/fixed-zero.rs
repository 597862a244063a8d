use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    #[fixed(0)]
    kind: String,
}

fn main() {}
