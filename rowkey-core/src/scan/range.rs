//! Scans: the row ranges that hold the keys a query asks for.
//!
//! The derive generates `T::scan_all()`, `T::scan_by_<fields>(...)` and
//! `T::range_by_<fields>(..., range)`, each returning a [`Scan`]. A scan is
//! one or more [`ScanRange`]s with HBase semantics: the start row is
//! inclusive, the stop row exclusive, and an empty stop row means "to the end
//! of the table". A salted scan whose `by` fields are not all fixed fans out
//! to one range per bucket; read them all and merge with
//! [`merge_salted`](crate::merge_salted) to get the unsalted key order.

use alloc::vec::Vec;
use core::fmt;
use core::ops::{Bound, RangeBounds};

use crate::format::salt::Head;

/// Bytes kept inline before a buffer moves to the heap: keys up to this long
/// (salt byte included) make scans without allocating.
pub const INLINE_KEY_BYTES: usize = 64;

/// A short byte string stored inline, or on the heap when it is long.
/// Public only for generated code (the salt of variable-length `by`
/// fields is hashed in one).
#[doc(hidden)]
#[derive(Clone)]
pub enum KeyBuf {
    Inline {
        len: u8,
        bytes: [u8; INLINE_KEY_BYTES],
    },
    Heap(Vec<u8>),
}

impl KeyBuf {
    #[inline]
    pub(crate) const fn new() -> Self {
        KeyBuf::Inline {
            len: 0,
            bytes: [0; INLINE_KEY_BYTES],
        }
    }

    #[inline]
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            KeyBuf::Inline { len, bytes } => &bytes[..usize::from(*len)],
            KeyBuf::Heap(v) => v,
        }
    }

    /// Appends `n` zero bytes and returns them for writing.
    #[inline]
    pub(crate) fn grow(&mut self, n: usize) -> &mut [u8] {
        if matches!(self, KeyBuf::Inline { len, .. } if usize::from(*len) + n > INLINE_KEY_BYTES) {
            self.spill(n);
        }
        match self {
            KeyBuf::Inline { len, bytes } => {
                let old = usize::from(*len);
                *len = (old + n) as u8;
                &mut bytes[old..old + n]
            }
            KeyBuf::Heap(v) => {
                let old = v.len();
                v.resize(old + n, 0);
                &mut v[old..]
            }
        }
    }

    /// Moves inline bytes to the heap, with room for `n` more: the rare
    /// case, out of line so that `grow` stays small enough to inline.
    #[cold]
    #[inline(never)]
    fn spill(&mut self, n: usize) {
        if let KeyBuf::Inline { len, bytes } = self {
            let old = usize::from(*len);
            let mut v = Vec::with_capacity(old + n);
            v.extend_from_slice(&bytes[..old]);
            *self = KeyBuf::Heap(v);
        }
    }

    /// Keeps the first `n` bytes (`n` at most the length).
    #[inline]
    pub(crate) fn truncate(&mut self, n: usize) {
        match self {
            KeyBuf::Inline { len, .. } => *len = (*len).min(n as u8),
            KeyBuf::Heap(v) => v.truncate(n),
        }
    }

    #[inline]
    pub(crate) fn extend_from_slice(&mut self, s: &[u8]) {
        self.grow(s.len()).copy_from_slice(s);
    }

    #[inline]
    pub(crate) fn from_slice(s: &[u8]) -> Self {
        let mut b = KeyBuf::new();
        b.extend_from_slice(s);
        b
    }

    /// `len` zero bytes: inline up to [`INLINE_KEY_BYTES`].
    #[doc(hidden)]
    #[inline]
    pub fn zeroed(len: usize) -> Self {
        let mut b = KeyBuf::new();
        b.grow(len);
        b
    }
}

