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
//! the layout. It finds where each part ends by the part's structure
//! alone (its width, escapes and terminator, `Option` tag, separator), so
//! that rowkey's filter on HBase's region servers can answer the same
//! ([`KeyFilter::to_bytes`]). A key whose structure is not the layout's
//! (cut short, trailing bytes, a bad escape or tag) never matches; a
//! part's bytes are compared, not validated (a string's UTF-8, an
//! integer's range), as HBase's and Bigtable's server-side filters compare
//! them.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

// What the per-field methods take, at the paths users know.
pub use super::predicate::{
    any_of, AnyOf, FieldPredicate, Interval, ValuePredicate, MAX_FILTER_INTERVALS,
};
use super::predicate::{intersect, Set};
use super::range::{prefix_stop, Buckets, KeyBuf, Scan};
use super::regex::{alternation, byte, lang_of, Lang};
use super::rules::{self, Rule};
use super::width::{End, Width};
use super::wire::{self, WireFilter};
use crate::format::codec::{FieldCodec, FilterSink};
use crate::format::error::EncodeError;
use crate::format::salt::Head;
use crate::layout::Layout;

/// The most key/mask pairs [`KeyFilter::fuzzy_row_filter`] gives (the
/// product of the constrained fields' value counts); past it the filter
/// is better sent as ranges or a regex.
pub const MAX_FUZZY_KEYS: usize = 256;

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

/// One part of the key (the family prefix, the salt, a field) and what it
/// must hold.
#[derive(Clone)]
struct Part {
    name: &'static str,
    kind: Kind,
    width: Width<'static>,
    /// A field added to the layout later (`#[rowkey(added)]`): older keys
    /// end before it.
    added: bool,
    set: Option<Set>,
}

