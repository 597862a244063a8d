//! HFiles written by rowkey, read back by HBase's own HFile reader (the
//! launcher, on HBase's classpath) with its block checksums verified:
//! every cell equal, in order, over many blocks.

use rowkey_core::prelude::*;
use rowkey_hbase::hfile::{Bloom, Compression, HFileOptions, HFileReader, HFileWriter};
use rowkey_hbase::testing::{pretty_print_hfile, read_hfile, read_hfiles, write_hfile_with_hbase};

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 8, by(user))]
struct Event {
    user: u32,
    #[desc_ts]
    ts: i64,
}

#[test]
fn hbase_reads_every_cell_rowkey_writes() {
    let dir = tempfile::tempdir().unwrap();
    let want = sample_cells();
    let compressions = [
        Compression::None,
        Compression::Gzip,
        Compression::Snappy,
        Compression::Zstd,
    ];
    // Each compression's file and an empty one, all read by one JVM.
    let mut paths = Vec::new();
    let mut summaries = Vec::new();
    for compression in compressions {
        let (path, empty, summary) = write_sample(dir.path(), compression, &want);
        paths.extend([path, empty]);
        summaries.push(summary);
    }
    let read = read_hfiles(&paths).unwrap_or_else(|e| panic!("{e}"));
    let plain = summaries[0].bytes;
    for ((compression, summary), files) in compressions.iter().zip(&summaries).zip(read.chunks(2)) {
        let [file, empty] = files else {
            panic!("two files read per compression")
        };
        assert_eq!(file.checksum_failures, 0, "every block's CRC32C matches");
        assert_eq!(file.blocks, summary.data_blocks);
        assert_eq!(file.cells.len(), want.len());
        for (c, (row, q, ts, value)) in file.cells.iter().zip(&want) {
            assert_eq!(
                (
                    &c.row,
                    &c.family[..],
                    &c.qualifier,
                    c.timestamp,
                    c.kind.as_str(),
                    &c.value
                ),
                (row, &b"d"[..], q, *ts, "Put", value)
            );
        }
        // A file of no cells is a file HBase reads too.
        assert_eq!((empty.cells.len(), empty.checksum_failures), (0, 0));
        if *compression != Compression::None {
            assert!(
                summary.bytes * 2 < plain,
                "{compression:?}: {} bytes, none: {plain}",
                summary.bytes
            );
        }
    }
}

/// A cell: row, qualifier, timestamp, value.
type TestCell = (Vec<u8>, Vec<u8>, i64, Vec<u8>);

/// 3,000 rows of 3 cells (two versions of one qualifier), sorted as HBase
/// sorts them, values from 0 to 40,000 bytes so that blocks end anywhere
/// and some cells span several checksum chunks.
fn sample_cells() -> Vec<TestCell> {
    let mut rows: Vec<Vec<u8>> = (0..3_000u32)
        .map(|i| {
            Event {
                user: i % 97,
                ts: 1_700_000_000_000 + i64::from(i),
            }
            .encode_to_vec()
            .unwrap()
        })
        .collect();
    rows.sort();
    let mut want = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let len = if i % 500 == 7 { 40_000 } else { i % 50 };
        for (q, ts) in [(&b"a"[..], 20), (&b"a"[..], 10), (&b"b"[..], 10)] {
            let value: Vec<u8> = (0..len).map(|j| (i + j) as u8).collect();
            want.push((row.clone(), q.to_vec(), ts, value));
        }
    }
    want
}

/// Writes the 9,000 cells compressed so under `dir`, and a file of no
/// cells: their paths and the first one's summary.
fn write_sample(
    dir: &std::path::Path,
    compression: Compression,
    want: &[TestCell],
) -> (
    std::path::PathBuf,
    std::path::PathBuf,
    rowkey_hbase::hfile::HFileSummary,
) {
    let path = dir.join(format!("events-{compression:?}.hfile"));
    let options = HFileOptions {
        block_size: 8 * 1024,
        compression,
        ..HFileOptions::new("d")
    };
    let mut w = HFileWriter::create(&path, options).unwrap();
    for (row, q, ts, value) in want {
        w.append(row, q, *ts, value).unwrap();
    }
    let summary = w.finish().unwrap();
    assert_eq!(summary.cells, want.len() as u64);
    assert!(summary.data_blocks > 20, "{summary:?}");
    assert_eq!(summary.bytes, std::fs::metadata(&path).unwrap().len());
    let empty = dir.join(format!("empty-{compression:?}.hfile"));
    HFileWriter::create(
        &empty,
        HFileOptions {
            compression,
            ..HFileOptions::new("d")
        },
    )
    .unwrap()
    .finish()
    .unwrap();
    (path, empty, summary)
}

