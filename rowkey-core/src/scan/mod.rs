//! Scans: the row ranges that hold the keys a query asks for, and the merge
//! of a salted scan's ranges back into key order.
//!
//! The layer above the formats and layouts: it encodes leading fields with
//! their codecs (the `format` layer), reads a key's parts with its layout
//! descriptor (skip-scan filters) and knows nothing of stores.
//! - `range`: [`Scan`], [`ScanRange`], the inline key buffer.
//! - `leading`: the builders generated scans use (a prefix of encoded
//!   leading fields, which the field codecs extend).
//! - `merge`: [`merge_salted`], a k-way merge by key without the salt.
//! - `filter`: [`KeyFilter`], typed predicates on any fields (skip scans);
//!   `width`: where each part of a key ends, by its structure; `rules`:
//!   matching and seek hints over parts, shared by the built filter and
//!   the one read back; `wire`: a filter's serialized form, for rowkey's
//!   HBase filter, and [`WireFilter`], that form read back and validated.
//! - `resume`: [`resume_after`], where a cut scan goes on, for every
//!   client.

pub mod filter;
pub(crate) mod leading;
pub(crate) mod merge;
pub(crate) mod predicate;
pub(crate) mod range;
pub(crate) mod regex;
mod resume;
mod rules;
mod width;
mod wire;

pub use filter::{
    any_of, AnyOf, BigtableRegex, FieldPredicate, KeyFilter, ValuePredicate, MAX_FILTER_INTERVALS,
    MAX_FUZZY_KEYS, MAX_REGEX_LEN, MAX_ROW_RANGES,
};
#[doc(hidden)]
pub use filter::{FilterParts, Interval};
#[doc(hidden)]
pub use leading::Leading;
#[cfg(feature = "redb")]
pub(crate) use merge::merge_by_key;
pub use merge::{
    merge_salted, merge_salted_by, merge_salted_reversed_by, merge_salted_reversed_with,
    merge_salted_with, ItemKey, KeyOf, MergeHeads, MergeItem, MergeSalted,
};
pub use range::*;
pub use resume::{resume_after, resume_at};
pub use rules::MAX_HINT_PASSES;
pub use wire::{WireError, WireFilter, MAX_FILTER_PARTS, MAX_FILTER_ROW, MAX_FILTER_SEPARATOR};
