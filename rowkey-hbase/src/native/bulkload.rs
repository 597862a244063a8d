//! Bulk load through the region servers, as HBase's `BulkLoadHFiles`
//! does it, with no Java: `PrepareBulkLoad` (a staging directory and its
//! token), one `BulkLoadHFile` per region with that region's files of
//! every family, `CleanupBulkLoad`. A file that crosses a region boundary
//! (the table split since the files were written) is split at the
//! boundaries first, into `FAMILY/_tmp/` beside it, as HBase's tool does.

use std::collections::BTreeMap;
use std::path::Path;

use super::client::{NativeClient, Refusal};
use super::convert::specifier;
use super::regions::{self, Region};
use crate::bulk::fs::Location;
use crate::bulk::hfile::{Bloom, HFileError, HFileOptions, HFileReader, HFileWriter};
use crate::types::BulkLoadReport;
use crate::Error;
use rowkey_hbase_protocol::pb;

/// Regions loaded at once.
const PARALLEL: usize = 8;

/// One file to load: its family, where it is (and its family's
/// directory), its first and last rows.
#[derive(Debug, Clone)]
struct Piece {
    family: String,
    path: Location,
    dir: Location,
    first: Vec<u8>,
    last: Vec<u8>,
}

/// Runs blocking filesystem work (a local disk, HDFS's client) off the
/// runtime's workers.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, Error> + Send + 'static,
) -> Result<T, Error> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| bulk_error(format!("a file task failed: {e}")))?
}

impl NativeClient {
    /// Loads the HFiles under `dir` (`dir/FAMILY/FILE`, as
    /// [`BulkLoad`](crate::bulk::BulkLoad) writes them, and files split
    /// earlier under `dir/FAMILY/_tmp/`) into `table` through its region
    /// servers. The region servers must be able to read the paths (a
    /// filesystem they share: a local directory on a one-machine cluster,
    /// HDFS in production). HBase moves each loaded file into the table,
    /// so running it again after a failure loads what is left and nothing
    /// twice. A missing table or a family the table does not have is an
    /// error before anything is loaded.
    pub async fn bulk_load(&self, dir: &Path, table: &str) -> Result<BulkLoadReport, Error> {
        self.bulk_load_files(dir, table)
            .await
            .map_err(|e| for_table(e, table))
    }

    async fn bulk_load_files(&self, dir: &Path, table: &str) -> Result<BulkLoadReport, Error> {
        let families = self.families(table).await?;
        let dir = dir.to_path_buf();
        let queue = blocking(move || {
            let dir = Location::new(&dir).map_err(|e| io_error(&dir, e))?;
            let mut queue = Vec::new();
            for family in family_dirs(&dir)? {
                let family_dir = dir.join(&family);
                if !families.contains(&family) {
                    return Err(bulk_error(format!(
                        "{}: the table has no family {family:?} (it has {families:?})",
                        family_dir.path().display()
                    )));
                }
                for path in hfiles(&family_dir)? {
                    if let Some(piece) = piece(&family, &family_dir, path)? {
                        queue.push(piece);
                    }
                }
            }
            Ok(queue)
        })
        .await?;
        let mut report = BulkLoadReport::default();
        if queue.is_empty() {
            return Ok(report);
        }
        let first = self.regions(table, false).await?[0].clone();
        let token = self.prepare(table, &first).await?;
        let loaded = self.load(table, &token, queue, &mut report).await;
        // The staging directory goes whatever happened.
        let cleanup = self.cleanup(table, &token).await;
        loaded?;
        cleanup?;
        Ok(report)
    }

    async fn prepare(&self, table: &str, region: &Region) -> Result<String, Error> {
        let request = pb::PrepareBulkLoadRequest {
            table_name: super::admin::table_name(table),
            region: Some(specifier(&region.name)),
        };
        self.on_region(table, &region.start, "PrepareBulkLoad", |region| {
            let request = pb::PrepareBulkLoadRequest {
                region: Some(specifier(&region.name)),
                ..request.clone()
            };
            async move {
                let (response, _): (pb::PrepareBulkLoadResponse, _) = self
                    .call(&region.server, "PrepareBulkLoad", &request, &[], table)
                    .await?;
                Ok(response.bulk_token)
            }
        })
        .await
    }

    async fn cleanup(&self, table: &str, token: &str) -> Result<(), Error> {
        self.on_region(table, b"", "CleanupBulkLoad", |region| {
            let request = pb::CleanupBulkLoadRequest {
                bulk_token: token.to_owned(),
                region: Some(specifier(&region.name)),
            };
            async move {
                let _: (pb::CleanupBulkLoadResponse, _) = self
                    .call(&region.server, "CleanupBulkLoad", &request, &[], table)
                    .await?;
                Ok(())
            }
        })
        .await
    }

