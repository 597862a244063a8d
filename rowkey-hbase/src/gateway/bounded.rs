//! Reading a gateway's replies without trusting the sizes in them.
//!
//! The thrift crate's input protocols allocate from sizes on the wire: a
//! string's length becomes `vec![0; len]` before a byte of it is read (a
//! negative binary length panics with a capacity overflow), a list's count
//! becomes the capacity of a `Vec` of structs, and its framed transport
//! resizes its buffer to whatever frame length arrives. A broken or
//! hostile gateway could so abort the process or take gigabytes. These
//! readers speak the same binary and compact protocols, checking every
//! size against what is left of the reply's byte budget ([`MAX_REPLY`])
//! before allocating: each element of a list takes at least one byte, so a
//! count past the bytes left is refused, and so is a string past them, as
//! is a list of over [`MAX_ELEMENTS`]. A refusal is a thrift protocol
//! error (`NegativeSize`, `SizeLimit`), which ends the call with an error.

use std::io::{self, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use thrift::protocol::{
    TFieldIdentifier, TInputProtocol, TListIdentifier, TMapIdentifier, TMessageIdentifier,
    TMessageType, TSetIdentifier, TStructIdentifier, TType,
};
use thrift::{ProtocolError, ProtocolErrorKind};

/// The most bytes one reply may hold (256 MiB): a scan batch of 1,000 rows
/// of 256 KiB each. Past it the call fails with a protocol error.
pub(crate) const MAX_REPLY: u64 = 256 << 20;

/// The most elements one list, set or map of a reply may hold: rows of a
/// batch, cells of a row.
pub(crate) const MAX_ELEMENTS: u64 = 1 << 20;

/// What is left of the current reply's budget, shared by a connection
/// (which resets it for each call) and its reader.
#[derive(Debug)]
pub(crate) struct Budget(AtomicU64);

impl Default for Budget {
    fn default() -> Self {
        Budget(AtomicU64::new(MAX_REPLY))
    }
}

impl Budget {
    /// A new call: the whole budget again.
    pub(crate) fn reset(&self) {
        self.0.store(MAX_REPLY, Ordering::Relaxed);
    }

    fn left(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    fn take(&self, n: u64) {
        self.0.fetch_sub(n.min(self.left()), Ordering::Relaxed);
    }
}

/// A reader that counts what it reads against a [`Budget`] and refuses to
/// read past it.
pub(crate) struct Counted<R> {
    inner: R,
    budget: Arc<Budget>,
}

impl<R: Read> Counted<R> {
    pub(crate) fn new(inner: R, budget: Arc<Budget>) -> Self {
        Counted { inner, budget }
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.budget.left();
        if left == 0 && !buf.is_empty() {
            return Err(io::Error::other(format!(
                "a reply of over {MAX_REPLY} bytes"
            )));
        }
        let n = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let read = self.inner.read(&mut buf[..n])?;
        self.budget.take(read as u64);
        Ok(read)
    }
}

/// Thrift's framed transport, reading: a 4-byte big-endian length, then
/// the frame; a length that is negative or past [`MAX_REPLY`] is an error,
/// not an allocation.
pub(crate) struct FramedRead<R> {
    inner: R,
    frame: Vec<u8>,
    pos: usize,
}

impl<R: Read> FramedRead<R> {
    pub(crate) fn new(inner: R) -> Self {
        FramedRead {
            inner,
            frame: Vec::new(),
            pos: 0,
        }
    }
}

impl<R: Read> Read for FramedRead<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.frame.len() {
            let mut len = [0u8; 4];
            self.inner.read_exact(&mut len)?;
            let len = i32::from_be_bytes(len);
            if len < 0 || len as u64 > MAX_REPLY {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("a frame of {len} bytes (at most {MAX_REPLY})"),
                ));
            }
            self.frame.clear();
            self.frame.resize(len as usize, 0);
            self.inner.read_exact(&mut self.frame)?;
            self.pos = 0;
        }
        let n = buf.len().min(self.frame.len() - self.pos);
        buf[..n].copy_from_slice(&self.frame[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

fn protocol_error(kind: ProtocolErrorKind, message: String) -> thrift::Error {
    thrift::Error::Protocol(ProtocolError { kind, message })
}

/// Checks a size from the wire: not negative, within the bytes left
/// (`per` bytes each at least) and, for a count, [`MAX_ELEMENTS`].
fn checked(size: i64, per: u64, count: bool, budget: &Budget, what: &str) -> thrift::Result<usize> {
    if size < 0 {
        return Err(protocol_error(
            ProtocolErrorKind::NegativeSize,
            format!("{what} of size {size}"),
        ));
    }
    let size = size as u64;
    if size.saturating_mul(per) > budget.left() || (count && size > MAX_ELEMENTS) {
        return Err(protocol_error(
            ProtocolErrorKind::SizeLimit,
            format!(
                "{what} of size {size}, past the reply's bytes (at most {MAX_REPLY} bytes, \
                 {MAX_ELEMENTS} elements)"
            ),
        ));
    }
    Ok(size as usize)
}

fn read_exact(r: &mut impl Read, n: usize) -> thrift::Result<Vec<u8>> {
    let mut buf = vec![0u8; n];
    r.read_exact(&mut buf)?;
    Ok(buf)
}

fn read_u8(r: &mut impl Read) -> thrift::Result<u8> {
    let mut b = [0u8; 1];
    r.read_exact(&mut b)?;
    Ok(b[0])
}

fn binary_type(b: u8) -> thrift::Result<TType> {
    Ok(match b {
        0 => TType::Stop,
        1 => TType::Void,
        2 => TType::Bool,
        3 => TType::I08,
        4 => TType::Double,
        6 => TType::I16,
        8 => TType::I32,
        10 => TType::I64,
        11 => TType::String,
        12 => TType::Struct,
        13 => TType::Map,
        14 => TType::Set,
        15 => TType::List,
        16 => TType::Utf8,
        17 => TType::Utf16,
        other => {
            return Err(protocol_error(
                ProtocolErrorKind::InvalidData,
                format!("cannot convert {other} into TType"),
            ))
        }
    })
}

/// Thrift's binary protocol (strict: messages carry the version), read
/// with every size checked.
pub(crate) struct BinaryIn<R> {
    r: Counted<R>,
}

impl<R: Read> BinaryIn<R> {
    pub(crate) fn new(r: Counted<R>) -> Self {
        BinaryIn { r }
    }

    fn i32(&mut self) -> thrift::Result<i32> {
        let mut b = [0u8; 4];
        self.r.read_exact(&mut b)?;
        Ok(i32::from_be_bytes(b))
    }
}

impl<R: Read> TInputProtocol for BinaryIn<R> {
    fn read_message_begin(&mut self) -> thrift::Result<TMessageIdentifier> {
        let header = self.i32()? as u32;
        if header & 0xFFFF_0000 != 0x8001_0000 {
            return Err(protocol_error(
                ProtocolErrorKind::BadVersion,
                format!("received bad version: {header:#010x}"),
            ));
        }
        let kind = TMessageType::try_from((header & 0xFF) as u8)?;
        let name = self.read_string()?;
        let seq = self.i32()?;
        Ok(TMessageIdentifier::new(name, kind, seq))
    }

    fn read_message_end(&mut self) -> thrift::Result<()> {
        Ok(())
    }

    fn read_struct_begin(&mut self) -> thrift::Result<Option<TStructIdentifier>> {
        Ok(None)
    }

    fn read_struct_end(&mut self) -> thrift::Result<()> {
        Ok(())
    }

    fn read_field_begin(&mut self) -> thrift::Result<TFieldIdentifier> {
        let field_type = binary_type(self.read_byte()?)?;
        let id = match field_type {
            TType::Stop => 0,
            _ => self.read_i16()?,
        };
        Ok(TFieldIdentifier::new::<Option<String>, String, i16>(
            None, field_type, id,
        ))
    }

    fn read_field_end(&mut self) -> thrift::Result<()> {
        Ok(())
    }

    fn read_bool(&mut self) -> thrift::Result<bool> {
        Ok(self.read_byte()? != 0)
    }

    fn read_bytes(&mut self) -> thrift::Result<Vec<u8>> {
        let n = self.i32()?;
        let n = checked(i64::from(n), 1, false, &self.r.budget, "a string")?;
        read_exact(&mut self.r, n)
    }

    fn read_i8(&mut self) -> thrift::Result<i8> {
        Ok(self.read_byte()? as i8)
    }

    fn read_i16(&mut self) -> thrift::Result<i16> {
        let mut b = [0u8; 2];
        self.r.read_exact(&mut b)?;
        Ok(i16::from_be_bytes(b))
    }

    fn read_i32(&mut self) -> thrift::Result<i32> {
        self.i32()
    }

    fn read_i64(&mut self) -> thrift::Result<i64> {
        let mut b = [0u8; 8];
        self.r.read_exact(&mut b)?;
        Ok(i64::from_be_bytes(b))
    }

    fn read_double(&mut self) -> thrift::Result<f64> {
        let mut b = [0u8; 8];
        self.r.read_exact(&mut b)?;
        Ok(f64::from_be_bytes(b))
    }

    fn read_string(&mut self) -> thrift::Result<String> {
        Ok(String::from_utf8(self.read_bytes()?)?)
    }

    fn read_list_begin(&mut self) -> thrift::Result<TListIdentifier> {
        let element = binary_type(self.read_byte()?)?;
        let size = self.i32()?;
        checked(i64::from(size), 1, true, &self.r.budget, "a list")?;
        Ok(TListIdentifier::new(element, size))
    }

    fn read_list_end(&mut self) -> thrift::Result<()> {
        Ok(())
    }

    fn read_set_begin(&mut self) -> thrift::Result<TSetIdentifier> {
        let element = binary_type(self.read_byte()?)?;
        let size = self.i32()?;
        checked(i64::from(size), 1, true, &self.r.budget, "a set")?;
        Ok(TSetIdentifier::new(element, size))
    }

    fn read_set_end(&mut self) -> thrift::Result<()> {
        Ok(())
    }

    fn read_map_begin(&mut self) -> thrift::Result<TMapIdentifier> {
        let key = binary_type(self.read_byte()?)?;
        let value = binary_type(self.read_byte()?)?;
        let size = self.i32()?;
        checked(i64::from(size), 2, true, &self.r.budget, "a map")?;
        Ok(TMapIdentifier::new(key, value, size))
    }

    fn read_map_end(&mut self) -> thrift::Result<()> {
        Ok(())
    }

    fn read_byte(&mut self) -> thrift::Result<u8> {
        read_u8(&mut self.r)
    }
}

/// Thrift's compact protocol, read with every size checked.
pub(crate) struct CompactIn<R> {
    r: Counted<R>,
    last_field: i16,
    fields: Vec<i16>,
    pending_bool: Option<bool>,
}

/// Nested structs a reply may hold (HBase's replies nest three deep).
const MAX_DEPTH: usize = 64;

impl<R: Read> CompactIn<R> {
    pub(crate) fn new(r: Counted<R>) -> Self {
        CompactIn {
            r,
            last_field: 0,
            fields: Vec::new(),
            pending_bool: None,
        }
    }

    /// An unsigned LEB128 varint of at most 10 bytes.
    fn varint(&mut self) -> thrift::Result<u64> {
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let b = read_u8(&mut self.r)?;
            v |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(protocol_error(
            ProtocolErrorKind::InvalidData,
            "a varint of over 10 bytes".into(),
        ))
    }

    fn zigzag(&mut self) -> thrift::Result<i64> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    fn collection(&mut self, what: &str) -> thrift::Result<(TType, i32)> {
        let header = self.read_byte()?;
        let element = compact_collection_type(header & 0x0F)?;
        let small = (header & 0xF0) >> 4;
        let size = if small != 15 {
            i64::from(small)
        } else {
            // The thrift crate reads it as a u32 cast to i32: so do we.
            i64::from(self.varint()? as u32 as i32)
        };
        checked(size, 1, true, &self.r.budget, what)?;
        Ok((element, size as i32))
    }
}

fn compact_type(b: u8) -> thrift::Result<TType> {
    Ok(match b {
        0x00 => TType::Stop,
        0x03 => TType::I08,
        0x04 => TType::I16,
        0x05 => TType::I32,
        0x06 => TType::I64,
        0x07 => TType::Double,
        0x08 => TType::String,
        0x09 => TType::List,
        0x0A => TType::Set,
        0x0B => TType::Map,
        0x0C => TType::Struct,
        other => {
            return Err(protocol_error(
                ProtocolErrorKind::InvalidData,
                format!("cannot convert {other} into TType"),
            ))
        }
    })
}

fn compact_collection_type(b: u8) -> thrift::Result<TType> {
    match b {
        0x01 => Ok(TType::Bool),
        other => compact_type(other),
    }
}

impl<R: Read> TInputProtocol for CompactIn<R> {
    fn read_message_begin(&mut self) -> thrift::Result<TMessageIdentifier> {
        let id = self.read_byte()?;
        if id != 0x82 {
            return Err(protocol_error(
                ProtocolErrorKind::BadVersion,
                format!("invalid compact protocol header {id}"),
            ));
        }
        let type_and_version = self.read_byte()?;
        if type_and_version & 0x1F != 1 {
            return Err(protocol_error(
                ProtocolErrorKind::BadVersion,
                format!(
                    "cannot process compact protocol version {}",
                    type_and_version & 0x1F
                ),
            ));
        }
        let kind = TMessageType::try_from(type_and_version >> 5)?;
        let seq = self.varint()? as u32 as i32;
        let name = self.read_string()?;
        self.last_field = 0;
        self.fields.clear();
        Ok(TMessageIdentifier::new(name, kind, seq))
    }

    fn read_message_end(&mut self) -> thrift::Result<()> {
        Ok(())
    }

    fn read_struct_begin(&mut self) -> thrift::Result<Option<TStructIdentifier>> {
        if self.fields.len() >= MAX_DEPTH {
            return Err(protocol_error(
                ProtocolErrorKind::DepthLimit,
                format!("structs nested over {MAX_DEPTH} deep"),
            ));
        }
        self.fields.push(self.last_field);
        self.last_field = 0;
        Ok(None)
    }

    fn read_struct_end(&mut self) -> thrift::Result<()> {
        self.last_field = self.fields.pop().ok_or_else(|| {
            protocol_error(
                ProtocolErrorKind::InvalidData,
                "the end of a struct that did not begin".into(),
            )
        })?;
        Ok(())
    }

    fn read_field_begin(&mut self) -> thrift::Result<TFieldIdentifier> {
        let header = self.read_byte()?;
        let delta = (header & 0xF0) >> 4;
        let field_type = match header & 0x0F {
            0x01 => {
                self.pending_bool = Some(true);
                TType::Bool
            }
            0x02 => {
                self.pending_bool = Some(false);
                TType::Bool
            }
            other => compact_type(other)?,
        };
        if field_type == TType::Stop {
            return Ok(
                TFieldIdentifier::new::<Option<String>, String, Option<i16>>(
                    None,
                    TType::Stop,
                    None,
                ),
            );
        }
        self.last_field = if delta != 0 {
            self.last_field.wrapping_add(i16::from(delta))
        } else {
            self.read_i16()?
        };
        Ok(TFieldIdentifier::new::<Option<String>, String, i16>(
            None,
            field_type,
            self.last_field,
        ))
    }

    fn read_field_end(&mut self) -> thrift::Result<()> {
        Ok(())
    }

    fn read_bool(&mut self) -> thrift::Result<bool> {
        match self.pending_bool.take() {
            Some(b) => Ok(b),
            None => match self.read_byte()? {
                0x01 => Ok(true),
                0x02 => Ok(false),
                other => Err(protocol_error(
                    ProtocolErrorKind::InvalidData,
                    format!("cannot convert {other} into bool"),
                )),
            },
        }
    }

    fn read_bytes(&mut self) -> thrift::Result<Vec<u8>> {
        let n = self.varint()?;
        let n = checked(
            i64::try_from(n).unwrap_or(i64::MAX),
            1,
            false,
            &self.r.budget,
            "a string",
        )?;
        read_exact(&mut self.r, n)
    }

    fn read_i8(&mut self) -> thrift::Result<i8> {
        Ok(self.read_byte()? as i8)
    }

    fn read_i16(&mut self) -> thrift::Result<i16> {
        Ok(self.zigzag()? as i16)
    }

    fn read_i32(&mut self) -> thrift::Result<i32> {
        Ok(self.zigzag()? as i32)
    }

    fn read_i64(&mut self) -> thrift::Result<i64> {
        self.zigzag()
    }

    fn read_double(&mut self) -> thrift::Result<f64> {
        let mut b = [0u8; 8];
        self.r.read_exact(&mut b)?;
        Ok(f64::from_le_bytes(b))
    }

    fn read_string(&mut self) -> thrift::Result<String> {
        Ok(String::from_utf8(self.read_bytes()?)?)
    }

    fn read_list_begin(&mut self) -> thrift::Result<TListIdentifier> {
        let (element, size) = self.collection("a list")?;
        Ok(TListIdentifier::new(element, size))
    }

    fn read_list_end(&mut self) -> thrift::Result<()> {
        Ok(())
    }

    fn read_set_begin(&mut self) -> thrift::Result<TSetIdentifier> {
        let (element, size) = self.collection("a set")?;
        Ok(TSetIdentifier::new(element, size))
    }

    fn read_set_end(&mut self) -> thrift::Result<()> {
        Ok(())
    }

    fn read_map_begin(&mut self) -> thrift::Result<TMapIdentifier> {
        let size = self.varint()? as u32 as i32;
        checked(i64::from(size), 2, true, &self.r.budget, "a map")?;
        if size == 0 {
            return Ok(TMapIdentifier::new(None, None, 0));
        }
        let types = self.read_byte()?;
        let key = compact_collection_type((types & 0xF0) >> 4)?;
        let value = compact_collection_type(types & 0x0F)?;
        Ok(TMapIdentifier::new(key, value, size))
    }

    fn read_map_end(&mut self) -> thrift::Result<()> {
        Ok(())
    }

    fn read_byte(&mut self) -> thrift::Result<u8> {
        read_u8(&mut self.r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::thrift::{TColumnValue, TResult};
    use thrift::protocol::{
        TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol,
        TOutputProtocol, TSerializable,
    };

    fn counted(bytes: Vec<u8>) -> Counted<io::Cursor<Vec<u8>>> {
        Counted::new(io::Cursor::new(bytes), Arc::new(Budget::default()))
    }

    /// A reply's row with cells of every shape: what a scan batch holds.
    fn result(i: u8) -> TResult {
        let cells = (0..i % 5)
            .map(|j| {
                TColumnValue::new(
                    vec![b'd'],
                    vec![j; usize::from(j)],
                    vec![i; usize::from(i) * 3],
                    Some(i64::from(i) * 1_000 - 7),
                    None,
                    Some((j % 2) as i8),
                )
            })
            .collect();
        TResult::new(
            Some(vec![i; usize::from(i % 7) + 1]),
            cells,
            Some(i.is_multiple_of(2)),
            None,
        )
    }

    fn binary(r: &TResult) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut p = TBinaryOutputProtocol::new(&mut out, true);
            r.write_to_out_protocol(&mut p).unwrap();
            p.flush().unwrap();
        }
        out
    }

    fn compact(r: &TResult) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut p = TCompactOutputProtocol::new(&mut out);
            r.write_to_out_protocol(&mut p).unwrap();
            p.flush().unwrap();
        }
        out
    }

    /// On what the thrift crate writes, these readers read what its own do.
    #[test]
    fn valid_replies_read_as_the_thrift_crates_readers_read_them() {
        for i in 0..60u8 {
            let r = result(i);
            let bytes = binary(&r);
            let ours = TResult::read_from_in_protocol(&mut BinaryIn::new(counted(bytes.clone())));
            let theirs = TResult::read_from_in_protocol(&mut TBinaryInputProtocol::new(
                io::Cursor::new(bytes),
                true,
            ));
            assert_eq!(ours.unwrap(), theirs.unwrap());
            assert_eq!(ours_eq_compact(&r), r);
        }
    }

    fn ours_eq_compact(r: &TResult) -> TResult {
        let bytes = compact(r);
        let theirs = TResult::read_from_in_protocol(&mut TCompactInputProtocol::new(
            io::Cursor::new(bytes.clone()),
        ))
        .unwrap();
        let ours = TResult::read_from_in_protocol(&mut CompactIn::new(counted(bytes))).unwrap();
        assert_eq!(ours, theirs);
        ours
    }

    /// A list of -1 elements, a string of 2^31 - 1 bytes, a list of
    /// 2^31 - 1 elements: protocol errors, no panic, no allocation.
    #[test]
    fn hostile_sizes_are_errors() {
        // TResult { 2: list<TColumnValue> } with each size.
        let list = |size: i32| {
            let mut b = vec![15, 0, 2, 12];
            b.extend_from_slice(&size.to_be_bytes());
            b
        };
        let string = |size: i32| {
            let mut b = vec![11, 0, 1];
            b.extend_from_slice(&size.to_be_bytes());
            b
        };
        for (bytes, kind) in [
            (list(-1), ProtocolErrorKind::NegativeSize),
            (list(i32::MAX), ProtocolErrorKind::SizeLimit),
            (string(-5), ProtocolErrorKind::NegativeSize),
            (string(i32::MAX), ProtocolErrorKind::SizeLimit),
        ] {
            let e = TResult::read_from_in_protocol(&mut BinaryIn::new(counted(bytes))).unwrap_err();
            assert!(
                matches!(&e, thrift::Error::Protocol(p) if p.kind == kind),
                "{e:?}"
            );
        }
        // Compact: a list of 2^31 - 1 structs (header F then a varint).
        let bytes = vec![0x29, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 0x07];
        let e = TResult::read_from_in_protocol(&mut CompactIn::new(counted(bytes))).unwrap_err();
        assert!(
            matches!(&e, thrift::Error::Protocol(p) if p.kind == ProtocolErrorKind::SizeLimit),
            "{e:?}"
        );
        // A frame of -1 bytes and one past the budget.
        for len in [-1i32, i32::MAX] {
            let mut f = FramedRead::new(io::Cursor::new(len.to_be_bytes().to_vec()));
            let e = f.read(&mut [0u8; 8]).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
        }
    }

    /// Reads past the budget are refused.
    #[test]
    fn a_reply_past_its_budget_is_refused() {
        let budget = Arc::new(Budget::default());
        budget.take(MAX_REPLY - 3);
        let mut r = Counted::new(io::Cursor::new(vec![1u8; 10]), Arc::clone(&budget));
        let mut buf = [0u8; 10];
        assert_eq!(r.read(&mut buf).unwrap(), 3);
        assert!(r.read(&mut buf).is_err());
        budget.reset();
        assert_eq!(r.read(&mut buf).unwrap(), 7);
    }
}
