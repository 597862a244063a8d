//! An indexed table's rows in a bulk load (feature `index`): each record's
//! data row and its entries in every index of the load, written as an
//! [`IndexStore`](crate::IndexStore) writes them, so that one load fills
//! the data rows and their indexes together.

use std::any::Any;

use rowkey_core::index::{covered_value, entry_keys, entry_value, Covering, Index, Record};
use rowkey_core::RowKey;

use super::{BulkError, BulkLoad, Entries, LoadIndex};
use crate::types::Cell;
use crate::types::INDEX_QUALIFIER as QUALIFIER;

/// What a record's entries in `I` cover, encoded.
type CoveredFn<I> = fn(&<I as Index>::Data, &<I as Index>::Record) -> Vec<u8>;

/// A record's entries in `I` with what each covers (`covered` of the
/// record, or nothing), the types erased: `None` when `data` and `record`
/// are not `I`'s.
fn entries_of<I: Index>(data: &dyn Any, record: &dyn Any, covered: Option<CoveredFn<I>>) -> Entries
where
    I::Data: 'static,
    I::Record: 'static,
{
    let data = data.downcast_ref::<I::Data>()?;
    let record = record.downcast_ref::<I::Record>()?;
    let covered = covered.map_or_else(Vec::new, |c| c(data, record));
    let keys = entry_keys::<I>(data, record);
    Some(keys.map(|keys| keys.into_iter().map(|k| (k, covered.clone())).collect()))
}

fn erased<I: Index>(data: &dyn Any, record: &dyn Any) -> Entries
where
    I::Data: 'static,
    I::Record: 'static,
{
    entries_of::<I>(data, record, None)
}

fn erased_covering<I: Covering>(data: &dyn Any, record: &dyn Any) -> Entries
where
    I::Data: 'static,
    I::Record: 'static,
{
    entries_of::<I>(data, record, Some(covered_value::<I>))
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

impl BulkLoad {
    /// Puts a data row by its key's bytes with the rows of its index
    /// `entries` (their keys, as [`ColumnIndex::entry`] makes them), each
    /// entry a `v` cell of the index family holding the load's timestamp,
    /// as `IndexedTable::put` writes it. An entry HBase cannot store (an
    /// empty or over-long key) refuses the whole row before anything of it
    /// is written; an error when entries are given and the load has no
    /// index family.
    pub fn put_raw_indexed(
        &mut self,
        key: &[u8],
        cells: &[Cell],
        entries: &[Vec<u8>],
    ) -> Result<(), BulkError> {
        if entries.is_empty() {
            return self.put_raw_row(key, cells);
        }
        let Some(family) = self.index_family.clone() else {
            return Err(BulkError::Indexes(
                "index entries need the family of the indexed table's rows: BulkLoad::index_family"
                    .into(),
            ));
        };
        if let Some(bad) = entries
            .iter()
            .find(|e| e.is_empty() || e.len() > crate::types::MAX_ROW_LENGTH)
        {
            return Err(BulkError::BadRow {
                key: rowkey_core::hbase::to_string_binary(bad),
                len: bad.len(),
            });
        }
        self.put_raw_row(key, cells)?;
        let ts = entry_value(u64::try_from(self.timestamp).unwrap_or(0));
        let cell: Cell = (family, QUALIFIER.to_vec(), ts.to_vec());
        for entry in entries {
            self.put_raw_row(entry, std::slice::from_ref(&cell))?;
        }
        Ok(())
    }
}

/// An index over rows read from columns (`rowkey bulkload --index`): its
/// key's layout, whose every field but the last is read from the column
/// of its name, and whose last field is the data row's key (a nested key:
/// opaque bytes of the data key's width, as `[log LogKey 9]` in
/// `ByCode::LAYOUT`'s text). The entry is the key a derived
/// `Index`'s entry encodes to, so an `IndexedTable` over the loaded table
/// verifies and queries it.
#[derive(Clone)]
pub struct ColumnIndex {
    layout: rowkey_core::DynLayout,
}

impl std::fmt::Debug for ColumnIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ColumnIndex")
            .field(&self.layout.layout().to_string())
            .finish()
    }
}

