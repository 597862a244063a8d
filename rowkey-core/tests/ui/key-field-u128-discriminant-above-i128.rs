use rowkey_core::prelude::*;

// A layout describes discriminants as i128: one above i128::MAX has none.
#[derive(KeyField, Debug, Clone, Copy, PartialEq)]
#[repr(u128)]
enum Huge {
    Small = 1,
    Big = u128::MAX,
}

fn main() {}