impl core::ops::Deref for KeyBuf {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl core::ops::DerefMut for KeyBuf {
    #[inline]
    fn deref_mut(&mut self) -> &mut [u8] {
        match self {
            KeyBuf::Inline { len, bytes } => &mut bytes[..usize::from(*len)],
            KeyBuf::Heap(v) => v,
        }
    }
}

/// The first key after every key that starts with `prefix`: the prefix with
/// trailing FF bytes dropped and its last byte incremented. `None` when there
/// is no such key (the prefix is empty or all FF): the scan runs to the end.
///
/// ```
/// use rowkey_core::scan::prefix_stop;
/// assert_eq!(prefix_stop(&[0x12, 0x23, 0xFF, 0xFF]).as_deref(), Some(&[0x12, 0x24][..]));
/// assert_eq!(prefix_stop(&[0xFF, 0xFF]), None);
/// assert_eq!(prefix_stop(&[]), None);
/// ```
pub fn prefix_stop(prefix: &[u8]) -> Option<Vec<u8>> {
    prefix_stop_buf(prefix).map(|b| b.as_slice().to_vec())
}

#[inline]
pub(crate) fn prefix_stop_buf(prefix: &[u8]) -> Option<KeyBuf> {
    let keep = prefix.iter().rposition(|&b| b != 0xFF)?;
    let mut buf = KeyBuf::from_slice(&prefix[..keep]);
    buf.extend_from_slice(&[prefix[keep] + 1]);
    Some(buf)
}

/// What every range of a scan starts with: its buckets, how a bucket is
/// written, the family prefix.
pub(super) type Frame = (Buckets, Head, &'static [u8]);

const UNSALTED: Frame = (Buckets::Unsalted, Head::Byte, &[]);

/// Which salt buckets a scan reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buckets {
    /// The key has no salt byte.
    Unsalted,
    /// Every wanted row is in this one bucket.
    One(u8),
    /// The wanted rows may be in any of this many buckets: one range each.
    All(u16),
}

/// The row ranges that hold exactly the keys a query asks for.
///
/// Built by the derive's `scan_all`, `scan_by_*` and `range_by_*` methods.
///
#[cfg_attr(all(feature = "derive", feature = "alloc"), doc = "```")]
#[cfg_attr(not(all(feature = "derive", feature = "alloc")), doc = "```ignore")]
/// use rowkey_core::prelude::*;
///
/// #[derive(RowKey)]
/// #[salt(buckets = 4, by(user_id))]
/// struct Event {
///     user_id: u32,
///     #[desc_ts]
///     ts: i64,
/// }
///
/// // All by-fields fixed: one bucket, one range.
/// assert_eq!(Event::scan_by_user_id(7).ranges().count(), 1);
/// // Otherwise: one range per bucket.
/// assert_eq!(Event::scan_all().ranges().count(), 4);
/// ```
#[derive(Clone)]
pub struct Scan {
    buckets: Buckets,
    /// How a bucket is written in front of the key (salted scans).
    head: Head,
    /// The key family's prefix (`#[rowkey(prefix)]`), before the salt.
    family: &'static [u8],
    /// Start row without the salt byte.
    start: KeyBuf,
    /// Stop row without the salt byte; `None`: to the end of the bucket (or table).
    stop: Option<KeyBuf>,
    /// No key can match.
    empty: bool,
}

impl Scan {
    /// A scan that matches no row (for example a range whose start is past
    /// its end).
    pub const fn none() -> Scan {
        Scan {
            buckets: Buckets::Unsalted,
            head: Head::Byte,
            family: &[],
            start: KeyBuf::new(),
            stop: None,
            empty: true,
        }
    }

    /// A scan of one unsalted range, `start` inclusive, `stop` exclusive,
    /// an empty `stop` meaning "to the end".
    pub fn from_bounds(start: &[u8], stop: &[u8]) -> Scan {
        let stop = if stop.is_empty() {
            None
        } else {
            Some(KeyBuf::from_slice(stop))
        };
        Scan::build(UNSALTED, KeyBuf::from_slice(start), stop)
    }

    /// A scan of every row whose key starts with `prefix`: a key family's
    /// part of a table, or everything when `prefix` is empty.
    ///
    /// ```
    /// use rowkey_core::Scan;
    /// let scan = Scan::prefixed(b"D");
    /// let range = scan.ranges().next().unwrap();
    /// assert_eq!((range.start(), range.stop()), (&b"D"[..], &b"E"[..]));
    /// ```
    pub fn prefixed(prefix: &[u8]) -> Scan {
        let stop = prefix_stop_buf(prefix);
        Scan::build(UNSALTED, KeyBuf::from_slice(prefix), stop)
    }

