//! What a running test [`HBase`] is asked through its launcher's standard
//! input: regions split and moved, region servers stopped and started,
//! quotas and grants, bulk loads, what the region servers counted, a
//! kerberized cluster's principals.

use std::io::{self, Write as _};
use std::path::Path;
use std::time::Duration;

use super::{hex, unhex, HBase};

impl HBase {
    /// Splits the region of `table` holding `key` at `key`, and returns
    /// once both halves are open.
    pub fn split_region(&self, table: &str, key: &[u8]) -> io::Result<()> {
        self.request(&format!("split {table} {}", hex(key)))
            .map(|_| ())
    }

    /// Moves every region of `table` to another region server (HBase
    /// picks it; with one region server, it closes and reopens there), and
    /// returns once each is open again.
    pub fn move_regions(&self, table: &str) -> io::Result<()> {
        self.request(&format!("move {table}")).map(|_| ())
    }

    /// The live region servers' addresses (`host:port`), in the order
    /// [`stop_region_server`](Self::stop_region_server) counts them.
    pub fn live_region_servers(&self) -> io::Result<Vec<String>> {
        self.request("servers")?
            .iter()
            .map(|line| server_line(line))
            .collect()
    }

    /// Stops the `i`th live region server cleanly (its regions closed and
    /// then reassigned by the master to the others, as a rolling restart
    /// does); returns its address once it has stopped, before its regions
    /// are open elsewhere ([`settle`](Self::settle) waits for that).
    pub fn stop_region_server(&self, i: usize) -> io::Result<String> {
        self.request(&format!("rsstop {i}"))
            .and_then(|a| one_server(&a))
    }

    /// Aborts the `i`th live region server as a crash does (no region
    /// closed: the master splits its write-ahead log and reassigns its
    /// regions); returns its address once it has stopped.
    pub fn abort_region_server(&self, i: usize) -> io::Result<String> {
        self.request(&format!("rsabort {i}"))
            .and_then(|a| one_server(&a))
    }

    /// Starts one more region server and returns its address once it is
    /// online (the balancer may move regions to it later).
    pub fn start_region_server(&self) -> io::Result<String> {
        self.request("rsstart").and_then(|a| one_server(&a))
    }

    /// Limits `user` to `per_second` requests a second on every region
    /// server (HBase's quotas: the server must be started with
    /// `hbase.quota.enabled` = `true`; the region servers apply it at
    /// their next quota refresh, `hbase.quota.refresh.period`). Past it,
    /// they refuse calls with `RpcThrottlingException`.
    pub fn throttle_user(&self, user: &str, per_second: u64) -> io::Result<()> {
        self.request(&format!("throttle {user} {per_second}"))
            .map(|_| ())
    }

    /// Gives `user` the rights `actions` (letters of `RWXCA`: read, write,
    /// exec, create, admin) on `table`, through HBase's access control
    /// (a cluster started with
    /// [`HBaseBuilder::authorization`](super::HBaseBuilder::authorization)), as the
    /// cluster's superuser.
    pub fn grant(&self, user: &str, table: &str, actions: &str) -> io::Result<()> {
        if actions.is_empty() || !actions.chars().all(|c| "RWXCA".contains(c)) {
            return Err(io::Error::other(format!(
                "rights {actions:?}: letters of RWXCA wanted"
            )));
        }
        self.request(&format!("grant {user} {table} {actions}"))
            .map(|_| ())
    }

    /// Flushes and major-compacts every region of `table`, in the
    /// cluster's JVM, before it returns: what a compaction purges (delete
    /// markers older than the families' `hbase.hstore.time.to.purge.deletes`
    /// and the cells they mask) is gone after it.
    pub fn major_compact(&self, table: &str) -> io::Result<()> {
        self.request(&format!("majorcompact {table}")).map(|_| ())
    }

    /// Waits, up to two minutes, until no region of any table is in
    /// transition and each has a server.
    pub fn settle(&self) -> io::Result<()> {
        self.request("settled").map(|_| ())
    }

    /// One request to the cluster's JVM: the lines of its answer, up to
    /// its `END`.
    pub(super) fn request(&self, request: &str) -> io::Result<Vec<String>> {
        let mut cluster = self.cluster.lock().unwrap_or_else(|e| e.into_inner());
        let stdin = cluster.child.stdin.as_mut().expect("piped");
        writeln!(stdin, "{request}")?;
        stdin.flush()?;
        let mut answer = Vec::new();
        loop {
            let line = cluster
                .lines
                .recv_timeout(Duration::from_secs(120))
                .map_err(|_| io::Error::other(format!("HBase did not answer `{request}`")))?;
            if line == "END" {
                break;
            }
            answer.push(line);
        }
        match answer.iter().find(|l| l.starts_with("ERROR ")) {
            Some(e) => Err(io::Error::other(format!("{request}: {e}"))),
            None => Ok(answer),
        }
    }

