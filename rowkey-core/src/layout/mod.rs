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

use crate::format::binary::write_escaped;
pub use crate::format::codec::FieldWidth;
use crate::format::error::DecodeError;
use crate::format::salt::Head;
use crate::format::time::TimeUnit;

#[cfg(feature = "alloc")]
pub mod explain;

/// Reads one field at `pos` with its real codec, writes its value for
/// `explain` and returns the position after it and the value as an integer
/// (for integers: `#[salt(hash = "mod")]` checks and timestamps).
#[doc(hidden)]
pub type Reader = fn(
    input: &[u8],
    pos: usize,
    field: &'static str,
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
    /// A string escaped (`00` → `00 FF`) and terminated with `00 00`.
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
    /// empty for an unsalted key. For code that handles keys of several
    /// types through their layouts, such as the hot-spot lab.
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
        match &self.salt {
            Some(salt) => salt.head.split_points(self.prefix, salt.buckets),
            None => alloc::vec::Vec::new(),
        }
    }

    /// The fields, in key order (empty for a key-family enum).
    pub const fn fields(&self) -> &'static [FieldLayout] {
        self.fields
    }

    /// A key-family enum's families (its variants' key types), in table
    /// order; empty for a struct.
    pub const fn members(&self) -> &'static [&'static Layout] {
        self.members
    }

    /// `Some(len)` when every key is `len` bytes long.
    pub const fn fixed_len(&self) -> Option<usize> {
        if !self.members.is_empty() {
            return None;
        }
        let mut len = self.head_len();
        let mut i = 0;
        while i < self.fields.len() {
            match self.fields[i].width {
                FieldWidth::Fixed(w) if !self.fields[i].added => len += w,
                _ => return None,
            }
            i += 1;
        }
        Some(len)
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
        let mut len = self.head_len();
        let mut i = 0;
        while i < self.fields.len() {
            let f = &self.fields[i];
            if !f.added {
                len += match f.width {
                    FieldWidth::Fixed(w) => w,
                    FieldWidth::Variable { min } => min,
                };
            }
            i += 1;
        }
        len
    }

    /// The bytes before the first field: the prefix and the salt.
    pub const fn head_len(&self) -> usize {
        self.prefix.len()
            + match &self.salt {
                Some(s) => s.head.len(),
                None => 0,
            }
    }

    /// The layout's fingerprint (`T::LAYOUT_ID`): a stable 64-bit hash of
    /// everything that decides the key's bytes. See the [module
    /// documentation](self) for what it covers.
    pub const fn id(&self) -> u64 {
        let mut h = Fnv::new().str("rowkey layout 1");
        if !self.members.is_empty() {
            h = h.byte(2).usize(self.members.len());
            let mut i = 0;
            while i < self.members.len() {
                h = h.u64(self.members[i].id());
                i += 1;
            }
            return h.0;
        }
        h = match self.format {
            Format::Binary => h.byte(0),
            Format::Text { sep } => h.byte(1).str(sep),
        };
        h = h.bytes(self.prefix);
        h = match &self.salt {
            None => h.byte(0),
            Some(s) => {
                let mut h = h.byte(1).u64(s.buckets as u64).byte(s.hash as u8);
                h = h.usize(s.by.len());
                let mut i = 0;
                while i < s.by.len() {
                    h = h.str(s.by[i]);
                    i += 1;
                }
                h
            }
        };
        h = h.usize(self.fields.len());
        let mut i = 0;
        while i < self.fields.len() {
            let f = &self.fields[i];
            h = h.str(f.name).str(f.kind);
            h = match f.width {
                FieldWidth::Fixed(w) => h.byte(0).usize(w),
                FieldWidth::Variable { min } => h.byte(1).usize(min),
            };
            h = match f.encoding {
                Encoding::BigEndian { desc } => h.byte(0).flag(desc),
                Encoding::DescTs => h.byte(1),
                Encoding::Padded { len, pad, desc } => h.byte(2).usize(len).byte(pad).flag(desc),
                Encoding::Escaped { desc } => h.byte(3).flag(desc),
                Encoding::Raw => h.byte(4),
                Encoding::Digits { digits, signed } => h.byte(5).usize(digits).flag(signed),
                Encoding::DescTsDigits { digits, max } => h.byte(6).usize(digits).u64(max),
                Encoding::Delimited => h.byte(7),
                Encoding::TextForm => h.byte(8),
            };
            h = h
                .flag(f.option)
                .flag(f.added)
                .flag(f.reverse)
                .flag(f.reverse_domain);
            // Only timestamps add bytes: older layouts keep their ids.
            if let Some(unit) = f.unit {
                h = h.byte(0xD7).byte(unit as u8);
            }
            i += 1;
        }
        h.0
    }

    /// The layout as a table, one row per part (the same as `{:#}`).
    pub fn table(&self) -> impl fmt::Display + '_ {
        Table(self)
    }

    /// A field by name.
    pub fn field(&self, name: &str) -> Option<&FieldLayout> {
        self.fields.iter().find(|f| f.name == name)
    }
}

