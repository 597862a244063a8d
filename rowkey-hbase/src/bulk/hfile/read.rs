//! HFiles read back, block by block: what a bulk load needs to know of a
//! file (its first and last rows) and, when a file spans regions, its
//! cells in order to split it. It reads format version 3 files of
//! `KeyValue` cells with no data block encoding, as [`HFileWriter`] and
//! HBase's `HFileOutputFormat2` write them, in any of the compressions
//! [`Compression`] names; every size it reads is checked against the file
//! before anything is allocated, and every block's checksums are
//! verified.
//!
//! [`HFileWriter`]: super::HFileWriter

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::{Compression, HFileError, HEADER, TRAILER};
use crate::bulk::fs::Source;

/// The trailer's magic.
const TRAILER_MAGIC: &[u8; 8] = b"TRABLK\"$";
/// The most a block may hold uncompressed (HBase's blocks are 64 KiB by
/// default; a single cell may make one larger).
const MAX_BLOCK: usize = 256 << 20;
/// `KeyValue.Type.Put`.
const PUT: u8 = 4;

/// One cell of an HFile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileCell {
    /// The row key.
    pub row: Vec<u8>,
    /// The column family.
    pub family: Vec<u8>,
    /// The qualifier.
    pub qualifier: Vec<u8>,
    /// The timestamp (ms).
    pub timestamp: i64,
    /// The value.
    pub value: Vec<u8>,
}

/// Reads an HFile's cells in order: [`open`](Self::open), then
/// [`next_cell`](Self::next_cell) until `None`. Holds one block in memory.
pub struct HFileReader {
    file: Box<dyn Source>,
    /// The file's length.
    len: u64,
    path: PathBuf,
    compression: Compression,
    /// The next block's offset, and the last data block's.
    next: u64,
    last_data: u64,
    /// Cells the trailer counts, and cells read so far.
    entries: u64,
    read: u64,
    /// The current data block, uncompressed, and where in it the next cell
    /// starts.
    block: Vec<u8>,
    at: usize,
}

