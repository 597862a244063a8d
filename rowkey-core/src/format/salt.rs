//! Salt hashes: which bucket a key's leading byte names.
//!
//! `#[salt(buckets = N, by(...), hash = "...")]` puts one byte in front of the
//! key: the bucket, computed from the encoded bytes of the `by` fields (all
//! fields by default) as they appear in the key, concatenated in declaration
//! order.
//!
//! - [`Xxh3`] (`hash = "xxh3"`, the default): `xxh3_64(bytes) % N`, seed 0.
//! - [`JavaHash`] (`hash = "java"`): `abs(Arrays.hashCode(bytes) % N)`, the
//!   salt of Apache Phoenix `SALT_BUCKETS` tables and OpenTSDB salted rows.

/// A salt hash: maps the concatenated `by` bytes to a bucket.
///
/// The parts are the encodings of the `by` fields; a hash must give the
/// same bucket as for their concatenation.
pub trait SaltHash {
    /// The bucket, in `0..buckets`, of the concatenation of `parts`.
    /// `buckets` is in `1..=256`.
    fn bucket(parts: &[&[u8]], buckets: u16) -> u8;
}

/// `xxh3_64(bytes) % buckets` with seed 0.
///
/// ```
/// use rowkey_core::salt::{SaltHash, Xxh3};
/// let whole = Xxh3::bucket(&[b"user-42"], 16);
/// assert_eq!(Xxh3::bucket(&[b"user", b"-42"], 16), whole);
/// assert!(whole < 16);
/// ```
pub struct Xxh3;

impl SaltHash for Xxh3 {
    #[inline]
    fn bucket(parts: &[&[u8]], buckets: u16) -> u8 {
        let hash = match parts {
            [one] => xxhash_rust::xxh3::xxh3_64(one),
            _ => {
                let mut h = xxhash_rust::xxh3::Xxh3::new();
                for p in parts {
                    h.update(p);
                }
                h.digest()
            }
        };
        (hash % u64::from(buckets.max(1))) as u8
    }
}

/// Java's `Arrays.hashCode(byte[])`, then `abs(h % buckets)` with `%`
/// truncating toward zero: byte-compatible with Apache Phoenix
/// (`SaltingUtil.getSaltingByte`) and OpenTSDB (`RowKey.prefixKeyWithSalt`).
///
/// ```
/// use rowkey_core::salt::{java_hash, JavaHash, SaltHash};
/// // Arrays.hashCode(new byte[] {}) == 1, Arrays.hashCode(new byte[] {-1}) == 30
/// assert_eq!(java_hash(&[]), 1);
/// assert_eq!(java_hash(&[0xFF]), 30);
/// assert_eq!(JavaHash::bucket(&[&[0xFF]], 4), 2);
/// ```
pub struct JavaHash;

/// Java's `Arrays.hashCode(byte[])`: `h = 1; h = 31 * h + (signed byte)`,
/// wrapping like Java's `int`.
#[inline]
pub fn java_hash(bytes: &[u8]) -> i32 {
    java_hash_continue(1, bytes)
}

#[inline]
fn java_hash_continue(mut h: i32, bytes: &[u8]) -> i32 {
    for &b in bytes {
        h = h.wrapping_mul(31).wrapping_add(i32::from(b as i8));
    }
    h
}

/// `abs(hash % buckets)` with Java's truncating `%`; never overflows, also
/// for `i32::MIN`, because the remainder is smaller than `buckets`.
#[inline]
pub fn java_bucket(hash: i32, buckets: u16) -> u8 {
    (hash % i32::from(buckets.max(1))).unsigned_abs() as u8
}

impl SaltHash for JavaHash {
    #[inline]
    fn bucket(parts: &[&[u8]], buckets: u16) -> u8 {
        let h = parts.iter().fold(1, |h, p| java_hash_continue(h, p));
        java_bucket(h, buckets)
    }
}

