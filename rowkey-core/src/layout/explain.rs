//! Explaining a key: which bytes are which field, and where a bad key stops.
//!
//! `T::explain(key)` reads a key the way `T::decode` does, part by part
//! with the same codecs, and records each part's byte offsets, its raw
//! bytes (in HBase `toStringBinary` form, as the HBase shell prints them)
//! and its decoded value. For a key that does not decode, it keeps every
//! part that did and says where and why it stopped. The key can be bytes
//! or text pasted from the HBase shell (`\x03\x00...`, with or without the
//! quotes around it).
//!
#![cfg_attr(feature = "derive", doc = "```")]
#![cfg_attr(not(feature = "derive"), doc = "```ignore")]
//! use rowkey_core::prelude::*;
//!
//! #[derive(RowKey)]
//! #[salt(buckets = 16, by(user_id))]
//! struct UserEvent {
//!     user_id: u64,
//!     #[desc_ts]
//!     ts_millis: i64,
//! }
//!
//! let key = UserEvent { user_id: 42, ts_millis: 1_700_000_000_000 }.encode();
//! let explained = UserEvent::explain(&key);
//! assert!(explained.is_ok());
//! assert_eq!(explained.parts()[1].name(), "user_id");
//! assert_eq!(explained.parts()[1].range(), 1..9);
//! assert_eq!(explained.parts()[1].value(), "42");
//! assert!(explained.to_string().contains("2023-11-14T22:13:20.000Z"));
//!
//! // A key cut short, as pasted from the HBase shell.
//! let pasted = rowkey_core::hbase::to_string_binary(&key[..12]);
//! let explained = UserEvent::explain(pasted.as_str());
//! assert_eq!(explained.parts().len(), 2); // salt and user_id
//! assert_eq!(explained.stop().unwrap().at(), 9);
//! assert_eq!(explained.stop().unwrap().part(), "ts_millis");
//! ```

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write as _};
use core::ops::Range;

use crate::format::binary::{from_string_binary, to_string_binary, ParseBinaryError};
use crate::format::codec::FieldDecode;
use crate::format::error::DecodeError;
use crate::format::salt::{JavaHash, SaltHash, Xxh3};
use crate::format::time::civil_from_days;
use crate::layout::{Encoding, FieldLayout, Format, Layout, SaltHashKind};

/// What [`explain`](crate::RowKey::explain) accepts: bytes (`[u8]`,
/// `[u8; N]`, `Vec<u8>`) as they are, and text (`str`, `String`) as pasted
/// from the HBase shell, in `toStringBinary` form (`\x03\x00a`), with or
/// without double quotes around it. A text key's own text is its
/// `toStringBinary` form, so a text key can be pasted as it is.
pub trait ExplainInput {
    /// The key's bytes, or what is wrong with the pasted text.
    fn key_bytes(&self) -> Result<Cow<'_, [u8]>, ParseBinaryError>;
}

impl ExplainInput for [u8] {
    fn key_bytes(&self) -> Result<Cow<'_, [u8]>, ParseBinaryError> {
        Ok(Cow::Borrowed(self))
    }
}

impl<const N: usize> ExplainInput for [u8; N] {
    fn key_bytes(&self) -> Result<Cow<'_, [u8]>, ParseBinaryError> {
        Ok(Cow::Borrowed(self))
    }
}

impl ExplainInput for Vec<u8> {
    fn key_bytes(&self) -> Result<Cow<'_, [u8]>, ParseBinaryError> {
        Ok(Cow::Borrowed(self))
    }
}

impl ExplainInput for str {
    fn key_bytes(&self) -> Result<Cow<'_, [u8]>, ParseBinaryError> {
        let s = self.trim();
        let s = match s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
            Some(inner) => inner,
            None => s,
        };
        from_string_binary(s).map(Cow::Owned)
    }
}

impl ExplainInput for String {
    fn key_bytes(&self) -> Result<Cow<'_, [u8]>, ParseBinaryError> {
        self.as_str().key_bytes()
    }
}

impl<T: ExplainInput + ?Sized> ExplainInput for &T {
    fn key_bytes(&self) -> Result<Cow<'_, [u8]>, ParseBinaryError> {
        (**self).key_bytes()
    }
}

