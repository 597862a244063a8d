//! HBase's RPC on the wire, with no I/O (as `postgres-protocol` is to
//! tokio-postgres): the connection preamble and header, a call's frame,
//! a response's frame, and cellblocks in `KeyValueCodec`'s form. Checked
//! against the bytes HBase's own classes write
//! (`tests/data/native_golden.txt`).
//!
//! A call is `int32 total | varint-delimited RequestHeader |
//! varint-delimited request | cellblock`; a response `int32 total |
//! delimited ResponseHeader | delimited response | cellblock`, or the
//! header alone with an `ExceptionResponse`. Everything read from the
//! network is bounded by the frame it came in, and a frame by
//! [`MAX_FRAME`].

use prost::Message;

use crate::pb;

/// The connection preamble of SIMPLE authentication: `HBas`, RPC version
/// 0, auth method 80.
pub const PREAMBLE_SIMPLE: [u8; 6] = *b"HBas\x00\x50";

/// The preamble of a Kerberos client (auth method 81, `KERBEROS`): SASL
/// GSSAPI tokens follow it, each `int32 length + bytes`, each answered by
/// the server's `int32 status` ([`SASL_SUCCESS`] and `int32 length +
/// token`, or an error: `int32 length + class`, `int32 length +
/// message`).
pub const PREAMBLE_KERBEROS: [u8; 6] = *b"HBas\x00\x51";

/// A SASL answer's status: the token follows.
pub const SASL_SUCCESS: i32 = 0;

/// The length an insecure server answers a SASL client's preamble with:
/// "switch to SIMPLE authentication" (HBase's `SWITCH_TO_SIMPLE_AUTH`).
pub const SASL_SWITCH_TO_SIMPLE: i32 = -88;

/// The largest SASL token or error string a client reads (HBase's own
/// client's bound, `SaslChallengeDecoder.MAX_CHALLENGE_SIZE`).
pub const MAX_SASL_TOKEN: usize = 1 << 20;

/// The codec the client asks cellblocks in (the cells of a result or of a
/// `Multi`'s mutations beside the protobuf message).
pub const KEY_VALUE_CODEC: &str = "org.apache.hadoop.hbase.codec.KeyValueCodec";

/// The largest response frame read (HBase's own
/// `hbase.ipc.max.request.size` is 256 MiB too): a larger stated length
/// is an error, not an allocation.
pub const MAX_FRAME: usize = 256 << 20;

/// The HBase version the client claims in its connection header: a server
/// that sees none answers in its oldest ways (no cellblocks on gets).
const VERSION: (&str, u32, u32) = ("2.6.1", 2, 6);

/// What is wrong with bytes a server sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WireError {
    /// The bytes end before what they state.
    #[error("{0} cut short")]
    Truncated(&'static str),
    /// A stated length past what is allowed.
    #[error("a {what} of {len} bytes (at most {max})")]
    TooLarge {
        /// What the length was of.
        what: &'static str,
        /// The length stated.
        len: u64,
        /// The most allowed.
        max: u64,
    },
    /// A protobuf message that does not decode.
    #[error("a {what} that does not decode: {cause}")]
    Protobuf {
        /// Which message.
        what: &'static str,
        /// prost's reason.
        cause: String,
    },
    /// A cellblock that is not `KeyValueCodec`'s cells.
    #[error("a cellblock that does not decode: {0}")]
    CellBlock(String),
}

/// The connection header after the preamble, framed by its length: the
/// user, the service every call on the connection is for, the cellblock
/// codec and the version claimed.
pub fn connection_header(user: &str, service: &str) -> Vec<u8> {
    let header = pb::ConnectionHeader {
        user_info: Some(pb::UserInformation {
            effective_user: user.to_owned(),
            real_user: None,
        }),
        service_name: Some(service.to_owned()),
        cell_block_codec_class: Some(KEY_VALUE_CODEC.to_owned()),
        cell_block_compressor_class: None,
        version_info: Some(pb::VersionInfo {
            version: VERSION.0.to_owned(),
            url: "https://github.com/apache/hbase".to_owned(),
            revision: "rowkey".to_owned(),
            user: "rowkey".to_owned(),
            date: String::new(),
            src_checksum: String::new(),
            version_major: Some(VERSION.1),
            version_minor: Some(VERSION.2),
        }),
        rpc_crypto_cipher_transformation: None,
        attribute: Vec::new(),
    };
    let body = header.encode_to_vec();
    let mut out = Vec::with_capacity(4 + body.len());
    out.extend_from_slice(&(body.len() as u32).to_be_bytes());
    out.extend_from_slice(&body);
    out
}