impl ColumnIndex {
    /// The index of key `index` over the data rows of key `data`, or what
    /// is wrong: a key family given, a key without a prefix (data and
    /// index rows share the table), prefixes that overlap, an index of one
    /// field, or a last field that is not the data key's width (the data
    /// key must be of fixed width).
    pub fn new(
        index: &rowkey_core::DynLayout,
        data: &rowkey_core::DynLayout,
    ) -> Result<ColumnIndex, BulkError> {
        let (ix, d) = (index.layout(), data.layout());
        let wrong = |what: String| {
            Err(BulkError::Indexes(format!(
                "index \"{}\": {what}",
                rowkey_core::hbase::to_string_binary(ix.prefix())
            )))
        };
        if !index.members().is_empty() || !data.members().is_empty() {
            return wrong("a key family's layout: give one member's".into());
        }
        if ix.prefix().is_empty() || d.prefix().is_empty() {
            return wrong(
                "the data key and the index each need a prefix of their own (they share the table)"
                    .into(),
            );
        }
        if ix.prefix().starts_with(d.prefix()) || d.prefix().starts_with(ix.prefix()) {
            return wrong(format!(
                "its prefix and the data key `{}`'s overlap: their rows would mix",
                d.name()
            ));
        }
        let Some(width) = d.fixed_len() else {
            return wrong(format!(
                "the data key `{}` is of variable width: an entry's last field is the data key, of fixed width",
                d.name()
            ));
        };
        let fields = ix.fields();
        match fields.split_last() {
            Some((last, rest)) if !rest.is_empty() => {
                if last.width() != rowkey_core::layout::FieldWidth::Fixed(width) || last.is_option()
                {
                    return wrong(format!(
                        "its last field `{}` must be the data key `{}`: {width} bytes ([{} {} {width}])",
                        last.name(),
                        d.name(),
                        last.name(),
                        d.name()
                    ));
                }
            }
            _ => return wrong("an index needs an indexed field and the data key".into()),
        }
        Ok(ColumnIndex {
            layout: index.clone(),
        })
    }

    /// The index key's layout.
    pub fn layout(&self) -> &rowkey_core::DynLayout {
        &self.layout
    }

    /// The columns the entry reads: every field but the last, by name.
    pub fn columns(&self) -> impl Iterator<Item = &'static str> + use<> {
        let fields = self.layout.layout().fields();
        fields[..fields.len() - 1].iter().map(|f| f.name())
    }

    /// The entry of a row whose columns' values are `values` (in the order
    /// of [`columns`](Self::columns)) and whose key is `data_key`.
    pub fn entry(
        &self,
        mut values: Vec<rowkey_core::Value>,
        data_key: &[u8],
    ) -> Result<Vec<u8>, rowkey_core::EncodeError> {
        values.push(rowkey_core::Value::Bytes(data_key.to_vec()));
        self.layout.encode(&values)
    }

    /// The entry of a row from its columns' texts (as `rowkey encode`
    /// reads a field's text), or the column and why not.
    pub fn entry_from_texts(
        &self,
        texts: &[&str],
        data_key: &[u8],
    ) -> Result<Vec<u8>, (String, String)> {
        let values = self
            .columns()
            .zip(texts)
            .map(|(f, t)| {
                self.layout
                    .value(f, t)
                    .map_err(|e| (f.to_string(), e.message().to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.entry(values, data_key).map_err(|e| {
            let column = e.field().map_or_else(String::new, str::to_string);
            (column, format!("index {}: {e}", self.name()))
        })
    }

    /// The index as messages name it: by its prefix (a layout read from
    /// text has no type name).
    pub fn name(&self) -> String {
        format!(
            "\"{}\"",
            rowkey_core::hbase::to_string_binary(self.layout.layout().prefix())
        )
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
