//! Errors returned when a key cannot be encoded or decoded.

use core::fmt;

/// Why a row key could not be encoded.
///
/// Every variant that concerns a value names the struct field it came from.
///
#[cfg_attr(all(feature = "derive", feature = "alloc"), doc = "```")]
#[cfg_attr(not(all(feature = "derive", feature = "alloc")), doc = "```ignore")]
/// use rowkey_core::prelude::*;
///
/// #[derive(RowKey, Debug)]
/// struct Tagged {
///     #[fixed(4)]
///     tag: String,
/// }
///
/// let err = Tagged { tag: "too long".into() }.try_encode().unwrap_err();
/// assert_eq!(err, EncodeError::TooLong { field: "tag", len: 8, max: 4 });
/// assert_eq!(err.to_string(), "field `tag`: value is 8 bytes, longer than #[fixed(4)]");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeError {
    /// The output buffer given to `encode_into` is shorter than the key.
    BufferTooSmall {
        /// Bytes the key needs.
        needed: usize,
        /// Bytes the buffer has.
        available: usize,
    },
    /// A `#[fixed(N)]` value is longer than `N` bytes.
    TooLong {
        /// The field.
        field: &'static str,
        /// The value's length in bytes.
        len: usize,
        /// The fixed width.
        max: usize,
    },
    /// A `#[fixed(N)]` value ends with the pad byte, so decoding could not tell
    /// the value's own trailing bytes from the padding.
    EndsWithPad {
        /// The field.
        field: &'static str,
        /// The pad byte.
        pad: u8,
    },
    /// An unsigned `#[desc_ts]` value is above the signed maximum that the
    /// `MAX - ts` recipe can represent.
    TimestampOutOfRange {
        /// The field.
        field: &'static str,
        /// The value.
        value: u64,
        /// The largest value that can be stored (`i64::MAX`, `i32::MAX` or
        /// the `max` of `#[desc_ts(max = ...)]`).
        max: u64,
    },
    /// A negative timestamp in a text key's `#[desc_ts]`: `MAX - ts` would
    /// need more digits than `MAX` has.
    NegativeTimestamp {
        /// The field.
        field: &'static str,
        /// The value.
        value: i64,
    },
    /// An integer in a text key has more digits than the field's width
    /// (`#[digits(N)]` or its type's default).
    TooManyDigits {
        /// The field.
        field: &'static str,
        /// The width in digits.
        width: usize,
    },
    /// A string that is not the last field of a text key contains the
    /// separator (or ends with the start of a multi-byte one), so the key
    /// could not be split back into its fields.
    ContainsSeparator {
        /// The field.
        field: &'static str,
        /// The separator.
        sep: &'static [u8],
    },
    /// A timestamp field's value cannot be stored exactly in its unit
    /// (`#[ts(...)]`): it is finer than the unit, out of the unit's `i64`
    /// range, a leap second, or an `OffsetDateTime` not in UTC.
    Time {
        /// The field.
        field: &'static str,
        /// The field's unit.
        unit: crate::format::time::TimeUnit,
        /// What is wrong with the value.
        error: crate::format::time::TimeError,
    },
    /// A text key's bytes are not UTF-8: a user's `TextForm` wrote bytes
    /// outside ASCII (`encode_to_string`; `encode_to_vec` gives the bytes).
    TextNotUtf8 {
        /// The bytes before the first that is not UTF-8.
        valid_up_to: usize,
    },
    /// The key is longer than the type's `#[rowkey(max_len = N)]`: a
    /// variable-length value made it so.
    KeyTooLong {
        /// The key's length in bytes.
        len: usize,
        /// The type's `max_len`.
        max_len: usize,
    },
    /// A `KeyField` enum's value that is no variant's discriminant. (The
    /// value is not kept: an `i128` would double the size and alignment
    /// of every `Result` that can hold this error.)
    NotAVariant {
        /// The field.
        field: &'static str,
        /// The enum's name.
        enum_name: &'static str,
        /// Its variants and their discriminants.
        variants: &'static [(&'static str, i128)],
    },
    /// A run-time layout ([`DynLayout`](crate::DynLayout)) was given a
    /// value of another type than its field's (or an integer that does not
    /// fit it).
    WrongValue {
        /// The field.
        field: &'static str,
        /// What the field takes (`u64`, `str`, `bytes`...).
        expected: &'static str,
        /// What it was given ([`Value::kind`](crate::Value::kind)).
        got: &'static str,
    },
    /// A run-time key family ([`DynLayout`](crate::DynLayout) of `A: [...]
    /// | B: [...]`) has no fields of its own: a key is one member's.
    FamilyMember {
        /// The family's name.
        family: &'static str,
    },
    /// A run-time layout was given another number of values than it has
    /// fields.
    ValueCount {
        /// The layout's fields.
        expected: usize,
        /// The values given.
        got: usize,
    },
    /// A skip-scan filter was asked of a layout that has none: an
    /// ordered-code key (Bigtable's `OrderedCodeBytes`), whose fields have
    /// two encodings each (with and without the terminator of the last
    /// field a key writes), which a filter's byte sets cannot say.
    NoFilter {
        /// The layout's name.
        layout: &'static str,
    },
    /// A skip-scan filter's predicate on one field allows more separate
    /// values and ranges than a filter holds
    /// ([`MAX_FILTER_INTERVALS`](crate::scan::MAX_FILTER_INTERVALS)): the
    /// filter would grow without bound (an `any_of` over a huge or endless
    /// list); scan by ranges and check the rows instead.
    TooManyIntervals {
        /// The field.
        field: &'static str,
        /// The most a filter holds for one field.
        limit: usize,
    },
}

