//! The lab on a real HBase (feature `hbase`): the same writes and scans
//! through `rowkey-hbase`, and the table's regions as HBase itself splits,
//! places and balances them, with each region's write requests from the
//! region servers' own metrics, so the report shows the lab's model and the
//! engine side by side.

use rowkey_core::error_chain as chain;
use rowkey_core::{KeyFilter, Scan};
use rowkey_hbase::testing::HBase;
use rowkey_hbase::{Cell, Client};

use crate::store::{EngineRegion, SkipRead, Store};
use crate::BoxError;

const FAMILY: &str = "e";

/// The event index in a row's cells.
fn event_index(key: &[u8], cells: &[Cell]) -> Result<u64, BoxError> {
    cells
        .first()
        .and_then(|c| <[u8; 8]>::try_from(c.2.as_slice()).ok())
        .map(u64::from_be_bytes)
        .ok_or_else(|| format!("row {key:?} has no 8-byte event index").into())
}

/// HBase through its Thrift2 gateway: one the store starts (standalone, its
/// region servers in one JVM, killed and reaped when the store is dropped)
/// or one already running.
pub struct HBaseStore {
    client: Client,
    /// The server this store started: it reports the regions' writes.
    server: Option<HBase>,
}

impl HBaseStore {
    /// Starts HBase with `servers` region servers whose regions split above
    /// `split_bytes` of store files (HBase's `ConstantSizeRegionSplitPolicy`,
    /// memstores flushed at a quarter of that, so regions split during the
    /// ingest) and whose balancer runs every two seconds.
    pub fn start(servers: usize, split_bytes: usize) -> Result<Self, BoxError> {
        let split = split_bytes.to_string();
        let flush = (split_bytes / 4).max(4_096).to_string();
        let server = HBase::start_configured(
            servers.max(1),
            &[
                // Regions and memstores far below HBase's sanity minimums.
                ("hbase.table.sanity.checks", "false"),
                (
                    "hbase.regionserver.region.split.policy",
                    "org.apache.hadoop.hbase.regionserver.ConstantSizeRegionSplitPolicy",
                ),
                ("hbase.hregion.max.filesize", &split),
                ("hbase.hregion.memstore.flush.size", &flush),
                ("hbase.balancer.period", "2000"),
            ],
        )
        .map_err(|e| format!("--store hbase: HBase did not start: {}", chain(&e)))?;
        let client = server.client()?;
        Ok(HBaseStore {
            client,
            server: Some(server),
        })
    }

    /// Uses the HBase at `addr`: a Thrift2 gateway's `host:port`, or
    /// `hbase://master:port[,...]` or `zk://quorum[/parent]` for HBase's
    /// own RPC with no gateway ([`Client::for_address`]); the report then
    /// has no engine figures (the lab reads region metrics only from an
    /// HBase it started).
    pub fn connect(addr: &str) -> Result<Self, BoxError> {
        Ok(HBaseStore {
            client: Client::for_address(addr)?.build()?,
            server: None,
        })
    }
}

