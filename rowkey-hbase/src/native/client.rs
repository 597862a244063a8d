//! The native client's core: connections per server, region lookups
//! through `hbase:meta`, and gets and scans sent to the region servers
//! that hold the rows, retried where HBase says a region moved (writes
//! are in `write.rs`).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rowkey_core::clock::{deadline_after, CallCounters, CallCounts};
use tokio::time::Instant;

use super::conn::{CallError, Conn};
use super::convert::{
    busy_class, call_error, moved_class, moved_to, remote_error, scan_rows, specifier,
    stamped_result_cells,
};
use super::regions::{self, Region};
use super::retry::{Retries, Settings};
use crate::{Cell, Error, ReadOptions, RegionLocation, Row};
use rowkey_hbase_protocol::pb;

/// The region servers' service.
const CLIENT_SERVICE: &str = "ClientService";
/// The least pause after a server said it is overloaded (HBase's
/// `hbase.client.pause.server.overloaded` is 500 ms too).
pub(super) const OVERLOADED_PAUSE: Duration = Duration::from_millis(500);
/// HBase's registry on masters and region servers (since 2.3).
const REGISTRY_SERVICE: &str = "ClientMetaService";
/// Rows a scan asks a region server for per call.
const SCAN_BATCH: u32 = 1_000;

/// A client of HBase that talks to its masters and region servers
/// directly, with no Thrift gateway (feature `native`): HBase's own RPC
/// (protobuf calls and `KeyValueCodec` cellblocks) on one multiplexed
/// connection per server, regions found in `hbase:meta` through the
/// registry every master and region server serves (`ClientMetaService`,
/// HBase 2.3 and later) and cached per table. A call to a region that
/// moved is sent where the server's `RegionMovedException` says it went
/// (no `hbase:meta` lookup); a region that split or closed, or a second
/// refusal in a row, has its table looked up again; up to 8 attempts;
/// other refusals are errors at once.
///
/// This is the core under [`Client::native`](crate::Client::native):
/// gets, batched puts and deletes, [`NativeScanner`](crate::native::NativeScanner)s,
/// tables and region lists. It is async (tokio) and a cheap `Clone`.
#[derive(Clone)]
pub struct NativeClient {
    inner: Arc<Inner>,
}

struct Inner {
    /// The registry's servers (none for a `zk://` bootstrap).
    bootstrap: Vec<String>,
    /// A `zk://` bootstrap's quorum.
    #[cfg(feature = "zookeeper")]
    zk: Option<super::zk::ZooKeeper>,
    settings: Settings,
    /// Each server's connection for each service, opened once by the first
    /// call that needs it (the others wait for that one, and calls to
    /// other servers do not wait at all).
    conns: Mutex<HashMap<(String, &'static str), Slot>>,
    meta: tokio::sync::Mutex<Option<Region>>,
    /// Each table's regions, and how many lookups of `hbase:meta` put
    /// them there (a lookup that waited for another takes its answer).
    tables: Mutex<HashMap<String, Cached>>,
    /// One lookup of a table's regions at a time (single flight): the
    /// others wait for it and take its answer.
    lookups: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    meta_lookups: AtomicU64,
    /// Calls sent to any server, tries of an operation after one failed,
    /// operations past their budget, rows scanned.
    counters: CallCounters,
    /// Calls and failed calls per server.
    per_server: Mutex<BTreeMap<String, (u64, u64)>>,
}

impl Inner {
    fn new(bootstrap: Vec<String>, settings: Settings) -> Inner {
        Inner {
            bootstrap,
            #[cfg(feature = "zookeeper")]
            zk: None,
            settings,
            conns: Mutex::new(HashMap::new()),
            meta: tokio::sync::Mutex::new(None),
            tables: Mutex::new(HashMap::new()),
            lookups: Mutex::new(HashMap::new()),
            meta_lookups: AtomicU64::new(0),
            counters: CallCounters::default(),
            per_server: Mutex::new(BTreeMap::new()),
        }
    }
}

/// A table's regions and the lookup generation that found them.
type Cached = (u64, Arc<Vec<Region>>);

/// A connection being opened or open.
type Slot = Arc<tokio::sync::OnceCell<Arc<Conn>>>;

/// What a call on a region found, when it did not succeed.
pub(super) enum Refusal {
    /// The region is not where the cache says (moved, split, closing):
    /// send again where HBase says it went (`RegionMovedException` names
    /// the server), else where `hbase:meta` says it is now.
    Moved(Option<String>),
    /// The server is overloaded or throttling (its call queue full, the
    /// region over its memstore limit, a quota): send again after a
    /// longer pause, to the same place. The error, if tries run out.
    Busy(Error),
    /// Any other error, final.
    Fatal(Error),
}

impl NativeClient {
    /// A client of the cluster whose masters or region servers are
    /// `bootstrap` (`host:port[,host:port...]`; or, with feature
    /// `zookeeper`, `zk://host:port[,...][/znode-parent]`: the cluster's
    /// ZooKeeper quorum), with HBase's Java
    /// client's defaults: a 10 s connect timeout, a 60 s deadline per call,
    /// 16 tries of an operation within 20 minutes (`retry`), calling as
    /// the login user (`HADOOP_USER_NAME`, else `USER`). Nothing is sent
    /// until the first call.
    pub fn new(bootstrap: &str) -> Result<NativeClient, Error> {
        if bootstrap.starts_with("zk://") {
            #[cfg(feature = "zookeeper")]
            {
                let zk = super::zk::ZooKeeper::parse(bootstrap)?;
                let mut inner = Inner::new(Vec::new(), Settings::default());
                inner.zk = Some(zk);
                return Ok(NativeClient {
                    inner: Arc::new(inner),
                });
            }
            #[cfg(not(feature = "zookeeper"))]
            return Err(Error::Config(format!(
                "{bootstrap}: a zk:// bootstrap needs rowkey-hbase's feature `zookeeper`"
            )));
        }
        let bootstrap: Vec<String> = bootstrap
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        if bootstrap.is_empty() {
            return Err(Error::Config(
                "a native client needs at least one host:port of a master or region server".into(),
            ));
        }
        Ok(NativeClient {
            inner: Arc::new(Inner::new(bootstrap, Settings::default())),
        })
    }

