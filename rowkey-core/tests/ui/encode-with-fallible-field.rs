use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    #[fixed(4)]
    tag: String,
}

fn main() {
    // A #[fixed] value can be too long, so only try_encode exists.
    let _ = Key { tag: "abc".into() }.encode();
}
