//! Typed, order-preserving row keys for sorted key-value stores.
//!
//! The guide: the book in `docs/` of rowkey's repository: `mdbook serve
//! docs`, from designing a key with the lab to indexes and changing a key
//! on a live table; FORMAT.md is the byte-level reference.
//!
//! `#[derive(RowKey)]` turns a struct into a row key for HBase, Bigtable,
//! redb, fjall and other stores that keep rows sorted by key bytes.
//! The bytes sort, compared with `memcmp`, in the order of the struct's
//! fields, laid out the way HBase schema design recommends: a salt prefix
//! against hot spots, newest-first timestamps, reversed and fixed-width
//! fields. Encoding and decoding do not touch the heap for fixed-width and
//! borrowed layouts, and the derive also generates correct scan ranges.
//!
#![cfg_attr(all(feature = "derive", feature = "alloc"), doc = "```")]
#![cfg_attr(not(all(feature = "derive", feature = "alloc")), doc = "```ignore")]
//! use rowkey_core::prelude::*;
//!
//! #[derive(RowKey, Debug, PartialEq)]
//! #[salt(buckets = 16, by(user_id))]
//! struct UserEvent {
//!     user_id: u64,
//!     #[desc_ts]
//!     ts_millis: i64,
//!     #[fixed(8)]
//!     kind: String,
//! }
//!
//! let event = UserEvent { user_id: 42, ts_millis: 1_700_000_000_000, kind: "click".into() };
//! let key: [u8; UserEvent::LEN] = event.try_encode()?;
//! assert_eq!(key.len(), 1 + 8 + 8 + 8);
//! assert_eq!(key[0], event.bucket());
//! assert_eq!(UserEvent::decode(&key)?, event);
//!
//! // One user's last hour, newest first: one range, in that user's bucket.
//! let now = 1_700_000_000_000;
//! let scan = UserEvent::range_by_user_id_ts_millis(42, now - 3_600_000..now + 1);
//! assert_eq!(scan.range_count(), 1);
//! assert!(scan.ranges().next().unwrap().contains(&key));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The byte format is specified in `FORMAT.md` and frozen by golden vectors.
//!
//! Readable text keys, as HBase and Bigtable users write them by hand, are
//! a second format with the same guarantees (see [`text`]):
//!
#![cfg_attr(all(feature = "derive", feature = "alloc"), doc = "```")]
#![cfg_attr(not(all(feature = "derive", feature = "alloc")), doc = "```ignore")]
//! use rowkey_core::prelude::*;
//!
//! #[derive(RowKey, Debug, PartialEq)]
//! #[rowkey(text, sep = "_")]
//! #[salt(buckets = 10, by(phone), hash = "mod")]
//! struct Call {
//!     #[digits(11)]
//!     phone: u64,
//!     #[desc_ts]
//!     ts: i64,
//! }
//!
//! let call = Call { phone: 18518885160, ts: 1_638_620_506_000 };
//! assert_eq!(call.encode_to_string()?, "0_18518885160_9223370398234269807");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Features
//! - `derive` (default): re-exports `#[derive(RowKey)]`.
//! - `alloc` (default): owned fields (`String`, `Vec<u8>`, `Cow`),
//!   `encode_to_vec`, scans, [`merge_salted`] and the [`hbase`] helpers.
//! - `std`: `std` support in dependencies.
//! - `uuid`, `ulid`, `chrono`, `time`, `jiff`: those crates' types as
//!   fields (see [`timestamp`] and the README's "Ecosystem");
//!   `std::net` addresses need no feature.
//! - `redb`, `fjall`: typed tables on those stores ([`redb`](crate::store::redb),
//!   [`fjall`](crate::store::fjall)).
//! - `index`: secondary indexes kept in step with their data rows
//!   ([`index`](crate::index)), on redb and fjall with those features;
//!   `index-serde`: any serde type as a data row's record (postcard).
//! - `migrate`: moving a table to another key layout ([`migrate`](crate::migrate)),
//!   with `migrate`, `verify` and a `MigratingTable` on redb and fjall
//!   with those features.
//!
//! Without `alloc` the crate is `no_std` with no allocator: encoding and
//! decoding of fixed-width and borrowed layouts.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