/// A key, explained part by part: see the [module documentation](self).
/// `Display` prints the layout, the key and one line per part.
#[derive(Clone, Debug)]
pub struct Explanation {
    layout: &'static Layout,
    key: Vec<u8>,
    parts: Vec<Part>,
    stop: Option<Stop>,
    salt_mismatch: Option<(u8, u8)>,
}

/// One part of an explained key: the prefix, the salt or a field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    name: &'static str,
    range: Range<usize>,
    value: String,
}

/// Where and why an explained key stops decoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stop {
    at: usize,
    part: &'static str,
    reason: Reason,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Reason {
    Decode(DecodeError),
    Pasted(ParseBinaryError),
}

impl Part {
    /// `"prefix"`, `"salt"` or the field's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The part's byte offsets in the key.
    pub fn range(&self) -> Range<usize> {
        self.range.clone()
    }

    /// The decoded value as text (strings quoted, timestamps also as UTC).
    pub fn value(&self) -> &str {
        &self.value
    }
}

impl Stop {
    /// The byte offset where the part that failed starts.
    pub fn at(&self) -> usize {
        self.at
    }

    /// The part that failed (`"input"` for pasted text that does not parse).
    pub fn part(&self) -> &'static str {
        self.part
    }

    /// The decoding error, `None` when pasted text did not parse.
    pub fn error(&self) -> Option<&DecodeError> {
        match &self.reason {
            Reason::Decode(e) => Some(e),
            Reason::Pasted(_) => None,
        }
    }
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.reason {
            Reason::Decode(e) => write!(f, "stops at byte {} in `{}`: {e}", self.at, self.part),
            Reason::Pasted(e) => write!(f, "the pasted text is not a key: {e}"),
        }
    }
}

impl Explanation {
    /// The key's bytes (parsed from the text when text was pasted).
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    /// The parts that decoded, in key order.
    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// Where and why the key stopped decoding; `None` when it decoded.
    pub fn stop(&self) -> Option<&Stop> {
        self.stop.as_ref()
    }

    /// A salt that does not match its `by` fields: `(stored, computed)`.
    /// Such a key decodes, but scans look for it in the computed bucket:
    /// it was written with another hash or bucket count.
    pub fn salt_mismatch(&self) -> Option<(u8, u8)> {
        self.salt_mismatch
    }

    /// The key decodes and its salt matches its fields.
    pub fn is_ok(&self) -> bool {
        self.stop.is_none() && self.salt_mismatch.is_none()
    }

    /// The layout the key was read with (a family's member for a key of a
    /// key-family enum).
    pub fn layout(&self) -> &'static Layout {
        self.layout
    }
}

/// Explains `key` as a key of `layout`: what `T::explain` calls.
pub fn explain<I: ExplainInput + ?Sized>(layout: &'static Layout, key: &I) -> Explanation {
    match key.key_bytes() {
        Ok(bytes) => explain_bytes(layout, &bytes),
        Err(e) => Explanation {
            layout,
            key: Vec::new(),
            parts: Vec::new(),
            stop: Some(Stop {
                at: 0,
                part: "input",
                reason: Reason::Pasted(e),
            }),
            salt_mismatch: None,
        },
    }
}

fn explain_bytes(layout: &'static Layout, key: &[u8]) -> Explanation {
    let mut ex = Explanation {
        layout,
        key: key.to_vec(),
        parts: Vec::new(),
        stop: None,
        salt_mismatch: None,
    };
    if !layout.members().is_empty() {
        match layout
            .members()
            .iter()
            .find(|m| key.starts_with(m.prefix()))
        {
            Some(member) => return explain_bytes(member, key),
            None => {
                ex.stop = Some(Stop {
                    at: 0,
                    part: "prefix",
                    reason: Reason::Decode(DecodeError::UnknownFamily {
                        families: layout.name(),
                    }),
                });
                return ex;
            }
        }
    }
    let _ = walk(layout, key, &mut ex);
    ex
}

