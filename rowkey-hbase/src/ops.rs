//! The client's calls besides writes: tables, gets, scans, regions.

use std::collections::BTreeMap;

use rowkey_core::{DecodeRowKey, KeyFilter, RowKey, Scan};

use crate::client::Client;
use crate::error::Error;
use crate::scan::{Rows, TypedRows};
use crate::thrift::{
    TColumnFamilyDescriptor, TGet, TResult, TTHBaseServiceSyncClient, TTableDescriptor,
};
use crate::types::{cell, stamped_cells, table_name, Cell, RegionLocation, TableOptions};

impl Client {
    /// Creates `table` (`namespace:name` or `name`) with column `families`,
    /// pre-split at `split_points` (`T::split_points()`: one region per
    /// salt bucket; none for one region). Not retried: a create that
    /// reached HBase before its connection failed would fail again as
    /// "exists".
    ///
    /// On a [`Transport::Framed`](crate::Transport::Framed) gateway, a
    /// table with split points is refused here ([`Error::Config`]): HBase's
    /// gateway (2.6) reads split keys with `ByteBuffer.array()`
    /// (`ThriftUtilities.splitKeyFromThrift`), which on a framed transport
    /// is the whole request's frame, so HBase would fail with "Internal
    /// error processing createTable". Create such tables through an
    /// unframed or HTTP gateway, or the HBase shell
    /// ([`rowkey_core::hbase`] writes its `create` statement).
    pub fn create_table(
        &self,
        table: &str,
        families: &[&str],
        split_points: &[Vec<u8>],
    ) -> Result<(), Error> {
        self.create_table_with(table, families, split_points, TableOptions::default())
    }

    /// [`create_table`](Self::create_table) with settings of every family.
    pub fn create_table_with(
        &self,
        table: &str,
        families: &[&str],
        split_points: &[Vec<u8>],
        options: TableOptions,
    ) -> Result<(), Error> {
        #[cfg(feature = "native")]
        if let Some(n) = self.native_backend() {
            let families: Vec<&str> = families.to_vec();
            return n.block_on(n.client().create_table_with(
                table,
                &families,
                split_points,
                &options,
            ));
        }
        let columns = families
            .iter()
            .map(|f| family(f, &options))
            .collect::<Vec<_>>();
        self.create_columns(table, columns, split_points)
    }

    /// Creates `table` of `columns` through the gateway.
    fn create_columns(
        &self,
        table: &str,
        columns: Vec<TColumnFamilyDescriptor>,
        split_points: &[Vec<u8>],
    ) -> Result<(), Error> {
        if self.transport() == crate::Transport::Framed && !split_points.is_empty() {
            return Err(Error::Config(format!(
                "cannot create {table} with split points through a framed gateway: HBase's \
                 gateway reads them from the request's frame whole (ThriftUtilities.splitKeyFromThrift); \
                 use an unframed or HTTP gateway, or the HBase shell"
            )));
        }
        let desc = TTableDescriptor::new(table_name(table), columns, None, None);
        self.call("createTable", table, None, false, |t| {
            t.create_table(desc.clone(), split_points.to_vec())
        })
    }

    /// Creates `table` with the column families of the table `like`, each
    /// with its settings (versions, time to live, compression, encodings,
    /// bloom filters, its configuration), then set as `options` says,
    /// pre-split at `split_points`: a table to copy `like` into.
    pub fn create_table_like(
        &self,
        table: &str,
        like: &str,
        split_points: &[Vec<u8>],
        options: TableOptions,
    ) -> Result<(), Error> {
        #[cfg(feature = "native")]
        if let Some(n) = self.native_backend() {
            return n.block_on(
                n.client()
                    .create_table_like(table, like, split_points, &options),
            );
        }
        let old = self.call("getTableDescriptor", like, None, true, |t| {
            t.get_table_descriptor(table_name(like))
        })?;
        let columns = old
            .columns
            .into_iter()
            .flatten()
            .map(|mut f| {
                let set = family("", &options);
                if let Some(values) = set.attributes {
                    f.attributes
                        .get_or_insert_with(BTreeMap::new)
                        .extend(values);
                }
                if let Some(conf) = set.configuration {
                    f.configuration
                        .get_or_insert_with(BTreeMap::new)
                        .extend(conf);
                }
                f.max_versions = set.max_versions.or(f.max_versions);
                f
            })
            .collect::<Vec<_>>();
        self.create_columns(table, columns, split_points)
    }