    /// The same client with its settings changed by `f` (a fresh client:
    /// no connection or cache is shared with `self`).
    fn configured(self, f: impl FnOnce(&mut Settings)) -> NativeClient {
        let mut settings = self.inner.settings.clone();
        f(&mut settings);
        #[allow(unused_mut)]
        let mut inner = Inner::new(self.inner.bootstrap.clone(), settings);
        #[cfg(feature = "zookeeper")]
        {
            inner.zk = self.inner.zk.clone();
        }
        NativeClient {
            inner: Arc::new(inner),
        }
    }

    /// A `zk://` bootstrap's quorum.
    #[cfg(feature = "zookeeper")]
    pub(super) fn zookeeper(&self) -> Option<&super::zk::ZooKeeper> {
        self.inner.zk.as_ref()
    }

    /// The same client with each call's deadline `d`.
    #[must_use]
    pub fn with_request_timeout(self, d: Duration) -> NativeClient {
        self.configured(|s| s.request_timeout = d)
    }

    /// The same client with connections opened within `d`.
    #[must_use]
    pub fn with_connect_timeout(self, d: Duration) -> NativeClient {
        self.configured(|s| s.connect_timeout = d)
    }

    /// The same client with each operation (a get, a batch of writes, one
    /// batch of a scan, a region lookup) given `d` across all its tries,
    /// as HBase's `hbase.client.operation.timeout`: once it passes, the
    /// operation ends with [`Error::Timeout`].
    #[must_use]
    pub fn with_operation_timeout(self, d: Duration) -> NativeClient {
        self.configured(|s| s.operation_timeout = d)
    }

    /// The same client retrying as `policy` says: at most
    /// `policy.attempts` tries of an operation whose region moved, split
    /// or closed, or whose server went away, with the policy's pauses.
    #[must_use]
    pub fn with_retry(self, policy: crate::RetryPolicy) -> NativeClient {
        self.configured(|s| s.retry = policy)
    }

    /// The same client calling as `user` (SIMPLE authentication: the name
    /// HBase's access control sees).
    #[must_use]
    pub fn with_user(self, user: &str) -> NativeClient {
        let user = user.to_owned();
        self.configured(|s| s.user = user)
    }

