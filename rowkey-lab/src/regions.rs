//! The lab's model of an HBase/Bigtable table's regions and region servers.
//!
//! - A table starts with one region per pre-split point plus one (a salted
//!   key's `split_points()`), or with a single region.
//! - A region whose rows (keys and values) take more than `split_bytes`
//!   bytes splits at its middle key, as HBase's size-based split policy
//!   does: longer keys split sooner. Both daughters stay on the parent's
//!   server.
//! - On its own period (every `balance_every` writes, whatever the
//!   measurement windows) the balancer evens out region counts, as
//!   HBase's `SimpleLoadBalancer` does: while one server holds more regions
//!   than the ceiling of the mean, or one holds fewer than the floor, a
//!   region moves from the most loaded server to the least loaded one
//!   (the lowest-keyed region of the most loaded server).
//!
//! The model keeps the table's keys itself (the stores do not report their
//! middle keys cheaply; Bigtable's emulator has no tablets at all).

use std::collections::BTreeMap;
use std::ops::Bound;

/// The bytes a row adds to its region: its key and its value (the lab
/// stores an 8-byte event index).
pub fn row_bytes(key: &[u8]) -> usize {
    key.len() + VALUE_BYTES
}

/// The lab's row value: an event index.
pub const VALUE_BYTES: usize = 8;

/// The end bound of region `r` whose successors start at `starts[r + 1]`.
fn end_of(starts: &[Vec<u8>], r: usize) -> Bound<&[u8]> {
    starts
        .get(r + 1)
        .map_or(Bound::Unbounded, |s| Bound::Excluded(s.as_slice()))
}

/// A table's keys, sorted, each with the event whose row it is.
pub type KeyMap = BTreeMap<Box<[u8]>, usize>;

/// Keys in the order they were written, in one buffer (a key is not an
/// allocation of its own), numbered from 0; the oldest may be forgotten
/// ([`forget_before`](Self::forget_before)) once they are no longer read.
#[derive(Debug, Clone, Default)]
pub struct KeyLog {
    bytes: Vec<u8>,
    /// Where each kept key ends in `bytes`.
    ends: Vec<usize>,
    /// The number of the first kept key.
    first: usize,
}

impl KeyLog {
    /// Appends a key.
    pub fn push(&mut self, key: &[u8]) {
        self.bytes.extend_from_slice(key);
        self.ends.push(self.bytes.len());
    }

    /// Number of keys pushed (forgotten ones included).
    pub fn len(&self) -> usize {
        self.first + self.ends.len()
    }

    /// Whether no key was pushed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Key `i`.
    ///
    /// # Panics
    /// If key `i` was forgotten or not pushed.
    pub fn get(&self, i: usize) -> &[u8] {
        let j = i - self.first;
        let start = if j == 0 { 0 } else { self.ends[j - 1] };
        &self.bytes[start..self.ends[j]]
    }

    /// The keys from key `from` on, in order.
    pub fn iter_from(&self, from: usize) -> impl ExactSizeIterator<Item = &[u8]> + '_ {
        (from..self.len()).map(move |i| self.get(i))
    }

    /// Every kept key, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u8]> + '_ {
        self.iter_from(self.first)
    }

    /// Forgets the keys before key `i`, once they are at least half of
    /// what is kept (so that each key is moved at most about once).
    pub fn forget_before(&mut self, i: usize) {
        let n = i.saturating_sub(self.first).min(self.ends.len());
        if n == 0 || n < self.ends.len() / 2 {
            return;
        }
        let cut = self.ends[n - 1];
        self.bytes.drain(..cut);
        self.ends.drain(..n);
        for end in &mut self.ends {
            *end -= cut;
        }
        self.first += n;
    }
}

impl<K: AsRef<[u8]>> FromIterator<K> for KeyLog {
    fn from_iter<I: IntoIterator<Item = K>>(keys: I) -> Self {
        let mut log = KeyLog::default();
        for k in keys {
            log.push(k.as_ref());
        }
        log
    }
}

/// Regions of one table, in key order.
#[derive(Debug, Clone)]
pub struct Regions {
    /// Start key of each region; the first is empty.
    starts: Vec<Vec<u8>>,
    /// Rows in each region.
    rows: Vec<usize>,
    /// Bytes (keys and values) in each region.
    bytes: Vec<usize>,
    /// The server each region is on.
    server: Vec<usize>,
    servers: usize,
    split_bytes: usize,
    splits: usize,
    /// Each key and the event whose row it is.
    keys: KeyMap,
}