    /// Disables and deletes `table`.
    pub fn drop_table(&self, table: &str) -> Result<(), Error> {
        #[cfg(feature = "native")]
        if let Some(n) = self.native_backend() {
            return n.block_on(n.client().drop_table(table));
        }
        let name = table_name(table);
        let enabled = self.call("isTableEnabled", table, None, true, |t| {
            t.is_table_enabled(name.clone())
        })?;
        if enabled {
            self.call("disableTable", table, None, false, |t| {
                t.disable_table(name.clone())
            })?;
        }
        self.call("deleteTable", table, None, false, |t| {
            t.delete_table(name.clone())
        })
    }

    /// Whether `table` exists.
    pub fn table_exists(&self, table: &str) -> Result<bool, Error> {
        #[cfg(feature = "native")]
        if let Some(n) = self.native_backend() {
            return n.block_on(n.client().table_exists(table));
        }
        self.call("tableExists", table, None, true, |t| {
            t.table_exists(table_name(table))
        })
    }

    /// The user HBase's servers see this client as, by the short name its
    /// access control uses: a Kerberos login's principal mapped by the
    /// cluster's `auth_to_local` rules, or a SIMPLE client's claimed name
    /// (`NativeClient::whoami`:
    /// the cluster's region servers load the `TokenProvider`
    /// coprocessor). A native client's call: a Thrift2 gateway does not
    /// say whom it calls HBase as, and a gateway client is refused with
    /// [`Error::Config`].
    pub fn whoami(&self) -> Result<String, Error> {
        #[cfg(feature = "native")]
        if let Some(n) = self.native_backend() {
            return n.block_on(n.client().whoami());
        }
        Err(Error::Config(
            "whoami is a native client's call: a Thrift2 gateway does not say whom it calls HBase as"
                .into(),
        ))
    }

    /// The names of `table`'s column families.
    pub fn families(&self, table: &str) -> Result<Vec<String>, Error> {
        #[cfg(feature = "native")]
        if let Some(n) = self.native_backend() {
            return n.block_on(n.client().families(table));
        }
        let desc = self.call("getTableDescriptor", table, None, true, |t| {
            t.get_table_descriptor(table_name(table))
        })?;
        Ok(desc
            .columns
            .into_iter()
            .flatten()
            .map(|c| String::from_utf8_lossy(&c.name).into_owned())
            .collect())
    }

    /// The cells of the row at `key`, `None` when there is no such row.
    pub fn get<K: RowKey + ?Sized>(
        &self,
        table: &str,
        key: &K,
    ) -> Result<Option<Vec<Cell>>, Error> {
        let key = encode(table, key)?;
        self.get_raw(table, &key)
    }

    /// [`get`](Self::get) by the key's bytes.
    pub fn get_raw(&self, table: &str, key: &[u8]) -> Result<Option<Vec<Cell>>, Error> {
        #[cfg(feature = "native")]
        if let Some(n) = self.native_backend() {
            let row = n.block_on(n.client().get(table, key))?;
            self.count_rows(usize::from(row.is_some()));
            return Ok(row);
        }
        let result = self.call("get", table, Some(key), true, |t| {
            t.get(table.as_bytes().to_vec(), tget(key))
        })?;
        let row = found(result);
        self.count_rows(usize::from(row.is_some()));
        Ok(row)
    }

    /// The cells of each row of `keys` in one call (HBase's multi-get),
    /// `None` where there is no such row: one answer per key, in order.
    pub fn get_many<K: RowKey>(
        &self,
        table: &str,
        keys: &[K],
    ) -> Result<Vec<Option<Vec<Cell>>>, Error> {
        self.get_many_raw(table, &encode_all(table, keys)?)
    }

