//! The shared client: its settings, its pool, and the one path every call
//! takes (a connection from the pool, the call's deadline, the retries
//! that are safe, a span, the counters).

use std::collections::HashSet;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rowkey_core::clock::{deadline_after, CallCounters, Tries};

use crate::error::Error;
use crate::gateway::pool::{Checkout, Lease, Pool};
use crate::gateway::transport::{Endpoint, Thrift};
use crate::settings::{Protocol, Tls, Transport};
use crate::shared::stamp::{Clock, Timestamps};
use crate::thrift::TTHBaseServiceSyncClient as _;
use crate::types::ServerStats;
use crate::RetryPolicy;

/// A client of HBase's Thrift2 gateway that a service shares: a cheap
/// [`Clone`] (`Send + Sync`) over a pool of gateway connections, every
/// method `&self`. A scan ([`Rows`](crate::Rows)) holds a clone, not a
/// borrow.
///
/// Every call has a deadline ([`ClientBuilder::request_timeout`]), each
/// scanner batch included; a connection that timed out or failed is
/// discarded and a new one opened when next needed. Reads (gets, scans,
/// table lookups) are retried on a fresh connection when the failure is
/// retryable ([`Error::is_retryable`]); a scan cut mid-way resumes after
/// the last row it returned. Writes are retried too: with
/// [`Timestamps::Server`] (the default, as HBase's Java client) a put sent
/// twice adds a version holding the same values, with
/// [`Timestamps::Client`] it writes the same cells again. Table creation
/// and deletion are not retried.
#[derive(Clone)]
pub struct Client {
    shared: Arc<Shared>,
    pub(crate) scan_batch: usize,
    pub(crate) write_batch: usize,
    pub(crate) server_filter: bool,
}

struct Shared {
    /// The gateway's connections (none for a native client).
    pool: Option<Arc<Pool>>,
    /// The native client under this one (`Client::native`).
    #[cfg(feature = "native")]
    native: Option<crate::native::NativeBackend>,
    transport: Transport,
    request_timeout: Duration,
    connect_timeout: Duration,
    retry: RetryPolicy,
    counters: Counters,
    /// Tables whose servers a scan found without rowkey's filter: their
    /// skip scans use HBase's own filters from then on.
    no_server_filter: Mutex<HashSet<String>>,
    /// Who stamps writes, and the client's clock when it does.
    timestamps: Timestamps,
    clock: Clock,
}

#[derive(Default)]
pub(crate) struct Counters {
    /// Calls, retries, timeouts and rows read, counted as every client
    /// counts them.
    calls: CallCounters,
    reconnects: AtomicU64,
    connections: AtomicU64,
}

/// What a [`Client`] (and every clone of it) has done so far, for a
/// service to export: [`Client::stats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Calls made (each Thrift2 call once, however often it was retried;
    /// each scanner batch is a call; on a native client each RPC to a
    /// master or region server).
    pub calls: u64,
    /// Retries, and resumptions of scans.
    pub retries: u64,
    /// Calls that passed their deadline (on a native client, operations
    /// that passed their budget).
    pub timeouts: u64,
    /// Connections discarded after a failure or a timeout (each replaced
    /// by a new one when next needed).
    pub reconnects: u64,
    /// Connections opened in all.
    pub connections: u64,
    /// Rows fetched by scans and gets (from the gateway, or from the
    /// region servers).
    pub rows_read: u64,
    /// Connections open now.
    pub open: usize,
}