/// The checksums are HBase's: a byte changed in a block is caught by them
/// (HBase then falls back to the filesystem's checksums, which a local
/// file does not have, and returns what it read).
#[test]
fn hbase_checksums_catch_a_changed_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.hfile");
    let mut w = HFileWriter::create(&path, HFileOptions::new("d")).unwrap();
    for i in 0..100u32 {
        w.append(&i.to_be_bytes(), b"q", 1, &[7; 100]).unwrap();
    }
    w.finish().unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    // A value byte inside the first data block.
    bytes[200] ^= 0xFF;
    std::fs::write(&path, &bytes).unwrap();
    let read = read_hfile(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(read.checksum_failures >= 1, "{}", read.checksum_failures);
    // And an untouched file of the same cells has none.
    let mut w = HFileWriter::create(&path, HFileOptions::new("d")).unwrap();
    for i in 0..100u32 {
        w.append(&i.to_be_bytes(), b"q", 1, &[7; 100]).unwrap();
    }
    w.finish().unwrap();
    assert_eq!(read_hfile(&path).unwrap().checksum_failures, 0);
}

/// rowkey's writer and HBase's own (`HFile.getWriterFactory`) given the
/// same cells write the same data blocks, byte for byte (headers,
/// cells, checksums), uncompressed and in Snappy, and the same block
/// index, a single root here.
#[test]
fn data_blocks_and_index_are_those_hbase_writes() {
    let levels = same_blocks_as_hbase(
        &sample_cells(),
        HFileOptions {
            block_size: 8 * 1024,
            ..HFileOptions::new("d")
        },
    );
    assert_eq!(levels, 1);
}

/// In Snappy, rowkey's blocks end where HBase's do and hold the same bytes
/// once decompressed (the two Snappy compressors may choose other
/// matches, so the compressed bytes can differ).
#[test]
fn snappy_blocks_hold_what_hbases_hold() {
    let cells = sample_cells();
    let options = HFileOptions {
        block_size: 8 * 1024,
        compression: Compression::Snappy,
        ..HFileOptions::new("d")
    };
    let dir = tempfile::tempdir().unwrap();
    let (ours, theirs, summary) = write_both(dir.path(), &cells, &options);
    let (a, b) = (snappy_data_blocks(&ours), snappy_data_blocks(&theirs));
    assert_eq!(a.len(), summary.data_blocks);
    assert_eq!(a.len(), b.len(), "as many data blocks");
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert!(x == y, "data block {i} decompressed");
    }
}

/// Every data block of a Snappy HFile, decompressed from Hadoop's block
/// framing (the data's length, then each chunk's compressed length and
/// bytes).
fn snappy_data_blocks(path: &std::path::Path) -> Vec<Vec<u8>> {
    let file = std::fs::read(path).unwrap();
    let int = |at: usize| u32::from_be_bytes(file[at..at + 4].try_into().unwrap()) as usize;
    let root = trailer(&file)[&2] as usize;
    let (mut at, mut blocks) = (0, Vec::new());
    while at < root {
        let on_disk = int(at + 8);
        // The stored data: header to checksums (the header's last field).
        let data_end = at + int(at + 29);
        if &file[at..at + 8] == b"DATABLK*" {
            let (total, mut p) = (int(at + 33), at + 37);
            let mut data = Vec::with_capacity(total);
            while p < data_end {
                let n = int(p);
                data.extend(
                    snap::raw::Decoder::new()
                        .decompress_vec(&file[p + 4..p + 4 + n])
                        .unwrap(),
                );
                p += 4 + n;
            }
            assert_eq!(data.len(), total);
            assert_eq!(data.len(), int(at + 12), "the header's uncompressed size");
            blocks.push(data);
        }
        at += 33 + on_disk;
    }
    blocks
}

