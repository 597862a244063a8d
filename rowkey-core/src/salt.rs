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