    /// The same client speaking TLS to every master and region server
    /// (feature `tls`; HBase 2.6's `hbase.server.netty.tls.enabled`), or
    /// [`Error::Config`] naming what is wrong with `tls`'s PEM.
    #[cfg(feature = "tls")]
    pub fn with_tls(self, tls: &crate::Tls) -> Result<NativeClient, Error> {
        let connector = super::tls::Connector::new(tls).map_err(Error::Config)?;
        Ok(self.configured(|s| s.tls = Some(connector)))
    }

    /// The same client logging in to every master and region server with
    /// Kerberos (feature `kerberos`): SASL GSSAPI as HBase's RPC speaks
    /// it, with the protection `kerberos` asks for.
    #[cfg(feature = "kerberos")]
    #[must_use]
    pub fn with_kerberos(self, kerberos: crate::Kerberos) -> NativeClient {
        let login = crate::shared::kerberos::KerberosLogin::new(kerberos);
        self.configured(|s| s.kerberos = Some(login))
    }

    /// The user the client claims.
    pub(super) fn user(&self) -> &str {
        &self.inner.settings.user
    }

    /// The deadline of each call.
    pub(super) fn request_timeout(&self) -> Duration {
        self.inner.settings.request_timeout
    }

    /// The tries of an operation starting now.
    pub(super) fn tries(&self) -> Retries {
        Retries::new(&self.inner.settings)
    }

    /// Counts a try after a failed one.
    pub(super) fn count_retry(&self) {
        self.inner.counters.retry();
    }

    /// `f`, ended with [`Error::Timeout`] once the operation's budget
    /// passes.
    /// Inside a span `hbase_native` with the table, the operation, its
    /// elapsed time and its error, if any.
    pub(super) async fn within<T>(
        &self,
        op: &'static str,
        table: &str,
        f: impl std::future::Future<Output = Result<T, Error>>,
    ) -> Result<T, Error> {
        use tracing::Instrument as _;
        let span = tracing::debug_span!(
            "hbase_native",
            table,
            call = op,
            elapsed_us = tracing::field::Empty,
            error = tracing::field::Empty,
        );
        let started = Instant::now();
        let budget = self.inner.settings.operation_timeout;
        let result = tokio::time::timeout(budget, f)
            .instrument(span.clone())
            .await
            .unwrap_or_else(|_| {
                self.inner.counters.timeout();
                Err(Error::Timeout {
                    op,
                    table: table.into(),
                    deadline: budget,
                })
            });
        span.record("elapsed_us", started.elapsed().as_micros() as u64);
        if let Err(e) = &result {
            span.record("error", tracing::field::display(e));
        }
        result
    }

    /// Counts a call to `server` that failed.
    pub(super) fn count_failure(&self, server: &str) {
        let mut per = self
            .inner
            .per_server
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        per.entry(server.to_owned()).or_default().1 += 1;
    }

    /// Calls made to each master and region server, and how many failed
    /// (a connection that could not be opened or broke, a deadline that
    /// passed, a refusal, a region that had moved), by server.
    pub fn server_stats(&self) -> Vec<crate::types::ServerStats> {
        let per = self
            .inner
            .per_server
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        per.iter()
            .map(|(server, &(calls, failures))| crate::types::ServerStats {
                server: server.clone(),
                calls,
                failures,
            })
            .collect()
    }

    /// The bootstrap servers.
    pub(super) fn bootstrap(&self) -> &[String] {
        &self.inner.bootstrap
    }

    /// Records that region `name` of `table` is on `server` now (HBase
    /// said so with a `RegionMovedException`); false when the cache does
    /// not hold the region.
    pub(super) fn relocate(&self, table: &str, name: &[u8], server: String) -> bool {
        let mut tables = self.inner.tables.lock().unwrap_or_else(|e| e.into_inner());
        let Some((generation, regions)) = tables.get(table) else {
            return false;
        };
        let Some(i) = regions.iter().position(|r| r.name == name) else {
            return false;
        };
        let mut moved = regions.as_ref().clone();
        moved[i].server = server;
        let generation = *generation;
        tables.insert(table.to_owned(), (generation, Arc::new(moved)));
        true
    }

    /// Forgets `table`'s regions (it was dropped or created again).
    pub(super) fn forget_regions(&self, table: &str) {
        self.inner
            .tables
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(table);
    }

    /// Calls the client has sent to masters and region servers.
    pub fn calls(&self) -> u64 {
        self.counts().calls
    }

