//! How long the native client keeps at an operation: its settings, and
//! the tries of one operation within its attempts and its budget.

use std::time::Duration;

use rowkey_core::clock::Tries;

use crate::RetryPolicy;

/// A native client's settings (all fixed before its first call).
#[derive(Clone, Debug)]
pub(super) struct Settings {
    /// The SIMPLE-auth user every connection claims.
    pub(super) user: String,
    /// How long opening a connection may take.
    pub(super) connect_timeout: Duration,
    /// The deadline of each call.
    pub(super) request_timeout: Duration,
    /// The budget of one operation across its tries.
    pub(super) operation_timeout: Duration,
    /// How often, and after which pauses, an operation is tried again.
    pub(super) retry: RetryPolicy,
    /// TLS to every server (feature `tls`).
    #[cfg(feature = "tls")]
    pub(super) tls: Option<super::tls::Connector>,
    /// The Kerberos login of every connection (feature `kerberos`).
    #[cfg(feature = "kerberos")]
    pub(super) kerberos: Option<crate::shared::kerberos::KerberosLogin>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            user: default_user(),
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(60),
            operation_timeout: Duration::from_secs(1_200),
            retry: native_retry(),
            #[cfg(feature = "tls")]
            tls: None,
            #[cfg(feature = "kerberos")]
            kerberos: None,
        }
    }
}

/// The native client's retries by default, HBase's Java client's:
/// `hbase.client.retries.number` 15 (16 tries), `hbase.client.pause`
/// 100 ms, pauses of at most 10 s (its backoff table ends at 100 pauses).
pub(crate) fn native_retry() -> RetryPolicy {
    RetryPolicy {
        attempts: 16,
        base: Duration::from_millis(100),
        max: Duration::from_secs(10),
    }
}

/// The user a SIMPLE-auth client claims when none is set, as Hadoop picks
/// it: `HADOOP_USER_NAME`, else the login (`USER`, `LOGNAME`), else the
/// name of the process's user in `/etc/passwd` (a service or container
/// with no login environment), else `rowkey`.
fn default_user() -> String {
    ["HADOOP_USER_NAME", "USER", "LOGNAME"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|u| !u.is_empty())
        .or_else(process_user)
        .unwrap_or_else(|| "rowkey".into())
}

/// The process's user name, from its uid and `/etc/passwd`.
#[cfg(unix)]
fn process_user() -> Option<String> {
    use std::os::unix::fs::MetadataExt as _;
    let uid = std::fs::metadata("/proc/self").ok()?.uid().to_string();
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let mut fields = line.split(':');
        let name = fields.next()?;
        (fields.nth(1)? == uid && !name.is_empty()).then(|| name.to_owned())
    })
}

#[cfg(not(unix))]
fn process_user() -> Option<String> {
    None
}

/// The tries of one operation: at most the policy's attempts, none
/// started past the operation's deadline (rowkey-core's [`Tries`], the
/// rule every client follows), paused on tokio's clock.
pub(super) struct Retries {
    tries: Tries,
    budget: Duration,
}

impl Retries {
    /// An operation starting now under `settings`.
    pub(super) fn new(settings: &Settings) -> Retries {
        Retries {
            tries: Tries::within(settings.retry, settings.operation_timeout),
            budget: settings.operation_timeout,
        }
    }

    /// Tries that failed so far.
    pub(super) fn failed(&self) -> u32 {
        self.tries.failed()
    }

    /// The last try failed, and the next may go at once (HBase said where
    /// the region went).
    pub(super) fn skip(&mut self) {
        self.tries.skip();
    }

    /// The last try failed: waits the policy's pause and returns, or says
    /// why there is no next try.
    pub(super) async fn again(&mut self) -> Result<(), Spent> {
        self.again_after(Duration::ZERO).await
    }

    /// [`again`](Self::again), pausing at least `least` (a server that
    /// said it is overloaded).
    pub(super) async fn again_after(&mut self, least: Duration) -> Result<(), Spent> {
        let budget = self.budget;
        let pause = self
            .tries
            .retry_after(least)
            .map_err(|why| Spent { why, budget })?;
        tokio::time::sleep(pause).await;
        Ok(())
    }
}

/// Why an operation stopped trying, and the budget it had.
pub(super) struct Spent {
    why: rowkey_core::clock::Spent,
    budget: Duration,
}

impl Spent {
    /// The error that ends an operation `op` on `table` after `what`
    /// (why each try failed).
    pub(super) fn error(self, op: &'static str, table: &str, what: &str) -> crate::Error {
        match self.why {
            rowkey_core::clock::Spent::Deadline => crate::Error::Timeout {
                op,
                table: table.into(),
                deadline: self.budget,
            },
            rowkey_core::clock::Spent::Attempts(n) => crate::Error::Connection {
                op,
                table: table.into(),
                server: String::new(),
                cause: format!("{what}: {n} attempts"),
            },
        }
    }
}