impl Regions {
    /// A table pre-split at `splits` (in any order: they are sorted, and
    /// repeated or empty ones dropped, as HBase does), its regions spread
    /// round-robin over `servers` servers.
    pub fn new(splits: &[Vec<u8>], split_bytes: usize, servers: usize) -> Self {
        let mut starts = vec![Vec::new()];
        starts.extend(splits.iter().filter(|s| !s.is_empty()).cloned());
        starts.sort_unstable();
        starts.dedup();
        let servers = servers.max(1);
        Regions {
            rows: vec![0; starts.len()],
            bytes: vec![0; starts.len()],
            server: (0..starts.len()).map(|i| i % servers).collect(),
            starts,
            servers,
            split_bytes: split_bytes.max(1),
            splits: 0,
            keys: BTreeMap::new(),
        }
    }

    /// The region holding `key`.
    pub fn region_of(&self, key: &[u8]) -> usize {
        self.starts.partition_point(|s| s.as_slice() <= key) - 1
    }

    /// The server of region `r`.
    pub fn server_of(&self, r: usize) -> usize {
        self.server[r]
    }

    /// Number of regions.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Always false: a table has at least one region.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Number of servers.
    pub fn servers(&self) -> usize {
        self.servers
    }

    /// Splits so far.
    pub fn splits(&self) -> usize {
        self.splits
    }

    /// Rows per region, in key order.
    pub fn rows(&self) -> &[usize] {
        &self.rows
    }

    /// Bytes (keys and values) per region, in key order.
    pub fn bytes(&self) -> &[usize] {
        &self.bytes
    }

    /// Start keys, in key order (the first is empty).
    pub fn starts(&self) -> &[Vec<u8>] {
        &self.starts
    }

    /// Regions per server.
    pub fn regions_per_server(&self) -> Vec<usize> {
        let mut n = vec![0; self.servers];
        for &s in &self.server {
            n[s] += 1;
        }
        n
    }

    /// The table's keys, sorted, each with the event whose row it is.
    pub fn keys(&self) -> &KeyMap {
        &self.keys
    }

    /// Records the write of event `event`'s row at `key`; returns its region
    /// (before any split it causes) and the event whose row it overwrote,
    /// if the key was already there.
    pub fn write(&mut self, key: &[u8], event: usize) -> (usize, Option<usize>) {
        let r = self.region_of(key);
        if let Some(old) = self.keys.insert(Box::from(key), event) {
            return (r, Some(old));
        }
        self.rows[r] += 1;
        self.bytes[r] += row_bytes(key);
        if self.bytes[r] > self.split_bytes && self.rows[r] >= 2 {
            self.split(r);
        }
        (r, None)
    }

    /// Splits region `r` at its middle key.
    fn split(&mut self, r: usize) {
        let range = (
            Bound::Included(self.starts[r].as_slice()),
            end_of(&self.starts, r),
        );
        let half = self.rows[r] / 2;
        let Some((mid, _)) = self.keys.range::<[u8], _>(range).nth(half) else {
            return;
        };
        let mid = mid.to_vec();
        let upper: usize = self
            .keys
            .range::<[u8], _>((Bound::Included(mid.as_slice()), end_of(&self.starts, r)))
            .map(|(k, _)| row_bytes(k))
            .sum();
        self.starts.insert(r + 1, mid);
        self.rows.insert(r + 1, self.rows[r] - half);
        self.rows[r] = half;
        self.bytes.insert(r + 1, upper);
        self.bytes[r] -= upper;
        self.server.insert(r + 1, self.server[r]);
        self.splits += 1;
    }

