use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {}

fn main() {}
