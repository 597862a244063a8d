use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Event {
    #[ts(milis)]
    at: jiff::Timestamp,
}

fn main() {}
