use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Event {
    // Every key needs a field that every key has.
    #[rowkey(added)]
    user_id: Option<u64>,
}

fn main() {}
