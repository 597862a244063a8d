use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    #[reverse]
    seq: u64,
}

fn main() {
    // Reversed bytes have no range order: no range_by method exists.
    let _ = Key::range_by_seq(1..10);
}
