use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    #[desc]
    #[desc]
    score: u32,
}

fn main() {}