impl EncodeError {
    /// The field the error is about, when it is about one (the column to
    /// name in a bad row's report).
    pub fn field(&self) -> Option<&'static str> {
        use EncodeError::*;
        match self {
            TooLong { field, .. }
            | EndsWithPad { field, .. }
            | TimestampOutOfRange { field, .. }
            | NegativeTimestamp { field, .. }
            | TooManyDigits { field, .. }
            | ContainsSeparator { field, .. }
            | Time { field, .. }
            | NotAVariant { field, .. }
            | WrongValue { field, .. }
            | TooManyIntervals { field, .. } => Some(field),
            _ => None,
        }
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::NotAVariant {
                field,
                enum_name,
                variants,
            } => write!(
                f,
                "field `{field}`: not the discriminant of a variant of `{enum_name}` ({})",
                Variants(variants)
            ),
            EncodeError::WrongValue { field, expected, got } => write!(
                f,
                "field `{field}`: expected a {expected} value, got {got} (or an integer that does not fit)"
            ),
            EncodeError::FamilyMember { family } => write!(
                f,
                "`{family}` is a key family: encode, filter and scan with one of its members (DynLayout::member)"
            ),
            EncodeError::NoFilter { layout } => write!(
                f,
                "`{layout}` is an ordered-code key: it has scans by leading fields, but no skip-scan filter"
            ),
            EncodeError::TooManyIntervals { field, limit } => write!(
                f,
                "field `{field}`: the filter allows more than {limit} separate values or ranges, the most a filter holds for one field"
            ),
            EncodeError::ValueCount { expected, got } => write!(
                f,
                "the layout has {expected} fields, {got} values were given"
            ),
            EncodeError::BufferTooSmall { needed, available } => write!(
                f,
                "buffer too small for the row key: it needs {needed} bytes, the buffer has {available}"
            ),
            EncodeError::TextNotUtf8 { valid_up_to } => write!(
                f,
                "the text key is not UTF-8 after byte {valid_up_to}: a TextForm wrote bytes outside printable ASCII"
            ),
            EncodeError::KeyTooLong { len, max_len } => write!(
                f,
                "the row key is {len} bytes, longer than #[rowkey(max_len = {max_len})]"
            ),
            EncodeError::TooLong { field, len, max } => write!(
                f,
                "field `{field}`: value is {len} bytes, longer than #[fixed({max})]"
            ),
            EncodeError::EndsWithPad { field, pad } => write!(
                f,
                "field `{field}`: value ends with the pad byte 0x{pad:02X}, which #[fixed] cannot tell apart from padding"
            ),
            EncodeError::TimestampOutOfRange { field, value, max } => write!(
                f,
                "field `{field}`: timestamp {value} is above {max}, the largest value #[desc_ts] can store"
            ),
            EncodeError::NegativeTimestamp { field, value } => write!(
                f,
                "field `{field}`: timestamp {value} is negative; a text key's #[desc_ts] stores MAX - ts in the digits of MAX"
            ),
            EncodeError::TooManyDigits { field, width } => write!(
                f,
                "field `{field}`: value has more than {width} digits, the field's width in the text key"
            ),
            EncodeError::ContainsSeparator { field, sep } => write!(
                f,
                "field `{field}`: value contains the separator \"{}\", which would end the field early; only the last field of a text key may contain it",
                sep.escape_ascii()
            ),
            EncodeError::Time { field, unit, error } => {
                use crate::format::time::TimeError;
                write!(f, "field `{field}`: ")?;
                match error {
                    TimeError::Precision => write!(
                        f,
                        "the timestamp is finer than #[ts({unit})] stores; round it to whole {} first, or choose a finer unit",
                        unit.plural()
                    ),
                    TimeError::OutOfRange => write!(
                        f,
                        "the timestamp is out of range: as {} since 1970 it does not fit in an i64; choose a coarser unit than #[ts({unit})]",
                        unit.plural()
                    ),
                    TimeError::NotUtc => f.write_str(
                        "the timestamp's offset is not UTC, and a key stores only the instant; convert it with .to_offset(UtcOffset::UTC) first",
                    ),
                    TimeError::LeapSecond => f.write_str(
                        "the timestamp is a leap second (:60), which has no Unix time of its own",
                    ),
                }
            }
        }
    }
}