/// How a key's salt bucket is written in front of it: one byte in binary
/// keys, zero-padded digits and the separator in text keys (`3_...`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Head {
    /// The bucket as one byte.
    Byte,
    /// The bucket as `digits` zero-padded decimal digits, then `sep`.
    Text {
        /// The digits of the largest bucket, `buckets - 1`.
        digits: u8,
        /// The key's separator.
        sep: &'static [u8],
    },
    /// An `OrderedCodeBytes` key (`#[rowkey(ordered_code)]`): the bucket is
    /// a struct field of its own, an `Int64` of one byte (`80 | bucket`,
    /// so at most 64 buckets) and its terminator `00 01`.
    OrderedCode,
}

impl Head {
    /// The bytes before the first field.
    ///
    /// ```
    /// use rowkey_core::salt::Head;
    /// assert_eq!(Head::Byte.len(), 1);
    /// assert_eq!(Head::Text { digits: 2, sep: b"_" }.len(), 3);
    /// assert_eq!(Head::OrderedCode.len(), 3);
    /// ```
    #[allow(clippy::len_without_is_empty)]
    pub const fn len(self) -> usize {
        match self {
            Head::Byte => 1,
            Head::Text { digits, sep } => digits as usize + sep.len(),
            Head::OrderedCode => 3,
        }
    }

    /// Writes the head of `bucket` (whose digits fit, as the derive
    /// checked) at the start of `out`, which has room for [`len`](Self::len)
    /// bytes; `with_sep: false` writes the digits alone (a split point).
    /// Inline, so that a key type's constant head folds the match away: a
    /// binary key's byte is one store. The text branch is a function of its
    /// own so that its size does not keep `write` from being inlined.
    #[inline(always)]
    pub fn write(self, bucket: u8, out: &mut [u8], with_sep: bool) -> usize {
        match self {
            Head::Byte => {
                out[0] = bucket;
                1
            }
            Head::Text { digits, sep } => Self::write_digits(digits, sep, bucket, out, with_sep),
            Head::OrderedCode => Self::write_int64(bucket, out, with_sep),
        }
    }

    /// [`write`](Self::write) for an ordered-code key's bucket field: its
    /// one-byte `Int64` and (`with_sep`) terminator.
    #[inline]
    fn write_int64(bucket: u8, out: &mut [u8], with_sep: bool) -> usize {
        debug_assert!(bucket < 64, "bucket {bucket} is no one-byte Int64");
        out[0] = 0x80 | bucket;
        if with_sep {
            out[1] = 0x00;
            out[2] = 0x01;
            3
        } else {
            1
        }
    }

    /// [`write`](Self::write) for a text key's bucket digits and separator.
    #[inline]
    fn write_digits(digits: u8, sep: &[u8], bucket: u8, out: &mut [u8], with_sep: bool) -> usize {
        use crate::format::text::Magnitude;
        let d = usize::from(digits);
        // The derive gave the head the digits of `buckets - 1`, so every
        // bucket fits.
        let fits = Magnitude::write_digits(u64::from(bucket), &mut out[..d]);
        debug_assert!(fits, "bucket {bucket} has more than {d} digits");
        if with_sep {
            out[d..d + sep.len()].copy_from_slice(sep);
            d + sep.len()
        } else {
            d
        }
    }

    /// The split points of a table of `buckets` buckets: the head of
    /// buckets `1..buckets` (the digits alone in a text key), each after
    /// the family prefix `family`.
    ///
    /// ```
    /// use rowkey_core::salt::Head;
    /// assert_eq!(Head::Byte.split_points(b"D", 3), [b"D\x01", b"D\x02"]);
    /// assert_eq!(Head::Text { digits: 2, sep: b"_" }.split_points(b"", 3), [b"01", b"02"]);
    /// ```
    #[cfg(feature = "alloc")]
    pub fn split_points(self, family: &[u8], buckets: u16) -> alloc::vec::Vec<alloc::vec::Vec<u8>> {
        (1..buckets)
            .map(|b| {
                let mut out = alloc::vec![0; family.len() + self.len()];
                out[..family.len()].copy_from_slice(family);
                let n = self.write(b as u8, &mut out[family.len()..], false);
                out.truncate(family.len() + n);
                out
            })
            .collect()
    }

