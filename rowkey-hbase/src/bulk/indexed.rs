//! An indexed table's rows in a bulk load (feature `index`): each record's
//! data row and its entries in every index of the load, written as an
//! [`IndexStore`](crate::IndexStore) writes them, so that one load fills
//! the data rows and their indexes together.

use std::any::Any;

use rowkey_core::index::{covered_value, entry_keys, entry_value, Covering, Index, Record};
use rowkey_core::RowKey;

use super::{BulkError, BulkLoad, Entries, LoadIndex};
use crate::index::QUALIFIER;
use crate::types::Cell;

fn erased<I: Index>(data: &dyn Any, record: &dyn Any) -> Entries
where
    I::Data: 'static,
    I::Record: 'static,
{
    let data = data.downcast_ref::<I::Data>()?;
    let record = record.downcast_ref::<I::Record>()?;
    let keys = entry_keys::<I>(data, record);
    Some(keys.map(|keys| keys.into_iter().map(|k| (k, Vec::new())).collect()))
}

fn erased_covering<I: Covering>(data: &dyn Any, record: &dyn Any) -> Entries
where
    I::Data: 'static,
    I::Record: 'static,
{
    let data = data.downcast_ref::<I::Data>()?;
    let record = record.downcast_ref::<I::Record>()?;
    let covered = covered_value::<I>(data, record);
    let keys = entry_keys::<I>(data, record);
    Some(keys.map(|keys| keys.into_iter().map(|k| (k, covered.clone())).collect()))
}

impl BulkLoad {
    /// The load with index `I` too: every record put with
    /// [`put_indexed`](Self::put_indexed) gets its entries in `I`, in the
    /// same files as the data rows (the table's split points should cover
    /// the index's rows: `IndexedTable::split_points`).
    #[must_use]
    pub fn index<I: Index>(self) -> BulkLoad
    where
        I::Data: 'static,
        I::Record: 'static,
    {
        self.add_index(I::LAYOUT.name(), erased::<I>)
    }

    /// The load with the covering index `I` too: as [`index`](Self::index),
    /// each entry holding its record's covered values, as
    /// `IndexedTable::with_covering_index` writes them.
    #[must_use]
    pub fn covering_index<I: Covering>(self) -> BulkLoad
    where
        I::Data: 'static,
        I::Record: 'static,
    {
        self.add_index(I::LAYOUT.name(), erased_covering::<I>)
    }

    fn add_index(
        mut self,
        name: &'static str,
        entries: fn(&dyn Any, &dyn Any) -> Entries,
    ) -> BulkLoad {
        if !self.indexes.iter().any(|ix| ix.name == name) {
            self.indexes.push(LoadIndex { name, entries });
        }
        self
    }

    /// The family of the indexed table's rows, as its
    /// [`IndexStore`](crate::IndexStore) was made with (needed by
    /// [`put_indexed`](Self::put_indexed)).
    #[must_use]
    pub fn index_family(mut self, family: &str) -> BulkLoad {
        self.index_family = Some(family.to_owned());
        self
    }

    /// Puts a record of an indexed table: its data row under `key`, as
    /// `IndexedTable::put` writes it (the record's value in the index
    /// family's `v` cell, or a record of `Record::CELLS` as its cells) and
    /// its entries in every index of the load whose data
    /// key is `K` and record `record`'s type (each entry's value the load's
    /// timestamp, as `put` stamps it). An error when the load has no index
    /// family, or no index over `K` and that record.
    pub fn put_indexed<K: RowKey + 'static>(
        &mut self,
        key: &K,
        record: &(impl Record + 'static),
    ) -> Result<(), BulkError> {
        let Some(family) = self.index_family.clone() else {
            return Err(BulkError::Indexes(
                "put_indexed needs the family of the indexed table's rows: BulkLoad::index_family"
                    .into(),
            ));
        };
        let mut entries: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        let mut matched = false;
        for ix in &self.indexes {
            if let Some(keys) = (ix.entries)(key, record) {
                matched = true;
                entries.extend(keys?);
            }
        }
        if !matched {
            return Err(BulkError::Indexes(format!(
                "put_indexed: no index of this load (BulkLoad::index) is over the data key `{}` and \
                 this record type",
                K::LAYOUT.name()
            )));
        }
        put_data_row(self, key, record, &family)?;
        let ts = entry_value(u64::try_from(self.timestamp).unwrap_or(0));
        for (entry, covered) in entries {
            let value = [ts.as_slice(), &covered].concat();
            let cell: Cell = (family.clone(), QUALIFIER.to_vec(), value);
            self.put_raw_row(&entry, std::slice::from_ref(&cell))?;
        }
        Ok(())
    }
}

/// A record's data row, as the index store writes it: one value in
/// `family:v`, or a record of `Record::CELLS` as its own cells (none of
/// them `family:v`, where the store keeps one-value rows).
fn put_data_row<K: RowKey, R: Record>(
    load: &mut BulkLoad,
    key: &K,
    record: &R,
    family: &str,
) -> Result<(), BulkError> {
    fn is_value_cell(family: &str) -> impl Fn(&Cell) -> bool + '_ {
        move |(f, q, _): &Cell| f == family && q == QUALIFIER
    }
    let cells = if R::CELLS {
        let cells = record.to_cells();
        if cells.iter().any(is_value_cell(family)) {
            return Err(BulkError::Indexes(format!(
                "a record's cell {family}:v: the index store keeps its one-value rows there; \
                 name the record's cells otherwise"
            )));
        }
        cells
    } else {
        vec![(family.to_owned(), QUALIFIER.to_vec(), record.to_value())]
    };
    load.put_row(key, &cells)
}
