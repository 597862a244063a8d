use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Event {
    user_id: u64,
    #[rowkey(addded)]
    kind: Option<u16>,
}

fn main() {}
