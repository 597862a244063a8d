//! HFiles through HBase's own code: its reader, its writer and its
//! `HFilePrettyPrinter`, run by the launcher.

use std::io::{self, Write as _};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use super::{hex, launcher, tail, unhex};
use crate::bulk::hfile::{Bloom, HFileOptions};

/// One cell as HBase's own HFile reader reads it ([`read_hfile`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HFileCell {
    /// The row key.
    pub row: Vec<u8>,
    /// The column family.
    pub family: Vec<u8>,
    /// The qualifier.
    pub qualifier: Vec<u8>,
    /// The timestamp.
    pub timestamp: i64,
    /// HBase's cell type (`Put`).
    pub kind: String,
    /// The value.
    pub value: Vec<u8>,
}

/// What HBase's own reader reads in an HFile ([`read_hfile`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HFileRead {
    /// Every cell, in the file's order.
    pub cells: Vec<HFileCell>,
    /// The data blocks the trailer counts.
    pub blocks: usize,
    /// Blocks whose HBase checksum did not match what HBase read.
    pub checksum_failures: u64,
    /// The file's Bloom filter as HBase loads it, when it has one.
    pub bloom: Option<BloomCheck>,
}

/// A file's Bloom filter checked by HBase's own code
/// (`BloomFilterFactory.createFromMeta`): every row of the file looked up,
/// and as many rows that are not in it (each row with a zero byte
/// appended).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BloomCheck {
    /// Rows of the file the filter says are absent (a broken filter).
    pub missed: u64,
    /// Rows not in the file the filter lets through.
    pub false_positives: u64,
    /// Rows not in the file looked up.
    pub probes: u64,
}

/// The cells of the HFile at `path` as HBase's own reader reads them, with
/// HBase's block checksums verified (the launcher's `hfile-read`). An error
/// carries HBase's own complaint when it cannot read the file.
pub fn read_hfile(path: &Path) -> io::Result<HFileRead> {
    let mut read = read_hfiles(&[path])?;
    read.pop()
        .ok_or_else(|| io::Error::other("the launcher read no file"))
}

/// [`read_hfile`] for several files, read by one JVM, in their order.
pub fn read_hfiles<P: AsRef<Path>>(paths: &[P]) -> io::Result<Vec<HFileRead>> {
    let mut args = vec!["hfile-read".to_string()];
    args.extend(paths.iter().map(|p| p.as_ref().display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = launcher(&[], &args)?.stdin(Stdio::null()).output()?;
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "HBase cannot read {}: {}",
            args[1..].join(", "),
            tail(&String::from_utf8_lossy(&out.stderr), 20)
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut files = Vec::with_capacity(paths.len());
    let mut cells = Vec::new();
    let (mut entries, mut blocks, mut bloom) = (None, 0, None);
    for line in text.lines() {
        let parts: Vec<&str> = line.split(' ').collect();
        match parts.as_slice() {
            ["cell", row, family, qualifier, ts, kind, value] => cells.push(HFileCell {
                row: unhex(row)?,
                family: unhex(family)?,
                qualifier: unhex(qualifier)?,
                timestamp: ts.parse().map_err(io::Error::other)?,
                kind: (*kind).to_string(),
                value: unhex(value)?,
            }),
            ["entries", n] => entries = n.parse::<usize>().ok(),
            ["blocks", n] => blocks = n.parse().map_err(io::Error::other)?,
            ["bloom", missed, false_positives, probes] => {
                let n = |s: &str| s.parse::<u64>().map_err(io::Error::other);
                bloom = Some(BloomCheck {
                    missed: n(missed)?,
                    false_positives: n(false_positives)?,
                    probes: n(probes)?,
                });
            }
            // The last line of a file's answer.
            ["checksum_failures", n] => {
                let checksum_failures = n.parse().map_err(io::Error::other)?;
                if entries != Some(cells.len()) {
                    return Err(io::Error::other(format!(
                        "{}: the trailer counts {entries:?} cells, the reader read {}",
                        args[files.len() + 1],
                        cells.len()
                    )));
                }
                files.push(HFileRead {
                    cells: std::mem::take(&mut cells),
                    blocks,
                    checksum_failures,
                    bloom: bloom.take(),
                });
                entries = None;
            }
            _ => {}
        }
    }
    if files.len() != paths.len() {
        return Err(io::Error::other(format!(
            "the launcher read {} of {} files",
            files.len(),
            paths.len()
        )));
    }
    Ok(files)
}

/// Writes `cells` (row, qualifier, timestamp, value; in HBase's order)
/// into an HFile at `path` with HBase's own writer (`HFile.getWriterFactory`,
/// format 3, CRC32C checksums per 16 KiB, tags and memstore timestamps on,
/// as a region server writes), with `options`' family, block size,
/// compression and index block size (`hfile.index.block.max.size`); with
/// [`Bloom::Row`], through `StoreFileWriter` with a ROW Bloom filter (as a
/// region server writes a store file). Returns the time HBase's writer
/// took, from its creation to its close (the JVM's start and the cells'
/// transfer left out).
pub fn write_hfile_with_hbase<'c>(
    path: &Path,
    options: &HFileOptions,
    cells: impl IntoIterator<Item = (&'c [u8], &'c [u8], i64, &'c [u8])>,
) -> io::Result<Duration> {
    let block_size = options.block_size.to_string();
    let index_block_size = options.index_block_size.to_string();
    let path_text = path.display().to_string();
    let mut child = launcher(
        &["-Xmx2g"],
        &[
            "hfile-write",
            &path_text,
            &options.family,
            &block_size,
            options.compression.hbase_name(),
            if options.bloom == Bloom::Row {
                "row"
            } else {
                "none"
            },
            &index_block_size,
        ],
    )?
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()?;
    {
        let mut stdin = io::BufWriter::new(child.stdin.take().expect("piped"));
        for (row, qualifier, ts, value) in cells {
            writeln!(stdin, "{} {} {ts} {}", hex(row), hex(qualifier), hex(value))?;
        }
        stdin.flush()?;
    }
    let out = child.wait_with_output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let nanos = text
        .lines()
        .find_map(|l| l.strip_prefix("written "))
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|n| n.parse::<u64>().ok());
    match (out.status.success(), nanos) {
        (true, Some(nanos)) => Ok(Duration::from_nanos(nanos)),
        _ => Err(io::Error::other(format!(
            "HBase's writer failed on {}: {}",
            path.display(),
            tail(&String::from_utf8_lossy(&out.stderr), 20)
        ))),
    }
}

/// What HBase's `HFilePrettyPrinter -v -m -k -a -b -h` prints for the file
/// at `path` (its metadata, block index and block headers, with its row
/// order and family checks), standard output then standard error. An error
/// when it exits with a failure.
pub fn pretty_print_hfile(path: &Path) -> io::Result<String> {
    let out = launcher(&[], &["hfile-pretty", &path.display().to_string()])?
        .stdin(Stdio::null())
        .output()?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "HFilePrettyPrinter failed on {}: {}",
            path.display(),
            tail(&text, 30)
        )));
    }
    Ok(text)
}
