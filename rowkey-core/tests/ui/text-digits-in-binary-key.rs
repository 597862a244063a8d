use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    #[digits(11)]
    phone: u64,
}

fn main() {}