/// A call's frame: `method` with `request` (and the cells of `cellblock`,
/// empty for none), answered by `timeout_ms` or dropped by the server.
pub fn call(
    call_id: u32,
    method: &str,
    request: &impl Message,
    cellblock: &[u8],
    timeout_ms: u32,
) -> Vec<u8> {
    let header = pb::RequestHeader {
        call_id: Some(call_id),
        trace_info: None,
        method_name: Some(method.to_owned()),
        request_param: Some(true),
        cell_block_meta: (!cellblock.is_empty()).then_some(pb::CellBlockMeta {
            length: Some(cellblock.len() as u32),
        }),
        priority: None,
        timeout: Some(timeout_ms),
        attribute: Vec::new(),
    };
    let (h, r) = (header.encoded_len(), request.encoded_len());
    let total = delimited_len(h) + delimited_len(r) + cellblock.len();
    let mut out = Vec::with_capacity(4 + total);
    out.extend_from_slice(&(total as u32).to_be_bytes());
    header
        .encode_length_delimited(&mut out)
        .expect("a Vec grows");
    request
        .encode_length_delimited(&mut out)
        .expect("a Vec grows");
    out.extend_from_slice(cellblock);
    out
}

fn delimited_len(n: usize) -> usize {
    prost::length_delimiter_len(n) + n
}

/// A response: its call, and its message and cellblock or the server's
/// exception.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The call it answers.
    pub call_id: u32,
    /// The answer.
    pub body: Result<Answer, pb::ExceptionResponse>,
}

/// A call's answer: the response message's bytes and the cellblock.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Answer {
    /// The response message, to decode as the call's response type.
    pub message: Vec<u8>,
    /// The cells beside it (`KeyValueCodec`), empty for none.
    pub cellblock: Vec<u8>,
}

/// The length a frame states (its first 4 bytes), checked against
/// [`MAX_FRAME`].
pub fn frame_len(prefix: [u8; 4]) -> Result<usize, WireError> {
    let len = u32::from_be_bytes(prefix) as usize;
    if len > MAX_FRAME {
        return Err(WireError::TooLarge {
            what: "response frame",
            len: len as u64,
            max: MAX_FRAME as u64,
        });
    }
    Ok(len)
}

/// A response frame (the bytes after its length).
pub fn response(frame: &[u8]) -> Result<Response, WireError> {
    let mut rest = frame;
    let header = delimited(&mut rest, "response header")?;
    let header = pb::ResponseHeader::decode(header).map_err(|e| WireError::Protobuf {
        what: "ResponseHeader",
        cause: e.to_string(),
    })?;
    let call_id = header.call_id.ok_or(WireError::Truncated(
        "a response header without its call id",
    ))?;
    if let Some(exception) = header.exception {
        return Ok(Response {
            call_id,
            body: Err(exception),
        });
    }
    let message = if rest.is_empty() {
        &[][..]
    } else {
        delimited(&mut rest, "response message")?
    };
    let cells = header.cell_block_meta.and_then(|m| m.length).unwrap_or(0) as usize;
    if cells != rest.len() {
        return Err(WireError::CellBlock(format!(
            "{} bytes after the message, the header states {cells}",
            rest.len()
        )));
    }
    Ok(Response {
        call_id,
        body: Ok(Answer {
            message: message.to_vec(),
            cellblock: rest.to_vec(),
        }),
    })
}

/// A varint-delimited piece of `rest`, which moves past it.
fn delimited<'a>(rest: &mut &'a [u8], what: &'static str) -> Result<&'a [u8], WireError> {
    let mut buf = *rest;
    let len = prost::decode_length_delimiter(&mut buf).map_err(|e| WireError::Protobuf {
        what,
        cause: e.to_string(),
    })?;
    if len > buf.len() {
        return Err(WireError::Truncated(what));
    }
    let (piece, after) = buf.split_at(len);
    *rest = after;
    Ok(piece)
}

/// One cell as HBase keeps it: a cellblock's `KeyValue`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyValue {
    /// The row.
    pub row: Vec<u8>,
    /// The family.
    pub family: Vec<u8>,
    /// The qualifier.
    pub qualifier: Vec<u8>,
    /// The timestamp, milliseconds.
    pub timestamp: i64,
    /// The cell's type: 4 put, 8 delete, 12 delete column, 14 delete
    /// family.
    pub kind: u8,
    /// The value.
    pub value: Vec<u8>,
}

/// A cell's type code: a put.
pub const PUT: u8 = 4;

