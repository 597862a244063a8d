//! Java 17: a record with `toBytes`, `fromBytes`, `bucket`, `splitPoints`,
//! the scans and `toStringBinary`, in the standard library but for
//! OpenHFT's `zero-allocation-hashing` where the salt is XXH3. The key's
//! file (`key`), and `RowkeyHelpers.java` (the format's rules, the same
//! for every key of a package; `RowkeyOrderedCode.java` beside it for an
//! ordered-code key); the `--hbase` scans and a key family's interface in
//! `companions`.

mod companions;
mod key;
mod ordered_code;
mod types;

/// The helpers every package of generated keys carries.
pub const HELPERS: &str = include_str!("RowkeyHelpers.java");
/// The ordered-code helpers, written beside them for a package with an
/// ordered-code key.
pub const OC_HELPERS: &str = include_str!("RowkeyOrderedCode.java");

pub use companions::{family_file, hbase_file};
pub use key::file;