// The layers, bottom to top; each imports only from those above it in this
// list (.ci/layers.py checks it, and that no two files import each other):
// - `clock`: a client's strictly increasing clock (std);
// - `format`: field traits and codecs, escaping, the binary and text
//   formats, timestamps, ecosystem types, the salt head, errors;
// - `layout`: the layout descriptor (`T::LAYOUT`), its summary, table,
//   fingerprint, JSON and explain;
// - `key`: the traits the derive implements, `assert_layout`;
// - `scan`: scan ranges, the prefix builders, the merge of salted ranges;
// - `index`: secondary indexes over a small store trait;
// - `migrate`: re-keying a table (over `dynamic`), the copy and the
//   verification over a small store trait;
// - integrations: `store` (redb, fjall, and their index stores) and `hbase`
//   (shell helpers).
#[cfg(feature = "std")]
mod chain;
#[cfg(feature = "std")]
pub mod clock;
#[cfg(feature = "dynamic")]
pub mod dynamic;
mod format;
mod key;
pub mod layout;
#[cfg(feature = "alloc")]
pub mod scan;

#[cfg(feature = "alloc")]
pub mod hbase;
#[cfg(feature = "index")]
pub mod index;
#[cfg(feature = "migrate")]
pub mod migrate;
#[cfg(any(feature = "redb", feature = "fjall"))]
pub mod store;

pub use format::{escape, ordered_code, salt, text, timestamp};
#[cfg(feature = "alloc")]
pub use layout::explain;
#[cfg(feature = "fjall")]
pub use store::fjall;
#[cfg(feature = "redb")]
pub use store::redb;

#[cfg(feature = "std")]
pub use chain::error_chain;
#[cfg(feature = "dynamic")]
pub use dynamic::{DynFilter, DynLayout, LayoutError, Value};
pub use format::error::{DecodeError, EncodeError, FieldError};
pub use format::field::{ByteArray, DescTimestamp, FixedField, KeyBytes, KeyFieldInfo, VarField};
pub use format::text::TextForm;
pub use format::timestamp::{TimeField, TimeUnit};
pub use key::{assert_layout, DecodeRowKey, RowKey};
#[cfg(feature = "alloc")]
pub use layout::explain::{ExplainInput, Explanation};
pub use layout::Layout;
#[cfg(feature = "alloc")]
pub use scan::{
    any_of, merge_salted, merge_salted_by, merge_salted_reversed_by, merge_salted_reversed_with,
    merge_salted_with, AnyOf, FieldPredicate, ItemKey, KeyFilter, KeyOf, MergeHeads, MergeItem,
    MergeSalted, Scan, ScanRange, ValuePredicate,
};

/// `#[derive(RowKey)]`: see the crate documentation and the README's
/// attribute reference.
#[cfg(feature = "derive")]
pub use rowkey_derive::RowKey;

/// `#[derive(KeyField)]`: a fieldless enum with `#[repr(u8)]` (or another
/// integer) and explicit discriminants becomes a key field type, stored as
/// its discriminant.
///
#[cfg_attr(all(feature = "derive", feature = "alloc"), doc = "```")]
#[cfg_attr(not(all(feature = "derive", feature = "alloc")), doc = "```ignore")]
/// use rowkey_core::prelude::*;
///
/// #[derive(KeyField, Debug, Clone, Copy, PartialEq)]
/// #[repr(u8)]
/// enum Kind {
///     Click = 1,
///     View = 2,
/// }
///
/// #[derive(RowKey, Debug, PartialEq)]
/// struct Event {
///     user: u32,
///     kind: Kind,
/// }
///
/// let key = Event { user: 7, kind: Kind::View }.encode();
/// assert_eq!(key, [0, 0, 0, 7, 2]);
/// assert_eq!(Event::decode(&key)?.kind, Kind::View);
/// let err = Event::decode(&[0, 0, 0, 7, 9]).unwrap_err();
/// assert_eq!(err.to_string(), "field `kind`: not the discriminant of a variant of `Kind`");
/// # Ok::<(), DecodeError>(())
/// ```
#[cfg(feature = "derive")]
pub use rowkey_derive::KeyField;

