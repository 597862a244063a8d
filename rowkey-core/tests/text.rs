//! Text keys (`#[rowkey(text, sep = "_")]`): the seed vectors of the
//! issue, byte for byte, and the behaviour around them.

use rowkey_core::prelude::*;

/// `0_18518885160_9223370398234269807`: phone % 10, the phone, then
/// `Long.MAX_VALUE - ts`.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "_")]
#[salt(buckets = 10, by(phone), hash = "mod")]
struct Call {
    #[digits(11)]
    phone: u64,
    #[desc_ts]
    ts: i64,
}

#[test]
fn seed_phone_mod_salt() {
    let k = Call {
        phone: 18518885160,
        ts: 1_638_620_506_000,
    };
    let s = k.encode_to_string().unwrap();
    assert_eq!(s, format!("0_18518885160_{}", i64::MAX - 1_638_620_506_000));
    assert_eq!(Call::decode_str(&s).unwrap(), k);
    let k2 = Call {
        phone: 11111111111,
        ts: 5,
    };
    assert!(k2.encode_to_string().unwrap().starts_with("1_11111111111_"));
    println!("{s} {:?}", Call::split_points());
}
