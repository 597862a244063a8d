//! A [`KeyFilter`](super::KeyFilter)'s serialized form, version 1: what
//! rowkey's Java filter (`rowkey.hbase.KeyFilter`) reads on HBase's region
//! servers. FORMAT.md, "The server-side filter", is its specification.

use alloc::vec::Vec;

use super::predicate::Set;
use super::width::Width;

/// The bytes every serialized filter starts with: `RKF` and the version.
pub(super) const MAGIC: [u8; 4] = *b"RKF\x01";

/// Serializes the parts of a filter (each part's width, whether it is an
/// added field, its set); `None` when a part's end cannot be found by its
/// structure (an `OrderedCodeBytes` field).
pub(super) fn encode<'a>(
    parts: impl ExactSizeIterator<Item = (Width, bool, Option<&'a Set>)>,
) -> Option<Vec<u8>> {
    let mut out = Vec::from(MAGIC);
    varint(&mut out, parts.len());
    for (width, added, set) in parts {
        match width {
            Width::Fixed(n) => {
                out.push(0);
                varint(&mut out, n);
            }
            Width::Escaped { desc } => out.push(if desc { 2 } else { 1 }),
            Width::Raw => out.push(3),
            Width::Tagged { desc, raw, .. } => {
                out.push(4);
                out.push(u8::from(desc) | u8::from(raw) << 1);
            }
            Width::Delimited(sep) => {
                out.push(5);
                bytes(&mut out, sep);
            }
            Width::Reader(_) => return None,
        }
        out.push(u8::from(added));
        match set {
            None => out.push(0),
            Some(set) => {
                out.push(1);
                varint(&mut out, set.0.len());
                for iv in &set.0 {
                    bytes(&mut out, &iv.lo);
                    match &iv.hi {
                        None => out.push(0),
                        Some(hi) => {
                            out.push(1);
                            bytes(&mut out, hi);
                        }
                    }
                }
            }
        }
    }
    Some(out)
}

/// A length (varint) and the bytes.
fn bytes(out: &mut Vec<u8>, b: &[u8]) {
    varint(out, b.len());
    out.extend_from_slice(b);
}

/// An unsigned LEB128 varint (protobuf's).
fn varint(out: &mut Vec<u8>, mut v: usize) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}
