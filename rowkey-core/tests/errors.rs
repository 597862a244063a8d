//! Bad values and bad bytes give errors that name the field, never a panic
//! or a silently changed value.

use rowkey_core::prelude::*;

#[derive(RowKey, Debug, PartialEq)]
struct Tag {
    #[fixed(4)]
    tag: String,
    #[fixed(3, pad = b' ')]
    code: String,
    #[desc_ts]
    ts: u64,
    #[desc_ts]
    small: u32,
}

fn tag(t: &str, c: &str, ts: u64, small: u32) -> Tag {
    Tag {
        tag: t.into(),
        code: c.into(),
        ts,
        small,
    }
}

#[test]
fn fixed_fields_reject_instead_of_truncating() {
    let err = tag("toolong", "a", 0, 0).try_encode().unwrap_err();
    assert_eq!(
        err,
        EncodeError::TooLong {
            field: "tag",
            len: 7,
            max: 4
        }
    );
    assert_eq!(
        err.to_string(),
        "field `tag`: value is 7 bytes, longer than #[fixed(4)]"
    );
    let err = tag("ab\0", "a", 0, 0).try_encode().unwrap_err();
    assert_eq!(
        err,
        EncodeError::EndsWithPad {
            field: "tag",
            pad: 0
        }
    );
    let err = tag("ab", "x ", 0, 0).try_encode().unwrap_err();
    assert_eq!(
        err,
        EncodeError::EndsWithPad {
            field: "code",
            pad: b' '
        }
    );
    assert!(err.to_string().contains("0x20"), "{err}");
    // Interior pad bytes are fine.
    let ok = tag("a\0b", "x y", 0, 0);
    assert_eq!(Tag::decode(&ok.try_encode().unwrap()).unwrap(), ok);
}

#[test]
fn unsigned_desc_ts_above_signed_max_is_an_error() {
    let err = tag("a", "b", u64::MAX, 0).try_encode().unwrap_err();
    assert_eq!(
        err,
        EncodeError::TimestampOutOfRange {
            field: "ts",
            value: u64::MAX,
            max: i64::MAX as u64
        }
    );
    let err = tag("a", "b", 0, u32::MAX).encode_to_vec().unwrap_err();
    assert_eq!(
        err,
        EncodeError::TimestampOutOfRange {
            field: "small",
            value: u32::MAX as u64,
            max: i32::MAX as u64
        }
    );
    // The largest storable values round-trip.
    let max = tag("a", "b", i64::MAX as u64, i32::MAX as u32);
    assert_eq!(Tag::decode(&max.try_encode().unwrap()).unwrap(), max);
    // Stored bytes outside 0..=MAX are rejected, naming the field.
    let mut bytes = tag("a", "b", 5, 5).try_encode().unwrap();
    bytes[7] = 0x80;
    assert!(matches!(
        Tag::decode(&bytes),
        Err(DecodeError::InvalidValue { field: "ts", .. })
    ));
}

#[test]
fn buffer_too_small_is_an_error() {
    let t = tag("a", "b", 1, 1);
    let mut buf = [0u8; 10];
    let err = t.encode_into(&mut buf).unwrap_err();
    assert_eq!(
        err,
        EncodeError::BufferTooSmall {
            needed: Tag::LEN,
            available: 10
        }
    );
    assert_eq!(
        err.to_string(),
        "buffer too small for the row key: it needs 19 bytes, the buffer has 10"
    );
}

#[derive(RowKey, Debug, PartialEq)]
struct Mixed {
    flag: bool,
    c: char,
    o: Option<u16>,
    name: String,
    rest: u8,
}

fn mixed() -> Vec<u8> {
    Mixed {
        flag: true,
        c: 'x',
        o: None,
        name: "n".into(),
        rest: 1,
    }
    .encode_to_vec()
    .unwrap()
}

