use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key<const N: usize> {
    id: [u8; N],
}

fn main() {}
