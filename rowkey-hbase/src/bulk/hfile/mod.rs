//! HFiles written in Rust: the files HBase's region servers store and
//! bulk load, in HBase 2.6's format version 3 (`HFileWriterImpl`,
//! `HFileBlock`, `HFileBlockIndex`, `FixedFileTrailer`; `HFILE.md` in this
//! crate writes the layout down).
//!
//! It writes uncompressed, gzip, Snappy and Zstandard files with CRC32C
//! block checksums, HBase's multi-level block index and optionally a ROW
//! Bloom filter: cells appended in HBase's order, one family per file. HBase's own reader reads them back
//! cell for cell, and for the same cells the data blocks and the index are
//! byte for byte those HBase's own writer makes (`tests/hfile.rs`).
//!
//! ```no_run
//! use rowkey_hbase::hfile::{HFileOptions, HFileWriter};
//!
//! let mut w = HFileWriter::create("/tmp/d.hfile", HFileOptions::new("d"))?;
//! w.append(b"row1", b"q", 1_700_000_000_000, b"value")?;
//! let summary = w.finish()?;
//! assert_eq!(summary.cells, 1);
//! # Ok::<(), rowkey_hbase::hfile::HFileError>(())
//! ```

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use rowkey_core::hbase::to_string_binary;

use crate::bulk::fs::{Closing, Target};
use crate::shared::proto::{field, uint, varint};

mod bloom;
mod index;
mod read;
use bloom::RowBloom;
use index::{vint, BlockIndex};
pub use read::{FileCell, HFileReader};

/// The bytes HBase checksums at a time (`hbase.bytes.per.checksum`).
const BYTES_PER_CHECKSUM: usize = 16 * 1024;
/// `ChecksumType.CRC32C`.
const CRC32C: u8 = 2;
/// A block header with checksum fields (`HFileBlock.headerSize`).
const HEADER: usize = 33;
/// The trailer's fixed size in format version 3.
const TRAILER: usize = 4096;
/// `KeyValue.Type.Put`.
const PUT: u8 = 4;
/// `KeyValue.Type.Maximum`: a "first on row" key sorts before every cell
/// of its row.
const MAXIMUM: u8 = 255;
/// How an HFile's blocks are compressed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Compression {
    /// Stored as they are (`NONE`).
    #[default]
    None,
    /// Each block a gzip member (`GZ`), which HBase reads with Hadoop's
    /// pure-Java gzip codec.
    Gzip,
    /// Snappy (`SNAPPY`) in Hadoop's block framing. HBase reads it with the
    /// pure-Java codec of `hbase-compression-aircompressor` (Maven
    /// Central), set as `hbase.io.compress.snappy.codec` =
    /// `org.apache.hadoop.hbase.io.compress.aircompressor.SnappyCodec`
    /// (HBase's default needs Hadoop's native library).
    Snappy,
    /// Zstandard (`ZSTD`, level 3) in Hadoop's block framing, read with
    /// `org.apache.hadoop.hbase.io.compress.aircompressor.ZstdCodec` set as
    /// `hbase.io.compress.zstd.codec`, as for [`Snappy`](Self::Snappy).
    Zstd,
}

impl Compression {
    /// `Compression.Algorithm`'s name (the shell's `COMPRESSION`), lower
    /// case: `none`, `gz`, `snappy`, `zstd`.
    pub fn hbase_name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gz",
            Compression::Snappy => "snappy",
            Compression::Zstd => "zstd",
        }
    }

    /// `Compression.Algorithm`'s ordinal, as the trailer stores it.
    fn ordinal(self) -> u64 {
        match self {
            Compression::Gzip => 1,
            Compression::None => 2,
            Compression::Snappy => 3,
            Compression::Zstd => 6,
        }
    }
}
/// The comparator the trailer names (HBase 1's name for
/// `CellComparatorImpl`, which HBase 2 writes for compatibility).
const COMPARATOR: &str = "org.apache.hadoop.hbase.KeyValue$KVComparator";

