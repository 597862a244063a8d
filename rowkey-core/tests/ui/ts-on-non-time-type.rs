use rowkey_core::prelude::*;

/// Not a point in time: no `TimeField`.
struct Version(u64);

#[derive(RowKey)]
struct Release {
    #[ts(secs)]
    version: Version,
}

fn main() {}