impl SaltLayout {
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
            read,
        }
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
            | Encoding::Escaped { desc } => desc,
            Encoding::DescTs | Encoding::DescTsDigits { .. } => true,
            Encoding::Raw | Encoding::Digits { .. } | Encoding::Delimited | Encoding::TextForm => {
                false
            }
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

    /// The attributes, as written in the summary: `desc_ts`, `fixed(8)`,
    /// `digits(11)`, `reverse`, `added`...
    fn write_attrs(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.added {
            f.write_str(" added")?;
        }
        if let Some(unit) = self.unit {
            write!(f, " ts({unit})")?;
        }
        match self.encoding {
            Encoding::BigEndian { desc: true } | Encoding::Escaped { desc: true } => {
                f.write_str(" desc")?
            }
            Encoding::DescTs => f.write_str(" desc_ts")?,
            Encoding::Padded { len, pad, desc } => {
                if desc {
                    f.write_str(" desc")?;
                }
                match pad {
                    0 => write!(f, " fixed({len})")?,
                    b' '..=b'~' if pad != b'\'' && pad != b'\\' => {
                        write!(f, " fixed({len}, pad = '{}')", pad as char)?
                    }
                    _ => write!(f, " fixed({len}, pad = 0x{pad:02X})")?,
                }
            }
            Encoding::Digits { digits, .. } => write!(f, " digits({digits})")?,
            Encoding::DescTsDigits { digits, max } if max == i64::MAX as u64 => {
                write!(f, " desc_ts digits({digits})")?
            }
            Encoding::DescTsDigits { digits, max } => {
                write!(f, " desc_ts(max = {max}) digits({digits})")?
            }
            Encoding::BigEndian { desc: false }
            | Encoding::Escaped { desc: false }
            | Encoding::Raw
            | Encoding::Delimited
            | Encoding::TextForm => {}
        }
        if self.reverse {
            f.write_str(" reverse")?;
        }
        if self.reverse_domain {
            f.write_str(" reverse_domain")?;
        }
        Ok(())
    }

    fn encoding_text(&self) -> &'static str {
        match self.encoding {
            Encoding::BigEndian { desc: false } => "big-endian",
            Encoding::BigEndian { desc: true } => "big-endian, inverted",
            Encoding::DescTs => "i64::MAX - ts, big-endian",
            Encoding::Padded { desc: false, .. } => "padded",
            Encoding::Padded { desc: true, .. } => "padded, inverted",
            Encoding::Escaped { desc: false } => "escaped, 00 00 terminated",
            Encoding::Escaped { desc: true } => "escaped, terminated, inverted",
            Encoding::Raw => "raw to the end",
            Encoding::Digits { .. } => "decimal digits",
            Encoding::DescTsDigits { .. } => "max - ts, decimal digits",
            Encoding::Delimited => "up to the separator",
            Encoding::TextForm => "text form",
        }
    }
}

impl fmt::Display for SaltLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("salt")?;
        if !self.by.is_empty() {
            f.write_str("(")?;
            for (i, by) in self.by.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                f.write_str(by)?;
            }
            f.write_str(")")?;
        }
        write!(f, "/{}", self.buckets)?;
        match self.hash {
            SaltHashKind::Xxh3 => {}
            SaltHashKind::Java => f.write_str(" java")?,
            SaltHashKind::Mod => f.write_str(" mod")?,
        }
        write!(f, " {}", self.len())
    }
}