#[test]
fn decode_errors_name_the_field() {
    let good = mixed();
    assert_eq!(good, [1, 0, 0, 0, b'x', 0, 0, 0, b'n', 0, 1, 1]);

    let mut b = good.clone();
    b[0] = 2;
    let err = Mixed::decode(&b).unwrap_err();
    assert_eq!(
        err,
        DecodeError::InvalidValue {
            field: "flag",
            reason: "bool byte is neither 00 nor 01"
        }
    );
    assert_eq!(
        err.to_string(),
        "field `flag`: bool byte is neither 00 nor 01"
    );

    let mut b = good.clone();
    b[1..5].copy_from_slice(&0xD800u32.to_be_bytes());
    let err = Mixed::decode(&b).unwrap_err();
    assert!(
        matches!(err, DecodeError::InvalidValue { field: "c", .. }),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "field `c`: not a Unicode scalar value");

    let mut b = good.clone();
    b[5] = 7;
    assert_eq!(
        Mixed::decode(&b),
        Err(DecodeError::InvalidOptionTag {
            field: "o",
            byte: 7
        })
    );

    let mut b = good.clone();
    b[7] = 9;
    assert_eq!(
        Mixed::decode(&b),
        Err(DecodeError::InvalidPadding { field: "o" })
    );

    let mut b = good.clone();
    b[9..11].copy_from_slice(&[0, 0x42]);
    assert_eq!(
        Mixed::decode(&b),
        Err(DecodeError::InvalidEscape {
            field: "name",
            byte: 0x42
        })
    );

    let mut b = good.clone();
    b[8] = 0xC3; // a lone UTF-8 lead byte
    assert_eq!(
        Mixed::decode(&b),
        Err(DecodeError::InvalidUtf8 { field: "name" })
    );

    assert_eq!(
        Mixed::decode(&good[..9]),
        Err(DecodeError::MissingTerminator { field: "name" })
    );
    assert_eq!(
        Mixed::decode(&good[..3]),
        Err(DecodeError::UnexpectedEnd {
            field: "c",
            needed: 4,
            available: 2
        })
    );
    assert_eq!(
        Mixed::decode(&good[..11]),
        Err(DecodeError::UnexpectedEnd {
            field: "rest",
            needed: 1,
            available: 0
        })
    );
    let mut long = good.clone();
    long.extend([1, 2]);
    assert_eq!(
        Mixed::decode(&long),
        Err(DecodeError::TrailingBytes { count: 2 })
    );
    assert_eq!(
        Mixed::decode(&[]),
        Err(DecodeError::UnexpectedEnd {
            field: "flag",
            needed: 1,
            available: 0
        })
    );
}

#[derive(RowKey, Debug, PartialEq)]
#[salt(buckets = 4)]
struct Salted {
    id: u32,
}

#[test]
fn salt_byte_out_of_range_is_an_error() {
    let mut b = Salted { id: 1 }.encode();
    b[0] = 4;
    assert_eq!(
        Salted::decode(&b),
        Err(DecodeError::InvalidSalt {
            bucket: 4,
            buckets: 4
        })
    );
    assert_eq!(
        Salted::decode(&[]),
        Err(DecodeError::UnexpectedEnd {
            field: "salt",
            needed: 1,
            available: 0
        })
    );
}

#[derive(RowKey, Debug, PartialEq)]
struct Borrowing<'a> {
    dir: &'a str,
    file: &'a str,
}

#[test]
fn borrowed_field_that_needs_unescaping_is_an_error_not_a_copy() {
    let b = Borrowing {
        dir: "a\0b",
        file: "f",
    }
    .encode_to_vec()
    .unwrap();
    assert_eq!(
        Borrowing::decode(&b),
        Err(DecodeError::CannotBorrow { field: "dir" })
    );
    assert!(DecodeError::CannotBorrow { field: "dir" }
        .to_string()
        .contains("use String, Vec<u8> or Cow"));
}

#[test]
fn errors_are_std_errors() {
    fn is_error<E: std::error::Error + Send + Sync + 'static>(_: &E) {}
    is_error(&EncodeError::BufferTooSmall {
        needed: 1,
        available: 0,
    });
    is_error(&DecodeError::TrailingBytes { count: 1 });
}