    /// [`get_many`](Self::get_many) by the keys' bytes.
    pub fn get_many_raw(
        &self,
        table: &str,
        keys: &[impl AsRef<[u8]>],
    ) -> Result<Vec<Option<Vec<Cell>>>, Error> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        #[cfg(feature = "native")]
        if let Some(n) = self.native_backend() {
            let keys: Vec<&[u8]> = keys.iter().map(AsRef::as_ref).collect();
            let rows = n.block_on(n.client().get_many(table, &keys))?;
            self.count_rows(rows.iter().filter(|r| r.is_some()).count());
            return Ok(rows);
        }
        let gets: Vec<TGet> = keys.iter().map(|k| tget(k.as_ref())).collect();
        let results = self.call("getMultiple", table, None, true, |t| {
            t.get_multiple(table.as_bytes().to_vec(), gets.clone())
        })?;
        if results.len() != keys.len() {
            return Err(Error::Server {
                op: "getMultiple",
                table: table.to_string(),
                key: None,
                message: format!("{} answers to {} gets", results.len(), keys.len()),
                can_retry: false,
            });
        }
        let rows: Vec<Option<Vec<Cell>>> = results.into_iter().map(found).collect();
        self.count_rows(rows.iter().filter(|r| r.is_some()).count());
        Ok(rows)
    }

    /// Reads every range of `scan` (one server-side scanner each, read in
    /// batches) and merges them lazily into key order: the order after the
    /// family prefix and salt, the order of an unsalted table.
    ///
    /// `limit` ends the scan after that many rows and is pushed to every
    /// range, so no range reads more than `limit` rows. Page with
    /// [`Scan::after`] from the last key of a page. Rows are `Result`s: a
    /// range whose scanner is lost is resumed after its last row (see
    /// [`Rows`]); a failure that outlasts the retries yields an error and
    /// ends the scan, never a short scan that looks complete. Scanners are
    /// closed when the iterator is dropped.
    pub fn scan(&self, table: &str, scan: &Scan, limit: Option<usize>) -> Result<Rows, Error> {
        Rows::open(self, table, scan, limit, false)
    }

    /// Many small scans at once: one answer per scan of `scans`, in their
    /// order, each its rows in merged key order, at most `limit_each` (the
    /// newest reading of each of 500 devices in one call, instead of 500
    /// scans fanned out by hand). On a native client every range of every
    /// scan is read by its own scanner, 64 at a time, spread over the
    /// region servers that hold them; on a gateway client, 8 scans at a
    /// time, each through the pool.
    pub fn scan_many(
        &self,
        table: &str,
        scans: &[Scan],
        limit_each: Option<usize>,
    ) -> Result<Vec<Vec<crate::Row>>, Error> {
        #[cfg(feature = "native")]
        if let Some(n) = self.native_backend() {
            let rows = n.block_on(n.client().scan_many(table, scans, limit_each))?;
            self.count_rows(rows.iter().map(Vec::len).sum());
            return Ok(rows);
        }
        let next = std::sync::atomic::AtomicUsize::new(0);
        type Answer = std::sync::Mutex<Option<Result<Vec<crate::Row>, Error>>>;
        let answers: Vec<Answer> = scans.iter().map(|_| std::sync::Mutex::new(None)).collect();
        std::thread::scope(|s| {
            for _ in 0..scans.len().min(8) {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(scan) = scans.get(i) else { break };
                    let rows = self
                        .scan(table, scan, limit_each)
                        .and_then(|rows| rows.collect::<Result<Vec<_>, _>>());
                    *answers[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(rows);
                });
            }
        });
        answers
            .into_iter()
            .map(|a| {
                a.into_inner()
                    .unwrap_or_else(|e| e.into_inner())
                    .unwrap_or_else(|| Ok(Vec::new()))
            })
            .collect()
    }

    /// [`scan`](Self::scan) with the versions and time range `read` asks
    /// for (HBase's `Scan.readVersions` and `setTimeRange`), each cell a
    /// [`VersionedCell`](crate::VersionedCell) with its timestamp: what a
    /// copy of a table needs to keep its cells' times, or a look at a
    /// column's history. Read as [`scan`](Self::scan) reads (merged,
    /// resumed after a lost scanner, `limit` on rows).
    pub fn scan_versions(
        &self,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
        read: &crate::ReadOptions,
    ) -> Result<crate::scan::VersionedRows, Error> {
        Rows::open_versions(self, table, scan, limit, read).map(crate::scan::VersionedRows::new)
    }

    /// The row `key` of `table` with the versions and time range `read`
    /// asks for, each cell with its timestamp (newest first within a
    /// column); `None` when it has no cell there.
    pub fn get_versions<K: RowKey>(
        &self,
        table: &str,
        key: &K,
        read: &crate::ReadOptions,
    ) -> Result<Option<Vec<crate::VersionedCell>>, Error> {
        let key = encode_all(table, std::slice::from_ref(key))?;
        self.get_versions_raw(table, &key[0], read)
    }

    /// [`get_versions`](Self::get_versions) by the key's bytes.
    pub fn get_versions_raw(
        &self,
        table: &str,
        key: &[u8],
        read: &crate::ReadOptions,
    ) -> Result<Option<Vec<crate::VersionedCell>>, Error> {
        #[cfg(feature = "native")]
        if let Some(n) = self.native_backend() {
            let row = n.block_on(n.client().get_versions(table, key, read))?;
            self.count_rows(usize::from(row.is_some()));
            return Ok(row);
        }
        let mut get = tget(key);
        get.max_versions = Some(i32::try_from(read.max_versions()).unwrap_or(i32::MAX));
        get.time_range = read
            .range()
            .map(|r| crate::thrift::TTimeRange::new(r.start, r.end));
        let result = self.call("get", table, Some(key), true, |t| {
            t.get(table.as_bytes().to_vec(), get.clone())
        })?;
        let found = result.row.is_some() || !result.column_values.is_empty();
        let row = found.then(|| {
            let row = (Vec::new(), stamped_cells(result.column_values, true));
            crate::types::versioned(row).1
        });
        self.count_rows(usize::from(row.is_some()));
        Ok(row)
    }

    /// [`scan`](Self::scan) with every range read backwards (HBase's
    /// reversed scan), merged largest key first: on an oldest-first key, the
    /// newest rows first, and "the latest N" reads at most N rows per range.
    pub fn scan_reversed(
        &self,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
    ) -> Result<Rows, Error> {
        Rows::open(self, table, scan, limit, true)
    }

    /// The rows whose keys `filter` matches (`T::filter()...build()`), in
    /// merged key order: a skip scan. The filter's ranges are read, each
    /// with the filter HBase's region servers run themselves
    /// ([`filter_bytes`](crate::filter_bytes): a `FuzzyRowFilter` or a
    /// `MultiRowRangeFilter` in `TScan.filterBytes`), so the server seeks
    /// past the rows that cannot match; where neither applies every row of
    /// the ranges is sent and checked here, which
    /// [`Rows::pushdown`] says. Each salt bucket's scanner gets only the
    /// row ranges inside its bucket. Every row is checked here too (the
    /// servers' filters let through keys that are not of the layout), so
    /// `limit` counts matched rows and is not sent to the servers: a page
    /// is short only when no more rows match.
    pub fn filter(
        &self,
        table: &str,
        filter: &KeyFilter,
        limit: Option<usize>,
    ) -> Result<Rows, Error> {
        Rows::open_filter(self, table, filter, &filter.scan(), limit, false)
    }

    /// [`filter`](Self::filter) over the ranges of `scan` instead of the
    /// filter's own: the next page of a skip scan
    /// (`filter.scan().after(&last)`), or the part of it inside one range
    /// (`Scan::from_bounds`). Rows outside the filter's ranges can match
    /// too: the filter decides.
    pub fn filter_in(
        &self,
        table: &str,
        filter: &KeyFilter,
        scan: &Scan,
        limit: Option<usize>,
    ) -> Result<Rows, Error> {
        Rows::open_filter(self, table, filter, scan, limit, false)
    }

    /// [`filter_in`](Self::filter_in) reading keys, not values: HBase's
    /// `KeyOnlyFilter` runs beside the skip scan's filter (a `FilterList`
    /// both must pass), so the region servers send each cell with an empty
    /// value. The rows, the seeks and the count of rows read are
    /// `filter_in`'s; for a read that needs the keys and which cells a row
    /// has, not what they hold (SQL's projection of key columns, a count).
    pub fn filter_keys_in(
        &self,
        table: &str,
        filter: &KeyFilter,
        scan: &Scan,
        limit: Option<usize>,
    ) -> Result<Rows, Error> {
        Rows::open_filter(self, table, filter, scan, limit, true)
    }

    /// [`scan`](Self::scan) with a filter in HBase's own serialized form
    /// (a `FilterProtos.Filter`: the filter's class name and its
    /// `toByteArray`, as `TScan.filterBytes` carries it), sent as is with
    /// every range: for a filter rowkey does not build
    /// ([`filter_bytes`](crate::filter_bytes) and
    /// [`server_filter_bytes`](crate::server_filter_bytes) make rowkey's
    /// own), and to see what the servers do with one. No row is checked
    /// here, and `limit` is not sent to the servers.
    pub fn scan_with_filter_bytes(
        &self,
        table: &str,
        scan: &Scan,
        filter: &[u8],
        limit: Option<usize>,
    ) -> Result<Rows, Error> {
        let per_range = scan.ranges().map(|_| Some(filter.to_vec())).collect();
        Rows::open_raw_filter(self, table, scan, limit, per_range)
    }

    /// [`filter`](Self::filter) with the keys decoded into `K`.
    pub fn filter_typed<K: for<'a> DecodeRowKey<'a>>(
        &self,
        table: &str,
        filter: &KeyFilter,
        limit: Option<usize>,
    ) -> Result<TypedRows<K>, Error> {
        Ok(TypedRows::new(self.filter(table, filter, limit)?))
    }

    /// [`scan`](Self::scan) with the keys decoded into `K`. A row whose key
    /// is not a `K` is an [`Error::ForeignRow`] item and the scan goes on.
    pub fn scan_typed<K: for<'a> DecodeRowKey<'a>>(
        &self,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
    ) -> Result<TypedRows<K>, Error> {
        Ok(TypedRows::new(self.scan(table, scan, limit)?))
    }

    /// [`scan_reversed`](Self::scan_reversed) with the keys decoded into `K`.
    pub fn scan_typed_reversed<K: for<'a> DecodeRowKey<'a>>(
        &self,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
    ) -> Result<TypedRows<K>, Error> {
        Ok(TypedRows::new(self.scan_reversed(table, scan, limit)?))
    }

    /// Loads the HFiles under `dir` (`dir/FAMILY/FILE`, as
    /// [`BulkLoad`](crate::bulk::BulkLoad) writes them) into `table` through
    /// its region servers, HBase's own bulk-load protocol with no Java
    /// step (`PrepareBulkLoad`, one `BulkLoadHFile` per region,
    /// `CleanupBulkLoad`), on a native client
    /// (`Client::native`). A file that crosses a region
    /// boundary (the table split since the files were written) is split
    /// at the boundaries first (into `dir/FAMILY/_tmp/`), as HBase's
    /// `completebulkload` does; a region that moves or splits during the
    /// load gets its files again where it is now. The region servers must
    /// read the paths (a directory they share, or HDFS). HBase moves each
    /// file it loads into the table, so a second run after a failure loads
    /// what is left and nothing twice. A missing table, or a family
    /// directory the table has no family for, is an error before anything
    /// is loaded. A gateway client answers [`Error::Config`]: the gateway
    /// has no bulk-load call (HBase's `hbase completebulkload DIR TABLE`
    /// loads the files there).
    pub fn bulk_load(
        &self,
        dir: impl AsRef<std::path::Path>,
        table: &str,
    ) -> Result<crate::bulk::BulkLoadReport, Error> {
        #[cfg(feature = "native")]
        if let Some(n) = self.native_backend() {
            return n.block_on(n.client().bulk_load(dir.as_ref(), table));
        }
        let _ = (dir, table);
        Err(Error::Config(
            "bulk load through the region servers needs a native client (Client::native); \
             with a gateway, load the files with HBase's own `hbase completebulkload DIR TABLE`"
                .into(),
        ))
    }

    /// The table's regions in key order: each one's start and end key and
    /// its region server. A table created with `T::split_points()` has
    /// `split_points().len() + 1` regions; `T::explain` names the bucket or
    /// value each boundary falls on.
    pub fn region_locations(&self, table: &str) -> Result<Vec<RegionLocation>, Error> {
        #[cfg(feature = "native")]
        if let Some(n) = self.native_backend() {
            return n.block_on(n.client().region_locations(table));
        }
        let mut regions: Vec<RegionLocation> = self
            .call("getAllRegionLocations", table, None, true, |t| {
                t.get_all_region_locations(table.as_bytes().to_vec())
            })?
            .into_iter()
            .map(|l| RegionLocation {
                start: l.region_info.start_key.unwrap_or_default(),
                end: l.region_info.end_key.unwrap_or_default(),
                server: match l.server_name.port {
                    Some(port) => format!("{}:{port}", l.server_name.host_name),
                    None => l.server_name.host_name,
                },
            })
            .collect();
        // HBase lists no region for a table that does not exist.
        if regions.is_empty() && !self.table_exists(table)? {
            return Err(Error::TableNotFound {
                op: "getAllRegionLocations",
                table: table.to_string(),
            });
        }
        regions.sort_by(|a, b| a.start.cmp(&b.start));
        Ok(regions)
    }
}

