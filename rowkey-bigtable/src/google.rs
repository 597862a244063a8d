//! Bigtable itself: TLS with the system's roots, Application Default
//! Credentials, the headers Google's clients send.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use tonic::metadata::MetadataValue;
use tonic::transport::{Certificate, ClientTlsConfig};

use crate::{Client, ClientOptions, Error};

/// Bigtable's data API endpoint.
pub const GOOGLE_ENDPOINT: &str = "https://bigtable.googleapis.com";

/// The OAuth scope of Bigtable's data API.
pub const DATA_SCOPE: &str = "https://www.googleapis.com/auth/bigtable.data";

/// Where and how [`Client::connect_google_with`] connects, set by struct
/// update from `GoogleOptions::default()`.
#[derive(Debug, Clone)]
pub struct GoogleOptions {
    /// The endpoint (default [`GOOGLE_ENDPOINT`]): an `https://` address,
    /// since every request carries the bearer token; anything else is
    /// refused unless [`insecure`](Self::insecure) is set.
    pub endpoint: String,
    /// Further root certificates (PEM) to trust besides the system's: for a
    /// proxy or a test server.
    pub root_pem: Option<Vec<u8>>,
    /// The client's deadlines, keepalive, app profile and retries.
    pub options: ClientOptions,
    /// How often the token is asked of its provider (default one minute;
    /// the provider fetches a new one only when it nears expiry).
    pub token_refresh: Duration,
    /// Allow an endpoint that is not `https://` (a local test server):
    /// the bearer token then travels in clear. Set it with
    /// [`insecure_for_testing`](Self::insecure_for_testing).
    pub insecure: bool,
}

impl Default for GoogleOptions {
    fn default() -> Self {
        GoogleOptions {
            endpoint: GOOGLE_ENDPOINT.to_string(),
            root_pem: None,
            options: ClientOptions::default(),
            token_refresh: Duration::from_secs(60),
            insecure: false,
        }
    }
}

impl GoogleOptions {
    /// These options with an endpoint that need not be `https://`: for a
    /// test server only, since the bearer token is then sent in clear.
    pub fn insecure_for_testing(mut self) -> Self {
        self.insecure = true;
        self
    }
}

/// The token the requests carry, and a refresh that failed since the last
/// call (the next call reports it).
struct Bearer {
    header: String,
    failed: Option<String>,
}

impl Client {
    /// A client of `project`/`instance` on Google Cloud Bigtable (feature
    /// `google`): TLS to `bigtable.googleapis.com` with the system's root
    /// certificates, and a bearer token from Application Default
    /// Credentials (`gcp_auth`: `GOOGLE_APPLICATION_CREDENTIALS`, gcloud's
    /// credentials, or the metadata server), refreshed in the background
    /// every minute (the provider keeps the token until it nears expiry).
    /// Every request carries the routing and resource headers Google's
    /// clients send.
    ///
    /// This crate's tests cannot reach Google: they check this against a
    /// local TLS server that verifies the token and the headers
    /// (`tests/google.rs`).
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), rowkey_bigtable::Error> {
    /// let client = rowkey_bigtable::Client::connect_google("my-project", "my-instance").await?;
    /// # Ok(()) }
    /// ```
    pub async fn connect_google(project: &str, instance: &str) -> Result<Client, Error> {
        Client::connect_google_with(project, instance, GoogleOptions::default()).await
    }

    /// [`connect_google`](Self::connect_google) with another endpoint,
    /// further roots and options.
    ///
    /// An endpoint that is not `https://` (`http://`, a bare `host:443`)
    /// is refused, since every request carries the bearer token, unless
    /// [`GoogleOptions::insecure_for_testing`] says otherwise. A token
    /// refresh that fails is logged (`tracing` warning) and the next call
    /// fails with `UNAUTHENTICATED` naming it; calls after it carry the
    /// last token until a refresh succeeds.
    pub async fn connect_google_with(
        project: &str,
        instance: &str,
        google: GoogleOptions,
    ) -> Result<Client, Error> {
        if !google.insecure && !google.endpoint.starts_with("https://") {
            return Err(Error::Google(format!(
                "{}: not https://, so the bearer token would travel in clear \
                 (GoogleOptions::insecure_for_testing() allows it for a test server)",
                google.endpoint
            )));
        }
        let provider = gcp_auth::provider()
            .await
            .map_err(|e| Error::Google(format!("Application Default Credentials: {e}")))?;
        let first = provider
            .token(&[DATA_SCOPE])
            .await
            .map_err(|e| Error::Google(format!("a token for {DATA_SCOPE}: {e}")))?;
        let bearer = Arc::new(RwLock::new(Bearer {
            header: format!("Bearer {}", first.as_str()),
            failed: None,
        }));
        let holder = Arc::downgrade(&bearer);
        let every = google.token_refresh;
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let Some(bearer) = holder.upgrade() else {
                    break;
                };
                let refreshed = provider.token(&[DATA_SCOPE]).await;
                let mut bearer = bearer.write().unwrap_or_else(|e| e.into_inner());
                match refreshed {
                    Ok(token) => {
                        bearer.header = format!("Bearer {}", token.as_str());
                        bearer.failed = None;
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "refreshing the Bigtable token failed");
                        bearer.failed = Some(e.to_string());
                    }
                }
            }
        });
        let mut tls = ClientTlsConfig::new().with_native_roots();
        if let Some(pem) = &google.root_pem {
            tls = tls.ca_certificate(Certificate::from_pem(pem));
        }
        let options = google.options;
        let channel = Client::endpoint(&google.endpoint)?
            .tls_config(tls)
            .map_err(|e| Error::Google(format!("TLS for {}: {e}", google.endpoint)))?
            .http2_keep_alive_interval(options.keepalive_interval)
            .keep_alive_timeout(options.keepalive_timeout)
            .keep_alive_while_idle(true)
            .connect_lazy();
        let client = Client::with_interceptor(channel, project, instance, move |mut request| {
            // A read lock on every request; the write lock only to report
            // a failed refresh, once.
            let value = {
                let read = bearer.read().unwrap_or_else(|e| e.into_inner());
                if read.failed.is_none() {
                    read.header.clone()
                } else {
                    drop(read);
                    let mut write = bearer.write().unwrap_or_else(|e| e.into_inner());
                    if let Some(failed) = write.failed.take() {
                        return Err(tonic::Status::unauthenticated(format!(
                            "refreshing the bearer token for {DATA_SCOPE} failed: {failed}"
                        )));
                    }
                    write.header.clone()
                }
            };
            let value = MetadataValue::try_from(value.as_str())
                .map_err(|_| tonic::Status::unauthenticated("the token is not a header value"))?;
            request.metadata_mut().insert("authorization", value);
            Ok(request)
        });
        Ok(client.with_options(options))
    }
}
