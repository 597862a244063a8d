//! The engines of the conformance suite, behind one small trait: each
//! creates a table pre-split at the key type's split points, writes typed
//! rows, and runs a typed [`Scan`] (every range, salted buckets merged, a
//! row limit pushed down) returning decoded keys and their values.
//!
//! - [`Model`]: a `BTreeMap` read range by range and merged with
//!   [`Scan::merge`], the reference the others must equal;
//! - [`Redb`], [`Fjall`]: rowkey-core's typed tables on those stores;
//! - [`Bigtable`]: `rowkey-bigtable` on Google's emulator, started here.
//! - [`HBase`]: `rowkey-hbase` on a real HBase and its Thrift2 gateway,
//!   started here.

pub mod index;
pub mod pictures;

/// The guide's chapters whose code needs the engine crates and the lab,
/// compiled (and, where they need no server, run) as doctests; the other
/// chapters are `rowkey-core`'s.
#[cfg(doctest)]
pub mod guide {
    #[doc = include_str!("../../docs/src/lab.md")]
    pub struct Lab;
    #[doc = include_str!("../../docs/src/migrate.md")]
    pub struct Migrate;
    #[doc = include_str!("../../docs/src/indexes.md")]
    pub struct Indexes;
    /// Its Kerberos example needs rowkey-hbase's `kerberos` (this crate's
    /// feature of that name, on in the README's test command).
    #[cfg(feature = "kerberos")]
    #[doc = include_str!("../../docs/src/engines.md")]
    pub struct Engines;
}

use std::collections::BTreeMap;

use futures_util::StreamExt;
use rowkey_core::prelude::*;

/// A row's value in the suite: the index of the row in the generated set.
pub type Value = u32;

/// One engine: a place to write rows and run scans.
pub trait Engine {
    /// The engine's name, for failure messages.
    fn name(&self) -> &'static str;
    /// Creates `table`, pre-split at `K::split_points()`, and writes `rows`.
    fn write<K: RowKey>(&mut self, table: &str, rows: &[(K, Value)]);
    /// The rows of `scan` in `table`, at most `limit` of them: merged in
    /// key order (salt skipped), or with `reversed` in reverse key order
    /// (each range read from its end, buckets merged largest first);
    /// `None` for a reversed read on an engine without them.
    fn read<K: RowKey + for<'de> DecodeRowKey<'de>>(
        &mut self,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
        reversed: bool,
    ) -> Option<Vec<(K, Value)>>;

    /// [`read`](Self::read) forwards.
    fn scan<K: RowKey + for<'de> DecodeRowKey<'de>>(
        &mut self,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
    ) -> Vec<(K, Value)> {
        self.read(table, scan, limit, false)
            .expect("every engine reads forwards")
    }

    /// [`read`](Self::read) backwards, where the engine can.
    fn scan_reversed<K: RowKey + for<'de> DecodeRowKey<'de>>(
        &mut self,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
    ) -> Option<Vec<(K, Value)>> {
        self.read(table, scan, limit, true)
    }
}

fn encode<K: RowKey>(key: &K) -> Vec<u8> {
    key.encode_to_vec().expect("the suite's keys encode")
}

fn decode<K: for<'de> DecodeRowKey<'de>>(bytes: &[u8]) -> K {
    K::decode(bytes).expect("a row of the key type")
}

/// The reference: a sorted map per table, each range read from it and the
/// ranges merged by [`Scan::merge`].
#[derive(Default)]
pub struct Model {
    tables: BTreeMap<String, BTreeMap<Vec<u8>, Value>>,
}

