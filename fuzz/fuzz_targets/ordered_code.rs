//! Bigtable's `OrderedCodeBytes` (`rowkey_core::ordered_code`): decoding any
//! bytes under any schema never panics, and what decodes encodes back to
//! the same bytes (one key per value); an `Int64` read from any bytes
//! encodes back to the bytes it took.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rowkey_core::ordered_code::{
    decode_int64, decode_struct, encode_int64, encode_struct, Order, Type,
};

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
});
