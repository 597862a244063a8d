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

/// Where and how [`Client::connect_google_with`] connects.
#[derive(Debug, Clone)]
pub struct GoogleOptions {
    /// The endpoint (default [`GOOGLE_ENDPOINT`]).
    pub endpoint: String,
    /// Further root certificates (PEM) to trust besides the system's: for a
    /// proxy or a test server.
    pub root_pem: Option<Vec<u8>>,
    /// The client's deadlines, keepalive, app profile and retries.
    pub options: ClientOptions,
}

impl Default for GoogleOptions {
    fn default() -> Self {
        GoogleOptions {
            endpoint: GOOGLE_ENDPOINT.to_string(),
            root_pem: None,
            options: ClientOptions::default(),
        }
    }
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
    pub async fn connect_google_with(
        project: &str,
        instance: &str,
        google: GoogleOptions,
    ) -> Result<Client, Error> {
        let provider = gcp_auth::provider()
            .await
            .map_err(|e| Error::Google(format!("Application Default Credentials: {e}")))?;
        let first = provider
            .token(&[DATA_SCOPE])
            .await
            .map_err(|e| Error::Google(format!("a token for {DATA_SCOPE}: {e}")))?;
        let bearer = Arc::new(RwLock::new(format!("Bearer {}", first.as_str())));
        let holder = Arc::downgrade(&bearer);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(60)).await;
                let Some(bearer) = holder.upgrade() else {
                    break;
                };
                if let Ok(token) = provider.token(&[DATA_SCOPE]).await {
                    *bearer.write().unwrap_or_else(|e| e.into_inner()) =
                        format!("Bearer {}", token.as_str());
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
            let value = bearer.read().unwrap_or_else(|e| e.into_inner()).clone();
            let value = MetadataValue::try_from(value.as_str())
                .map_err(|_| tonic::Status::unauthenticated("the token is not a header value"))?;
            request.metadata_mut().insert("authorization", value);
            Ok(request)
        });
        Ok(client.with_options(options))
    }
}
