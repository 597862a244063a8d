use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key<'a> {
    #[reverse]
    phone: &'a [u8],
}

fn main() {}
