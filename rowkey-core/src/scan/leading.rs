//! The builders that generated scans use: a [`Leading`] of encoded leading
//! fields, extended one field at a time by the field codecs (through
//! `ScanPrefix`, which it implements) and turned into a [`Scan`].

use core::ops::{Bound, RangeBounds};

use super::range::{prefix_stop_buf, Buckets, KeyBuf, Scan};
use crate::format::codec::{FieldCodec, Rounded, ScanPrefix};
use crate::format::error::EncodeError;
use crate::format::salt::Head;

/// The encoded leading fields of a scan (without the salt byte) and the
/// buckets its rows are in. Generated code builds one per number of fixed
/// fields, each extending the one before, and turns it into a [`Scan`].
#[doc(hidden)]
pub struct Leading {
    buf: KeyBuf,
    buckets: Buckets,
    head: Head,
    family: &'static [u8],
    /// An ordered-code key's lowest key with this prefix ends here (see
    /// `FieldCodec::lowest_len`); `None` for every other format, whose
    /// lowest key is the prefix itself.
    floor: Option<usize>,
}

impl Leading {
    /// No fields yet: every row, in every bucket.
    #[doc(hidden)]
    #[inline]
    pub const fn new(buckets: Buckets) -> Self {
        Leading {
            buf: KeyBuf::new(),
            buckets,
            head: Head::Byte,
            family: &[],
            floor: None,
        }
    }

    /// No fields yet, unsalted: every row.
    #[doc(hidden)]
    #[inline]
    pub const fn unsalted() -> Self {
        Self::new(Buckets::Unsalted)
    }

    /// No fields yet: every row, in all `buckets` salt buckets.
    #[doc(hidden)]
    #[inline]
    pub const fn all(buckets: u16) -> Self {
        Self::new(Buckets::All(buckets))
    }

    /// No fields yet: every row in salt bucket `bucket`.
    #[doc(hidden)]
    #[inline]
    pub const fn one(bucket: u8) -> Self {
        Self::new(Buckets::One(bucket))
    }

    /// Every key starts with the family prefix `family` (before the salt).
    #[doc(hidden)]
    #[inline]
    pub const fn family(mut self, family: &'static [u8]) -> Self {
        self.family = family;
        self
    }

    /// The salt is written as `head` (a text key's bucket digits).
    #[doc(hidden)]
    #[inline]
    pub const fn head(mut self, head: Head) -> Self {
        self.head = head;
        self
    }

    /// The prefix with one more field's encoding appended.
    #[inline]
    pub(crate) fn with<C: FieldCodec<T>, T: ?Sized>(
        mut self,
        value: &T,
        field: &'static str,
    ) -> Result<Leading, EncodeError> {
        let start = self.buf.len();
        let n = C::encoded_len(value);
        let dst = self.buf.grow(n);
        let written = C::encode(value, dst, 0, field)?;
        if C::ORDERED_CODE {
            self.floor = Some(self.floor_after::<C, T>(start, value, written));
        }
        Ok(self)
    }

    /// Where the lowest key ends once `value`, `written` bytes at `at`,
    /// follows the fields so far (an ordered-code key's; see
    /// `FieldCodec::lowest_len`).
    #[inline]
    fn floor_after<C: FieldCodec<T>, T: ?Sized>(
        &self,
        at: usize,
        value: &T,
        written: usize,
    ) -> usize {
        match C::lowest_len(value, written) {
            Some(keep) => at + keep,
            None => self.floor.unwrap_or(0),
        }
    }

    /// The fields so far fix the salt: every row is in `bucket`.
    #[doc(hidden)]
    #[inline]
    pub fn in_bucket(mut self, bucket: u8) -> Leading {
        self.buckets = Buckets::One(bucket);
        self
    }

    #[doc(hidden)]
    pub fn as_bytes(&self) -> &[u8] {
        self.buf.as_slice()
    }

    /// Every row whose leading fields encode to this prefix.
    #[doc(hidden)]
    #[inline]
    pub fn scan_eq(self) -> Scan {
        let stop = prefix_stop_buf(self.as_bytes());
        let mut start = self.buf;
        if let Some(floor) = self.floor {
            start.truncate(floor);
        }
        Scan::build((self.buckets, self.head, self.family), start, stop)
    }

    /// The one row whose key is this prefix: a whole key whose last field
    /// is raw to the end of the key, so a longer key with the same start is
    /// another value (the successor of `key` is `key ++ 00`).
    #[doc(hidden)]
    #[inline]
    pub fn scan_exact(self) -> Scan {
        let mut stop = self.buf.clone();
        stop.extend_from_slice(&[0]);
        Scan::build((self.buckets, self.head, self.family), self.buf, Some(stop))
    }

