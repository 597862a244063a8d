//! A [`KeyFilter`](super::KeyFilter)'s serialized form, version 1: what
//! rowkey's Java filter (`rowkey.hbase.KeyFilter`) reads on HBase's region
//! servers. FORMAT.md, "The server-side filter", is its specification.
//!
//! [`WireFilter::decode`] reads it back as the Java filter does, with the
//! same checks in the same order and the same messages: a filter arriving
//! from the network is refused unless it is one the Rust builder could
//! have written (sorted, disjoint, non-empty intervals, each interval of a
//! fixed-width part holding a whole value, known widths and flags) and
//! within the caps below, so the work and memory of every row it looks at
//! are bounded on the region servers.

use alloc::vec::Vec;
use core::fmt;

use super::predicate::{Interval, Set, MAX_FILTER_INTERVALS};
use super::rules::{self, Rule};
use super::width::Width;

/// The most parts (prefix, salt and fields) a serialized filter has.
pub const MAX_FILTER_PARTS: usize = 64;

/// HBase's longest row key (`HConstants.MAX_ROW_LENGTH`, `Short.MAX_VALUE`):
/// the most bytes a serialized filter's parts may span, counting for each
/// part the longest of its fixed width, separator and interval bounds.
/// Longer never matches a row and could only make hints huge.
pub const MAX_FILTER_ROW: usize = 32_767;

/// The longest text-key separator a serialized filter carries.
pub const MAX_FILTER_SEPARATOR: usize = 16;

/// The bytes every serialized filter starts with: `RKF` and the version.
pub(super) const MAGIC: [u8; 4] = *b"RKF\x01";

/// Serializes the parts of a filter (each part's width, whether it is an
/// added field, its set); `None` when a part's end cannot be found by its
/// structure (an `OrderedCodeBytes` field).
pub(super) fn encode<'a>(
    parts: impl ExactSizeIterator<Item = (Width<'a>, bool, Option<&'a Set>)>,
) -> Option<Vec<u8>> {
    let mut out = Vec::from(MAGIC);
    varint(&mut out, parts.len());
    for (width, added, set) in parts {
        match width {
            Width::Fixed(n) => {
                out.push(0);
                varint(&mut out, n);
            }
            Width::Escaped { desc } => out.push(if desc { 2 } else { 1 }),
            Width::Raw => out.push(3),
            Width::Tagged { desc, raw, .. } => {
                out.push(4);
                out.push(u8::from(desc) | u8::from(raw) << 1);
            }
            Width::Delimited(sep) => {
                out.push(5);
                bytes(&mut out, sep);
            }
            Width::Reader(_) => return None,
        }
        out.push(u8::from(added));
        match set {
            None => out.push(0),
            Some(set) => {
                out.push(1);
                varint(&mut out, set.0.len());
                for iv in &set.0 {
                    bytes(&mut out, &iv.lo);
                    match &iv.hi {
                        None => out.push(0),
                        Some(hi) => {
                            out.push(1);
                            bytes(&mut out, hi);
                        }
                    }
                }
            }
        }
    }
    Some(out)
}

/// A length (varint) and the bytes.
fn bytes(out: &mut Vec<u8>, b: &[u8]) {
    varint(out, b.len());
    out.extend_from_slice(b);
}

