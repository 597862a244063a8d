//! Skip scans: a [`KeyFilter`] of typed predicates on any fields.
//!
//! A row key serves the queries that fix its leading fields; a query on a
//! later field (all events of the last minute, whoever the user) would
//! read the whole table. `T::filter()` builds a [`KeyFilter`] from one
//! predicate per field: a value, a Rust range or [`any_of`] a few of
//! them. The filter knows each part's bytes, so it can say of any key
//! whether it matches ([`KeyFilter::matches`]) and, when it does not,
//! the smallest key after it that could ([`KeyFilter::seek_hint`]): a
//! store that can seek skips every run of keys that cannot match, as
//! Phoenix's skip scan does. For servers that filter themselves it gives
//! HBase's `FuzzyRowFilter` pairs, `MultiRowRangeFilter` ranges and
//! Bigtable's row-key regular expression.
//!
#![cfg_attr(feature = "derive", doc = "```")]
#![cfg_attr(not(feature = "derive"), doc = "```ignore")]
//! use rowkey_core::prelude::*;
//!
//! #[derive(RowKey)]
//! #[salt(buckets = 4, by(user_id))]
//! struct UserNewest {
//!     user_id: u64,
//!     #[desc_ts]
//!     ts_millis: i64,
//! }
//!
//! // Every user's events of one minute: no leading field is fixed.
//! let t0 = 1_700_000_000_000;
//! let filter = UserNewest::filter().ts_millis(t0..t0 + 60_000).build()?;
//! let key = |user_id, ts_millis| UserNewest { user_id, ts_millis }.encode();
//! assert!(filter.matches(&key(7, t0 + 5)));
//! assert!(!filter.matches(&key(7, t0 - 5)));
//!
//! // Newest first: past user 7's window, a store skips to the next
//! // user id in the same bucket, at the window's newest end.
//! let past = key(7, t0 - 5);
//! let hint = filter.seek_hint(&past).unwrap();
//! assert_eq!(hint[0], past[0]);
//! assert_eq!(hint[1..9], 8u64.to_be_bytes());
//! assert_eq!(hint[9..], key(8, t0 + 59_999)[9..]);
//! # Ok::<(), EncodeError>(())
//! ```
//!
//! # What a filter's bytes mean
//! A filter compares each constrained field's *encoded* bytes (its
//! segment of the key) with the encodings of the predicate's values, so
//! it agrees with the predicate on the decoded values for every key of
//! the layout. A key that is not of the layout (cut short, trailing bytes,
//! a part that does not parse) never matches; a constrained field's bytes
//! are compared, not validated, as HBase's and Bigtable's server-side
//! filters compare them.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use core::ops::{Bound, Range, RangeBounds, RangeFrom, RangeInclusive, RangeTo, RangeToInclusive};

use super::leading::Leading;
use super::range::{prefix_stop, Buckets, KeyBuf, Scan};
use crate::format::codec::{FieldCodec, FilterSink};
use crate::format::error::EncodeError;
use crate::format::escape;
use crate::format::salt::Head;
use crate::layout::{Encoding, FieldLayout, FieldWidth, Layout};

/// The most key/mask pairs [`KeyFilter::fuzzy_row_filter`] gives (the
/// product of the constrained fields' value counts); past it the filter
/// is better sent as ranges or a regex.
pub const MAX_FUZZY_KEYS: usize = 256;

/// The most separate values and ranges a filter allows for one field
/// (after merging those that touch); past it building the filter is an
/// [`EncodeError::TooManyIntervals`] naming the field, so a predicate built
/// from a user's request (`any_of` a huge or endless list) cannot grow the
/// filter, or the ranges sent to a server, without bound.
pub const MAX_FILTER_INTERVALS: usize = 16_384;

/// The longest row-key pattern [`KeyFilter::bigtable_row_regex`] gives, in
/// bytes: 16 KiB, under Bigtable's limit of 20 KiB on a request's whole
/// serialized `RowFilter` (Google's Java client checks
/// `MAX_FILTER_SIZE = 20 * 1024` in `Query.filter`, googleapis/java-bigtable
/// #787), leaving room for the filter's other parts. Past it a scan sends
/// its ranges only and checks rows on the client.
pub const MAX_REGEX_LEN: usize = 16 * 1024;

/// Bigtable's row-key regular expression for a [`KeyFilter`]: see
/// [`KeyFilter::bigtable_row_regex`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BigtableRegex {
    /// The RE2 pattern (see [`KeyFilter::bigtable_regex`]); `None` when it
    /// would be longer than [`MAX_REGEX_LEN`], so none is sent.
    pub pattern: Option<Vec<u8>>,
    /// Whether the pattern matches exactly the keys the filter does; when
    /// `false`, every row it lets through must be checked with
    /// [`KeyFilter::matches`].
    pub exact: bool,
}

/// The most ranges [`KeyFilter::multi_row_ranges`] gives (buckets times
/// the last field's intervals); past it the filter is sent another way.
pub const MAX_ROW_RANGES: usize = 65_536;

/// A half-open interval `[lo, hi)` of one part's encoded bytes; `hi`
/// `None` is unbounded. Public only for [`FieldPredicate`]'s hidden
/// method.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interval {
    lo: Vec<u8>,
    hi: Option<Vec<u8>>,
    /// It holds exactly one encoding, `lo`.
    single: bool,
}

impl Interval {
    /// The one encoding `e` of a codec: `[e, e ++ 00)` when the codec is
    /// raw to the end of the key; else, the codec being prefix-free, the
    /// keys that start with `e`, `[e, prefix_stop(e))`, which as a key
    /// range also holds the rest of the key after the field.
    fn exact(e: Vec<u8>, raw: bool) -> Interval {
        let hi = if raw {
            let mut hi = e.clone();
            hi.push(0);
            Some(hi)
        } else {
            prefix_stop(&e)
        };
        Interval {
            lo: e,
            hi,
            single: true,
        }
    }

    fn contains(&self, s: &[u8]) -> bool {
        self.lo.as_slice() <= s && self.hi.as_deref().map_or(true, |hi| s < hi)
    }

    /// The single encoding this interval holds, if it holds one.
    fn single(&self) -> Option<&[u8]> {
        self.single.then_some(self.lo.as_slice())
    }

    /// A single encoding of a raw field: a key range ending right after it.
    fn is_raw_single(&self) -> bool {
        self.single
            && self.hi.as_deref().is_some_and(|hi| {
                hi.len() == self.lo.len() + 1 && hi.starts_with(&self.lo) && hi.last() == Some(&0)
            })
    }
}

