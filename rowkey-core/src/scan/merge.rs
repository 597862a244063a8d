//! Merging the per-bucket streams of a salted scan back into key order.

use alloc::vec::Vec;
use core::cmp::Ordering;

/// An item of a stream given to [`merge_salted`]: a `(key, value)` pair, or a
/// `Result` of one (errors are passed through as soon as they are met).
pub trait MergeItem {
    /// The full key, salt byte included; `None` for an error item.
    fn merge_key(&self) -> Option<&[u8]>;
}

impl<K: AsRef<[u8]>, V> MergeItem for (K, V) {
    #[inline]
    fn merge_key(&self) -> Option<&[u8]> {
        Some(self.0.as_ref())
    }
}

impl<T: MergeItem, E> MergeItem for Result<T, E> {
    #[inline]
    fn merge_key(&self) -> Option<&[u8]> {
        self.as_ref().ok().and_then(MergeItem::merge_key)
    }
}

/// How a merge reads its items' keys, in place: [`ItemKey`] for items that
/// are [`MergeItem`]s (what [`merge_salted`] merges), or a function of the
/// item ([`merge_salted_by`]) for items of another crate's type, which
/// would otherwise have to be wrapped (and moved) on their way.
pub trait KeyOf<T> {
    /// `item`'s full key, salt byte included; `None` for an error item.
    fn key_of<'a>(&self, item: &'a T) -> Option<&'a [u8]>;
}

/// The [`KeyOf`] of [`MergeItem`]s: their [`merge_key`](MergeItem::merge_key).
#[derive(Clone, Copy, Debug, Default)]
pub struct ItemKey;

impl<T: MergeItem> KeyOf<T> for ItemKey {
    #[inline]
    fn key_of<'a>(&self, item: &'a T) -> Option<&'a [u8]> {
        item.merge_key()
    }
}

impl<T, F: Fn(&T) -> Option<&[u8]>> KeyOf<T> for F {
    #[inline]
    fn key_of<'a>(&self, item: &'a T) -> Option<&'a [u8]> {
        self(item)
    }
}

/// Merges one sorted stream per salt bucket into the order of the keys'
/// bytes after the salt byte: the order an unsalted table would give.
///
/// Lazy, and holds one item per stream (O(buckets) memory). Each stream must
/// be sorted by key, as a range read from a sorted store is. Equal unsalted
/// keys come out in stream order. An `Err` item is yielded as soon as it is
/// the head of its stream.
///
/// ```
/// use rowkey_core::merge_salted;
///
/// let bucket0 = vec![(vec![0, 1], "a"), (vec![0, 4], "d")];
/// let bucket1 = vec![(vec![1, 2], "b"), (vec![1, 3], "c")];
/// let merged: Vec<_> = merge_salted([bucket0.into_iter(), bucket1.into_iter()])
///     .map(|(_, v)| v)
///     .collect();
/// assert_eq!(merged, ["a", "b", "c", "d"]);
/// ```
pub fn merge_salted<S, I>(streams: S) -> MergeSalted<I>
where
    S: IntoIterator<Item = I>,
    I: Iterator,
    I::Item: MergeItem,
{
    merge_salted_with(1, streams)
}

/// [`merge_salted`] for keys whose head (family prefix and salt) is `head_len` bytes long: a text
/// key's bucket digits and separator (`3_...`: 2 bytes). Pass
/// [`Scan::head_len`](crate::Scan::head_len) of the scan the streams read.
///
/// ```
/// use rowkey_core::merge_salted_with;
///
/// let bucket0 = vec![(b"0_a".to_vec(), 1), (b"0_d".to_vec(), 4)];
/// let bucket1 = vec![(b"1_b".to_vec(), 2), (b"1_c".to_vec(), 3)];
/// let merged: Vec<_> = merge_salted_with(2, [bucket0.into_iter(), bucket1.into_iter()])
///     .map(|(_, v)| v)
///     .collect();
/// assert_eq!(merged, [1, 2, 3, 4]);
/// ```
pub fn merge_salted_with<S, I>(head_len: usize, streams: S) -> MergeSalted<I>
where
    S: IntoIterator<Item = I>,
    I: Iterator,
    I::Item: MergeItem,
{
    merge_by_key(head_len, false, ItemKey, streams)
}

