//! Designs (a key function over the user's events), query plans
//! (`Access`: a typed scan, a filter, a limit, a direction) and queries
//! (an expected answer and a plan per design).

use rowkey_core::{KeyFilter, Layout, RowKey, Scan};

use crate::BoxError;

// Send + Sync: the designs run on their own threads.
/// Writes an event's key into the buffer (cleared first).
type KeyFn<E> = Box<dyn Fn(&E, &mut Vec<u8>) -> Result<(), BoxError> + Send + Sync>;
type Pred<E> = Box<dyn Fn(&E) -> bool + Send + Sync>;
type TimeFn<E> = Box<dyn Fn(&E) -> i64 + Send + Sync>;
type PlanFn<E> = Box<dyn Fn(&Design<E>) -> Result<Access<E>, BoxError> + Send + Sync>;
type OwnPlanFn<E> = Box<dyn Fn() -> Result<Access<E>, BoxError> + Send + Sync>;

/// A row-key design: a name and a function from an event to a key of any
/// `#[derive(RowKey)]` type. The layout shown in reports comes from the key
/// type itself ([`RowKey::LAYOUT`]).
///
/// ```
/// use rowkey_core::prelude::*;
/// use rowkey_lab::Design;
///
/// struct Visit { site: u32, at: i64 }
///
/// #[derive(RowKey)]
/// #[salt(buckets = 8, by(site))]
/// struct BySite { site: u32, #[desc_ts] at: i64 }
///
/// let d = Design::new("by_site", |v: &Visit| BySite { site: v.site, at: v.at });
/// assert_eq!(d.name(), "by_site");
/// assert_eq!(d.layout().to_string(), BySite::LAYOUT.to_string());
/// assert_eq!(d.split_points().len(), 7);
/// assert_eq!(d.key(&Visit { site: 3, at: 9 }).unwrap().len(), 13);
/// ```
pub struct Design<E> {
    pub(crate) name: String,
    pub(crate) layout: &'static Layout,
    pub(crate) prefix: &'static [u8],
    pub(crate) splits: Vec<Vec<u8>>,
    pub(crate) key: KeyFn<E>,
    /// The design's own plans, by query name.
    pub(crate) plans: Vec<(String, OwnPlanFn<E>)>,
}

impl<E> Design<E> {
    /// A design whose key cannot fail to be built from an event (encoding
    /// may still fail: a string longer than its `#[fixed]` width, say, which
    /// the lab reports naming the design and the event).
    pub fn new<K, F>(name: impl Into<String>, key: F) -> Self
    where
        K: RowKey,
        F: Fn(&E) -> K + Send + Sync + 'static,
    {
        Design::try_new(name, move |e: &E| Ok::<K, BoxError>(key(e)))
    }

    /// A design whose key is built fallibly (a signed time that a text key
    /// stores unsigned, say).
    pub fn try_new<K, F, X>(name: impl Into<String>, key: F) -> Self
    where
        K: RowKey,
        F: Fn(&E) -> Result<K, X> + Send + Sync + 'static,
        X: Into<BoxError>,
    {
        Design {
            name: name.into(),
            layout: K::LAYOUT,
            prefix: K::PREFIX,
            splits: K::LAYOUT.split_points(),
            key: Box::new(move |e, out| {
                let k = key(e).map_err(Into::into)?;
                out.clear();
                out.resize(k.encoded_len(), 0);
                let n = k.encode_into(out)?;
                out.truncate(n);
                Ok(())
            }),
            plans: Vec::new(),
        }
    }

