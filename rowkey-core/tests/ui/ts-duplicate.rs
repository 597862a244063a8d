use rowkey_core::prelude::*;

#[derive(RowKey)]
struct Event {
    #[ts(millis)]
    #[ts(micros)]
    at: chrono::DateTime<chrono::Utc>,
}

fn main() {}