/// Reads the parts of `key` into `ex`; `Err` once a part fails (the
/// failure is in `ex.stop`).
fn walk(layout: &'static Layout, key: &[u8], ex: &mut Explanation) -> Result<(), ()> {
    let stop = |ex: &mut Explanation, at, part, e| {
        ex.stop = Some(Stop {
            at,
            part,
            reason: Reason::Decode(e),
        });
        Err(())
    };
    let mut pos = 0;
    let prefix = layout.prefix();
    if !prefix.is_empty() {
        if !key.starts_with(prefix) {
            let e = DecodeError::WrongPrefix { expected: prefix };
            return stop(ex, 0, "prefix", e);
        }
        ex.parts.push(Part {
            name: "prefix",
            range: 0..prefix.len(),
            value: to_string_binary(prefix),
        });
        pos = prefix.len();
    }
    let mut bucket = None;
    if let Some(salt) = layout.salt() {
        match salt.head().read(&key[pos..], salt.buckets()) {
            Ok(b) => {
                bucket = Some(b);
                ex.parts.push(Part {
                    name: "salt",
                    range: pos..pos + salt.len(),
                    value: alloc::format!("bucket {b} of {}", salt.buckets()),
                });
                pos += salt.len();
            }
            Err(e) => return stop(ex, pos, "salt", e),
        }
    }
    let mut ints: Vec<Option<i128>> = Vec::with_capacity(layout.fields().len());
    for field in layout.fields() {
        if field.is_added() && pos == key.len() {
            ex.parts.push(Part {
                name: field.name(),
                range: pos..pos,
                value: "None (absent: the key was written before the field was added)".into(),
            });
            ints.push(None);
            continue;
        }
        let Some(read) = field.reader() else {
            return Err(());
        };
        let mut value = String::new();
        match read(key, pos, field, &mut value) {
            Ok((end, int)) => {
                let ts = matches!(
                    field.encoding(),
                    Encoding::DescTs | Encoding::DescTsDigits { .. }
                );
                if let (true, Some(ts)) = (ts, int) {
                    let _ = write!(value, " = {}", Utc(ts));
                }
                ex.parts.push(Part {
                    name: field.name(),
                    range: pos..end,
                    value,
                });
                ints.push(int);
                pos = end;
            }
            Err(e) => return stop(ex, pos, field.name(), e),
        }
    }
    if pos != key.len() {
        let e = DecodeError::TrailingBytes {
            count: key.len() - pos,
        };
        return stop(ex, pos, "end", e);
    }
    let first = ex.parts.len() - layout.fields().len();
    if layout.format() == Format::OrderedCode {
        if let Some((at, field, e)) = ordered_code_not_canonical(layout, key, &ex.parts[first..]) {
            return stop(ex, at, field, e);
        }
    }
    if let (Some(salt), Some(stored)) = (layout.salt(), bucket) {
        let by = |name: &str| layout.fields().iter().position(|f| f.name() == name);
        let computed = match salt.hash() {
            SaltHashKind::Mod => salt
                .by()
                .first()
                .and_then(|n| by(n))
                .and_then(|i| ints[i])
                .map(|v| (v.rem_euclid(i128::from(salt.buckets().max(1)))) as u8),
            hash => {
                let mut bytes = Vec::new();
                let mut last_sep = 0;
                for name in salt.by() {
                    let Some(i) = by(name) else { continue };
                    let stored = &key[ex.parts[first + i].range()];
                    if layout.format() == Format::OrderedCode {
                        // An ordered-code salt hashes the values' bytes.
                        let desc = layout.fields()[i].is_desc();
                        bytes.extend(crate::format::ordered_code::stored_content(stored, desc));
                    } else {
                        bytes.extend_from_slice(stored);
                    }
                    last_sep = layout.fields()[i].sep_len();
                }
                bytes.truncate(bytes.len() - last_sep.min(bytes.len()));
                Some(match hash {
                    SaltHashKind::Java => JavaHash::bucket(&[&bytes], salt.buckets()),
                    _ => Xxh3::bucket(&[&bytes], salt.buckets()),
                })
            }
        };
        if let Some(computed) = computed.filter(|&c| c != stored) {
            ex.salt_mismatch = Some((stored, computed));
        }
    }
    Ok(())
}

