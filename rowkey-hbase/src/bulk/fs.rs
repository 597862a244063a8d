//! Where a load's files live: a local directory, or HDFS (feature `hdfs`,
//! through `hdfs-native`, a pure-Rust client: no JVM, no libhdfs).
//!
//! A [`Location`] is a path on one of them, named as the user gave it:
//! `hdfs://namenode:port/path` is on HDFS, anything else local. Every
//! operation is blocking: the HDFS client runs on a small runtime of its
//! own, so a caller inside an async runtime calls these from
//! `spawn_blocking`.

use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};

/// The rest of closing a file: returns once it is whole.
pub(crate) type Closing = Box<dyn FnOnce() -> io::Result<()> + Send>;

/// A file being written: bytes, then [`complete`](Target::complete), which
/// makes it whole (an HDFS file is closed: its last block committed).
pub(crate) trait Target: Write + Send {
    /// Flushes what is buffered and starts closing the file; the closing
    /// returned waits until it is whole. (HDFS completes a file once its
    /// DataNodes report its last block, half a second later or more:
    /// files closed together wait once.)
    fn complete(&mut self) -> io::Result<Closing>;
}

impl Target for std::fs::File {
    fn complete(&mut self) -> io::Result<Closing> {
        self.flush()?;
        Ok(Box::new(|| Ok(())))
    }
}

/// A file being read (its length comes beside it, from `Location::open`).
pub(crate) trait Source: Read + Seek + Send {}
impl<T: Read + Seek + Send> Source for T {}

/// A directory or file path, local or on HDFS.
#[derive(Clone)]
pub(crate) struct Location {
    path: PathBuf,
    #[cfg(feature = "hdfs")]
    hdfs: Option<std::sync::Arc<hdfs::Hdfs>>,
}

impl std::fmt::Debug for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.path.display())
    }
}

/// An entry of a directory: its name and whether it is a directory.
pub(crate) struct Entry {
    pub(crate) name: String,
    pub(crate) dir: bool,
}

