//! Field types from `std::net` and the ecosystem: IP addresses (always),
//! `uuid::Uuid` and `ulid::Ulid` (features `uuid`, `ulid`). Each is a
//! [`FixedField`] (its binary bytes) and a [`TextForm`] (its text in a
//! text key). Timestamps are in [`timestamp`](crate::format::timestamp).
//!
//! | type | binary key | text key |
//! |---|---|---|
//! | `Ipv4Addr` | 4 bytes, network order | `192.168.001.002` (15) |
//! | `Ipv6Addr` | 16 bytes, network order | `2001:0db8:0000:…:0001` (39) |
//! | `IpAddr` | `04` + 4 bytes + 12 × `00`, or `06` + 16 bytes (17) | `4` or `6`, then the IPv6 form (40; IPv4 as `::ffff:a.b.c.d`) |
//! | `Uuid` | its 16 bytes in RFC 9562 order | lowercase hyphenated (36) |
//! | `Ulid` | its 128 bits, big-endian (16) | Crockford base32, as `Ulid::to_string` (26) |
//!
//! Every form sorts like the values (IPv4 before IPv6 in an `IpAddr`), and
//! decoding accepts only the form encoding writes, so each value has one
//! key: uppercase UUID hex or a `01` `IpAddr` tag is an error.

use core::fmt;
use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::format::error::FieldError;
use crate::format::field::FixedField;
use crate::format::text::TextForm;

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Writes `bytes` as lowercase hex into `out[..2 * bytes.len()]`.
fn write_hex(bytes: &[u8], out: &mut [u8]) {
    for (i, b) in bytes.iter().enumerate() {
        out[2 * i] = HEX[usize::from(b >> 4)];
        out[2 * i + 1] = HEX[usize::from(b & 15)];
    }
}

/// Reads lowercase hex (only: one text per value) into `out`.
fn read_hex(text: &[u8], out: &mut [u8]) -> Result<(), FieldError> {
    fn digit(c: u8) -> Result<u8, FieldError> {
        match c {
            b'0'..=b'9' => Ok(c - b'0'),
            b'a'..=b'f' => Ok(c - b'a' + 10),
            _ => Err(FieldError::Invalid(
                "expected lowercase hex digits (0-9, a-f)",
            )),
        }
    }
    for (i, o) in out.iter_mut().enumerate() {
        *o = digit(text[2 * i])? << 4 | digit(text[2 * i + 1])?;
    }
    Ok(())
}

/// Writes the text form to a formatter, for `describe`.
#[cfg(any(feature = "uuid", feature = "ulid"))]
fn describe_text<T: TextForm, const N: usize>(value: &T, out: &mut dyn fmt::Write) -> fmt::Result {
    let mut buf = [0u8; N];
    value.write_text(&mut buf);
    // Text forms are ASCII.
    out.write_str(core::str::from_utf8(&buf).unwrap_or("?"))
}

impl FixedField for Ipv4Addr {
    type Bytes = [u8; 4];
    #[inline(always)]
    fn to_key_bytes(&self) -> [u8; 4] {
        self.octets()
    }
    #[inline(always)]
    fn from_key_bytes(bytes: [u8; 4]) -> Result<Self, FieldError> {
        Ok(Ipv4Addr::from(bytes))
    }
    fn describe(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        write!(out, "{self}")
    }
}

impl TextForm for Ipv4Addr {
    const TEXT_LEN: usize = 15;
    fn write_text(&self, out: &mut [u8]) {
        for (i, o) in self.octets().iter().enumerate() {
            let at = 4 * i;
            out[at] = b'0' + o / 100;
            out[at + 1] = b'0' + o / 10 % 10;
            out[at + 2] = b'0' + o % 10;
            if i < 3 {
                out[at + 3] = b'.';
            }
        }
    }
    fn read_text(text: &[u8]) -> Result<Self, FieldError> {
        const BAD: FieldError = FieldError::Invalid(
            "expected an IPv4 address as four 3-digit octets, like 010.000.000.001",
        );
        let mut octets = [0u8; 4];
        for (i, o) in octets.iter_mut().enumerate() {
            let d = &text[4 * i..4 * i + 3];
            if !d.iter().all(u8::is_ascii_digit) || (i < 3 && text[4 * i + 3] != b'.') {
                return Err(BAD);
            }
            let n =
                u16::from(d[0] - b'0') * 100 + u16::from(d[1] - b'0') * 10 + u16::from(d[2] - b'0');
            *o = u8::try_from(n).map_err(|_| BAD)?;
        }
        Ok(Ipv4Addr::from(octets))
    }
    fn describe(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        write!(out, "{self}")
    }
}