/// A key's bytes, or [`Error::Encode`].
pub(crate) fn encode<K: RowKey + ?Sized>(table: &str, key: &K) -> Result<Vec<u8>, Error> {
    key.encode_to_vec().map_err(|cause| Error::Encode {
        table: table.to_string(),
        cause,
    })
}

/// Every key's bytes, or the first [`Error::Encode`].
pub(crate) fn encode_all<K: RowKey>(table: &str, keys: &[K]) -> Result<Vec<Vec<u8>>, Error> {
    keys.iter().map(|k| encode(table, k)).collect()
}

/// A get's cells, `None` for a row that does not exist.
fn found(result: TResult) -> Option<Vec<Cell>> {
    (result.row.is_some() || !result.column_values.is_empty())
        .then(|| result.column_values.into_iter().map(cell).collect())
}

// The generated constructors take every optional field; these set none
// beyond what rowkey needs (not the generated `Default`s, which set them
// all).

/// A column family with HBase's defaults.
#[rustfmt::skip]
fn family(name: &str, options: &TableOptions) -> TColumnFamilyDescriptor {
    // A family's values the gateway sets as they are
    // (`ColumnFamilyDescriptorBuilder.setValue`).
    let values: BTreeMap<Vec<u8>, Vec<u8>> = options
        .new_version_behavior
        .then(|| (b"NEW_VERSION_BEHAVIOR".to_vec(), b"true".to_vec()))
        .into_iter()
        .collect();
    let mut f = TColumnFamilyDescriptor::new(
        name.as_bytes().to_vec(),
        (!values.is_empty()).then_some(values), None, None, None, None, None, None, None, None,
        None, None, None, None, None, None, None, None, None, None,
    );
    f.max_versions = options
        .versions
        .map(|v| i32::try_from(v).unwrap_or(i32::MAX));
    f.configuration = options.keep_deletes.map(|d| {
        BTreeMap::from([(crate::types::PURGE_DELETES.to_string(), d.as_millis().to_string())])
    });
    f
}

/// A get of the whole row at `key`.
#[rustfmt::skip]
fn tget(key: &[u8]) -> TGet {
    TGet::new(
        key.to_vec(),
        None, None, None, None, None, None, None, None, None, None, None, None, None, None,
    )
}
