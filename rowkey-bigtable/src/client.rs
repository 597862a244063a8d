//! The data client: Bigtable's v2 gRPC API on a channel rowkey configures
//! for merged streaming reads, or on a `bigtable_rs` connection (for its
//! Google credentials).

use std::sync::Arc;
use std::time::Duration;

use bigtable_rs::bigtable::BigTable;
use bigtable_rs::google::bigtable::v2::bigtable_client::BigtableClient;
use bigtable_rs::google::bigtable::v2::{
    MutateRowsRequest, MutateRowsResponse, ReadRowsRequest, ReadRowsResponse, SampleRowKeysRequest,
    SampleRowKeysResponse,
};
use rowkey_core::clock::{CallCounters, CallCounts};
use tonic::metadata::MetadataValue;
use tonic::service::interceptor::InterceptedService;
use tonic::service::Interceptor;
use tonic::transport::{Channel, Endpoint};
use tonic::{Request, Status, Streaming};

use crate::{ClientOptions, Error};

/// The flow-control window of each stream on a channel from
/// [`Client::endpoint`]: the most one range of a merged read buffers
/// unread (256 KiB).
pub const STREAM_WINDOW: u32 = 256 * 1024;

/// The connection's flow-control window on a channel from
/// [`Client::endpoint`]: HTTP/2's largest, 2 GiB − 1 (see
/// [`Client::endpoint`] for why).
pub const CONNECTION_WINDOW: u32 = (1 << 31) - 1;

/// A Bigtable data client for one instance: cheap to clone (clones share
/// the connection).
///
/// Built on a channel rowkey configures ([`Client::new`] on
/// [`Client::endpoint`], [`Client::connect_lazy`], or
/// [`Emulator::client`](crate::emulator::Emulator::client)), merged reads
/// of any number of small rows neither stall nor trip h2's frame budget.
/// Production Bigtable needs TLS and credentials: TLS on the [`Endpoint`],
/// credentials in an interceptor ([`Client::with_interceptor`]); or convert
/// a `bigtable_rs` client with `From` (its Google credentials, but its
/// channel settings).
///
/// ```no_run
/// # fn demo() -> Result<(), rowkey_bigtable::Error> {
/// let client = rowkey_bigtable::Client::connect_lazy("http://127.0.0.1:8086", "p", "i")?;
/// assert_eq!(client.table_name("events"), "projects/p/instances/i/tables/events");
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Client {
    transport: Transport,
    table_prefix: Arc<str>,
    options: Arc<ClientOptions>,
    counters: Arc<CallCounters>,
}

#[derive(Clone)]
enum Transport {
    /// rowkey's channel, through an interceptor (which passes every
    /// request as it is for [`Client::new`]).
    Channel(BigtableClient<InterceptedService<Channel, SharedInterceptor>>),
    BigtableRs(BigTable),
}

/// What [`Client::with_interceptor`] runs on every request.
type InterceptFn = dyn Fn(Request<()>) -> Result<Request<()>, Status> + Send + Sync;

/// An interceptor shared by the clones of a [`Client`].
#[derive(Clone)]
struct SharedInterceptor(Arc<InterceptFn>);

impl Interceptor for SharedInterceptor {
    fn call(&mut self, request: Request<()>) -> Result<Request<()>, Status> {
        (self.0)(request)
    }
}

