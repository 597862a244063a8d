//! Helpers shared by the scan tests on redb and on the Bigtable emulator.

use std::ops::Bound;

/// A small deterministic generator for picking scans.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[(self.next() % items.len() as u64) as usize].clone()
    }
    pub fn bound<T: Clone>(&mut self, items: &[T]) -> Bound<T> {
        match self.next() % 3 {
            0 => Bound::Included(self.pick(items)),
            1 => Bound::Excluded(self.pick(items)),
            _ => Bound::Unbounded,
        }
    }
    pub fn range<T: Clone>(&mut self, items: &[T]) -> (Bound<T>, Bound<T>) {
        (self.bound(items), self.bound(items))
    }
}

/// The keys of the rows `pred` selects, in the order a scan returns them:
/// sorted by the bytes after the salt byte (when `salted`), duplicates once.
pub fn expected_keys<T: rowkey_core::RowKey>(
    rows: &[T],
    salted: bool,
    pred: impl Fn(&T) -> bool,
) -> Vec<Vec<u8>> {
    let skip = usize::from(salted);
    let mut expected: Vec<Vec<u8>> = rows
        .iter()
        .filter(|r| pred(r))
        .map(|r| r.encode_to_vec().unwrap())
        .collect();
    expected.sort_by(|a, b| a[skip..].cmp(&b[skip..]));
    expected.dedup();
    expected
}
