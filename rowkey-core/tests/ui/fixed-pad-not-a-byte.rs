use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    #[fixed(8, pad = 300)]
    kind: String,
}

fn main() {}
