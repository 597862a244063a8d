//! Layout descriptors: what a key type's bytes are, as data.
//!
//! Every `#[derive(RowKey)]` type has a const [`Layout`], `T::LAYOUT`: its
//! format, family prefix, salt and fields, each field with its name, type,
//! encoding, width and attributes. Its `Display` is a one-line summary and
//! its alternate form (`{:#}`) a table, and [`Layout::id`] (`T::LAYOUT_ID`)
//! is a stable fingerprint of everything that decides the bytes.
//!
#![cfg_attr(all(feature = "derive", feature = "alloc"), doc = "```")]
#![cfg_attr(not(all(feature = "derive", feature = "alloc")), doc = "```ignore")]
//! use rowkey_core::prelude::*;
//!
//! #[derive(RowKey)]
//! #[salt(buckets = 16, by(user_id))]
//! struct UserEvent {
//!     user_id: u64,
//!     #[desc_ts]
//!     ts_millis: i64,
//!     #[fixed(8)]
//!     kind: String,
//! }
//!
//! assert_eq!(
//!     UserEvent::LAYOUT.to_string(),
//!     "[salt(user_id)/16 1][user_id u64 8][ts_millis desc_ts i64 8][kind fixed(8) String 8] = 25 bytes"
//! );
//! assert_eq!(UserEvent::LAYOUT.fields()[1].name(), "ts_millis");
//! assert_eq!(UserEvent::LAYOUT.fixed_len(), Some(25));
//! ```
//!
//! The fingerprint covers the format, prefix, salt (buckets, hash, `by`
//! fields) and, per field, its name, its position, its encoded type, its
//! width and its attributes. It does not cover the Rust spelling of a
//! string type (`String`, `&str` and `Cow<str>` encode alike) nor the
//! struct's name. It is computed by FNV-1a over a canonical encoding of
//! those parts (see `FORMAT.md`, "Layout fingerprint"), so it stays the
//! same across rowkey versions as long as the layout does.

use core::fmt;

pub use crate::format::codec::FieldWidth;
use crate::format::error::DecodeError;
pub use crate::format::field::KeyFieldInfo;
use crate::format::salt::Head;
use crate::format::time::TimeUnit;

#[cfg(feature = "alloc")]
pub mod explain;
mod fingerprint;
#[cfg(feature = "json")]
pub(crate) mod json;
mod summary;

pub(crate) use summary::RustStr;

/// Reads one field at `pos` with its real codec, writes its value for
/// `explain` and returns the position after it and the value as an integer
/// (for integers: `#[salt(hash = "mod")]` checks and timestamps). It is
/// given the whole field, not only its name, so that a run-time layout's
/// reader finds the field's parameters (a `#[fixed(N)]` width) in it.
#[doc(hidden)]
pub type Reader = fn(
    input: &[u8],
    pos: usize,
    field: &FieldLayout,
    out: &mut dyn fmt::Write,
) -> Result<(usize, Option<i128>), DecodeError>;

/// A key type's layout: see the [module documentation](self).
#[derive(Clone, Copy)]
pub struct Layout {
    name: &'static str,
    format: Format,
    prefix: &'static [u8],
    salt: Option<SaltLayout>,
    fields: &'static [FieldLayout],
    members: &'static [&'static Layout],
}

/// A key's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// Format v1: big-endian fields, a salt byte, escaped strings.
    Binary,
    /// A text key (`#[rowkey(text, sep = "...")]`): decimal digits and
    /// strings joined by the separator.
    Text {
        /// The separator.
        sep: &'static str,
    },
    /// Bigtable's struct `OrderedCodeBytes` encoding
    /// (`#[rowkey(ordered_code)]`): `Int64` and string fields, escaped and
    /// joined by `00 01`, trailing empty ascending strings not written;
    /// the prefix and the salt are struct fields too.
    OrderedCode,
}

/// The salt of a key (`#[salt(...)]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SaltLayout {
    buckets: u16,
    hash: SaltHashKind,
    by: &'static [&'static str],
    head: Head,
}

/// A salt's hash (`#[salt(hash = "...")]`). The discriminant is the
/// byte the layout fingerprint hashes (FORMAT.md, "Layout fingerprint").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SaltHashKind {
    /// `hash = "xxh3"` (the default): `xxh3_64(by bytes) % buckets`.
    Xxh3 = 0,
    /// `hash = "java"`: `abs(Arrays.hashCode(by bytes) % buckets)`.
    Java = 1,
    /// `hash = "mod"`: the `by` field's value `% buckets`.
    Mod = 2,
}