    /// Tries of operations made after a try failed (a region moved, split
    /// or closed, a server went away, a scanner was lost).
    pub fn retries(&self) -> u64 {
        self.counts().retries
    }

    /// What the client has counted: calls, retries, operations that
    /// passed their budget, and rows its scanners returned.
    pub fn counts(&self) -> CallCounts {
        self.inner.counters.counts()
    }

    /// Counts rows a scanner returned.
    pub(super) fn count_rows(&self, n: usize) {
        self.inner.counters.rows(n as u64);
    }

    /// How often the client has read a table's regions from `hbase:meta`.
    pub fn meta_lookups(&self) -> u64 {
        self.inner.meta_lookups.load(Ordering::Relaxed)
    }

    /// The regions of `table`, in key order, as `hbase:meta` has them now.
    pub async fn region_locations(&self, table: &str) -> Result<Vec<RegionLocation>, Error> {
        let regions = self
            .within("hbase:meta", table, self.regions(table, true))
            .await?;
        Ok(regions
            .iter()
            .map(|r| RegionLocation {
                start: r.start.clone(),
                end: r.end.clone(),
                server: r.server.clone(),
            })
            .collect())
    }

    /// The row `row` of `table`: its cells, `None` when it has none.
    pub async fn get(&self, table: &str, row: &[u8]) -> Result<Option<Vec<Cell>>, Error> {
        let cells = self.get_stamped(table, row, &ReadOptions::new()).await?;
        Ok(cells.map(|cells| cells.into_iter().map(|(c, _)| c).collect()))
    }

    /// The row `row` of `table` with the versions and time range `read`
    /// asks for, each cell with its timestamp; `None` when it has none.
    pub async fn get_versions(
        &self,
        table: &str,
        row: &[u8],
        read: &ReadOptions,
    ) -> Result<Option<Vec<crate::VersionedCell>>, Error> {
        let cells = self.get_stamped(table, row, read).await?;
        Ok(cells.map(|cells| {
            cells
                .into_iter()
                .map(
                    |((family, qualifier, value), timestamp)| crate::VersionedCell {
                        family,
                        qualifier,
                        timestamp,
                        value,
                    },
                )
                .collect()
        }))
    }

    async fn get_stamped(
        &self,
        table: &str,
        row: &[u8],
        read: &ReadOptions,
    ) -> Result<Option<Vec<(Cell, i64)>>, Error> {
        let (from, to) = read
            .range()
            .map_or((0, i64::MAX), |r| (r.start.max(0), r.end.max(0)));
        let get = pb::Get {
            row: row.to_vec(),
            time_range: Some(pb::TimeRange {
                from: Some(from as u64),
                to: Some(to as u64),
            }),
            max_versions: Some(read.max_versions()),
            cache_blocks: Some(true),
            ..Default::default()
        };
        self.on_region(table, row, "Get", |region| {
            let request = pb::GetRequest {
                region: specifier(&region.name),
                get: get.clone(),
            };
            async move {
                let (response, block): (pb::GetResponse, _) = self
                    .call(&region.server, "Get", &request, &[], table)
                    .await?;
                let Some(result) = response.result else {
                    return Ok(None);
                };
                let cells =
                    stamped_result_cells(&result, &block, table, "Get").map_err(Refusal::Fatal)?;
                Ok((!cells.is_empty())
                    .then(|| cells.into_iter().map(|(_, cell, ts)| (cell, ts)).collect()))
            }
        })
        .await
    }