/// A string makes the key as long as its value: `max_len` is then checked
/// as each key is encoded, and a key over it is an error naming max_len.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(max_len = 12)]
struct Named {
    id: u32,
    name: String,
}

#[test]
fn a_variable_key_over_max_len_is_an_encode_error() {
    let short = Named {
        id: 7,
        name: "ab".into(),
    };
    assert_eq!(short.encode_to_vec().unwrap().len(), 4 + 2);
    let exact = Named {
        id: 7,
        name: "abcdefgh".into(),
    };
    assert_eq!(exact.encode_to_vec().unwrap().len(), 12);
    let long = Named {
        id: 7,
        name: "abcdefghi".into(),
    };
    let err = long.encode_to_vec().unwrap_err();
    assert_eq!(
        err,
        EncodeError::KeyTooLong {
            len: 13,
            max_len: 12
        }
    );
    assert_eq!(
        err.to_string(),
        "the row key is 13 bytes, longer than #[rowkey(max_len = 12)]"
    );
    let mut buf = [0u8; 64];
    assert_eq!(long.encode_into(&mut buf), Err(err));
}

/// A user's `Decimal` that claims fewer digits than its values have.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Code(u64);

impl rowkey_core::text::Decimal for Code {
    const DIGITS: usize = 2;
    const SIGNED: bool = false;
    type Mag = u64;
    fn split(&self) -> (bool, u64) {
        (false, self.0)
    }
    fn join(negative: bool, mag: u64) -> Option<Self> {
        (!negative).then_some(Code(mag))
    }
}

/// A user's `TextForm` that writes bytes outside ASCII (the derive picks
/// the text-form codec by the type's name, as for `ulid::Ulid`).
mod latin1 {
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Ulid(pub u8);
}
use latin1::Ulid as Latin1;

impl rowkey_core::TextForm for Latin1 {
    const TEXT_LEN: usize = 1;
    fn write_text(&self, out: &mut [u8]) {
        out[0] = self.0;
    }
    fn read_text(text: &[u8]) -> Result<Self, rowkey_core::FieldError> {
        Ok(Latin1(text[0]))
    }
}

#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "_")]
struct ByCode {
    code: Code,
    id: u32,
}

#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "_")]
struct ByLetter {
    letter: latin1::Ulid,
    id: u32,
}

/// Neither a user's `Decimal` with too few `DIGITS` nor a `TextForm` that
/// writes non-ASCII panics: each is an error naming what is wrong.
#[test]
fn a_users_text_impls_give_errors_not_panics() {
    let ok = ByCode {
        code: Code(42),
        id: 1,
    };
    assert_eq!(ok.encode_to_string().unwrap(), "42_0000000001");
    let err = ByCode {
        code: Code(420),
        id: 1,
    }
    .encode_to_vec()
    .unwrap_err();
    assert_eq!(
        err,
        EncodeError::TooManyDigits {
            field: "code",
            width: 2
        }
    );
    assert!(ByCode::range_by_code(Code(1)..Code(500)).is_err());
    assert!(ByCode::scan_by_code(Code(7)).is_ok());

    let bytes = ByLetter {
        letter: Latin1(0xE9),
        id: 1,
    }
    .encode_to_vec()
    .unwrap();
    assert_eq!(bytes[0], 0xE9, "the bytes are what the TextForm wrote");
    let err = ByLetter {
        letter: Latin1(0xE9),
        id: 1,
    }
    .encode_to_string()
    .unwrap_err();
    assert_eq!(err, EncodeError::TextNotUtf8 { valid_up_to: 0 });
    assert!(err.to_string().contains("TextForm"), "{err}");
    assert_eq!(
        ByLetter {
            letter: Latin1(b'a'),
            id: 1
        }
        .encode_to_string()
        .unwrap(),
        "a_0000000001"
    );
}
