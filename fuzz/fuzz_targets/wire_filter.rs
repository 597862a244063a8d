//! rowkey's region-server filter, read from bytes anyone could send
//! (`WireFilter::decode`, whose checks the Java filter copies): decoding
//! never panics and allocates no more than the input holds; a filter it
//! accepts answers every key without panicking, and its work stays bounded
//! (libFuzzer's `-timeout` in run.sh fails an input that takes seconds);
//! a key that does not match gets no hint, or one strictly after it and
//! no longer than the key plus HBase's longest row (no padding to widths
//! off the wire); a key that matches is its own hint.
//!
//! Input: a two-byte big-endian length, that many bytes of filter, and the
//! rest is the key.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rowkey_core::scan::{WireFilter, MAX_FILTER_ROW};

fuzz_target!(|input: &[u8]| {
    let Some((len, rest)) = input.split_first_chunk::<2>() else {
        return;
    };
    let len = usize::from(u16::from_be_bytes(*len)).min(rest.len());
    let (filter, key) = rest.split_at(len);
    let Ok(filter) = WireFilter::decode(filter) else {
        return;
    };
    let matches = filter.matches(key);
    match filter.seek_hint(key) {
        Some(hint) if matches => assert_eq!(hint, key, "a match is its own hint"),
        Some(hint) => {
            assert!(hint.as_slice() > key, "a hint moves forward");
            assert!(
                hint.len() <= key.len() + MAX_FILTER_ROW + 1,
                "a hint of {} bytes for a key of {}",
                hint.len(),
                key.len()
            );
        }
        None => assert!(!matches, "a key that matches has a hint"),
    }
});
