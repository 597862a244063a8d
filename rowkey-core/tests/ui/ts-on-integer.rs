use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Event {
    #[ts(millis)]
    at: u64,
}

fn main() {}