    pub(super) fn build(frame: Frame, start: KeyBuf, stop: Option<KeyBuf>) -> Scan {
        let (buckets, head, family) = frame;
        let empty = matches!(&stop, Some(s) if start.as_slice() >= s.as_slice());
        Scan {
            buckets,
            head,
            family,
            start,
            stop,
            empty,
        }
    }

    /// The rest of this scan after the row `key`: for paging, pass the last
    /// key a page returned and read the returned scan for the next page.
    ///
    /// Keys are compared the way [`merge_salted`](crate::merge_salted)
    /// orders them: after the salt (byte, or bucket digits and separator in
    /// a text key) when the scan is salted, so the next
    /// page of a scan merged across buckets starts after `key` in every
    /// bucket, and no row is returned twice or skipped.
    ///
    #[cfg_attr(feature = "derive", doc = "```")]
    #[cfg_attr(not(feature = "derive"), doc = "```ignore")]
    /// use rowkey_core::prelude::*;
    ///
    /// #[derive(RowKey)]
    /// #[salt(buckets = 4)]
    /// struct Event {
    ///     id: u32,
    /// }
    ///
    /// let scan = Event::range_by_id(10..20);
    /// let last = Event { id: 14 }.encode();
    /// let rest = scan.after(&last);
    /// let key = |id| Event { id }.encode();
    /// let hit = |k: [u8; 5]| rest.ranges().any(|r| r.contains(&k));
    /// assert!(!hit(key(14)) && hit(key(15)) && hit(key(19)) && !hit(key(20)));
    /// ```
    pub fn after(&self, key: &[u8]) -> Scan {
        if self.empty {
            return Scan::none();
        }
        let rest = key.get(self.head_len()..).unwrap_or(&[]);
        // The first key after `rest` is `rest ++ 00`.
        let mut next = KeyBuf::from_slice(rest);
        next.extend_from_slice(&[0]);
        let start = if next.as_slice() > self.start.as_slice() {
            next
        } else {
            self.start.clone()
        };
        Scan::build(self.frame(), start, self.stop.clone())
    }

    /// [`after`](Self::after) the key a page ended with, as its decoded
    /// value: `scan.after_key(&last)?` instead of re-encoding it by hand.
    /// The key is encoded on the stack up to 64 bytes; an error only where
    /// the value cannot be encoded (it did not come from a read).
    ///
    #[cfg_attr(feature = "derive", doc = "```")]
    #[cfg_attr(not(feature = "derive"), doc = "```ignore")]
    /// use rowkey_core::prelude::*;
    ///
    /// #[derive(RowKey)]
    /// #[salt(buckets = 4)]
    /// struct Event {
    ///     id: u32,
    /// }
    ///
    /// let scan = Event::range_by_id(10..20);
    /// let rest: Vec<ScanRange> = scan.after_key(&Event { id: 14 })?.ranges().collect();
    /// let by_hand: Vec<ScanRange> = scan.after(&Event { id: 14 }.encode()).ranges().collect();
    /// assert_eq!(rest, by_hand);
    /// # Ok::<(), EncodeError>(())
    /// ```
    pub fn after_key<K: crate::key::RowKey + ?Sized>(
        &self,
        key: &K,
    ) -> Result<Scan, crate::format::error::EncodeError> {
        let mut buf = KeyBuf::zeroed(key.encoded_len());
        let n = key.encode_into(&mut buf)?;
        Ok(self.after(&buf[..n]))
    }

    fn frame(&self) -> Frame {
        (self.buckets, self.head, self.family)
    }

    /// The bytes in front of the fields of every key this scan reads: the
    /// key family's prefix, then the salt (1 byte in a binary key, the
    /// bucket digits and the separator in a text key, `3_`). Merge the
    /// ranges of a salted scan with
    /// [`merge_salted_with`](crate::merge_salted_with)`(scan.head_len(), ..)`.
    /// The same number as the key type's `HEAD_LEN` and
    /// [`Layout::head_len`](crate::Layout::head_len).
    pub fn head_len(&self) -> usize {
        self.family.len()
            + match self.buckets {
                Buckets::Unsalted => 0,
                _ => self.head.len(),
            }
    }