/// An unsigned LEB128 varint (protobuf's).
fn varint(out: &mut Vec<u8>, mut v: usize) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Why a serialized filter was refused: the same reasons, in the same
/// words, as `rowkey.hbase.KeyFilter.parseFrom`'s `DeserializationException`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WireError {
    /// It does not start with `RKF` and version 1.
    NotAFilter,
    /// It ends inside a part.
    CutShort,
    /// A varint of more than 5 bytes.
    LongVarint {
        /// Its offset.
        at: usize,
    },
    /// A flag other than `00` or `01`.
    BadFlag {
        /// Its offset.
        at: usize,
        /// The byte found.
        value: u8,
    },
    /// More than [`MAX_FILTER_PARTS`] parts.
    TooManyParts {
        /// The count it gave.
        parts: u64,
    },
    /// A width code other than `00` to `05`.
    UnknownWidth {
        /// The part.
        part: usize,
        /// The code.
        width: u8,
    },
    /// An `Option` part's flags with bits other than 0 and 1.
    BadOptionFlags {
        /// The part.
        part: usize,
        /// The flags.
        flags: u8,
    },
    /// A separator that is empty or longer than [`MAX_FILTER_SEPARATOR`].
    BadSeparator {
        /// The part.
        part: usize,
        /// Its length.
        len: usize,
    },
    /// More than [`MAX_FILTER_INTERVALS`] intervals in one part.
    TooManyIntervals {
        /// The part.
        part: usize,
        /// The count it gave.
        count: u64,
    },
    /// An interval whose end is not above its start.
    EmptyInterval {
        /// The part.
        part: usize,
        /// The interval.
        interval: usize,
    },
    /// An interval that starts before the one before it ends (or after an
    /// unbounded one): the intervals are not sorted and disjoint.
    Unsorted {
        /// The part.
        part: usize,
        /// The interval.
        interval: usize,
    },
    /// An interval of a fixed-width part that holds no value of its width.
    NoWholeValue {
        /// The part.
        part: usize,
        /// The interval.
        interval: usize,
    },
    /// The parts span more than [`MAX_FILTER_ROW`] bytes.
    TooWide {
        /// The part at which the sum passed the cap.
        part: usize,
    },
    /// Bytes after the last part.
    TrailingBytes {
        /// Where they start.
        at: usize,
    },
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::NotAFilter => f.write_str("not a rowkey KeyFilter of version 1"),
            WireError::CutShort => f.write_str("a rowkey KeyFilter cut short"),
            WireError::LongVarint { at } => write!(f, "a varint longer than 5 bytes at byte {at}"),
            WireError::BadFlag { at, value } => write!(f, "a flag of {value} at byte {at}"),
            WireError::TooManyParts { parts } => {
                write!(f, "{parts} parts (at most {MAX_FILTER_PARTS})")
            }
            WireError::UnknownWidth { part, width } => write!(f, "part {part}: width {width}"),
            WireError::BadOptionFlags { part, flags } => {
                write!(f, "part {part}: option flags {flags}")
            }
            WireError::BadSeparator { part, len } => write!(
                f,
                "part {part}: a separator of {len} bytes (1 to {MAX_FILTER_SEPARATOR})"
            ),
            WireError::TooManyIntervals { part, count } => write!(
                f,
                "part {part}: {count} intervals (at most {MAX_FILTER_INTERVALS})"
            ),
            WireError::EmptyInterval { part, interval } => {
                write!(f, "part {part}, interval {interval}: empty")
            }
            WireError::Unsorted { part, interval } => write!(
                f,
                "part {part}, interval {interval}: not after the interval before it"
            ),
            WireError::NoWholeValue { part, interval } => write!(
                f,
                "part {part}, interval {interval}: holds no value of the part's width"
            ),
            WireError::TooWide { part } => write!(
                f,
                "part {part}: the parts span more than {MAX_FILTER_ROW} bytes"
            ),
            WireError::TrailingBytes { at } => write!(f, "bytes after the last part, at {at}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for WireError {}

/// A filter read back from its serialized form
/// ([`KeyFilter::to_bytes`](super::KeyFilter::to_bytes)), as rowkey's
/// filter on HBase's region servers reads it: it answers
/// [`matches`](Self::matches) and [`seek_hint`](Self::seek_hint) with the
/// same rules as the [`KeyFilter`](super::KeyFilter) it came from. For
/// tests of the Java filter against this one, and for tools that inspect
/// a filter a client sent.
///
#[cfg_attr(feature = "derive", doc = "```")]
#[cfg_attr(not(feature = "derive"), doc = "```ignore")]
/// use rowkey_core::prelude::*;
/// use rowkey_core::scan::{WireError, WireFilter};
///
/// #[derive(RowKey)]
/// struct Metric {
///     metric: u16,
///     host: String,
/// }
///
/// let filter = Metric::filter().host("web1").build()?;
/// let bytes = filter.to_bytes().unwrap();
/// let read = WireFilter::decode(&bytes).unwrap();
/// let key = Metric { metric: 3, host: "web1".into() }.encode_to_vec()?;
/// assert!(read.matches(&key) && filter.matches(&key));
///
/// // An unconstrained 8-byte part, then a 1-byte part whose one
/// // interval is empty: refused, never run.
/// let hostile = [0x52, 0x4B, 0x46, 0x01, 2, 0, 8, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0];
/// assert_eq!(
///     WireFilter::decode(&hostile).unwrap_err(),
///     WireError::EmptyInterval { part: 1, interval: 0 }
/// );
/// # Ok::<(), EncodeError>(())
/// ```
#[derive(Clone)]
pub struct WireFilter<'a> {
    parts: Vec<WirePart<'a>>,
    never: bool,
}

impl fmt::Debug for WireFilter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WireFilter")
            .field("parts", &self.parts.len())
            .field("never", &self.never)
            .finish()
    }
}

#[derive(Clone)]
struct WirePart<'a> {
    width: Width<'a>,
    added: bool,
    set: Option<Set>,
}

impl Rule for WirePart<'_> {
    fn width(&self) -> Width<'_> {
        self.width
    }

    fn added(&self) -> bool {
        self.added
    }

    fn set(&self) -> Option<&Set> {
        self.set.as_ref()
    }
}