/// Everything the generated methods need in scope:
/// `use rowkey_core::prelude::*;`.
pub mod prelude {
    pub use crate::format::error::{DecodeError, EncodeError};
    pub use crate::key::{DecodeRowKey, RowKey};
    #[cfg(feature = "alloc")]
    pub use crate::scan::{any_of, KeyFilter, Scan, ScanRange};
    #[cfg(feature = "derive")]
    pub use rowkey_derive::{KeyField, RowKey};
}

/// The README's and the guide's examples, compiled and run as doctests
/// (the "Ecosystem" chapter's needs the `redb`, `uuid` and `chrono`
/// features, the `DynLayout` examples `dynamic`: the README's test command
/// enables them all). The chapters whose code needs the engine crates are
/// compiled by `rowkey-tests`.
#[cfg(all(
    doctest,
    feature = "derive",
    feature = "alloc",
    feature = "redb",
    feature = "uuid",
    feature = "chrono",
    feature = "dynamic"
))]
pub mod guide {
    #[doc = include_str!("../../README.md")]
    pub struct Readme;
    #[doc = include_str!("../../docs/src/introduction.md")]
    pub struct Introduction;
    #[doc = include_str!("../../docs/src/derive.md")]
    pub struct Derive;
    #[doc = include_str!("../../docs/src/scans.md")]
    pub struct Scans;
    #[doc = include_str!("../../docs/src/layouts.md")]
    pub struct Layouts;
    #[doc = include_str!("../../docs/src/ecosystem.md")]
    pub struct Ecosystem;
    #[doc = include_str!("../../docs/src/other-languages.md")]
    pub struct OtherLanguages;
}

/// Expands to its input when the `alloc` feature is on, to nothing
/// otherwise: wraps the generated items that need `alloc`.
#[cfg(feature = "alloc")]
#[doc(hidden)]
#[macro_export]
macro_rules! __rowkey_if_alloc {
    ($($tt:tt)*) => { $($tt)* };
}

/// Expands to nothing: the `alloc` feature is off.
#[cfg(not(feature = "alloc"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __rowkey_if_alloc {
    ($($tt:tt)*) => {};
}

/// `Some(reader)` when the `alloc` feature is on (explain needs it), `None`
/// otherwise: a layout descriptor's field reader.
#[cfg(feature = "alloc")]
#[doc(hidden)]
#[macro_export]
macro_rules! __rowkey_reader {
    ($($tt:tt)*) => { ::core::option::Option::Some($($tt)*) };
}

/// `None`: the `alloc` feature is off.
#[cfg(not(feature = "alloc"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __rowkey_reader {
    ($($tt:tt)*) => {
        ::core::option::Option::None
    };
}

/// `const __LAYOUT`, a key's layout descriptor over the `__FIELDS` const
/// beside it, in one line of the expansion: `layout!(NAME, FORMAT, PREFIX
/// [, salt(BUCKETS, HASH, [BY...])]);`, the salt head being the `__Salt`
/// type beside it.
#[doc(hidden)]
#[macro_export]
macro_rules! __rowkey_layout {
    ($name:literal, $format:ident $({ $($body:tt)* })?, $prefix:literal) => {
        const __LAYOUT: $crate::__private::Layout = $crate::__private::Layout::__new(
            $name,
            $crate::__private::Format::$format $({ $($body)* })?,
            $prefix,
            $crate::__private::Option::None,
            __FIELDS,
        );
    };
    (
        $name:literal, $format:ident $({ $($body:tt)* })?, $prefix:literal,
        salt($buckets:literal, $hash:ident, [$($by:literal),*])
    ) => {
        const __LAYOUT: $crate::__private::Layout = $crate::__private::Layout::__new(
            $name,
            $crate::__private::Format::$format $({ $($body)* })?,
            $prefix,
            $crate::__private::Option::Some($crate::__private::SaltLayout::__new::<__Salt>(
                $buckets,
                $crate::__private::SaltHashKind::$hash,
                &[$($by),*],
            )),
            __FIELDS,
        );
    };
}

