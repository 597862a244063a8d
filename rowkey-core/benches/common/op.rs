//! The fixed-width keys' operations, each behind an `#[inline(never)]`
//! boundary, rowkey's and the hand-written alike, shared by both benchmarks:
//! callgrind counts and criterion times the same functions, so the two
//! figures describe the same code. Without the boundary each operation is
//! inlined into its harness loop, where the optimizer does different things
//! to each side (adding one path to the instruction bench once moved the
//! fixed18 encode from 50 to 71 instructions, the hand-written decode from
//! 58 to 76). Each returns its own result type (rowkey's `Result`, the
//! hand-written `Option`) instead of unwrapping it: the caller uses every
//! field.

use rowkey_core::prelude::*;

use super::hand;
use super::layouts::{Event, Named};

#[inline(never)]
pub fn encode(e: Event) -> [u8; Event::LEN] {
    e.encode()
}

#[inline(never)]
pub fn encode_into(e: Event, out: &mut [u8]) -> Result<usize, EncodeError> {
    e.encode_into(out)
}

#[inline(never)]
pub fn hand_encode(e: Event) -> [u8; 18] {
    hand::encode_event(e.user_id, e.ts, e.kind)
}

#[inline(never)]
pub fn decode(k: &[u8]) -> Result<Event, DecodeError> {
    Event::decode(k)
}

#[inline(never)]
pub fn hand_decode(k: &[u8]) -> Option<(u64, i64, u8)> {
    hand::decode_event(k)
}

#[inline(never)]
pub fn try_encode(n: Named<'_>) -> Result<[u8; Named::LEN], EncodeError> {
    n.try_encode()
}

#[inline(never)]
pub fn hand_try_encode(n: Named<'_>) -> Option<[u8; 29]> {
    hand::encode_named(n.user_id, n.name, n.seq)
}

#[inline(never)]
pub fn decode_named(k: &[u8]) -> Result<Named<'_>, DecodeError> {
    Named::decode(k)
}

#[inline(never)]
pub fn hand_decode_named(k: &[u8]) -> Option<(u64, &str, u32)> {
    hand::decode_named(k)
}
