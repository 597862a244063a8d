//! The client's calls as `async fn`s, for tokio services. One
//! implementation of the protocol: each call runs the blocking
//! [`Client`]'s on tokio's blocking pool (`spawn_blocking`), so no runtime
//! worker ever waits on a socket; a scan fetches one batch per trip to the
//! pool and holds no thread between them.

use std::collections::VecDeque;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use futures_core::Stream;
use rowkey_core::{DecodeRowKey, KeyFilter, RowKey, Scan};
use tokio::task::JoinHandle;

use crate::scan::{decode_row, Rows};
use crate::{Cell, Client, Error, RegionLocation, Row, Stats, WriteOptions};

/// [`Client`] for async code (feature `tokio`): the same calls, deadlines,
/// retries and pool, as `async fn`s, and scans as a [`Stream`]. A cheap
/// clone, safe to use from many tasks at once.
///
/// ```no_run
/// # async fn f() -> Result<(), rowkey_hbase::Error> {
/// use futures::StreamExt;
/// use rowkey_core::Scan;
/// use rowkey_hbase::AsyncClient;
///
/// let hbase = AsyncClient::connect("127.0.0.1:9090").await?;
/// let mut rows = hbase.scan("events", &Scan::from_bounds(b"a", b"b"), Some(10));
/// while let Some(row) = rows.next().await {
///     let (key, cells) = row?;
/// #   let _ = (key, cells);
/// }
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct AsyncClient {
    client: Client,
}

/// Runs `f` on the blocking pool; a panic in it is resumed here.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    match tokio::task::spawn_blocking(f).await {
        Ok(v) => v,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

impl AsyncClient {
    /// The async face of `client` (and of its pool).
    pub fn new(client: Client) -> AsyncClient {
        AsyncClient { client }
    }

    /// [`Client::connect`], off the runtime's workers.
    pub async fn connect(addr: impl Into<String>) -> Result<AsyncClient, Error> {
        let addr = addr.into();
        Ok(AsyncClient::new(
            blocking(move || Client::connect(addr)).await?,
        ))
    }

    /// A native client ([`Client::native`]) of the cluster at `bootstrap`
    /// with its defaults, built off the runtime's workers. Its calls run
    /// on the native client's own runtime, reached from the blocking pool
    /// as every call of an `AsyncClient` is; settings go through
    /// `AsyncClient::new(Client::native(bootstrap).request_timeout(d).build()?)`.
    #[cfg(feature = "native")]
    pub async fn native(bootstrap: impl Into<String>) -> Result<AsyncClient, Error> {
        let bootstrap = bootstrap.into();
        Ok(AsyncClient::new(
            blocking(move || Client::native(bootstrap).build()).await?,
        ))
    }

    /// The blocking client underneath (same pool).
    pub fn blocking(&self) -> &Client {
        &self.client
    }

    /// [`Client::stats`].
    pub fn stats(&self) -> Stats {
        self.client.stats()
    }

    /// [`Client::server_stats`].
    pub fn server_stats(&self) -> Vec<crate::ServerStats> {
        self.client.server_stats()
    }

