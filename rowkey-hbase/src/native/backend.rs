//! The native client under the blocking [`Client`](crate::Client)
//! (`Client::native`): the async core driven on a runtime of its own, as
//! the `postgres` crate drives tokio-postgres.

use std::future::Future;

use super::client::NativeClient;
use crate::Error;

/// A [`NativeClient`] and the runtime its calls run on.
pub(crate) struct NativeBackend {
    client: NativeClient,
    /// Always `Some` until dropped.
    runtime: Option<tokio::runtime::Runtime>,
}

impl NativeBackend {
    /// `client` on a runtime of two worker threads.
    pub(crate) fn new(client: NativeClient) -> Result<Self, Error> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("rowkey-hbase-native")
            .enable_all()
            .build()
            .map_err(|e| Error::Config(format!("starting the native client's runtime: {e}")))?;
        Ok(NativeBackend {
            client,
            runtime: Some(runtime),
        })
    }

    /// The async client.
    pub(crate) fn client(&self) -> &NativeClient {
        &self.client
    }

    /// Runs `f` to its end on the client's runtime. Called from a thread
    /// that is not itself running async code (a blocking `Client`'s
    /// caller, or `AsyncClient`'s blocking pool).
    pub(crate) fn block_on<F: Future>(&self, f: F) -> F::Output {
        self.runtime
            .as_ref()
            .expect("set until dropped")
            .block_on(f)
    }
}

impl Drop for NativeBackend {
    /// Stops the runtime without waiting for its tasks (each connection's
    /// reader and writer end with it): the last clone of a `Client` may be
    /// dropped inside async code (an `AsyncClient`'s), where a runtime
    /// cannot wait.
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}