impl Engine for Model {
    fn name(&self) -> &'static str {
        "BTreeMap"
    }

    fn write<K: RowKey>(&mut self, table: &str, rows: &[(K, Value)]) {
        let t = self.tables.entry(table.to_owned()).or_default();
        for (k, v) in rows {
            t.insert(encode(k), *v);
        }
    }

    fn read<K: RowKey + for<'de> DecodeRowKey<'de>>(
        &mut self,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
        reversed: bool,
    ) -> Option<Vec<(K, Value)>> {
        let t = &self.tables[table];
        let streams: Vec<_> = scan
            .ranges()
            .map(|r| {
                let rows = t.range::<[u8], _>(r.bounds()).map(|(k, v)| (k.clone(), *v));
                let rows: Vec<_> = if reversed {
                    rows.rev().collect()
                } else {
                    rows.collect()
                };
                rows.into_iter()
            })
            .collect();
        let merged = if reversed {
            scan.merge_reversed(streams)
        } else {
            scan.merge(streams)
        };
        Some(
            merged
                .take(limit.unwrap_or(usize::MAX))
                .map(|(k, v)| (decode(&k), v))
                .collect(),
        )
    }
}

/// rowkey-core's typed redb table, in memory.
pub struct Redb {
    db: redb::Database,
}

impl Redb {
    /// A new in-memory database.
    pub fn new() -> Redb {
        let db = redb::Database::builder()
            .create_with_backend(redb::backends::InMemoryBackend::new())
            .expect("an in-memory redb database");
        Redb { db }
    }
}

impl Default for Redb {
    fn default() -> Self {
        Redb::new()
    }
}

impl Engine for Redb {
    fn name(&self) -> &'static str {
        "redb"
    }

    fn write<K: RowKey>(&mut self, table: &str, rows: &[(K, Value)]) {
        let def = rowkey_core::redb::KeyTableDefinition::<K, Value>::new(leak(table));
        let tx = self.db.begin_write().unwrap();
        {
            let mut t = def.open(&tx).unwrap();
            for (k, v) in rows {
                t.insert(k, v).unwrap();
            }
        }
        tx.commit().unwrap();
    }

    fn read<K: RowKey + for<'de> DecodeRowKey<'de>>(
        &mut self,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
        reversed: bool,
    ) -> Option<Vec<(K, Value)>> {
        use redb::ReadableDatabase;
        let def = rowkey_core::redb::KeyTableDefinition::<K, Value>::new(leak(table));
        let tx = self.db.begin_read().unwrap();
        let t = def.open_read(&tx).unwrap();
        let rows = if reversed {
            t.scan_reversed(scan)
        } else {
            t.scan(scan)
        };
        Some(
            rows.unwrap()
                .take(limit.unwrap_or(usize::MAX))
                .map(|r| {
                    let (k, v) = r.unwrap();
                    (k, v.value())
                })
                .collect(),
        )
    }
}

/// A table name for redb's `&'static str` definitions (a few per test).
fn leak(name: &str) -> &'static str {
    Box::leak(name.to_owned().into_boxed_str())
}

/// rowkey-core's typed fjall table, one keyspace per table, on a temporary
/// directory.
pub struct Fjall {
    db: fjall::Database,
    _dir: tempfile::TempDir,
}

impl Fjall {
    /// A new database in a temporary directory.
    pub fn new() -> Fjall {
        let dir = tempfile::tempdir().unwrap();
        let db = fjall::Database::builder(dir.path()).open().unwrap();
        Fjall { db, _dir: dir }
    }

    fn table<K>(&self, table: &str) -> rowkey_core::fjall::KeyTable<K> {
        rowkey_core::fjall::KeyTable::new(
            self.db
                .keyspace(table, fjall::KeyspaceCreateOptions::default)
                .unwrap(),
        )
    }
}

impl Default for Fjall {
    fn default() -> Self {
        Fjall::new()
    }
}

impl Engine for Fjall {
    fn name(&self) -> &'static str {
        "fjall"
    }

    fn write<K: RowKey>(&mut self, table: &str, rows: &[(K, Value)]) {
        let t = self.table::<K>(table);
        for (k, v) in rows {
            t.insert(k, v.to_be_bytes()).unwrap();
        }
    }

    fn read<K: RowKey + for<'de> DecodeRowKey<'de>>(
        &mut self,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
        reversed: bool,
    ) -> Option<Vec<(K, Value)>> {
        let t = self.table::<K>(table);
        let rows = if reversed {
            t.scan_reversed(scan)
        } else {
            t.scan(scan)
        };
        Some(
            rows.take(limit.unwrap_or(usize::MAX))
                .map(|r| {
                    let (k, v) = r.unwrap();
                    (k, Value::from_be_bytes(v[..].try_into().unwrap()))
                })
                .collect(),
        )
    }
}