    /// Every region of `table` in key order, with its server and the write
    /// requests it has served, as HBase's region servers count them (their
    /// `RegionMetrics`): what the table looks like on the engine itself.
    pub fn region_writes(&self, table: &str) -> io::Result<Vec<RegionWrites>> {
        self.request(&format!("regions {table}"))?
            .iter()
            .map(|line| {
                let parts: Vec<&str> = line.split(' ').collect();
                match parts.as_slice() {
                    ["region", start, end, server, writes] => Ok(RegionWrites {
                        start: unhex(start)?,
                        end: unhex(end)?,
                        server: (*server).to_string(),
                        writes: writes.parse().map_err(io::Error::other)?,
                    }),
                    _ => Err(io::Error::other(format!("regions of {table}: {line}"))),
                }
            })
            .collect()
    }

    /// What rowkey's region-server filter (`rowkey.hbase.KeyFilter`) has
    /// done in this HBase since it started, as the filter counts it.
    pub fn filter_reads(&self) -> io::Result<FilterReads> {
        let answer = self.request("filterrows")?;
        let parse = |line: &str| -> Option<FilterReads> {
            match line.split(' ').collect::<Vec<_>>().as_slice() {
                ["ROWS", rows, "SEEKS", seeks] => Some(FilterReads {
                    rows: rows.parse().ok()?,
                    seeks: seeks.parse().ok()?,
                }),
                _ => None,
            }
        };
        match answer.as_slice() {
            [line] => parse(line).ok_or_else(|| io::Error::other(format!("filterrows: {line}"))),
            _ => Err(io::Error::other(format!("filterrows: {answer:?}"))),
        }
    }

    /// Loads the HFiles under `dir` (`dir/<family>/<file>`, as
    /// [`BulkLoad`](crate::bulk::BulkLoad) writes them) into `table` with
    /// HBase's own bulk load (`BulkLoadHFiles`, what `hbase
    /// completebulkload` runs; a file that spans regions is split by it).
    /// The region servers read each file through before taking it
    /// (`hbase.hstore.bulkload.verify`). The files are moved into the
    /// table: once loaded they are gone from `dir` (what HBase copied
    /// rather than renamed is removed), so a second load of `dir` loads
    /// nothing. A missing table is an error, never created. Returns how
    /// many files were loaded.
    pub fn bulk_load(&self, dir: &Path, table: &str) -> io::Result<usize> {
        let dir = dir.canonicalize()?;
        let answer = self.request(&format!(
            "bulkload {table} {}",
            hex(dir.display().to_string().as_bytes())
        ))?;
        answer
            .iter()
            .find_map(|l| l.strip_prefix("loaded "))
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| io::Error::other(format!("bulk load into {table}: {answer:?}")))
    }

    /// The row `key` of `table` as HBase's own Java client reads it
    /// (`Table.get`): its cells `(family, qualifier, value)` in HBase's
    /// order, empty when there is no such row. What a Java service beside
    /// rowkey sees, read with no rowkey code.
    pub fn java_get(&self, table: &str, key: &[u8]) -> io::Result<Vec<crate::Cell>> {
        self.request(&format!("getrow {table} {}", hex(key)))?
            .iter()
            .map(
                |line| match line.split(' ').collect::<Vec<_>>().as_slice() {
                    ["cell", family, qualifier, value] => Ok((
                        String::from_utf8(unhex(family)?).map_err(io::Error::other)?,
                        unhex(qualifier)?,
                        unhex(value)?,
                    )),
                    _ => Err(io::Error::other(format!("row of {table}: {line}"))),
                },
            )
            .collect()
    }

    /// The store files HBase keeps for each region and family of `table`,
    /// counted in the region's directory, regions in key order.
    pub fn store_files(&self, table: &str) -> io::Result<Vec<StoreFiles>> {
        self.request(&format!("storefiles {table}"))?
            .iter()
            .map(
                |line| match line.split(' ').collect::<Vec<_>>().as_slice() {
                    ["storefiles", start, end, family, files] => Ok(StoreFiles {
                        start: unhex(start)?,
                        end: unhex(end)?,
                        family: (*family).to_string(),
                        files: files.parse().map_err(io::Error::other)?,
                    }),
                    _ => Err(io::Error::other(format!("store files of {table}: {line}"))),
                },
            )
            .collect()
    }

    /// The last lines HBase and its gateway logged (warnings and errors).
    pub fn log_tail(&self) -> String {
        let cluster = self.cluster.lock().unwrap_or_else(|e| e.into_inner());
        let gateway = self.gateway.lock().unwrap_or_else(|e| e.into_inner());
        match gateway.as_ref() {
            Some(gateway) => format!(
                "{}\n-- the gateway:\n{}",
                cluster.log_tail(),
                gateway.log_tail()
            ),
            None => cluster.log_tail(),
        }
    }
}

