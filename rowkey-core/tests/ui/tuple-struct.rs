use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key(u64, u32);

fn main() {}
