//! HBase's multi-level data block index (`HFileBlockIndex.BlockIndexWriter`):
//! entries gathered in a leaf chunk, written inline (`IDXLEAF2`) once it
//! reaches the index block size; a file whose entries never fill one has
//! a single level, its root. Past the index block size, the root is cut
//! into intermediate blocks (`IDXINTE2`), level by level. A multi-level
//! root ends with the mid-key metadata.

/// Entries an intermediate index block holds at least
/// (`hfile.index.block.min.entries`).
const MIN_ENTRIES: usize = 16;

/// Index entries: each block's first key, offset and size on disk (with
/// its header), and for a root over leaves the entries counted up to it.
#[derive(Default)]
struct Chunk {
    keys: Vec<Vec<u8>>,
    offsets: Vec<u64>,
    sizes: Vec<u32>,
    sub_entries: Vec<u64>,
    /// `curTotalNonRootEntrySize` and `curTotalRootSize`.
    non_root_entries: usize,
    root_size: usize,
}

impl Chunk {
    fn add(&mut self, key: Vec<u8>, offset: u64, size: u32, sub_entries: Option<u64>) {
        self.non_root_entries += 12 + key.len();
        self.root_size += 12 + vint_size(key.len() as i64) + key.len();
        self.keys.push(key);
        self.offsets.push(offset);
        self.sizes.push(size);
        if let Some(n) = sub_entries {
            self.sub_entries.push(n);
        }
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    /// The size of the chunk as a leaf or intermediate block.
    fn non_root_size(&self) -> usize {
        4 + 4 * (self.len() + 1) + self.non_root_entries
    }

    /// A leaf or intermediate block: the entry count, the entries' offsets
    /// from the end of that "secondary index" (and the total), then each
    /// entry's offset, size and key (no length: the secondary index gives
    /// it).
    fn encode_non_root(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.non_root_size());
        out.extend_from_slice(&(self.len() as i32).to_be_bytes());
        let mut mark = 0usize;
        for key in &self.keys {
            out.extend_from_slice(&(mark as i32).to_be_bytes());
            mark += 12 + key.len();
        }
        out.extend_from_slice(&(mark as i32).to_be_bytes());
        for ((key, offset), size) in self.keys.iter().zip(&self.offsets).zip(&self.sizes) {
            out.extend_from_slice(&offset.to_be_bytes());
            out.extend_from_slice(&size.to_be_bytes());
            out.extend_from_slice(key);
        }
        out
    }

    /// A root block: each entry's offset, size, and key after its Hadoop
    /// vint length.
    fn encode_root(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.root_size);
        for ((key, offset), size) in self.keys.iter().zip(&self.offsets).zip(&self.sizes) {
            out.extend_from_slice(&offset.to_be_bytes());
            out.extend_from_slice(&size.to_be_bytes());
            vint(&mut out, key.len() as i64);
            out.extend_from_slice(key);
        }
        out
    }

    /// `getMidKeyMetadata`: the leaf holding the middle data block (its
    /// offset and size) and that block's place in it.
    fn mid_key_metadata(&self) -> Vec<u8> {
        let total = self.sub_entries.last().copied().unwrap_or(0);
        let mid = total.saturating_sub(1) / 2;
        let entry = match self.sub_entries.binary_search(&mid) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
        .min(self.len().saturating_sub(1));
        let before = if entry > 0 {
            self.sub_entries[entry - 1]
        } else {
            0
        };
        let mut out = Vec::with_capacity(16);
        out.extend_from_slice(&self.offsets[entry].to_be_bytes());
        out.extend_from_slice(&self.sizes[entry].to_be_bytes());
        out.extend_from_slice(&((mid - before) as i32).to_be_bytes());
        out
    }
}

/// The data block index of one file.
pub(super) struct BlockIndex {
    max_chunk: usize,
    leaf: Chunk,
    root: Chunk,
    levels: u32,
    entries: u64,
    /// Every index block's size without its header, as the trailer
    /// counts it.
    pub(super) uncompressed: u64,
}

impl BlockIndex {
    pub(super) fn new(max_chunk: usize) -> BlockIndex {
        BlockIndex {
            max_chunk: max_chunk.max(1),
            leaf: Chunk::default(),
            root: Chunk::default(),
            levels: 1,
            entries: 0,
            uncompressed: 0,
        }
    }

