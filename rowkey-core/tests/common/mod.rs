//! Helpers shared by the scan tests on redb and on the Bigtable emulator.
// Each test crate that includes this module uses a part of it.
#![allow(dead_code)]

use std::fmt::Debug;
use std::ops::Bound;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

/// A range as the generated `range_by_*` methods take it.
pub type Range<T> = (Bound<T>, Bound<T>);

/// One of `items` (edge values, so that equality scans hit many rows);
/// shrinks towards the first.
pub fn value_of<T: Clone + Debug + 'static>(items: &[T]) -> impl Strategy<Value = T> + Clone {
    prop::sample::select(items.to_vec())
}

/// An included, excluded or unbounded end at one of `items`.
pub fn bound_of<T: Clone + Debug + 'static>(items: &[T]) -> impl Strategy<Value = Bound<T>> {
    let v = value_of(items);
    prop_oneof![
        v.clone().prop_map(Bound::Included),
        v.prop_map(Bound::Excluded),
        Just(Bound::Unbounded),
    ]
}

/// A range with both ends from [`bound_of`], possibly empty, never
/// inverted (a start after the end is a programming error the scans panic
/// on): ends drawn the wrong way round are swapped.
pub fn range_of<T: Clone + Debug + PartialOrd + 'static>(
    items: &[T],
) -> impl Strategy<Value = Range<T>> {
    (bound_of(items), bound_of(items)).prop_map(|(a, b)| {
        let value = |b: &Bound<T>| match b {
            Bound::Included(v) | Bound::Excluded(v) => Some(v.clone()),
            Bound::Unbounded => None,
        };
        match (value(&a), value(&b)) {
            (Some(x), Some(y)) if x > y => (b, a),
            _ => (a, b),
        }
    })
}

/// Draws values from the same strategies outside `proptest!`: the emulator
/// test runs one large deterministic case against a server, where
/// shrinking would mean re-running it against the server many times.
pub struct Sampler(TestRunner);

impl Sampler {
    pub fn new() -> Self {
        Sampler(TestRunner::deterministic())
    }
    pub fn draw<S: Strategy>(&mut self, strategy: S) -> S::Value {
        strategy
            .new_tree(&mut self.0)
            .expect("the strategy makes a value")
            .current()
    }
    pub fn pick<T: Clone + Debug + 'static>(&mut self, items: &[T]) -> T {
        self.draw(value_of(items))
    }
    pub fn range<T: Clone + Debug + PartialOrd + 'static>(&mut self, items: &[T]) -> Range<T> {
        self.draw(range_of(items))
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.draw(0..n)
    }
}

/// The keys of the rows `pred` selects, in the order a scan returns them:
/// sorted by the bytes after the salt (when `salted`: a byte, or a text
/// key's bucket digits and separator), duplicates once.
pub fn expected_keys<T: rowkey_core::RowKey>(
    rows: &[T],
    salted: bool,
    pred: impl Fn(&T) -> bool,
) -> Vec<Vec<u8>> {
    let skip = if salted { T::HEAD_LEN } else { 0 };
    let mut expected: Vec<Vec<u8>> = rows
        .iter()
        .filter(|r| pred(r))
        .map(|r| r.encode_to_vec().unwrap())
        .collect();
    expected.sort_by(|a, b| a[skip..].cmp(&b[skip..]));
    expected.dedup();
    expected
}
