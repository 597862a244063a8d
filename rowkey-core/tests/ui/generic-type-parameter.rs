use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key<T> {
    id: T,
}

fn main() {}
