use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Event {
    user_id: u64,
    #[rowkey(added)]
    kind: Option<u16>,
    // Old keys end where `kind` was added: nothing can follow it.
    ts: i64,
}

fn main() {}
