use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(text, sep = "_")]
struct Event {
    id: u32,
    #[fixed(8)]
    kind: String,
}

fn main() {}