/// [`merge_salted_with`] for items whose key `key` reads in place: rows of
/// another crate's type (as redb's ranges yield them), merged as they come,
/// with no wrapper to implement [`MergeItem`] and no move into one.
///
/// ```
/// use rowkey_core::merge_salted_by;
///
/// // Rows as a store might give them: (value, key).
/// let bucket0 = vec![("a", vec![0, 1]), ("d", vec![0, 4])];
/// let bucket1 = vec![("b", vec![1, 2]), ("c", vec![1, 3])];
/// let merged: Vec<_> = merge_salted_by(
///     1,
///     |row: &(&str, Vec<u8>)| Some(&row.1[..]),
///     [bucket0.into_iter(), bucket1.into_iter()],
/// )
/// .map(|(v, _)| v)
/// .collect();
/// assert_eq!(merged, ["a", "b", "c", "d"]);
/// ```
pub fn merge_salted_by<S, I, F>(head_len: usize, key: F, streams: S) -> MergeSalted<I, F>
where
    S: IntoIterator<Item = I>,
    I: Iterator,
    F: Fn(&I::Item) -> Option<&[u8]>,
{
    merge_by_key(head_len, false, key, streams)
}

/// [`merge_salted_by`] for streams that each read their range backwards,
/// as [`merge_salted_reversed_with`] merges them.
pub fn merge_salted_reversed_by<S, I, F>(head_len: usize, key: F, streams: S) -> MergeSalted<I, F>
where
    S: IntoIterator<Item = I>,
    I: Iterator,
    F: Fn(&I::Item) -> Option<&[u8]>,
{
    merge_by_key(head_len, true, key, streams)
}

/// The merges of this module, each stream read backwards when `reverse`.
pub(crate) fn merge_by_key<S, I, K>(
    head_len: usize,
    reverse: bool,
    key: K,
    streams: S,
) -> MergeSalted<I, K>
where
    S: IntoIterator<Item = I>,
    I: Iterator,
    K: KeyOf<I::Item>,
{
    MergeSalted::new(streams, |n| {
        MergeHeads::with_order(head_len, n, reverse, key)
    })
}

/// [`merge_salted_with`] for streams that each read their range backwards
/// (largest key first, as HBase's reversed scans and redb's and fjall's
/// `rev()` do): merged largest key first, so "the latest N" of an
/// oldest-first key is the first N rows.
///
/// ```
/// use rowkey_core::merge_salted_reversed_with;
///
/// let bucket0 = vec![(b"0_d".to_vec(), 4), (b"0_a".to_vec(), 1)];
/// let bucket1 = vec![(b"1_c".to_vec(), 3), (b"1_b".to_vec(), 2)];
/// let merged: Vec<_> = merge_salted_reversed_with(2, [bucket0.into_iter(), bucket1.into_iter()])
///     .map(|(_, v)| v)
///     .collect();
/// assert_eq!(merged, [4, 3, 2, 1]);
/// ```
pub fn merge_salted_reversed_with<S, I>(head_len: usize, streams: S) -> MergeSalted<I>
where
    S: IntoIterator<Item = I>,
    I: Iterator,
    I::Item: MergeItem,
{
    merge_by_key(head_len, true, ItemKey, streams)
}

/// The iterator returned by [`merge_salted`].
///
/// Rows of a salted table usually come in runs: every row of one user sits
/// in that user's bucket, one after another in key order. So the stream
/// that gave the last row (the *current* stream) keeps no head in the heap:
/// its next row is compared once with the smallest waiting head and, while
/// it stays smaller, returned at once. Only when another stream's head is
/// smaller does the heap move (one sift, as a replace-top would).
///
/// `K` reads the items' keys: [`ItemKey`] (the default) for
/// [`MergeItem`]s, or the function given to [`merge_salted_by`].
///
/// `fold` (and so `sum`, `for_each`, `count`) runs a loop of its own that
/// hands a run's rows from the stream straight to its closure; `next`, as a
/// `for` loop calls it, moves each row once more, through its return slot.
pub struct MergeSalted<I: Iterator, K = ItemKey> {
    streams: Vec<I>,
    heads: MergeHeads<I::Item, K>,
    /// The stream of the row returned last, read next; not in the heap.
    current: Option<usize>,
    /// The rank of the smallest waiting head (`u64::MAX` when none waits):
    /// a row of the current stream ranked below it comes first.
    top_rank: u64,
    started: bool,
}