/// An ordered-code key that decodes part by part but is not the key of
/// its values (FORMAT.md: every value has one key): its last written field
/// is an ascending one with its terminator, or an empty string written
/// out. Where and why, as decoding says it.
fn ordered_code_not_canonical(
    layout: &Layout,
    key: &[u8],
    parts: &[Part],
) -> Option<(usize, &'static str, DecodeError)> {
    let (i, part) = parts
        .iter()
        .enumerate()
        .rev()
        .find(|(_, p)| !p.range.is_empty())?;
    if layout.fields()[i].is_desc() {
        return None;
    }
    let stored = &key[part.range()];
    // The whole key `00 00` is a struct of only empty strings.
    let all_empty = key.len() == 2 && part.range.start == 0;
    let spelled_out = stored.ends_with(&[0x00, 0x01]) || (stored == [0x00, 0x00] && !all_empty);
    spelled_out.then(|| {
        let field = layout.fields()[i].name();
        (
            part.range.start,
            field,
            DecodeError::InvalidValue {
                field,
                reason: crate::format::ordered_code::NOT_CANONICAL,
            },
        )
    })
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: {}", self.layout.name(), self.layout)?;
        writeln!(
            f,
            "key ({} bytes): {}",
            self.key.len(),
            to_string_binary(&self.key)
        )?;
        let raws: Vec<String> = self
            .parts
            .iter()
            .map(|p| to_string_binary(&self.key[p.range()]))
            .collect();
        let ranges: Vec<String> = self
            .parts
            .iter()
            .map(|p| alloc::format!("{}..{}", p.range.start, p.range.end))
            .collect();
        let w_range = ranges.iter().map(String::len).max().unwrap_or(0);
        let w_name = self.parts.iter().map(|p| p.name.len()).max().unwrap_or(0);
        let w_raw = raws.iter().map(String::len).max().unwrap_or(0);
        for ((p, raw), range) in self.parts.iter().zip(&raws).zip(&ranges) {
            writeln!(
                f,
                "  {range:<w_range$}  {:<w_name$}  {raw:<w_raw$}  {}",
                p.name, p.value
            )?;
        }
        if let Some(stop) = &self.stop {
            let rest = self.key.get(stop.at..).unwrap_or_default();
            if !rest.is_empty() {
                writeln!(
                    f,
                    "  {:<w_range$}  {:<w_name$}  {}  (not read)",
                    alloc::format!("{}..{}", stop.at, self.key.len()),
                    "-",
                    to_string_binary(rest)
                )?;
            }
            write!(f, "{stop}")
        } else if let Some((stored, computed)) = self.salt_mismatch {
            write!(
                f,
                "decodes, but its salt is {stored} where its fields hash to {computed}: \
                 it was written with another hash or bucket count, and scans look for it in bucket {computed}"
            )
        } else {
            f.write_str("decodes: ok")
        }
    }
}

/// How `explain` shows a decoded value (a hidden helper for the derive).
#[doc(hidden)]
pub trait Show {
    /// Writes the value.
    fn show(&self, out: &mut dyn fmt::Write) -> fmt::Result;
    /// The value as an integer, for integers.
    fn int(&self) -> Option<i128> {
        None
    }
}

macro_rules! show_int {
    ($($t:ty),*) => {$(
        impl Show for $t {
            fn show(&self, out: &mut dyn fmt::Write) -> fmt::Result {
                write!(out, "{self}")
            }
            fn int(&self) -> Option<i128> {
                i128::try_from(*self).ok()
            }
        }
    )*};
}
show_int!(u8, u16, u32, u64, u128, i8, i16, i32, i64, i128);

macro_rules! show_display {
    ($($t:ty),*) => {$(
        impl Show for $t {
            fn show(&self, out: &mut dyn fmt::Write) -> fmt::Result {
                write!(out, "{self:?}")
            }
        }
    )*};
}
show_display!(f32, f64, bool, char, String);

impl<const N: usize> Show for [u8; N] {
    fn show(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        write!(out, "[u8; {N}] {}", to_string_binary(self))
    }
}

impl Show for Vec<u8> {
    fn show(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        write!(out, "b\"{}\"", to_string_binary(self))
    }
}

impl<T: Show> Show for Option<T> {
    fn show(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        match self {
            None => out.write_str("None"),
            Some(v) => {
                out.write_str("Some(")?;
                v.show(out)?;
                out.write_str(")")
            }
        }
    }
    fn int(&self) -> Option<i128> {
        self.as_ref().and_then(Show::int)
    }
}

