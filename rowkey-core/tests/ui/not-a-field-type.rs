use rowkey_core::prelude::*;

struct Color {
    r: u8,
}

#[derive(RowKey)]
struct Key {
    id: u64,
    color: Color,
}

fn main() {}