/// A sorted list of disjoint, non-empty intervals: a part's allowed
/// encodings.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Set(Vec<Interval>);

impl Set {
    fn new(mut v: Vec<Interval>) -> Set {
        v.retain(|i| i.hi.as_deref().map_or(true, |hi| i.lo.as_slice() < hi));
        v.sort_by(|a, b| a.lo.cmp(&b.lo));
        let mut out: Vec<Interval> = Vec::with_capacity(v.len());
        for i in v {
            match out.last_mut() {
                // Overlapping or touching: one interval.
                Some(last) if last.hi.as_deref().map_or(true, |hi| i.lo.as_slice() <= hi) => {
                    last.hi = match (last.hi.take(), i.hi) {
                        (Some(a), Some(b)) => Some(a.max(b)),
                        _ => None,
                    };
                    // Two intervals of one value are that value's.
                    last.single = last.single && i.single && last.lo == i.lo;
                }
                _ => out.push(i),
            }
        }
        Set(out)
    }

    fn contains(&self, s: &[u8]) -> bool {
        // The last interval starting at or before `s`.
        let n = self.0.partition_point(|i| i.lo.as_slice() <= s);
        n > 0 && self.0[n - 1].contains(s)
    }

    /// The first interval that ends after `s` (so either holds it or lies
    /// entirely above it): a binary search, the intervals being disjoint
    /// and sorted, so their ends are too.
    fn next_after(&self, s: &[u8]) -> Option<&Interval> {
        let n = self
            .0
            .partition_point(|i| i.hi.as_deref().is_some_and(|hi| hi <= s));
        self.0.get(n)
    }

    /// Every interval holds exactly one encoding: the encodings.
    fn singles(&self) -> Option<Vec<&[u8]>> {
        self.0.iter().map(Interval::single).collect()
    }
}

/// What [`T::filter()`](crate::RowKey)'s per-field methods take: a value
/// of the field, a Rust range of values (`a..b`, `a..=b`, `a..`, `..b`,
/// `..=b`, `(Bound, Bound)`), or [`any_of`] several of them.
///
/// A `#[desc]` or `#[desc_ts]` field takes its ranges in value order,
/// as `range_by_*` does (the ends swap inside). A field whose bytes do not
/// sort like its values (`#[reverse]`, `#[reverse_domain]`, a string
/// between separators in a text key) takes values only: see
/// [`ValuePredicate`].
pub trait FieldPredicate<T> {
    /// The encodings this predicate allows, with the codec `C`.
    #[doc(hidden)]
    fn __intervals<C: FieldCodec<T>>(
        self,
        field: &'static str,
    ) -> Result<Vec<Interval>, EncodeError>;
}

/// A predicate made of values only (no range): what a field whose bytes
/// do not sort like its values accepts.
#[diagnostic::on_unimplemented(
    message = "no range filter over this field: its bytes do not sort by value",
    label = "a value or `any_of` values, not a range",
    note = "a #[reverse] or #[reverse_domain] field, or a string between separators in a text key, stores bytes that do not sort like its values, so a range of values is no range of keys; filter on `any_of` its values"
)]
pub trait ValuePredicate<T>: FieldPredicate<T> {}

fn encode_value<C: FieldCodec<T>, T>(v: &T, field: &'static str) -> Result<Vec<u8>, EncodeError> {
    let mut out = vec![0; C::encoded_len(v)];
    let end = C::encode(v, &mut out, 0, field)?;
    out.truncate(end);
    Ok(out)
}

impl<T> FieldPredicate<T> for T {
    fn __intervals<C: FieldCodec<T>>(
        self,
        field: &'static str,
    ) -> Result<Vec<Interval>, EncodeError> {
        encode_value::<C, T>(&self, field).map(|e| vec![Interval::exact(e, C::RAW)])
    }
}
impl<T> ValuePredicate<T> for T {}

/// A range's interval: the one range of an unsalted, field-less scan of
/// it, which rounds unstorable bounds and swaps a descending field's ends
/// exactly as `range_by_*` does.
fn range_intervals<C: FieldCodec<T>, T>(
    range: &impl RangeBounds<T>,
    field: &'static str,
) -> Result<Vec<Interval>, EncodeError> {
    let scan = Leading::unsalted().scan_range::<C, T>(range, field)?;
    Ok(scan_intervals(&scan))
}

/// The intervals of an unsalted, field-less scan's ranges.
pub(crate) fn scan_intervals(scan: &Scan) -> Vec<Interval> {
    scan.ranges()
        .map(|r| Interval {
            lo: r.start().to_vec(),
            hi: (!r.stop().is_empty()).then(|| r.stop().to_vec()),
            single: false,
        })
        .collect()
}

macro_rules! range_predicates {
    ($($range:ty),*) => {$(
        impl<T> FieldPredicate<T> for $range {
            fn __intervals<C: FieldCodec<T>>(
                self,
                field: &'static str,
            ) -> Result<Vec<Interval>, EncodeError> {
                range_intervals::<C, T>(&self, field)
            }
        }
    )*};
}
range_predicates!(
    Range<T>,
    RangeInclusive<T>,
    RangeFrom<T>,
    RangeTo<T>,
    RangeToInclusive<T>,
    (Bound<T>, Bound<T>)
);

/// Several predicates of one field, any of which may hold: see [`any_of`].
pub struct AnyOf<T, I> {
    items: I,
    _field: PhantomData<fn(T)>,
}

/// Any of `items` (values, ranges, or both): `any_of([a, b])`,
/// `any_of([t0..t1, t2..t3])`. An empty list matches nothing.
///
#[cfg_attr(feature = "derive", doc = "```")]
#[cfg_attr(not(feature = "derive"), doc = "```ignore")]
/// use rowkey_core::{any_of, prelude::*};
///
/// #[derive(RowKey)]
/// struct Metric {
///     metric: u32,
///     host: u16,
///     ts: i64,
/// }
///
/// let filter = Metric::filter().host(any_of([3, 5])).build()?;
/// assert!(filter.matches(&Metric { metric: 1, host: 5, ts: 0 }.encode()));
/// assert!(!filter.matches(&Metric { metric: 1, host: 4, ts: 0 }.encode()));
/// # Ok::<(), EncodeError>(())
/// ```
pub fn any_of<T, I>(items: I) -> AnyOf<T, I> {
    AnyOf {
        items,
        _field: PhantomData,
    }
}