/// One field of a key.
#[derive(Clone, Copy)]
pub struct FieldLayout {
    name: &'static str,
    ty: &'static str,
    kind: &'static str,
    encoding: Encoding,
    width: FieldWidth,
    option: bool,
    added: bool,
    reverse: bool,
    reverse_domain: bool,
    sep_len: usize,
    unit: Option<TimeUnit>,
    /// A `#[derive(KeyField)]` enum's repr and variants.
    key_field: Option<KeyFieldInfo>,
    /// A run-time layout's text separator, for its fields' codecs (a
    /// derived layout's codecs know theirs; empty there).
    #[cfg_attr(not(feature = "dynamic"), allow(dead_code))]
    sep: &'static [u8],
    /// `None` without `alloc`: `explain` needs it.
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    read: Option<Reader>,
}

/// How a field's value becomes bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Encoding {
    /// A fixed-width type's big-endian bytes (the sign flipped for signed
    /// integers and floats); `desc`: inverted.
    BigEndian {
        /// `#[desc]`.
        desc: bool,
    },
    /// `#[desc_ts]`: `i64::MAX - ts`, big-endian.
    DescTs,
    /// `#[fixed(len, pad)]`: a string padded to `len` bytes with `pad`.
    Padded {
        /// The width.
        len: usize,
        /// The padding byte.
        pad: u8,
        /// `#[desc]`.
        desc: bool,
    },
    /// A string escaped (`00` → `00 FF`) and terminated with `00 01`.
    Escaped {
        /// `#[desc]`.
        desc: bool,
    },
    /// A string raw to the end of the key (the last ascending field).
    Raw,
    /// Text keys: an integer as zero-padded decimal digits.
    Digits {
        /// The number of digits.
        digits: usize,
        /// A sign character (`0` or `-`) comes first.
        signed: bool,
        /// `#[desc]`: the digits complemented (`10^digits - 1 - n`).
        desc: bool,
    },
    /// Text keys: `#[desc_ts]` as `max - ts` in zero-padded digits.
    DescTsDigits {
        /// The number of digits.
        digits: usize,
        /// The `max` the timestamp is subtracted from.
        max: u64,
    },
    /// Text keys: a string up to the separator.
    Delimited,
    /// Text keys: a UUID, ULID or IP address as its fixed-width text
    /// ([`TextForm`](crate::TextForm)).
    TextForm,
    /// An `OrderedCodeBytes` struct field (`#[rowkey(ordered_code)]`): an
    /// `Int64`'s variable-length encoding or a string's bytes, escaped,
    /// `00 00` when empty, followed by `00 01` unless it is the last field
    /// a key writes and ascending.
    OrderedCode {
        /// `#[desc]`: the field and its terminator inverted.
        desc: bool,
    },
}

impl Layout {
    #[doc(hidden)]
    pub const fn __new(
        name: &'static str,
        format: Format,
        prefix: &'static [u8],
        salt: Option<SaltLayout>,
        fields: &'static [FieldLayout],
    ) -> Layout {
        Layout {
            name,
            format,
            prefix,
            salt,
            fields,
            members: &[],
        }
    }

    #[doc(hidden)]
    pub const fn __family(name: &'static str, members: &'static [&'static Layout]) -> Layout {
        Layout {
            name,
            format: Format::Binary,
            prefix: &[],
            salt: None,
            fields: &[],
            members,
        }
    }

    /// The type's name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The key's format.
    pub const fn format(&self) -> Format {
        self.format
    }

    /// The bytes every key starts with (`#[rowkey(prefix)]`, with the
    /// separator in a text key); empty without a prefix.
    pub const fn prefix(&self) -> &'static [u8] {
        self.prefix
    }

    /// The salt, `None` for an unsalted key.
    pub const fn salt(&self) -> Option<&SaltLayout> {
        self.salt.as_ref()
    }