impl core::error::Error for EncodeError {}

/// Why bytes could not be decoded as a row key.
///
/// Every variant that concerns a value names the struct field being decoded
/// (`"salt"` for the salt byte).
///
#[cfg_attr(all(feature = "derive", feature = "alloc"), doc = "```")]
#[cfg_attr(not(all(feature = "derive", feature = "alloc")), doc = "```ignore")]
/// use rowkey_core::prelude::*;
///
/// #[derive(RowKey, Debug, PartialEq)]
/// struct Id {
///     id: u32,
/// }
///
/// let err = Id::decode(&[0, 0, 1]).unwrap_err();
/// assert_eq!(err, DecodeError::UnexpectedEnd { field: "id", needed: 4, available: 3 });
/// assert_eq!(Id::decode(&[0, 0, 0, 1, 9]).unwrap_err(), DecodeError::TrailingBytes { count: 1 });
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input ended inside a field.
    UnexpectedEnd {
        /// The field.
        field: &'static str,
        /// Bytes the field needs from its start.
        needed: usize,
        /// Bytes left in the input at the field's start.
        available: usize,
    },
    /// Bytes are left after the last field.
    TrailingBytes {
        /// How many bytes are left over.
        count: usize,
    },
    /// An escaped variable-length field has no terminator.
    MissingTerminator {
        /// The field.
        field: &'static str,
    },
    /// An escaped variable-length field has an escape byte followed by
    /// something other than the escape or terminator marker.
    InvalidEscape {
        /// The field.
        field: &'static str,
        /// The byte after the escape byte, as stored.
        byte: u8,
    },
    /// A string field is not valid UTF-8.
    InvalidUtf8 {
        /// The field.
        field: &'static str,
    },
    /// An `Option` field's tag is neither 0 (None) nor 1 (Some).
    InvalidOptionTag {
        /// The field.
        field: &'static str,
        /// The tag found (after undoing `#[desc]`).
        byte: u8,
    },
    /// A fixed-width `None`'s padding is not all zero bytes.
    InvalidPadding {
        /// The field.
        field: &'static str,
    },
    /// A borrowed field (`&str`, `&[u8]`) cannot point into the input because
    /// the stored bytes had to be unescaped; use `String`, `Vec<u8>` or `Cow`.
    CannotBorrow {
        /// The field.
        field: &'static str,
    },
    /// The salt byte is not below the number of buckets.
    InvalidSalt {
        /// The salt byte found.
        bucket: u8,
        /// The number of buckets.
        buckets: u16,
    },
    /// The key does not start with its type's family prefix
    /// (`#[rowkey(prefix = "...")]`): a row of another kind.
    WrongPrefix {
        /// The prefix the type's keys start with.
        expected: &'static [u8],
    },
    /// No family of a `#[derive(RowKey)]` enum has a prefix the key starts
    /// with.
    UnknownFamily {
        /// The enum.
        families: &'static str,
    },
    /// A field of a text key (or its salt) is not followed by the separator.
    MissingSeparator {
        /// The field (`"salt"` for the salt bucket).
        field: &'static str,
    },
    /// The field's bytes are not a valid value of its type (a `bool` byte
    /// other than 00/01, an invalid `char`, a `#[desc_ts]` value out of
    /// range, a user type's own check).
    InvalidValue {
        /// The field.
        field: &'static str,
        /// What is wrong.
        reason: &'static str,
    },
}

