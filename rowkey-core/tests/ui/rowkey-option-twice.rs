use rowkey_core::prelude::*;

// Several #[rowkey(...)] attributes merge; the same option twice is still
// an error.
#[derive(RowKey)]
#[rowkey(max_len = 16)]
#[rowkey(max_len = 20)]
struct Event {
    user: u64,
}

fn main() {}