impl KeyValue {
    /// The cell's bytes in a cellblock: `int32 length`, then HBase's
    /// `KeyValue` (`int32 key length | int32 value length | int16 row
    /// length | row | int8 family length | family | qualifier | int64
    /// timestamp | int8 type | value`).
    pub fn write(&self, out: &mut Vec<u8>) {
        let key = 2 + self.row.len() + 1 + self.family.len() + self.qualifier.len() + 8 + 1;
        let len = 8 + key + self.value.len();
        out.reserve(4 + len);
        out.extend_from_slice(&(len as u32).to_be_bytes());
        out.extend_from_slice(&(key as u32).to_be_bytes());
        out.extend_from_slice(&(self.value.len() as u32).to_be_bytes());
        out.extend_from_slice(&(self.row.len() as u16).to_be_bytes());
        out.extend_from_slice(&self.row);
        out.push(self.family.len() as u8);
        out.extend_from_slice(&self.family);
        out.extend_from_slice(&self.qualifier);
        out.extend_from_slice(&self.timestamp.to_be_bytes());
        out.push(self.kind);
        out.extend_from_slice(&self.value);
    }
}

/// The cells of a cellblock, at most `count` of them (what the message
/// says it holds), each within the block: a stated length past the block
/// is an error, never an allocation.
pub fn cells(block: &[u8], count: usize) -> Result<Vec<KeyValue>, WireError> {
    let mut out = Vec::with_capacity(count.min(block.len() / 21));
    let mut rest = block;
    while out.len() < count {
        let bad = |m: &str| WireError::CellBlock(format!("cell {}: {m}", out.len()));
        let len = take_u32(&mut rest).ok_or_else(|| bad("cut short before its length"))? as usize;
        if len > rest.len() {
            return Err(bad(&format!(
                "{len} bytes stated, {} left in the block",
                rest.len()
            )));
        }
        let (mut kv, after) = rest.split_at(len);
        rest = after;
        let key_len = take_u32(&mut kv).ok_or_else(|| bad("no key length"))? as usize;
        let value_len = take_u32(&mut kv).ok_or_else(|| bad("no value length"))? as usize;
        if key_len.checked_add(value_len) != Some(kv.len()) || key_len < 12 {
            return Err(bad(&format!(
                "a key of {key_len} and a value of {value_len} bytes in {} bytes",
                kv.len()
            )));
        }
        let (mut key, value) = kv.split_at(key_len);
        let row_len = u16::from_be_bytes([key[0], key[1]]) as usize;
        key = &key[2..];
        // The row, the family's length, the timestamp and type at least.
        if row_len + 1 + 9 > key.len() {
            return Err(bad("a row longer than its key"));
        }
        let row = &key[..row_len];
        let family_len = key[row_len] as usize;
        let tail = &key[row_len + 1..];
        if family_len + 9 > tail.len() {
            return Err(bad("a family longer than its key"));
        }
        let family = &tail[..family_len];
        let qualifier = &tail[family_len..tail.len() - 9];
        let stamp = &tail[tail.len() - 9..];
        let mut ts = [0u8; 8];
        ts.copy_from_slice(&stamp[..8]);
        out.push(KeyValue {
            row: row.to_vec(),
            family: family.to_vec(),
            qualifier: qualifier.to_vec(),
            timestamp: i64::from_be_bytes(ts),
            kind: stamp[8],
            value: value.to_vec(),
        });
    }
    Ok(out)
}

fn take_u32(rest: &mut &[u8]) -> Option<u32> {
    let (head, tail) = rest.split_first_chunk::<4>()?;
    *rest = tail;
    Some(u32::from_be_bytes(*head))
}

#[cfg(test)]
mod tests {
    use crate::wire::{cells, response, KeyValue, WireError, PUT};

    #[test]
    fn cells_round_trip_and_refuse_lies() {
        let kvs = vec![
            KeyValue {
                row: b"r".to_vec(),
                family: b"d".to_vec(),
                qualifier: b"".to_vec(),
                timestamp: -1,
                kind: PUT,
                value: b"".to_vec(),
            },
            KeyValue {
                row: vec![7; 300],
                family: b"fam".to_vec(),
                qualifier: b"q".to_vec(),
                timestamp: 42,
                kind: 8,
                value: vec![1; 1000],
            },
        ];
        let mut block = Vec::new();
        for kv in &kvs {
            kv.write(&mut block);
        }
        assert_eq!(cells(&block, 2).unwrap(), kvs);
        assert_eq!(cells(&block, 1).unwrap(), kvs[..1]);
        for cut in 0..block.len() {
            assert!(cells(&block[..cut], 2).is_err(), "cut at {cut}");
        }
        // A length of 2^32 - 1 in a block of a few bytes.
        let mut lie = block.clone();
        lie[..4].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(matches!(cells(&lie, 2), Err(WireError::CellBlock(_))));
        // A count past the cells there: an error, not a wait or a panic.
        assert!(cells(&block, usize::MAX).is_err());
    }

    #[test]
    fn arbitrary_bytes_are_an_error_or_a_response() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for n in 0..20_000 {
            let len = n % 64;
            let frame: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            let _ = response(&frame);
            let _ = cells(&frame, (x % 4) as usize);
        }
    }
}
