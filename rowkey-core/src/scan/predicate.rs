//! What a filter's per-field methods take ([`FieldPredicate`]: a value, a
//! range, [`any_of`] several) and the sets of encoded intervals they
//! become, merged and intersected in one pass each.

use alloc::vec;
use alloc::vec::Vec;
use core::marker::PhantomData;
use core::ops::{Bound, Range, RangeBounds, RangeFrom, RangeInclusive, RangeTo, RangeToInclusive};

use super::leading::Leading;
use super::range::{prefix_stop, Scan};
use crate::format::codec::FieldCodec;
use crate::format::error::EncodeError;

/// The most separate values and ranges a filter allows for one field
/// (after merging those that touch); past it building the filter is an
/// [`EncodeError::TooManyIntervals`] naming the field, so a predicate built
/// from a user's request (`any_of` a huge or endless list) cannot grow the
/// filter, or the ranges sent to a server, without bound.
pub const MAX_FILTER_INTERVALS: usize = 16_384;

/// A half-open interval `[lo, hi)` of one part's encoded bytes; `hi`
/// `None` is unbounded. Public only for [`FieldPredicate`]'s hidden
/// method.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interval {
    pub(super) lo: Vec<u8>,
    pub(super) hi: Option<Vec<u8>>,
    /// It holds exactly one encoding, `lo`.
    pub(super) single: bool,
}

impl Interval {
    /// The one encoding `e` of a codec: `[e, e ++ 00)` when the codec is
    /// raw to the end of the key; else, the codec being prefix-free, the
    /// keys that start with `e`, `[e, prefix_stop(e))`, which as a key
    /// range also holds the rest of the key after the field.
    pub(super) fn exact(e: Vec<u8>, raw: bool) -> Interval {
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

    pub(super) fn contains(&self, s: &[u8]) -> bool {
        self.lo.as_slice() <= s && self.hi.as_deref().map_or(true, |hi| s < hi)
    }

    /// Whether the interval holds a string of exactly `n` bytes (a whole
    /// value of a fixed-width part): the smallest `n`-byte string at or
    /// after `lo` is below `hi`.
    pub(super) fn holds_width(&self, n: usize) -> bool {
        let first = if self.lo.len() <= n {
            let mut v = self.lo.clone();
            v.resize(n, 0);
            Some(v)
        } else {
            // `lo`'s first `n` bytes are below `lo` (a proper prefix): the
            // first `n`-byte string at or after it is the next one.
            next_of_width(&self.lo[..n])
        };
        match (first, &self.hi) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(v), Some(hi)) => v.as_slice() < hi.as_slice(),
        }
    }

    /// The single encoding this interval holds, if it holds one.
    pub(super) fn single(&self) -> Option<&[u8]> {
        self.single.then_some(self.lo.as_slice())
    }

    /// A single encoding of a raw field: a key range ending right after it.
    pub(super) fn is_raw_single(&self) -> bool {
        self.single
            && self.hi.as_deref().is_some_and(|hi| {
                hi.len() == self.lo.len() + 1 && hi.starts_with(&self.lo) && hi.last() == Some(&0)
            })
    }
}

/// A sorted list of disjoint, non-empty intervals: a part's allowed
/// encodings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Set(pub(super) Vec<Interval>);

impl Set {
    pub(super) fn new(mut v: Vec<Interval>) -> Set {
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

    pub(super) fn contains(&self, s: &[u8]) -> bool {
        // The last interval starting at or before `s`.
        let n = self.0.partition_point(|i| i.lo.as_slice() <= s);
        n > 0 && self.0[n - 1].contains(s)
    }

    /// The first interval that ends after `s` (so either holds it or lies
    /// entirely above it): a binary search, the intervals being disjoint
    /// and sorted, so their ends are too.
    pub(super) fn next_after(&self, s: &[u8]) -> Option<&Interval> {
        let n = self
            .0
            .partition_point(|i| i.hi.as_deref().is_some_and(|hi| hi <= s));
        self.0.get(n)
    }

    /// Every interval holds exactly one encoding: the encodings.
    pub(super) fn singles(&self) -> Option<Vec<&[u8]>> {
        self.0.iter().map(Interval::single).collect()
    }

    /// Every `n`-byte string the set holds, when there are at most `limit`
    /// (and `n` is at most 16): the values of a fixed-width part in a
    /// range over a small domain (a few days, a few groups), in order.
    pub(super) fn fixed_values(&self, n: usize, limit: usize) -> Option<Vec<Vec<u8>>> {
        if n == 0 || n > 16 {
            return None;
        }
        let as_int = |v: &[u8]| {
            let mut b = [0u8; 16];
            b[16 - n..].copy_from_slice(v);
            u128::from_be_bytes(b)
        };
        let max = if n == 16 {
            u128::MAX
        } else {
            (1u128 << (8 * n)) - 1
        };
        let mut out = Vec::new();
        for i in &self.0 {
            // The first n-byte string at or after `lo`.
            let first = if i.lo.len() <= n {
                let mut v = i.lo.clone();
                v.resize(n, 0);
                as_int(&v)
            } else {
                match next_of_width(&i.lo[..n]) {
                    Some(v) => as_int(&v),
                    None => continue,
                }
            };
            // The last n-byte string below `hi`: `hi` cut or padded to n
            // bytes, less one when that string is not below `hi`.
            let last = match &i.hi {
                None => max,
                Some(hi) => {
                    let mut v = hi.clone();
                    let exact = v.len() <= n;
                    v.resize(n, 0);
                    let at = as_int(&v);
                    // `hi` padded with zeros is `hi` itself or after it:
                    // not below it. `hi` cut to n bytes is below `hi`.
                    if exact {
                        match at.checked_sub(1) {
                            Some(at) => at,
                            None => continue,
                        }
                    } else {
                        at
                    }
                }
            };
            if last < first {
                continue;
            }
            if last - first >= (limit - out.len().min(limit)) as u128 {
                return None;
            }
            for v in first..=last {
                out.push(v.to_be_bytes()[16 - n..].to_vec());
            }
        }
        Some(out)
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

pub(super) fn encode_value<C: FieldCodec<T>, T>(
    v: &T,
    field: &'static str,
) -> Result<Vec<u8>, EncodeError> {
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
pub(super) fn range_intervals<C: FieldCodec<T>, T>(
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

/// The encodings both sets allow: one merge of the two sorted lists
/// (each a set's disjoint intervals in order), so at most one interval per
/// interval of either.
pub(super) fn intersect(a: &Set, b: &Set) -> Vec<Interval> {
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

/// The `n`-byte string after `v` (`v` as a big-endian number plus one), or
/// `None` when `v` is all `FF`.
fn next_of_width(v: &[u8]) -> Option<Vec<u8>> {
    let mut next = v.to_vec();
    for b in next.iter_mut().rev() {
        if *b == 0xFF {
            *b = 0;
        } else {
            *b += 1;
            return Some(next);
        }
    }
    None
}
