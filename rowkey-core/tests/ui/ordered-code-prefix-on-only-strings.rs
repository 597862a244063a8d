use rowkey_core::prelude::*;

// With only ascending strings, the key of empty strings writes none of
// them: it would end inside the prefix field.
#[derive(RowKey)]
#[rowkey(ordered_code, prefix = "p")]
struct Tags {
    a: String,
    b: String,
}

fn main() {}
