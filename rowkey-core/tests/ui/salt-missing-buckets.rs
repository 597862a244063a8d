use rowkey_core::prelude::*;

#[derive(RowKey)]
#[salt(by(id))]
struct Key {
    id: u64,
}

fn main() {}