impl FixedField for Ipv6Addr {
    type Bytes = [u8; 16];
    #[inline(always)]
    fn to_key_bytes(&self) -> [u8; 16] {
        self.octets()
    }
    #[inline(always)]
    fn from_key_bytes(bytes: [u8; 16]) -> Result<Self, FieldError> {
        Ok(Ipv6Addr::from(bytes))
    }
    fn describe(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        write!(out, "{self}")
    }
}

impl TextForm for Ipv6Addr {
    const TEXT_LEN: usize = 39;
    fn write_text(&self, out: &mut [u8]) {
        let o = self.octets();
        for g in 0..8 {
            write_hex(&o[2 * g..2 * g + 2], &mut out[5 * g..5 * g + 4]);
            if g < 7 {
                out[5 * g + 4] = b':';
            }
        }
    }
    fn read_text(text: &[u8]) -> Result<Self, FieldError> {
        let mut o = [0u8; 16];
        for g in 0..8 {
            if g < 7 && text[5 * g + 4] != b':' {
                return Err(FieldError::Invalid(
                    "expected an IPv6 address as eight 4-digit groups, like 2001:0db8:0000:0000:0000:0000:0000:0001",
                ));
            }
            read_hex(&text[5 * g..5 * g + 4], &mut o[2 * g..2 * g + 2])?;
        }
        Ok(Ipv6Addr::from(o))
    }
    fn describe(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        write!(out, "{self}")
    }
}

const V4: u8 = 4;
const V6: u8 = 6;

impl FixedField for IpAddr {
    type Bytes = [u8; 17];
    #[inline]
    fn to_key_bytes(&self) -> [u8; 17] {
        let mut out = [0u8; 17];
        match self {
            IpAddr::V4(a) => {
                out[0] = V4;
                out[1..5].copy_from_slice(&a.octets());
            }
            IpAddr::V6(a) => {
                out[0] = V6;
                out[1..].copy_from_slice(&a.octets());
            }
        }
        out
    }
    #[inline]
    fn from_key_bytes(bytes: [u8; 17]) -> Result<Self, FieldError> {
        match bytes[0] {
            V4 if bytes[5..].iter().all(|&b| b == 0) => Ok(IpAddr::V4(Ipv4Addr::new(
                bytes[1], bytes[2], bytes[3], bytes[4],
            ))),
            V4 => Err(FieldError::Invalid(
                "an IPv4 address's 12 padding bytes are not zero",
            )),
            V6 => {
                let mut o = [0u8; 16];
                o.copy_from_slice(&bytes[1..]);
                Ok(IpAddr::V6(Ipv6Addr::from(o)))
            }
            _ => Err(FieldError::Invalid(
                "an IpAddr starts with 04 (IPv4) or 06 (IPv6)",
            )),
        }
    }
    fn describe(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        write!(out, "{self}")
    }
}