/// What an HFile holds and how it is cut.
#[derive(Debug, Clone)]
pub struct HFileOptions {
    /// The column family of every cell.
    pub family: String,
    /// The uncompressed size at which a data block ends (HBase's default,
    /// 64 KiB); a block ends on a cell boundary past it.
    pub block_size: usize,
    /// How every block is compressed (default none).
    pub compression: Compression,
    /// The Bloom filter of the file (default none).
    pub bloom: Bloom,
    /// The size at which an index block ends (HBase's
    /// `hfile.index.block.max.size`, 128 KiB): past it, the index has
    /// leaf blocks between the data blocks, and more levels.
    pub index_block_size: usize,
}

/// A Bloom filter HBase's readers consult before reading a file's blocks
/// (`BLOOMFILTER` of a column family).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Bloom {
    /// None: a get reads the file's index and blocks.
    #[default]
    None,
    /// `ROW`: a get of a row the file does not hold skips the file (HBase's
    /// default for new families), at a 1% false-positive rate, in chunks
    /// of 128 KiB as HBase writes them.
    Row,
}

impl HFileOptions {
    /// Cells of `family` in blocks of 64 KiB.
    pub fn new(family: &str) -> HFileOptions {
        HFileOptions {
            family: family.to_string(),
            block_size: 64 * 1024,
            compression: Compression::None,
            bloom: Bloom::None,
            index_block_size: 128 * 1024,
        }
    }
}

/// What can go wrong writing an HFile.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HFileError {
    /// Writing the file failed.
    #[error("writing HFile {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        cause: io::Error,
    },
    /// A cell came after one it sorts before (or equal to) in HBase's cell
    /// order (row, then qualifier, then newest timestamp first): the file
    /// would be corrupt, so it is refused. Keys in `toStringBinary` form.
    #[error("cell {next} does not sort after {previous} (row, qualifier, newest timestamp first)")]
    OutOfOrder {
        /// The cell appended before.
        previous: String,
        /// The cell refused.
        next: String,
    },
    /// A cell without a row key: HBase has none.
    #[error("a cell with an empty row key")]
    EmptyRow,
    /// Reading a file failed.
    #[error("reading HFile {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        cause: io::Error,
    },
    /// A file that is not an HFile [`HFileReader`] reads (cut, corrupt, or
    /// of another format version, compression or cell type).
    #[error("HFile {path}: {what}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where.
        what: String,
    },
    /// A row, family, qualifier or value too long for HBase's cell format.
    #[error("{what} of {len} bytes: HBase takes at most {max}")]
    TooLong {
        /// What is too long.
        what: &'static str,
        /// Its length.
        len: usize,
        /// The limit.
        max: usize,
    },
}

/// What [`HFileWriter::finish`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct HFileSummary {
    /// Cells written.
    pub cells: u64,
    /// Data blocks written.
    pub data_blocks: usize,
    /// The file's size in bytes.
    pub bytes: u64,
}

/// Writes one HFile: cells appended in HBase's order, then
/// [`finish`](Self::finish).
pub struct HFileWriter {
    out: BufWriter<Box<dyn Target>>,
    path: PathBuf,
    options: HFileOptions,
    offset: u64,
    block: Vec<u8>,
    block_first_key: Option<Vec<u8>>,
    /// Each data block's offset, size on disk with its header, first key.
    index: BlockIndex,
    data_blocks: usize,
    last_data: u64,
    /// The last leaf index block (−1 before the first).
    prev_leaf: i64,
    /// The last cell's key (empty before the first), and the next cell's
    /// key being built: two buffers swapped, so a cell allocates nothing.
    last_key: Vec<u8>,
    next_key: Vec<u8>,
    prev_data: i64,
    cells: u64,
    key_bytes: u64,
    value_bytes: u64,
    uncompressed: u64,
    /// The smallest and largest timestamp appended.
    min_ts: i64,
    max_ts: i64,
    /// The ROW Bloom filter, and the offset of its last chunk (−1 before
    /// the first).
    bloom: Option<RowBloom>,
    prev_bloom: i64,
}