    async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Client) -> Result<T, Error> + Send + 'static,
    ) -> Result<T, Error> {
        let client = self.client.clone();
        blocking(move || f(&client)).await
    }

    /// [`Client::create_table`].
    pub async fn create_table(
        &self,
        table: &str,
        families: &[&str],
        split_points: &[Vec<u8>],
    ) -> Result<(), Error> {
        let table = table.to_string();
        let families: Vec<String> = families.iter().map(|f| f.to_string()).collect();
        let splits = split_points.to_vec();
        self.run(move |c| {
            let families: Vec<&str> = families.iter().map(String::as_str).collect();
            c.create_table(&table, &families, &splits)
        })
        .await
    }

    /// [`Client::drop_table`].
    pub async fn drop_table(&self, table: &str) -> Result<(), Error> {
        let table = table.to_string();
        self.run(move |c| c.drop_table(&table)).await
    }

    /// [`Client::table_exists`].
    pub async fn table_exists(&self, table: &str) -> Result<bool, Error> {
        let table = table.to_string();
        self.run(move |c| c.table_exists(&table)).await
    }

    /// [`Client::write_rows_with`]: the rows are collected here and
    /// written on the blocking pool in batches.
    pub async fn write_rows<K: RowKey + Send + 'static>(
        &self,
        table: &str,
        rows: impl IntoIterator<Item = (K, Vec<Cell>)>,
        options: WriteOptions,
    ) -> Result<(), Error> {
        let table = table.to_string();
        let rows: Vec<(K, Vec<Cell>)> = rows.into_iter().collect();
        self.run(move |c| c.write_rows_with(&table, rows, options))
            .await
    }

    /// [`Client::write_raw_rows_with`].
    pub async fn write_raw_rows(
        &self,
        table: &str,
        rows: Vec<(Vec<u8>, Vec<Cell>)>,
        options: WriteOptions,
    ) -> Result<(), Error> {
        let table = table.to_string();
        self.run(move |c| c.write_raw_rows_with(&table, rows, options))
            .await
    }

    /// [`Client::delete_raw_rows_with`] for typed keys.
    pub async fn delete_rows<K: RowKey + Send + 'static>(
        &self,
        table: &str,
        keys: Vec<K>,
        options: WriteOptions,
    ) -> Result<(), Error> {
        let table = table.to_string();
        self.run(move |c| {
            let keys = crate::ops::encode_all(&table, &keys)?;
            c.delete_raw_rows_with(&table, keys, options)
        })
        .await
    }

    /// [`Client::get`].
    pub async fn get<K: RowKey + ?Sized>(
        &self,
        table: &str,
        key: &K,
    ) -> Result<Option<Vec<Cell>>, Error> {
        let key = crate::ops::encode(table, key)?;
        self.get_raw(table, &key).await
    }

    /// [`Client::get_raw`].
    pub async fn get_raw(&self, table: &str, key: &[u8]) -> Result<Option<Vec<Cell>>, Error> {
        let (table, key) = (table.to_string(), key.to_vec());
        self.run(move |c| c.get_raw(&table, &key)).await
    }

    /// [`Client::get_many`].
    pub async fn get_many<K: RowKey>(
        &self,
        table: &str,
        keys: &[K],
    ) -> Result<Vec<Option<Vec<Cell>>>, Error> {
        self.get_many_raw(table, crate::ops::encode_all(table, keys)?)
            .await
    }

    /// [`Client::get_many_raw`].
    pub async fn get_many_raw(
        &self,
        table: &str,
        keys: Vec<Vec<u8>>,
    ) -> Result<Vec<Option<Vec<Cell>>>, Error> {
        let table = table.to_string();
        self.run(move |c| c.get_many_raw(&table, &keys)).await
    }

    /// [`Client::get_versions_raw`].
    pub async fn get_versions_raw(
        &self,
        table: &str,
        key: Vec<u8>,
        read: crate::ReadOptions,
    ) -> Result<Option<Vec<crate::VersionedCell>>, Error> {
        let table = table.to_string();
        self.run(move |c| c.get_versions_raw(&table, &key, &read))
            .await
    }

    /// [`Client::bulk_load`].
    pub async fn bulk_load(
        &self,
        dir: impl AsRef<std::path::Path>,
        table: &str,
    ) -> Result<crate::bulk::BulkLoadReport, Error> {
        let (dir, table) = (dir.as_ref().to_path_buf(), table.to_string());
        self.run(move |c| c.bulk_load(&dir, &table)).await
    }

    /// [`Client::region_locations`].
    pub async fn region_locations(&self, table: &str) -> Result<Vec<RegionLocation>, Error> {
        let table = table.to_string();
        self.run(move |c| c.region_locations(&table)).await
    }

    /// [`Client::scan`] as a stream. The scanners open at the first poll;
    /// an error opening them is the stream's first item.
    pub fn scan(&self, table: &str, scan: &Scan, limit: Option<usize>) -> RowStream {
        let (table, scan) = (table.to_string(), scan.clone());
        RowStream::new(&self.client, move |c| c.scan(&table, &scan, limit))
    }

    /// [`Client::scan_reversed`] as a stream.
    pub fn scan_reversed(&self, table: &str, scan: &Scan, limit: Option<usize>) -> RowStream {
        let (table, scan) = (table.to_string(), scan.clone());
        RowStream::new(&self.client, move |c| c.scan_reversed(&table, &scan, limit))
    }

    /// [`Client::filter`] as a stream.
    pub fn filter(&self, table: &str, filter: &KeyFilter, limit: Option<usize>) -> RowStream {
        let (table, filter) = (table.to_string(), filter.clone());
        RowStream::new(&self.client, move |c| c.filter(&table, &filter, limit))
    }

    /// [`Client::filter_in`] as a stream.
    pub fn filter_in(
        &self,
        table: &str,
        filter: &KeyFilter,
        scan: &Scan,
        limit: Option<usize>,
    ) -> RowStream {
        let (table, filter, scan) = (table.to_string(), filter.clone(), scan.clone());
        RowStream::new(&self.client, move |c| {
            c.filter_in(&table, &filter, &scan, limit)
        })
    }

    /// [`Client::scan_typed`] as a stream.
    pub fn scan_typed<K: for<'a> DecodeRowKey<'a>>(
        &self,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
    ) -> TypedRowStream<K> {
        TypedRowStream::new(table, self.scan(table, scan, limit))
    }

    /// [`Client::scan_typed_reversed`] as a stream.
    pub fn scan_typed_reversed<K: for<'a> DecodeRowKey<'a>>(
        &self,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
    ) -> TypedRowStream<K> {
        TypedRowStream::new(table, self.scan_reversed(table, scan, limit))
    }

    /// [`Client::filter_typed`] as a stream.
    pub fn filter_typed<K: for<'a> DecodeRowKey<'a>>(
        &self,
        table: &str,
        filter: &KeyFilter,
        limit: Option<usize>,
    ) -> TypedRowStream<K> {
        TypedRowStream::new(table, self.filter(table, filter, limit))
    }
}

