use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Session {
    id: uuid::Uuid,
}

fn main() {}
