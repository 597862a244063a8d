use rowkey_core::prelude::*;

// A `Timestamp` of another crate (prost's, say) is not taken for jiff's:
// it is a field type of the user's own, which must implement FixedField.
mod prost_types {
    pub struct Timestamp {
        pub seconds: i64,
        pub nanos: i32,
    }
}
use prost_types::Timestamp;

#[derive(RowKey)]
struct Event {
    user: u64,
    at: Timestamp,
}

fn main() {}
