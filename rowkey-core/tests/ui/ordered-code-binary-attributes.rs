use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(ordered_code)]
struct Event {
    #[reverse]
    user: i64,
    #[fixed(8)]
    kind: String,
    #[reverse_domain]
    host: String,
}

fn main() {}