/// `rowkey-bigtable` on the Bigtable emulator, which it starts on a free
/// loopback port and stops (killed and reaped) when dropped.
pub struct Bigtable {
    runtime: tokio::runtime::Runtime,
    client: rowkey_bigtable::Client,
    admin: rowkey_bigtable::AdminClient,
    // Dropped last: the clients go first.
    _emulator: rowkey_bigtable::emulator::Emulator,
}

const PROJECT: &str = "conformance";
const INSTANCE: &str = "suite";

impl Bigtable {
    /// Starts the emulator; panics with the install instruction when it is
    /// missing.
    pub fn start() -> Bigtable {
        let emulator = rowkey_bigtable::emulator::Emulator::start()
            .expect("the Bigtable emulator starts (Debian: google-cloud-cli-bigtable-emulator)");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let client = runtime
            .block_on(async { emulator.client(PROJECT, INSTANCE) })
            .unwrap();
        let admin = runtime.block_on(emulator.admin()).unwrap();
        Bigtable {
            runtime,
            client,
            admin,
            _emulator: emulator,
        }
    }
}

impl Engine for Bigtable {
    fn name(&self) -> &'static str {
        "Bigtable emulator"
    }

    fn write<K: RowKey>(&mut self, table: &str, rows: &[(K, Value)]) {
        let instance = format!("projects/{PROJECT}/instances/{INSTANCE}");
        let cells = rows.iter().map(|(k, v)| {
            (
                encode(k),
                vec![("d".to_owned(), b"v".to_vec(), v.to_be_bytes().to_vec())],
            )
        });
        let cells: Vec<_> = cells.collect();
        self.runtime.block_on(async {
            let splits = rowkey_core::Layout::split_points(K::LAYOUT);
            rowkey_bigtable::create_table(&mut self.admin, &instance, table, &["d"], &splits)
                .await
                .unwrap();
            rowkey_bigtable::write_raw_rows(&self.client, table, cells)
                .await
                .unwrap();
        });
    }

    /// Forwards, or backwards with the `bigtable-features` header that
    /// announces reverse scans; a limited read checks that no range sent
    /// more rows than the limit.
    fn read<K: RowKey + for<'de> DecodeRowKey<'de>>(
        &mut self,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
        reversed: bool,
    ) -> Option<Vec<(K, Value)>> {
        Some(self.runtime.block_on(async {
            let n = limit.map(|n| n as u64);
            let mut rows = if reversed {
                rowkey_bigtable::stream_scan_reversed(&self.client, table, scan, n).await
            } else {
                rowkey_bigtable::stream_scan(&self.client, table, scan, n).await
            }
            .unwrap();
            let mut got = Vec::new();
            while let Some(row) = rows.next().await {
                let (key, cells) = row.unwrap();
                got.push((
                    decode::<K>(&key),
                    Value::from_be_bytes(cells[0].value[..].try_into().unwrap()),
                ));
            }
            if let Some(limit) = limit {
                assert!(
                    rows.rows_received() <= (limit * scan.range_count()) as u64,
                    "Bigtable: {} rows received for a limit of {limit} over {} ranges",
                    rows.rows_received(),
                    scan.range_count()
                );
            }
            got
        }))
    }
}

/// `rowkey-hbase` on a real HBase (standalone, with its Thrift2 gateway),
/// which it starts on free loopback ports and stops (killed and reaped)
/// when dropped. Every read also checks that no range read more rows than
/// the limit.
pub struct HBase {
    client: rowkey_hbase::Client,
    name: &'static str,
    /// Before each table's name: two engines on one server.
    prefix: &'static str,
    // Dropped last: the client goes first.
    server: std::sync::Arc<rowkey_hbase::testing::HBase>,
}

