//! The blocking client: tables, writes, gets and region locations.

use std::fmt;
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use rowkey_core::hbase::to_string_binary;
use rowkey_core::{DecodeRowKey, KeyFilter, RowKey, Scan};
use thrift::protocol::{TBinaryInputProtocol, TBinaryOutputProtocol};
use thrift::transport::{TBufferedReadTransport, TBufferedWriteTransport, TIoChannel, TTcpChannel};

use crate::conn::{cell, Cell, Client, Error, RegionLocation, RejectedRow, MAX_ROW_LENGTH};
use crate::scan::{Rows, TypedRows};
use crate::thrift::{
    TColumnFamilyDescriptor, TColumnValue, TGet, THBaseServiceSyncClient, TPut,
    TTHBaseServiceSyncClient, TTableDescriptor, TTableName,
};

impl Client {
    /// Connects to a Thrift2 gateway (HBase's `hbase thrift2`, binary
    /// protocol, not framed: its defaults).
    pub fn connect(addr: impl ToSocketAddrs + fmt::Display) -> Result<Client, Error> {
        let connect_error = |source| Error::Connect {
            addr: addr.to_string(),
            source,
        };
        let stream = TcpStream::connect(&addr).map_err(connect_error)?;
        stream.set_nodelay(true).map_err(connect_error)?;
        // A gateway that stops answering fails the call instead of hanging.
        stream
            .set_read_timeout(Some(Duration::from_secs(120)))
            .map_err(connect_error)?;
        let (read, write) = TTcpChannel::with_stream(stream)
            .split()
            .map_err(|e| connect_error(std::io::Error::other(e.to_string())))?;
        let thrift = THBaseServiceSyncClient::new(
            TBinaryInputProtocol::new(TBufferedReadTransport::new(read), true),
            TBinaryOutputProtocol::new(TBufferedWriteTransport::new(write), true),
        );
        Ok(Client {
            thrift,
            scan_batch: 1_000,
            write_batch: 1_000,
        })
    }

    /// Rows fetched per call by each range of a scan (default 1,000): a
    /// scan holds at most `ranges × batch` rows in memory.
    ///
    /// # Panics
    /// If `rows` is 0.
    pub fn with_scan_batch(mut self, rows: usize) -> Client {
        assert!(rows > 0, "a scan batch holds at least one row");
        self.scan_batch = rows;
        self
    }

    /// Rows sent per `putMultiple` call by [`write_rows`](Self::write_rows)
    /// (default 1,000).
    ///
    /// # Panics
    /// If `rows` is 0.
    pub fn with_write_batch(mut self, rows: usize) -> Client {
        assert!(rows > 0, "a write batch holds at least one row");
        self.write_batch = rows;
        self
    }

    /// Creates `table` (`namespace:name` or `name`) with column `families`,
    /// pre-split at `split_points` (`T::split_points()`: one region per
    /// salt bucket; none for one region).
    pub fn create_table(
        &mut self,
        table: &str,
        families: &[&str],
        split_points: &[Vec<u8>],
    ) -> Result<(), Error> {
        let columns = families.iter().map(|f| family(f)).collect::<Vec<_>>();
        let desc = TTableDescriptor::new(table_name(table), columns, None, None);
        self.thrift
            .create_table(desc, split_points.to_vec())
            .map_err(|e| Error::call("createTable", table, None, e))
    }

    /// Disables and deletes `table`.
    pub fn drop_table(&mut self, table: &str) -> Result<(), Error> {
        let name = table_name(table);
        let enabled = self
            .thrift
            .is_table_enabled(name.clone())
            .map_err(|e| Error::call("isTableEnabled", table, None, e))?;
        if enabled {
            self.thrift
                .disable_table(name.clone())
                .map_err(|e| Error::call("disableTable", table, None, e))?;
        }
        self.thrift
            .delete_table(name)
            .map_err(|e| Error::call("deleteTable", table, None, e))
    }

    /// Whether `table` exists.
    pub fn table_exists(&mut self, table: &str) -> Result<bool, Error> {
        self.thrift
            .table_exists(table_name(table))
            .map_err(|e| Error::call("tableExists", table, None, e))
    }