impl<I: Iterator, K: KeyOf<I::Item>> MergeSalted<I, K> {
    /// Merges `streams` with `heads`, built for no stream yet.
    fn new(
        streams: impl IntoIterator<Item = I>,
        heads: impl FnOnce(usize) -> MergeHeads<I::Item, K>,
    ) -> Self {
        let streams: Vec<I> = streams.into_iter().collect();
        let heads = heads(streams.len());
        MergeSalted {
            streams,
            heads,
            current: None,
            top_rank: u64::MAX,
            started: false,
        }
    }

    /// Stream `i`'s row `item` does not rank below every waiting head:
    /// compared in full, it is the next row if it still comes first; else
    /// it waits in the heap, and the smallest head is the next row, its
    /// stream now current.
    #[inline(never)]
    fn switch(&mut self, i: usize, item: I::Item, rank: u64) -> I::Item {
        if self.heads.before_top(i, &item, rank) {
            return item;
        }
        match self.heads.push_pop(i, item, rank) {
            Ok((top, head)) => {
                self.current = Some(top);
                self.top_rank = self.heads.top_rank();
                head
            }
            Err(item) => item,
        }
    }

    /// The first row (every stream's head read), or the next once the
    /// current stream has ended: the smallest head.
    #[inline(never)]
    fn next_from_heads(&mut self) -> Option<I::Item> {
        if !self.started {
            self.started = true;
            for (i, s) in self.streams.iter_mut().enumerate() {
                if let Some(head) = s.next() {
                    self.heads.push(i, head);
                }
            }
        }
        let (top, item) = self.heads.pop()?;
        self.current = Some(top);
        self.top_rank = self.heads.top_rank();
        Some(item)
    }
}

/// The heap behind [`merge_salted`]: the next row (head) of each of `n`
/// sorted streams, ordered by key after the first `head_len` bytes (error
/// items first, then stream order). For merges over streams that are not
/// `Iterator`s (an async engine's row streams), so that every engine
/// merges with this one heap:
/// [`push`](Self::push) a stream's head once it is read,
/// [`pop`](Self::pop) the smallest when every stream has a head or has
/// ended, and read the next head of the stream it came from. `K` reads
/// the heads' keys, as [`MergeSalted`]'s does; [`new`](Self::new) reads
/// [`MergeItem`]s' ([`ItemKey`]).
///
/// ```
/// use rowkey_core::MergeHeads;
/// let mut heads = MergeHeads::new(1, 2);
/// heads.push(0, (b"\x00b".to_vec(), 2));
/// heads.push(1, (b"\x01a".to_vec(), 1));
/// assert_eq!(heads.pop(), Some((1, (b"\x01a".to_vec(), 1))));
/// assert_eq!(heads.pop(), Some((0, (b"\x00b".to_vec(), 2))));
/// assert_eq!(heads.pop(), None);
/// ```
pub struct MergeHeads<T, K = ItemKey> {
    /// Reads a head's key.
    key: K,
    /// The bytes in front of the fields: keys are compared after them.
    skip: usize,
    /// Largest key first: streams each read backwards.
    reverse: bool,
    heads: Vec<Option<T>>,
    /// Per stream, the head's [`rank`]: most comparisons end there.
    ranks: Vec<u64>,
    /// [`rank`]'s complement mask: all ones when reversed.
    flip: u64,
    /// Stream indices with a head, a binary min-heap ordered by their heads.
    heap: Vec<usize>,
}

/// A summary that orders items as their keys after the head bytes do, as
/// far as it can: the key's first 8 bytes after the head, big-endian, zero-padded
/// (complemented by `flip` when the merge is reversed); 0 for an error,
/// which comes first. Padding keeps the order without making it strict:
/// when two ranks differ the items differ the same way; when they are
/// equal (a key that ranks 0, like an error, included) they are compared
/// in full.
#[inline]
fn rank(key: Option<&[u8]>, skip: usize, flip: u64) -> u64 {
    let Some(k) = key else {
        return 0;
    };
    let k = k.get(skip..).unwrap_or(&[]);
    let first8 = match k.first_chunk::<8>() {
        // The common case: one 8-byte load, no copy loop.
        Some(b) => u64::from_be_bytes(*b),
        None => short_first8(k),
    };
    first8 ^ flip
}