    /// A data block: its index key, offset and size on disk.
    pub(super) fn add(&mut self, key: Vec<u8>, offset: u64, size: u32) {
        self.leaf.add(key, offset, size, None);
        self.entries += 1;
    }

    /// The leaf block to write now, if any, with its first key: when the
    /// leaf is full, or at the end (`closing`) unless no leaf was written
    /// yet, in which case its entries become the root.
    pub(super) fn leaf_block(&mut self, closing: bool) -> Option<(Vec<u8>, Vec<u8>)> {
        if self.leaf.len() == 0 {
            return None;
        }
        if closing && self.root.len() == 0 {
            self.root = std::mem::take(&mut self.leaf);
            return None;
        }
        if !closing && self.leaf.non_root_size() < self.max_chunk {
            return None;
        }
        let data = self.leaf.encode_non_root();
        let first = self.leaf.keys[0].clone();
        self.leaf = Chunk::default();
        Some((first, data))
    }

    /// A leaf block was written at `offset`, `size` bytes on disk with its
    /// header, `data` bytes without.
    pub(super) fn leaf_written(&mut self, first: Vec<u8>, offset: u64, size: u32, data: usize) {
        self.uncompressed += data as u64;
        self.levels = 2;
        self.root.add(first, offset, size, Some(self.entries));
    }

    /// Writes the intermediate levels (`write` writes an intermediate
    /// block's data and returns its offset and size on disk) and returns
    /// the root block's data.
    pub(super) fn finish<E>(
        &mut self,
        mut write: impl FnMut(&[u8]) -> Result<(u64, u32), E>,
    ) -> Result<Vec<u8>, E> {
        let mid = (self.levels > 1).then(|| self.root.mid_key_metadata());
        while self.levels > 1
            && self.root.root_size > self.max_chunk
            && self.root.len() > MIN_ENTRIES
            && self.levels < 16
        {
            let level = std::mem::take(&mut self.root);
            let mut parent = Chunk::default();
            let mut chunk = Chunk::default();
            let mut flush = |chunk: &mut Chunk, parent: &mut Chunk| -> Result<(), E> {
                let data = chunk.encode_non_root();
                let (offset, size) = write(&data)?;
                self.uncompressed += data.len() as u64;
                parent.add(chunk.keys[0].clone(), offset, size, None);
                *chunk = Chunk::default();
                Ok(())
            };
            for i in 0..level.len() {
                chunk.add(
                    level.keys[i].clone(),
                    level.offsets[i],
                    level.sizes[i],
                    None,
                );
                if i >= MIN_ENTRIES && chunk.root_size >= self.max_chunk {
                    flush(&mut chunk, &mut parent)?;
                }
            }
            if chunk.len() > 0 {
                flush(&mut chunk, &mut parent)?;
            }
            self.root = parent;
            self.levels += 1;
        }
        let mut data = self.root.encode_root();
        if let Some(mid) = mid {
            data.extend_from_slice(&mid);
        }
        self.uncompressed += data.len() as u64;
        Ok(data)
    }

    /// The root's entries (the trailer's `data_index_count`).
    pub(super) fn root_entries(&self) -> usize {
        self.root.len()
    }

    /// The index's levels.
    pub(super) fn levels(&self) -> u32 {
        self.levels
    }
}

/// Hadoop's `WritableUtils.writeVInt`/`writeVLong`: one byte for -112 to
/// 127, else a length byte and the value's big-endian bytes.
pub(super) fn vint(out: &mut Vec<u8>, v: i64) {
    if (-112..=127).contains(&v) {
        out.push(v as u8);
        return;
    }
    let (mut len, mut v) = (-112i64, v);
    if v < 0 {
        v = !v;
        len = -120;
    }
    let mut tmp = v;
    while tmp != 0 {
        tmp >>= 8;
        len -= 1;
    }
    out.push(len as u8);
    let bytes = if len < -120 {
        -(len + 120)
    } else {
        -(len + 112)
    };
    for i in (0..bytes).rev() {
        out.push((v >> (i * 8)) as u8);
    }
}

/// The bytes [`vint`] writes for a length `v` (not negative).
fn vint_size(v: i64) -> usize {
    if v <= 127 {
        1
    } else {
        1 + (64 - v.leading_zeros() as usize).div_ceil(8)
    }
}
