use rowkey_core::prelude::*;

// A delimited (variable-length, not last) string of a text key has no
// `range_by_*`: "ab0_" sorts before "ab_" though "ab" < "ab0", so a range
// over its bytes could return wrong rows. Equality scans are generated.
#[derive(RowKey)]
#[rowkey(text, sep = "_")]
struct Event {
    user: String,
    ts: u64,
}

fn main() {
    let _ = Event::scan_by_user("ab");
    let _ = Event::range_by_user("a".."b");
}