impl fmt::Display for FieldLayout {
    /// `user_id u64 8`, `ts_millis desc_ts i64 8`, `name String >=2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)?;
        self.write_attrs(f)?;
        write!(f, " {} {}", self.ty, self.width)
    }
}

impl fmt::Display for Layout {
    /// The one-line summary; `{:#}` gives the table.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            return Table(self).fmt(f);
        }
        if !self.members.is_empty() {
            for (i, m) in self.members.iter().enumerate() {
                if i > 0 {
                    f.write_str(" | ")?;
                }
                write!(f, "{}: {}", m.name, m)?;
            }
            return Ok(());
        }
        if let Format::Text { sep } = self.format {
            write!(f, "text({sep:?}) ")?;
        }
        if !self.prefix.is_empty() {
            f.write_str("[prefix \"")?;
            write_escaped(f, self.prefix)?;
            write!(f, "\" {}]", self.prefix.len())?;
        }
        if let Some(s) = &self.salt {
            write!(f, "[{s}]")?;
        }
        for field in self.fields {
            write!(f, "[{field}]")?;
        }
        match self.fixed_len() {
            Some(n) => write!(f, " = {n} bytes"),
            None => write!(f, " >= {} bytes", self.min_len()),
        }
    }
}

impl fmt::Debug for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Layout({}: {})", self.name, self)
    }
}

impl fmt::Debug for FieldLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FieldLayout({self})")
    }
}

impl PartialEq for Layout {
    /// Layouts are equal when their [`id`](Layout::id)s are.
    fn eq(&self, other: &Layout) -> bool {
        self.id() == other.id()
    }
}

struct Table<'a>(&'a Layout);

impl fmt::Display for Table<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let l = self.0;
        if !l.members.is_empty() {
            writeln!(f, "{}: a family of {} key types", l.name, l.members.len())?;
            for m in l.members {
                writeln!(f)?;
                Table(m).fmt(f)?;
            }
            return Ok(());
        }
        let format = match l.format {
            Format::Binary => "binary key (format v1)",
            Format::Text { .. } => "text key",
        };
        match l.fixed_len() {
            Some(n) => writeln!(f, "{}: {format}, {n} bytes", l.name)?,
            None => writeln!(f, "{}: {format}, at least {} bytes", l.name, l.min_len())?,
        }
        writeln!(
            f,
            "{:<8} {:<6} {:<16} {:<16} encoding",
            "offset", "width", "part", "type"
        )?;
        // Offsets are known up to the first variable-length field.
        let mut offset = Some(0usize);
        let mut row = |f: &mut fmt::Formatter<'_>,
                       width: FieldWidth,
                       part: &str,
                       ty: &str,
                       enc: &dyn fmt::Display|
         -> fmt::Result {
            let at = match offset {
                Some(o) => Small::<24>::display(&o),
                None => Small::display(&"?"),
            };
            writeln!(
                f,
                "{:<8} {:<6} {:<16} {:<16} {enc}",
                at.as_str(),
                Small::<24>::display(&width).as_str(),
                part,
                ty
            )?;
            offset = match (offset, width) {
                (Some(o), FieldWidth::Fixed(w)) => Some(o + w),
                _ => None,
            };
            Ok(())
        };
        if !l.prefix.is_empty() {
            row(
                f,
                FieldWidth::Fixed(l.prefix.len()),
                "prefix",
                "-",
                &Escaped(l.prefix),
            )?;
        }
        if let Some(s) = &l.salt {
            let hash = match s.hash {
                SaltHashKind::Xxh3 => "xxh3",
                SaltHashKind::Java => "java hashCode",
                SaltHashKind::Mod => "value",
            };
            let by = Joined(s.by);
            row(
                f,
                FieldWidth::Fixed(s.len()),
                "salt",
                "-",
                &format_args!("{hash}({by}) % {}", s.buckets),
            )?;
        }
        for field in l.fields {
            let attrs = Attrs(field);
            row(
                f,
                field.width,
                field.name,
                field.ty,
                &format_args!("{}{attrs}", field.encoding_text()),
            )?;
        }
        Ok(())
    }
}

