//! The benchmarked key layouts, shared by both benchmarks so that their
//! figures describe the same keys.

use rowkey_core::prelude::*;

#[derive(RowKey, Debug, Clone, Copy, PartialEq)]
#[salt(buckets = 16, by(user_id))]
pub struct Event {
    pub user_id: u64,
    #[desc_ts]
    pub ts: i64,
    pub kind: u8,
}

#[derive(RowKey, Debug, Clone, Copy, PartialEq)]
#[salt(buckets = 16, by(user_id))]
pub struct Named<'a> {
    pub user_id: u64,
    #[fixed(16)]
    pub name: &'a str,
    pub seq: u32,
}
