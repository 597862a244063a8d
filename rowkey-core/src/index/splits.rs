//! Split points of an indexed table with an unsalted family cut where its
//! rows fall: boundaries sampled from the records.

use alloc::vec::Vec;

use super::engine::{family, Engine, Indexes};
use super::query::PAGE;
use super::{IndexError, Record};
use crate::format::error::EncodeError;
use crate::key::{DecodeRowKey, RowKey};
use crate::layout::Layout;

/// Keys kept per family to place its boundaries: enough for a boundary
/// within a fraction of a percent of its quantile, bounded whatever the
/// table's size.
const SAMPLE: usize = 20_000;

/// A uniform sample of at most [`SAMPLE`] keys of one family (reservoir
/// sampling, with a fixed seed: the same rows give the same points).
struct Reservoir {
    layout: &'static Layout,
    /// The index's position in the table's indexes; `None`: the data rows.
    index: Option<usize>,
    keys: Vec<Vec<u8>>,
    seen: u64,
    rng: u64,
}

impl Reservoir {
    fn offer(&mut self, key: Vec<u8>) {
        self.seen += 1;
        if self.keys.len() < SAMPLE {
            self.keys.push(key);
            return;
        }
        // xorshift64*: a slot in 0..seen, kept when it falls in the sample.
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        let slot = self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D) % self.seen;
        if let Some(kept) = self.keys.get_mut(slot as usize) {
            *kept = key;
        }
    }

    /// `regions - 1` boundaries at the sample's quantiles, each once, none
    /// the family's first key.
    fn boundaries(mut self, regions: usize) -> Vec<Vec<u8>> {
        self.keys.sort_unstable();
        let n = self.keys.len();
        let mut out: Vec<Vec<u8>> = Vec::new();
        for i in 1..regions {
            let Some(key) = self.keys.get(i * n / regions) else {
                break;
            };
            if key.as_slice() != self.layout.prefix() && out.last() != Some(key) {
                out.push(key.clone());
            }
        }
        out
    }
}

/// The sampler of every unsalted family of `indexes`.
pub(super) struct Sampler<'a, D, R> {
    indexes: &'a Indexes<D, R>,
    families: Vec<Reservoir>,
}

impl<'a, D: RowKey, R> Sampler<'a, D, R> {
    pub(super) fn new(indexes: &'a Indexes<D, R>) -> Self {
        let families = indexes
            .unsalted_positions()
            .into_iter()
            .map(|(layout, index)| Reservoir {
                layout,
                index,
                keys: Vec::new(),
                seen: 0,
                rng: 0x9E37_79B9_7F4A_7C15,
            })
            .collect();
        Sampler { indexes, families }
    }

    /// Adds a record's rows: its data row and its entries, in the unsalted
    /// families.
    pub(super) fn add(&mut self, key: &D, record: &R) -> Result<(), EncodeError> {
        for family in &mut self.families {
            match family.index {
                None => family.offer(key.encode_to_vec()?),
                Some(i) => {
                    for entry in self.indexes.entries_of(i, key, record)? {
                        family.offer(entry);
                    }
                }
            }
        }
        Ok(())
    }

    /// The table's split points with each unsalted family cut into
    /// `regions` regions of about as many sampled rows.
    pub(super) fn finish(self, regions: usize) -> Vec<Vec<u8>> {
        let mut points = alloc::collections::BTreeSet::from_iter(self.indexes.split_points());
        for family in self.families {
            points.extend(family.boundaries(regions));
        }
        points.into_iter().collect()
    }
}

/// The split points of `table` sampled from its data rows: see
/// `IndexedTable::sampled_split_points`.
pub(super) async fn sampled<E, D, R>(
    table: &E,
    regions: usize,
) -> Result<Vec<Vec<u8>>, IndexError<E::Error>>
where
    E: Engine<D, R>,
    D: RowKey + for<'de> DecodeRowKey<'de>,
    R: Record,
{
    let mut sampler = Sampler::new(table.indexes());
    let (mut from, stop) = family(D::LAYOUT);
    loop {
        let page = table.scan(&from, &stop, None, PAGE).await?;
        for (key, value) in &page.rows {
            // A row that does not decode has no entries to place.
            if let (Ok(key), Ok(record)) = (D::decode(key), R::from_value(value)) {
                sampler.add(&key, &record).map_err(IndexError::Encode)?;
            }
        }
        if !super::maintain::next_page(&page.rows, PAGE, &mut from) {
            return Ok(sampler.finish(regions));
        }
    }
}

/// The split points of `indexes`' table sampled from `records`: see
/// `IndexedTable::split_points_from`.
pub(super) fn from_records<'r, D: RowKey + 'r, R: 'r>(
    indexes: &Indexes<D, R>,
    records: impl IntoIterator<Item = (&'r D, &'r R)>,
    regions: usize,
) -> Result<Vec<Vec<u8>>, EncodeError> {
    let mut sampler = Sampler::new(indexes);
    for (key, record) in records {
        sampler.add(key, record)?;
    }
    Ok(sampler.finish(regions))
}
