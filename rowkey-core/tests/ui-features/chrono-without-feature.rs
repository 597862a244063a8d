use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Event {
    user: u64,
    at: chrono::DateTime<chrono::Utc>,
}

fn main() {}