impl HFileWriter {
    /// Creates (or truncates) the file at `path`.
    pub fn create(
        path: impl AsRef<Path>,
        options: HFileOptions,
    ) -> Result<HFileWriter, HFileError> {
        let path = path.as_ref().to_path_buf();
        check_len("a family name", options.family.len(), MAX_FAMILY)?;
        let file = File::create(&path).map_err(|cause| HFileError::Io {
            path: path.clone(),
            cause,
        })?;
        HFileWriter::to_target(Box::new(file), path, options)
    }

    /// A writer into `target` (a file on HDFS, say), named `path` in
    /// errors.
    pub(crate) fn to_target(
        target: Box<dyn Target>,
        path: PathBuf,
        options: HFileOptions,
    ) -> Result<HFileWriter, HFileError> {
        check_len("a family name", options.family.len(), MAX_FAMILY)?;
        let file = target;
        let bloom = (options.bloom == Bloom::Row).then(RowBloom::new);
        let index = BlockIndex::new(options.index_block_size);
        Ok(HFileWriter {
            out: BufWriter::new(file),
            path,
            options,
            offset: 0,
            block: Vec::new(),
            block_first_key: None,
            index,
            data_blocks: 0,
            last_data: u64::MAX,
            prev_leaf: -1,
            last_key: Vec::new(),
            next_key: Vec::new(),
            prev_data: -1,
            cells: 0,
            key_bytes: 0,
            value_bytes: 0,
            uncompressed: 0,
            min_ts: i64::MAX,
            max_ts: -1,
            bloom,
            prev_bloom: -1,
        })
    }

    fn io(&self, cause: io::Error) -> HFileError {
        HFileError::Io {
            path: self.path.clone(),
            cause,
        }
    }

    /// The bytes written so far plus the current block's: what the file
    /// would hold if it ended now, before its index and trailer.
    pub fn bytes_written(&self) -> u64 {
        self.offset + self.block.len() as u64
    }

    /// Cells appended so far.
    pub fn cells(&self) -> u64 {
        self.cells
    }

    /// Appends a `Put` cell. Cells must come in HBase's order: by row, then
    /// qualifier, then newest timestamp first; anything else is
    /// [`HFileError::OutOfOrder`] and nothing is written.
    pub fn append(
        &mut self,
        row: &[u8],
        qualifier: &[u8],
        timestamp: i64,
        value: &[u8],
    ) -> Result<(), HFileError> {
        if row.is_empty() {
            return Err(HFileError::EmptyRow);
        }
        check_cell(row, &self.options.family, qualifier, value)?;
        self.build_key(row, qualifier, timestamp);
        let mut new_row = true;
        if !self.last_key.is_empty() {
            let (r, q, t) = self.parts(&self.last_key);
            new_row = r != row;
            let order = r
                .cmp(row)
                .then_with(|| q.cmp(qualifier))
                .then_with(|| timestamp.cmp(&t));
            if order != Ordering::Less {
                let show = |r: &[u8], q: &[u8], t: i64| {
                    format!(
                        "{}/{}:{}/{t}",
                        to_string_binary(r),
                        self.options.family,
                        to_string_binary(q)
                    )
                };
                return Err(HFileError::OutOfOrder {
                    previous: show(r, q, t),
                    next: show(row, qualifier, timestamp),
                });
            }
        }
        // As HBase's StoreFileWriter: the row into the Bloom filter, then
        // the block boundary (where full Bloom chunks are written).
        if new_row {
            if let Some(bloom) = &mut self.bloom {
                bloom.add(row);
            }
        }
        if !self.block.is_empty() && self.block.len() >= self.options.block_size {
            self.finish_data_block()?;
            self.write_inline_blocks(false)?;
        }
        // KeyValue: key length, value length, key, value; tags length
        // (format 3); the memstore timestamp (a vlong, 0).
        let key = &self.next_key;
        // Both fit an i32: checked above.
        let len = |n: usize| (n as i32).to_be_bytes();
        self.block.extend_from_slice(&len(key.len()));
        self.block.extend_from_slice(&len(value.len()));
        self.block.extend_from_slice(key);
        self.block.extend_from_slice(value);
        self.block.extend_from_slice(&0u16.to_be_bytes());
        self.block.push(0);
        if self.block_first_key.is_none() {
            // The block's key in the index: the shortest key between the
            // previous block's last cell and this one, as HBase writes it.
            self.block_first_key = Some(if self.last_key.is_empty() {
                key.clone()
            } else {
                self.index_key(&self.last_key, key)
            });
        }
        self.key_bytes += key.len() as u64;
        self.value_bytes += value.len() as u64;
        self.cells += 1;
        self.min_ts = self.min_ts.min(timestamp);
        self.max_ts = self.max_ts.max(timestamp);
        std::mem::swap(&mut self.last_key, &mut self.next_key);
        Ok(())
    }