    /// Where a table of these keys should start split: the key type's own
    /// `split_points()` (one region per salt bucket, after the prefix),
    /// empty for an unsalted key; for a key family, a boundary at each
    /// member's prefix (no region holds two families) and each member's
    /// own. For code that handles keys of several types through their
    /// layouts, such as the hot-spot lab.
    ///
    #[cfg_attr(feature = "derive", doc = "```")]
    #[cfg_attr(not(feature = "derive"), doc = "```ignore")]
    /// use rowkey_core::prelude::*;
    ///
    /// #[derive(RowKey)]
    /// #[rowkey(text, sep = "_")]
    /// #[salt(buckets = 12, by(id), hash = "mod")]
    /// struct Call { id: u64 }
    ///
    /// assert_eq!(Call::LAYOUT.split_points(), Call::split_points());
    /// assert_eq!(Call::LAYOUT.split_points()[0], b"01");
    /// ```
    #[cfg(feature = "alloc")]
    pub fn split_points(&self) -> alloc::vec::Vec<alloc::vec::Vec<u8>> {
        if !self.members.is_empty() {
            // A key family: a boundary at each member's prefix, so no
            // region holds two families, and each member's own.
            let mut out = alloc::vec::Vec::new();
            for m in self.members {
                out.push(m.prefix.to_vec());
                out.extend(m.split_points());
            }
            out.sort();
            out.dedup();
            return out;
        }
        match &self.salt {
            Some(salt) => salt.head.split_points(self.prefix, salt.buckets),
            None => alloc::vec::Vec::new(),
        }
    }

    /// The fields, in key order (empty for a key-family enum).
    pub const fn fields(&self) -> &'static [FieldLayout] {
        self.fields
    }

    /// A key-family enum's families (its variants' key types), in the order
    /// the enum declares them (not sorted by prefix); empty for a struct.
    pub const fn members(&self) -> &'static [&'static Layout] {
        self.members
    }

    /// `Some(len)` when every key is `len` bytes long.
    pub const fn fixed_len(&self) -> Option<usize> {
        if !self.members.is_empty() {
            return None;
        }
        struct_lens(self.head_len(), self.fields).0
    }

    /// The fewest bytes a key can have.
    pub const fn min_len(&self) -> usize {
        if !self.members.is_empty() {
            let mut min = usize::MAX;
            let mut i = 0;
            while i < self.members.len() {
                let m = self.members[i].min_len();
                if m < min {
                    min = m;
                }
                i += 1;
            }
            return min;
        }
        struct_lens(self.head_len(), self.fields).1
    }

    /// The bytes before the first field: the prefix and the salt.
    pub const fn head_len(&self) -> usize {
        self.prefix.len()
            + match &self.salt {
                Some(s) => s.head.len(),
                None => 0,
            }
    }

    /// A field by name.
    pub fn field(&self, name: &str) -> Option<&FieldLayout> {
        self.fields.iter().find(|f| f.name == name)
    }
}

impl SaltLayout {
    /// A run-time layout's salt (`DynLayout`).
    #[cfg(feature = "dynamic")]
    pub(crate) fn from_parts(
        buckets: u16,
        hash: SaltHashKind,
        by: &'static [&'static str],
        head: Head,
    ) -> SaltLayout {
        SaltLayout {
            buckets,
            hash,
            by,
            head,
        }
    }

    #[doc(hidden)]
    pub const fn __new<H: crate::format::salt::SaltHead>(
        buckets: u16,
        hash: SaltHashKind,
        by: &'static [&'static str],
    ) -> SaltLayout {
        SaltLayout {
            buckets,
            hash,
            by,
            head: H::HEAD,
        }
    }

    /// The number of buckets.
    pub const fn buckets(&self) -> u16 {
        self.buckets
    }

    /// The hash.
    pub const fn hash(&self) -> SaltHashKind {
        self.hash
    }

    /// The fields the salt hashes, in key order.
    pub const fn by(&self) -> &'static [&'static str] {
        self.by
    }

    /// The salt's bytes: 1 in a binary key, the bucket digits and the
    /// separator in a text key.
    pub const fn len(&self) -> usize {
        self.head.len()
    }

    /// The salt always has bytes (this is for clippy's `len_without_is_empty`).
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How the bucket is written: a byte, or a text key's digits and
    /// separator.
    pub const fn head(&self) -> Head {
        self.head
    }
}

impl FieldLayout {
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub const fn __new(
        name: &'static str,
        ty: &'static str,
        kind: &'static str,
        encoding: Encoding,
        width: FieldWidth,
        flags: [bool; 4],
        sep_len: usize,
        read: Option<Reader>,
    ) -> FieldLayout {
        let [option, added, reverse, reverse_domain] = flags;
        FieldLayout {
            name,
            ty,
            kind,
            encoding,
            width,
            option,
            added,
            reverse,
            reverse_domain,
            sep_len,
            unit: None,
            key_field: None,
            sep: &[],
            read,
        }
    }