impl<T, I> FieldPredicate<T> for AnyOf<T, I>
where
    I: IntoIterator,
    I::Item: FieldPredicate<T>,
{
    fn __intervals<C: FieldCodec<T>>(
        self,
        field: &'static str,
    ) -> Result<Vec<Interval>, EncodeError> {
        let mut out = Vec::new();
        for item in self.items {
            out.extend(item.__intervals::<C>(field)?);
            // An endless list must stop here: merged (touching values are
            // one interval) each time the list doubles the limit, it is an
            // error once more than the limit stay apart.
            if out.len() > 2 * MAX_FILTER_INTERVALS {
                out = Set::new(out).0;
                if out.len() > MAX_FILTER_INTERVALS {
                    return Err(EncodeError::TooManyIntervals {
                        field,
                        limit: MAX_FILTER_INTERVALS,
                    });
                }
            }
        }
        Ok(out)
    }
}
impl<T, I> ValuePredicate<T> for AnyOf<T, I>
where
    I: IntoIterator,
    I::Item: ValuePredicate<T>,
{
}

/// How a part of the key is delimited.
#[derive(Clone, Copy)]
enum Width {
    /// Always this many bytes.
    Fixed(usize),
    /// A field of variable width, read with its layout.
    Field(&'static FieldLayout),
}

/// One part of the key (the family prefix, the salt, a field) and what it
/// must hold.
#[derive(Clone)]
struct Part {
    name: &'static str,
    kind: Kind,
    width: Width,
    /// A field added to the layout later (`#[rowkey(added)]`): older keys
    /// end before it.
    added: bool,
    set: Option<Set>,
}

/// What a part of the key is: told apart by kind, never by name (a user
/// field may be named `salt` or `prefix`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A key family's prefix.
    Prefix,
    /// The salt's bucket.
    Salt,
    /// A field of the key.
    Field,
}

/// Where the part at `pos` of `x` ends.
enum End {
    /// It is whole and ends here.
    At(usize),
    /// `x` ends inside it (or at its start).
    Cut,
    /// Its bytes are not a value of the part.
    Invalid,
}

/// A filter on a key type's fields, built by `T::filter()...build()`: see
/// the [module documentation](self).
#[derive(Clone)]
pub struct KeyFilter {
    layout: &'static Layout,
    parts: Vec<Part>,
    /// Index of the first field's part (after the prefix and the salt).
    first_field: usize,
    buckets: Buckets,
    /// A part allows nothing: no key matches.
    never: bool,
}

impl fmt::Debug for KeyFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("KeyFilter");
        d.field("layout", &self.layout.name());
        for p in self.parts.iter().skip(self.first_field) {
            if let Some(set) = &p.set {
                d.field(p.name, &set.0.len());
            }
        }
        d.finish()
    }
}

/// A filter under construction: what generated `filter()` builders hold.
/// Not public API.
#[doc(hidden)]
pub struct FilterParts {
    layout: &'static Layout,
    sets: Vec<Option<Vec<Interval>>>,
    error: Option<EncodeError>,
    bucket: Option<u8>,
}

impl FilterParts {
    #[doc(hidden)]
    pub fn new(layout: &'static Layout) -> FilterParts {
        FilterParts {
            layout,
            sets: vec![None; layout.fields().len()],
            error: None,
            bucket: None,
        }
    }

    /// The single encoding field `i` is constrained to, if it is.
    #[doc(hidden)]
    pub fn single(&self, i: usize) -> Option<&[u8]> {
        match self.sets[i].as_deref() {
            Some([one]) => one.single(),
            _ => None,
        }
    }

    /// The salt's `by` fields are fixed: every match is in `bucket`.
    #[doc(hidden)]
    pub fn in_bucket(&mut self, bucket: u8) {
        self.bucket = Some(bucket);
    }

    /// The name of the layout the filter is for.
    #[cfg(feature = "dynamic")]
    pub(crate) fn layout_name(&self) -> &'static str {
        self.layout.name()
    }

    /// Records the first error: [`build`](Self::build) returns it.
    #[cfg(feature = "dynamic")]
    pub(crate) fn fail(mut self, e: EncodeError) -> Self {
        self.error.get_or_insert(e);
        self
    }

    /// A range on a run-time field whose bytes do not sort by value
    /// (`#[reverse]`, `#[reverse_domain]`, a string between a text key's
    /// separators): the derive's `ValuePredicate` refuses it at compile time.
    #[cfg(feature = "dynamic")]
    pub(crate) fn fail_unsupported(self, field: &'static str) -> Self {
        self.fail(EncodeError::WrongValue {
            field,
            expected:
                "value (its bytes do not sort by value, so no range of values is a range of keys)",
            got: "a range",
        })
    }

    /// Field `i` must be one of these encodings too (a run-time field
    /// that encodes its values itself); `raw`: the field runs to the end of
    /// the key.
    #[cfg(feature = "dynamic")]
    pub(crate) fn constrain_encodings(self, i: usize, encodings: Vec<Vec<u8>>, raw: bool) -> Self {
        let intervals = encodings
            .into_iter()
            .map(|e| Interval::exact(e, raw))
            .collect();
        self.constrain_intervals(i, intervals)
    }

    /// Field `i`'s encoding must lie in one of `intervals` too.
    #[cfg(feature = "dynamic")]
    pub(crate) fn constrain_intervals(mut self, i: usize, intervals: Vec<Interval>) -> Self {
        let field = self.layout.fields()[i].name();
        self.narrow(i, intervals, field);
        self
    }

    /// Keeps in field `i`'s set only what `new` allows too, or records
    /// that `new` allows more than a filter holds.
    fn narrow(&mut self, i: usize, new: Vec<Interval>, field: &'static str) {
        if self.error.is_some() {
            return;
        }
        let new = Set::new(new);
        if new.0.len() > MAX_FILTER_INTERVALS {
            self.error = Some(EncodeError::TooManyIntervals {
                field,
                limit: MAX_FILTER_INTERVALS,
            });
            return;
        }
        self.sets[i] = Some(match self.sets[i].take() {
            None => new.0,
            Some(old) => intersect(&Set(old), &new),
        });
    }

    /// The filter, or the first predicate that could not be encoded.
    #[doc(hidden)]
    pub fn build(self) -> Result<KeyFilter, EncodeError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        Ok(KeyFilter::new(self.layout, self.sets, self.bucket))
    }
}

