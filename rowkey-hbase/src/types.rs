//! The types of rows, cells and regions.

use std::fmt;

use rowkey_core::hbase::to_string_binary;

use crate::thrift::{TColumnValue, TTableName};

/// A cell to write or a cell read: `(family, qualifier, value)`, as in
/// `rowkey-bigtable`.
pub type Cell = (String, Vec<u8>, Vec<u8>);

/// A row read by an untyped scan: its key and its cells.
pub type Row = (Vec<u8>, Vec<Cell>);

/// One region of a table, as [`Client::region_locations`](crate::Client::region_locations) lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionLocation {
    /// The first key of the region (empty for the first region).
    pub start: Vec<u8>,
    /// The first key after the region (empty for the last region).
    pub end: Vec<u8>,
    /// The region server holding it, `host:port`.
    pub server: String,
}

impl fmt::Display for RegionLocation {
    /// `[start, end) on server`, keys in `toStringBinary` form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}, {}) on {}",
            to_string_binary(&self.start),
            to_string_binary(&self.end),
            self.server
        )
    }
}

/// HBase's limit on a row key's length (`HConstants.MAX_ROW_LENGTH`,
/// `Short.MAX_VALUE`).
pub const MAX_ROW_LENGTH: usize = 32_767;

pub(crate) fn cell(c: TColumnValue) -> Cell {
    (
        String::from_utf8_lossy(&c.family).into_owned(),
        c.qualifier,
        c.value,
    )
}

/// `namespace:name` or `name` (the default namespace).
pub(crate) fn table_name(table: &str) -> TTableName {
    match table.split_once(':') {
        Some((ns, name)) => TTableName::new(ns.as_bytes().to_vec(), name.as_bytes().to_vec()),
        None => TTableName::new(None, table.as_bytes().to_vec()),
    }
}
