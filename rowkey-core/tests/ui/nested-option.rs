use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    id: Option<Option<u32>>,
}

fn main() {}
