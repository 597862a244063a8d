//! A ROW Bloom filter as HBase writes it (`CompoundBloomFilterWriter`,
//! `BloomFilterChunk`, `BloomFilterUtil`, `MurmurHash`): chunks of 128 KiB
//! of bits for up to about 109,000 rows each, written as inline blocks
//! between the data blocks, the last one folded to fit its rows, and a
//! meta block that indexes them.

/// The bytes of a chunk (`io.storefile.bloom.block.size`).
const CHUNK_BYTES: usize = 128 * 1024;
/// `io.storefile.bloom.error.rate`, a Java `float`.
const ERROR_RATE: f32 = 0.01;
/// `io.storefile.bloom.max.fold`: a chunk's size is a multiple of 2^7
/// bytes, so that it can be folded in two up to 7 times.
const MAX_FOLD: u32 = 7;
/// `Hash.MURMUR_HASH`, HBase's default `hbase.hash.type`.
pub(super) const HASH_MURMUR: i32 = 1;
/// `CompoundBloomFilterBase.VERSION`.
pub(super) const VERSION: i32 = 3;

/// A chunk ready to be written: its first row and its bits (folded).
pub(super) struct Chunk {
    pub(super) first_row: Vec<u8>,
    pub(super) bits: Vec<u8>,
}

/// The Bloom filter of the rows of one file.
pub(super) struct RowBloom {
    /// The current chunk's bits, its first row, its rows.
    bits: Vec<u8>,
    first_row: Vec<u8>,
    keys: u64,
    /// Rows a chunk takes, and hashes per row (`createBySize`).
    max_keys: u64,
    pub(super) hash_count: u32,
    /// Every chunk so far: its first row, offset and size on disk.
    pub(super) index: Vec<(Vec<u8>, u64, u32)>,
    pub(super) total_bytes: u64,
    pub(super) total_keys: u64,
    pub(super) total_max_keys: u64,
    pub(super) chunks: u32,
    /// Full chunks waiting for the next block boundary.
    pub(super) ready: Vec<Chunk>,
}

impl RowBloom {
    pub(super) fn new() -> RowBloom {
        let (max_keys, hash_count) = sizes();
        RowBloom {
            bits: Vec::new(),
            first_row: Vec::new(),
            keys: 0,
            max_keys,
            hash_count,
            index: Vec::new(),
            total_bytes: 0,
            total_keys: 0,
            total_max_keys: 0,
            chunks: 0,
            ready: Vec::new(),
        }
    }

    /// Adds a row (each distinct row once, in order); a full chunk is set
    /// aside first, to be written at the next block boundary.
    pub(super) fn add(&mut self, row: &[u8]) {
        if self.keys == self.max_keys {
            self.enqueue();
        }
        if self.bits.is_empty() {
            self.bits = vec![0; CHUNK_BYTES];
            self.first_row.clear();
            self.first_row.extend_from_slice(row);
            self.chunks += 1;
        }
        let bit_size = (self.bits.len() * 8) as i64;
        let hash1 = murmur(row, 0);
        let hash2 = murmur(row, hash1);
        for i in 0..self.hash_count as i32 {
            let at = (i64::from(hash1.wrapping_add(i.wrapping_mul(hash2))) % bit_size).abs();
            self.bits[(at / 8) as usize] |= 1 << (at % 8);
        }
        self.keys += 1;
        self.total_keys += 1;
    }

    /// Whether the current chunk is full (HBase writes it at the next block
    /// boundary even if no row came after it).
    pub(super) fn enqueue_if_full(&mut self) {
        if !self.bits.is_empty() && self.keys == self.max_keys {
            self.enqueue();
        }
    }

