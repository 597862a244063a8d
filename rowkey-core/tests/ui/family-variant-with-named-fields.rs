use rowkey_core::prelude::*;

#[derive(RowKey)]
enum Event {
    Click { id: u64 },
}

fn main() {}
