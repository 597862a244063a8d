//! Bulk load through the region servers, as HBase's `BulkLoadHFiles`
//! does it, with no Java: `PrepareBulkLoad` (a staging directory and its
//! token), one `BulkLoadHFile` per region with that region's files of
//! every family, `CleanupBulkLoad`. A file that crosses a region boundary
//! (the table split since the files were written) is split at the
//! boundaries first, into `FAMILY/_tmp/` beside it, as HBase's tool does.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::client::{NativeClient, Refusal};
use super::convert::specifier;
use super::regions::{self, Region};
use crate::hfile::{Bloom, HFileError, HFileOptions, HFileReader, HFileWriter};
use crate::types::BulkLoadReport;
use crate::Error;
use rowkey_hbase_protocol::pb;

/// Regions loaded at once.
const PARALLEL: usize = 8;

/// One file to load: its family, where it is, its first and last rows.
#[derive(Debug, Clone)]
struct Piece {
    family: String,
    path: PathBuf,
    first: Vec<u8>,
    last: Vec<u8>,
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
        let mut queue = Vec::new();
        for family in family_dirs(dir)? {
            if !families.contains(&family) {
                return Err(bulk_error(format!(
                    "{}: the table has no family {family:?} (it has {families:?})",
                    dir.join(&family).display()
                )));
            }
            for path in hfiles(&dir.join(&family))? {
                if let Some(piece) = piece(&family, path)? {
                    queue.push(piece);
                }
            }
        }
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
                        piece.path.display()
                    ))
                })?;
                let region = &regions[i];
                if region.end.is_empty() || piece.last < region.end {
                    by_region.entry(i).or_default().push(piece);
                    continue;
                }
                report.split += 1;
                for (j, half) in split(&piece, &regions[i..])? {
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
                                path: format!("file://{}", p.path.display()),
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
                        for p in &pieces {
                            match std::fs::remove_file(&p.path) {
                                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                                    tracing::warn!(
                                        path = %p.path.display(),
                                        error = %e,
                                        "a loaded file could not be removed: a second run would load it again"
                                    );
                                }
                                _ => {}
                            }
                        }
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
fn family_dirs(dir: &Path) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    for entry in read_dir(dir)? {
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_dir() && !name.starts_with('.') && !name.starts_with('_') {
            out.push(name);
        }
    }
    out.sort();
    Ok(out)
}

/// The files of a family directory and of its `_tmp/` (split pieces of an
/// earlier run), absolute, sorted.
fn hfiles(family: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    for dir in [family.to_path_buf(), family.join("_tmp")] {
        if !dir.is_dir() {
            continue;
        }
        for entry in read_dir(&dir)? {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_file() && !name.starts_with('.') && !name.starts_with('_') {
                out.push(path.canonicalize().map_err(|e| io_error(&path, e))?);
            }
        }
    }
    out.sort();
    Ok(out)
}

fn read_dir(dir: &Path) -> Result<Vec<std::fs::DirEntry>, Error> {
    std::fs::read_dir(dir)
        .and_then(|entries| entries.collect())
        .map_err(|e| io_error(dir, e))
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
fn piece(family: &str, path: PathBuf) -> Result<Option<Piece>, Error> {
    let mut reader = HFileReader::open(&path).map_err(hfile_error)?;
    let Some(first) = reader.next_cell().map_err(hfile_error)? else {
        std::fs::remove_file(&path).map_err(|e| io_error(&path, e))?;
        return Ok(None);
    };
    let last = reader
        .last_cell()
        .map_err(hfile_error)?
        .expect("a file with a first cell has a last");
    Ok(Some(Piece {
        family: family.to_owned(),
        path,
        first: first.row,
        last: last.row,
    }))
}

/// `piece` cut at the boundaries of `regions` (the first holds its first
/// row) into files under `FAMILY/_tmp/`, each with the index of its region
/// in `regions`; the original removed once they are written.
fn split(piece: &Piece, regions: &[Region]) -> Result<Vec<(usize, Piece)>, Error> {
    let mut reader = HFileReader::open(&piece.path).map_err(hfile_error)?;
    let family_dir = piece
        .path
        .parent()
        .map(|p| {
            if p.file_name().is_some_and(|n| n == "_tmp") {
                p.to_path_buf()
            } else {
                p.join("_tmp")
            }
        })
        .ok_or_else(|| bulk_error(format!("{} has no directory", piece.path.display())))?;
    std::fs::create_dir_all(&family_dir).map_err(|e| io_error(&family_dir, e))?;
    let name = piece
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
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
                    piece.path.display()
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
                let path = family_dir.join(format!("{name}.{}", out.len()));
                let w = HFileWriter::create(&path, options.clone()).map_err(hfile_error)?;
                let p = Piece {
                    family: piece.family.clone(),
                    path,
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
    std::fs::remove_file(&piece.path).map_err(|e| io_error(&piece.path, e))?;
    Ok(out)
}