/// [`rank`]'s first 8 bytes of a key shorter than 8 bytes, zero-padded.
#[cold]
fn short_first8(k: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b[..k.len()].copy_from_slice(k);
    u64::from_be_bytes(b)
}

impl<T: MergeItem> MergeHeads<T> {
    /// No heads yet, for `n` streams whose keys are compared after
    /// `head_len` bytes.
    pub fn new(head_len: usize, n: usize) -> Self {
        Self::with_order(head_len, n, false, ItemKey)
    }

    /// No heads yet, for `n` streams each read backwards (largest key
    /// first, as HBase's reversed scans return rows): the largest head
    /// comes first.
    pub fn new_reversed(head_len: usize, n: usize) -> Self {
        Self::with_order(head_len, n, true, ItemKey)
    }
}

impl<T, K: KeyOf<T>> MergeHeads<T, K> {
    fn with_order(head_len: usize, n: usize, reverse: bool, key: K) -> Self {
        MergeHeads {
            key,
            reverse,
            flip: if reverse { u64::MAX } else { 0 },
            skip: head_len,
            heads: (0..n).map(|_| None).collect(),
            ranks: alloc::vec![0; n],
            heap: Vec::with_capacity(n),
        }
    }

    /// Whether stream `i` has a head waiting.
    pub fn has_head(&self, i: usize) -> bool {
        self.heads[i].is_some()
    }

    /// The number of streams with a head.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// No stream has a head.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Stream `i`'s next row.
    ///
    /// # Panics
    /// If stream `i` has a head already (a programming error).
    pub fn push(&mut self, i: usize, head: T) {
        assert!(self.heads[i].is_none(), "stream {i} has a head already");
        self.ranks[i] = self.rank(&head);
        self.heads[i] = Some(head);
        self.heap.push(i);
        self.sift_up(self.heap.len() - 1);
    }

    /// The smallest head and its stream; that stream has no head after it.
    pub fn pop(&mut self) -> Option<(usize, T)> {
        let &top = self.heap.first()?;
        let last = self.heap.len() - 1;
        self.heap.swap(0, last);
        self.heap.pop();
        self.sift_down(0);
        self.heads[top].take().map(|h| (top, h))
    }

    /// The stream of the smallest head.
    pub fn peek_stream(&self) -> Option<usize> {
        self.heap.first().copied()
    }

