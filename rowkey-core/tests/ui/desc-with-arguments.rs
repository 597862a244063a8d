use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    #[desc(true)]
    score: u32,
}

fn main() {}
