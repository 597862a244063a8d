//! The resume rule of a cut scan, written once for every client (HBase's
//! gateway and native scanners, Bigtable's streams): where a range goes on
//! after its last row, so that a scanner the server lost, a moved region or
//! a failed stream reads no row twice and skips none.

use alloc::vec::Vec;

/// A range `[start, stop)` (an empty `stop`: to the end of the table) whose
/// rows up to `last` were returned, narrowed to the rows still to read:
/// forward, from the first key after `last` (`last` followed by `00`);
/// reversed (largest first), up to `last`, which is excluded.
///
/// ```
/// let (mut start, mut stop) = (b"a".to_vec(), b"z".to_vec());
/// rowkey_core::scan::resume_after(&mut start, &mut stop, b"k", false);
/// assert_eq!((start.as_slice(), stop.as_slice()), (&b"k\x00"[..], &b"z"[..]));
/// rowkey_core::scan::resume_after(&mut start, &mut stop, b"p", true);
/// assert_eq!(stop, b"p");
/// ```
pub fn resume_after(start: &mut Vec<u8>, stop: &mut Vec<u8>, last: &[u8], reversed: bool) {
    if reversed {
        stop.clear();
        stop.extend_from_slice(last);
    } else {
        start.clear();
        start.extend_from_slice(last);
        start.push(0);
    }
}

/// [`resume_after`] for a row that must be read again whole (HBase cut it
/// between two regions, or between batches of its cells): the range from
/// `row` on, forward; up to and including `row`, reversed.
pub fn resume_at(start: &mut Vec<u8>, stop: &mut Vec<u8>, row: &[u8], reversed: bool) {
    if reversed {
        stop.clear();
        stop.extend_from_slice(row);
        stop.push(0);
    } else {
        start.clear();
        start.extend_from_slice(row);
    }
}