    /// Reads `[from, stop)` of one region into `out`, at most `limit`
    /// rows: a scanner opened, read to its end and closed.
    async fn scan_region(
        &self,
        table: &str,
        region: &Region,
        from: &[u8],
        stop: &[u8],
        limit: Option<usize>,
        out: &mut Vec<Row>,
    ) -> Result<(), Refusal> {
        let mut request = pb::ScanRequest {
            region: Some(specifier(&region.name)),
            scan: Some(pb::Scan {
                start_row: Some(from.to_vec()),
                stop_row: Some(stop.to_vec()),
                max_versions: Some(1),
                cache_blocks: Some(true),
                caching: Some(SCAN_BATCH),
                ..Default::default()
            }),
            number_of_rows: Some(SCAN_BATCH),
            client_handles_partials: Some(false),
            client_handles_heartbeats: Some(true),
            limit_of_rows: limit.map(|l| u32::try_from(l).unwrap_or(u32::MAX)),
            ..Default::default()
        };
        let mut seq = 0u64;
        let mut taken = 0usize;
        loop {
            let (response, block): (pb::ScanResponse, _) = self
                .call(&region.server, "Scan", &request, &[], table)
                .await?;
            let rows = scan_rows(&response, &block, table).map_err(Refusal::Fatal)?;
            for row in rows {
                if limit.is_some_and(|l| taken >= l) {
                    break;
                }
                taken += 1;
                out.push(row);
            }
            let Some(id) = response.scanner_id.or(request.scanner_id) else {
                return Ok(());
            };
            let more = response.more_results.unwrap_or(true)
                && response.more_results_in_region.unwrap_or(true);
            if !more {
                return Ok(());
            }
            if limit.is_some_and(|l| taken >= l) {
                // Closed now, not when its lease expires.
                let close = pb::ScanRequest {
                    scanner_id: Some(id),
                    number_of_rows: Some(0),
                    close_scanner: Some(true),
                    ..Default::default()
                };
                let _: Result<(pb::ScanResponse, _), _> =
                    self.call(&region.server, "Scan", &close, &[], table).await;
                return Ok(());
            }
            request = pb::ScanRequest {
                scanner_id: Some(id),
                number_of_rows: Some(SCAN_BATCH),
                next_call_seq: Some(seq),
                client_handles_partials: Some(false),
                client_handles_heartbeats: Some(true),
                ..Default::default()
            };
            seq += 1;
        }
    }

    /// Runs `f` on the region of `table` holding `row`, looking the table
    /// up again while the region has moved, within the operation's budget.
    pub(super) async fn on_region<'a, T, F, Fut>(
        &'a self,
        table: &'a str,
        row: &[u8],
        op: &'static str,
        f: F,
    ) -> Result<T, Error>
    where
        F: Fn(Region) -> Fut,
        Fut: std::future::Future<Output = Result<T, Refusal>> + 'a,
    {
        self.within(op, table, self.on_region_tries(table, row, op, f))
            .await
    }

