//! How a skip-scan filter finds where each part of a key ends: by the
//! part's structure alone (its width, its escapes and terminator, its
//! `Option` tag, the text separator after it), never by decoding the
//! value. The same few rules run on HBase's region servers in rowkey's
//! Java filter (FORMAT.md, "The server-side filter"), so they are kept to
//! what both sides can state exactly. A part of any other kind would use
//! its layout's reader and make the filter one that is not sent to a
//! server; no layout with a filter has one today (ordered-code keys, whose
//! fields need their reader, have no filter).

use crate::format::escape;
use crate::layout::{Encoding, FieldLayout, FieldWidth, Format, Layout};

/// How a part of the key is delimited.
#[derive(Clone, Copy)]
pub(super) enum Width<'a> {
    /// Always this many bytes.
    Fixed(usize),
    /// Escaped (`00` → `00 FF`) and terminated (`00 01`); `desc`: every
    /// byte inverted.
    Escaped { desc: bool },
    /// To the end of the key.
    Raw,
    /// An `Option` of a string: a tag (`00` None, `01` Some; inverted when
    /// `desc`), the value after `Some` escaped, or raw when `raw`. An
    /// `added` field's None tag never ends the key.
    Tagged { desc: bool, raw: bool, added: bool },
    /// A text key's string up to the first separator (which it includes).
    Delimited(&'a [u8]),
    /// Read with the field's layout reader (`OrderedCodeBytes` fields).
    Reader(&'static FieldLayout),
}

/// Where the part at `pos` of `x` ends.
pub(super) enum End {
    /// It is whole and ends here.
    At(usize),
    /// `x` ends inside it (or at its start).
    Cut,
    /// Its bytes are not a value of the part.
    Invalid,
}

impl Width<'static> {
    /// How field `f` of `layout` is delimited.
    pub(super) fn of(f: &'static FieldLayout, layout: &Layout) -> Width<'static> {
        if let FieldWidth::Fixed(n) = f.width() {
            return Width::Fixed(n);
        }
        match (f.encoding(), f.is_option()) {
            (Encoding::Escaped { desc }, false) => Width::Escaped { desc },
            (Encoding::Raw, false) => Width::Raw,
            (Encoding::Escaped { desc }, true) => Width::Tagged {
                desc,
                raw: false,
                added: f.is_added(),
            },
            (Encoding::Raw, true) => Width::Tagged {
                desc: false,
                raw: true,
                added: f.is_added(),
            },
            (Encoding::Delimited, false) => match layout.format() {
                Format::Text { sep } if !sep.is_empty() => Width::Delimited(sep.as_bytes()),
                _ => Width::Reader(f),
            },
            _ => Width::Reader(f),
        }
    }
}

impl Width<'_> {
    /// Where the part, starting at `pos`, ends in `x`.
    pub(super) fn end(&self, x: &[u8], pos: usize) -> End {
        match *self {
            Width::Fixed(n) => {
                if x.len() >= pos + n {
                    End::At(pos + n)
                } else {
                    End::Cut
                }
            }
            Width::Escaped { desc } => escaped_end(x, pos, desc),
            Width::Raw => End::At(x.len().max(pos)),
            Width::Tagged { desc, raw, added } => {
                let flip = if desc { 0xFF } else { 0 };
                match x.get(pos).map(|t| t ^ flip) {
                    None => End::Cut,
                    // A trailing added None is written as no bytes.
                    Some(0) if added && pos + 1 == x.len() => End::Invalid,
                    Some(0) => End::At(pos + 1),
                    Some(1) if raw => End::At(x.len()),
                    Some(1) => escaped_end(x, pos + 1, desc),
                    Some(_) => End::Invalid,
                }
            }
            Width::Delimited(sep) => {
                let rest = x.get(pos..).unwrap_or(&[]);
                match rest.windows(sep.len()).position(|w| w == sep) {
                    Some(n) => End::At(pos + n + sep.len()),
                    None => End::Cut,
                }
            }
            Width::Reader(f) => reader_end(f, x, pos),
        }
    }
}

/// Where an escaped, terminated string starting at `pos` ends.
fn escaped_end(x: &[u8], pos: usize, desc: bool) -> End {
    match escape::find_end(x, pos, desc, "") {
        Ok(e) => End::At(e.next),
        Err(crate::DecodeError::MissingTerminator { .. }) => End::Cut,
        Err(_) => End::Invalid,
    }
}

/// Where field `f` starting at `pos` ends in `x`, by its layout's reader.
fn reader_end(f: &'static FieldLayout, x: &[u8], pos: usize) -> End {
    let Some(read) = f.reader() else {
        return End::Invalid;
    };
    match read(x, pos, f, &mut Discard) {
        Ok((end, _)) => End::At(end),
        Err(
            crate::DecodeError::UnexpectedEnd { .. } | crate::DecodeError::MissingTerminator { .. },
        ) => End::Cut,
        Err(_) => End::Invalid,
    }
}

/// A writer that drops what it is given: the readers' values are not
/// needed to find a field's end.
struct Discard;
impl core::fmt::Write for Discard {
    fn write_str(&mut self, _: &str) -> core::fmt::Result {
        Ok(())
    }
}