    /// Whether stream `i`'s row `item`, of rank `rank`, comes before every
    /// waiting head (true when none waits): the order of [`less`](Self::less).
    #[inline]
    fn before_top(&self, i: usize, item: &T, rank: u64) -> bool {
        let Some(&top) = self.heap.first() else {
            return true;
        };
        match rank.cmp(&self.ranks[top]) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => self.before_by_key(i, item, top),
        }
    }

    /// [`before_top`](Self::before_top) when the ranks tie: the keys in
    /// full, then the streams.
    #[inline(never)]
    fn before_by_key(&self, i: usize, item: &T, top: usize) -> bool {
        let by_key = self.by_key(Some(item), self.heads[top].as_ref());
        by_key.then(i.cmp(&top)) == Ordering::Less
    }

    /// The rank of the smallest head, `u64::MAX` when none waits.
    #[inline]
    fn top_rank(&self) -> u64 {
        self.heap.first().map_or(u64::MAX, |&top| self.ranks[top])
    }

    /// `item`'s [`rank`] in this merge.
    #[inline]
    fn rank(&self, item: &T) -> u64 {
        rank(self.key.key_of(item), self.skip, self.flip)
    }

    /// Stream `i`'s next row, which [`before_top`](Self::before_top) found
    /// not to come first, takes the smallest head's place in one sift; that
    /// head and its stream are returned (`Err(item)` when no head waits).
    fn push_pop(&mut self, i: usize, item: T, rank: u64) -> Result<(usize, T), T> {
        let Some(&top) = self.heap.first() else {
            return Err(item);
        };
        debug_assert!(self.heads[i].is_none(), "stream {i} has a head already");
        let head = self.heads[top]
            .take()
            .expect("a stream in the heap has a head");
        self.ranks[i] = rank;
        self.heads[i] = Some(item);
        self.heap[0] = i;
        self.sift_down(0);
        Ok((top, head))
    }

    /// `head`'s key after the head bytes; `None` for an error item.
    #[inline]
    fn unsalted<'a>(&self, head: Option<&'a T>) -> Option<&'a [u8]> {
        let key = head.and_then(|h| self.key.key_of(h));
        key.map(|k| k.get(self.skip..).unwrap_or(&[]))
    }

    /// Two heads by their keys after the head bytes, errors first.
    #[inline]
    fn by_key(&self, a: Option<&T>, b: Option<&T>) -> Ordering {
        match (self.unsalted(a), self.unsalted(b)) {
            (Some(x), Some(y)) if self.reverse => y.cmp(x),
            (Some(x), Some(y)) => x.cmp(y),
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        }
    }

    /// Whether heap entry `i` comes before entry `j`: errors first, then
    /// keys after the head, then stream order. Most calls end at the ranks.
    #[inline]
    fn less(&self, i: usize, j: usize) -> bool {
        let (a, b) = (self.heap[i], self.heap[j]);
        match self.ranks[a].cmp(&self.ranks[b]) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => self.less_by_key(a, b),
        }
    }

    /// [`less`](Self::less) of streams `a` and `b` when their ranks tie.
    #[inline(never)]
    fn less_by_key(&self, a: usize, b: usize) -> bool {
        let by_key = self.by_key(self.heads[a].as_ref(), self.heads[b].as_ref());
        by_key.then(a.cmp(&b)) == Ordering::Less
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                return;
            }
            let r = l + 1;
            let c = if r < n && self.less(r, l) { r } else { l };
            if !self.less(c, i) {
                return;
            }
            self.heap.swap(i, c);
            i = c;
        }
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if !self.less(i, parent) {
                return;
            }
            self.heap.swap(i, parent);
            i = parent;
        }
    }
}

impl<I: Iterator, K: KeyOf<I::Item>> Iterator for MergeSalted<I, K> {
    type Item = I::Item;

    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        if let Some(i) = self.current {
            let next = self.streams[i].next();
            if let Some(item) = &next {
                let rank = self.heads.rank(item);
                // Within a run no other head comes first; else switch.
                if rank < self.top_rank {
                    return next;
                }
                return next.map(|item| self.switch(i, item, rank));
            }
        }
        self.next_from_heads()
    }

    /// The rows [`next`](Self::next) would give, in a loop of its own: a
    /// run's rows go from the stream straight to `f`, where `next` moves
    /// each through its return slot (a redb row is about 200 bytes).
    /// `for_each`, `sum` and `count` come here too.
    ///
    /// A row is looked at in the stream's `Option` and moved out of it only
    /// into `f`: binding it by value first (`let Some(row) = ...`) cost a
    /// copy of the row each time.
    fn fold<B, F>(mut self, init: B, mut f: F) -> B
    where
        F: FnMut(B, I::Item) -> B,
    {
        let mut acc = init;
        loop {
            if let Some(i) = self.current {
                let stream = &mut self.streams[i];
                let switched = loop {
                    let next = stream.next();
                    let Some(item) = &next else {
                        break None;
                    };
                    let rank = self.heads.rank(item);
                    if rank >= self.top_rank {
                        break next.map(|item| (item, rank));
                    }
                    if let Some(item) = next {
                        acc = f(acc, item);
                    }
                };
                if let Some((item, rank)) = switched {
                    acc = f(acc, self.switch(i, item, rank));
                    continue;
                }
            }
            match self.next_from_heads() {
                Some(item) => acc = f(acc, item),
                None => return acc,
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let buffered = self.heads.len();
        let (lo, hi) = self
            .streams
            .iter()
            .fold((0usize, Some(0usize)), |(lo, hi), s| {
                let (l, h) = s.size_hint();
                (
                    lo.saturating_add(l),
                    hi.and_then(|x| h.and_then(|h| x.checked_add(h))),
                )
            });
        if !self.started {
            return (lo, hi);
        }
        (
            lo.saturating_add(buffered),
            hi.and_then(|h| h.checked_add(buffered)),
        )
    }
}