/// One field of a layout descriptor, in a line or two of the expansion:
/// `field!(NAME, TYPE [as KIND], ENCODING, WIDTH, READER, FLAGS, SEP_LEN
/// [, UNIT])`. `KIND` defaults to `TYPE`. `FLAGS` has bit 0 for `Option`, 1
/// `added`, 2 `reverse`, 3 `reverse_domain`. `WIDTH` (the codec's
/// `LAYOUT_WIDTH`) and `READER` come as expressions at the field's tokens,
/// so a type that is no field type is reported once, by encode and decode,
/// not again from inside this macro.
#[doc(hidden)]
#[macro_export]
macro_rules! __rowkey_field {
    (@or $first:tt ; $($default:tt)*) => { $first };
    (@or ; $($default:tt)*) => { $($default)* };
    (
        $name:literal, $ty:literal $(as $kind:literal)?, $enc:ident $({ $($body:tt)* })?,
        $width:expr, $reader:expr, $flags:literal, $sep:literal $(, $unit:ident)?
    ) => {
        $crate::__private::FieldLayout::__new(
            $name,
            $ty,
            $crate::__rowkey_field!(@or $($kind)? ; $ty),
            $crate::__private::Encoding::$enc $({ $($body)* })?,
            $width,
            [$flags & 1 != 0, $flags & 2 != 0, $flags & 4 != 0, $flags & 8 != 0],
            $sep,
            $crate::__private::reader!($reader),
        )
        $(.__unit($crate::__private::TimeUnit::$unit))?
    };
}

/// Not public API: the helpers that `#[derive(RowKey)]` expands to.
#[doc(hidden)]
pub mod __private {
    /// The codec traits whose methods generated code calls, for one glob
    /// import (`use ::rowkey_core::__private::{self as __rk, traits::*};`).
    pub mod traits {
        /// A short name for the descriptor's `<__K0 as __Codec<T>>::LAYOUT_WIDTH`.
        pub use crate::format::codec::FieldCodec as __Codec;
        pub use crate::format::codec::{FieldCodec as _, FieldDecode as _};
        pub use crate::format::ordered_code::OcPart as _;
        pub use crate::format::salt::SaltHead as _;
    }

    pub use crate::__rowkey_field as field;
    pub use crate::__rowkey_frozen as frozen;
    pub use crate::__rowkey_layout as layout;
    pub use crate::__rowkey_reader as reader;
    pub use crate::format::codec::{
        Added, Asc, Desc, DescTs, Dom, Escaped, FieldCodec, FieldDecode, Fixed, Fwd, Opt, Padded,
        Raw, Rev, Var,
    };
    pub use crate::format::error::{DecodeError, EncodeError, FieldError};
    pub use crate::format::field::{FixedField, KeyFieldInfo};
    pub use crate::format::ordered_code::{
        oc_canonical, oc_empty, Last, OcInt, OcPart, OcStr, Term, MAX_INT64_LEN,
    };
    pub use crate::format::salt::{
        ByteSalt, Head, JavaHash, OcSalt, SaltHash, SaltHead, TextSalt, Xxh3,
    };
    pub use crate::format::text::{Chars, Dec, Decimal, Delimited, ModSalt, Sep, TextDescTs, Then};
    pub use crate::format::timestamp::{Micros, Millis, Nanos, Secs, TimeUnit, Ts};
    #[cfg(feature = "alloc")]
    pub use crate::key::assert_layouts;
    pub use crate::key::{DecodeRowKey, RowKey};
    #[cfg(feature = "alloc")]
    pub use crate::layout::explain::{read, read_opaque, Show};
    pub use crate::layout::{
        Encoding, FieldLayout, FieldWidth, Format, Layout, SaltHashKind, SaltLayout,
    };
    #[cfg(feature = "alloc")]
    pub use crate::scan::{
        Buckets, FieldPredicate, FilterParts, KeyFilter, Leading, Scan, ValuePredicate,
    };
    /// Without `alloc` there are no filters: the builder type the derive
    /// declares holds this.
    #[cfg(not(feature = "alloc"))]
    pub struct FilterParts(());
    #[cfg(feature = "alloc")]
    pub use alloc::{string::String, vec::Vec};
    pub use core::marker::PhantomData;
    pub use core::ops::RangeBounds;
    pub use core::option::Option;
    pub use core::result::Result;