    /// Builds a cell's key as HBase serializes it into `next_key`: row
    /// length (2 bytes), row, family length (1 byte), family, qualifier,
    /// timestamp, type.
    fn build_key(&mut self, row: &[u8], qualifier: &[u8], timestamp: i64) {
        let family = self.options.family.as_bytes();
        let key = &mut self.next_key;
        key.clear();
        key.extend_from_slice(&(row.len() as u16).to_be_bytes());
        key.extend_from_slice(row);
        key.push(family.len() as u8);
        key.extend_from_slice(family);
        key.extend_from_slice(qualifier);
        key.extend_from_slice(&timestamp.to_be_bytes());
        key.push(PUT);
    }

    /// A key's row, qualifier and timestamp (the key as
    /// [`build_key`](Self::build_key) writes it).
    fn parts<'k>(&self, key: &'k [u8]) -> (&'k [u8], &'k [u8], i64) {
        let row_end = 2 + usize::from(u16::from_be_bytes([key[0], key[1]]));
        let qualifier_start = row_end + 1 + self.options.family.len();
        let ts_start = key.len() - 9;
        let mut ts = [0u8; 8];
        ts.copy_from_slice(&key[ts_start..ts_start + 8]);
        (
            &key[2..row_end],
            &key[qualifier_start..ts_start],
            i64::from_be_bytes(ts),
        )
    }

    /// HBase's index entry for a block whose first cell is `right`, after a
    /// block ending with `left` (`HFileWriterImpl.getMidpoint`): the first
    /// key on the shortest row between their rows; or, in one row, the
    /// first key of the shortest qualifier between theirs; else `right`.
    /// A "first on" key has the newest timestamp and the type `Maximum`,
    /// so it sorts before every cell of its row or column.
    fn index_key(&self, left: &[u8], right: &[u8]) -> Vec<u8> {
        let (left_row, left_qualifier, _) = self.parts(left);
        let (right_row, right_qualifier, _) = self.parts(right);
        let mut key = Vec::new();
        if let Some(row) = midpoint(left_row, right_row) {
            key.extend_from_slice(&(row.len() as u16).to_be_bytes());
            key.extend_from_slice(&row);
            key.push(0);
        } else if let Some(qualifier) = midpoint(left_qualifier, right_qualifier) {
            let family = self.options.family.as_bytes();
            key.extend_from_slice(&(right_row.len() as u16).to_be_bytes());
            key.extend_from_slice(right_row);
            key.push(family.len() as u8);
            key.extend_from_slice(family);
            key.extend_from_slice(&qualifier);
        } else {
            return right.to_vec();
        }
        key.extend_from_slice(&i64::MAX.to_be_bytes());
        key.push(MAXIMUM);
        key
    }

    fn finish_data_block(&mut self) -> Result<(), HFileError> {
        let mut data = std::mem::take(&mut self.block);
        let offset = self.offset;
        let size = self.write_block(b"DATABLK*", &data, self.prev_data)?;
        // The next block reuses the buffer.
        data.clear();
        self.block = data;
        self.prev_data = offset as i64;
        let first = self.block_first_key.take().unwrap_or_default();
        self.index.add(first, offset, size);
        self.data_blocks += 1;
        self.last_data = offset;
        Ok(())
    }

    /// At a block boundary, as HBase's inline block writers in their
    /// order: a full leaf of the block index, then full Bloom chunks (at
    /// the end, the last of each).
    fn write_inline_blocks(&mut self, closing: bool) -> Result<(), HFileError> {
        if let Some((first, data)) = self.index.leaf_block(closing) {
            let offset = self.offset;
            let size = self.write_block(b"IDXLEAF2", &data, self.prev_leaf)?;
            self.prev_leaf = offset as i64;
            self.index.leaf_written(first, offset, size, data.len());
        }
        self.write_bloom_chunks(closing)
    }

    /// Writes the Bloom chunks that are full (and the current one when
    /// `closing`), as inline blocks (`BLMFBLK2`) at a block boundary.
    fn write_bloom_chunks(&mut self, closing: bool) -> Result<(), HFileError> {
        let Some(bloom) = &mut self.bloom else {
            return Ok(());
        };
        if closing {
            bloom.enqueue();
        } else {
            bloom.enqueue_if_full();
        }
        let ready = std::mem::take(&mut bloom.ready);
        for chunk in ready {
            let offset = self.offset;
            let size = self.write_block(b"BLMFBLK2", &chunk.bits, self.prev_bloom)?;
            self.prev_bloom = offset as i64;
            if let Some(bloom) = &mut self.bloom {
                bloom.index.push((chunk.first_row, offset, size));
            }
        }
        Ok(())
    }

    /// Writes a block: its header, its data (compressed as the file's
    /// blocks are), a CRC32C of every 16 KiB of header and stored data.
    /// Returns its size on disk.
    fn write_block(&mut self, magic: &[u8; 8], data: &[u8], prev: i64) -> Result<u32, HFileError> {
        let compressed;
        let stored = match self.options.compression {
            Compression::None => data,
            Compression::Gzip => {
                let mut gz =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                gz.write_all(data).map_err(|e| self.io(e))?;
                compressed = gz.finish().map_err(|e| self.io(e))?;
                &compressed[..]
            }
            Compression::Snappy => {
                compressed = hadoop_blocks(data, |chunk| {
                    snap::raw::Encoder::new()
                        .compress_vec(chunk)
                        .map_err(io::Error::other)
                })
                .map_err(|e| self.io(e))?;
                &compressed[..]
            }
            Compression::Zstd => {
                compressed = hadoop_blocks(data, |chunk| zstd::bulk::compress(chunk, 3))
                    .map_err(|e| self.io(e))?;
                &compressed[..]
            }
        };
        let chunks = (HEADER + stored.len()).div_ceil(BYTES_PER_CHECKSUM);
        let mut block = Vec::with_capacity(HEADER + stored.len() + 4 * chunks);
        block.extend_from_slice(magic);
        block.extend_from_slice(&((stored.len() + 4 * chunks) as i32).to_be_bytes());
        block.extend_from_slice(&(data.len() as i32).to_be_bytes());
        block.extend_from_slice(&prev.to_be_bytes());
        block.push(CRC32C);
        block.extend_from_slice(&(BYTES_PER_CHECKSUM as i32).to_be_bytes());
        block.extend_from_slice(&((HEADER + stored.len()) as i32).to_be_bytes());
        block.extend_from_slice(stored);
        let sums: Vec<u8> = block
            .chunks(BYTES_PER_CHECKSUM)
            .flat_map(|c| crc32c::crc32c(c).to_be_bytes())
            .collect();
        block.extend_from_slice(&sums);
        self.out.write_all(&block).map_err(|e| self.io(e))?;
        self.offset += block.len() as u64;
        self.uncompressed += (HEADER + data.len()) as u64;
        Ok(block.len() as u32)
    }

    /// Ends the file: the last data block, the block index, the file
    /// info and the trailer.
    pub fn finish(self) -> Result<HFileSummary, HFileError> {
        let path = self.path.clone();
        let (summary, closing) = self.finish_closing()?;
        closing().map_err(|cause| HFileError::Io { path, cause })?;
        Ok(summary)
    }

    /// [`finish`](Self::finish), the file's closing left to the caller
    /// (to wait for many at once).
    pub(crate) fn finish_closing(mut self) -> Result<(HFileSummary, Closing), HFileError> {
        if !self.block.is_empty() {
            self.finish_data_block()?;
        }
        self.write_inline_blocks(true)?;
        let first_data = if self.data_blocks == 0 { u64::MAX } else { 0 };

        // The block index's intermediate levels, if any, then its root
        // (HBase counts neither in the trailer's uncompressed bytes).
        let counted = self.uncompressed;
        let mut index = std::mem::replace(&mut self.index, BlockIndex::new(1));
        let mut prev = -1i64;
        let root = index.finish(|data| {
            let offset = self.offset;
            let size = self.write_block(b"IDXINTE2", data, prev)?;
            prev = offset as i64;
            Ok::<_, HFileError>((offset, size))
        })?;
        let load_on_open = self.offset;
        self.write_block(b"IDXROOT2", &root, -1)?;
        self.uncompressed = counted;
        // The meta block index: none (its previous block of the same type
        // is the data index root).
        self.write_block(b"IDXROOT2", &[], load_on_open as i64)?;

        // File info: protobuf magic, then the entries as a delimited
        // FileInfoProto { repeated BytesBytesPair map_entry = 1 }.
        let cells = self.cells.max(1);
        let created = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        let mut info: BTreeMap<&[u8], Vec<u8>> = BTreeMap::new();
        info.insert(b"KEY_VALUE_VERSION", 1i32.to_be_bytes().to_vec());
        info.insert(b"MAX_MEMSTORE_TS_KEY", 0i64.to_be_bytes().to_vec());
        info.insert(
            b"hfile.AVG_KEY_LEN",
            ((self.key_bytes / cells) as i32).to_be_bytes().to_vec(),
        );
        info.insert(
            b"hfile.AVG_VALUE_LEN",
            ((self.value_bytes / cells) as i32).to_be_bytes().to_vec(),
        );
        info.insert(b"hfile.CREATE_TIME_TS", created.to_be_bytes().to_vec());
        info.insert(b"hfile.MAX_TAGS_LEN", 0i32.to_be_bytes().to_vec());
        info.insert(b"hfile.TAGS_COMPRESSED", vec![0]);
        // What HBase's bulk load writer (HFileOutputFormat2) adds: the
        // time of the load, the file as the product of a major compaction
        // (its cells the only versions), and the cells' time range.
        info.insert(b"BULKLOAD_TIMESTAMP", created.to_be_bytes().to_vec());
        info.insert(b"MAJOR_COMPACTION_KEY", vec![0xFF]);
        info.insert(b"EXCLUDE_FROM_MINOR_COMPACTION_KEY", vec![0]);
        let mut range = self.min_ts.to_be_bytes().to_vec();
        range.extend_from_slice(&self.max_ts.to_be_bytes());
        info.insert(b"TIMERANGE", range);
        info.insert(b"EARLIEST_PUT_TS", self.min_ts.to_be_bytes().to_vec());
        if !self.last_key.is_empty() {
            info.insert(b"hfile.LASTKEY", self.last_key.clone());
        }
        // As HBase's StoreFileWriter: the deletes of whole families (none),
        // and the Bloom filter's type and last row.
        info.insert(b"DELETE_FAMILY_COUNT", 0i64.to_be_bytes().to_vec());
        let bloom = self.bloom.take().filter(|b| b.total_keys > 0);
        if bloom.is_some() {
            info.insert(b"BLOOM_FILTER_TYPE", b"ROW".to_vec());
            let (last_row, _, _) = self.parts(&self.last_key);
            info.insert(b"LAST_BLOOM_KEY", last_row.to_vec());
        }
        let mut proto = Vec::new();
        for (k, v) in &info {
            let mut pair = Vec::new();
            field(&mut pair, 1, k);
            field(&mut pair, 2, v);
            field(&mut proto, 1, &pair);
        }
        let mut file_info = b"PBUF".to_vec();
        varint(&mut file_info, proto.len() as u64);
        file_info.extend_from_slice(&proto);
        let file_info_offset = self.offset;
        self.write_block(b"FILEINF2", &file_info, -1)?;

        // The Bloom filter's meta block (`BLMFMET2`, loaded on open): its
        // version, sizes, hashing and chunk count, no comparator (a ROW
        // filter), then the index of its chunks: offset, size on disk,
        // first row.
        if let Some(bloom) = bloom {
            let mut meta = Vec::new();
            meta.extend_from_slice(&bloom::VERSION.to_be_bytes());
            meta.extend_from_slice(&bloom.total_bytes.to_be_bytes());
            meta.extend_from_slice(&(bloom.hash_count as i32).to_be_bytes());
            meta.extend_from_slice(&bloom::HASH_MURMUR.to_be_bytes());
            meta.extend_from_slice(&bloom.total_keys.to_be_bytes());
            meta.extend_from_slice(&bloom.total_max_keys.to_be_bytes());
            meta.extend_from_slice(&(bloom.chunks as i32).to_be_bytes());
            vint(&mut meta, 0);
            for (first_row, offset, size) in &bloom.index {
                meta.extend_from_slice(&offset.to_be_bytes());
                meta.extend_from_slice(&size.to_be_bytes());
                vint(&mut meta, first_row.len() as i64);
                meta.extend_from_slice(first_row);
            }
            self.write_block(b"BLMFMET2", &meta, -1)?;
        }

        // The trailer: magic, a delimited FileTrailerProto, zeros up to
        // its fixed size, then the version (minor 3 << 24 | major 3).
        let mut t = Vec::new();
        uint(&mut t, 1, file_info_offset);
        uint(&mut t, 2, load_on_open);
        uint(&mut t, 3, index.uncompressed);
        uint(&mut t, 4, self.uncompressed + TRAILER as u64);
        uint(&mut t, 5, index.root_entries() as u64);
        uint(&mut t, 6, 0);
        uint(&mut t, 7, self.cells);
        uint(&mut t, 8, u64::from(index.levels()));
        uint(&mut t, 9, first_data);
        uint(&mut t, 10, self.last_data);
        field(&mut t, 11, COMPARATOR.as_bytes());
        uint(&mut t, 12, self.options.compression.ordinal());
        let mut trailer = b"TRABLK\"$".to_vec();
        varint(&mut trailer, t.len() as u64);
        trailer.extend_from_slice(&t);
        trailer.resize(TRAILER - 4, 0);
        trailer.extend_from_slice(&((3u32 << 24) | 3).to_be_bytes());
        self.out.write_all(&trailer).map_err(|e| self.io(e))?;
        self.offset += trailer.len() as u64;
        self.out.flush().map_err(|e| self.io(e))?;
        let closing = self.out.get_mut().complete().map_err(|e| self.io(e))?;
        Ok((
            HFileSummary {
                cells: self.cells,
                data_blocks: self.data_blocks,
                bytes: self.offset,
            },
            closing,
        ))
    }
}