/// Blocks of 256 bytes and index blocks of 1 KiB: leaf index blocks
/// between the data blocks, intermediate levels and a root with the
/// mid-key metadata, all byte for byte HBase's; HBase reads every cell
/// through them, and its pretty printer finds nothing wrong.
#[test]
fn multi_level_indexes_are_those_hbase_writes() {
    let cells: Vec<TestCell> = sample_cells()
        .into_iter()
        .map(|(row, q, ts, value)| (row, q, ts, value[..value.len().min(20)].to_vec()))
        .collect();
    let options = HFileOptions {
        block_size: 256,
        index_block_size: 1024,
        ..HFileOptions::new("d")
    };
    let levels = same_blocks_as_hbase(&cells, options.clone());
    assert_eq!(levels, 3, "leaves, one intermediate level, the root");

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d-multi");
    let mut w = HFileWriter::create(&path, options).unwrap();
    for (row, q, ts, value) in &cells {
        w.append(row, q, *ts, value).unwrap();
    }
    w.finish().unwrap();
    let read = read_hfile(&path).unwrap();
    assert_eq!(read.cells.len(), cells.len());
    assert_eq!(read.checksum_failures, 0);
    let printed = pretty_print_hfile(&path).unwrap();
    for bad in ["WARNING", "ERROR", "Exception"] {
        assert!(!printed.contains(bad), "{bad} in:\n{printed}");
    }
}

/// `cells` written into `dir` by rowkey's writer (`ours.hfile`) and by
/// HBase's (`theirs.hfile`), with rowkey's summary.
fn write_both(
    dir: &std::path::Path,
    cells: &[TestCell],
    options: &HFileOptions,
) -> (
    std::path::PathBuf,
    std::path::PathBuf,
    rowkey_hbase::hfile::HFileSummary,
) {
    let ours = dir.join("ours.hfile");
    let theirs = dir.join("theirs.hfile");
    let mut w = HFileWriter::create(&ours, options.clone()).unwrap();
    for (row, q, ts, value) in cells {
        w.append(row, q, *ts, value).unwrap();
    }
    let summary = w.finish().unwrap();
    write_hfile_with_hbase(
        &theirs,
        options,
        cells
            .iter()
            .map(|(r, q, ts, v)| (r.as_slice(), q.as_slice(), *ts, v.as_slice())),
    )
    .unwrap();
    (ours, theirs, summary)
}

/// Writes `cells` with rowkey's writer and with HBase's, compares every
/// block up to the root index, the root index block and the trailer's
/// index fields; returns the index's levels.
fn same_blocks_as_hbase(cells: &[TestCell], options: HFileOptions) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let (ours, theirs, summary) = write_both(dir.path(), cells, &options);
    let (a, b) = (
        std::fs::read(&ours).unwrap(),
        std::fs::read(&theirs).unwrap(),
    );
    let (ta, tb) = (trailer(&a), trailer(&b));
    let root = ta[&2] as usize;
    assert_eq!(root, tb[&2] as usize, "the blocks end at the same offset");
    // A block: its 33-byte header, then its on-disk size past the header.
    let block_len = |f: &[u8], at: usize| {
        33 + i32::from_be_bytes(f[at + 8..at + 12].try_into().unwrap()) as usize
    };
    let (mut at, mut blocks) = (0, 0);
    while at < root {
        let len = block_len(&a, at);
        assert!(
            a[at..at + len] == b[at..at + len],
            "block {blocks} at {at} ({})",
            String::from_utf8_lossy(&a[at..at + 8])
        );
        blocks += usize::from(&a[at..at + 8] == b"DATABLK*");
        at += len;
    }
    assert_eq!(blocks, summary.data_blocks);
    assert!(
        a[root..root + block_len(&a, root)] == b[root..root + block_len(&b, root)],
        "the root index differs from HBase's"
    );
    // The index's uncompressed size, root entries, cells, levels, first
    // and last data blocks.
    for field in [3, 5, 7, 8, 9, 10] {
        assert_eq!(ta.get(&field), tb.get(&field), "trailer field {field}");
    }
    ta[&8]
}

/// The varint fields of a file's trailer (`FileTrailerProto`).
fn trailer(file: &[u8]) -> std::collections::BTreeMap<u64, u64> {
    let t = &file[file.len() - 4096..];
    assert_eq!(&t[..8], b"TRABLK\"$");
    let varint = |at: &mut usize| {
        let (mut v, mut shift) = (0u64, 0);
        loop {
            let b = t[*at];
            *at += 1;
            v |= u64::from(b & 0x7F) << shift;
            shift += 7;
            if b < 0x80 {
                return v;
            }
        }
    };
    let mut at = 8;
    let len = varint(&mut at) as usize;
    let end = at + len;
    let mut fields = std::collections::BTreeMap::new();
    while at < end {
        let key = varint(&mut at);
        match key & 7 {
            0 => {
                let v = varint(&mut at);
                fields.insert(key >> 3, v);
            }
            2 => {
                let n = varint(&mut at) as usize;
                at += n;
            }
            other => panic!("wire type {other} in the trailer"),
        }
    }
    fields
}

