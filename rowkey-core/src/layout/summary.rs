//! How a layout shows itself: the one-line summary (`Display`), the table
//! (`{:#}`), and the summary as a Rust string literal for `assert_layout`.
//! Without `alloc`: the table pads its columns in a small stack buffer.

use core::fmt;

use super::{Encoding, FieldLayout, FieldWidth, Format, Layout, SaltHashKind, SaltLayout};
use crate::format::binary::write_escaped;

impl FieldLayout {
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
            Encoding::BigEndian { desc: true }
            | Encoding::Escaped { desc: true }
            | Encoding::OrderedCode { desc: true } => f.write_str(" desc")?,
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
            Encoding::Digits { digits, desc, .. } => {
                if desc {
                    f.write_str(" desc")?;
                }
                write!(f, " digits({digits})")?
            }
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
            | Encoding::TextForm
            | Encoding::OrderedCode { desc: false } => {}
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
            Encoding::Escaped { desc: false } => "escaped, 00 01 terminated",
            Encoding::Escaped { desc: true } => "escaped, terminated, inverted",
            Encoding::Raw => "raw to the end",
            Encoding::Digits { desc: false, .. } => "decimal digits",
            Encoding::Digits { desc: true, .. } => "decimal digits, complemented",
            Encoding::DescTsDigits { .. } => "max - ts, decimal digits",
            Encoding::Delimited => "up to the separator",
            Encoding::TextForm => "text form",
            Encoding::OrderedCode { desc: false } => "OrderedCodeBytes, 00 01 joined",
            Encoding::OrderedCode { desc: true } => "OrderedCodeBytes, terminated, inverted",
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
    /// `user_id u64 8`, `ts_millis desc_ts i64 8`, `name String >=2`,
    /// `kind Kind(u8: Click = 1, View = 2) 1` (a `KeyField` enum).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)?;
        self.write_attrs(f)?;
        write!(f, " {}", self.ty)?;
        if let Some(k) = &self.key_field {
            write!(f, "({k})")?;
        }
        write!(f, " {}", self.width)
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
        match self.format {
            Format::Text { sep } => write!(f, "text({sep:?}) ")?,
            Format::OrderedCode => f.write_str("ordered_code ")?,
            Format::Binary => {}
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

pub(super) struct Table<'a>(pub(super) &'a Layout);

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
            Format::OrderedCode => "Bigtable OrderedCodeBytes struct key",
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
                &Quoted(l.prefix),
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

/// Bytes in double quotes, in HBase's toStringBinary form.
struct Quoted<'a>(&'a [u8]);

impl fmt::Display for Quoted<'_> {
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

impl Layout {
    /// The layout as a table, one row per part (the same as `{:#}`).
    pub fn table(&self) -> impl fmt::Display + '_ {
        Table(self)
    }
}