    /// Evens out region counts over the servers; returns the moves made.
    pub fn balance(&mut self) -> usize {
        let n = self.starts.len();
        let (floor, ceil) = (n / self.servers, n.div_ceil(self.servers));
        let mut moves = 0;
        loop {
            let per = self.regions_per_server();
            let (most, &max) = per
                .iter()
                .enumerate()
                .max_by_key(|&(i, c)| (c, std::cmp::Reverse(i)))
                .expect("at least one server");
            let (least, &min) = per
                .iter()
                .enumerate()
                .min_by_key(|&(i, c)| (c, i))
                .expect("at least one server");
            if (max <= ceil && min >= floor) || max - min <= 1 {
                return moves;
            }
            let r = self
                .server
                .iter()
                .position(|&s| s == most)
                .expect("the most loaded server has regions");
            self.server[r] = least;
            moves += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_log_keeps_its_numbers_when_it_forgets_its_oldest_keys() {
        let mut log = KeyLog::default();
        for k in 0u16..10 {
            log.push(&k.to_be_bytes()[..usize::from(k % 2) + 1]);
        }
        // Fewer than half of the kept keys: nothing is moved yet.
        log.forget_before(4);
        assert_eq!(log.iter().count(), 10);
        log.forget_before(6);
        assert_eq!((log.len(), log.iter().count()), (10, 4));
        assert_eq!(log.get(6), [0]);
        assert_eq!(log.get(7), [0, 7]);
        let rest: Vec<&[u8]> = log.iter_from(8).collect();
        assert_eq!(rest, [&[0][..], &[0, 9][..]]);
        log.push(b"x");
        assert_eq!((log.len(), log.get(10)), (11, &b"x"[..]));
    }

    #[test]
    fn splits_at_the_middle_key_and_daughters_stay_on_the_server() {
        // One-byte keys: 9 bytes a row; splits above 4 rows.
        let mut regions = Regions::new(&[], 4 * 9, 3);
        for k in 0u8..5 {
            regions.write(&[k], k.into());
        }
        assert_eq!(regions.starts(), [vec![], vec![2]]);
        assert_eq!(regions.rows(), [2, 3]);
        assert_eq!(regions.bytes(), [18, 27]);
        assert_eq!((regions.server_of(0), regions.server_of(1)), (0, 0));
        assert_eq!(
            regions.write(&[3], 9),
            (1, Some(3)),
            "an overwrite is no new row"
        );
        assert_eq!(regions.rows(), [2, 3]);
        assert_eq!(regions.balance(), 1);
        assert_eq!(regions.regions_per_server(), [1, 1, 0]);
    }

    #[test]
    fn balancer_evens_region_counts() {
        let mut regions = Regions::new(&[], 2 * 9, 4);
        for k in 0u8..40 {
            regions.write(&[k], k.into());
        }
        assert!(regions.len() > 8);
        regions.balance();
        let per = regions.regions_per_server();
        assert!(
            per.iter().max().unwrap() - per.iter().min().unwrap() <= 1,
            "{per:?}"
        );
        assert_eq!(per.iter().sum::<usize>(), regions.len());
    }

    #[test]
    fn longer_keys_split_sooner() {
        // The same 2,000 rows in the same order, as 16-byte binary keys and
        // as 42-byte text keys, under one size threshold.
        let mut binary = Regions::new(&[], 20_000, 4);
        let mut text = Regions::new(&[], 20_000, 4);
        for i in 0..2_000u64 {
            let mut b = [0u8; 16];
            b[8..].copy_from_slice(&i.wrapping_mul(0x9E37_79B9_7F4A_7C15).to_be_bytes());
            binary.write(&b, i as usize);
            text.write(
                format!("{:042}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).as_bytes(),
                i as usize,
            );
        }
        assert_eq!(binary.bytes().iter().sum::<usize>(), 2_000 * 24);
        assert_eq!(text.bytes().iter().sum::<usize>(), 2_000 * 50);
        assert!(
            text.len() > binary.len(),
            "text {} regions, binary {}",
            text.len(),
            binary.len()
        );
        assert!(binary.bytes().iter().all(|&b| b <= 20_000 + 24));
    }

    #[test]
    fn split_points_in_any_order_are_sorted() {
        let splits: Vec<Vec<u8>> = [3u8, 1, 2, 1].iter().map(|&b| vec![b]).collect();
        let regions = Regions::new(&splits, 100, 2);
        assert_eq!(regions.starts(), [vec![], vec![1], vec![2], vec![3]]);
        assert_eq!(regions.region_of(&[2, 9]), 2);
        assert_eq!(regions.region_of(&[3]), 3);
    }

    #[test]
    fn pre_split_regions_start_round_robin() {
        let splits: Vec<Vec<u8>> = (1..4u8).map(|b| vec![b]).collect();
        let regions = Regions::new(&splits, 100, 2);
        assert_eq!(regions.len(), 4);
        assert_eq!(regions.regions_per_server(), [2, 2]);
        assert_eq!(regions.region_of(&[2, 9]), 2);
        assert_eq!(regions.region_of(&[0]), 0);
    }
}