struct Attrs<'a>(&'a FieldLayout);

impl fmt::Display for Attrs<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut attrs = Small::<96>::default();
        let _ = fmt::write(&mut attrs, format_args!("{}", AttrsOnly(self.0)));
        if !attrs.as_str().is_empty() {
            write!(f, " (#[{}])", attrs.as_str().trim_start())?;
        }
        Ok(())
    }
}

struct AttrsOnly<'a>(&'a FieldLayout);

impl fmt::Display for AttrsOnly<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write_attrs(f)
    }
}

struct Joined(&'static [&'static str]);

impl fmt::Display for Joined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(s)?;
        }
        Ok(())
    }
}

struct Escaped<'a>(&'a [u8]);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"")?;
        write_escaped(f, self.0)?;
        f.write_str("\"")
    }
}

/// A small string on the stack, so that the table pads its columns without
/// `alloc` (text past `N` bytes is cut).
#[derive(Default)]
struct Small<const N: usize> {
    buf: SmallBuf<N>,
    len: usize,
}

struct SmallBuf<const N: usize>([u8; N]);

impl<const N: usize> Default for SmallBuf<N> {
    fn default() -> Self {
        SmallBuf([0; N])
    }
}

impl<const N: usize> Small<N> {
    fn display(v: &dyn fmt::Display) -> Self {
        let mut out = Self::default();
        let _ = fmt::write(&mut out, format_args!("{v}"));
        out
    }

    fn as_str(&self) -> &str {
        // Only whole UTF-8 sequences are written (see write_str).
        core::str::from_utf8(&self.buf.0[..self.len]).unwrap_or("")
    }
}

impl<const N: usize> fmt::Write for Small<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.chars() {
            let mut tmp = [0u8; 4];
            let c = c.encode_utf8(&mut tmp).as_bytes();
            if self.len + c.len() > N {
                return Ok(());
            }
            self.buf.0[self.len..self.len + c.len()].copy_from_slice(c);
            self.len += c.len();
        }
        Ok(())
    }
}

/// FNV-1a, 64-bit, as a const builder.
struct Fnv(u64);

impl Fnv {
    const fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    const fn byte(self, b: u8) -> Fnv {
        Fnv((self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3))
    }

    const fn flag(self, b: bool) -> Fnv {
        self.byte(b as u8)
    }

    const fn u64(self, v: u64) -> Fnv {
        let b = v.to_be_bytes();
        let mut h = self;
        let mut i = 0;
        while i < 8 {
            h = h.byte(b[i]);
            i += 1;
        }
        h
    }

    const fn usize(self, v: usize) -> Fnv {
        self.u64(v as u64)
    }

    const fn bytes(self, b: &[u8]) -> Fnv {
        let mut h = self.usize(b.len());
        let mut i = 0;
        while i < b.len() {
            h = h.byte(b[i]);
            i += 1;
        }
        h
    }

    const fn str(self, s: &str) -> Fnv {
        self.bytes(s.as_bytes())
    }
}

/// A layout's summary with `\` and `"` escaped, to paste into a string
/// literal.
pub(crate) struct RustStr<'a>(pub(crate) &'a Layout);

impl fmt::Display for RustStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Escape<'a, 'b>(&'a mut fmt::Formatter<'b>);
        impl fmt::Write for Escape<'_, '_> {
            fn write_str(&mut self, s: &str) -> fmt::Result {
                for c in s.chars() {
                    if c == '"' || c == '\\' {
                        self.0.write_char('\\')?;
                    }
                    self.0.write_char(c)?;
                }
                Ok(())
            }
        }
        fmt::write(&mut Escape(f), format_args!("{}", self.0))
    }
}

#[cfg(feature = "alloc")]
mod export {
    use alloc::format;
    use alloc::string::{String, ToString};
    use core::fmt::Write as _;

    use super::{Encoding, FieldWidth, Format, Layout, SaltHashKind};