/// HBase's `HFilePrettyPrinter` (metadata, Bloom filter, block index, block
/// headers, row order and family checks) finds nothing wrong in rowkey's
/// files.
#[test]
fn hfile_pretty_printer_reports_nothing_wrong() {
    let cells = sample_cells();
    let dir = tempfile::tempdir().unwrap();
    for compression in [
        Compression::None,
        Compression::Gzip,
        Compression::Snappy,
        Compression::Zstd,
    ] {
        // The printer's family check wants the family in the file's path.
        let path = dir.path().join(format!("d-{}", compression.hbase_name()));
        let mut w = HFileWriter::create(
            &path,
            HFileOptions {
                compression,
                bloom: Bloom::Row,
                ..HFileOptions::new("d")
            },
        )
        .unwrap();
        for (row, q, ts, value) in &cells {
            w.append(row, q, *ts, value).unwrap();
        }
        w.finish().unwrap();
        let printed = pretty_print_hfile(&path).unwrap();
        assert!(printed.contains("BloomSize: "), "{printed}");
        for bad in ["WARNING", "ERROR", "Exception"] {
            assert!(!printed.contains(bad), "{bad} in:\n{printed}");
        }
        assert!(printed.contains("Scanned kv count -> 9000"), "{printed}");
        assert!(printed.contains("BULKLOAD_TIMESTAMP"), "{printed}");
    }
}

/// A ROW Bloom filter over 250,000 rows (three chunks, the last one
/// folded): every block, the Bloom chunks between the data blocks
/// included, and the Bloom filter's meta block are byte for byte those of
/// HBase's `StoreFileWriter` with `BloomType.ROW`; HBase's reader finds
/// every row through it, and lets about 1% of absent rows through.
#[test]
fn row_bloom_filters_are_those_hbase_writes() {
    let rows: Vec<Vec<u8>> = {
        let mut rows: Vec<Vec<u8>> = (0..250_000u32)
            .map(|i| {
                Event {
                    user: i % 1_009,
                    ts: 1_700_000_000_000 + i64::from(i),
                }
                .encode_to_vec()
                .unwrap()
            })
            .collect();
        rows.sort();
        rows
    };
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("ours.hfile");
    let theirs = dir.path().join("theirs.hfile");
    let mut w = HFileWriter::create(
        &ours,
        HFileOptions {
            bloom: Bloom::Row,
            ..HFileOptions::new("d")
        },
    )
    .unwrap();
    for row in &rows {
        w.append(row, b"q", 5, b"v").unwrap();
    }
    w.finish().unwrap();
    write_hfile_with_hbase(
        &theirs,
        &HFileOptions {
            bloom: Bloom::Row,
            ..HFileOptions::new("d")
        },
        rows.iter().map(|r| (r.as_slice(), &b"q"[..], 5, &b"v"[..])),
    )
    .unwrap();
    let (a, b) = (
        std::fs::read(&ours).unwrap(),
        std::fs::read(&theirs).unwrap(),
    );
    let find = |f: &[u8], magic: &[u8]| f.windows(8).position(|w| w == magic).unwrap();
    let block_len = |f: &[u8], at: usize| {
        33 + i32::from_be_bytes(f[at + 8..at + 12].try_into().unwrap()) as usize
    };
    let root = find(&a, b"IDXROOT2");
    assert_eq!(
        root,
        find(&b, b"IDXROOT2"),
        "the blocks end at the same offset"
    );
    let (mut at, mut chunks) = (0, 0);
    while at < root {
        let len = block_len(&a, at);
        chunks += usize::from(&a[at..at + 8] == b"BLMFBLK2");
        assert!(a[at..at + len] == b[at..at + len], "the block at {at}");
        at += len;
    }
    assert_eq!(chunks, 3, "250,000 rows in chunks of 109,306");
    let (ma, mb) = (find(&a, b"BLMFMET2"), find(&b, b"BLMFMET2"));
    assert!(
        a[ma..ma + block_len(&a, ma)] == b[mb..mb + block_len(&b, mb)],
        "the Bloom filter's meta block differs from HBase's"
    );

    let read = read_hfile(&ours).unwrap();
    let bloom = read.bloom.expect("HBase loads the Bloom filter");
    assert_eq!(bloom.missed, 0, "every row passes the filter");
    assert_eq!(bloom.probes, 250_000);
    assert!(
        bloom.false_positives < 5_000,
        "{} of 250,000 absent rows passed",
        bloom.false_positives
    );
}