impl<T, P: FieldPredicate<T>> FilterSink<T, P> for FilterParts {
    /// Field `i` must satisfy `predicate` too: a second predicate on one
    /// field keeps the encodings both allow.
    fn constrain<C: FieldCodec<T>>(mut self, i: usize, predicate: P, field: &'static str) -> Self {
        if self.error.is_some() {
            return self;
        }
        match predicate.__intervals::<C>(field) {
            Ok(new) => self.narrow(i, new, field),
            Err(e) => self.error = Some(e),
        }
        self
    }
}

/// The encodings both sets allow: one merge of the two sorted lists
/// (each a set's disjoint intervals in order), so at most one interval per
/// interval of either.
fn intersect(a: &Set, b: &Set) -> Vec<Interval> {
    // Ends compared with `None` (unbounded) above every key.
    fn ends_first(p: &Option<Vec<u8>>, q: &Option<Vec<u8>>) -> bool {
        match (p, q) {
            (Some(p), Some(q)) => p <= q,
            (Some(_), None) => true,
            (None, _) => false,
        }
    }
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while let (Some(x), Some(y)) = (a.0.get(i), b.0.get(j)) {
        let lo = core::cmp::max(&x.lo, &y.lo);
        let hi = if ends_first(&x.hi, &y.hi) {
            &x.hi
        } else {
            &y.hi
        };
        if hi.as_deref().map_or(true, |hi| lo.as_slice() < hi) {
            let single = (x.single && *lo == x.lo && *hi == x.hi)
                || (y.single && *lo == y.lo && *hi == y.hi);
            out.push(Interval {
                lo: lo.clone(),
                hi: hi.clone(),
                single,
            });
        }
        // The interval that ends first meets nothing further on.
        if ends_first(&x.hi, &y.hi) {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

impl KeyFilter {
    fn new(layout: &'static Layout, sets: Vec<Option<Vec<Interval>>>, bucket: Option<u8>) -> Self {
        let mut parts = Vec::new();
        if !layout.prefix().is_empty() {
            parts.push(Part {
                name: "prefix",
                kind: Kind::Prefix,
                width: Width::Fixed(layout.prefix().len()),
                added: false,
                set: Some(Set(vec![Interval::exact(layout.prefix().to_vec(), false)])),
            });
        }
        let mut buckets = Buckets::Unsalted;
        if let Some(salt) = layout.salt() {
            let head = salt.head();
            let encode = |b: u8| {
                let mut out = vec![0; head.len()];
                head.write(b, &mut out, true);
                out
            };
            let set = match bucket {
                Some(b) => Some(Set(vec![Interval::exact(encode(b), false)])),
                // A binary salt byte is below the bucket count.
                None if head == Head::Byte && salt.buckets() < 256 => Some(Set(vec![Interval {
                    lo: vec![0],
                    hi: Some(vec![salt.buckets() as u8]),
                    single: false,
                }])),
                None => None,
            };
            buckets = match bucket {
                Some(b) => Buckets::One(b),
                None => Buckets::All(salt.buckets()),
            };
            parts.push(Part {
                name: "salt",
                kind: Kind::Salt,
                width: Width::Fixed(head.len()),
                added: false,
                set,
            });
        }
        let first_field = parts.len();
        for (f, set) in layout.fields().iter().zip(sets) {
            parts.push(Part {
                name: f.name(),
                kind: Kind::Field,
                width: match f.width() {
                    FieldWidth::Fixed(n) => Width::Fixed(n),
                    FieldWidth::Variable { .. } => Width::Field(f),
                },
                added: f.is_added(),
                set: set.map(Set::new),
            });
        }
        let never = parts
            .iter()
            .any(|p| p.set.as_ref().is_some_and(|s| s.0.is_empty()));
        KeyFilter {
            layout,
            parts,
            first_field,
            buckets,
            never,
        }
    }

    /// The layout of the keys this filter reads.
    pub fn layout(&self) -> &'static Layout {
        self.layout
    }

    /// Where part `i`, starting at `pos`, ends in `x`.
    fn end(&self, i: usize, x: &[u8], pos: usize) -> End {
        match self.parts[i].width {
            Width::Fixed(n) => {
                if x.len() >= pos + n {
                    End::At(pos + n)
                } else {
                    End::Cut
                }
            }
            Width::Field(f) => field_end(f, x, pos),
        }
    }

    /// Puts `lo` as part `i` at `pos` of `x`, in place of what was there
    /// and after; whether it is a whole value of the part (the hint can
    /// then go on with the smallest of the parts after it).
    fn jump(&self, i: usize, x: &mut Vec<u8>, pos: usize, lo: &[u8]) -> bool {
        x.truncate(pos);
        x.extend_from_slice(lo);
        matches!(self.end(i, x, pos), End::At(e) if e == x.len())
    }

    /// Whether `v` is a whole value of part `i` (and nothing more).
    fn whole(&self, i: usize, v: &[u8]) -> bool {
        matches!(self.end(i, v, 0), End::At(e) if e == v.len())
    }

    /// Whether `key` is a key of the layout whose fields satisfy every
    /// predicate.
    pub fn matches(&self, key: &[u8]) -> bool {
        let mut pos = 0;
        for (i, part) in self.parts.iter().enumerate() {
            if pos == key.len() && part.added {
                // An older key: this field and those after it are absent.
                return self.parts[i..].iter().all(|p| p.set.is_none());
            }
            let End::At(end) = self.end(i, key, pos) else {
                return false;
            };
            if let Some(set) = &part.set {
                if !set.contains(&key[pos..end]) {
                    return false;
                }
            }
            pos = end;
        }
        pos == key.len()
    }

    /// The smallest key at or after `key` that could match: `key` itself
    /// when it matches, `None` when no key at or after it can. No key
    /// between `key` and the hint matches, so a store can seek to it.
    ///
    /// The hint is a lower bound built part by part, not always a key of
    /// the layout (for example it may stop inside a field whose smallest
    /// value it cannot know); a store seeks to it and asks again with the
    /// key it finds there.
    ///
    /// When `key` does not match, the hint is strictly greater than `key`
    /// (at worst `key` followed by `00`, the next string of all), so a
    /// store that seeks to it always moves on, whatever the table holds:
    /// keys cut short, with trailing bytes, of another layout.
    pub fn seek_hint(&self, key: &[u8]) -> Option<Vec<u8>> {
        // A part that allows nothing: nothing matches (and stepping
        // through every value of the parts before it would never end).
        if self.never {
            return None;
        }
        let hint = self.lower_bound(key)?;
        if hint.as_slice() > key || self.matches(key) {
            return Some(hint);
        }
        // The walk stopped inside a part whose smallest completion it
        // cannot name (a key cut short in a variable-width field, an older
        // key before a constrained part): the next string after `key`.
        Some(successor(key))
    }

    /// [`seek_hint`](Self::seek_hint)'s walk: a lower bound of the keys at
    /// or after `key` that could match, at least `key`; `key` itself when
    /// the walk cannot go past a part that `key` ends inside.
    fn lower_bound(&self, key: &[u8]) -> Option<Vec<u8>> {
        let mut x = key.to_vec();
        'restart: loop {
            let mut pos = 0;
            let mut i = 0;
            while i < self.parts.len() {
                let part = &self.parts[i];
                match self.end(i, &x, pos) {
                    End::At(end) => {
                        let Some(set) = &part.set else {
                            pos = end;
                            i += 1;
                            continue;
                        };
                        let s = &x[pos..end];
                        if set.contains(s) {
                            pos = end;
                            i += 1;
                            continue;
                        }
                        match set.next_after(s) {
                            // Nothing for this part under x[..pos]: past
                            // every key that starts so.
                            None => {
                                x = prefix_stop(&x[..pos])?;
                                continue 'restart;
                            }
                            // The next allowed encoding, and the smallest
                            // of what follows it.
                            Some(next) => {
                                if !self.jump(i, &mut x, pos, &next.lo) {
                                    return Some(x);
                                }
                                pos = x.len();
                                i += 1;
                            }
                        }
                    }
                    End::Cut => {
                        // `x` ends inside this part: its rest is a prefix.
                        let rest = &x[pos..];
                        match (&part.set, part.width) {
                            (None, Width::Fixed(n)) => {
                                // The smallest value: zeros.
                                x.resize(pos + n, 0);
                                pos += n;
                                i += 1;
                            }
                            (None, Width::Field(_)) => return Some(x),
                            (Some(set), _) => match set.next_after(rest) {
                                None => {
                                    x = prefix_stop(&x[..pos])?;
                                    continue 'restart;
                                }
                                Some(next) if rest < next.lo.as_slice() => {
                                    let lo = next.lo.clone();
                                    if !self.jump(i, &mut x, pos, &lo) {
                                        return Some(x);
                                    }
                                    pos = x.len();
                                    i += 1;
                                }
                                // Inside an allowed interval, unfinished.
                                Some(_) => return Some(x),
                            },
                        }
                    }
                    // Not a key: the next string after it (seek_hint
                    // makes it so when `x` is still `key`).
                    End::Invalid => return Some(x),
                }
            }
            if pos == x.len() {
                return Some(x);
            }
            // Bytes after the last part: no key starts with x[..pos] and
            // is longer.
            x = prefix_stop(&x[..pos])?;
        }
    }

    /// The tightest ranges that hold every match: the leading fields fixed
    /// to one value each, the next one's allowed encodings, then
    /// everything; one range per bucket when salted, one bucket when the
    /// salt's `by` fields are fixed.
    pub fn scan(&self) -> Scan {
        let (start, stop) = match self.leading() {
            Some(Lead {
                prefix,
                next: Some(set),
            }) => {
                if set.0.is_empty() {
                    return Scan::none();
                }
                let mut start = prefix.clone();
                start.extend_from_slice(&set.0[0].lo);
                let stop = match &set.0[set.0.len() - 1].hi {
                    Some(hi) => {
                        let mut s = prefix.clone();
                        s.extend_from_slice(hi);
                        Some(s)
                    }
                    None => prefix_stop(&prefix),
                };
                (start, stop)
            }
            Some(Lead { prefix, next: None }) => {
                let stop = prefix_stop(&prefix);
                (prefix, stop)
            }
            None => return Scan::none(),
        };
        let head = self.layout.salt().map_or(Head::Byte, |s| s.head());
        Scan::build(
            (self.buckets, head, self.layout.prefix()),
            KeyBuf::from_slice(&start),
            stop.map(|s| KeyBuf::from_slice(&s)),
        )
    }

    /// The fields fixed to one value from the first on (their encodings,
    /// without prefix and salt), and the set of the field after them.
    /// `None` when a fixed field's set is empty.
    fn leading(&self) -> Option<Lead<'_>> {
        let mut prefix = Vec::new();
        for part in &self.parts[self.first_field..] {
            match &part.set {
                None => return Some(Lead { prefix, next: None }),
                Some(set) if set.0.is_empty() => return None,
                Some(set) => match set.0.as_slice() {
                    // A raw last field's value ends the key: not a prefix.
                    [one] if one.single && !one.is_raw_single() => {
                        prefix.extend_from_slice(&one.lo)
                    }
                    _ => {
                        return Some(Lead {
                            prefix,
                            next: Some(set),
                        })
                    }
                },
            }
        }
        Some(Lead { prefix, next: None })
    }

    /// The start rows of the buckets this filter reads (the prefix and
    /// the salt), in order.
    fn heads(&self) -> Vec<Vec<u8>> {
        let prefix = self.layout.prefix();
        let Some(salt) = self.layout.salt() else {
            return vec![prefix.to_vec()];
        };
        let head = salt.head();
        let one = |b: u8| {
            let mut out = prefix.to_vec();
            let n = out.len();
            out.resize(n + head.len(), 0);
            head.write(b, &mut out[n..], true);
            out
        };
        match self.buckets {
            Buckets::One(b) => vec![one(b)],
            _ => (0..salt.buckets()).map(|b| one(b as u8)).collect(),
        }
    }

    /// HBase `MultiRowRangeFilter` ranges (start inclusive, stop
    /// exclusive, an empty stop: to the end), when the filter is exactly a
    /// set of ranges: the constrained fields are leading, each fixed to
    /// one value but the last, which may be any set of values and ranges.
    /// `None` when a constraint follows an unconstrained or multi-valued
    /// field, or past [`MAX_ROW_RANGES`] ranges (the filter then needs [`fuzzy_row_filter`](Self::fuzzy_row_filter)
    /// or [`bigtable_regex`](Self::bigtable_regex)).
    pub fn multi_row_ranges(&self) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
        let lead = self.leading()?;
        // Every constraint after the leading ones must be absent.
        let constrained_after = {
            let mut n = self.first_field;
            let mut fixed = 0;
            for part in &self.parts[self.first_field..] {
                match &part.set {
                    Some(s) if s.0.len() == 1 && s.0[0].single && !s.0[0].is_raw_single() => {
                        fixed += 1
                    }
                    _ => break,
                }
            }
            n += fixed + usize::from(lead.next.is_some());
            self.parts[n.min(self.parts.len())..]
                .iter()
                .any(|p| p.set.is_some())
        };
        if constrained_after {
            return None;
        }
        let heads = self.heads();
        if heads.len() * lead.next.map_or(1, |set| set.0.len()) > MAX_ROW_RANGES {
            return None;
        }
        let mut out = Vec::new();
        for head in heads {
            let mut base = head.clone();
            base.extend_from_slice(&lead.prefix);
            match lead.next {
                None => out.push((base.clone(), prefix_stop(&base).unwrap_or_default())),
                Some(set) => {
                    for i in &set.0 {
                        let mut start = base.clone();
                        start.extend_from_slice(&i.lo);
                        let stop = match &i.hi {
                            Some(hi) => {
                                let mut s = base.clone();
                                s.extend_from_slice(hi);
                                s
                            }
                            None => prefix_stop(&base).unwrap_or_default(),
                        };
                        out.push((start, stop));
                    }
                }
            }
        }
        Some(out)
    }

    /// HBase `FuzzyRowFilter` pairs `(key, mask)`, the mask `0` where the
    /// key's byte is fixed and `1` where any byte goes, when every
    /// constrained part sits at a fixed offset (only fixed-width parts
    /// before it) and allows a few single values (at most
    /// [`MAX_FUZZY_KEYS`] combinations). An unfixed salt byte is a `1`.
    /// `None` otherwise, or when nothing is constrained.
    pub fn fuzzy_row_filter(&self) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
        let last = self
            .parts
            .iter()
            .rposition(|p| p.set.is_some() && p.kind != Kind::Salt)?;
        let mut combos: Vec<(Vec<u8>, Vec<u8>)> = vec![(Vec::new(), Vec::new())];
        for part in &self.parts[..=last] {
            let Width::Fixed(n) = part.width else {
                return None;
            };
            let values: Vec<&[u8]> = match &part.set {
                // The salt's range of buckets is not a value set: any.
                Some(set)
                    if part.kind != Kind::Salt
                        || set.0.len() == 1 && set.0[0].single().is_some() =>
                {
                    set.singles()?
                }
                _ => {
                    for (k, m) in &mut combos {
                        k.resize(k.len() + n, 0);
                        m.resize(m.len() + n, 1);
                    }
                    continue;
                }
            };
            if values.iter().any(|v| v.len() != n) || combos.len() * values.len() > MAX_FUZZY_KEYS {
                return None;
            }
            combos = combos
                .iter()
                .flat_map(|(k, m)| {
                    values.iter().map(move |v| {
                        let mut k = k.clone();
                        k.extend_from_slice(v);
                        let mut m = m.clone();
                        m.resize(m.len() + n, 0);
                        (k, m)
                    })
                })
                .collect();
        }
        (!combos.is_empty()).then_some(combos)
    }

    /// An RE2 pattern over the raw key bytes for Bigtable's
    /// `row_key_regex_filter`: `(?s)`, every byte escaped as `\xNN`, `\C`
    /// for any byte. It matches a key exactly when
    /// [`matches`](Self::matches) does (Bigtable anchors the pattern at
    /// both ends), except after a variable-width field of a kind a regular
    /// expression cannot delimit here (a nested key, an `Option` of a
    /// string, a string before a separator of more than one byte): from
    /// there on it allows any bytes, and the caller must check `matches`
    /// on what it reads ([`regex_is_exact`](Self::regex_is_exact) says
    /// which). A pattern longer than [`MAX_REGEX_LEN`] is not sent: this is
    /// then `(?s)\C*` (any key) and the filter is not exact.
    ///
    /// A scan that needs both the pattern and whether it is exact asks
    /// [`bigtable_row_regex`](Self::bigtable_row_regex) once.
    pub fn bigtable_regex(&self) -> Vec<u8> {
        self.bigtable_row_regex()
            .pattern
            .unwrap_or_else(|| b"(?s)\\C*".to_vec())
    }

    /// Whether [`bigtable_regex`](Self::bigtable_regex) matches exactly
    /// the keys [`matches`](Self::matches) does.
    pub fn regex_is_exact(&self) -> bool {
        self.bigtable_row_regex().exact
    }

    /// The Bigtable row-key pattern and whether it is exact, built once:
    /// `pattern` is `None` when it would be longer than [`MAX_REGEX_LEN`]
    /// (a scan then sends its ranges only and checks every row with
    /// [`matches`](Self::matches)).
    pub fn bigtable_row_regex(&self) -> BigtableRegex {
        match self.regex() {
            Some((pattern, exact)) => BigtableRegex {
                pattern: Some(pattern),
                exact,
            },
            None => BigtableRegex {
                pattern: None,
                exact: false,
            },
        }
    }

    /// The pattern and whether it is exact; `None` past [`MAX_REGEX_LEN`].
    fn regex(&self) -> Option<(Vec<u8>, bool)> {
        let mut out = String::from("(?s)");
        for (index, part) in self.parts.iter().enumerate() {
            // Nothing from this part on is constrained.
            let free = self.parts[index..].iter().all(|p| p.set.is_none());
            let lang = match part.width {
                Width::Fixed(n) => Lang::Fixed(n),
                Width::Field(f) => match lang_of(f, self.layout) {
                    Some(l) => l,
                    None => {
                        // Any bytes from here on, if nothing after needs
                        // a position.
                        out.push_str("\\C*");
                        return (out.len() <= MAX_REGEX_LEN).then(|| (out.into_bytes(), free));
                    }
                },
            };
            let start = lang.start();
            let group = match &part.set {
                None => lang.rest(start),
                Some(set) => {
                    let alts: Vec<String> = set
                        .0
                        .iter()
                        .filter_map(|iv| match iv.single() {
                            // One value: its bytes.
                            Some(v) if self.whole(index, v) => {
                                Some(v.iter().map(|&b| byte(b)).collect())
                            }
                            _ => lang.between(start, Some(&iv.lo), iv.hi.as_deref()),
                        })
                        .collect();
                    // No alternative: a class no byte is in.
                    alternation(alts).unwrap_or_else(|| String::from("[^\\x00-\\xff]"))
                }
            };
            let group = if part.added && free {
                // An older key may end before an added field (a constrained
                // one must be there: `matches` says no to its absence).
                alloc::format!("(?:{group})?")
            } else {
                alloc::format!("(?:{group})")
            };
            out.push_str(&group);
            if out.len() > MAX_REGEX_LEN {
                return None;
            }
        }
        Some((out.into_bytes(), true))
    }
}