    /// The old name of [`head_len`](Self::head_len).
    #[deprecated(since = "0.1.0", note = "renamed `head_len`")]
    pub fn salt_len(&self) -> usize {
        self.head_len()
    }

    /// Merges one sorted stream per range of this scan (in
    /// [`ranges`](Self::ranges) order) into key order: the order after the
    /// family prefix and the salt, whatever the key's format. The same as
    /// [`merge_salted_with`](crate::merge_salted_with)`(self.head_len(), streams)`.
    ///
    #[cfg_attr(feature = "derive", doc = "```")]
    #[cfg_attr(not(feature = "derive"), doc = "```ignore")]
    /// use rowkey_core::prelude::*;
    ///
    /// #[derive(RowKey, Debug, PartialEq)]
    /// #[rowkey(text, sep = "_", prefix = "E")]
    /// #[salt(buckets = 12)]
    /// struct Event {
    ///     id: u32,
    /// }
    ///
    /// let scan = Event::scan_all();
    /// let mut per_range: Vec<Vec<(Vec<u8>, ())>> = vec![Vec::new(); scan.range_count()];
    /// for id in [5, 1, 9, 3] {
    ///     let key = Event { id }.encode_to_vec()?;
    ///     let i = scan.ranges().position(|r| r.contains(&key)).unwrap();
    ///     per_range[i].push((key, ()));
    /// }
    /// let ids: Vec<u32> = scan
    ///     .merge(per_range.into_iter().map(Vec::into_iter))
    ///     .map(|(k, _)| Event::decode(&k).unwrap().id)
    ///     .collect();
    /// assert_eq!(ids, [1, 3, 5, 9]);
    /// # Ok::<(), EncodeError>(())
    /// ```
    pub fn merge<S, I>(&self, streams: S) -> super::merge::MergeSalted<I>
    where
        S: IntoIterator<Item = I>,
        I: Iterator,
        I::Item: super::merge::MergeItem,
    {
        super::merge::merge_salted_with(self.head_len(), streams)
    }

    /// [`merge`](Self::merge) for streams that each read one of this scan's
    /// ranges backwards (HBase's reversed scan, `rev()` on redb and fjall):
    /// merged largest key first, so the first N rows are the latest N of an
    /// oldest-first key, at most N read per range.
    pub fn merge_reversed<S, I>(&self, streams: S) -> super::merge::MergeSalted<I>
    where
        S: IntoIterator<Item = I>,
        I: Iterator,
        I::Item: super::merge::MergeItem,
    {
        super::merge::merge_salted_reversed_with(self.head_len(), streams)
    }

    /// True when no row can match.
    pub fn is_empty(&self) -> bool {
        self.empty
    }

    /// Which buckets the scan reads.
    pub fn buckets(&self) -> Buckets {
        self.buckets
    }

    /// The number of ranges [`ranges`](Self::ranges) yields.
    pub fn range_count(&self) -> usize {
        match (self.empty, self.buckets) {
            (true, _) => 0,
            (false, Buckets::All(n)) => usize::from(n),
            (false, _) => 1,
        }
    }

    /// The ranges to read, one per bucket for a fanned-out salted scan, in
    /// bucket order.
    pub fn ranges(&self) -> Ranges<'_> {
        let (next, end) = match self.buckets {
            _ if self.empty => (0, 0),
            Buckets::Unsalted => (0, 1),
            Buckets::One(b) => (u16::from(b), u16::from(b) + 1),
            Buckets::All(n) => (0, n),
        };
        Ranges {
            scan: self,
            next,
            end,
        }
    }