impl TextForm for IpAddr {
    const TEXT_LEN: usize = 40;
    fn write_text(&self, out: &mut [u8]) {
        let (tag, v6) = match self {
            IpAddr::V4(a) => (b'4', a.to_ipv6_mapped()),
            IpAddr::V6(a) => (b'6', *a),
        };
        out[0] = tag;
        v6.write_text(&mut out[1..]);
    }
    fn read_text(text: &[u8]) -> Result<Self, FieldError> {
        let v6 = Ipv6Addr::read_text(&text[1..])?;
        match text[0] {
            b'4' => v6
                .to_ipv4_mapped()
                .map(IpAddr::V4)
                .ok_or(FieldError::Invalid(
                    "an IPv4 address (4) in an IpAddr is written as ::ffff:a.b.c.d",
                )),
            b'6' => Ok(IpAddr::V6(v6)),
            _ => Err(FieldError::Invalid(
                "an IpAddr's text starts with 4 (IPv4) or 6 (IPv6)",
            )),
        }
    }
    fn describe(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        write!(out, "{self}")
    }
}

#[cfg(feature = "uuid")]
impl FixedField for uuid::Uuid {
    type Bytes = [u8; 16];
    #[inline(always)]
    fn to_key_bytes(&self) -> [u8; 16] {
        *self.as_bytes()
    }
    #[inline(always)]
    fn from_key_bytes(bytes: [u8; 16]) -> Result<Self, FieldError> {
        Ok(uuid::Uuid::from_bytes(bytes))
    }
    fn describe(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        describe_text::<_, 36>(self, out)
    }
}

#[cfg(feature = "uuid")]
impl TextForm for uuid::Uuid {
    const TEXT_LEN: usize = 36;
    fn write_text(&self, out: &mut [u8]) {
        let b = self.as_bytes();
        let mut at = 0;
        for (i, group) in [4usize, 2, 2, 2, 6].iter().enumerate() {
            let start: usize = [0usize, 4, 6, 8, 10][i];
            write_hex(&b[start..start + group], &mut out[at..at + 2 * group]);
            at += 2 * group;
            if i < 4 {
                out[at] = b'-';
                at += 1;
            }
        }
    }
    fn read_text(text: &[u8]) -> Result<Self, FieldError> {
        let mut b = [0u8; 16];
        let mut at = 0;
        for (i, group) in [4usize, 2, 2, 2, 6].iter().enumerate() {
            let start: usize = [0usize, 4, 6, 8, 10][i];
            read_hex(&text[at..at + 2 * group], &mut b[start..start + group])?;
            at += 2 * group;
            if i < 4 {
                if text[at] != b'-' {
                    return Err(FieldError::Invalid(
                        "expected a UUID as lowercase 8-4-4-4-12 hex digits",
                    ));
                }
                at += 1;
            }
        }
        Ok(uuid::Uuid::from_bytes(b))
    }
    fn describe(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        describe_text::<_, 36>(self, out)
    }
}

#[cfg(feature = "ulid")]
impl FixedField for ulid::Ulid {
    type Bytes = [u8; 16];
    #[inline(always)]
    fn to_key_bytes(&self) -> [u8; 16] {
        self.to_bytes()
    }
    #[inline(always)]
    fn from_key_bytes(bytes: [u8; 16]) -> Result<Self, FieldError> {
        Ok(ulid::Ulid::from_bytes(bytes))
    }
    fn describe(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        describe_text::<_, 26>(self, out)
    }
}

#[cfg(feature = "ulid")]
impl TextForm for ulid::Ulid {
    const TEXT_LEN: usize = 26;
    fn write_text(&self, out: &mut [u8]) {
        let mut buf = [0u8; 26];
        self.array_to_str(&mut buf);
        out[..26].copy_from_slice(&buf);
    }
    fn read_text(text: &[u8]) -> Result<Self, FieldError> {
        const BAD: FieldError =
            FieldError::Invalid("expected a ULID as 26 uppercase Crockford base32 characters");
        let s = core::str::from_utf8(text).map_err(|_| BAD)?;
        let ulid = ulid::Ulid::from_string(s).map_err(|_| BAD)?;
        // The decoder also takes lowercase and look-alike letters: keep
        // one text per value.
        let mut canonical = [0u8; 26];
        ulid.array_to_str(&mut canonical);
        if canonical[..] != text[..26] {
            return Err(BAD);
        }
        Ok(ulid)
    }
    fn describe(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        describe_text::<_, 26>(self, out)
    }
}
