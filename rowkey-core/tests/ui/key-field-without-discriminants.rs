use rowkey_core::prelude::*;

#[derive(KeyField)]
#[repr(u8)]
enum Kind {
    Click,
    View,
}

fn main() {}
