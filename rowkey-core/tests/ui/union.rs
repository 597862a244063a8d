use rowkey_core::prelude::*;

#[derive(RowKey)]
union Bits {
    a: u32,
    b: f32,
}

fn main() {}
