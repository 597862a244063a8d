use rowkey_core::prelude::*;

// Bigtable's OrderedCodeBytes struct key: the prefix and the salt are
// struct fields, `tag` is left out of a key where it is empty.
#[derive(RowKey)]
#[rowkey(ordered_code, prefix = "e")]
#[salt(buckets = 8, by(user))]
struct Event {
    user: i64,
    #[desc]
    ts: i64,
    tag: String,
}