    /// Loads `queue` region by region, splitting what crosses a boundary,
    /// sending again what a region refused because it moved or split.
    async fn load(
        &self,
        table: &str,
        token: &str,
        mut queue: Vec<Piece>,
        report: &mut BulkLoadReport,
    ) -> Result<(), Error> {
        use futures_util::StreamExt as _;
        let mut tries = self.tries();
        let mut refresh = false;
        while !queue.is_empty() {
            // Files a region server answered `loaded: false` for.
            let mut refused = 0;
            let regions = self.regions(table, refresh).await?;
            refresh = false;
            let mut by_region: BTreeMap<usize, Vec<Piece>> = BTreeMap::new();
            for piece in queue.drain(..) {
                let i = regions::index(&regions, &piece.first).ok_or_else(|| {
                    bulk_error(format!(
                        "hbase:meta lists no region for the first row of {}",
                        piece.path.path().display()
                    ))
                })?;
                let region = &regions[i];
                if region.end.is_empty() || piece.last < region.end {
                    by_region.entry(i).or_default().push(piece);
                    continue;
                }
                report.split += 1;
                let after: Vec<Region> = regions[i..].to_vec();
                for (j, half) in blocking(move || split(&piece, &after)).await? {
                    by_region.entry(i + j).or_default().push(half);
                }
            }
            let sends = by_region.into_iter().map(|(i, pieces)| {
                let region = regions[i].clone();
                async move {
                    let request = pb::BulkLoadHFileRequest {
                        region: specifier(&region.name),
                        family_path: pieces
                            .iter()
                            .map(|p| pb::bulk_load_h_file_request::FamilyPath {
                                family: p.family.as_bytes().to_vec(),
                                path: server_path(&p.path),
                            })
                            .collect(),
                        assign_seq_num: Some(true),
                        bulk_token: Some(token.to_owned()),
                        copy_file: Some(false),
                        ..Default::default()
                    };
                    let answer: Result<(pb::BulkLoadHFileResponse, _), Refusal> = self
                        .call(&region.server, "BulkLoadHFile", &request, &[], table)
                        .await;
                    (pieces, answer)
                }
            });
            let mut answers = futures_util::stream::iter(sends).buffer_unordered(PARALLEL);
            let mut failed = None;
            while let Some((pieces, answer)) = answers.next().await {
                match answer {
                    Ok((response, _)) if response.loaded => {
                        report.files += pieces.len();
                        report.regions += 1;
                        // HBase moves a file it loads from HDFS; from
                        // another filesystem it copies it: what is left is
                        // removed, so that a second run loads nothing twice.
                        let loaded: Vec<Location> = pieces.iter().map(|p| p.path.clone()).collect();
                        let removed = blocking(move || {
                            for p in loaded {
                                match p.remove_file() {
                                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                                        tracing::warn!(
                                            path = %p.path().display(),
                                            error = %e,
                                            "a loaded file could not be removed: a second run would load it again"
                                        );
                                    }
                                    _ => {}
                                }
                            }
                            Ok(())
                        });
                        removed.await?;
                    }
                    // HBase's answer both for a region that split since it
                    // was looked up (a file no longer fits) and for a file
                    // it could not read (its log says which): the files
                    // go where the regions are now, as HBase's tool does.
                    Ok(_) => {
                        refresh = true;
                        refused += pieces.len();
                        queue.extend(pieces);
                    }
                    // Closing, moved or overloaded: the same.
                    Err(Refusal::Moved(_) | Refusal::Busy(_)) => {
                        refresh = true;
                        queue.extend(pieces);
                    }
                    Err(Refusal::Fatal(e)) if e.to_string().contains("WrongRegionException") => {
                        refresh = true;
                        queue.extend(pieces);
                    }
                    Err(Refusal::Fatal(e)) => failed = failed.or(Some(e)),
                }
            }
            if let Some(e) = failed {
                return Err(e);
            }
            if !queue.is_empty() {
                if let Err(spent) = tries.again().await {
                    let what = if refused > 0 {
                        format!(
                            "{} files not loaded: the region servers answered `loaded: false` for \
                             {refused} (a region that split, or a file they cannot read as user {}: \
                             their log names it)",
                            queue.len(),
                            self.user()
                        )
                    } else {
                        format!(
                            "{} files not loaded: their regions kept moving",
                            queue.len()
                        )
                    };
                    return Err(spent.error("BulkLoadHFile", table, &what));
                }
                self.count_retry();
            }
        }
        Ok(())
    }
}

/// The family directories under `dir` (hidden ones and `_`-prefixed ones,
/// a load's scratch, skipped).
fn family_dirs(dir: &Location) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    let entries = dir.read_dir().map_err(|e| io_error(dir.path(), e))?;
    for entry in entries {
        if entry.dir && !entry.name.starts_with('.') && !entry.name.starts_with('_') {
            out.push(entry.name);
        }
    }
    out.sort();
    Ok(out)
}