impl Location {
    /// The location `path` names: `hdfs://...` on HDFS (an error without
    /// the `hdfs` feature), anything else local.
    pub(crate) fn new(path: &Path) -> io::Result<Location> {
        let text = path.to_string_lossy();
        if text.starts_with("hdfs://") {
            #[cfg(feature = "hdfs")]
            {
                return Ok(Location {
                    path: path.to_path_buf(),
                    hdfs: Some(hdfs::Hdfs::for_url(&text)?),
                });
            }
            #[cfg(not(feature = "hdfs"))]
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!("{text}: hdfs:// paths need rowkey-hbase's feature `hdfs`"),
            ));
        }
        Ok(Location {
            path: path.to_path_buf(),
            #[cfg(feature = "hdfs")]
            hdfs: None,
        })
    }

    /// The path as given (`hdfs://...` or local).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Whether it is on HDFS.
    pub(crate) fn is_hdfs(&self) -> bool {
        #[cfg(feature = "hdfs")]
        return self.hdfs.is_some();
        #[cfg(not(feature = "hdfs"))]
        false
    }

    /// A name under this directory.
    pub(crate) fn join(&self, name: &str) -> Location {
        let path = if self.is_hdfs() {
            PathBuf::from(format!(
                "{}/{name}",
                self.path.to_string_lossy().trim_end_matches('/')
            ))
        } else {
            self.path.join(name)
        };
        Location {
            path,
            #[cfg(feature = "hdfs")]
            hdfs: self.hdfs.clone(),
        }
    }

    /// The last part of the path.
    #[cfg_attr(not(feature = "native"), allow(dead_code))]
    pub(crate) fn name(&self) -> String {
        let text = self.path.to_string_lossy();
        text.trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_string()
    }

    /// The entries of this directory (`NotFound` when it is not there).
    pub(crate) fn read_dir(&self) -> io::Result<Vec<Entry>> {
        #[cfg(feature = "hdfs")]
        if let Some(h) = &self.hdfs {
            return h.read_dir(&self.path);
        }
        let mut out = Vec::new();
        for entry in std::fs::read_dir(&self.path)? {
            let entry = entry?;
            out.push(Entry {
                name: entry.file_name().to_string_lossy().into_owned(),
                dir: entry.file_type()?.is_dir(),
            });
        }
        Ok(out)
    }

    /// Whether something is there.
    pub(crate) fn exists(&self) -> io::Result<bool> {
        #[cfg(feature = "hdfs")]
        if let Some(h) = &self.hdfs {
            return h.exists(&self.path);
        }
        Ok(self.path.exists())
    }

    /// Creates this directory and its parents.
    pub(crate) fn create_dir_all(&self) -> io::Result<()> {
        #[cfg(feature = "hdfs")]
        if let Some(h) = &self.hdfs {
            return h.mkdirs(&self.path);
        }
        std::fs::create_dir_all(&self.path)
    }

    /// A new file here (an existing one is an error on HDFS, replaced
    /// locally).
    pub(crate) fn create(&self) -> io::Result<Box<dyn Target>> {
        #[cfg(feature = "hdfs")]
        if let Some(h) = &self.hdfs {
            return h.create(&self.path);
        }
        Ok(Box::new(std::fs::File::create(&self.path)?))
    }

    /// The file here, for reading, and its length.
    #[cfg_attr(not(feature = "native"), allow(dead_code))]
    pub(crate) fn open(&self) -> io::Result<(Box<dyn Source>, u64)> {
        #[cfg(feature = "hdfs")]
        if let Some(h) = &self.hdfs {
            return h.open(&self.path);
        }
        let file = std::fs::File::open(&self.path)?;
        let len = file.metadata()?.len();
        Ok((Box::new(file), len))
    }

    /// Moves this file or directory to `to` (on the same filesystem),
    /// which must not exist.
    pub(crate) fn rename(&self, to: &Location) -> io::Result<()> {
        #[cfg(feature = "hdfs")]
        if let Some(h) = &self.hdfs {
            return h.rename(&self.path, &to.path);
        }
        std::fs::rename(&self.path, &to.path)
    }

    /// Removes this directory and all it holds (nothing there is fine).
    pub(crate) fn remove_all(&self) -> io::Result<()> {
        #[cfg(feature = "hdfs")]
        if let Some(h) = &self.hdfs {
            return h.remove_all(&self.path);
        }
        match std::fs::remove_dir_all(&self.path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// Removes this file.
    #[cfg_attr(not(feature = "native"), allow(dead_code))]
    pub(crate) fn remove_file(&self) -> io::Result<()> {
        #[cfg(feature = "hdfs")]
        if let Some(h) = &self.hdfs {
            return h.remove_all(&self.path);
        }
        std::fs::remove_file(&self.path)
    }
}

/// HDFS through `hdfs-native`, driven from blocking code.
#[cfg(feature = "hdfs")]
mod hdfs {
    use std::collections::HashMap;
    use std::io::{self, Read, Seek, SeekFrom, Write};
    use std::path::Path;
    use std::sync::{Arc, Mutex, OnceLock};

    use super::{Closing, Entry, Source, Target};

    /// Bytes fetched from a DataNode at once, and written to it at once.
    const CHUNK: usize = 4 << 20;

    /// One NameNode's client, on a runtime of its own.
    pub(super) struct Hdfs {
        client: hdfs_native::Client,
        runtime: tokio::runtime::Runtime,
        /// `hdfs://authority`, stripped from paths.
        base: String,
    }

    fn other(e: impl std::fmt::Display) -> io::Error {
        io::Error::other(e.to_string())
    }

    fn hdfs_error(path: &Path, e: hdfs_native::HdfsError) -> io::Error {
        let kind = match &e {
            hdfs_native::HdfsError::FileNotFound(_) => io::ErrorKind::NotFound,
            hdfs_native::HdfsError::AlreadyExists(_) => io::ErrorKind::AlreadyExists,
            _ => io::ErrorKind::Other,
        };
        io::Error::new(kind, format!("{}: {e}", path.display()))
    }

    impl Hdfs {
        /// The client for the NameNode of `url`, made once per process.
        pub(super) fn for_url(url: &str) -> io::Result<Arc<Hdfs>> {
            static CLIENTS: OnceLock<Mutex<HashMap<String, Arc<Hdfs>>>> = OnceLock::new();
            let rest = &url["hdfs://".len()..];
            let authority = rest.split('/').next().unwrap_or_default();
            if authority.is_empty() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{url}: no NameNode (hdfs://HOST:PORT/PATH)"),
                ));
            }
            let base = format!("hdfs://{authority}");
            let mut clients = CLIENTS
                .get_or_init(Mutex::default)
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if let Some(h) = clients.get(&base) {
                return Ok(h.clone());
            }
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("rowkey-hdfs")
                .enable_all()
                .build()?;
            // Hadoop's client tries a NameNode that refuses 15 times over
            // minutes; a load given a wrong address says so in seconds.
            let client = hdfs_native::ClientBuilder::new()
                .with_url(&base)
                .with_config([("dfs.client.failover.max.attempts", "3")])
                .with_io_runtime(runtime.handle().clone())
                .build()
                .map_err(|e| other(format!("{url}: {e}")))?;
            let h = Arc::new(Hdfs {
                client,
                runtime,
                base: base.clone(),
            });
            clients.insert(base, h.clone());
            Ok(h)
        }

        /// The path on the NameNode (`/...`).
        fn inner(&self, path: &Path) -> io::Result<String> {
            let text = path.to_string_lossy();
            let rest = text
                .strip_prefix(&self.base)
                .ok_or_else(|| other(format!("{text}: not on {}", self.base)))?;
            Ok(if rest.is_empty() {
                "/".into()
            } else {
                rest.to_string()
            })
        }

        pub(super) fn read_dir(&self, path: &Path) -> io::Result<Vec<Entry>> {
            let p = self.inner(path)?;
            let list = self
                .runtime
                .block_on(self.client.list_status(&p, false))
                .map_err(|e| hdfs_error(path, e))?;
            Ok(list
                .into_iter()
                .map(|s| Entry {
                    name: s.path.rsplit('/').next().unwrap_or_default().to_string(),
                    dir: s.isdir,
                })
                .collect())
        }

        pub(super) fn exists(&self, path: &Path) -> io::Result<bool> {
            let p = self.inner(path)?;
            match self.runtime.block_on(self.client.get_file_info(&p)) {
                Ok(_) => Ok(true),
                Err(hdfs_native::HdfsError::FileNotFound(_)) => Ok(false),
                Err(e) => Err(hdfs_error(path, e)),
            }
        }

        pub(super) fn mkdirs(&self, path: &Path) -> io::Result<()> {
            let p = self.inner(path)?;
            self.runtime
                .block_on(self.client.mkdirs(&p, 0o755, true))
                .map_err(|e| hdfs_error(path, e))
        }

        pub(super) fn create(self: &Arc<Self>, path: &Path) -> io::Result<Box<dyn Target>> {
            let p = self.inner(path)?;
            let writer = self
                .runtime
                .block_on(
                    self.client
                        .create(&p, hdfs_native::WriteOptions::default().create_parent(true)),
                )
                .map_err(|e| hdfs_error(path, e))?;
            Ok(Box::new(HdfsWrite {
                hdfs: self.clone(),
                writer: Some(writer),
                buf: Vec::with_capacity(CHUNK),
                path: path.to_path_buf(),
            }))
        }

        pub(super) fn open(self: &Arc<Self>, path: &Path) -> io::Result<(Box<dyn Source>, u64)> {
            let p = self.inner(path)?;
            let reader = self
                .runtime
                .block_on(self.client.read(&p))
                .map_err(|e| hdfs_error(path, e))?;
            let len = reader.file_length() as u64;
            Ok((
                Box::new(HdfsRead {
                    hdfs: self.clone(),
                    reader,
                    len,
                    pos: 0,
                    buf: bytes::Bytes::new(),
                    buf_at: 0,
                    path: path.to_path_buf(),
                }),
                len,
            ))
        }

        pub(super) fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
            let (f, t) = (self.inner(from)?, self.inner(to)?);
            self.runtime
                .block_on(self.client.rename(&f, &t, false))
                .map_err(|e| hdfs_error(from, e))
        }

        pub(super) fn remove_all(&self, path: &Path) -> io::Result<()> {
            let p = self.inner(path)?;
            match self.runtime.block_on(self.client.delete(&p, true)) {
                Ok(_) | Err(hdfs_native::HdfsError::FileNotFound(_)) => Ok(()),
                Err(e) => Err(hdfs_error(path, e)),
            }
        }
    }

    /// A file written to HDFS in chunks.
    struct HdfsWrite {
        hdfs: Arc<Hdfs>,
        writer: Option<hdfs_native::file::FileWriter>,
        buf: Vec<u8>,
        path: std::path::PathBuf,
    }

    impl HdfsWrite {
        fn send(&mut self) -> io::Result<()> {
            if self.buf.is_empty() {
                return Ok(());
            }
            let chunk =
                bytes::Bytes::from(std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK)));
            let writer = self.writer.as_mut().ok_or_else(|| {
                other(format!(
                    "{}: written after it was closed",
                    self.path.display()
                ))
            })?;
            self.hdfs
                .runtime
                .block_on(writer.write_bytes(chunk))
                .map(|_| ())
                .map_err(|e| hdfs_error(&self.path, e))
        }
    }

    impl Write for HdfsWrite {
        fn write(&mut self, data: &[u8]) -> io::Result<usize> {
            self.buf.extend_from_slice(data);
            if self.buf.len() >= CHUNK {
                self.send()?;
            }
            Ok(data.len())
        }

        /// Bytes reach HDFS in chunks and when the file completes.
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Target for HdfsWrite {
        fn complete(&mut self) -> io::Result<Closing> {
            self.send()?;
            let Some(mut writer) = self.writer.take() else {
                return Ok(Box::new(|| Ok(())));
            };
            let path = self.path.clone();
            let runtime = self.hdfs.runtime.handle().clone();
            let closing = runtime.spawn(async move { writer.close().await });
            Ok(Box::new(move || {
                runtime
                    .block_on(closing)
                    .map_err(|e| other(format!("{}: {e}", path.display())))?
                    .map_err(|e| hdfs_error(&path, e))
            }))
        }
    }

    /// A file read from HDFS a chunk at a time.
    struct HdfsRead {
        hdfs: Arc<Hdfs>,
        reader: hdfs_native::file::FileReader,
        len: u64,
        pos: u64,
        /// Bytes fetched, starting at `buf_at`.
        buf: bytes::Bytes,
        buf_at: u64,
        path: std::path::PathBuf,
    }

    impl Read for HdfsRead {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.pos >= self.len || out.is_empty() {
                return Ok(0);
            }
            let end = self.buf_at + self.buf.len() as u64;
            if self.pos < self.buf_at || self.pos >= end {
                let want = CHUNK.min((self.len - self.pos) as usize);
                self.buf = self
                    .hdfs
                    .runtime
                    .block_on(self.reader.read_range(self.pos as usize, want))
                    .map_err(|e| hdfs_error(&self.path, e))?;
                self.buf_at = self.pos;
                if self.buf.is_empty() {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        format!("{}: no bytes at {}", self.path.display(), self.pos),
                    ));
                }
            }
            let from = (self.pos - self.buf_at) as usize;
            let n = out.len().min(self.buf.len() - from);
            out[..n].copy_from_slice(&self.buf[from..from + n]);
            self.pos += n as u64;
            Ok(n)
        }
    }

    impl Seek for HdfsRead {
        fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
            let pos = match to {
                SeekFrom::Start(p) => Some(p),
                SeekFrom::End(d) => self.len.checked_add_signed(d),
                SeekFrom::Current(d) => self.pos.checked_add_signed(d),
            };
            self.pos = pos.ok_or_else(|| {
                io::Error::new(io::ErrorKind::InvalidInput, "a seek before the start")
            })?;
            Ok(self.pos)
        }
    }
}
