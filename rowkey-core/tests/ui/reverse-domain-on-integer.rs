use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    #[reverse_domain]
    host_id: u64,
}

fn main() {}