/// Settings of a [`Client`]: [`Client::builder`].
///
/// ```no_run
/// use std::time::Duration;
/// use rowkey_hbase::{Client, Protocol, RetryPolicy, Transport};
///
/// let hbase = Client::builder("127.0.0.1:9090")
///     .pool_size(16)
///     .connect_timeout(Duration::from_secs(2))
///     .request_timeout(Duration::from_secs(10))
///     .retry(RetryPolicy { attempts: 3, ..RetryPolicy::default() })
///     .transport(Transport::Framed)
///     .protocol(Protocol::Compact)
///     .build()?;
/// # Ok::<(), rowkey_hbase::Error>(())
/// ```
#[derive(Clone, Debug)]
#[must_use]
pub struct ClientBuilder {
    addr: String,
    pool_size: usize,
    connect_timeout: Duration,
    request_timeout: Duration,
    retry: RetryPolicy,
    transport: Transport,
    protocol: Protocol,
    tls: Option<Tls>,
    scan_batch: usize,
    write_batch: usize,
    server_filter: bool,
    timestamps: Timestamps,
    /// How long a gateway connection may wait in the pool.
    idle_timeout: Duration,
    /// A native client's budget per operation.
    operation_timeout: Duration,
    /// A native client's SIMPLE-auth user (`None`: the login user).
    user: Option<String>,
    /// `addr` is a native client's bootstrap servers.
    #[cfg(feature = "native")]
    native: bool,
    /// A native client's Kerberos login.
    #[cfg(feature = "kerberos")]
    kerberos: Option<crate::Kerberos>,
}

impl ClientBuilder {
    /// Who stamps the cells this client writes and the deletes it sends
    /// (default [`Timestamps::Server`], as HBase's Java client); see
    /// [`Timestamps`] for what each means across retries and hosts.
    /// [`WriteOptions::timestamp`](crate::WriteOptions::timestamp)
    /// overrides it for one call.
    pub fn timestamps(mut self, timestamps: Timestamps) -> Self {
        self.timestamps = timestamps;
        self
    }

    /// The most connections open at once (default 8); a call waits, until
    /// its deadline, for one to be free.
    ///
    /// # Panics
    /// If `n` is 0.
    pub fn pool_size(mut self, n: usize) -> Self {
        assert!(n > 0, "a pool holds at least one connection");
        self.pool_size = n;
        self
    }

    /// How long a gateway connection may sit idle in the pool and still be
    /// lent (default 30 s): one idle longer is closed and a new one opened.
    /// HBase's Thrift2 gateway closes a connection idle for
    /// `hbase.thrift.server.socket.read.timeout` (60 s by default), and a
    /// call that is not retried (creating a table) would fail on it: keep
    /// this below that setting.
    pub fn idle_timeout(mut self, d: Duration) -> Self {
        self.idle_timeout = d;
        self
    }

    /// How long opening a connection may take (default 10 s, HBase's
    /// `hbase.ipc.client.socket.timeout.connect`), within the call's
    /// deadline.
    pub fn connect_timeout(mut self, d: Duration) -> Self {
        self.connect_timeout = d;
        self
    }

    /// The deadline of each call, its retries included (default 60 s,
    /// HBase's `hbase.rpc.timeout`); each batch of a scan is a call.
    pub fn request_timeout(mut self, d: Duration) -> Self {
        self.request_timeout = d;
        self
    }

    /// How calls are retried (default [`RetryPolicy::default`]; on a
    /// native client, HBase's Java client's 16 tries with pauses from
    /// 100 ms up to 10 s). A native client tries an operation again when
    /// its region moved, split or closed, its server went away or its
    /// scanner was lost, never after a refusal HBase means (a missing
    /// table, a bad argument).
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// A native client's budget for one operation across all its tries
    /// (default 20 minutes, HBase's `hbase.client.operation.timeout`): a
    /// get, a batch of writes, one batch of a scan or a region lookup that
    /// has not ended by then ends with [`Error::Timeout`], however many
    /// tries the [`retry`](Self::retry) policy has left. Each call within
    /// it still has its [`request_timeout`](Self::request_timeout). A
    /// gateway's own Java client retries within the gateway, so a gateway
    /// client does not use it.
    pub fn operation_timeout(mut self, d: Duration) -> Self {
        self.operation_timeout = d;
        self
    }

    /// The user a native client claims (HBase's SIMPLE authentication,
    /// what its access control sees; default the login user:
    /// `HADOOP_USER_NAME`, else `USER`). A gateway calls as its own user,
    /// so a gateway client does not use it.
    pub fn user(mut self, name: impl Into<String>) -> Self {
        self.user = Some(name.into());
        self
    }

    /// How messages travel (default [`Transport::Buffered`]).
    pub fn transport(mut self, transport: Transport) -> Self {
        self.transport = transport;
        self
    }

