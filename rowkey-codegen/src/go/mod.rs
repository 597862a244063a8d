//! Go: a struct with exported fields, `Encode`, `Decode<Name>`, `Bucket`,
//! split points and the scans, in the standard library but for
//! `github.com/zeebo/xxh3` where the salt is XXH3. The key's file
//! (`key`), and `rowkey_helpers.go` (the format's rules, the same for
//! every key of a package; `rowkey_ordered_code.go` beside it for an
//! ordered-code key); a field enum's, the `--bigtable` row sets and a key
//! family's in `companions`.

mod companions;
mod key;
mod names;
mod ordered_code;

/// The helpers every package of generated keys carries.
pub const HELPERS: &str = include_str!("rowkey_helpers.go");
/// The ordered-code helpers, written beside them for a package with an
/// ordered-code key.
pub const OC_HELPERS: &str = include_str!("rowkey_ordered_code.go");

pub use companions::{bigtable_file, enum_file, family_file, BIGTABLE_HELPERS};
pub use key::file;