/// The next string after `key`: `key` followed by `00`.
fn successor(key: &[u8]) -> Vec<u8> {
    let mut next = Vec::with_capacity(key.len() + 1);
    next.extend_from_slice(key);
    next.push(0);
    next
}

struct Lead<'a> {
    prefix: Vec<u8>,
    next: Option<&'a Set>,
}

/// Where the variable-width field `f` starting at `pos` ends in `x`.
fn field_end(f: &'static FieldLayout, x: &[u8], pos: usize) -> End {
    if !f.is_option() {
        match f.encoding() {
            Encoding::Escaped { desc } => {
                return match escape::find_end(x, pos, desc, f.name()) {
                    Ok(e) => End::At(e.next),
                    Err(crate::DecodeError::MissingTerminator { .. }) => End::Cut,
                    Err(_) => End::Invalid,
                }
            }
            Encoding::Raw => return End::At(x.len()),
            _ => {}
        }
    }
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
impl fmt::Write for Discard {
    fn write_str(&mut self, _: &str) -> fmt::Result {
        Ok(())
    }
}

/// The bytes a part may hold, as a regular language with a few states.
#[derive(Clone, Copy)]
enum Lang {
    /// Exactly this many bytes.
    Fixed(usize),
    /// Escaped (`00` → `00 FF`, `desc`: inverted) and terminated.
    Escaped { desc: bool },
    /// Any bytes to the end of the key.
    Raw,
    /// Bytes other than the separator byte, then the separator.
    Delimited { sep: u8 },
}

/// Where a part's bytes are, read so far.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// A fixed-width part with this many bytes to go.
    Left(usize),
    /// Inside an escaped, raw or delimited part.
    Normal,
    /// Just after an escaped part's escape byte.
    AfterEscape,
    /// The part is whole.
    Done,
}