/// A batch of a scan's rows, read on the blocking pool.
type Batch = Vec<Result<Row, Error>>;

type Opener = Box<dyn FnOnce(&Client) -> Result<Rows, Error> + Send>;

/// Where a [`RowStream`] is.
enum State {
    /// Not opened yet.
    Start(Client, Opener),
    /// Between batches: the scan, waiting for the next poll.
    Idle(Box<Rows>),
    /// A batch being read on the blocking pool.
    Fetching(JoinHandle<(Box<Rows>, Batch)>),
    /// Opening the scan on the blocking pool.
    Opening(JoinHandle<Result<Rows, Error>>),
    Done,
}

/// The rows of an [`AsyncClient`] scan: a [`Stream`] of `Result<(key,
/// cells), Error>` in merged key order, read a batch at a time on tokio's
/// blocking pool. Dropping it closes the scanners (on the blocking pool).
pub struct RowStream {
    state: State,
    ready: VecDeque<Result<Row, Error>>,
}

impl RowStream {
    fn new(
        client: &Client,
        open: impl FnOnce(&Client) -> Result<Rows, Error> + Send + 'static,
    ) -> RowStream {
        RowStream {
            state: State::Start(client.clone(), Box::new(open)),
            ready: VecDeque::new(),
        }
    }
}

/// Joins a blocking task, resuming its panic here.
fn join<T>(handle: &mut JoinHandle<T>, cx: &mut Context<'_>) -> Poll<T> {
    match ready!(Pin::new(handle).poll(cx)) {
        Ok(v) => Poll::Ready(v),
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

use std::future::Future as _;

impl Stream for RowStream {
    type Item = Result<Row, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            if let Some(row) = this.ready.pop_front() {
                return Poll::Ready(Some(row));
            }
            match std::mem::replace(&mut this.state, State::Done) {
                State::Done => return Poll::Ready(None),
                State::Start(client, open) => {
                    this.state = State::Opening(tokio::task::spawn_blocking(move || open(&client)));
                }
                State::Opening(mut handle) => match join(&mut handle, cx) {
                    Poll::Pending => {
                        this.state = State::Opening(handle);
                        return Poll::Pending;
                    }
                    Poll::Ready(Ok(rows)) => this.state = State::Idle(Box::new(rows)),
                    Poll::Ready(Err(e)) => return Poll::Ready(Some(Err(e))),
                },
                State::Idle(mut rows) => {
                    this.state = State::Fetching(tokio::task::spawn_blocking(move || {
                        let batch = rows.client_batch();
                        let out: Vec<_> = rows.by_ref().take(batch).collect();
                        (rows, out)
                    }));
                }
                State::Fetching(mut handle) => match join(&mut handle, cx) {
                    Poll::Pending => {
                        this.state = State::Fetching(handle);
                        return Poll::Pending;
                    }
                    Poll::Ready((rows, batch)) => {
                        if batch.is_empty() {
                            // Dropping the scan closes its scanners:
                            // off the worker.
                            tokio::task::spawn_blocking(move || drop(rows));
                            return Poll::Ready(None);
                        }
                        this.ready.extend(batch);
                        this.state = State::Idle(rows);
                    }
                },
            }
        }
    }
}

impl Drop for RowStream {
    fn drop(&mut self) {
        if let State::Idle(rows) = std::mem::replace(&mut self.state, State::Done) {
            // Closing scanners is a call: not on a worker. Outside a
            // runtime (the stream outlived it) it is dropped here.
            match tokio::runtime::Handle::try_current() {
                Ok(handle) => {
                    handle.spawn_blocking(move || drop(rows));
                }
                Err(_) => drop(rows),
            }
        }
    }
}

/// [`RowStream`] with the keys decoded into `K`; a row whose key is not a
/// `K` is an [`Error::ForeignRow`] item and the stream goes on.
pub struct TypedRowStream<K> {
    rows: RowStream,
    table: String,
    key: PhantomData<fn() -> K>,
}

impl<K> TypedRowStream<K> {
    fn new(table: &str, rows: RowStream) -> Self {
        TypedRowStream {
            rows,
            table: table.to_string(),
            key: PhantomData,
        }
    }
}

impl<K: for<'a> DecodeRowKey<'a>> Stream for TypedRowStream<K> {
    type Item = Result<(K, Vec<Cell>), Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        Poll::Ready(
            ready!(Pin::new(&mut this.rows).poll_next(cx))
                .map(|row| row.and_then(|(key, cells)| decode_row(&this.table, key, cells))),
        )
    }
}