impl HFileReader {
    /// Opens `path` and reads its trailer.
    pub fn open(path: impl AsRef<Path>) -> Result<HFileReader, HFileError> {
        let path = path.as_ref().to_path_buf();
        let io = |cause: io::Error| HFileError::Read {
            path: path.clone(),
            cause,
        };
        let file = File::open(&path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        HFileReader::from_source(Box::new(file), len, path)
    }

    /// Reads the HFile of `len` bytes in `file` (one on HDFS, say), named
    /// `path` in errors.
    pub(crate) fn from_source(
        mut file: Box<dyn Source>,
        len: u64,
        path: PathBuf,
    ) -> Result<HFileReader, HFileError> {
        let io = |cause: io::Error| HFileError::Read {
            path: path.clone(),
            cause,
        };
        if len < TRAILER as u64 {
            return Err(corrupt(&path, format!("{len} bytes, less than a trailer")));
        }
        let mut trailer = vec![0u8; TRAILER];
        file.seek(SeekFrom::Start(len - TRAILER as u64))
            .map_err(io)?;
        file.read_exact(&mut trailer).map_err(io)?;
        let version = u32::from_be_bytes(trailer[TRAILER - 4..].try_into().expect("4 bytes"));
        if version & 0x00FF_FFFF != 3 {
            return Err(corrupt(
                &path,
                format!("format version {} (only 3 is read)", version & 0x00FF_FFFF),
            ));
        }
        if &trailer[..8] != TRAILER_MAGIC {
            return Err(corrupt(&path, "no trailer magic".into()));
        }
        let fields = trailer_fields(&trailer[8..TRAILER - 4])
            .ok_or_else(|| corrupt(&path, "an unreadable trailer".into()))?;
        let field = |n: u32| fields.iter().find(|(f, _)| *f == n).map(|(_, v)| *v);
        let compression = match field(12).unwrap_or(2) {
            1 => Compression::Gzip,
            2 => Compression::None,
            3 => Compression::Snappy,
            6 => Compression::Zstd,
            other => {
                return Err(corrupt(
                    &path,
                    format!("compression {other} (none, gz, snappy and zstd are read)"),
                ))
            }
        };
        let entries = field(7).unwrap_or(0);
        let (first, last) = match (field(9), field(10)) {
            (Some(first), Some(last)) if entries > 0 => (first, last),
            // No data block at all.
            _ => (u64::MAX, 0),
        };
        if first != u64::MAX && (first > last || last >= len) {
            return Err(corrupt(
                &path,
                format!("data blocks {first}..={last} outside its {len} bytes"),
            ));
        }
        Ok(HFileReader {
            file,
            len,
            path,
            compression,
            next: first,
            last_data: last,
            entries,
            read: 0,
            block: Vec::new(),
            at: 0,
        })
    }

    /// How the file's blocks are compressed.
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// The cells the file's trailer counts.
    pub fn entries(&self) -> u64 {
        self.entries
    }

    /// The last data block's cells, from the file's end: its last cell
    /// without reading the rest.
    pub fn last_cell(&mut self) -> Result<Option<FileCell>, HFileError> {
        if self.next == u64::MAX {
            return Ok(None);
        }
        let (magic, data, _) = self.block_at(self.last_data)?;
        if &magic != b"DATABLK*" {
            return Err(corrupt(&self.path, "the last data block is not one".into()));
        }
        let mut at = 0;
        let mut last = None;
        while at < data.len() {
            let (cell, next) = cell_at(&data, at).map_err(|what| corrupt(&self.path, what))?;
            last = Some(cell);
            at = next;
        }
        Ok(last)
    }

    /// The next cell, `None` after the last (once as many cells were read
    /// as the trailer counts: fewer or more is an error).
    pub fn next_cell(&mut self) -> Result<Option<FileCell>, HFileError> {
        while self.at >= self.block.len() {
            if self.next == u64::MAX || self.next > self.last_data {
                if self.read != self.entries {
                    return Err(corrupt(
                        &self.path,
                        format!(
                            "{} cells in its data blocks, {} in its trailer",
                            self.read, self.entries
                        ),
                    ));
                }
                return Ok(None);
            }
            let (magic, data, size) = self.block_at(self.next)?;
            self.next += size;
            // Leaf index and Bloom chunks sit between data blocks.
            if &magic == b"DATABLK*" {
                self.block = data;
                self.at = 0;
            }
        }
        let (cell, next) =
            cell_at(&self.block, self.at).map_err(|what| corrupt(&self.path, what))?;
        self.at = next;
        self.read += 1;
        Ok(Some(cell))
    }

    /// The block at `offset`: its magic, its data uncompressed, its size on
    /// disk; its checksums verified.
    fn block_at(&mut self, offset: u64) -> Result<([u8; 8], Vec<u8>, u64), HFileError> {
        let path = self.path.clone();
        let io = |cause: io::Error| HFileError::Read {
            path: path.clone(),
            cause,
        };
        let len = self.len;
        let mut header = [0u8; HEADER];
        self.file.seek(SeekFrom::Start(offset)).map_err(io)?;
        self.file.read_exact(&mut header).map_err(io)?;
        let int = |at: usize| i32::from_be_bytes(header[at..at + 4].try_into().expect("4 bytes"));
        let on_disk = int(8);
        let uncompressed = int(12);
        let data_with_header = int(29);
        let at = |what: &str| corrupt(&self.path, format!("the block at {offset}: {what}"));
        if header[24] != 2 || int(25) <= 0 {
            return Err(at("not CRC32C checksums"));
        }
        let (Ok(on_disk), Ok(uncompressed), Ok(data_with_header)) = (
            usize::try_from(on_disk),
            usize::try_from(uncompressed),
            usize::try_from(data_with_header),
        ) else {
            return Err(at("a negative size"));
        };
        if offset + (HEADER + on_disk) as u64 > len
            || data_with_header < HEADER
            || data_with_header > HEADER + on_disk
            || uncompressed > MAX_BLOCK
        {
            return Err(at("sizes beyond the file"));
        }
        let mut rest = vec![0u8; on_disk];
        self.file.read_exact(&mut rest).map_err(io)?;
        let stored_len = data_with_header - HEADER;
        let per = usize::try_from(int(25)).unwrap_or(usize::MAX);
        let mut whole = Vec::with_capacity(data_with_header);
        whole.extend_from_slice(&header);
        whole.extend_from_slice(&rest[..stored_len]);
        let sums = &rest[stored_len..];
        let chunks = whole.chunks(per);
        if sums.len() != 4 * chunks.len() {
            return Err(at("checksums of the wrong size"));
        }
        for (chunk, sum) in whole.chunks(per).zip(sums.chunks(4)) {
            if crc32c::crc32c(chunk).to_be_bytes() != sum {
                return Err(at("a checksum does not match"));
            }
        }
        let stored = &rest[..stored_len];
        let data = decompress(self.compression, stored, uncompressed).map_err(|e| at(&e))?;
        let mut magic = [0u8; 8];
        magic.copy_from_slice(&header[..8]);
        Ok((magic, data, (HEADER + on_disk) as u64))
    }
}

/// The `(field, value)` pairs of the trailer's varint fields (its
/// `FileTrailerProto`, length-delimited); `None` if unreadable.
fn trailer_fields(bytes: &[u8]) -> Option<Vec<(u32, u64)>> {
    let mut at = 0;
    let len = usize::try_from(varint(bytes, &mut at)?).ok()?;
    let body = bytes.get(at..at.checked_add(len)?)?;
    let mut at = 0;
    let mut out = Vec::new();
    while at < body.len() {
        let key = varint(body, &mut at)?;
        let (field, wire) = (u32::try_from(key >> 3).ok()?, key & 7);
        match wire {
            0 => out.push((field, varint(body, &mut at)?)),
            2 => {
                let n = usize::try_from(varint(body, &mut at)?).ok()?;
                at = at.checked_add(n).filter(|&e| e <= body.len())?;
            }
            _ => return None,
        }
    }
    Some(out)
}

fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        value |= u64::from(b & 0x7F) << shift;
        if b < 0x80 {
            return Some(value);
        }
    }
    None
}