/// What rowkey's region-server filter has done ([`HBase::filter_reads`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FilterReads {
    /// Rows the region scanners reached and the filter looked at (rows
    /// skipped by its seeks are not reached).
    pub rows: u64,
    /// Seeks it asked for (one per row that did not match and had a row
    /// after it that could).
    pub seeks: u64,
}

impl std::ops::Sub for FilterReads {
    type Output = FilterReads;
    /// What was done between `earlier` and `self`.
    fn sub(self, earlier: FilterReads) -> FilterReads {
        FilterReads {
            rows: self.rows.saturating_sub(earlier.rows),
            seeks: self.seeks.saturating_sub(earlier.seeks),
        }
    }
}

/// One region as [`HBase::region_writes`] reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionWrites {
    /// The region's first key (empty for the first region).
    pub start: Vec<u8>,
    /// The first key after it (empty for the last region).
    pub end: Vec<u8>,
    /// Its region server, `host:port` (`-` while it moves).
    pub server: String,
    /// Write requests it has served since it opened.
    pub writes: u64,
}

/// One region and family as [`HBase::store_files`] reports them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreFiles {
    /// The region's first key (empty for the first region).
    pub start: Vec<u8>,
    /// The first key after it (empty for the last region).
    pub end: Vec<u8>,
    /// The column family.
    pub family: String,
    /// Its store files.
    pub files: usize,
}

/// The address in a `server HOST:PORT` line.
fn server_line(line: &str) -> io::Result<String> {
    line.strip_prefix("server ")
        .map(str::to_owned)
        .ok_or_else(|| io::Error::other(format!("not a server line: {line}")))
}

/// The one server an answer names.
fn one_server(answer: &[String]) -> io::Result<String> {
    match answer {
        [line] => server_line(line),
        _ => Err(io::Error::other(format!("expected one server: {answer:?}"))),
    }
}

/// The KDC of a kerberized test [`HBase`] ([`HBase::kdc`], feature
/// `kerberos`).
#[cfg(feature = "kerberos")]
pub struct Kdc<'a> {
    pub(super) hbase: &'a HBase,
    pub(super) info: &'a super::kdc::KdcInfo,
}

#[cfg(feature = "kerberos")]
impl std::fmt::Debug for Kdc<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kdc")
            .field("realm", &self.info.realm)
            .finish()
    }
}

#[cfg(feature = "kerberos")]
impl Kdc<'_> {
    /// The realm (`EXAMPLE.COM`).
    pub fn realm(&self) -> &str {
        &self.info.realm
    }

    /// A Kerberos configuration for the system's library that points at
    /// this KDC (no DNS lookups, the ticket lifetime the builder asked
    /// for): a client process sets `KRB5_CONFIG` to it before its first
    /// login.
    pub fn krb5_conf(&self) -> &Path {
        &self.info.krb5_conf
    }

    /// Makes the principal `name` (`alice`, `svc/host`) of the realm and a
    /// keytab with its key: its full name (`alice@EXAMPLE.COM`) and the
    /// keytab's path. The cluster's superuser is `admin`.
    pub fn principal(&self, name: &str) -> io::Result<(String, std::path::PathBuf)> {
        if name.is_empty() || name.contains(['@', ' ', '\n']) {
            return Err(io::Error::other(format!(
                "principal {name:?}: a name without realm, spaces or @ wanted"
            )));
        }
        let answer = self.hbase.request(&format!("principal {name}"))?;
        let path = answer
            .iter()
            .find_map(|l| l.strip_prefix("keytab "))
            .ok_or_else(|| io::Error::other(format!("the KDC made no keytab for {name}")))?;
        Ok((format!("{name}@{}", self.info.realm), path.into()))
    }
}
