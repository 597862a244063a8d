//! The few protobuf encodings rowkey writes by hand (HBase's filters, the
//! HFile trailer and file info): fields by number, no schema compiler.

/// A length-delimited field (wire type 2).
pub(crate) fn field(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    varint(out, u64::from(number << 3 | 2));
    varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// A bool field (wire type 0).
pub(crate) fn flag(out: &mut Vec<u8>, number: u32, value: bool) {
    uint(out, number, u64::from(value));
}

/// An unsigned integer field (wire type 0).
pub(crate) fn uint(out: &mut Vec<u8>, number: u32, value: u64) {
    varint(out, u64::from(number << 3));
    varint(out, value);
}

pub(crate) fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_fields_are_protobuf() {
        let mut out = Vec::new();
        varint(&mut out, 300);
        assert_eq!(out, [0xAC, 0x02]);
        let mut out = Vec::new();
        field(&mut out, 2, &[0u8; 130]);
        assert_eq!(out[..3], [0x12, 0x82, 0x01]);
        let mut out = Vec::new();
        flag(&mut out, 4, true);
        assert_eq!(out, [0x20, 0x01]);
        let mut out = Vec::new();
        uint(&mut out, 12, 2);
        assert_eq!(out, [0x60, 0x02]);
    }
}