    /// Sets the current chunk aside, folded (`compactBloom`): halved while
    /// its size is even and it could hold more than twice its rows.
    pub(super) fn enqueue(&mut self) {
        if self.bits.is_empty() {
            return;
        }
        let mut bits = std::mem::take(&mut self.bits);
        let mut max_keys = self.max_keys;
        let mut size = bits.len();
        while size.is_multiple_of(2) && max_keys > self.keys << 1 {
            size /= 2;
            max_keys >>= 1;
        }
        if size < bits.len() {
            for piece in 1..bits.len() / size {
                for i in 0..size {
                    bits[i] |= bits[piece * size + i];
                }
            }
            bits.truncate(size);
        }
        self.total_bytes += size as u64;
        self.total_max_keys += max_keys;
        self.keys = 0;
        self.ready.push(Chunk {
            first_row: std::mem::take(&mut self.first_row),
            bits,
        });
    }
}

/// A chunk's rows and hashes per row, as `BloomFilterUtil.createBySize`
/// computes them for 128 KiB and a 1% error rate: 109,306 rows, 7 hashes.
fn sizes() -> (u64, u32) {
    let bits = fold_size(CHUNK_BYTES as u64 * 8, MAX_FOLD) * 8;
    let err = f64::from(ERROR_RATE);
    let log2_squared = std::f64::consts::LN_2 * std::f64::consts::LN_2;
    let ideal = (bits as f64 * (log2_squared / -err.ln())) as i64 as i32;
    let per_key = bits / ideal as u64;
    let hash_count = (std::f64::consts::LN_2 * per_key as f64).ceil() as u32;
    let max_keys = (-(bits as f64) * 1.0 / f64::from(hash_count)
        * (1.0 - (err.ln() / f64::from(hash_count)).exp()).ln()) as i64 as i32;
    (max_keys as u64, hash_count)
}

/// `BloomFilterUtil.computeFoldableByteSize`: the bytes for `bits`, rounded
/// up to a multiple of 2^`fold`.
fn fold_size(bits: u64, fold: u32) -> u64 {
    let mut bytes = bits.div_ceil(8);
    let mask = (1u64 << fold) - 1;
    if bytes & mask != 0 {
        bytes = ((bytes >> fold) + 1) << fold;
    }
    bytes
}

/// HBase's `MurmurHash` (MurmurHash2, 32 bits), Java quirk included: the
/// last 1 to 3 bytes are read as signed bytes, sign-extended.
pub(super) fn murmur(data: &[u8], seed: i32) -> i32 {
    const M: i32 = 0x5bd1_e995;
    let mut h = seed ^ data.len() as i32;
    let mut chunks = data.chunks_exact(4);
    for c in &mut chunks {
        let mut k = i32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        k = k.wrapping_mul(M);
        k ^= ((k as u32) >> 24) as i32;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        let signed = |b: u8| i32::from(b as i8);
        if tail.len() >= 3 {
            h ^= signed(tail[2]) << 16;
        }
        if tail.len() >= 2 {
            h ^= signed(tail[1]) << 8;
        }
        h ^= signed(tail[0]);
        h = h.wrapping_mul(M);
    }
    h ^= ((h as u32) >> 13) as i32;
    h = h.wrapping_mul(M);
    h ^= ((h as u32) >> 15) as i32;
    h
}

#[cfg(test)]
mod tests {
    use crate::bulk::hfile::bloom::{fold_size, murmur, sizes};

    #[test]
    fn murmur_is_hbases() {
        // MurmurHash.getInstance().hash(new ByteArrayHashKey(..), seed) in
        // jshell on HBase 2.6.1's classpath (the last bytes sign-extended).
        assert_eq!(murmur(&[1, 2, 3, 4, 5, 0x80, 0xff], 0), 1_880_638_547);
        assert_eq!(murmur(&[0x9a], 12_345), 985_796_204);
    }

    #[test]
    fn chunk_sizes_are_hbases() {
        // BloomFilterUtil.createBySize(131072, 0.01f, MURMUR_HASH, 7, ROW)
        // in jshell on HBase 2.6.1's classpath: 109306 keys, 7 hashes.
        assert_eq!(sizes(), (109_306, 7));
        assert_eq!(fold_size(1_000, 7), 128);
        assert_eq!(fold_size(131_072 * 8, 7), 131_072);
    }
}