impl Rule for Part {
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
    /// Every part is fixed-width (none added): every key of the layout is
    /// this long. For the stores' skip scans ([`run_end`](Self::run_end)).
    #[cfg_attr(not(any(feature = "redb", feature = "fjall")), allow(dead_code))]
    fixed_len: Option<usize>,
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
                width: Width::of(f, layout),
                added: f.is_added(),
                set: set.map(Set::new),
            });
        }
        // A fixed-width part's intervals that hold no whole value (`..false`
        // holds only the empty string) allow nothing: dropped, so a part that
        // allows nothing is seen as such, instead of a seek stepping through
        // every value of the parts before it.
        for part in &mut parts {
            if let (Width::Fixed(n), Some(set)) = (part.width, &mut part.set) {
                set.0.retain(|iv| iv.holds_width(n));
            }
        }
        let never = parts
            .iter()
            .any(|p| p.set.as_ref().is_some_and(|s| s.0.is_empty()));
        let fixed_len = parts.iter().try_fold(0, |len, p| match p.width {
            Width::Fixed(n) if !p.added => Some(len + n),
            _ => None,
        });
        KeyFilter {
            layout,
            parts,
            first_field,
            buckets,
            never,
            fixed_len,
        }
    }

    /// The layout of the keys this filter reads.
    pub fn layout(&self) -> &'static Layout {
        self.layout
    }

    /// This filter's matches in one salt bucket: the filter of a reader
    /// that reads the buckets side by side (SQL's partitions). A bucket the
    /// filter already rules out, or past the salt's count, matches
    /// nothing; an unsalted layout's filter is itself.
    ///
    #[cfg_attr(feature = "derive", doc = "```")]
    #[cfg_attr(not(feature = "derive"), doc = "```ignore")]
    /// use rowkey_core::prelude::*;
    ///
    /// #[derive(RowKey)]
    /// #[salt(buckets = 4, by(user))]
    /// struct Visit { user: u32, page: u16 }
    ///
    /// let filter = Visit::filter().page(7).build()?;
    /// let key = Visit { user: 1, page: 7 }.encode_to_vec()?;
    /// let own = filter.in_bucket(key[0]);
    /// assert!(own.matches(&key) && own.scan().range_count() == 1);
    /// assert!(!filter.in_bucket((key[0] + 1) % 4).matches(&key));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn in_bucket(&self, bucket: u8) -> KeyFilter {
        let mut f = self.clone();
        let Some(salt) = self.layout.salt() else {
            return f;
        };
        let ruled_out = match self.buckets {
            Buckets::One(b) => b != bucket,
            _ => u16::from(bucket) >= salt.buckets(),
        };
        if ruled_out {
            f.never = true;
            return f;
        }
        let head = salt.head();
        let mut salt_bytes = vec![0; head.len()];
        head.write(bucket, &mut salt_bytes, true);
        f.parts[self.first_field - 1].set = Some(Set(vec![Interval::exact(salt_bytes, false)]));
        f.buckets = Buckets::One(bucket);
        f
    }

    /// Where part `i`, starting at `pos`, ends in `x`.
    fn end(&self, i: usize, x: &[u8], pos: usize) -> End {
        self.parts[i].width.end(x, pos)
    }

    /// Whether `v` is a whole value of part `i` (and nothing more).
    fn whole(&self, i: usize, v: &[u8]) -> bool {
        matches!(self.end(i, v, 0), End::At(e) if e == v.len())
    }

    /// Whether `key` is a key of the layout whose fields satisfy every
    /// predicate.
    pub fn matches(&self, key: &[u8]) -> bool {
        rules::matches(&self.parts, key)
    }

    /// For a fixed-width layout, the run of matches `key` starts (`key`
    /// must match: the caller has checked it with
    /// [`matches`](Self::matches)): writes into `end` the bound below which
    /// every key of the layout's length at or after `key` matches too, and
    /// returns `Some(true)`; `Some(false)` when every such key after it
    /// matches (no bound). `None` for a layout with variable-width or added
    /// parts: check each key with `matches`.
    ///
    /// The keys between `key` and `end` share `key`'s bytes up to the last
    /// constrained part, which lies between `key`'s and the end of the
    /// interval holding it, so a store reading on through a run compares
    /// each key with `end` (and its length) instead of matching it.
    #[cfg_attr(not(any(feature = "redb", feature = "fjall")), allow(dead_code))]
    pub(crate) fn run_end(&self, key: &[u8], end: &mut Vec<u8>) -> Option<bool> {
        if self.fixed_len? != key.len() || self.never {
            return None;
        }
        // The last constrained part: its offset, width and set.
        let mut pos = 0;
        let mut last = None;
        for p in &self.parts {
            let Width::Fixed(n) = p.width else {
                return None;
            };
            if let Some(set) = &p.set {
                last = Some((pos, n, set));
            }
            pos += n;
        }
        end.clear();
        let Some((pos, n, set)) = last else {
            return Some(false);
        };
        let part = &key[pos..pos + n];
        let interval = set.next_after(part).filter(|iv| iv.contains(part))?;
        match &interval.hi {
            Some(hi) => {
                end.extend_from_slice(&key[..pos]);
                end.extend_from_slice(hi);
            }
            None => match prefix_stop(&key[..pos]) {
                Some(stop) => end.extend_from_slice(&stop),
                None => return Some(false),
            },
        }
        Some(true)
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
    ///
    /// Its work is bounded: past [`MAX_HINT_PASSES`](super::MAX_HINT_PASSES) passes over the
    /// key's parts (a filter of many parts stepping back over each), the
    /// hint is `key` followed by `00`.
    pub fn seek_hint(&self, key: &[u8]) -> Option<Vec<u8>> {
        rules::seek_hint(&self.parts, self.never, key)
    }

    /// The filter's serialized form (version 1, FORMAT.md "The
    /// server-side filter"): what rowkey's Java filter
    /// (`rowkey.hbase.KeyFilter`, built by `rowkey-hbase`'s Maven module)
    /// reads on HBase's region servers, where it answers `matches` and
    /// `seek_hint` as this filter does. `None` for a layout whose parts
    /// cannot all be delimited by their structure: none that has a filter
    /// today (ordered-code keys, which could not be, have no skip-scan
    /// filter); `None` too for a filter past the caps a region server
    /// accepts ([`MAX_FILTER_PARTS`](super::MAX_FILTER_PARTS) parts,
    /// [`MAX_FILTER_ROW`](super::MAX_FILTER_ROW) bytes spanned,
    /// [`MAX_FILTER_SEPARATOR`](super::MAX_FILTER_SEPARATOR)), which is
    /// then checked on the client. [`WireFilter::decode`] reads the bytes
    /// back as the region servers do.
    ///
    #[cfg_attr(feature = "derive", doc = "```")]
    #[cfg_attr(not(feature = "derive"), doc = "```ignore")]
    /// use rowkey_core::prelude::*;
    ///
    /// #[derive(RowKey)]
    /// struct Metric {
    ///     metric: u16,
    ///     host: String,
    /// }
    ///
    /// let filter = Metric::filter().host("web1").build()?;
    /// let bytes = filter.to_bytes().unwrap();
    /// assert!(bytes.starts_with(b"RKF\x01"));
    /// # Ok::<(), EncodeError>(())
    /// ```
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        let bytes = wire::encode(
            self.parts
                .iter()
                .map(|p| (p.width, p.added, p.set.as_ref())),
        )?;
        // What a region server would refuse is not sent: the caps, and
        // the builder's own guarantees, checked by the reader they run.
        WireFilter::decode(&bytes).ok()?;
        Some(bytes)
    }

    /// The tightest ranges that hold every match: the leading fields fixed
    /// to one value each, the next one's allowed encodings, then
    /// everything; one range per bucket when salted, one bucket when the
    /// salt's `by` fields are fixed.
    pub fn scan(&self) -> Scan {
        // A part that allows nothing: no key matches, nothing to read.
        if self.never {
            return Scan::none();
        }
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
        self.fuzzy(false)
    }

    /// [`fuzzy_row_filter`](Self::fuzzy_row_filter), where a range over a
    /// fixed-width part that holds few values (a few days, a few groups:
    /// at most [`MAX_FUZZY_KEYS`] combinations in all) counts as those
    /// values, so that it too reaches HBase's `FuzzyRowFilter` rather than
    /// being checked on the client. A leading range is better sent as row
    /// ranges ([`multi_row_ranges`](Self::multi_row_ranges)): ask for this
    /// one after that.
    ///
    #[cfg_attr(feature = "derive", doc = "```")]
    #[cfg_attr(not(feature = "derive"), doc = "```ignore")]
    /// use rowkey_core::prelude::*;
    ///
    /// #[derive(RowKey)]
    /// struct Visit {
    ///     site: u32,
    ///     day: u32,
    ///     user: u64,
    /// }
    ///
    /// // Three days of any site: a range not at the start of the key.
    /// let filter = Visit::filter().day(20261130..=20261202).build()?;
    /// assert_eq!(filter.fuzzy_row_filter(), None);
    /// let pairs = filter.fuzzy_row_filter_enumerated().unwrap();
    /// assert_eq!(pairs.len(), 73); // 20261130 to 20261202, as integers
    /// # Ok::<(), EncodeError>(())
    /// ```
    pub fn fuzzy_row_filter_enumerated(&self) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
        self.fuzzy(true)
    }

    fn fuzzy(&self, enumerate: bool) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
        let last = self
            .parts
            .iter()
            .rposition(|p| p.set.is_some() && p.kind != Kind::Salt)?;
        let mut combos: Vec<(Vec<u8>, Vec<u8>)> = vec![(Vec::new(), Vec::new())];
        for part in &self.parts[..=last] {
            let Width::Fixed(n) = part.width else {
                return None;
            };
            let values: Vec<Vec<u8>> = match &part.set {
                // The salt's range of buckets is not a value set: any.
                Some(set)
                    if part.kind != Kind::Salt
                        || set.0.len() == 1 && set.0[0].single().is_some() =>
                {
                    match set.singles() {
                        Some(singles) => singles.into_iter().map(<[u8]>::to_vec).collect(),
                        None if enumerate => {
                            set.fixed_values(n, MAX_FUZZY_KEYS / combos.len().max(1))?
                        }
                        None => return None,
                    }
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
                width => match lang_of(width) {
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

struct Lead<'a> {
    prefix: Vec<u8>,
    next: Option<&'a Set>,
}