    /// A design whose key bytes `key` builds, of the layout `layout`: a
    /// layout known at run time ([`rowkey_core::DynLayout`], as
    /// [`runtime::design`](crate::runtime::design) builds designs from
    /// `--design`).
    pub fn from_layout<F>(name: impl Into<String>, layout: &'static Layout, key: F) -> Self
    where
        F: Fn(&E) -> Result<Vec<u8>, BoxError> + Send + Sync + 'static,
    {
        Design {
            name: name.into(),
            layout,
            prefix: layout.prefix(),
            splits: layout.split_points(),
            key: Box::new(move |e, out| {
                *out = key(e)?;
                Ok(())
            }),
            plans: Vec::new(),
        }
    }

    /// The design's own plan for the query named `query` (the read its key
    /// serves): used instead of the query's plan. Plans belong to the
    /// design, so a [`renamed`](Self::renamed) design keeps them; a query
    /// without one here runs its own plan.
    pub fn plan<P, X>(mut self, query: impl Into<String>, plan: P) -> Self
    where
        P: Fn() -> Result<Access<E>, X> + Send + Sync + 'static,
        X: Into<BoxError>,
    {
        let query = query.into();
        self.plans.retain(|(q, _)| *q != query);
        self.plans
            .push((query, Box::new(move || plan().map_err(Into::into))));
        self
    }

    /// The same design under another name, its plans kept.
    pub fn renamed(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The queries this design has its own plans for, in the order given.
    pub fn plans(&self) -> impl Iterator<Item = &str> {
        self.plans.iter().map(|(q, _)| q.as_str())
    }

    /// The design's own plan for `query`, if it has one.
    pub(crate) fn own_plan(&self, query: &str) -> Option<&OwnPlanFn<E>> {
        self.plans.iter().find(|(q, _)| q == query).map(|(_, p)| p)
    }

    /// The table starts split at these keys instead of the key type's own
    /// `split_points()` (empty for an unsalted key: one region).
    pub fn with_split_points(mut self, splits: Vec<Vec<u8>>) -> Self {
        self.splits = splits;
        self
    }

    /// The design's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key type's layout.
    pub fn layout(&self) -> &'static Layout {
        self.layout
    }

    /// A scan of the whole table in stored order (bucket by bucket when
    /// salted): what a query costs when the key does not lead with what it
    /// asks.
    pub fn scan_all(&self) -> Scan {
        Scan::prefixed(self.prefix)
    }

    /// Where the table starts split.
    pub fn split_points(&self) -> &[Vec<u8>] {
        &self.splits
    }

    /// The key of `event` under this design.
    pub fn key(&self, event: &E) -> Result<Vec<u8>, BoxError> {
        let mut out = Vec::new();
        (self.key)(event, &mut out)?;
        Ok(out)
    }

    /// [`key`](Self::key), written into `out` (its allocation reused).
    pub fn key_into(&self, event: &E, out: &mut Vec<u8>) -> Result<(), BoxError> {
        (self.key)(event, out)
    }
}

/// How one design answers one query: the typed [`Scan`] it runs, the rows
/// it reads but discards, and where it may stop reading.
pub struct Access<E> {
    pub(crate) scan: Scan,
    /// A skip scan: the store seeks past the keys this does not match.
    pub(crate) skip: Option<KeyFilter>,
    pub(crate) filter: Option<Pred<E>>,
    pub(crate) limit: Option<usize>,
    pub(crate) reverse: bool,
}

impl<E> Access<E> {
    /// Every row of `scan` is in the answer.
    pub fn scan(scan: Scan) -> Self {
        Access {
            scan,
            skip: None,
            filter: None,
            limit: None,
            reverse: false,
        }
    }

    /// A skip scan: the rows whose keys `filter` matches (`T::filter()`),
    /// read over its ranges ([`KeyFilter::scan`]) by a store that seeks
    /// past every run of keys that cannot match
    /// ([`Store::skip_scan`](crate::Store::skip_scan)): a query on a field
    /// that does not lead the key, without reading the whole table.
    pub fn skip(filter: KeyFilter) -> Self {
        let mut access = Access::scan(filter.scan());
        access.skip = Some(filter);
        access
    }

    /// Only rows whose event passes `keep` are in the answer; the others are
    /// read and discarded (the cost of a key that does not lead with what the
    /// query asks).
    pub fn filter(mut self, keep: impl Fn(&E) -> bool + Send + Sync + 'static) -> Self {
        self.filter = Some(Box::new(keep));
        self
    }

    /// Stop after `n` kept rows: the key order is the answer's order (newest
    /// first, for a query with [`Query::newest`]). With
    /// [`reverse`](Self::reverse), `n` kept rows per range.
    pub fn limit(mut self, n: usize) -> Self {
        self.limit = Some(n);
        self
    }

    /// Read each range of the scan backwards, from its last row (HBase's
    /// reversed scan, Bigtable's `reversed` read): for a query with
    /// [`Query::newest`] on a key whose order is oldest first, with a
    /// [`limit`](Self::limit), it reads each range's newest rows until it
    /// has `n` kept rows there, and the lab keeps the newest `n` of all
    /// ranges.
    pub fn reverse(mut self) -> Self {
        self.reverse = true;
        self
    }
}

/// A query: which events its answer holds, and how each design reads it.
///
/// `expect` selects the events of the answer from the workload; `plan` gives
/// each design's [`Access`]. The lab runs each plan on the store and checks
/// the rows it returns against `expect`: a plan that misses rows, returns
/// extra ones, or (with [`Query::newest`]) returns rows that are not the
/// newest, fails the run.
pub struct Query<E> {
    pub(crate) name: String,
    pub(crate) expect: Pred<E>,
    pub(crate) newest: Option<(usize, TimeFn<E>)>,
    pub(crate) plan: PlanFn<E>,
}

impl<E> Query<E> {
    /// A query named `name`.
    pub fn new<P, X>(
        name: impl Into<String>,
        expect: impl Fn(&E) -> bool + Send + Sync + 'static,
        plan: P,
    ) -> Self
    where
        P: Fn(&Design<E>) -> Result<Access<E>, X> + Send + Sync + 'static,
        X: Into<BoxError>,
    {
        Query {
            name: name.into(),
            expect: Box::new(expect),
            newest: None,
            plan: Box::new(move |d| plan(d).map_err(Into::into)),
        }
    }

    /// The answer is the `n` newest of the events `expect` selects, by
    /// `time`. A design whose plan has no [`Access::limit`] reads all its
    /// rows and keeps the newest `n` itself.
    pub fn newest(mut self, n: usize, time: impl Fn(&E) -> i64 + Send + Sync + 'static) -> Self {
        self.newest = Some((n, Box::new(time)));
        self
    }

    /// The query's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}
