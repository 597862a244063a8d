use rowkey_core::prelude::*;

#[derive(KeyField)]
enum Kind {
    Click = 1,
    View = 2,
}

fn main() {}