    /// The Thrift protocol (default [`Protocol::Binary`]).
    pub fn protocol(mut self, protocol: Protocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// A Kerberos login (feature `kerberos`): a native client logs in to
    /// every master and region server with it (HBase's
    /// `hbase.security.authentication=kerberos`), with the protection it
    /// asks for; TLS ([`tls`](Self::tls)) may be under it as well.
    #[cfg(feature = "kerberos")]
    pub fn kerberos(mut self, kerberos: crate::Kerberos) -> Self {
        self.kerberos = Some(kerberos);
        self
    }

    /// TLS: the certificates of an HTTPS gateway ([`Transport::Http`]), or
    /// of a native client's masters and region servers (feature `tls`;
    /// without it, building a native client with TLS is refused).
    pub fn tls(mut self, tls: Tls) -> Self {
        self.tls = Some(tls);
        self
    }

    /// Rows fetched per call by each range of a scan (default 1,000): a
    /// scan holds at most `ranges × batch` rows in memory.
    ///
    /// # Panics
    /// If `rows` is 0.
    pub fn scan_batch(mut self, rows: usize) -> Self {
        assert!(rows > 0, "a scan batch holds at least one row");
        self.scan_batch = rows;
        self
    }

    /// Rows sent per `putMultiple` (and `deleteMultiple`) call (default
    /// 1,000): a write holds one batch in memory.
    ///
    /// # Panics
    /// If `rows` is 0.
    pub fn write_batch(mut self, rows: usize) -> Self {
        assert!(rows > 0, "a write batch holds at least one row");
        self.write_batch = rows;
        self
    }

    /// Whether skip scans send rowkey's filter (`rowkey.hbase.KeyFilter`,
    /// the Maven module `rowkey-hbase-filter`, in HBase's `lib/` on the
    /// region servers and the Thrift2 gateways) to the servers; default
    /// `true`, detected. With it, every skip scan ([`Client::filter`])
    /// sends its [`KeyFilter`](rowkey_core::KeyFilter) to the servers,
    /// which seek past every run of rows that cannot match
    /// ([`Pushdown::Server`](crate::Pushdown::Server)), whatever fields it
    /// constrains. When a scan finds a server without the jar, or with a
    /// class it cannot load (HBase answers `ClassNotFoundException`,
    /// `NoClassDefFoundError` or `UnsupportedClassVersionError` naming it,
    /// from opening the scanner or, when only some region servers lack it,
    /// from its first rows), it is opened again with HBase's own filters,
    /// a warning is logged (`tracing`), and this client and its clones
    /// send HBase's own filters to that table from then on:
    /// [`Rows::pushdown`](crate::Rows::pushdown) says what each scan used.
    /// `false` sends only HBase's own filters (the shapes they express).
    pub fn server_filter(mut self, on: bool) -> Self {
        self.server_filter = on;
        self
    }

    /// The client. For a socket transport, one connection is opened now,
    /// so that an address that refuses is [`Error::Connect`] here; an HTTP
    /// gateway is first reached by the first call.
    pub fn build(self) -> Result<Client, Error> {
        #[cfg(feature = "native")]
        let native = if self.native {
            let client = crate::native::NativeClient::new(&self.addr)?
                .with_request_timeout(self.request_timeout)
                .with_connect_timeout(self.connect_timeout)
                .with_operation_timeout(self.operation_timeout)
                .with_retry(self.retry);
            let client = match &self.user {
                Some(user) => client.with_user(user),
                None => client,
            };
            #[cfg(feature = "tls")]
            let client = match &self.tls {
                Some(tls) => client.with_tls(tls)?,
                None => client,
            };
            #[cfg(feature = "kerberos")]
            let client = match &self.kerberos {
                Some(k) => client.with_kerberos(k.clone()),
                None => client,
            };
            #[cfg(not(feature = "tls"))]
            if self.tls.is_some() {
                return Err(Error::Config(format!(
                    "{}: TLS to HBase's masters and region servers needs rowkey-hbase's feature `tls`",
                    self.addr
                )));
            }
            Some(crate::native::NativeBackend::new(client)?)
        } else {
            None
        };
        #[cfg(feature = "native")]
        let gateway = native.is_none();
        #[cfg(not(feature = "native"))]
        let gateway = true;
        let pool = if gateway {
            let endpoint = Endpoint::new(
                &self.addr,
                self.transport,
                self.protocol,
                self.connect_timeout,
                self.tls.as_ref(),
            )?;
            #[cfg(feature = "kerberos")]
            let endpoint = match &self.kerberos {
                Some(k) => endpoint.with_negotiate(k.clone())?,
                None => endpoint,
            };
            Some(Arc::new(Pool::new(
                endpoint,
                self.pool_size,
                self.idle_timeout,
            )))
        } else {
            None
        };
        let client = Client {
            shared: Arc::new(Shared {
                pool,
                #[cfg(feature = "native")]
                native,
                transport: self.transport,
                request_timeout: self.request_timeout,
                connect_timeout: self.connect_timeout,
                retry: self.retry,
                counters: Counters::default(),
                no_server_filter: Mutex::new(HashSet::new()),
                timestamps: self.timestamps,
                clock: Clock::default(),
            }),
            scan_batch: self.scan_batch,
            write_batch: self.write_batch,
            server_filter: self.server_filter,
        };
        if let (Some(pool), true) = (&client.shared.pool, self.transport != Transport::Http) {
            let deadline = deadline_after(self.connect_timeout);
            let (conn, _) = pool
                .take(deadline)
                .map_err(|e| client.checkout_error("", e))?;
            client.count(|c| &c.connections, 1);
            conn.give_back();
        }
        Ok(client)
    }
}

impl Client {
    /// Settings for a client of the gateway at `addr` (`host:port`, or a
    /// URL for [`Transport::Http`]).
    pub fn builder(addr: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            addr: addr.into(),
            pool_size: 8,
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(60),
            retry: RetryPolicy::default(),
            transport: Transport::Buffered,
            protocol: Protocol::Binary,
            tls: None,
            scan_batch: 1_000,
            write_batch: 1_000,
            server_filter: true,
            timestamps: Timestamps::Server,
            idle_timeout: Duration::from_secs(30),
            operation_timeout: Duration::from_secs(1_200),
            user: None,
            #[cfg(feature = "native")]
            native: false,
            #[cfg(feature = "kerberos")]
            kerberos: None,
        }
    }