    /// [`on_region`](Self::on_region) with no budget of its own.
    async fn on_region_tries<'a, T, F, Fut>(
        &'a self,
        table: &'a str,
        row: &[u8],
        op: &'static str,
        f: F,
    ) -> Result<T, Error>
    where
        F: Fn(Region) -> Fut,
        Fut: std::future::Future<Output = Result<T, Refusal>> + 'a,
    {
        let mut refresh = false;
        let mut tries = self.tries();
        loop {
            let regions = self.regions(table, refresh).await?;
            let region =
                regions::find(&regions, row)
                    .cloned()
                    .ok_or_else(|| Error::Connection {
                        op,
                        table: table.into(),
                        server: String::new(),
                        cause: "hbase:meta lists no region for the row".into(),
                    })?;
            let name = region.name.clone();
            match f(region).await {
                Ok(v) => return Ok(v),
                // Where HBase says the region went: no meta lookup, taken
                // once (a server can name a region it no longer holds).
                Err(Refusal::Moved(Some(server)))
                    if tries.failed() == 0 && self.relocate(table, &name, server.clone()) =>
                {
                    refresh = false;
                    // Counted as a try, without a pause.
                    tries.skip();
                    self.count_retry();
                }
                Err(Refusal::Moved(_)) => {
                    refresh = true;
                    if let Err(spent) = tries.again().await {
                        return Err(spent.error(op, table, "the row's region kept moving"));
                    }
                    self.count_retry();
                }
                Err(Refusal::Busy(e)) => {
                    if tries.again_after(OVERLOADED_PAUSE).await.is_err() {
                        return Err(e);
                    }
                    self.count_retry();
                }
                Err(Refusal::Fatal(e)) => return Err(e),
            }
        }
    }

    /// The regions of `table`, from the cache unless `refresh`.
    pub(super) async fn regions(
        &self,
        table: &str,
        refresh: bool,
    ) -> Result<Arc<Vec<Region>>, Error> {
        let cached = self
            .inner
            .tables
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(table)
            .cloned();
        let seen = match cached {
            Some((_, regions)) if !refresh => return Ok(regions),
            Some((generation, _)) => generation,
            None => 0,
        };
        // Single flight: one lookup per table at a time; a caller that
        // waited for one takes what it found.
        let lookup = Arc::clone(
            self.inner
                .lookups
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .entry(table.to_owned())
                .or_default(),
        );
        let _flight = lookup.lock().await;
        let fresh = self
            .inner
            .tables
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(table)
            .filter(|(generation, _)| *generation > seen)
            .map(|(_, regions)| Arc::clone(regions));
        if let Some(regions) = fresh {
            return Ok(regions);
        }
        let mut tries = self.tries();
        loop {
            let last: String = match self.read_meta(table).await {
                Ok(regions) if regions.is_empty() => {
                    return Err(Error::TableNotFound {
                        op: "hbase:meta",
                        table: table.into(),
                    })
                }
                Ok(regions) if regions::whole(&regions) => {
                    let regions = Arc::new(regions);
                    self.inner
                        .tables
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(table.to_owned(), (seen + 1, Arc::clone(&regions)));
                    return Ok(regions);
                }
                // A region in transition, or a split half-recorded: again.
                Ok(_) => "the regions in hbase:meta do not cover the table".into(),
                Err(Refusal::Moved(_)) => {
                    *self.inner.meta.lock().await = None;
                    "hbase:meta moved".into()
                }
                Err(Refusal::Busy(e)) => e.to_string(),
                Err(Refusal::Fatal(Error::Connection { cause, .. }))
                    if cause.contains("not open") =>
                {
                    cause
                }
                Err(Refusal::Fatal(e)) => return Err(e),
            };
            if let Err(spent) = tries.again().await {
                return Err(spent.error("hbase:meta", table, &last));
            }
            self.count_retry();
        }
    }

    /// `table`'s regions as `hbase:meta` lists them, sorted.
    async fn read_meta(&self, table: &str) -> Result<Vec<Region>, Refusal> {
        self.inner.meta_lookups.fetch_add(1, Ordering::Relaxed);
        let meta = self.meta_region().await.map_err(Refusal::Fatal)?;
        let (start, stop) = regions::meta_bounds(table);
        let mut rows = Vec::new();
        self.scan_region("hbase:meta", &meta, &start, &stop, None, &mut rows)
            .await?;
        let mut out = Vec::with_capacity(rows.len());
        for (key, cells) in rows {
            let cells: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> = cells
                .into_iter()
                .map(|(f, q, v)| (f.into_bytes(), q, v))
                .collect();
            match regions::from_meta_row(table, &key, &cells) {
                Ok(Some(region)) => out.push(region),
                Ok(None) => {}
                Err(cause) => {
                    return Err(Refusal::Fatal(Error::Connection {
                        op: "hbase:meta",
                        table: table.into(),
                        server: meta.server.clone(),
                        cause,
                    }))
                }
            }
        }
        out.sort_by(|a, b| a.start.cmp(&b.start));
        Ok(out)
    }

    /// Where `hbase:meta` is, from the registry of a bootstrap server.
    pub(super) async fn meta_region(&self) -> Result<Region, Error> {
        let mut cached = self.inner.meta.lock().await;
        if let Some(meta) = &*cached {
            return Ok(meta.clone());
        }
        #[cfg(feature = "zookeeper")]
        if let Some(zk) = &self.inner.zk {
            let server = zk.meta_server(self.inner.settings.request_timeout).await?;
            let meta = Region {
                // hbase:meta's first (and only) region.
                name: b"hbase:meta,,1".to_vec(),
                start: Vec::new(),
                end: Vec::new(),
                server,
            };
            *cached = Some(meta.clone());
            return Ok(meta);
        }
        let mut last = None;
        for server in &self.inner.bootstrap {
            let answer: Result<(pb::GetMetaRegionLocationsResponse, _), CallError> =
                match self.conn(server, REGISTRY_SERVICE).await {
                    Ok(c) => {
                        c.call(
                            "GetMetaRegionLocations",
                            &pb::GetMetaRegionLocationsRequest {},
                            &[],
                            self.deadline(),
                        )
                        .await
                    }
                    Err(e) => Err(e),
                };
            match answer {
                Ok((response, _)) => {
                    let location = response
                        .meta_locations
                        .into_iter()
                        .find(|l| l.region_info.replica_id.unwrap_or(0) == 0);
                    if let Some(l) = location {
                        let server = l
                            .server_name
                            .as_ref()
                            .map(|s| format!("{}:{}", s.host_name, s.port.unwrap_or(16020)));
                        if let Some(server) = server {
                            let meta = Region {
                                name: regions::meta_region_name(&l.region_info),
                                start: Vec::new(),
                                end: Vec::new(),
                                server,
                            };
                            *cached = Some(meta.clone());
                            return Ok(meta);
                        }
                    }
                    last = Some(Error::Connection {
                        op: "GetMetaRegionLocations",
                        table: "hbase:meta".into(),
                        server: server.clone(),
                        cause: "the registry knows no location of hbase:meta".into(),
                    });
                }
                Err(e) => {
                    last = Some(call_error(
                        e,
                        "GetMetaRegionLocations",
                        "hbase:meta",
                        server,
                        self.inner.settings.request_timeout,
                    ))
                }
            }
        }
        Err(last.expect("at least one bootstrap server"))
    }

    /// A call to `server`'s `ClientService`: a refusal that says the
    /// region is elsewhere is [`Refusal::Moved`] (and the connection, if it
    /// failed, is dropped).
    pub(super) async fn call<R: prost::Message + Default>(
        &self,
        server: &str,
        method: &'static str,
        request: &impl prost::Message,
        cellblock: &[u8],
        table: &str,
    ) -> Result<(R, Vec<u8>), Refusal> {
        let answer = self
            .call_once(server, method, request, cellblock, table)
            .await;
        if answer.is_err() {
            self.count_failure(server);
        }
        answer
    }

    async fn call_once<R: prost::Message + Default>(
        &self,
        server: &str,
        method: &'static str,
        request: &impl prost::Message,
        cellblock: &[u8],
        table: &str,
    ) -> Result<(R, Vec<u8>), Refusal> {
        let conn = match self.conn(server, CLIENT_SERVICE).await {
            Ok(c) => c,
            // A server that is gone: its regions are elsewhere now.
            Err(CallError::Broken(_)) => return Err(Refusal::Moved(None)),
            Err(e) => {
                return Err(Refusal::Fatal(call_error(
                    e,
                    method,
                    table,
                    server,
                    self.inner.settings.request_timeout,
                )))
            }
        };
        match conn.call(method, request, cellblock, self.deadline()).await {
            Ok(answer) => Ok(answer),
            Err(CallError::Remote(e)) => {
                let class = e.exception_class_name.as_deref().unwrap_or_default();
                if moved_class(class) {
                    Err(Refusal::Moved(moved_to(class, e.stack_trace.as_deref())))
                } else if busy_class(class) {
                    Err(Refusal::Busy(remote_error(
                        method,
                        table,
                        None,
                        class,
                        e.stack_trace.as_deref().map(str::as_bytes),
                    )))
                } else {
                    Err(Refusal::Fatal(remote_error(
                        method,
                        table,
                        None,
                        class,
                        e.stack_trace.as_deref().map(str::as_bytes),
                    )))
                }
            }
            Err(CallError::Broken(_)) => Err(Refusal::Moved(None)),
            Err(e) => Err(Refusal::Fatal(call_error(
                e,
                method,
                table,
                server,
                self.inner.settings.request_timeout,
            ))),
        }
    }

    /// The connection to `server` for `service`, opened when there is
    /// none or the last one failed.
    pub(super) async fn conn(
        &self,
        server: &str,
        service: &'static str,
    ) -> Result<Arc<Conn>, CallError> {
        // Every call takes its connection here, once.
        self.inner.counters.call();
        self.inner
            .per_server
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(server.to_owned())
            .or_default()
            .0 += 1;
        let slot = {
            let mut conns = self.inner.conns.lock().unwrap_or_else(|e| e.into_inner());
            let slot = conns.entry((server.to_owned(), service)).or_default();
            if slot.get().is_some_and(|c| c.is_broken()) {
                *slot = Slot::default();
            }
            Arc::clone(slot)
        };
        // A failed open leaves the slot empty: the next call tries again.
        let conn = slot
            .get_or_try_init(|| async {
                Conn::open(
                    server,
                    service,
                    &self.inner.settings,
                    Instant::from_std(deadline_after(
                        self.inner
                            .settings
                            .connect_timeout
                            .min(self.inner.settings.request_timeout),
                    )),
                )
                .await
                .map(Arc::new)
            })
            .await?;
        Ok(Arc::clone(conn))
    }

    pub(super) fn deadline(&self) -> Instant {
        Instant::from_std(deadline_after(self.inner.settings.request_timeout))
    }
}