    impl Layout {
        /// The layout as JSON, for tools in other languages: the name,
        /// fingerprint (`"layout_id"`, hex), format, separator, prefix (hex),
        /// salt, lengths, the summary, and per field its name, type, kind,
        /// encoding, width and attributes; a key-family enum lists its
        /// `"members"`.
        ///
        #[cfg_attr(feature = "derive", doc = "```")]
        #[cfg_attr(not(feature = "derive"), doc = "```ignore")]
        /// use rowkey_core::prelude::*;
        ///
        /// #[derive(RowKey)]
        /// struct Reading {
        ///     sensor: u32,
        ///     #[desc_ts]
        ///     ts: i64,
        /// }
        ///
        /// let json = Reading::LAYOUT.to_json();
        /// assert!(json.starts_with(r#"{"name":"Reading","layout_id":"0x"#));
        /// assert!(json.contains(r#"{"name":"ts","type":"i64","kind":"i64","encoding":"desc_ts","#));
        /// ```
        pub fn to_json(&self) -> String {
            let mut out = String::new();
            self.write_json(&mut out);
            out
        }

        fn write_json(&self, out: &mut String) {
            out.push_str("{\"name\":");
            json_str(out, self.name);
            let _ = write!(out, ",\"layout_id\":\"{:#018x}\"", self.id());
            if !self.members.is_empty() {
                out.push_str(",\"members\":[");
                for (i, m) in self.members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    m.write_json(out);
                }
                out.push_str("]}");
                return;
            }
            match self.format {
                Format::Binary => out.push_str(",\"format\":\"binary\",\"separator\":null"),
                Format::Text { sep } => {
                    out.push_str(",\"format\":\"text\",\"separator\":");
                    json_str(out, sep);
                }
            }
            out.push_str(",\"prefix_hex\":\"");
            for b in self.prefix {
                let _ = write!(out, "{b:02x}");
            }
            out.push_str("\",\"salt\":");
            match &self.salt {
                None => out.push_str("null"),
                Some(s) => {
                    let hash = match s.hash {
                        SaltHashKind::Xxh3 => "xxh3",
                        SaltHashKind::Java => "java",
                        SaltHashKind::Mod => "mod",
                    };
                    let _ = write!(
                        out,
                        "{{\"buckets\":{},\"hash\":\"{hash}\",\"width\":{},\"by\":[",
                        s.buckets,
                        s.len()
                    );
                    for (i, by) in s.by.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        json_str(out, by);
                    }
                    out.push_str("]}");
                }
            }
            match self.fixed_len() {
                Some(n) => {
                    let _ = write!(out, ",\"fixed_len\":{n}");
                }
                None => out.push_str(",\"fixed_len\":null"),
            }
            let _ = write!(out, ",\"min_len\":{},\"summary\":", self.min_len());
            json_str(out, &self.to_string());
            out.push_str(",\"fields\":[");
            for (i, f) in self.fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str("{\"name\":");
                json_str(out, f.name);
                out.push_str(",\"type\":");
                json_str(out, f.ty);
                out.push_str(",\"kind\":");
                json_str(out, f.kind);
                let (encoding, params) = match f.encoding {
                    Encoding::BigEndian { .. } => ("big_endian", String::new()),
                    Encoding::DescTs => ("desc_ts", String::new()),
                    Encoding::Padded { len, pad, .. } => {
                        ("padded", format!(",\"padded_len\":{len},\"pad\":{pad}"))
                    }
                    Encoding::Escaped { .. } => ("escaped", String::new()),
                    Encoding::Raw => ("raw", String::new()),
                    Encoding::Digits { digits, signed } => (
                        "digits",
                        format!(",\"digits\":{digits},\"signed\":{signed}"),
                    ),
                    Encoding::DescTsDigits { digits, max } => (
                        "desc_ts_digits",
                        format!(",\"digits\":{digits},\"max\":{max}"),
                    ),
                    Encoding::Delimited => ("delimited", String::new()),
                    Encoding::TextForm => ("text_form", String::new()),
                };
                let _ = write!(out, ",\"encoding\":\"{encoding}\"{params}");
                if let Some(unit) = f.unit {
                    let _ = write!(out, ",\"unit\":\"{unit}\"");
                }
                match f.width {
                    FieldWidth::Fixed(w) => {
                        let _ = write!(out, ",\"width\":{w},\"variable\":false");
                    }
                    FieldWidth::Variable { min } => {
                        let _ = write!(out, ",\"width\":{min},\"variable\":true");
                    }
                }
                let _ = write!(
                    out,
                    ",\"desc\":{},\"option\":{},\"added\":{},\"reverse\":{},\"reverse_domain\":{},\"separator_len\":{}}}",
                    f.is_desc(),
                    f.option,
                    f.added,
                    f.reverse,
                    f.reverse_domain,
                    f.sep_len
                );
            }
            out.push_str("]}");
        }

        /// A text key's row-key schema for Cloud Bigtable (the table's
        /// `row_key_schema`, a `Type.Struct` in the JSON form of the admin
        /// API and of `gcloud bigtable tables create
        /// --row-key-schema-definition-file`): every part a UTF-8 string
        /// field (the prefix as `"prefix"` and the salt as `"salt"`), joined
        /// by the separator as `DelimitedBytes`. `None` for a binary key,
        /// whose parts are not delimited, and for a key-family enum.
        ///
        /// Bigtable splits a key at every separator byte, so a string field
        /// whose value contains the separator reads back wrong in Bigtable's
        /// SQL; rowkey's own decoding is not affected.
        ///
        #[cfg_attr(feature = "derive", doc = "```")]
        #[cfg_attr(not(feature = "derive"), doc = "```ignore")]
        /// use rowkey_core::prelude::*;
        ///
        /// #[derive(RowKey)]
        /// #[rowkey(text, sep = "_")]
        /// struct Call {
        ///     #[digits(11)]
        ///     phone: u64,
        ///     #[desc_ts]
        ///     ts: i64,
        /// }
        ///
        /// assert_eq!(
        ///     Call::LAYOUT.bigtable_row_key_schema().unwrap(),
        ///     r#"{"fields":[{"fieldName":"phone","type":{"stringType":{"encoding":{"utf8Bytes":{}}}}},{"fieldName":"ts","type":{"stringType":{"encoding":{"utf8Bytes":{}}}}}],"encoding":{"delimitedBytes":{"delimiter":"Xw=="}}}"#
        /// );
        /// ```
        pub fn bigtable_row_key_schema(&self) -> Option<String> {
            let Format::Text { sep } = self.format else {
                return None;
            };
            if !self.members.is_empty() {
                return None;
            }
            let mut names: alloc::vec::Vec<&str> = alloc::vec::Vec::new();
            if !self.prefix.is_empty() {
                names.push("prefix");
            }
            if self.salt.is_some() {
                names.push("salt");
            }
            names.extend(self.fields.iter().map(|f| f.name));
            let mut out = String::from("{\"fields\":[");
            for (i, name) in names.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str("{\"fieldName\":");
                json_str(&mut out, name);
                out.push_str(",\"type\":{\"stringType\":{\"encoding\":{\"utf8Bytes\":{}}}}}");
            }
            out.push_str("],\"encoding\":{\"delimitedBytes\":{\"delimiter\":\"");
            base64(&mut out, sep.as_bytes());
            out.push_str("\"}}}");
            Some(out)
        }
    }

    fn json_str(out: &mut String, s: &str) {
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(out, "\\u{:04x}", c as u32);
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }

    /// Standard base64 with padding (protobuf JSON's `bytes`).
    fn base64(out: &mut String, bytes: &[u8]) {
        const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for chunk in bytes.chunks(3) {
            let b = [
                chunk[0],
                *chunk.get(1).unwrap_or(&0),
                *chunk.get(2).unwrap_or(&0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char);
                } else {
                    out.push('=');
                }
            }
        }
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn base64() {
            let enc = |b: &[u8]| {
                let mut s = alloc::string::String::new();
                super::base64(&mut s, b);
                s
            };
            assert_eq!(enc(b"_"), "Xw==");
            assert_eq!(enc(b"#"), "Iw==");
            assert_eq!(enc(b"ab"), "YWI=");
            assert_eq!(enc(b"abc"), "YWJj");
            assert_eq!(enc(b"::|"), "Ojp8");
        }
    }
}