/// The files of a family directory and of its `_tmp/` (split pieces of an
/// earlier run), sorted.
fn hfiles(family: &Location) -> Result<Vec<Location>, Error> {
    let mut out = Vec::new();
    for dir in [family.clone(), family.join("_tmp")] {
        let entries = match dir.read_dir() {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(io_error(dir.path(), e)),
        };
        for entry in entries {
            if !entry.dir && !entry.name.starts_with('.') && !entry.name.starts_with('_') {
                out.push(dir.join(&entry.name));
            }
        }
    }
    out.sort_by(|a, b| a.path().cmp(b.path()));
    Ok(out)
}

/// The path a region server is sent: HDFS's URI as it is, a local file
/// as an absolute `file://` URI.
fn server_path(p: &Location) -> String {
    if p.is_hdfs() {
        return p.path().to_string_lossy().into_owned();
    }
    let local = p
        .path()
        .canonicalize()
        .unwrap_or_else(|_| p.path().to_path_buf());
    format!("file://{}", local.display())
}

fn io_error(path: &Path, e: std::io::Error) -> Error {
    bulk_error(format!("{}: {e}", path.display()))
}

fn hfile_error(e: HFileError) -> Error {
    bulk_error(e.to_string())
}

/// An error of the load; its table is filled in by
/// [`NativeClient::bulk_load`].
fn bulk_error(cause: String) -> Error {
    Error::BulkLoad {
        table: String::new(),
        cause,
    }
}

/// `e` naming `table`.
fn for_table(e: Error, table: &str) -> Error {
    match e {
        Error::BulkLoad { cause, .. } => Error::BulkLoad {
            table: table.to_owned(),
            cause,
        },
        other => other,
    }
}

/// The file at `path` with its first and last rows; `None` when it holds
/// no cell (nothing to load: it is removed).
fn piece(family: &str, dir: &Location, path: Location) -> Result<Option<Piece>, Error> {
    let mut reader = open(&path)?;
    let Some(first) = reader.next_cell().map_err(hfile_error)? else {
        path.remove_file().map_err(|e| io_error(path.path(), e))?;
        return Ok(None);
    };
    let last = reader
        .last_cell()
        .map_err(hfile_error)?
        .expect("a file with a first cell has a last");
    Ok(Some(Piece {
        family: family.to_owned(),
        path,
        dir: dir.clone(),
        first: first.row,
        last: last.row,
    }))
}

/// `piece` cut at the boundaries of `regions` (the first holds its first
/// row) into files under `FAMILY/_tmp/`, each with the index of its region
/// in `regions`; the original removed once they are written.
fn split(piece: &Piece, regions: &[Region]) -> Result<Vec<(usize, Piece)>, Error> {
    let mut reader = open(&piece.path)?;
    let family_dir = piece.dir.join("_tmp");
    family_dir
        .create_dir_all()
        .map_err(|e| io_error(family_dir.path(), e))?;
    let name = piece.path.name();
    let options = HFileOptions {
        compression: reader.compression(),
        bloom: Bloom::Row,
        ..HFileOptions::new(&piece.family)
    };
    let mut out: Vec<(usize, Piece)> = Vec::new();
    let mut writer: Option<(usize, HFileWriter, Piece)> = None;
    let mut region = 0;
    while let Some(cell) = reader.next_cell().map_err(hfile_error)? {
        while !regions[region].end.is_empty() && cell.row >= regions[region].end {
            region += 1;
            if region == regions.len() {
                return Err(bulk_error(format!(
                    "{} holds rows past the table's last region",
                    piece.path.path().display()
                )));
            }
        }
        if writer.as_ref().is_some_and(|(r, _, _)| *r != region) {
            let (r, w, p) = writer.take().expect("checked");
            w.finish().map_err(hfile_error)?;
            out.push((r, p));
        }
        let (_, w, p) = match &mut writer {
            Some(open) => open,
            None => {
                let path = family_dir.join(&format!("{name}.{}", out.len()));
                // A piece an earlier run left half-written goes first.
                let _ = path.remove_file();
                let target = path.create().map_err(|e| io_error(path.path(), e))?;
                let w = HFileWriter::to_target(target, path.path().to_path_buf(), options.clone())
                    .map_err(hfile_error)?;
                let p = Piece {
                    family: piece.family.clone(),
                    path,
                    dir: piece.dir.clone(),
                    first: cell.row.clone(),
                    last: cell.row.clone(),
                };
                writer.insert((region, w, p))
            }
        };
        w.append(&cell.row, &cell.qualifier, cell.timestamp, &cell.value)
            .map_err(hfile_error)?;
        p.last.clone_from(&cell.row);
    }
    if let Some((r, w, p)) = writer {
        w.finish().map_err(hfile_error)?;
        out.push((r, p));
    }
    piece
        .path
        .remove_file()
        .map_err(|e| io_error(piece.path.path(), e))?;
    Ok(out)
}

/// A reader of the HFile at `path`.
fn open(path: &Location) -> Result<HFileReader, Error> {
    let (source, len) = path.open().map_err(|e| io_error(path.path(), e))?;
    HFileReader::from_source(source, len, path.path().to_path_buf()).map_err(hfile_error)
}
