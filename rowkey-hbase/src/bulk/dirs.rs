//! A load's directories, local or on HDFS (`hdfs://namenode:port/path`,
//! feature `hdfs`): what a program that runs several loads into one
//! output needs (`rowkey bulkload --worker`): whether a directory is
//! there, its entries, a rename and a removal.

use std::io;
use std::path::Path;

use crate::bulk::fs::Location;

/// Whether something is at `path`.
pub fn exists(path: &Path) -> io::Result<bool> {
    Location::new(path)?.exists()
}

/// The entries of the directory at `path`: each name, and whether it is a
/// directory (`NotFound` when it is not there).
pub fn list(path: &Path) -> io::Result<Vec<(String, bool)>> {
    Ok(Location::new(path)?
        .read_dir()?
        .into_iter()
        .map(|e| (e.name, e.dir))
        .collect())
}

/// Moves `from` to `to` (on the same filesystem; `to` must not exist).
pub fn rename(from: &Path, to: &Path) -> io::Result<()> {
    Location::new(from)?.rename(&Location::new(to)?)
}

/// Removes the directory at `path` and all it holds (nothing there is
/// fine).
pub fn remove_all(path: &Path) -> io::Result<()> {
    Location::new(path)?.remove_all()
}