fn lang_of(f: &FieldLayout, layout: &Layout) -> Option<Lang> {
    if f.is_option() {
        return None;
    }
    match f.encoding() {
        Encoding::Escaped { desc } => Some(Lang::Escaped { desc }),
        Encoding::Raw => Some(Lang::Raw),
        Encoding::Delimited => match layout.format() {
            // The last field runs to the end of the key.
            crate::layout::Format::Text { .. } if f.sep_len() == 0 => Some(Lang::Raw),
            crate::layout::Format::Text { sep } if sep.len() == 1 => Some(Lang::Delimited {
                sep: sep.as_bytes()[0],
            }),
            _ => None,
        },
        _ => None,
    }
}

/// An escaped field's escape byte, escaped zero and terminator as stored
/// (inverted when `desc`).
fn escape_bytes(desc: bool) -> (u8, u8, u8) {
    let flip = if desc { 0xFF } else { 0x00 };
    (
        escape::ESCAPE ^ flip,
        escape::ESCAPED_ZERO ^ flip,
        escape::TERMINATOR ^ flip,
    )
}

/// `\xNN`: every byte escaped, so the pattern is ASCII.
fn byte(b: u8) -> String {
    alloc::format!("\\x{b:02x}")
}

/// The bytes `lo..=hi`.
fn class(lo: u8, hi: u8) -> String {
    match (lo, hi) {
        (0, 0xFF) => String::from("\\C"),
        _ if lo == hi => byte(lo),
        _ => alloc::format!("[{}-{}]", byte(lo), byte(hi)),
    }
}

