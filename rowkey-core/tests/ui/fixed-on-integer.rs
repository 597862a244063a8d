use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    #[fixed(8)]
    id: u32,
}

fn main() {}
