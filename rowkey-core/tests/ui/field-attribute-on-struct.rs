use rowkey_core::prelude::*;

#[derive(RowKey)]
#[desc]
struct Key {
    id: u64,
}

fn main() {}
