use rowkey_core::prelude::*;

#[derive(RowKey, Debug, PartialEq)]
#[salt(buckets = 16, by(user_id))]
struct UserEvent {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
    #[fixed(8)]
    kind: String,
}

fn main() {
    let e = UserEvent {
        user_id: 42,
        ts_millis: 1_700_000_000_000,
        kind: "click".into(),
    };
    let k = e.try_encode().unwrap();
    println!("{k:02X?}");
    assert_eq!(UserEvent::decode(&k).unwrap(), e);
    println!("{:?}", UserEvent::range_by_user_id_ts_millis(42, 0..10));
}