    /// Writes rows keyed by typed keys: for each row, cells
    /// `(family, qualifier, value)` stamped with the server's time.
    ///
    /// Any number of rows, sent in `putMultiple` calls of
    /// [`with_write_batch`](Self::with_write_batch) rows, in order. A key
    /// that is empty or longer than [`MAX_ROW_LENGTH`] is not sent. When
    /// HBase refuses a batch (an unknown family, a row without cells), its
    /// rows are sent one by
    /// one, so that every row HBase accepts is written and the error is
    /// [`Error::Rejected`], naming each rejected row with its position in
    /// the input. A key that cannot be encoded is [`Error::Encode`] before
    /// anything is sent; a connection that fails is [`Error::Thrift`] at
    /// once.
    pub fn write_rows<K: RowKey>(
        &mut self,
        table: &str,
        rows: impl IntoIterator<Item = (K, Vec<Cell>)>,
    ) -> Result<(), Error> {
        let rows = rows
            .into_iter()
            .map(|(key, cells)| {
                let key = key.encode_to_vec().map_err(|source| Error::Encode {
                    table: table.to_string(),
                    source,
                })?;
                Ok((key, cells))
            })
            .collect::<Result<Vec<_>, Error>>()?;
        self.write_raw_rows(table, rows)
    }

    /// [`write_rows`](Self::write_rows) for keys already encoded: rows
    /// `(key bytes, cells)`.
    pub fn write_raw_rows(
        &mut self,
        table: &str,
        rows: impl IntoIterator<Item = (Vec<u8>, Vec<Cell>)>,
    ) -> Result<(), Error> {
        let name = table.as_bytes().to_vec();
        let mut rejected = Vec::new();
        // Keys HBase's client refuses before sending are not sent.
        let mut unsent = Vec::new();
        let mut rows = rows
            .into_iter()
            .enumerate()
            .filter(|(index, (key, _))| match key.len() {
                1..=MAX_ROW_LENGTH => true,
                len => {
                    unsent.push(RejectedRow {
                        index: *index,
                        key: to_string_binary(key),
                        message: format!(
                            "a row key of {len} bytes: HBase takes 1 to {MAX_ROW_LENGTH}"
                        ),
                    });
                    false
                }
            })
            .peekable();
        while rows.peek().is_some() {
            let batch: Vec<(usize, TPut)> = rows
                .by_ref()
                .take(self.write_batch)
                .map(|(i, (k, c))| (i, tput(k, c)))
                .collect();
            let puts = batch.iter().map(|(_, p)| p.clone()).collect();
            match self.thrift.put_multiple(name.clone(), puts) {
                Ok(()) => {}
                Err(e) => match Error::call("putMultiple", table, None, e) {
                    // Find the rows HBase refuses; write the others.
                    Error::Server { .. } => {
                        for (index, put) in batch {
                            let key = put.row.clone();
                            match self.thrift.put(name.clone(), put) {
                                Ok(()) => {}
                                Err(e) => match Error::call("put", table, Some(&key), e) {
                                    Error::Server { key, message, .. } => {
                                        rejected.push(RejectedRow {
                                            index,
                                            key: key.unwrap_or_default(),
                                            message,
                                        })
                                    }
                                    other => return Err(other),
                                },
                            }
                        }
                    }
                    other => return Err(other),
                },
            }
        }
        drop(rows);
        rejected.append(&mut unsent);
        rejected.sort_by_key(|r| r.index);
        if rejected.is_empty() {
            Ok(())
        } else {
            Err(Error::Rejected {
                table: table.to_string(),
                rejected,
            })
        }
    }

    /// The cells of the row at `key`, `None` when there is no such row.
    pub fn get<K: RowKey + ?Sized>(
        &mut self,
        table: &str,
        key: &K,
    ) -> Result<Option<Vec<Cell>>, Error> {
        let key = key.encode_to_vec().map_err(|source| Error::Encode {
            table: table.to_string(),
            source,
        })?;
        self.get_raw(table, &key)
    }

    /// [`get`](Self::get) by the key's bytes.
    pub fn get_raw(&mut self, table: &str, key: &[u8]) -> Result<Option<Vec<Cell>>, Error> {
        let get = tget(key);
        let result = self
            .thrift
            .get(table.as_bytes().to_vec(), get)
            .map_err(|e| Error::call("get", table, Some(key), e))?;
        Ok((result.row.is_some() || !result.column_values.is_empty())
            .then(|| result.column_values.into_iter().map(cell).collect()))
    }