/// The longest family name a cell holds (its length is a byte).
pub(crate) const MAX_FAMILY: usize = 127;

/// [`HFileError::TooLong`] when `len` is over `max`.
fn check_len(what: &'static str, len: usize, max: usize) -> Result<(), HFileError> {
    if len > max {
        return Err(HFileError::TooLong { what, len, max });
    }
    Ok(())
}

/// The limits of HBase's cell format (`KeyValue`): a row's length is a
/// short, a family's a byte, the key's and the value's ints. The writer
/// checks every cell with it; a bulk load checks each put, before the
/// sort.
pub(crate) fn check_cell(
    row: &[u8],
    family: &str,
    qualifier: &[u8],
    value: &[u8],
) -> Result<(), HFileError> {
    check_len("a row key", row.len(), i16::MAX as usize)?;
    check_len("a family name", family.len(), MAX_FAMILY)?;
    let key = 2 + row.len() + 1 + family.len() + 8 + 1;
    check_len("a qualifier", qualifier.len(), i32::MAX as usize - key)?;
    check_len("a value", value.len(), i32::MAX as usize)
}

/// The input bytes Hadoop's `BlockCompressorStream` compresses at a time
/// for HBase's Snappy and Zstd codecs: their 256 KiB buffer less
/// `CompressionUtil.compressionOverhead` (a sixth and 32 bytes).
const HADOOP_CHUNK: usize = 256 * 1024 - (256 * 1024 / 6 + 32);

