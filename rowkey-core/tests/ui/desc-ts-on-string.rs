use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    #[desc_ts]
    when: String,
}

fn main() {}