impl Client {
    /// The endpoint `uri` (`http://host:port`) with the windows merged
    /// reads need ([`STREAM_WINDOW`], [`CONNECTION_WINDOW`]) and a connect
    /// timeout of 10 s; add TLS and other settings to it before connecting.
    ///
    /// A merged read opens one `ReadRows` stream per range and reads from one
    /// of them at a time; the others wait with their responses buffered in
    /// h2, up to each stream's flow-control window. Two limits of the h2 client
    /// then bite with its default settings (a 2 MiB stream window, a 5 MiB
    /// connection window):
    ///
    /// - the waiting streams' buffered data fills the connection window, so
    ///   the stream being read gets no more data and the read waits (the
    ///   likely cause of the stalls the stream memory test had on
    ///   bigtable_rs's channel, which it has not had on this one);
    /// - h2 counts every small `DATA` frame it buffers (256 bytes minus its
    ///   length) against a budget of half the connection window and, when it
    ///   is spent, closes the connection with `GOAWAY ENHANCE_YOUR_CALM
    ///   too_many_data_frames`: a Bigtable response of one small row is one
    ///   such frame.
    ///
    /// This endpoint sizes the windows so that neither happens: a
    /// [`STREAM_WINDOW`] per stream bounds the memory each range holds, and a
    /// [`CONNECTION_WINDOW`] of 2 GiB − 1 (HTTP/2's largest) is credit, not
    /// memory, that leaves a budget of 1 GiB for small frames. A range then
    /// holds at most `STREAM_WINDOW / p` frames of `p` bytes, costing
    /// `STREAM_WINDOW × (256 − p) / p` of the budget: 6.2 MiB at p = 10 bytes
    /// (a response shorter than any row), so more than 160 ranges can wait
    /// unread at once, and the connection window holds the stream windows of
    /// 8,000 ranges.
    ///
    /// ```
    /// let endpoint = rowkey_bigtable::Client::endpoint("http://127.0.0.1:8086").unwrap();
    /// assert_eq!(endpoint.uri().port_u16(), Some(8086));
    ///
    /// let err = rowkey_bigtable::Client::endpoint("not a uri\n").unwrap_err();
    /// assert_eq!(err.to_string(), r#"bigtable endpoint "not a uri\n""#);
    /// assert_eq!(
    ///     rowkey_core::error_chain(&err),
    ///     r#"bigtable endpoint "not a uri\n": invalid uri character"#
    /// );
    /// ```
    pub fn endpoint(uri: &str) -> Result<Endpoint, Error> {
        let parsed: tonic::codegen::http::Uri = uri.parse().map_err(|cause| Error::Endpoint {
            endpoint: uri.to_string(),
            cause,
        })?;
        Ok(Endpoint::from(parsed)
            .initial_stream_window_size(STREAM_WINDOW)
            .initial_connection_window_size(CONNECTION_WINDOW)
            .connect_timeout(Duration::from_secs(10)))
    }

    /// A client of `project`/`instance` on `channel`.
    pub fn new(channel: Channel, project: &str, instance: &str) -> Client {
        Client::with_interceptor(channel, project, instance, Ok)
    }

    /// A client of `project`/`instance` on `channel` whose every request
    /// goes through `interceptor` first: the place for credentials
    /// (`authorization: Bearer TOKEN` from a token your program keeps
    /// fresh), as tonic's interceptors do. An `Err` fails the request with
    /// that status, which the call returns.
    ///
    /// ```no_run
    /// # fn demo() -> Result<(), rowkey_bigtable::Error> {
    /// use rowkey_bigtable::Client;
    /// let channel = Client::endpoint("http://127.0.0.1:8086")?.connect_lazy();
    /// let client = Client::with_interceptor(channel, "p", "i", |mut request| {
    ///     let token = "ya29.token"; // from your token source
    ///     request
    ///         .metadata_mut()
    ///         .insert("authorization", format!("Bearer {token}").parse().unwrap());
    ///     Ok(request)
    /// });
    /// # Ok(()) }
    /// ```
    pub fn with_interceptor<F>(
        channel: Channel,
        project: &str,
        instance: &str,
        interceptor: F,
    ) -> Client
    where
        F: Fn(Request<()>) -> Result<Request<()>, Status> + Send + Sync + 'static,
    {
        let interceptor = SharedInterceptor(Arc::new(interceptor));
        Client {
            transport: Transport::Channel(BigtableClient::with_interceptor(channel, interceptor)),
            table_prefix: format!("projects/{project}/instances/{instance}/tables/").into(),
            options: Arc::new(ClientOptions::default()),
            counters: Arc::default(),
        }
    }

    /// This client with `options`' deadlines, app profile and retries (the
    /// keepalive is the channel's: see
    /// [`connect_lazy_with`](Self::connect_lazy_with)).
    pub fn with_options(mut self, options: ClientOptions) -> Client {
        self.options = Arc::new(options);
        self
    }