/// `a|b|c` as one group; `None` when there is no alternative.
fn alternation(mut alts: Vec<String>) -> Option<String> {
    match alts.len() {
        0 => None,
        1 => alts.pop(),
        _ => Some(alloc::format!("(?:{})", alts.join("|"))),
    }
}

impl Lang {
    fn start(self) -> State {
        match self {
            Lang::Fixed(n) => State::Left(n),
            _ => State::Normal,
        }
    }

    fn accepting(self, s: State) -> bool {
        match s {
            State::Left(n) => n == 0,
            State::Done => true,
            State::Normal => matches!(self, Lang::Raw),
            State::AfterEscape => false,
        }
    }

    /// The byte ranges valid in state `s`, each with the state it leads
    /// to, in byte order.
    fn moves(self, s: State) -> Vec<(u8, u8, State)> {
        let around = |marker: u8, other: State, to: State| {
            let mut v = Vec::new();
            if marker > 0 {
                v.push((0, marker - 1, other));
            }
            v.push((marker, marker, to));
            if marker < 0xFF {
                v.push((marker + 1, 0xFF, other));
            }
            v
        };
        match (self, s) {
            (_, State::Left(0)) | (_, State::Done) => Vec::new(),
            (_, State::Left(n)) => vec![(0, 0xFF, State::Left(n - 1))],
            (Lang::Raw, _) => vec![(0, 0xFF, State::Normal)],
            (Lang::Delimited { sep }, _) => around(sep, State::Normal, State::Done),
            (Lang::Escaped { desc }, State::Normal) => {
                around(escape_bytes(desc).0, State::Normal, State::AfterEscape)
            }
            (Lang::Escaped { desc }, _) => {
                // After the escape byte: the escaped zero or the terminator.
                let (_, zero, end) = escape_bytes(desc);
                let mut v = vec![(zero, zero, State::Normal), (end, end, State::Done)];
                v.sort_by_key(|m| m.0);
                v
            }
            (Lang::Fixed(_), _) => Vec::new(),
        }
    }

    /// Every completion from state `s`.
    fn rest(self, s: State) -> String {
        let body = |esc: u8, zero: u8, end: u8| {
            alloc::format!(
                "(?:[^{e}]|{e}{z})*{e}{t}",
                e = byte(esc),
                z = byte(zero),
                t = byte(end)
            )
        };
        match (self, s) {
            (_, State::Left(0)) | (_, State::Done) => String::new(),
            (_, State::Left(n)) => alloc::format!("\\C{{{n}}}"),
            (Lang::Raw, _) => String::from("\\C*"),
            (Lang::Delimited { sep }, _) => alloc::format!("[^{s}]*{s}", s = byte(sep)),
            (Lang::Escaped { desc }, State::Normal) => {
                let (esc, zero, end) = escape_bytes(desc);
                body(esc, zero, end)
            }
            (Lang::Escaped { desc }, _) => {
                let (_, zero, end) = escape_bytes(desc);
                alloc::format!(
                    "(?:{}{}|{})",
                    byte(zero),
                    self.rest(State::Normal),
                    byte(end)
                )
            }
            (Lang::Fixed(_), _) => String::new(),
        }
    }

