use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Page {
    site: u32,
    // The last field of keys already written: stored raw to their end.
    path: String,
    #[rowkey(added)]
    lang: Option<u16>,
}

fn main() {}