    /// The client's deadlines, app profile and retries.
    pub fn options(&self) -> &ClientOptions {
        &self.options
    }

    /// [`connect_lazy`](Self::connect_lazy) with `options`: its deadlines,
    /// app profile and retries on every call, and its HTTP/2 keepalive on
    /// the channel (pings while idle too, so a half-open connection is
    /// found and dropped before a call waits on it).
    ///
    /// ```no_run
    /// # fn demo() -> Result<(), rowkey_bigtable::Error> {
    /// use std::time::Duration;
    /// use rowkey_bigtable::{Client, ClientOptions};
    ///
    /// let options = ClientOptions { total_timeout: Duration::from_secs(30), ..ClientOptions::default() };
    /// let client = Client::connect_lazy_with("http://127.0.0.1:8086", "p", "i", options)?;
    /// # Ok(()) }
    /// ```
    pub fn connect_lazy_with(
        uri: &str,
        project: &str,
        instance: &str,
        options: ClientOptions,
    ) -> Result<Client, Error> {
        let channel = Client::endpoint(uri)?
            .http2_keep_alive_interval(options.keepalive_interval)
            .keep_alive_timeout(options.keepalive_timeout)
            .keep_alive_while_idle(true)
            .connect_lazy();
        Ok(Client::new(channel, project, instance).with_options(options))
    }

    /// A client of `project`/`instance` at `uri` over a plaintext channel
    /// from [`Client::endpoint`], connected on first use (the emulator's
    /// form: `http://127.0.0.1:8086`).
    pub fn connect_lazy(uri: &str, project: &str, instance: &str) -> Result<Client, Error> {
        let channel = Client::endpoint(uri)?.connect_lazy();
        Ok(Client::new(channel, project, instance))
    }

    /// What this client and its clones have done so far, for a service to
    /// export: calls sent (each try of a `ReadRows`, `MutateRows` or
    /// `SampleRowKeys` once), retries (a range's read reopened after its
    /// last row, a batch's rows sent again), calls that passed their
    /// deadline, and rows received by reads.
    pub fn stats(&self) -> CallCounts {
        self.counters.counts()
    }

    /// The counters [`stats`](Self::stats) reads.
    pub(crate) fn counters(&self) -> &CallCounters {
        &self.counters
    }

    /// The full name of table `table`:
    /// `projects/{project}/instances/{instance}/tables/{table}`.
    pub fn table_name(&self, table: &str) -> String {
        [&self.table_prefix, table].concat()
    }

    /// The app profile every request names (empty: the instance's
    /// default).
    fn profile(&self) -> &str {
        self.options.app_profile_id.as_deref().unwrap_or_default()
    }

    /// `request` to `table_name` with the routing and feature headers,
    /// counted as a call.
    fn outgoing<T>(
        &self,
        table_name: &str,
        request: T,
    ) -> Result<Request<T>, bigtable_rs::bigtable::Error> {
        let req = with_headers(table_name, self.profile(), request)?;
        self.counters.call();
        Ok(req)
    }

    /// One `ReadRows` call with the routing and feature headers.
    pub(crate) async fn read_rows(
        &self,
        mut request: ReadRowsRequest,
    ) -> Result<Streaming<ReadRowsResponse>, bigtable_rs::bigtable::Error> {
        request.app_profile_id = self.profile().to_owned();
        let table = request.table_name.clone();
        let req = self.outgoing(&table, request)?;
        let response = match &self.transport {
            Transport::Channel(c) => c.clone().read_rows(req).await,
            Transport::BigtableRs(c) => c.clone().get_client().read_rows(req).await,
        };
        Ok(response?.into_inner())
    }

    /// One `SampleRowKeys` call with the routing and feature headers.
    pub(crate) async fn sample_row_keys(
        &self,
        mut request: SampleRowKeysRequest,
    ) -> Result<Streaming<SampleRowKeysResponse>, bigtable_rs::bigtable::Error> {
        request.app_profile_id = self.profile().to_owned();
        let table = request.table_name.clone();
        let req = self.outgoing(&table, request)?;
        let response = match &self.transport {
            Transport::Channel(c) => c.clone().sample_row_keys(req).await,
            Transport::BigtableRs(c) => c.clone().get_client().sample_row_keys(req).await,
        };
        Ok(response?.into_inner())
    }