impl DecodeError {
    /// Attaches a field name to a [`FieldError`] from a field type.
    #[inline]
    pub fn from_field(field: &'static str, err: FieldError) -> Self {
        match err {
            FieldError::InvalidUtf8 => DecodeError::InvalidUtf8 { field },
            FieldError::CannotBorrow => DecodeError::CannotBorrow { field },
            FieldError::Invalid(reason) => DecodeError::InvalidValue { field, reason },
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::UnexpectedEnd { field, needed, available } => write!(
                f,
                "field `{field}`: key ends early, the field needs {needed} bytes and {available} are left"
            ),
            DecodeError::TrailingBytes { count } => {
                write!(f, "{count} bytes left over after the last field of the key")
            }
            DecodeError::MissingTerminator { field } => {
                write!(f, "field `{field}`: variable-length value has no terminator")
            }
            DecodeError::InvalidEscape { field, byte } => write!(
                f,
                "field `{field}`: invalid escape sequence (escape byte followed by 0x{byte:02X})"
            ),
            DecodeError::InvalidUtf8 { field } => write!(f, "field `{field}`: string is not valid UTF-8"),
            DecodeError::InvalidOptionTag { field, byte } => write!(
                f,
                "field `{field}`: 0x{byte:02X} is not an Option tag (00 for None, 01 for Some)"
            ),
            DecodeError::InvalidPadding { field } => {
                write!(f, "field `{field}`: padding of a None value is not all zero")
            }
            DecodeError::CannotBorrow { field } => write!(
                f,
                "field `{field}`: stored value contains escaped bytes, so a borrowed &str/&[u8] cannot point into the key; use String, Vec<u8> or Cow"
            ),
            DecodeError::InvalidSalt { bucket, buckets } => write!(
                f,
                "salt byte {bucket} is not a bucket of this table (0..{buckets})"
            ),
            DecodeError::WrongPrefix { expected } => write!(
                f,
                "the key does not start with its family prefix \"{}\": a row of another kind",
                expected.escape_ascii()
            ),
            DecodeError::UnknownFamily { families } => write!(
                f,
                "the key starts with the prefix of no family of `{families}`"
            ),
            DecodeError::MissingSeparator { field } => {
                write!(f, "field `{field}`: the separator does not follow it")
            }
            DecodeError::InvalidValue { field, reason } => write!(f, "field `{field}`: {reason}"),
        }
    }
}

impl core::error::Error for DecodeError {}

/// A field type's own decoding failure, before the derive attaches the field
/// name (see [`DecodeError::from_field`]).
///
/// Returned by [`FixedField::from_key_bytes`](crate::FixedField::from_key_bytes)
/// and [`VarField`](crate::VarField) implementations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldError {
    /// The bytes are not valid UTF-8.
    InvalidUtf8,
    /// The value had to be copied out of the key, and the type only borrows.
    CannotBorrow,
    /// The bytes are not a valid value; the text says why.
    Invalid(&'static str),
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldError::InvalidUtf8 => f.write_str("not valid UTF-8"),
            FieldError::CannotBorrow => {
                f.write_str("cannot borrow: the stored value had to be unescaped")
            }
            FieldError::Invalid(reason) => f.write_str(reason),
        }
    }
}

impl core::error::Error for FieldError {}

/// A `KeyField` enum's variants as a layout's text writes them:
/// `Click = 1, View = 2`.
pub(crate) struct Variants<'a>(pub(crate) &'a [(&'static str, i128)]);

impl fmt::Display for Variants<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (name, value)) in self.0.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{name} = {value}")?;
        }
        Ok(())
    }
}
