use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Key<'a> {
    #[desc]
    name: &'a str,
}

fn main() {}