    /// Every row whose leading fields encode to this prefix and whose next
    /// field is in `range`. A bound that cannot be stored exactly (a
    /// timestamp finer than its unit, a `#[fixed(N)]` string longer than
    /// `N`) stands for the storable values the Rust range holds: the start
    /// rounds up, the end down. When the field's codec sorts descending
    /// (`C::DESC`) the range's ends swap; when it is stored raw to the end
    /// of the key (`C::RAW`, not prefix-free) a value's rows end at
    /// `value ++ 00`.
    #[inline]
    pub(crate) fn scan_range<C: FieldCodec<T>, T>(
        self,
        range: &impl RangeBounds<T>,
        field: &'static str,
    ) -> Result<Scan, EncodeError> {
        let (prefix, frame) = (&self, (self.buckets, self.head, self.family));
        // Each bound's key, where it is in the range, and (an ordered-code
        // key) where the lowest key with that value ends.
        let encode = |v: &T, up: bool| -> Result<(KeyBuf, Rounded, usize), EncodeError> {
            let mut p = KeyBuf::from_slice(prefix.as_bytes());
            let n = C::encoded_len(v);
            let at = prefix.buf.len();
            let (end, rounded) = C::encode_bound(v, up, p.grow(n), 0, field)?;
            p.truncate(at + end);
            let floor = if C::ORDERED_CODE {
                prefix.floor_after::<C, T>(at, v, end)
            } else {
                at + end
            };
            Ok((p, rounded, floor))
        };
        // The first key of a value's rows: in an ordered-code key, the
        // value's key cut to where the lowest key with it ends.
        let lowest = |(mut k, floor): (KeyBuf, usize)| -> KeyBuf {
            if C::ORDERED_CODE {
                k.truncate(floor);
            }
            k
        };
        // Each end as an encoded value and whether that value is in the
        // range (the rounding decides where a bound was not exact).
        let start = match range.start_bound() {
            Bound::Unbounded => None,
            Bound::Included(v) => {
                encode(v, true).map(|(k, r, f)| Some((k, r != Rounded::Below, r, f)))?
            }
            Bound::Excluded(v) => {
                encode(v, true).map(|(k, r, f)| Some((k, r == Rounded::Above, r, f)))?
            }
        };
        let end = match range.end_bound() {
            Bound::Unbounded => None,
            Bound::Included(v) => {
                encode(v, false).map(|(k, r, f)| Some((k, r != Rounded::Above, r, f)))?
            }
            Bound::Excluded(v) => {
                encode(v, false).map(|(k, r, f)| Some((k, r == Rounded::Below, r, f)))?
            }
        };
        let (low, high) = if C::DESC { (end, start) } else { (start, end) };
        // A start after the end is a programming error, as in
        // `BTreeMap::range` (an empty range such as `t..t` is not): the
        // ends compared as their encodings, which sort like the values.
        // Where a bound was rounded, the ends may cross within one unit,
        // an empty range rather than an inverted one.
        if let (Some((a, _, Rounded::Exact, _)), Some((b, _, Rounded::Exact, _))) = (&low, &high) {
            if a.as_slice() > b.as_slice() {
                let n = prefix.buf.len();
                inverted_range(field, C::DESC, &a.as_slice()[n..], &b.as_slice()[n..]);
            }
        }
        // The first key of a value's rows, or past them.
        let after = |k: KeyBuf| -> Option<KeyBuf> {
            if C::RAW {
                let mut k = k;
                k.extend_from_slice(&[0]);
                Some(k)
            } else {
                prefix_stop_buf(k.as_slice())
            }
        };
        let start = match low {
            None => lowest((self.buf.clone(), self.floor.unwrap_or(self.buf.len()))),
            Some((k, true, _, floor)) => lowest((k, floor)),
            Some((k, false, _, _)) => match after(k) {
                Some(s) => s,
                None => return Ok(Scan::none()),
            },
        };
        let stop = match high {
            None => prefix_stop_buf(prefix.as_bytes()),
            Some((k, true, _, _)) => after(k),
            Some((k, false, _, floor)) => Some(lowest((k, floor))),
        };
        Ok(Scan::build(frame, start, stop))
    }
}

/// The panic of a range whose start is after its end; `low` and `high` are
/// the ends' encodings in key order (swapped for a descending field).
#[cold]
#[inline(never)]
#[track_caller]
fn inverted_range(field: &'static str, desc: bool, low: &[u8], high: &[u8]) -> ! {
    let (start, end) = if desc { (high, low) } else { (low, high) };
    let desc = if desc {
        " (the field sorts descending: pass the range in value order, oldest..newest; the scan swaps the ends)"
    } else {
        ""
    };
    panic!(
        "range over field `{field}`: its start is after its end (start encodes to \"{}\", end to \"{}\"){desc}",
        crate::format::binary::to_string_binary(start),
        crate::format::binary::to_string_binary(end),
    )
}

impl ScanPrefix for Leading {
    type Scan = Scan;
    #[inline]
    fn push<C: FieldCodec<T>, T: ?Sized>(
        self,
        value: &T,
        field: &'static str,
    ) -> Result<Self, EncodeError> {
        self.with::<C, T>(value, field)
    }
    #[inline]
    fn range<C: FieldCodec<T>, T>(
        self,
        range: &impl RangeBounds<T>,
        field: &'static str,
    ) -> Result<Scan, EncodeError> {
        self.scan_range::<C, T>(range, field)
    }
}
