use rowkey_core::prelude::*;

#[derive(KeyField)]
#[repr(u8)]
enum Kind {
    Click(u32),
    View = 2,
}

fn main() {}