    /// The first `len` bytes of `out`, or the error for a short buffer.
    #[inline(always)]
    pub fn output(out: &mut [u8], len: usize) -> Result<&mut [u8], EncodeError> {
        let available = out.len();
        out.get_mut(..len).ok_or(EncodeError::BufferTooSmall {
            needed: len,
            available,
        })
    }

    /// The value of an encoding that the derive proved cannot fail (no
    /// `#[fixed]` string, no unsigned `#[desc_ts]`, a buffer of the exact
    /// fixed length). The error arm is unreachable.
    #[inline(always)]
    pub fn infallible<T>(result: Result<T, EncodeError>) -> T {
        match result {
            Ok(v) => v,
            Err(e) => proven_infallible_failed(e),
        }
    }

    /// Kept out of line so that the callers of [`infallible`] stay small
    /// enough to inline.
    #[cold]
    #[inline(never)]
    fn proven_infallible_failed(e: EncodeError) -> ! {
        unreachable!("rowkey: an encoding the derive proved infallible failed: {e}")
    }

    pub use crate::__rowkey_if_alloc as if_alloc;

    /// The salt bucket of the concatenated encodings of the `by` fields.
    #[inline(always)]
    pub fn salt<H: SaltHash>(parts: &[&[u8]], buckets: u16) -> u8 {
        H::bucket(parts, buckets)
    }

    /// `#[salt(hash = "mod")]`: the bucket is the field's value modulo
    /// `buckets`.
    #[inline(always)]
    pub fn salt_mod<T: ModSalt + ?Sized>(value: &T, buckets: u16) -> u8 {
        value.bucket(buckets)
    }

    /// Reads and checks the salt head.
    #[inline(always)]
    pub fn decode_salt<H: SaltHead>(input: &[u8], buckets: u16) -> Result<(), DecodeError> {
        H::HEAD.read(input, buckets).map(|_| ())
    }

    /// A text key's bytes as a `String`. Every part rowkey writes is UTF-8
    /// (ASCII digits and separators, ASCII padding, `str` values); a user's
    /// `TextForm` that writes other bytes is an error, not a panic.
    #[cfg(feature = "alloc")]
    #[inline]
    pub fn text_key(bytes: Vec<u8>) -> Result<alloc::string::String, EncodeError> {
        alloc::string::String::from_utf8(bytes).map_err(|e| EncodeError::TextNotUtf8 {
            valid_up_to: e.utf8_error().valid_up_to(),
        })
    }

    /// Checks that the key starts with its family prefix.
    #[inline(always)]
    pub fn check_prefix(input: &[u8], prefix: &'static [u8]) -> Result<(), DecodeError> {
        if input.starts_with(prefix) {
            Ok(())
        } else {
            Err(DecodeError::WrongPrefix { expected: prefix })
        }
    }