/// A [`Reader`](crate::layout::Reader) for a field whose value explain
/// shows: decodes with the field's codec `K` as `T`.
#[doc(hidden)]
pub fn read<K, T>(
    input: &[u8],
    pos: usize,
    field: &FieldLayout,
    out: &mut dyn fmt::Write,
) -> Result<(usize, Option<i128>), DecodeError>
where
    K: for<'de> FieldDecode<'de, T>,
    T: Show,
{
    let (value, end) = K::decode(input, pos, field.name())?;
    // Writing to a String cannot fail.
    let _ = value.show(out);
    Ok((end, value.int()))
}

/// A [`Reader`](crate::layout::Reader) for a user type: decodes it with
/// its codec (so that its own checks run) and shows its type's name.
#[doc(hidden)]
pub fn read_opaque<K, T>(
    input: &[u8],
    pos: usize,
    field: &FieldLayout,
    out: &mut dyn fmt::Write,
) -> Result<(usize, Option<i128>), DecodeError>
where
    K: for<'de> FieldDecode<'de, T>,
{
    let (value, end) = K::decode(input, pos, field.name())?;
    let mut name = String::new();
    let _ = K::describe(&value, &mut name);
    show_described::<T>(&name, out);
    Ok((end, None))
}

/// How explain shows a value it knows by its description: `described
/// (Type)`, or `a valid Type` when the type describes nothing.
pub(crate) fn show_described<T>(described: &str, out: &mut dyn fmt::Write) {
    let ty = short_type_name::<T>();
    if described.is_empty() {
        let _ = write!(out, "a valid {ty}");
    } else {
        let _ = write!(out, "{described} ({ty})");
    }
}

/// `Option<my_crate::Kind>` as `Option<Kind>`: the type without its paths.
fn short_type_name<T>() -> String {
    strip_paths(core::any::type_name::<T>())
}

/// A type's text without its paths: `chrono::DateTime<chrono::Utc>` →
/// `DateTime<Utc>`.
pub(crate) fn strip_paths(full: &str) -> String {
    let mut out = String::with_capacity(full.len());
    let mut word = String::new();
    for c in full.chars() {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            word.push(c);
        } else {
            out.push_str(word.rsplit("::").next().unwrap_or(""));
            word.clear();
            out.push(c);
        }
    }
    out.push_str(word.rsplit("::").next().unwrap_or(""));
    out
}

/// A timestamp shown as a UTC date, its unit guessed from its magnitude
/// (seconds below 10^11, milliseconds below 10^14, microseconds below
/// 10^17, nanoseconds above), since `#[desc_ts]` does not say.
struct Utc(i128);

impl fmt::Display for Utc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        let (per_sec, unit) = match v.unsigned_abs() {
            a if a < 100_000_000_000 => (1, "seconds"),
            a if a < 100_000_000_000_000 => (1_000, "milliseconds"),
            a if a < 100_000_000_000_000_000 => (1_000_000, "microseconds"),
            _ => (1_000_000_000, "nanoseconds"),
        };
        let secs = v.div_euclid(per_sec);
        let frac = v.rem_euclid(per_sec);
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        write!(
            f,
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
            rem / 3600,
            rem % 3600 / 60,
            rem % 60
        )?;
        match per_sec {
            1 => {}
            1_000 => write!(f, ".{frac:03}")?,
            1_000_000 => write!(f, ".{frac:06}")?,
            _ => write!(f, ".{frac:09}")?,
        }
        write!(f, "Z (UTC, read as {unit})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(19_675), (2023, 11, 14));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(
            Utc(1_700_000_000_000).to_string(),
            "2023-11-14T22:13:20.000Z (UTC, read as milliseconds)"
        );
        assert_eq!(
            Utc(1_700_000_000).to_string(),
            "2023-11-14T22:13:20Z (UTC, read as seconds)"
        );
        assert_eq!(
            Utc(-1).to_string(),
            "1969-12-31T23:59:59Z (UTC, read as seconds)"
        );
        assert_eq!(
            Utc(1_700_000_000_123_456).to_string(),
            "2023-11-14T22:13:20.123456Z (UTC, read as microseconds)"
        );
    }
}
