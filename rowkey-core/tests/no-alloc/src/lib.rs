//! Derived keys in a `no_std` crate without an allocator: fixed-width and
//! borrowed layouts encode and decode.
#![no_std]
#![deny(warnings)]

use rowkey_core::prelude::*;

/// A salted, newest-first key.
#[derive(RowKey, Debug, PartialEq)]
#[salt(buckets = 8, by(device))]
pub struct Reading<'a> {
    /// Device.
    pub device: u32,
    /// Newest first.
    #[desc_ts]
    pub ts: i64,
    /// Channel name.
    #[fixed(4)]
    pub channel: &'a str,
}

/// A variable-length, borrowed layout.
#[derive(RowKey, Debug, PartialEq)]
pub struct Path<'a> {
    /// Directory.
    pub dir: &'a str,
    /// File.
    pub file: &'a [u8],
}

/// A text key: salted by a delimited string, newest first.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "#")]
#[salt(buckets = 12, by(device))]
pub struct TextReading<'a> {
    /// Device.
    pub device: &'a str,
    /// Newest first, in seconds.
    #[desc_ts(max = 9999999999)]
    pub ts: u64,
    /// Metric.
    pub metric: &'a str,
}

/// Encodes and decodes every layout; true when everything round-trips.
pub fn round_trip() -> bool {
    let t = TextReading { device: "dev", ts: 1_638_620_506, metric: "temp" };
    let mut buf = [0u8; 40];
    let Ok(n) = t.encode_into(&mut buf) else { return false };
    let ok_text = TextReading::decode(&buf[..n]) == Ok(TextReading { device: "dev", ts: 1_638_620_506, metric: "temp" })
        && buf[2] == b'#'
        && TextReading::decode_str("03#dev#8361379493#temp").map(|k| k.metric) == Ok("temp")
        && &buf[3..n] == b"dev#8361379493#temp";
    if !ok_text {
        return false;
    }
    let r = Reading { device: 7, ts: 1_700_000_000_000, channel: "temp" };
    let Ok(key) = r.try_encode() else { return false };
    let ok_fixed = Reading::decode(&key) == Ok(Reading { device: 7, ts: 1_700_000_000_000, channel: "temp" })
        && key[0] == r.try_bucket().unwrap_or(255);
    let p = Path { dir: "etc", file: b"hosts" };
    let mut buf = [0u8; 32];
    let Ok(n) = p.encode_into(&mut buf) else { return false };
    ok_fixed && Path::decode(&buf[..n]) == Ok(Path { dir: "etc", file: b"hosts" })
}

#[cfg(test)]
extern crate std;

#[test]
fn every_layout_round_trips_without_alloc() {
    assert!(round_trip());
}