    /// Whether one of two family prefixes starts the other (or they are
    /// equal): a key could then belong to both families.
    pub const fn prefixes_overlap(a: &[u8], b: &[u8]) -> bool {
        let n = if a.len() < b.len() { a.len() } else { b.len() };
        let mut i = 0;
        while i < n {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }

    /// One range over every family of a key-family enum: from the smallest
    /// prefix to the end of the largest.
    #[cfg(feature = "alloc")]
    pub fn families_scan(families: &[(&'static str, &'static [u8])]) -> Scan {
        let first = families.iter().map(|f| f.1).min().unwrap_or(&[]);
        let last = families.iter().map(|f| f.1).max().unwrap_or(&[]);
        let stop = crate::scan::prefix_stop(last).unwrap_or_default();
        Scan::from_bounds(first, &stop)
    }

    /// A nested key's decoding error as its field's error.
    #[cold]
    pub fn nested_error(e: DecodeError) -> FieldError {
        match e {
            DecodeError::InvalidValue { reason, .. } => FieldError::Invalid(reason),
            DecodeError::InvalidUtf8 { .. } => FieldError::InvalidUtf8,
            DecodeError::WrongPrefix { .. } => {
                FieldError::Invalid("the nested key does not start with its family prefix")
            }
            DecodeError::InvalidSalt { .. } => {
                FieldError::Invalid("the nested key's salt is not a bucket of its type")
            }
            _ => FieldError::Invalid("the bytes are not a key of the nested type"),
        }
    }

    /// The smaller of two lengths, for an enum's `MIN_LEN`.
    pub const fn min_len(a: usize, b: usize) -> usize {
        if a < b {
            a
        } else {
            b
        }
    }

    /// Never implemented: the bound of the hidden `range_by_*` of a field
    /// whose bytes do not sort by value, so that a call says why.
    #[diagnostic::on_unimplemented(
        message = "no range scan over `{Field}`: its bytes do not sort by value",
        label = "`range_by_*` ends with this field",
        note = "a #[reverse] or #[reverse_domain] field, or a string between separators in a text key, stores bytes that do not sort like its values, so a range of values is no range of keys",
        note = "use the `scan_by_*` method for one value of it, or scan by the fields before it and filter"
    )]
    pub trait SortsByValue<Field> {}

    /// A key of `len` bytes within `#[rowkey(max_len)]`, or the error.
    #[inline(always)]
    pub fn check_max_len(len: usize, max_len: usize) -> Result<usize, EncodeError> {
        if len <= max_len {
            Ok(len)
        } else {
            Err(EncodeError::KeyTooLong { len, max_len })
        }
    }

    /// Decodes a fixed-width key with `fields`, the generated per-field
    /// decoding: called once where the input has the key's length (the
    /// compiler then knows every field's bounds check passes and drops
    /// them, which makes a derived decode cost what a hand-written one
    /// does), once for any other length (where the same code names the
    /// field that is cut short, or counts the trailing bytes).
    #[inline(always)]
    pub fn decode_fixed<'a, T>(
        input: &'a [u8],
        len: usize,
        fields: impl Fn(&'a [u8]) -> Result<T, DecodeError>,
    ) -> Result<T, DecodeError> {
        match input.get(..len) {
            // The same input, as a slice whose length the compiler knows.
            Some(key) if key.len() == input.len() => fields(key),
            _ => fields(input),
        }
    }

    /// Checks that decoding consumed the whole input.
    #[inline(always)]
    pub fn finish(input: &[u8], pos: usize) -> Result<(), DecodeError> {
        if pos == input.len() {
            Ok(())
        } else {
            Err(DecodeError::TrailingBytes {
                count: input.len().saturating_sub(pos),
            })
        }
    }

    /// A zeroed buffer of `len` bytes, inline up to 64: the `by` fields of
    /// a variable-length salt are encoded into it.
    #[cfg(feature = "alloc")]
    #[inline]
    pub fn zeroed(len: usize) -> crate::scan::KeyBuf {
        crate::scan::KeyBuf::zeroed(len)
    }

    /// The split points of a salted table: `[1], [2], ... [buckets - 1]`,
    /// or in a text key the bucket digits `"1", "2", ...` (no separator),
    /// each after the family prefix.
    #[cfg(feature = "alloc")]
    pub fn split_points<H: SaltHead>(family: &[u8], buckets: u16) -> Vec<Vec<u8>> {
        H::HEAD.split_points(family, buckets)
    }
}
