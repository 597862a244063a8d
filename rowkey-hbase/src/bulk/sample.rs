//! Split points from a load's own rows: a key sample kept while rows are
//! put, for a new table of unsalted keys whose distribution is not known
//! in advance.
//!
//! Each row is considered with the stated probability, and the
//! considered keys are kept in a reservoir of at most [`RESERVOIR`]
//! (Vitter's algorithm R), so memory stays bounded whatever the input.
//! `BulkLoad::sampled_split_points` merges the samples of several
//! loads (each weighted by the rows it stands for) and cuts at equal row
//! counts.

/// The most keys one load keeps in its sample.
pub const RESERVOIR: usize = 100_000;

/// A uniform sample of the keys put.
#[derive(Debug, Clone)]
pub(super) struct Sample {
    /// Each row is considered with this probability.
    fraction: f64,
    /// Rows considered.
    considered: u64,
    keys: Vec<Vec<u8>>,
    /// xorshift64* state: a fixed seed, so a load of the same input
    /// samples the same keys.
    state: u64,
}

impl Sample {
    /// A sample considering each row with probability `fraction`
    /// (clamped to `(0, 1]`); `seed` makes samples of different shares
    /// independent.
    pub(super) fn new(fraction: f64, seed: u64) -> Sample {
        let fraction = if fraction.is_finite() {
            fraction.clamp(f64::MIN_POSITIVE, 1.0)
        } else {
            1.0
        };
        let seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        Sample {
            fraction,
            considered: 0,
            keys: Vec::new(),
            state: seed | 1,
        }
    }

    fn next(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub(super) fn offer(&mut self, key: &[u8]) {
        if self.fraction < 1.0 && self.unit() >= self.fraction {
            return;
        }
        self.considered += 1;
        if self.keys.len() < RESERVOIR {
            self.keys.push(key.to_vec());
            return;
        }
        let at = self.next() % self.considered;
        if let Some(slot) = self.keys.get_mut(at as usize) {
            slot.clear();
            slot.extend_from_slice(key);
        }
    }
}

/// Up to `regions - 1` keys cutting the rows the `samples` stand for
/// into `regions` parts of about equal row counts.
pub(super) fn split_points(samples: &[&Sample], regions: usize) -> Vec<Vec<u8>> {
    let mut weighted: Vec<(&[u8], f64)> = Vec::new();
    for sample in samples {
        if sample.keys.is_empty() {
            continue;
        }
        let weight = sample.considered as f64 / sample.keys.len() as f64;
        weighted.extend(sample.keys.iter().map(|k| (k.as_slice(), weight)));
    }
    if regions < 2 || weighted.is_empty() {
        return Vec::new();
    }
    weighted.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let total: f64 = weighted.iter().map(|w| w.1).sum();
    let mut points: Vec<Vec<u8>> = Vec::with_capacity(regions - 1);
    let mut seen = 0.0;
    let mut next = 1;
    for (key, weight) in weighted {
        // A key whose rows start past the next cut's share begins a
        // region.
        if next < regions && seen >= total * next as f64 / regions as f64 {
            if points.last().map(Vec::as_slice) != Some(key) && !key.is_empty() {
                points.push(key.to_vec());
            }
            while next < regions && seen >= total * next as f64 / regions as f64 {
                next += 1;
            }
        }
        seen += weight;
    }
    points
}

#[cfg(test)]
mod tests {
    use crate::bulk::sample::{split_points, Sample, RESERVOIR};

    #[test]
    fn equal_counts_from_a_sample_of_skewed_keys() {
        // Keys crowded at the low end: a cut at equal key ranges would put
        // most rows in the first region.
        let mut sample = Sample::new(0.05, 7);
        let keys: Vec<Vec<u8>> = (0u64..200_000)
            .map(|i| (i * i / 200_000).to_be_bytes().to_vec())
            .collect();
        for k in &keys {
            sample.offer(k);
        }
        let points = split_points(&[&sample], 8);
        assert_eq!(points.len(), 7);
        let mut counts = [0u64; 8];
        for k in &keys {
            counts[points.partition_point(|p| p <= k)] += 1;
        }
        for c in counts {
            assert!((20_000..30_000).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn the_reservoir_is_bounded() {
        let mut s = Sample::new(1.0, 1);
        for i in 0u64..(RESERVOIR as u64 * 3) {
            s.offer(&i.to_be_bytes());
        }
        assert_eq!(s.keys.len(), RESERVOIR);
        assert_eq!(s.considered, RESERVOIR as u64 * 3);
        // Kept keys come from the whole input, not its start.
        let late = (RESERVOIR as u64 * 2).to_be_bytes();
        assert!(s.keys.iter().any(|k| k.as_slice() >= &late[..]));
    }
}
