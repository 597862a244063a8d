use rowkey_core::prelude::*;

// The derive fails, but uses of the trait items compile against the stub
// impls: the only errors are the derive's own.
#[derive(RowKey)]
#[salt(buckets = 0)]
struct Key {
    id: u64,
}

fn main() {
    let k = Key { id: 1 };
    let _ = k.encoded_len();
    let _ = k.encode_to_vec();
    let _ = Key::decode(&[0u8; 9]);
}
