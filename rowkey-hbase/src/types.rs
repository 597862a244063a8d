//! The types of rows, cells and regions.

use std::fmt;

use rowkey_core::hbase::to_string_binary;

use crate::thrift::{TColumnValue, TTableName};

/// A cell to write or a cell read: `(family, qualifier, value)`, as in
/// `rowkey-bigtable`.
pub type Cell = (String, Vec<u8>, Vec<u8>);

/// A row read by an untyped scan: its key and its cells.
pub type Row = (Vec<u8>, Vec<Cell>);

/// A cell read with its timestamp, as HBase keeps it:
/// [`Client::get_versions`](crate::Client::get_versions) and
/// [`Client::scan_versions`](crate::Client::scan_versions) return these,
/// one per version, newest first within a column.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VersionedCell {
    /// The column family.
    pub family: String,
    /// The qualifier.
    pub qualifier: Vec<u8>,
    /// The cell's timestamp (ms since the epoch, as written or stamped by
    /// the region server).
    pub timestamp: i64,
    /// The value.
    pub value: Vec<u8>,
}

/// A row read with its cells' timestamps: its key and its cells.
pub type VersionedRow = (Vec<u8>, Vec<VersionedCell>);

/// A row as scans carry it inside the client: the key, the cells, and
/// their timestamps when the scan asked for them (empty otherwise, so a
/// plain scan yields its rows without copying).
pub(crate) type Stamped = (Vec<u8>, (Vec<Cell>, Vec<i64>));

/// A stamped row as [`VersionedCell`]s (a timestamp of 0 where none came).
pub(crate) fn versioned((key, (cells, stamps)): Stamped) -> VersionedRow {
    let stamps = stamps.into_iter().chain(std::iter::repeat(0));
    let cells = cells
        .into_iter()
        .zip(stamps)
        .map(|((family, qualifier, value), timestamp)| VersionedCell {
            family,
            qualifier,
            timestamp,
            value,
        })
        .collect();
    (key, cells)
}

/// One column of a row to delete, or one version of it
/// ([`Client::delete_columns`](crate::Client::delete_columns)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnDelete {
    /// The column family.
    pub family: String,
    /// The qualifier.
    pub qualifier: Vec<u8>,
    /// `Some(ts)`: only the version stamped `ts` (HBase's
    /// `Delete.addColumn(f, q, ts)`); `None`: every version (HBase's
    /// `addColumns(f, q)`, up to the region server's time).
    pub version: Option<i64>,
}

impl ColumnDelete {
    /// Every version of `family:qualifier`.
    pub fn column(family: &str, qualifier: &[u8]) -> ColumnDelete {
        ColumnDelete {
            family: family.to_owned(),
            qualifier: qualifier.to_vec(),
            version: None,
        }
    }

    /// The version of `family:qualifier` stamped `timestamp`.
    pub fn version(family: &str, qualifier: &[u8], timestamp: i64) -> ColumnDelete {
        ColumnDelete {
            version: Some(timestamp),
            ..ColumnDelete::column(family, qualifier)
        }
    }
}

/// What a read returns of each column, as HBase's `Get` and `Scan` have
/// it: how many versions (default 1, the newest) and from which time
/// range (default all).
///
/// ```
/// use rowkey_hbase::ReadOptions;
///
/// // Every version written in 2024 (HBase keeps as many as the family's
/// // VERSIONS, 1 by default).
/// let read = ReadOptions::new()
///     .versions(u32::MAX)
///     .time_range(1_704_067_200_000..1_735_689_600_000);
/// assert_eq!(read.max_versions(), u32::MAX);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOptions {
    versions: u32,
    time_range: Option<std::ops::Range<i64>>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions::new()
    }
}

impl ReadOptions {
    /// The newest version of each column, of any time.
    pub fn new() -> ReadOptions {
        ReadOptions {
            versions: 1,
            time_range: None,
        }
    }

    /// At most `n` versions of each column, newest first (HBase's
    /// `readVersions`; 0 is taken as 1). A family keeps only as many
    /// versions as its `VERSIONS` setting.
    #[must_use]
    pub fn versions(mut self, n: u32) -> ReadOptions {
        self.versions = n.max(1);
        self
    }

