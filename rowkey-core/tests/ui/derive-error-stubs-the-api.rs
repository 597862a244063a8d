use rowkey_core::prelude::*;

// One mistake in the key (`buckets = 0`): its error is the only one, however
// the rest of the program uses the type's generated API, including in a
// family enum (whose overlap check sees the real prefix).
#[derive(RowKey, Debug)]
#[rowkey(prefix = "E")]
#[salt(buckets = 0, by(user))]
struct Event {
    user: u64,
    #[desc_ts]
    ts: i64,
    #[fixed(4)]
    kind: String,
}

#[derive(RowKey, Debug)]
#[rowkey(prefix = "O")]
struct Order {
    id: u64,
}

#[derive(RowKey, Debug)]
enum Row {
    Event(Event),
    Order(Order),
}

// A KeyField with a mistake (no discriminant) still gives a field type.
#[derive(KeyField, Clone, Copy, Debug)]
#[repr(u8)]
enum Kind {
    Click,
}

#[derive(RowKey, Debug)]
struct ByKind {
    kind: Kind,
    id: u32,
}

fn main() {
    let e = Event { user: 1, ts: 2, kind: "a".into() };
    let key: [u8; Event::LEN] = e.encode();
    let _ = e.try_encode();
    let _ = (key, e.bucket(), e.try_bucket());
    let _ = Event::split_points();
    let _ = Event::scan_all();
    let _ = Event::scan_by_user(1);
    let _ = Event::range_by_user_ts(1, 0..10);
    let _ = Event::scan_by_user_ts_kind(1, 2, "a").unwrap();
    let _ = Row::scan_all();
    let _ = ByKind { kind: Kind::Click, id: 1 }.encode();
}