/// `data` in Hadoop's block framing (`BlockCompressorStream`): its length
/// (4 bytes), then each chunk of at most [`HADOOP_CHUNK`] bytes
/// compressed, after its compressed length (4 bytes).
fn hadoop_blocks(
    data: &[u8],
    mut compress: impl FnMut(&[u8]) -> io::Result<Vec<u8>>,
) -> io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len() / 2 + 16);
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    for chunk in data.chunks(HADOOP_CHUNK) {
        let c = compress(chunk)?;
        out.extend_from_slice(&(c.len() as u32).to_be_bytes());
        out.extend_from_slice(&c);
    }
    Ok(out)
}

/// The shortest bytes after `left` and at or before `right` (`left <
/// right`), HBase's `getMinimumMidpointArray`; `None` when they are equal.
fn midpoint(left: &[u8], right: &[u8]) -> Option<Vec<u8>> {
    let common = left.len().min(right.len());
    match (0..common).find(|&i| left[i] != right[i]) {
        // `left` is a prefix of `right`: `right`'s first bytes and a zero.
        None if left.len() < right.len() => {
            let mut mid = right[..=common].to_vec();
            mid[common] = 0;
            Some(mid)
        }
        None => None,
        // The first byte that differs, one more than `left`'s (below
        // `right`'s, so it cannot overflow).
        Some(i) => {
            let mut mid = left[..=i].to_vec();
            mid[i] += 1;
            Some(mid)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vints_are_hadoops() {
        let enc = |v| {
            let mut o = Vec::new();
            vint(&mut o, v);
            o
        };
        assert_eq!(enc(0), [0]);
        assert_eq!(enc(127), [127]);
        assert_eq!(enc(-112), [0x90]);
        assert_eq!(enc(128), [0x8F, 0x80]);
        assert_eq!(enc(300), [0x8E, 0x01, 0x2C]);
        assert_eq!(enc(-113), [0x87, 0x70]);
    }

    #[test]
    fn midpoints_are_hbases() {
        let mid = |l: &[u8], r: &[u8]| midpoint(l, r);
        assert_eq!(mid(b"abc", b"abe"), Some(b"abd".to_vec()));
        assert_eq!(mid(b"abc", b"abd"), Some(b"abd".to_vec()));
        assert_eq!(mid(b"abc1234", b"abz"), Some(b"abd".to_vec()));
        assert_eq!(mid(b"ab", b"abcd"), Some(b"ab\0".to_vec()));
        assert_eq!(mid(b"", b"x"), Some(b"\0".to_vec()));
        assert_eq!(mid(b"ab", b"ab"), None);
    }

    #[test]
    fn cells_out_of_order_are_refused_naming_both() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = HFileWriter::create(dir.path().join("f"), HFileOptions::new("d")).unwrap();
        w.append(b"b", b"q", 5, b"v").unwrap();
        w.append(b"b", b"q", 4, b"v").unwrap();
        let e = w.append(b"b", b"q", 4, b"v").unwrap_err();
        assert_eq!(
            e.to_string(),
            "cell b/d:q/4 does not sort after b/d:q/4 (row, qualifier, newest timestamp first)"
        );
        let e = w.append(b"a", b"z", 9, b"v").unwrap_err();
        assert!(matches!(e, HFileError::OutOfOrder { .. }), "{e}");
        w.append(b"b", b"r", 9, b"v").unwrap();
        assert!(matches!(
            w.append(b"", b"r", 9, b"v"),
            Err(HFileError::EmptyRow)
        ));
        let long = vec![b'k'; 32_768];
        let e = w.append(&long, b"r", 9, b"v").unwrap_err();
        assert_eq!(
            e.to_string(),
            "a row key of 32768 bytes: HBase takes at most 32767"
        );
        assert_eq!(w.finish().unwrap().cells, 3);
    }
}
