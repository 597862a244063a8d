//! Scans: the row ranges that hold the keys a query asks for, and the merge
//! of a salted scan's ranges back into key order.
//!
//! The layer above the formats: it encodes leading fields with their
//! codecs (the `format` layer) and knows nothing of layouts or stores.
//! - `range`: [`Scan`], [`ScanRange`], the inline key buffer.
//! - `leading`: the builders generated scans use (a prefix of encoded
//!   leading fields, which the field codecs extend).
//! - `merge`: [`merge_salted`], a k-way merge by key without the salt.

pub(crate) mod leading;
pub(crate) mod merge;
mod range;

#[doc(hidden)]
pub use leading::Leading;
pub use merge::{
    merge_salted, merge_salted_reversed_with, merge_salted_with, MergeHeads, MergeItem, MergeSalted,
};
pub use range::*;