    /// Reads every range of `scan` (one server-side scanner each, read in
    /// batches) and merges them lazily into key order: the order after the
    /// family prefix and salt, the order of an unsalted table.
    ///
    /// `limit` ends the scan after that many rows and is pushed to every
    /// range, so no range reads more than `limit` rows. Page with
    /// [`Scan::after`] from the last key of a page. Rows are
    /// `Result`s: a gateway or region server that fails mid-scan yields an
    /// error and ends the scan, never a short scan that looks complete.
    /// Scanners are closed when the iterator is dropped.
    pub fn scan(
        &mut self,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
    ) -> Result<Rows<'_>, Error> {
        Rows::open(self, table, scan, limit, false)
    }

    /// [`scan`](Self::scan) with every range read backwards (HBase's
    /// reversed scan), merged largest key first: on an oldest-first key, the
    /// newest rows first, and "the latest N" reads at most N rows per range.
    pub fn scan_reversed(
        &mut self,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
    ) -> Result<Rows<'_>, Error> {
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
        &mut self,
        table: &str,
        filter: &KeyFilter,
        limit: Option<usize>,
    ) -> Result<Rows<'_>, Error> {
        Rows::open_filter(self, table, filter, limit)
    }

    /// [`filter`](Self::filter) with the keys decoded into `K`.
    pub fn filter_typed<K: for<'a> DecodeRowKey<'a>>(
        &mut self,
        table: &str,
        filter: &KeyFilter,
        limit: Option<usize>,
    ) -> Result<TypedRows<'_, K>, Error> {
        Ok(TypedRows::new(self.filter(table, filter, limit)?))
    }

    /// [`scan`](Self::scan) with the keys decoded into `K`. A row whose key
    /// is not a `K` is an [`Error::ForeignRow`] item and the scan goes on.
    pub fn scan_typed<K: for<'a> DecodeRowKey<'a>>(
        &mut self,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
    ) -> Result<TypedRows<'_, K>, Error> {
        Ok(TypedRows::new(self.scan(table, scan, limit)?))
    }

    /// [`scan_reversed`](Self::scan_reversed) with the keys decoded into `K`.
    pub fn scan_typed_reversed<K: for<'a> DecodeRowKey<'a>>(
        &mut self,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
    ) -> Result<TypedRows<'_, K>, Error> {
        Ok(TypedRows::new(self.scan_reversed(table, scan, limit)?))
    }

    /// The table's regions in key order: each one's start and end key and
    /// its region server. A table created with `T::split_points()` has
    /// `split_points().len() + 1` regions; `T::explain` names the bucket or
    /// value each boundary falls on.
    pub fn region_locations(&mut self, table: &str) -> Result<Vec<RegionLocation>, Error> {
        let mut regions: Vec<RegionLocation> = self
            .thrift
            .get_all_region_locations(table.as_bytes().to_vec())
            .map_err(|e| Error::call("getAllRegionLocations", table, None, e))?
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
        regions.sort_by(|a, b| a.start.cmp(&b.start));
        Ok(regions)
    }
}

// The generated constructors take every optional field; these set none
// beyond what rowkey needs (not the generated `Default`s, which set them
// all).

/// A column family with HBase's defaults.
#[rustfmt::skip]
fn family(name: &str) -> TColumnFamilyDescriptor {
    TColumnFamilyDescriptor::new(
        name.as_bytes().to_vec(),
        None, None, None, None, None, None, None, None, None, None,
        None, None, None, None, None, None, None, None, None,
    )
}

/// A get of the whole row at `key`.
#[rustfmt::skip]
fn tget(key: &[u8]) -> TGet {
    TGet::new(
        key.to_vec(),
        None, None, None, None, None, None, None, None, None, None, None, None, None, None,
    )
}

/// `namespace:name` or `name` (the default namespace).
fn table_name(table: &str) -> TTableName {
    match table.split_once(':') {
        Some((ns, name)) => TTableName::new(ns.as_bytes().to_vec(), name.as_bytes().to_vec()),
        None => TTableName::new(None, table.as_bytes().to_vec()),
    }
}

fn tput(key: Vec<u8>, cells: Vec<Cell>) -> TPut {
    let values = cells
        .into_iter()
        .map(|(family, qualifier, value)| {
            TColumnValue::new(family.into_bytes(), qualifier, value, None, None, None)
        })
        .collect();
    TPut::new(key, values, None, None, None, None)
}