impl<'a> WireFilter<'a> {
    /// Reads a serialized filter, refusing anything the Rust builder could
    /// not have written or that passes the caps ([`MAX_FILTER_PARTS`],
    /// [`MAX_FILTER_ROW`], [`MAX_FILTER_SEPARATOR`],
    /// [`MAX_FILTER_INTERVALS`]). Allocates at most what `bytes` holds.
    pub fn decode(bytes: &'a [u8]) -> Result<WireFilter<'a>, WireError> {
        if bytes.get(..4) != Some(&MAGIC[..]) {
            return Err(WireError::NotAFilter);
        }
        let mut r = Reader { b: bytes, pos: 4 };
        let n = r.varint()?;
        if n > MAX_FILTER_PARTS as u64 {
            return Err(WireError::TooManyParts { parts: n });
        }
        let n = n as usize;
        let mut parts = Vec::with_capacity(n);
        let mut span = 0usize;
        let mut never = false;
        for part in 0..n {
            let code = r.u8()?;
            let mut extent = 0;
            let width = match code {
                0 => {
                    let w = r.varint()?;
                    if w > MAX_FILTER_ROW as u64 {
                        return Err(WireError::TooWide { part });
                    }
                    extent = w as usize;
                    Width::Fixed(extent)
                }
                1 => Width::Escaped { desc: false },
                2 => Width::Escaped { desc: true },
                3 => Width::Raw,
                4 => {
                    let flags = r.u8()?;
                    if flags > 3 {
                        return Err(WireError::BadOptionFlags { part, flags });
                    }
                    Width::Tagged {
                        desc: flags & 1 != 0,
                        raw: flags & 2 != 0,
                        added: false,
                    }
                }
                5 => {
                    let sep = r.string()?;
                    if sep.is_empty() || sep.len() > MAX_FILTER_SEPARATOR {
                        return Err(WireError::BadSeparator {
                            part,
                            len: sep.len(),
                        });
                    }
                    extent = sep.len();
                    Width::Delimited(sep)
                }
                width => return Err(WireError::UnknownWidth { part, width }),
            };
            let added = r.flag()?;
            // The added flag ends an added Option's None tag too.
            let width = match width {
                Width::Tagged { desc, raw, .. } => Width::Tagged { desc, raw, added },
                w => w,
            };
            let set = if r.flag()? {
                let count = r.varint()?;
                if count > MAX_FILTER_INTERVALS as u64 {
                    return Err(WireError::TooManyIntervals { part, count });
                }
                // Each interval takes at least 2 bytes: no more room is
                // reserved than the input could fill.
                let mut intervals: Vec<Interval> =
                    Vec::with_capacity((count as usize).min(r.left() / 2));
                for interval in 0..count as usize {
                    let lo = r.string()?;
                    let hi = if r.flag()? { Some(r.string()?) } else { None };
                    if hi.is_some_and(|hi| hi <= lo) {
                        return Err(WireError::EmptyInterval { part, interval });
                    }
                    if let Some(prev) = intervals.last() {
                        if prev.hi.as_deref().map_or(true, |end| lo < end) {
                            return Err(WireError::Unsorted { part, interval });
                        }
                    }
                    let iv = Interval {
                        lo: lo.to_vec(),
                        hi: hi.map(<[u8]>::to_vec),
                        single: false,
                    };
                    if let Width::Fixed(w) = width {
                        if !iv.holds_width(w) {
                            return Err(WireError::NoWholeValue { part, interval });
                        }
                    }
                    extent = extent.max(lo.len()).max(hi.map_or(0, <[u8]>::len));
                    intervals.push(iv);
                }
                never |= intervals.is_empty();
                Some(Set(intervals))
            } else {
                None
            };
            span += extent;
            if span > MAX_FILTER_ROW {
                return Err(WireError::TooWide { part });
            }
            parts.push(WirePart { width, added, set });
        }
        if r.pos != bytes.len() {
            return Err(WireError::TrailingBytes { at: r.pos });
        }
        Ok(WireFilter { parts, never })
    }

    /// The number of parts (prefix, salt and fields).
    pub fn parts(&self) -> usize {
        self.parts.len()
    }

    /// Whether `key` matches: as [`KeyFilter::matches`](super::KeyFilter::matches).
    pub fn matches(&self, key: &[u8]) -> bool {
        rules::matches(&self.parts, key)
    }

    /// The smallest key at or after `key` that could match: as
    /// [`KeyFilter::seek_hint`](super::KeyFilter::seek_hint), with the
    /// same bound on its work ([`MAX_HINT_PASSES`](super::MAX_HINT_PASSES)).
    pub fn seek_hint(&self, key: &[u8]) -> Option<Vec<u8>> {
        rules::seek_hint(&self.parts, self.never, key)
    }
}

/// The serialized form's reader: varints, flags and strings.
struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn left(&self) -> usize {
        self.b.len() - self.pos
    }

    fn u8(&mut self) -> Result<u8, WireError> {
        let v = *self.b.get(self.pos).ok_or(WireError::CutShort)?;
        self.pos += 1;
        Ok(v)
    }

    fn flag(&mut self) -> Result<bool, WireError> {
        let at = self.pos;
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            value => Err(WireError::BadFlag { at, value }),
        }
    }

    /// An unsigned LEB128 varint of at most 5 bytes.
    fn varint(&mut self) -> Result<u64, WireError> {
        let at = self.pos;
        let mut v = 0u64;
        for shift in (0..35).step_by(7) {
            let x = self.u8()?;
            v |= u64::from(x & 0x7F) << shift;
            if x & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(WireError::LongVarint { at })
    }

    /// A varint length and that many bytes.
    fn string(&mut self) -> Result<&'a [u8], WireError> {
        let n = self.varint()?;
        if n > self.left() as u64 {
            return Err(WireError::CutShort);
        }
        let out = &self.b[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(out)
    }
}