    /// Completions `w` from `s` with `lo <= w` (`lo` `None`: any) and
    /// `w < hi` (`hi` `None`: any); `None` when there is none.
    ///
    /// Each byte of a bound gives a few alternatives of its own and at
    /// most one that goes on with the bound's next byte (two, once, where
    /// `lo` and `hi` first differ: each then follows one bound). The walk
    /// down a bound is a loop, not a recursion per byte, and the pattern
    /// is written once, front to back, with the groups closed at the end.
    fn between(self, s: State, lo: Option<&[u8]>, hi: Option<&[u8]>) -> Option<String> {
        let (steps, end) = self.walk(s, lo, hi);
        // Whether step `k`'s group has any alternative (its own, or its
        // continuation's), from the last step back.
        let mut live = vec![false; steps.len() + 1];
        live[steps.len()] = end.is_some();
        for (k, step) in steps.iter().enumerate().rev() {
            live[k] = !step.before.is_empty() || !step.after.is_empty() || live[k + 1];
        }
        if !live[0] {
            return None;
        }
        let mut out = String::new();
        let mut closers: Vec<String> = Vec::new();
        for (k, step) in steps.iter().enumerate() {
            let go_on = live[k + 1];
            let count = step.before.len() + step.after.len() + usize::from(go_on);
            let open = count > 1;
            if open {
                out.push_str("(?:");
            }
            out.push_str(&step.before.join("|"));
            if !go_on {
                if !step.before.is_empty() && !step.after.is_empty() {
                    out.push('|');
                }
                out.push_str(&step.after.join("|"));
                if open {
                    out.push(')');
                }
                // Nothing goes on: close what is open and stop.
                closers.reverse();
                return Some(out + &closers.concat());
            }
            if !step.before.is_empty() {
                out.push('|');
            }
            out.push_str(&byte(step.byte));
            let mut close = String::new();
            if !step.after.is_empty() {
                close.push('|');
                close.push_str(&step.after.join("|"));
            }
            if open {
                close.push(')');
            }
            closers.push(close);
        }
        out.push_str(&end.unwrap_or_default());
        closers.reverse();
        Some(out + &closers.concat())
    }

    /// The steps of [`between`](Self::between) down its bounds, and the
    /// alternatives where the walk ends (`None`: none).
    fn walk(
        self,
        mut s: State,
        lo: Option<&[u8]>,
        hi: Option<&[u8]>,
    ) -> (Vec<Step>, Option<String>) {
        let (mut lo, mut hi) = (lo, hi);
        let mut steps = Vec::new();
        loop {
            lo = lo.filter(|l| !l.is_empty());
            let mut step = Step::default();
            let mut next_state = None;
            match (lo, hi) {
                (_, Some([])) => return (steps, None),
                (None, None) => return (steps, Some(self.rest(s))),
                (None, Some(h)) => {
                    // w < hi: the empty completion, if whole; a smaller
                    // first byte; or hi's first byte and a smaller rest.
                    if self.accepting(s) {
                        step.before.push(String::new());
                    }
                    let b = h[0];
                    for (from, to, next) in self.moves(s) {
                        let alts = if next_state.is_some() {
                            &mut step.after
                        } else {
                            &mut step.before
                        };
                        if b > from {
                            alts.push(alloc::format!(
                                "{}{}",
                                class(from, to.min(b - 1)),
                                self.rest(next)
                            ));
                        }
                        if (from..=to).contains(&b) {
                            next_state = Some(next);
                        }
                    }
                    step.byte = b;
                    hi = Some(&h[1..]);
                }
                (Some(l), None) => {
                    // w >= lo: lo's first byte and a rest at least lo's;
                    // or a larger first byte.
                    let a = l[0];
                    for (from, to, next) in self.moves(s) {
                        if (from..=to).contains(&a) {
                            next_state = Some(next);
                        }
                        let alts = if next_state.is_some() {
                            &mut step.after
                        } else {
                            &mut step.before
                        };
                        if a < to {
                            alts.push(alloc::format!(
                                "{}{}",
                                class(from.max(a + 1), to),
                                self.rest(next)
                            ));
                        }
                    }
                    step.byte = a;
                    lo = Some(&l[1..]);
                }
                (Some(l), Some(h)) if l[0] == h[0] => {
                    let a = l[0];
                    next_state = self
                        .moves(s)
                        .into_iter()
                        .find(|m| (m.0..=m.1).contains(&a))
                        .map(|m| m.2);
                    step.byte = a;
                    lo = Some(&l[1..]);
                    hi = Some(&h[1..]);
                }
                (Some(l), Some(h)) => {
                    // a < b (the interval is not empty). First byte a: a
                    // rest at least lo's; first byte b: a rest below hi's;
                    // in between: anything. Each of the two walks follows
                    // one bound, so this splits once.
                    let (a, b) = (l[0], h[0]);
                    let mut alts = Vec::new();
                    for (from, to, next) in self.moves(s) {
                        if (from..=to).contains(&a) {
                            if let Some(r) = self.between(next, Some(&l[1..]), None) {
                                alts.push(alloc::format!("{}{r}", byte(a)));
                            }
                        }
                        let (m0, m1) = (from.max(a.saturating_add(1)), to.min(b.saturating_sub(1)));
                        if b > 0 && m0 <= m1 {
                            alts.push(alloc::format!("{}{}", class(m0, m1), self.rest(next)));
                        }
                        if (from..=to).contains(&b) {
                            if let Some(r) = self.between(next, None, Some(&h[1..])) {
                                alts.push(alloc::format!("{}{r}", byte(b)));
                            }
                        }
                    }
                    return (steps, alternation(alts));
                }
            }
            match next_state {
                Some(next) => {
                    steps.push(step);
                    s = next;
                }
                // The bound's byte is no move from here: only the step's
                // own alternatives.
                None => {
                    let mut alts = step.before;
                    alts.append(&mut step.after);
                    return (steps, alternation(alts));
                }
            }
        }
    }
}

/// One byte of [`Lang::between`]'s walk down a bound: the alternatives
/// before and after the one that goes on with `byte`.
#[derive(Default)]
struct Step {
    before: Vec<String>,
    byte: u8,
    after: Vec<String>,
}