impl Store for HBaseStore {
    fn name(&self) -> &'static str {
        "hbase"
    }

    fn create_table(&mut self, table: &str, splits: &[Vec<u8>]) -> Result<(), BoxError> {
        if self.client.table_exists(table)? {
            self.client.drop_table(table)?;
        }
        self.client.create_table(table, &[FAMILY], splits)?;
        Ok(())
    }

    fn write(&mut self, table: &str, rows: &[(&[u8], u64)]) -> Result<(), BoxError> {
        let rows = rows.iter().map(|(key, index)| {
            let cell: Cell = (FAMILY.into(), b"i".to_vec(), index.to_be_bytes().to_vec());
            (key.to_vec(), vec![cell])
        });
        self.client.write_raw_rows(table, rows)?;
        Ok(())
    }

    fn scan(
        &mut self,
        table: &str,
        scan: &Scan,
        row: &mut dyn FnMut(&[u8], u64) -> bool,
    ) -> Result<(), BoxError> {
        for item in self.client.scan(table, scan, None)? {
            let (key, cells) = item?;
            if !row(&key, event_index(&key, &cells)?) {
                break;
            }
        }
        Ok(())
    }

    /// On an HBase this store started, with rowkey's filter on the region
    /// servers (its jar is on their classpath): rows read and seeks are the
    /// filter's own counts there, rows the servers reached, not rows sent.
    /// On an HBase it connected to, HBase's own `FuzzyRowFilter` or
    /// `MultiRowRangeFilter` where one applies (rows read are the rows the
    /// servers send, which leaves out the one row per skipped run a server
    /// reads before it seeks), else every row of its ranges, sent and
    /// checked here. (The Bigtable store keeps the default: Bigtable's
    /// regex filter spares the network, not the server's reads.)
    fn skip_scan(
        &mut self,
        table: &str,
        filter: &KeyFilter,
        row: &mut dyn FnMut(&[u8], u64) -> bool,
    ) -> Result<SkipRead, BoxError> {
        let server = self.server.as_ref();
        let before = server.map(HBase::filter_reads).transpose()?;
        let client = self.client.clone().with_server_filter(server.is_some());
        let mut rows = client.filter(table, filter, None)?;
        for item in rows.by_ref() {
            let (key, cells) = item?;
            if !row(&key, event_index(&key, &cells)?) {
                break;
            }
        }
        let sent = rows.rows_read();
        // Closes the scanners, so that the servers' counts are final.
        drop(rows);
        Ok(match (server, before) {
            (Some(server), Some(before)) => {
                let done = server.filter_reads()? - before;
                SkipRead {
                    rows_read: done.rows as usize,
                    seeks: done.seeks as usize,
                }
            }
            _ => SkipRead {
                rows_read: sent,
                seeks: 0,
            },
        })
    }

    /// Each range with HBase's reversed scan, one after another.
    fn scan_reverse(
        &mut self,
        table: &str,
        scan: &Scan,
        row: &mut dyn FnMut(usize, &[u8], u64) -> bool,
    ) -> Result<(), BoxError> {
        for (i, r) in scan.ranges().enumerate() {
            let one = Scan::from_bounds(r.start(), r.stop());
            for item in self.client.scan_reversed(table, &one, None)? {
                let (key, cells) = item?;
                if !row(i, &key, event_index(&key, &cells)?) {
                    break;
                }
            }
        }
        Ok(())
    }

    fn engine_regions(&mut self, table: &str) -> Option<Result<Vec<EngineRegion>, BoxError>> {
        let server = self.server.as_ref()?;
        Some(
            server
                .region_writes(table)
                .map(|regions| {
                    regions
                        .into_iter()
                        .map(|r| EngineRegion {
                            start: r.start,
                            server: r.server,
                            writes: r.writes,
                        })
                        .collect()
                })
                .map_err(Into::into),
        )
    }

    fn drop_table(&mut self, table: &str) -> Result<(), BoxError> {
        self.client.drop_table(table)?;
        Ok(())
    }
}

/// Up to `rows` keys of `table` at `address` (a gateway's `host:port`, or
/// `hbase://`/`zk://` for the native client), spread over the ranges
/// between `layout`'s split points (its salt buckets), each range read
/// from its start: a sample of the table's own keys for
/// [`Draws::from_keys`](crate::draw::Draws::from_keys).
pub fn sample_keys(
    address: &str,
    table: &str,
    layout: &rowkey_core::DynLayout,
    rows: usize,
) -> Result<Vec<Vec<u8>>, BoxError> {
    let client = Client::for_address(address)
        .and_then(|b| b.build())
        .map_err(|e| format!("--sample-from {address}: {}", chain(&e)))?;
    let mut starts = vec![Vec::new()];
    starts.extend(layout.split_points());
    let ends: Vec<Vec<u8>> = starts.iter().skip(1).cloned().chain([Vec::new()]).collect();
    let each = rows.div_ceil(starts.len()).max(1);
    let mut keys = Vec::with_capacity(rows);
    for (start, end) in starts.iter().zip(&ends) {
        let scan = Scan::from_bounds(start, end);
        let read = client
            .scan(table, &scan, Some(each))
            .map_err(|e| format!("--sample-from {address} table {table}: {}", chain(&e)))?;
        for row in read {
            let (key, _) =
                row.map_err(|e| format!("--sample-from {address} table {table}: {}", chain(&e)))?;
            keys.push(key);
        }
    }
    Ok(keys)
}
