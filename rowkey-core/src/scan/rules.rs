//! A filter's rules over its parts: whether a key matches, and the
//! smallest key after it that could. One implementation for the filter a
//! key type builds ([`KeyFilter`](super::KeyFilter)) and the filter read
//! back from its serialized form ([`WireFilter`](super::WireFilter)), which
//! is what rowkey's Java filter on HBase's region servers copies rule for
//! rule (FORMAT.md, "The server-side filter").
//!
//! The work of one [`seek_hint`] is bounded whatever the parts: the walk
//! restarts at most [`MAX_HINT_PASSES`] times, and past that the hint is
//! the next string after the key, which is always a correct (if short)
//! seek. A filter read from the network cannot make a region server loop.

use alloc::vec::Vec;

use super::predicate::Set;
use super::range::prefix_stop;
use super::width::{End, Width};

/// The most passes the walk of
/// [`KeyFilter::seek_hint`](super::KeyFilter::seek_hint) makes over a
/// key's parts (each pass after the first starts again from a shorter,
/// incremented prefix).
/// A filter of validated parts needs at most one pass per part it steps
/// back over; past the bound the hint is the key followed by `00`.
/// rowkey's Java filter has the same bound, so both give the same hint.
pub const MAX_HINT_PASSES: usize = 16;

/// One part of a filter: how it is delimited, whether it is an added
/// field, and the encodings it allows (`None`: any).
pub(super) trait Rule {
    /// How the part is delimited.
    fn width(&self) -> Width<'_>;
    /// An added field (`#[rowkey(added)]`): older keys end before it.
    fn added(&self) -> bool;
    /// The encodings it allows; `None`: any.
    fn set(&self) -> Option<&Set>;
}

/// Whether `key` is a key of the parts whose values satisfy every set.
pub(super) fn matches<R: Rule>(parts: &[R], key: &[u8]) -> bool {
    let mut pos = 0;
    for (i, part) in parts.iter().enumerate() {
        if pos == key.len() && part.added() {
            // An older key: this field and those after it are absent.
            return parts[i..].iter().all(|p| p.set().is_none());
        }
        let End::At(end) = part.width().end(key, pos) else {
            return false;
        };
        if let Some(set) = part.set() {
            if !set.contains(&key[pos..end]) {
                return false;
            }
        }
        pos = end;
    }
    pos == key.len()
}

/// The smallest key at or after `key` that could match (see
/// [`KeyFilter::seek_hint`](super::KeyFilter::seek_hint)); `never`: a part
/// allows nothing.
pub(super) fn seek_hint<R: Rule>(parts: &[R], never: bool, key: &[u8]) -> Option<Vec<u8>> {
    // A part that allows nothing: nothing matches (and stepping through
    // every value of the parts before it would never end).
    if never {
        return None;
    }
    match lower_bound(parts, key) {
        Ok(None) => None,
        Ok(Some(hint)) if hint.as_slice() > key || matches(parts, key) => Some(hint),
        // The walk stopped inside a part whose smallest completion it
        // cannot name (a key cut short in a variable-width field, an older
        // key before a constrained part), or used up its passes: the next
        // string after `key`.
        Ok(Some(_)) | Err(Exhausted) => Some(successor(key)),
    }
}

/// [`lower_bound`] made [`MAX_HINT_PASSES`] passes without an answer.
struct Exhausted;

/// [`seek_hint`]'s walk: a lower bound of the keys at or after `key` that
/// could match, at least `key`; `key` itself when the walk cannot go past
/// a part that `key` ends inside.
fn lower_bound<R: Rule>(parts: &[R], key: &[u8]) -> Result<Option<Vec<u8>>, Exhausted> {
    let mut x = key.to_vec();
    let mut passes = 0;
    'restart: loop {
        passes += 1;
        if passes > MAX_HINT_PASSES {
            return Err(Exhausted);
        }
        let mut pos = 0;
        let mut i = 0;
        while i < parts.len() {
            let part = &parts[i];
            // An older key: it ends where added fields begin, and none of
            // them is constrained. It matches (as `matches` says), so it
            // is its own hint.
            if pos == x.len() && part.added() && parts[i..].iter().all(|p| p.set().is_none()) {
                return Ok(Some(x));
            }
            let width = part.width();
            match width.end(&x, pos) {
                End::At(end) => {
                    let Some(set) = part.set() else {
                        pos = end;
                        i += 1;
                        continue;
                    };
                    let s = &x[pos..end];
                    if set.contains(s) {
                        pos = end;
                        i += 1;
                        continue;
                    }
                    match set.next_after(s) {
                        // Nothing for this part under x[..pos]: past
                        // every key that starts so.
                        None => match prefix_stop(&x[..pos]) {
                            Some(stop) => {
                                x = stop;
                                continue 'restart;
                            }
                            None => return Ok(None),
                        },
                        // The next allowed encoding, and the smallest of
                        // what follows it.
                        Some(next) => {
                            if !jump(width, &mut x, pos, &next.lo) {
                                return Ok(Some(x));
                            }
                            pos = x.len();
                            i += 1;
                        }
                    }
                }
                End::Cut => {
                    // `x` ends inside this part: its rest is a prefix.
                    let rest = &x[pos..];
                    match (part.set(), width) {
                        (None, Width::Fixed(n)) => {
                            // The smallest value: zeros.
                            x.resize(pos + n, 0);
                            pos += n;
                            i += 1;
                        }
                        (None, _) => return Ok(Some(x)),
                        (Some(set), _) => match set.next_after(rest) {
                            None => match prefix_stop(&x[..pos]) {
                                Some(stop) => {
                                    x = stop;
                                    continue 'restart;
                                }
                                None => return Ok(None),
                            },
                            Some(next) if rest < next.lo.as_slice() => {
                                if !jump(width, &mut x, pos, &next.lo) {
                                    return Ok(Some(x));
                                }
                                pos = x.len();
                                i += 1;
                            }
                            // Inside an allowed interval, unfinished.
                            Some(_) => return Ok(Some(x)),
                        },
                    }
                }
                // Not a key: the next string after it (seek_hint makes it
                // so when `x` is still `key`).
                End::Invalid => return Ok(Some(x)),
            }
        }
        if pos == x.len() {
            return Ok(Some(x));
        }
        // Bytes after the last part: no key starts with x[..pos] and is
        // longer.
        match prefix_stop(&x[..pos]) {
            Some(stop) => x = stop,
            None => return Ok(None),
        }
    }
}

/// Puts `lo` as a part of `width` at `pos` of `x`, in place of what was
/// there and after; whether it is a whole value of the part (the hint can
/// then go on with the smallest of the parts after it).
fn jump(width: Width<'_>, x: &mut Vec<u8>, pos: usize, lo: &[u8]) -> bool {
    x.truncate(pos);
    x.extend_from_slice(lo);
    matches!(width.end(x, pos), End::At(e) if e == x.len())
}

/// The next string after `key`: `key` followed by `00`.
pub(super) fn successor(key: &[u8]) -> Vec<u8> {
    let mut next = Vec::with_capacity(key.len() + 1);
    next.extend_from_slice(key);
    next.push(0);
    next
}