    /// Reads the bucket at the start of `input`: the byte, or the digits
    /// and the separator. Inline, so that a key type's constant head folds
    /// the match away and a binary key's byte is checked in place; the text
    /// branch is a function of its own, as in [`write`](Self::write).
    #[inline(always)]
    pub fn read(self, input: &[u8], buckets: u16) -> Result<u8, crate::format::error::DecodeError> {
        use crate::format::error::DecodeError;
        match self {
            Head::Byte => match input.first() {
                Some(&bucket) if u16::from(bucket) < buckets => Ok(bucket),
                Some(&bucket) => Err(DecodeError::InvalidSalt { bucket, buckets }),
                None => Err(DecodeError::UnexpectedEnd {
                    field: "salt",
                    needed: 1,
                    available: 0,
                }),
            },
            Head::Text { digits, sep } => Self::read_digits(digits, sep, input, buckets),
            Head::OrderedCode => Self::read_int64(input, buckets),
        }
    }

    /// [`read`](Self::read) for an ordered-code key's bucket field.
    #[inline]
    fn read_int64(input: &[u8], buckets: u16) -> Result<u8, crate::format::error::DecodeError> {
        use crate::format::error::DecodeError;
        let head = input.get(..3).ok_or(DecodeError::UnexpectedEnd {
            field: "salt",
            needed: 3,
            available: input.len(),
        })?;
        if head[0] & 0xC0 != 0x80 {
            return Err(DecodeError::InvalidValue {
                field: "salt",
                reason: "the salt bucket is not a one-byte OrderedCodeBytes Int64 (80 to BF)",
            });
        }
        if head[1..] != [0x00, 0x01] {
            return Err(DecodeError::MissingTerminator { field: "salt" });
        }
        let bucket = head[0] & 0x3F;
        if u16::from(bucket) < buckets {
            Ok(bucket)
        } else {
            Err(DecodeError::InvalidSalt { bucket, buckets })
        }
    }

    /// [`read`](Self::read) for a text key's bucket digits and separator.
    #[inline]
    fn read_digits(
        digits: u8,
        sep: &[u8],
        input: &[u8],
        buckets: u16,
    ) -> Result<u8, crate::format::error::DecodeError> {
        use crate::format::error::DecodeError;
        use crate::format::text::Magnitude;
        let needed = usize::from(digits) + sep.len();
        let head = input.get(..needed).ok_or(DecodeError::UnexpectedEnd {
            field: "salt",
            needed,
            available: input.len(),
        })?;
        let (num, s) = head.split_at(usize::from(digits));
        if s != sep {
            return Err(DecodeError::MissingSeparator { field: "salt" });
        }
        let bucket = <u64 as Magnitude>::parse_digits(num).ok_or(DecodeError::InvalidValue {
            field: "salt",
            reason: "the salt bucket is not decimal digits",
        })?;
        match u8::try_from(bucket) {
            Ok(b) if bucket < u64::from(buckets) => Ok(b),
            Ok(b) => Err(DecodeError::InvalidSalt { bucket: b, buckets }),
            Err(_) => Err(DecodeError::InvalidValue {
                field: "salt",
                reason: "the salt bucket is above the number of buckets",
            }),
        }
    }
}

/// The salt head of a key type, as a type: [`ByteSalt`] or [`TextSalt`].
pub trait SaltHead {
    /// The head's format.
    const HEAD: Head;

    /// Writes the head of `bucket` at the start of `out`.
    #[inline(always)]
    fn write(out: &mut [u8], bucket: u8) {
        Self::HEAD.write(bucket, out, true);
    }
}

/// The salt as a one-byte `Int64` field and its terminator
/// (`#[rowkey(ordered_code)]` keys).
pub struct OcSalt;

impl SaltHead for OcSalt {
    const HEAD: Head = Head::OrderedCode;
}

/// The salt as one byte (binary keys).
pub struct ByteSalt;

impl SaltHead for ByteSalt {
    const HEAD: Head = Head::Byte;
}

/// The salt as `DIGITS` decimal digits and the separator `S` (text keys).
pub struct TextSalt<S, const DIGITS: u8>(core::marker::PhantomData<S>);

impl<S: crate::format::text::Sep, const DIGITS: u8> SaltHead for TextSalt<S, DIGITS> {
    const HEAD: Head = Head::Text {
        digits: DIGITS,
        sep: S::SEP,
    };
}