    /// One `MutateRows` call with the routing and feature headers.
    pub(crate) async fn mutate_rows(
        &self,
        mut request: MutateRowsRequest,
    ) -> Result<Streaming<MutateRowsResponse>, bigtable_rs::bigtable::Error> {
        request.app_profile_id = self.profile().to_owned();
        let table = request.table_name.clone();
        let req = self.outgoing(&table, request)?;
        let response = match &self.transport {
            Transport::Channel(c) => c.clone().mutate_rows(req).await,
            Transport::BigtableRs(c) => c.clone().get_client().mutate_rows(req).await,
        };
        Ok(response?.into_inner())
    }
}

/// A `bigtable_rs` client (with its Google credentials and its own channel
/// settings, which can stall merged reads of many small rows: see
/// [`Client::endpoint`]).
impl From<BigTable> for Client {
    fn from(client: BigTable) -> Client {
        Client {
            table_prefix: client.get_full_table_name("").into(),
            transport: Transport::BigtableRs(client),
            options: Arc::new(ClientOptions::default()),
            counters: Arc::default(),
        }
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let transport = match self.transport {
            Transport::Channel(_) => "channel",
            Transport::BigtableRs(_) => "bigtable_rs",
        };
        f.debug_struct("Client")
            .field("table_prefix", &self.table_prefix)
            .field("transport", &transport)
            .finish()
    }
}

/// `request` with the `x-goog-request-params` routing header for
/// `table_name` (and the app profile, when there is one, as Google's
/// clients send it) and the `bigtable-features` header.
fn with_headers<T>(
    table_name: &str,
    app_profile_id: &str,
    request: T,
) -> Result<Request<T>, bigtable_rs::bigtable::Error> {
    let mut routing = format!("table_name={}", table_name.replace('/', "%2F"));
    if !app_profile_id.is_empty() {
        routing.push_str("&app_profile_id=");
        routing.push_str(app_profile_id);
    }
    let mut req = Request::new(request);
    let metadata = req.metadata_mut();
    metadata.insert(
        "x-goog-request-params",
        MetadataValue::try_from(routing.as_str())
            .map_err(bigtable_rs::bigtable::Error::MetadataError)?,
    );
    // The full table name, as Google's Go client sends it.
    metadata.insert(
        "google-cloud-resource-prefix",
        MetadataValue::try_from(table_name).map_err(bigtable_rs::bigtable::Error::MetadataError)?,
    );
    metadata.insert(
        "bigtable-features",
        MetadataValue::try_from(feature_flags_header().as_str())
            .map_err(bigtable_rs::bigtable::Error::MetadataError)?,
    );
    Ok(req)
}

/// The `bigtable-features` header value: `FeatureFlags { reverse_scans }`
/// as protobuf bytes in URL-safe base64, as Google's Go and Java clients
/// send it. Without it the server refuses reversed reads ("Client doesn't
/// support reverse scans yet").
///
/// ```
/// assert_eq!(rowkey_bigtable::feature_flags_header(), "CAE=");
/// ```
pub fn feature_flags_header() -> String {
    use base64::Engine as _;
    use bigtable_rs::google::bigtable::v2::FeatureFlags;
    let flags = FeatureFlags {
        reverse_scans: true,
        ..FeatureFlags::default()
    };
    base64::engine::general_purpose::URL_SAFE.encode(prost::Message::encode_to_vec(&flags))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_routing_header_names_the_app_profile_when_there_is_one() {
        let req = with_headers("projects/p/instances/i/tables/t", "batch", ()).unwrap();
        assert_eq!(
            req.metadata().get("x-goog-request-params").unwrap(),
            "table_name=projects%2Fp%2Finstances%2Fi%2Ftables%2Ft&app_profile_id=batch"
        );
        let req = with_headers("projects/p/instances/i/tables/t", "", ()).unwrap();
        assert_eq!(
            req.metadata().get("x-goog-request-params").unwrap(),
            "table_name=projects%2Fp%2Finstances%2Fi%2Ftables%2Ft"
        );
    }
}