    /// Settings for a client that talks to HBase's masters and region
    /// servers directly, with no Thrift gateway (feature `native`):
    /// `bootstrap` is `host:port[,host:port...]` of masters or region
    /// servers (HBase's registry, `ClientMetaService`, HBase 2.3 and
    /// later), or `zk://host:port[,host:port...][/znode-parent]` (feature
    /// `zookeeper`: `hbase:meta` and the active master read from
    /// ZooKeeper, parent `/hbase` by default, as clusters older than 2.3
    /// are found). `request_timeout`, `scan_batch`, `write_batch`,
    /// `server_filter` and `timestamps` mean what they mean for a gateway;
    /// the pool, transport, protocol and TLS settings are the gateway's and
    /// are not used. Gets, scans (typed, raw, reversed, merged, filtered),
    /// writes and deletes, tables and region lists work as on a gateway
    /// client, with the same answers (`tests/native.rs`); see
    /// [`native::NativeClient`](crate::native::NativeClient) for how calls
    /// reach the servers. Its calls run on a runtime of the client's own
    /// (two threads), so, as every blocking call, they are made from
    /// threads that are not running async code; async code uses
    /// [`AsyncClient::native`](crate::AsyncClient::native).
    #[cfg(feature = "native")]
    pub fn native(bootstrap: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            native: true,
            retry: crate::native::native_retry(),
            ..Client::builder(bootstrap)
        }
    }

    /// Settings for a client of `address`, the one string a command line
    /// or a configuration file gives: `hbase://host:port[,host:port...]`
    /// (HBase's masters or region servers: a native client,
    /// `Client::native`), `zk://host:port[,...][/znode-parent]` (a
    /// native client found through ZooKeeper, feature `zookeeper`), or
    /// anything else, a Thrift2 gateway's `host:port` or URL
    /// ([`Client::builder`]).
    ///
    /// ```
    /// use rowkey_hbase::Client;
    ///
    /// let gateway = Client::for_address("gateway:9090")?;
    /// # let _ = gateway;
    /// # #[cfg(feature = "native")]
    /// let native = Client::for_address("hbase://master1:16000,master2:16000")?;
    /// # Ok::<(), rowkey_hbase::Error>(())
    /// ```
    pub fn for_address(address: &str) -> Result<ClientBuilder, Error> {
        let native = address.strip_prefix("hbase://");
        if native.is_none() && !address.starts_with("zk://") {
            return Ok(Client::builder(address));
        }
        #[cfg(feature = "native")]
        return Ok(Client::native(native.unwrap_or(address)));
        #[cfg(not(feature = "native"))]
        Err(Error::Config(format!(
            "{address}: reaching HBase without a gateway needs rowkey-hbase's feature `native`"
        )))
    }

    /// The native client under this one, if it is one.
    #[cfg(feature = "native")]
    pub(crate) fn native_backend(&self) -> Option<&crate::native::NativeBackend> {
        self.shared.native.as_ref()
    }

    /// The clock this client stamps writes with, when it does
    /// ([`Timestamps::Client`]).
    pub(crate) fn client_clock(&self) -> Option<&Clock> {
        (self.shared.timestamps == Timestamps::Client).then_some(&self.shared.clock)
    }

    /// Connects to a Thrift2 gateway with the defaults: HBase's `hbase
    /// thrift2` defaults on the wire (binary protocol, not framed), a pool
    /// of 8 connections, a 10 s connect timeout, a 60 s deadline per call,
    /// 5 attempts ([`RetryPolicy::default`]), batches of 1,000 rows. One
    /// connection is opened now.
    pub fn connect(addr: impl fmt::Display) -> Result<Client, Error> {
        Client::builder(addr.to_string()).build()
    }

    /// This client with scan batches of `rows` rows (see
    /// [`ClientBuilder::scan_batch`]); the pool is shared with `self`.
    ///
    /// # Panics
    /// If `rows` is 0.
    pub fn with_scan_batch(mut self, rows: usize) -> Client {
        assert!(rows > 0, "a scan batch holds at least one row");
        self.scan_batch = rows;
        self
    }

    /// This client with write batches of `rows` rows (see
    /// [`ClientBuilder::write_batch`]); the pool is shared with `self`.
    ///
    /// # Panics
    /// If `rows` is 0.
    pub fn with_write_batch(mut self, rows: usize) -> Client {
        assert!(rows > 0, "a write batch holds at least one row");
        self.write_batch = rows;
        self
    }

    /// This client, sending skip scans' filters to rowkey's filter on the
    /// region servers or not (see [`ClientBuilder::server_filter`]); the
    /// pool is shared with `self`.
    pub fn with_server_filter(mut self, on: bool) -> Client {
        self.server_filter = on;
        self
    }

    /// Whether skip scans of `table` send rowkey's filter: asked for, and
    /// not found missing on its servers by an earlier scan.
    pub(crate) fn uses_server_filter(&self, table: &str) -> bool {
        self.server_filter
            && !self
                .shared
                .no_server_filter
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .contains(table)
    }

    /// A scan of `table` found its servers without rowkey's filter.
    pub(crate) fn server_filter_missing(&self, table: &str) {
        self.shared
            .no_server_filter
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(table.to_string());
    }

    /// Whether this client talks to the region servers itself
    /// (`Client::native`) rather than through a Thrift2 gateway.
    pub fn is_native(&self) -> bool {
        #[cfg(feature = "native")]
        return self.shared.native.is_some();
        #[cfg(not(feature = "native"))]
        false
    }

    /// What this client and its clones have done so far.
    pub fn stats(&self) -> Stats {
        let c = &self.shared.counters;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let face = c.calls.counts();
        // A native client's own calls, retries, timeouts and scanned rows
        // (the face counts the rows of gets for both).
        #[cfg(feature = "native")]
        let native = self
            .native_backend()
            .map(|n| n.client().counts())
            .unwrap_or_default();
        #[cfg(not(feature = "native"))]
        let native = rowkey_core::clock::CallCounts::default();
        Stats {
            calls: face.calls + native.calls,
            retries: face.retries + native.retries,
            timeouts: face.timeouts + native.timeouts,
            reconnects: get(&c.reconnects),
            connections: get(&c.connections),
            rows_read: face.rows_read + native.rows_read,
            open: self.shared.pool.as_ref().map_or(0, |p| p.open()),
        }
    }

    /// Calls by server, sorted by server: on a native client each master
    /// and region server it called, with its calls and failed calls (an
    /// operator's first look at which server is slow or refusing); on a
    /// gateway client the gateway alone, its failures being the calls
    /// that lost their connection or passed their deadline.
    pub fn server_stats(&self) -> Vec<ServerStats> {
        #[cfg(feature = "native")]
        if let Some(n) = self.native_backend() {
            return n.client().server_stats();
        }
        let stats = self.stats();
        let addr = self
            .shared
            .pool
            .as_ref()
            .map_or_else(String::new, |p| p.endpoint.addr.clone());
        vec![ServerStats {
            server: addr,
            calls: stats.calls,
            failures: stats.reconnects + stats.timeouts,
        }]
    }

    /// How messages travel to the gateway.
    pub fn transport(&self) -> Transport {
        self.shared.transport
    }

    /// The retry policy.
    pub(crate) fn retry_policy(&self) -> RetryPolicy {
        self.shared.retry
    }

    /// The deadline of a call starting now.
    pub(crate) fn deadline(&self) -> Instant {
        deadline_after(self.shared.request_timeout)
    }

    /// The deadline of a call starting now that may take `times` request
    /// timeouts (a sparse filtered scan's batch after it timed out).
    pub(crate) fn deadline_times(&self, times: u32) -> Instant {
        deadline_after(self.shared.request_timeout.saturating_mul(times))
    }

    pub(crate) fn count(&self, counter: impl Fn(&Counters) -> &AtomicU64, n: u64) {
        counter(&self.shared.counters).fetch_add(n, Ordering::Relaxed);
    }

    pub(crate) fn count_rows(&self, n: usize) {
        self.shared.counters.calls.rows(n as u64);
    }

    pub(crate) fn count_retry(&self) {
        self.shared.counters.calls.retry();
    }

    fn count_timeout(&self) {
        self.shared.counters.calls.timeout();
    }

    /// A call: `f` on a pooled connection, within the call's deadline,
    /// tried again (`retry`: the call is safe to repeat) while the error is
    /// retryable, the policy allows and the deadline is not reached. Inside
    /// a span `hbase` with the table, the call, its retries and its
    /// elapsed time.
    pub(crate) fn call<T>(
        &self,
        op: &'static str,
        table: &str,
        key: Option<&[u8]>,
        retry: bool,
        mut f: impl FnMut(&mut Thrift) -> thrift::Result<T>,
    ) -> Result<T, Error> {
        let span = tracing::debug_span!(
            "hbase",
            table,
            call = op,
            retries = tracing::field::Empty,
            elapsed_us = tracing::field::Empty,
            error = tracing::field::Empty,
        );
        let _entered = span.enter();
        let start = Instant::now();
        let mut tries = Tries::new(self.shared.retry, self.deadline());
        let mut retries = 0;
        let result = loop {
            match self.once(op, table, key, tries.deadline(), &mut f) {
                Ok(v) => break Ok(v),
                Err(e) => {
                    if !retry || e.is_timeout() || !e.is_retryable() {
                        break Err(e);
                    }
                    let Ok(pause) = tries.retry() else {
                        break Err(e);
                    };
                    tracing::debug!(error = %e, ?pause, "retrying");
                    retries += 1;
                    self.count_retry();
                    std::thread::sleep(pause);
                }
            }
        };
        span.record("retries", retries);
        span.record("elapsed_us", start.elapsed().as_micros() as u64);
        let result = result.map_err(|e| self.missing_table(e, op, table));
        if let Err(e) = &result {
            span.record("error", tracing::field::display(e));
        }
        result
    }

    /// `e` as [`Error::TableNotFound`] when it may say the table is
    /// missing and HBase confirms it (`tableExists`); else `e` as it is.
    pub(crate) fn missing_table(&self, e: Error, op: &'static str, table: &str) -> Error {
        if !e.may_be_missing_table() {
            return e;
        }
        let name = crate::types::table_name(table);
        let deadline = self.deadline();
        match self.once("tableExists", table, None, deadline, |t| {
            t.table_exists(name.clone())
        }) {
            Ok(false) => Error::TableNotFound {
                op,
                table: table.to_string(),
            },
            _ => e,
        }
    }

    /// One try of a call, on a pooled connection, by `deadline`; the
    /// connection goes back to the pool unless the call failed on it.
    pub(crate) fn once<T>(
        &self,
        op: &'static str,
        table: &str,
        key: Option<&[u8]>,
        deadline: Instant,
        f: impl FnOnce(&mut Thrift) -> thrift::Result<T>,
    ) -> Result<T, Error> {
        let mut conn = None;
        let result = self.on(&mut conn, op, table, key, deadline, f);
        self.release(conn);
        result
    }

    /// One try of a call on the connection in `slot` (a scan's own), or on
    /// one taken from the pool into `slot` when it is empty. A connection
    /// the call failed on is discarded: `slot` is then empty.
    pub(crate) fn on<T>(
        &self,
        slot: &mut Option<Lease>,
        op: &'static str,
        table: &str,
        key: Option<&[u8]>,
        deadline: Instant,
        f: impl FnOnce(&mut Thrift) -> thrift::Result<T>,
    ) -> Result<T, Error> {
        self.shared.counters.calls.call();
        let Some(pool) = &self.shared.pool else {
            return Err(Error::Config(format!(
                "{op} on table {table}: a native client has no gateway to call"
            )));
        };
        let conn = match slot {
            Some(conn) => conn,
            None => {
                let (conn, new) = pool
                    .take(deadline)
                    .map_err(|e| self.checkout_error(table, e))?;
                if new {
                    self.count(|c| &c.connections, 1);
                }
                slot.insert(conn)
            }
        };
        conn.begin(deadline);
        match f(&mut conn.thrift) {
            Ok(v) => Ok(v),
            Err(e) => {
                let late = conn.timed_out().then_some(self.shared.request_timeout);
                let e = Error::call(op, table, key, e, late);
                if !e.keeps_connection() {
                    // Dropped: closed, its place in the pool freed.
                    *slot = None;
                    self.count(|c| &c.reconnects, 1);
                }
                if e.is_timeout() {
                    self.count_timeout();
                }
                Err(e)
            }
        }
    }

    /// A connection taken with [`on`](Self::on), back to the pool.
    pub(crate) fn release(&self, conn: Option<Lease>) {
        if let Some(conn) = conn {
            conn.give_back();
        }
    }

    /// The gateway's address (a native client's: empty).
    fn addr(&self) -> String {
        self.shared
            .pool
            .as_ref()
            .map_or_else(String::new, |p| p.endpoint.addr.clone())
    }

    /// The deadline of a call that must return at once: closing a scan's
    /// scanners when it is dropped.
    pub(crate) fn short_deadline(&self) -> Instant {
        deadline_after(self.shared.request_timeout.min(Duration::from_secs(1)))
    }

    fn checkout_error(&self, table: &str, e: Checkout) -> Error {
        match e {
            Checkout::Connect(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                self.count_timeout();
                Error::Timeout {
                    op: "connect",
                    table: table.to_string(),
                    deadline: self.shared.connect_timeout.min(self.shared.request_timeout),
                }
            }
            Checkout::Connect(cause) => Error::Connect {
                addr: self.addr(),
                cause,
            },
            Checkout::Busy => {
                self.count_timeout();
                Error::Timeout {
                    op: "checkout",
                    table: table.to_string(),
                    deadline: self.shared.request_timeout,
                }
            }
        }
    }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("addr", &self.addr())
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}
