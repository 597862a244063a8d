//! Bigtable's `OrderedCodeBytes` (`rowkey_core::ordered_code`): decoding any
//! bytes under any schema never panics, and what decodes encodes back to
//! the same bytes (one key per value); an `Int64` read from any bytes
//! encodes back to the bytes it took. The same for two derived
//! `#[rowkey(ordered_code)]` types, whose keys must also be what
//! `encode_struct` writes for their values.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rowkey_core::ordered_code::{
    decode_int64, decode_struct, encode_int64, encode_struct, Order, Type, Value,
};
use rowkey_core::prelude::*;

/// Every field type, both orders, two trailing strings a key may leave out.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(ordered_code)]
struct Six {
    a: i64,
    #[desc]
    b: String,
    c: u16,
    #[desc]
    d: Vec<u8>,
    e: String,
    f: Vec<u8>,
}

/// A prefix with a zero byte and a salt, both struct fields.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(ordered_code, prefix = b"t\0")]
#[salt(buckets = 16, by(user))]
struct Tagged {
    user: i32,
    name: String,
}

/// Where `Tagged`'s bucket byte is: after the escaped prefix `74 00 FF 00 01`.
const TAGGED_BUCKET_AT: usize = 5;

fuzz_target!(|input: (Vec<u8>, &[u8])| {
    let (shape, key) = input;
    // Each shape byte is a field: its type (low bits) and order (bit 2).
    let schema: Vec<(&'static str, Type, Order)> = shape
        .iter()
        .take(6)
        .map(|b| {
            let ty = [Type::Int64, Type::String, Type::Bytes][usize::from(b & 3) % 3];
            let order = if b & 4 == 0 { Order::Asc } else { Order::Desc };
            ("f", ty, order)
        })
        .collect();
    if let Ok(values) = decode_struct(&schema, key) {
        let fields: Vec<_> = values.into_iter().zip(schema.iter().map(|f| f.2)).collect();
        assert_eq!(encode_struct(&fields), key);
    }
    if let Some((v, n)) = decode_int64(key) {
        let mut buf = [0; 10];
        let m = encode_int64(v, &mut buf);
        assert_eq!(&buf[..m], &key[..n]);
    }
    if let Ok(six) = Six::decode(key) {
        let bytes = six.encode_to_vec().unwrap();
        assert_eq!(bytes, key);
        assert_eq!(six.encoded_len(), key.len());
        let (asc, desc) = (Order::Asc, Order::Desc);
        let fields = [
            (Value::Int64(six.a), asc),
            (Value::String(six.b.clone()), desc),
            (Value::Int64(six.c.into()), asc),
            (Value::Bytes(six.d.clone()), desc),
            (Value::String(six.e.clone()), asc),
            (Value::Bytes(six.f.clone()), asc),
        ];
        assert_eq!(encode_struct(&fields), key);
    }
    assert_eq!(Six::explain(key).stop().is_none(), Six::decode(key).is_ok());
    if let Ok(tagged) = Tagged::decode(key) {
        // Decoding checks that the bucket is below 16, not that it is the
        // fields' hash (as in every format): the bytes around it agree.
        let bytes = tagged.encode_to_vec().unwrap();
        assert_eq!(bytes.len(), key.len());
        assert_eq!(bytes[..TAGGED_BUCKET_AT], key[..TAGGED_BUCKET_AT]);
        assert_eq!(bytes[TAGGED_BUCKET_AT + 1..], key[TAGGED_BUCKET_AT + 1..]);
    }
});