    /// Only cells whose timestamps are in `range` (from included, to
    /// excluded: HBase's `setTimeRange`).
    #[must_use]
    pub fn time_range(mut self, range: std::ops::Range<i64>) -> ReadOptions {
        self.time_range = Some(range);
        self
    }

    /// The most versions of each column read.
    pub fn max_versions(&self) -> u32 {
        self.versions
    }

    /// The time range read, if any.
    pub fn range(&self) -> Option<&std::ops::Range<i64>> {
        self.time_range.as_ref()
    }
}

/// What a [`Client`](crate::Client) has asked of one server: [`Client::server_stats`](crate::Client::server_stats).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerStats {
    /// The server, `host:port` (a gateway client's gateway address).
    pub server: String,
    /// Calls sent to it.
    pub calls: u64,
    /// Calls that failed: a connection that could not be opened or broke,
    /// a deadline that passed, or (on a native client) a refusal, a region
    /// that had moved included.
    pub failures: u64,
}

/// Settings of every family of a table [`Client::create_table_with`](crate::Client::create_table_with)
/// creates, set by struct update from `TableOptions::default()`.
///
/// ```
/// use rowkey_hbase::TableOptions;
///
/// let options = TableOptions { new_version_behavior: true, ..TableOptions::default() };
/// # let _ = options;
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableOptions {
    /// HBase's `NEW_VERSION_BEHAVIOR` on each family: a delete masks only
    /// the cells written before it (by the server's order of operations,
    /// not by timestamp), so a put that follows a delete in the same
    /// millisecond is kept (HBASE-2256's remedy), and versions past
    /// `VERSIONS` are hidden at once rather than at the next major
    /// compaction. The setting to use with
    /// [`Timestamps::Server`](crate::Timestamps::Server) when a row is
    /// deleted and written again quickly.
    pub new_version_behavior: bool,
    /// HBase's `VERSIONS` on each family: how many versions of a cell it
    /// keeps (`None`: HBase's default, 1), read back with
    /// [`ReadOptions::versions`](crate::ReadOptions::versions).
    pub versions: Option<u32>,
    /// HBase's `hbase.hstore.time.to.purge.deletes` on each family: how
    /// long after its timestamp a delete marker survives major compactions
    /// (`None`: HBase's default, 0: the first major compaction drops it).
    /// A marker kept masks the older cells that arrive after it, written
    /// with their own timestamps: what a table being copied into while it
    /// is written needs (`rowkey_hbase::migrate`, feature `migrate`).
    pub keep_deletes: Option<std::time::Duration>,
}

/// The family setting behind [`TableOptions::keep_deletes`].
pub(crate) const PURGE_DELETES: &str = "hbase.hstore.time.to.purge.deletes";

/// What [`Client::bulk_load`](crate::Client::bulk_load) loaded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BulkLoadReport {
    /// Files the region servers took (a split file counts as its pieces).
    pub files: usize,
    /// Files that crossed a region boundary and were split first.
    pub split: usize,
    /// `BulkLoadHFile` calls that loaded files (one per region, more when
    /// a region moved or split during the load).
    pub regions: usize,
}

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

/// The qualifier of the one cell each row of an `IndexStore` holds (a
/// record's value, or an index entry's), as a bulk load writes it too.
#[cfg(feature = "index")]
pub(crate) const INDEX_QUALIFIER: &[u8] = b"v";

/// HBase's limit on a row key's length (`HConstants.MAX_ROW_LENGTH`,
/// `Short.MAX_VALUE`).
pub const MAX_ROW_LENGTH: usize = 32_767;

/// A gateway's cells with their timestamps (`stamps`: kept, else left
/// empty).
pub(crate) fn stamped_cells(values: Vec<TColumnValue>, stamps: bool) -> (Vec<Cell>, Vec<i64>) {
    let times = if stamps {
        values.iter().map(|c| c.timestamp.unwrap_or(0)).collect()
    } else {
        Vec::new()
    };
    (values.into_iter().map(cell).collect(), times)
}

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
