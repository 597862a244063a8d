use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    #[fixed]
    kind: String,
}

fn main() {}
