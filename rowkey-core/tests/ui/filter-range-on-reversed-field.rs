use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key {
    #[reverse]
    id: u32,
    n: u8,
}

fn main() {
    let _ = Key::filter().id(1..5).build();
}