/// Every cell `reader` has left, as the tests write them.
fn read_all(reader: &mut HFileReader) -> Vec<TestCell> {
    let mut out = Vec::new();
    while let Some(c) = reader.next_cell().unwrap() {
        assert_eq!(c.family, b"d");
        out.push((c.row, c.qualifier, c.timestamp, c.value));
    }
    out
}

/// rowkey's reader reads back every cell its writer wrote, in every
/// compression, with leaf index blocks and Bloom chunks between the data
/// blocks; the last cell from the file's end alone; and a file HBase's
/// own writer wrote (Zstandard, with a Bloom filter), cell for cell.
#[test]
fn rowkey_reads_back_the_files_it_and_hbase_write() {
    let want = sample_cells();
    let dir = tempfile::tempdir().unwrap();
    for compression in [
        Compression::None,
        Compression::Gzip,
        Compression::Snappy,
        Compression::Zstd,
    ] {
        let options = HFileOptions {
            block_size: 4 * 1024,
            index_block_size: 256,
            compression,
            bloom: Bloom::Row,
            ..HFileOptions::new("d")
        };
        let path = dir.path().join(format!("{compression:?}.hfile"));
        let mut w = HFileWriter::create(&path, options).unwrap();
        for (row, q, ts, value) in &want {
            w.append(row, q, *ts, value).unwrap();
        }
        w.finish().unwrap();
        let mut r = HFileReader::open(&path).unwrap();
        assert_eq!(r.compression(), compression);
        assert_eq!(r.entries(), want.len() as u64);
        let last = r.last_cell().unwrap().unwrap();
        assert_eq!(
            (last.row, last.qualifier, last.timestamp, last.value),
            want.last().unwrap().clone()
        );
        assert!(read_all(&mut r) == want, "{compression:?}: every cell");
    }

    let options = HFileOptions {
        block_size: 8 * 1024,
        compression: Compression::Zstd,
        bloom: Bloom::Row,
        ..HFileOptions::new("d")
    };
    let (_, theirs, _) = write_both(dir.path(), &want, &options);
    let mut r = HFileReader::open(&theirs).unwrap();
    assert!(read_all(&mut r) == want, "HBase's file: every cell");

    let empty = dir.path().join("empty.hfile");
    HFileWriter::create(&empty, HFileOptions::new("d"))
        .unwrap()
        .finish()
        .unwrap();
    let mut r = HFileReader::open(&empty).unwrap();
    assert_eq!(
        (r.next_cell().unwrap(), r.last_cell().unwrap()),
        (None, None)
    );
}

/// Damaged files are errors naming the file, never a panic or a huge
/// allocation: every byte of a small file changed in turn, every length
/// it could be cut to, and bytes that are no HFile at all.
#[test]
fn damaged_files_are_errors_never_panics() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small.hfile");
    let mut w = HFileWriter::create(&path, HFileOptions::new("d")).unwrap();
    for (row, q, ts, value) in sample_cells().iter().take(30) {
        w.append(row, q, *ts, value).unwrap();
    }
    w.finish().unwrap();
    let good = std::fs::read(&path).unwrap();
    let bad = dir.path().join("bad.hfile");
    let read = |bytes: &[u8]| -> Result<usize, rowkey_hbase::hfile::HFileError> {
        std::fs::write(&bad, bytes).unwrap();
        let mut r = HFileReader::open(&bad)?;
        r.last_cell()?;
        let mut n = 0;
        while r.next_cell()?.is_some() {
            n += 1;
        }
        Ok(n)
    };
    assert_eq!(read(&good).unwrap(), 30);
    let mut caught = 0;
    // The data blocks and the trailer's first bytes: checksums and sizes.
    for i in (0..good.len()).step_by(7) {
        let mut bytes = good.clone();
        bytes[i] ^= 0x5A;
        match read(&bytes) {
            Err(e) => {
                assert!(e.to_string().contains("bad.hfile"), "{e}");
                caught += 1;
            }
            // Bytes the reader does not use (the index, the file info,
            // the trailer's padding).
            Ok(n) => assert_eq!(n, 30),
        }
    }
    assert!(caught > 10, "changed bytes caught: {caught}");
    for len in (0..good.len()).step_by(13) {
        assert!(read(&good[..len]).is_err(), "cut to {len} bytes");
    }
    assert!(read(b"not an hfile at all").is_err());
}