    /// The field with a `#[derive(KeyField)]` enum's repr and variants
    /// (`None` leaves it as it is: any other type).
    #[doc(hidden)]
    pub const fn __key_field(mut self, info: Option<KeyFieldInfo>) -> FieldLayout {
        if let Some(info) = info {
            self.key_field = Some(info);
        }
        self
    }

    /// A `#[derive(KeyField)]` enum field's repr and variants (of the enum
    /// inside an `Option` too); `None` for every other field. The summary
    /// shows them after the type (`Kind(u8: Click = 1, View = 2)`); the
    /// fingerprint does not hash them (it hashes the type's name, as
    /// before enums were described).
    pub const fn key_field(&self) -> Option<&KeyFieldInfo> {
        self.key_field.as_ref()
    }

    /// A run-time field with its layout's text separator.
    #[cfg(feature = "dynamic")]
    pub(crate) fn with_sep(mut self, sep: &'static [u8]) -> FieldLayout {
        self.sep = sep;
        self
    }

    /// A run-time text field's separator (see `with_sep`).
    #[cfg(feature = "dynamic")]
    pub(crate) fn sep(&self) -> &'static [u8] {
        self.sep
    }

    /// The field with a timestamp's unit (`#[ts(...)]`).
    #[doc(hidden)]
    pub const fn __unit(mut self, unit: TimeUnit) -> FieldLayout {
        self.unit = Some(unit);
        self
    }

    /// A timestamp field's unit (`#[ts(...)]`, `millis` by default): the
    /// value is stored as an `i64` of it. `None` for other fields.
    pub const fn unit(&self) -> Option<TimeUnit> {
        self.unit
    }

    /// The field's name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The field's type as written in the struct (`u64`, `Option<u32>`,
    /// `&'a str`).
    pub const fn ty(&self) -> &'static str {
        self.ty
    }

    /// The type as far as the bytes are concerned: `str` for every string
    /// type, `bytes` for every byte-string type, the type as written
    /// otherwise, inside `Option<...>` for an `Option`.
    pub const fn kind(&self) -> &'static str {
        self.kind
    }

    /// How the value becomes bytes.
    pub const fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The width in the key (with a text key's separator after it).
    pub const fn width(&self) -> FieldWidth {
        self.width
    }

    /// An `Option` field: a tag byte (`00` None, `01` Some) before the value.
    pub const fn is_option(&self) -> bool {
        self.option
    }

    /// `#[rowkey(added)]`: a trailing field added after keys were written;
    /// absent in those keys, which decode it as `None`.
    pub const fn is_added(&self) -> bool {
        self.added
    }

    /// `#[reverse]`: the value's bytes are stored last to first.
    pub const fn is_reverse(&self) -> bool {
        self.reverse
    }

    /// `#[reverse_domain]`: the labels are stored last to first.
    pub const fn is_reverse_domain(&self) -> bool {
        self.reverse_domain
    }

    /// The field's bytes sort descending (`#[desc]`, `#[desc_ts]`).
    pub const fn is_desc(&self) -> bool {
        match self.encoding {
            Encoding::BigEndian { desc }
            | Encoding::Padded { desc, .. }
            | Encoding::Escaped { desc }
            | Encoding::Digits { desc, .. }
            | Encoding::OrderedCode { desc } => desc,
            Encoding::DescTs | Encoding::DescTsDigits { .. } => true,
            Encoding::Raw | Encoding::Delimited | Encoding::TextForm => false,
        }
    }

    /// The separator bytes after the field (a text key's fields but the last).
    pub const fn sep_len(&self) -> usize {
        self.sep_len
    }

    #[cfg(feature = "alloc")]
    pub(crate) fn reader(&self) -> Option<Reader> {
        self.read
    }
}

/// A struct layout's `(fixed_len, min_len)` from its head's length and its
/// fields: what [`Layout::fixed_len`] and [`Layout::min_len`] say of it, and
/// what a run-time layout checks its text against before it is built.
pub(crate) const fn struct_lens(head_len: usize, fields: &[FieldLayout]) -> (Option<usize>, usize) {
    let (mut fixed, mut min) = (Some(head_len), head_len);
    let mut i = 0;
    while i < fields.len() {
        let f = &fields[i];
        fixed = match (fixed, f.width) {
            (Some(len), FieldWidth::Fixed(w)) if !f.added => Some(len + w),
            _ => None,
        };
        if !f.added {
            min += match f.width {
                FieldWidth::Fixed(w) => w,
                FieldWidth::Variable { min } => min,
            };
        }
        i += 1;
    }
    (fixed, min)
}