    fn range_for(&self, bucket: Option<u8>) -> ScanRange {
        let mut head = KeyBuf::from_slice(self.family);
        if let Some(b) = bucket {
            let n = self.head.len();
            self.head.write(b, head.grow(n), true);
        }
        let mut start = head.clone();
        start.extend_from_slice(self.start.as_slice());
        let stop = match &self.stop {
            Some(s) => {
                let mut stop = head;
                stop.extend_from_slice(s.as_slice());
                stop
            }
            None => prefix_stop_buf(head.as_slice()).unwrap_or(KeyBuf::new()),
        };
        ScanRange { start, stop }
    }
}

impl fmt::Debug for Scan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.ranges()).finish()
    }
}

/// The iterator of [`Scan::ranges`].
pub struct Ranges<'a> {
    scan: &'a Scan,
    next: u16,
    end: u16,
}

impl Iterator for Ranges<'_> {
    type Item = ScanRange;

    fn next(&mut self) -> Option<ScanRange> {
        if self.next >= self.end {
            return None;
        }
        let bucket = self.next;
        self.next += 1;
        let b = match self.scan.buckets {
            Buckets::Unsalted => None,
            _ => Some(bucket as u8),
        };
        Some(self.scan.range_for(b))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::from(self.end - self.next);
        (n, Some(n))
    }
}

impl ExactSizeIterator for Ranges<'_> {}

/// One row range: `start` inclusive, `stop` exclusive, an empty `stop`
/// meaning "to the end of the table" (HBase's convention).
///
/// Use [`bounds`](Self::bounds) with `BTreeMap::range`, redb, fjall or
/// RocksDB:
///
#[cfg_attr(all(feature = "derive", feature = "alloc"), doc = "```")]
#[cfg_attr(not(all(feature = "derive", feature = "alloc")), doc = "```ignore")]
/// use std::collections::BTreeMap;
/// use rowkey_core::prelude::*;
///
/// #[derive(RowKey)]
/// struct Reading {
///     sensor: u16,
///     seq: u32,
/// }
///
/// let mut table = BTreeMap::new();
/// for sensor in 0..3u16 {
///     for seq in 0..5u32 {
///         table.insert(Reading { sensor, seq }.encode().to_vec(), ());
///     }
/// }
/// let scan = Reading::range_by_sensor_seq(1, 2..4);
/// let range = scan.ranges().next().unwrap();
/// let rows: Vec<_> = table.range::<[u8], _>(range.bounds()).map(|(k, _)| k.clone()).collect();
/// assert_eq!(rows, vec![
///     Reading { sensor: 1, seq: 2 }.encode().to_vec(),
///     Reading { sensor: 1, seq: 3 }.encode().to_vec(),
/// ]);
/// assert!(range.contains(&rows[0]));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ScanRange {
    start: KeyBuf,
    stop: KeyBuf,
}

impl PartialEq for KeyBuf {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}
impl Eq for KeyBuf {}

impl ScanRange {
    /// The first row (inclusive).
    pub fn start(&self) -> &[u8] {
        self.start.as_slice()
    }

    /// The row after the last (exclusive); empty for "to the end".
    pub fn stop(&self) -> &[u8] {
        self.stop.as_slice()
    }

    /// Whether `key` is in the range.
    pub fn contains(&self, key: &[u8]) -> bool {
        key >= self.start() && (self.stop().is_empty() || key < self.stop())
    }

    /// The range as standard bounds, for `BTreeMap::range::<[u8], _>` and
    /// stores that take `RangeBounds<&[u8]>` (redb, fjall).
    pub fn bounds(&self) -> (Bound<&[u8]>, Bound<&[u8]>) {
        let end = if self.stop().is_empty() {
            Bound::Unbounded
        } else {
            Bound::Excluded(self.stop())
        };
        (Bound::Included(self.start()), end)
    }
}

impl<'a> From<&'a ScanRange> for (Bound<&'a [u8]>, Bound<&'a [u8]>) {
    fn from(r: &'a ScanRange) -> Self {
        r.bounds()
    }
}

impl RangeBounds<[u8]> for ScanRange {
    fn start_bound(&self) -> Bound<&[u8]> {
        Bound::Included(self.start())
    }
    fn end_bound(&self) -> Bound<&[u8]> {
        self.bounds().1
    }
}

impl fmt::Debug for ScanRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{:02X?}, {:02X?})", self.start(), self.stop())
    }
}
