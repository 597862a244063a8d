use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(text, sep = "_")]
struct Session {
    #[desc]
    id: uuid::Uuid,
}

fn main() {}