/// A block's data uncompressed: exactly `len` bytes or an error.
fn decompress(compression: Compression, stored: &[u8], len: usize) -> Result<Vec<u8>, String> {
    let out = match compression {
        Compression::None => stored.to_vec(),
        Compression::Gzip => {
            let mut out = Vec::with_capacity(len);
            flate2::read::MultiGzDecoder::new(stored)
                .take(len as u64 + 1)
                .read_to_end(&mut out)
                .map_err(|e| format!("gzip: {e}"))?;
            out
        }
        Compression::Snappy => unframe(stored, len, |chunk, room| {
            let n = snap::raw::decompress_len(chunk).map_err(|e| e.to_string())?;
            if n > room {
                return Err("a chunk larger than its block".into());
            }
            snap::raw::Decoder::new()
                .decompress_vec(chunk)
                .map_err(|e| e.to_string())
        })?,
        Compression::Zstd => unframe(stored, len, |chunk, room| {
            zstd::bulk::decompress(chunk, room).map_err(|e| e.to_string())
        })?,
    };
    if out.len() != len {
        return Err(format!(
            "{} bytes uncompressed where the header says {len}",
            out.len()
        ));
    }
    Ok(out)
}

/// Hadoop's block framing (each block: its length uncompressed, then
/// chunks of a compressed length and bytes), undone by `chunk` (a chunk
/// and the room left) into at most `len` bytes.
fn unframe(
    stored: &[u8],
    len: usize,
    mut chunk: impl FnMut(&[u8], usize) -> Result<Vec<u8>, String>,
) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(len);
    let mut at = 0;
    let int = |at: usize| -> Result<usize, String> {
        stored
            .get(at..at + 4)
            .map(|b| u32::from_be_bytes(b.try_into().expect("4 bytes")) as usize)
            .ok_or_else(|| "a cut block".to_string())
    };
    while at < stored.len() {
        let raw = int(at)?;
        at += 4;
        let end = out.len() + raw;
        if end > len {
            return Err("a block larger than its header says".into());
        }
        while out.len() < end {
            let n = int(at)?;
            at += 4;
            let bytes = stored.get(at..at + n).ok_or("a cut chunk")?;
            at += n;
            out.extend(chunk(bytes, end - out.len())?);
        }
    }
    Ok(out)
}

/// The cell at `at` of a data block (key length, value length, key,
/// value, tags length and tags, memstore timestamp as a vlong), and where
/// the next starts.
fn cell_at(block: &[u8], at: usize) -> Result<(FileCell, usize), String> {
    let cut = || format!("a cell cut at {at}");
    let bytes = |from: usize, n: usize| {
        from.checked_add(n)
            .and_then(|end| block.get(from..end))
            .ok_or_else(cut)
    };
    let int = |from: usize| -> Result<usize, String> {
        Ok(u32::from_be_bytes(bytes(from, 4)?.try_into().expect("4 bytes")) as usize)
    };
    let key_len = int(at)?;
    let value_len = int(at + 4)?;
    let key = bytes(at + 8, key_len)?;
    let value = bytes(at + 8 + key_len, value_len)?;
    let mut next = at + 8 + key_len + value_len;
    let tags = u16::from_be_bytes(bytes(next, 2)?.try_into().expect("2 bytes")) as usize;
    next += 2 + tags;
    // Hadoop's vlong: one byte from -112 up, else a length byte.
    let first = *bytes(next, 1)?.first().expect("1 byte") as i8;
    next += match first {
        -112..=127 => 1,
        -120..=-113 => (-111 - i32::from(first)) as usize,
        _ => (-119 - i32::from(first)) as usize,
    };
    if next > block.len() {
        return Err(cut());
    }
    // Key: row length (2), row, family length (1), family, qualifier,
    // timestamp (8), type (1).
    if key.len() < 2 + 1 + 8 + 1 {
        return Err(format!("a key of {} bytes", key.len()));
    }
    let row_len = u16::from_be_bytes([key[0], key[1]]) as usize;
    let family_at = 2 + row_len;
    let family_len = *key.get(family_at).ok_or_else(cut)? as usize;
    let qualifier_at = family_at + 1 + family_len;
    let ts_at = key.len() - 9;
    if qualifier_at > ts_at {
        return Err("a key whose parts overrun it".into());
    }
    if key[key.len() - 1] != PUT {
        return Err(format!(
            "a cell of type {} (only puts are read)",
            key[key.len() - 1]
        ));
    }
    Ok((
        FileCell {
            row: key[2..family_at].to_vec(),
            family: key[family_at + 1..qualifier_at].to_vec(),
            qualifier: key[qualifier_at..ts_at].to_vec(),
            timestamp: i64::from_be_bytes(key[ts_at..ts_at + 8].try_into().expect("8 bytes")),
            value: value.to_vec(),
        },
        next,
    ))
}

fn corrupt(path: &Path, what: String) -> HFileError {
    HFileError::Corrupt {
        path: path.to_path_buf(),
        what,
    }
}
