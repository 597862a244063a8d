use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Event {
    user_id: u64,
    // Keys written before `kind` existed have no value for it.
    #[rowkey(added)]
    kind: u16,
}

fn main() {}
