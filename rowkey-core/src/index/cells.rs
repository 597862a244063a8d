//! A record stored as several cells ([`Record::to_cells`](super::Record::to_cells)):
//! the cells' frame, the bytes a store without columns (redb, fjall) keeps
//! as the data row's value and a store with them (HBase) hands the logic
//! for a row of several cells (FORMAT.md, "Secondary index rows").

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

/// A cell of a data row: `(family, qualifier, value)`, as HBase's and
/// Bigtable's clients take them.
pub type Cell = (String, Vec<u8>, Vec<u8>);

/// The frame of `cells`: their count, then each cell's family (UTF-8),
/// qualifier and value, each after its length; counts and lengths are
/// unsigned LEB128 varints (7 bits a byte, low first), so no length is
/// ever cut.
pub fn encode_cells(cells: &[Cell]) -> Vec<u8> {
    let size: usize = cells
        .iter()
        .map(|(f, q, v)| 15 + f.len() + q.len() + v.len())
        .sum();
    let mut out = Vec::with_capacity(5 + size);
    put_varint(&mut out, cells.len());
    for (family, qualifier, value) in cells {
        for part in [family.as_bytes(), qualifier, value] {
            put_varint(&mut out, part.len());
            out.extend_from_slice(part);
        }
    }
    out
}

fn put_varint(out: &mut Vec<u8>, mut n: usize) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// The cells of a frame [`encode_cells`] wrote, or what is wrong with the
/// bytes (they come from a store: nothing in them is trusted).
pub fn decode_cells(bytes: &[u8]) -> Result<Vec<Cell>, Box<dyn std::error::Error + Send + Sync>> {
    let mut rest = bytes;
    let count = take_len(&mut rest, "the cell count")?;
    // Each cell takes at least 3 bytes: a count beyond them is a lie,
    // and allocates nothing.
    if count > rest.len() / 3 {
        return Err(alloc::format!(
            "a cells frame of {} bytes cannot hold {count} cells",
            bytes.len()
        )
        .into());
    }
    let mut cells = Vec::with_capacity(count);
    for i in 0..count {
        let n = take_len(&mut rest, "a family's length")?;
        let family = take(&mut rest, n, "a family")?;
        let family = core::str::from_utf8(family)
            .map_err(|_| alloc::format!("cell {i}: the family is not UTF-8"))?;
        let n = take_len(&mut rest, "a qualifier's length")?;
        let qualifier = take(&mut rest, n, "a qualifier")?.to_vec();
        let n = take_len(&mut rest, "a value's length")?;
        let value = take(&mut rest, n, "a value")?.to_vec();
        cells.push((family.into(), qualifier, value));
    }
    if !rest.is_empty() {
        return Err(
            alloc::format!("{} bytes after the last cell of a cells frame", rest.len()).into(),
        );
    }
    Ok(cells)
}

/// The next `n` bytes of `rest`, or an error naming `what` was cut short.
fn take<'a>(rest: &mut &'a [u8], n: usize, what: &str) -> Result<&'a [u8], String> {
    if rest.len() < n {
        return Err(alloc::format!(
            "a cells frame ends inside {what} ({n} bytes wanted, {} left)",
            rest.len()
        ));
    }
    let (head, tail) = rest.split_at(n);
    *rest = tail;
    Ok(head)
}

/// A varint length from `rest`: at most 10 bytes, and no more than the
/// bytes left (a length beyond them is refused before anything is read).
fn take_len(rest: &mut &[u8], what: &str) -> Result<usize, String> {
    let mut n: u64 = 0;
    for shift in (0..70).step_by(7) {
        let [b, tail @ ..] = *rest else {
            return Err(alloc::format!("a cells frame ends inside {what}"));
        };
        *rest = tail;
        if shift == 63 && b & 0x7f > 1 {
            return Err(alloc::format!("{what} in a cells frame is over 64 bits"));
        }
        n |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return usize::try_from(n)
                .ok()
                .filter(|&n| n <= rest.len() || what == "the cell count")
                .ok_or_else(|| {
                    alloc::format!(
                        "{what} of {n} bytes in a cells frame with {} left",
                        rest.len()
                    )
                });
        }
    }
    Err(alloc::format!(
        "{what} in a cells frame is a varint of over 10 bytes"
    ))
}