impl HBase {
    /// Starts HBase with two region servers; panics with the reason
    /// (Maven, Java, HBase's log) when it does not start.
    pub fn start() -> HBase {
        let server = rowkey_hbase::testing::HBase::start_with(2)
            .unwrap_or_else(|e| panic!("HBase starts: {e}"));
        // Small batches, so that merges refill ranges mid-scan.
        let client = server.client().unwrap().with_scan_batch(7);
        HBase {
            client,
            name: "HBase",
            prefix: "",
            server: std::sync::Arc::new(server),
        }
    }

    /// The same server through the native client (`Client::native`, no
    /// gateway), its tables named `native_*`.
    pub fn native(&self) -> HBase {
        let client = rowkey_hbase::Client::native(self.server.bootstrap())
            .build()
            .unwrap()
            .with_scan_batch(7);
        HBase {
            client,
            name: "HBase (native client)",
            prefix: "native_",
            server: std::sync::Arc::clone(&self.server),
        }
    }

    /// A kerberized HBase with two region servers whose RPC is
    /// encrypted (`hbase.rpc.protection=privacy`), reached by the native
    /// client logged in from a keytab with `Protection::Privacy`
    /// (feature `kerberos`). Points this process's Kerberos library at the
    /// test KDC (`KRB5_CONFIG`; Rust's own environment calls are locked
    /// against each other, and nothing else in the suite reads it).
    #[cfg(feature = "kerberos")]
    pub fn start_kerberized() -> HBase {
        use rowkey_hbase::{Kerberos, Protection};
        let server = rowkey_hbase::testing::HBase::builder()
            .region_servers(2)
            .gateway(false)
            .protection(Protection::Privacy)
            .start()
            .unwrap_or_else(|e| panic!("a kerberized HBase starts: {e}"));
        let kdc = server.kdc();
        std::env::set_var("KRB5_CONFIG", kdc.krb5_conf());
        let (principal, keytab) = kdc.principal("admin").unwrap();
        let client = rowkey_hbase::Client::native(server.bootstrap())
            .kerberos(Kerberos::keytab(principal, keytab).protection(Protection::Privacy))
            .build()
            .unwrap()
            .with_scan_batch(7);
        HBase {
            client,
            name: "HBase (native client, Kerberos privacy)",
            prefix: "",
            server: std::sync::Arc::new(server),
        }
    }

    /// The server, for its log.
    pub fn server(&self) -> &rowkey_hbase::testing::HBase {
        &self.server
    }
}

impl Engine for HBase {
    fn name(&self) -> &'static str {
        self.name
    }

    fn write<K: RowKey>(&mut self, table: &str, rows: &[(K, Value)]) {
        let table = &format!("{}{table}", self.prefix);
        let splits = rowkey_core::Layout::split_points(K::LAYOUT);
        self.client.create_table(table, &["d"], &splits).unwrap();
        let regions = self.client.region_locations(table).unwrap();
        assert_eq!(regions.len(), splits.len() + 1, "HBase: regions of {table}");
        let cells = rows.iter().map(|(k, v)| {
            (
                encode(k),
                vec![("d".to_owned(), b"v".to_vec(), v.to_be_bytes().to_vec())],
            )
        });
        self.client.write_raw_rows(table, cells).unwrap();
    }

    fn read<K: RowKey + for<'de> DecodeRowKey<'de>>(
        &mut self,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
        reversed: bool,
    ) -> Option<Vec<(K, Value)>> {
        let table = &format!("{}{table}", self.prefix);
        let mut rows = if reversed {
            self.client.scan_typed_reversed::<K>(table, scan, limit)
        } else {
            self.client.scan_typed::<K>(table, scan, limit)
        }
        .unwrap();
        let got: Vec<(K, Value)> = rows
            .by_ref()
            .map(|r| {
                let (k, cells) = r.unwrap();
                (k, Value::from_be_bytes(cells[0].2[..].try_into().unwrap()))
            })
            .collect();
        if let Some(limit) = limit {
            assert!(
                rows.rows_read() <= limit * scan.range_count(),
                "HBase: {} rows read for a limit of {limit} over {} ranges",
                rows.rows_read(),
                scan.range_count()
            );
        }
        Some(got)
    }
}
