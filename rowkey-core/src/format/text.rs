//! Text keys (`#[rowkey(text, sep = "_")]`): the fields rendered as
//! decimal digits and strings, joined by a separator, the way HBase and
//! Bigtable users write row keys by hand (`0_18518885160_9223370398234269807`).
//!
//! The derive picks these codecs for the fields of a text key, as it picks
//! the binary ones in `codec.rs`:
//! - [`Dec<W, O, D>`](Dec): an integer as `W` zero-padded decimal digits
//!   (signed: a sign character, `0` or `-`, then the digits; a negative
//!   value's digits are complemented so that it sorts below zero).
//! - [`TextDescTs<W, MAX>`](TextDescTs): `#[desc_ts]` as `MAX - ts` in `W`
//!   digits, Java's `String.valueOf(Long.MAX_VALUE - ts)`.
//! - [`Delimited<S, D>`](Delimited): a string that is not the last field, up
//!   to the separator (which it must not contain).
//! - [`Then<C, S>`](Then): the codec `C` followed by the separator: every
//!   field but the last.
//!
//! The exact rules are in FORMAT.md, "Text keys".

use core::marker::PhantomData;

use crate::format::codec::{
    fixed_width, reverse_domain_into, take, var_value, Bounded, Decoded, Direction, Encoded,
    FieldCodec, FieldDecode, Order,
};
use crate::format::error::{DecodeError, EncodeError};
use crate::format::field::{KeyBytes, VarField};

/// The separator of a text key. The derive implements it on a private
/// type per struct.
pub trait Sep {
    /// The separator's bytes: one or more printable ASCII characters.
    const SEP: &'static [u8];
}

/// An integer that text keys render in decimal: `u8` to `u128`, `i8` to
/// `i128`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no text form: it does not implement `rowkey_core::text::Decimal`",
    label = "not a text key field type",
    note = "a text key's fields are integers (u8 to u128, i8 to i128), strings, and enums that derive `KeyField`"
)]
pub trait Decimal: Sized {
    /// The digits of the largest magnitude (`u8`: 3 for 255; `i8`: 3 for
    /// 128): the default width.
    const DIGITS: usize;
    /// Signed: a sign character comes before the digits.
    const SIGNED: bool;
    /// The magnitude's type (`u64` up to 64 bits, `u128` above).
    type Mag: Magnitude;
    /// Whether the value is negative, and its magnitude.
    fn split(&self) -> (bool, Self::Mag);
    /// The value of a sign and a magnitude; `None` when no value of the
    /// type has them (out of range, or `-0`).
    fn join(negative: bool, mag: Self::Mag) -> Option<Self>;

    /// How [`explain`](crate::RowKey::explain) names a value of this type
    /// beside its digits; by default nothing. `#[derive(KeyField)]` writes
    /// the variant's name.
    fn describe(&self, out: &mut dyn core::fmt::Write) -> core::fmt::Result {
        let _ = out;
        Ok(())
    }

    /// A `#[derive(KeyField)]` enum's repr and variants (as
    /// `FixedField::KEY_FIELD`); `None` for every other type.
    #[doc(hidden)]
    const KEY_FIELD: Option<crate::format::field::KeyFieldInfo> = None;
}

/// An unsigned magnitude written as a fixed number of decimal digits.
pub trait Magnitude: Copy + PartialOrd {
    /// Writes the value as exactly `out.len()` ASCII digits, zero-padded;
    /// `false` when it has more digits than that.
    fn write_digits(self, out: &mut [u8]) -> bool;
    /// The value of ASCII decimal digits; `None` for any other byte or an
    /// overflow.
    fn parse_digits(digits: &[u8]) -> Option<Self>;
}

/// `"00".."99"`: two digits per division.
const PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

macro_rules! magnitude {
    ($($t:ty),*) => {$(
        impl Magnitude for $t {
            #[inline(always)]
            fn write_digits(mut self, out: &mut [u8]) -> bool {
                let mut i = out.len();
                while i >= 2 {
                    let r = (self % 100) as usize;
                    self /= 100;
                    out[i - 2..i].copy_from_slice(&PAIRS[2 * r..2 * r + 2]);
                    i -= 2;
                }
                if i == 1 {
                    out[0] = b'0' + (self % 10) as u8;
                    self /= 10;
                }
                self == 0
            }
            #[inline(always)]
            fn parse_digits(digits: &[u8]) -> Option<Self> {
                let mut n: $t = 0;
                for &b in digits {
                    let d = b.wrapping_sub(b'0');
                    if d > 9 {
                        return None;
                    }
                    n = n.checked_mul(10)?.checked_add(<$t>::from(d))?;
                }
                Some(n)
            }
        }
    )*};
}
magnitude!(u64, u128);

macro_rules! unsigned_decimal {
    ($($t:ty => $m:ty, $digits:expr);*) => {$(
        impl Decimal for $t {
            const DIGITS: usize = $digits;
            const SIGNED: bool = false;
            type Mag = $m;
            #[inline(always)]
            fn split(&self) -> (bool, $m) {
                (false, <$m>::from(*self))
            }
            #[inline(always)]
            fn join(negative: bool, mag: $m) -> Option<Self> {
                if negative {
                    return None;
                }
                <$t>::try_from(mag).ok()
            }
        }
    )*};
}
unsigned_decimal!(u8 => u64, 3; u16 => u64, 5; u32 => u64, 10; u64 => u64, 20; u128 => u128, 39);

macro_rules! signed_decimal {
    ($($t:ty => $m:ty, $digits:expr);*) => {$(
        impl Decimal for $t {
            const DIGITS: usize = $digits;
            const SIGNED: bool = true;
            type Mag = $m;
            #[inline(always)]
            fn split(&self) -> (bool, $m) {
                (*self < 0, self.unsigned_abs() as $m)
            }
            #[inline(always)]
            fn join(negative: bool, mag: $m) -> Option<Self> {
                if !negative {
                    return <$t>::try_from(mag).ok();
                }
                if mag == 0 {
                    return None; // "-0" is no value: 0 is stored with `0`
                }
                // -(mag - 1) - 1, so that the minimum does not overflow.
                let below = <$t>::try_from(mag - 1).ok()?;
                Some(-below - 1)
            }
        }
    )*};
}
signed_decimal!(i8 => u64, 3; i16 => u64, 5; i32 => u64, 10; i64 => u64, 19; i128 => u128, 39);

/// `10^w - 1 - n` for the ASCII digits of `n`: each digit `d` becomes
/// `9 - d`. A byte that is not a digit stays one that is not.
#[inline(always)]
fn complement(digits: &mut [u8]) {
    for b in digits {
        *b = (b'0' + b'9').wrapping_sub(*b);
    }
}

/// An integer as `W` zero-padded decimal digits; signed types put `0`
/// (zero and above) or `-` (below zero, digits complemented) first.
/// `#[desc]` complements the digits of an unsigned value; `#[reverse]`
/// reverses them after padding.
pub struct Dec<const W: usize, O, D>(PhantomData<(O, D)>);

/// The widest decimal field: `u128::MAX` has 39 digits, one more for a sign.
const MAX_DEC: usize = 40;

impl<T: Decimal, const W: usize, O: Order, D: Direction> FieldCodec<T> for Dec<W, O, D> {
    fixed_width!(W + T::SIGNED as usize, desc: O::DESC);
    const KEY_FIELD: Option<crate::format::field::KeyFieldInfo> = T::KEY_FIELD;
    #[inline(always)]
    fn encode(value: &T, out: &mut [u8], pos: usize, field: &'static str) -> Encoded {
        dec_encode::<T, D>(value, W, O::DESC, out, pos, field)
    }
}

/// [`Dec`]'s encoding with its width and order given at run time: the one
/// implementation, which `Dec` calls with its consts and a run-time layout
/// (`DynLayout`) with the values it parsed.
#[inline(always)]
pub(crate) fn dec_encode<T: Decimal, D: Direction>(
    value: &T,
    w: usize,
    desc: bool,
    out: &mut [u8],
    pos: usize,
    field: &'static str,
) -> Encoded {
    let sign = T::SIGNED as usize;
    let dst = &mut out[pos..pos + w + sign];
    let (negative, mag) = value.split();
    if T::SIGNED {
        dst[0] = if negative { b'-' } else { b'0' };
    }
    let digits = &mut dst[sign..];
    if !mag.write_digits(digits) {
        return Err(EncodeError::TooManyDigits { field, width: w });
    }
    if negative != desc {
        complement(digits);
    }
    if D::REV {
        digits.reverse();
    }
    Ok(pos + w + sign)
}

impl<T: Decimal, const W: usize, O: Order, D: Direction> FieldDecode<'_, T> for Dec<W, O, D> {
    fn describe(value: &T, out: &mut dyn core::fmt::Write) -> core::fmt::Result {
        value.describe(out)
    }

    #[inline(always)]
    fn decode(input: &[u8], pos: usize, field: &'static str) -> Decoded<T> {
        dec_decode::<T, D>(input, pos, W, O::DESC, field)
    }
}

/// Why digits that no value of the field's type has do not decode (also a
/// `KeyField` enum's discriminant of no variant, in a text key).
pub(crate) const DIGITS_OUT_OF_RANGE: &str = "the digits are out of range for the field's type";

/// [`Dec`]'s decoding with its width (at most 39 digits) and order given
/// at run time.
#[inline(always)]
pub(crate) fn dec_decode<T: Decimal, D: Direction>(
    input: &[u8],
    pos: usize,
    w: usize,
    desc: bool,
    field: &'static str,
) -> Decoded<T> {
    let sign = T::SIGNED as usize;
    let src = take(input, pos, w + sign, field)?;
    let mut buf = [0u8; MAX_DEC];
    let digits = &mut buf[..w];
    digits.copy_from_slice(&src[sign..]);
    let negative = T::SIGNED && src[0] == b'-';
    if T::SIGNED && !negative && src[0] != b'0' {
        return Err(DecodeError::InvalidValue {
            field,
            reason: "a signed decimal field starts with `0` or `-`",
        });
    }
    if D::REV {
        digits.reverse();
    }
    if negative != desc {
        complement(digits);
    }
    let mag = T::Mag::parse_digits(digits).ok_or(DecodeError::InvalidValue {
        field,
        reason: "expected decimal digits (0-9) of the field's width",
    })?;
    let value = T::join(negative, mag).ok_or(DecodeError::InvalidValue {
        field,
        reason: DIGITS_OUT_OF_RANGE,
    })?;
    Ok((value, pos + w + sign))
}

/// `#[desc_ts]` in a text key: `MAX - ts` in `W` zero-padded digits, where
/// `MAX` is `i64::MAX` (`i32::MAX` for 32-bit types) or `#[desc_ts(max)]`.
/// A negative `ts` or one above `MAX` cannot be stored.
pub struct TextDescTs<const W: usize, const MAX: u64>;

impl<T: Decimal<Mag = u64>, const W: usize, const MAX: u64> FieldCodec<T> for TextDescTs<W, MAX> {
    fixed_width!(W, desc: true);
    #[inline(always)]
    fn encode(value: &T, out: &mut [u8], pos: usize, field: &'static str) -> Encoded {
        text_desc_ts_encode(value, W, MAX, out, pos, field)
    }
}

/// [`TextDescTs`]'s encoding with its width and `MAX` given at run time.
#[inline(always)]
pub(crate) fn text_desc_ts_encode<T: Decimal<Mag = u64>>(
    value: &T,
    w: usize,
    max: u64,
    out: &mut [u8],
    pos: usize,
    field: &'static str,
) -> Encoded {
    let (negative, ts) = value.split();
    if negative {
        return Err(EncodeError::NegativeTimestamp {
            field,
            value: (ts as i64).wrapping_neg(),
        });
    }
    if ts > max {
        return Err(EncodeError::TimestampOutOfRange {
            field,
            value: ts,
            max,
        });
    }
    // w holds every digit of max (checked by the derive), so of max - ts.
    if !(max - ts).write_digits(&mut out[pos..pos + w]) {
        return Err(EncodeError::TooManyDigits { field, width: w });
    }
    Ok(pos + w)
}

impl<T: Decimal<Mag = u64>, const W: usize, const MAX: u64> FieldDecode<'_, T>
    for TextDescTs<W, MAX>
{
    #[inline(always)]
    fn decode(input: &[u8], pos: usize, field: &'static str) -> Decoded<T> {
        text_desc_ts_decode(input, pos, W, MAX, field)
    }
}

/// [`TextDescTs`]'s decoding with its width and `MAX` given at run time.
#[inline(always)]
pub(crate) fn text_desc_ts_decode<T: Decimal<Mag = u64>>(
    input: &[u8],
    pos: usize,
    w: usize,
    max: u64,
    field: &'static str,
) -> Decoded<T> {
    let stored =
        u64::parse_digits(take(input, pos, w, field)?).ok_or(DecodeError::InvalidValue {
            field,
            reason: "expected decimal digits (0-9) of the field's width",
        })?;
    let ts = max.checked_sub(stored).ok_or(DecodeError::InvalidValue {
        field,
        reason: "stored #[desc_ts] value is above its MAX, so it is no MAX - ts",
    })?;
    let value = T::join(false, ts).ok_or(DecodeError::InvalidValue {
        field,
        reason: "the timestamp MAX - stored is out of range for the field's type",
    })?;
    Ok((value, pos + w))
}

/// A value with a fixed-width text form: how a text key writes a UUID, a
/// ULID or an IP address (see the table in the crate's README,
/// "Ecosystem"). The derive picks this codec for a field by its type's name
/// (`Uuid`, `Ulid`, `Ipv4Addr`, `Ipv6Addr`, `IpAddr`); a type of your own
/// with a text form needs one of those names for now.
///
/// The text must be printable ASCII, exactly [`TEXT_LEN`](Self::TEXT_LEN)
/// bytes (at most 64), and sort (compared bytewise) like the values; `read_text` must
/// reject every text that `write_text` does not write, so that each value
/// has one key.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no fixed-width text form: it does not implement `rowkey_core::TextForm`",
    label = "not a text key field type",
    note = "`uuid::Uuid` and `ulid::Ulid` need rowkey-core's features `uuid` and `ulid`"
)]
pub trait TextForm: Sized {
    /// The text's length in bytes.
    const TEXT_LEN: usize;
    /// Writes the text into `out[..TEXT_LEN]`.
    fn write_text(&self, out: &mut [u8]);
    /// The value of `text` (exactly `TEXT_LEN` bytes).
    fn read_text(text: &[u8]) -> Result<Self, crate::format::error::FieldError>;
    /// How [`explain`](crate::RowKey::explain) names the value; by default
    /// nothing.
    fn describe(&self, out: &mut dyn core::fmt::Write) -> core::fmt::Result {
        let _ = out;
        Ok(())
    }
}

/// A [`TextForm`] value in a text key; `#[reverse]` (`D` = `Rev`) writes
/// its characters last to first, which spreads time-ordered ids.
pub struct Chars<D>(PhantomData<D>);

impl<T: TextForm, D: Direction> FieldCodec<T> for Chars<D> {
    // Decoding copies the text to a stack buffer: a longer form is a
    // compile error where the field is declared, not a key that cannot be
    // read back.
    const FIXED_LEN: Option<usize> = {
        assert!(
            T::TEXT_LEN <= MAX_TEXT_FORM,
            "rowkey: a TextForm is at most 64 bytes long"
        );
        Some(T::TEXT_LEN)
    };
    const MIN_LEN: usize = T::TEXT_LEN;
    const DESC: bool = false;
    const RAW: bool = false;
    #[inline(always)]
    fn encoded_len(_: &T) -> usize {
        T::TEXT_LEN
    }
    #[inline]
    fn encode(value: &T, out: &mut [u8], pos: usize, _: &'static str) -> Encoded {
        let dst = &mut out[pos..pos + T::TEXT_LEN];
        value.write_text(dst);
        if D::REV {
            dst.reverse();
        }
        Ok(pos + T::TEXT_LEN)
    }
}

/// The longest text form (`IpAddr`'s is 40).
const MAX_TEXT_FORM: usize = 64;

impl<T: TextForm, D: Direction> FieldDecode<'_, T> for Chars<D> {
    fn describe(value: &T, out: &mut dyn core::fmt::Write) -> core::fmt::Result {
        value.describe(out)
    }

    #[inline]
    fn decode(input: &[u8], pos: usize, field: &'static str) -> Decoded<T> {
        let n = T::TEXT_LEN;
        let src = take(input, pos, n, field)?;
        let mut buf = [0u8; MAX_TEXT_FORM];
        // Never longer: `FIXED_LEN` (used by every key) checks it.
        let Some(text) = buf.get_mut(..n) else {
            return Err(DecodeError::InvalidValue {
                field,
                reason: "the type's text form is longer than 64 bytes",
            });
        };
        text.copy_from_slice(src);
        if D::REV {
            text.reverse();
        }
        let value = T::read_text(text).map_err(|e| DecodeError::from_field(field, e))?;
        Ok((value, pos + n))
    }
}

/// Where `sep` first occurs in `bytes`.
#[inline(always)]
fn find(bytes: &[u8], sep: &[u8]) -> Option<usize> {
    match sep {
        [one] => bytes.iter().position(|b| b == one),
        _ => bytes.windows(sep.len()).position(|w| w == sep),
    }
}

/// A string that is not the last field of a text key, followed by the
/// separator: the value must not contain the separator (nor end with the
/// start of a multi-byte one), so that the first separator after the field
/// ends it. `D` is [`Fwd`](crate::__private::Fwd) or
/// [`Dom`](crate::__private::Dom) (`#[reverse_domain]`).
pub struct Delimited<S, D>(PhantomData<(S, D)>);

impl<T: KeyBytes + ?Sized, S: Sep, D: Direction> FieldCodec<T> for Delimited<S, D> {
    const FIXED_LEN: Option<usize> = None;
    const MIN_LEN: usize = S::SEP.len();
    const DESC: bool = false;
    const RAW: bool = false;
    #[inline(always)]
    fn encoded_len(value: &T) -> usize {
        value.key_bytes().len() + S::SEP.len()
    }
    #[inline(always)]
    fn encode(value: &T, out: &mut [u8], pos: usize, field: &'static str) -> Encoded {
        delimited_encode::<D>(value.key_bytes(), S::SEP, out, pos, field)
    }
}

impl<'de, T: VarField<'de>, S: Sep, D: Direction> FieldDecode<'de, T> for Delimited<S, D> {
    #[inline(always)]
    fn decode(input: &'de [u8], pos: usize, field: &'static str) -> Decoded<T> {
        delimited_decode::<T, D>(input, pos, S::SEP, field)
    }
}

/// [`Delimited`]'s encoding with its separator given at run time.
#[inline(always)]
pub(crate) fn delimited_encode<D: Direction>(
    bytes: &[u8],
    sep: &'static [u8],
    out: &mut [u8],
    pos: usize,
    field: &'static str,
) -> Encoded {
    let (n, s) = (bytes.len(), sep.len());
    let dst = &mut out[pos..pos + n + s];
    if D::DOMAIN {
        reverse_domain_into(bytes, &mut dst[..n]);
    } else {
        dst[..n].copy_from_slice(bytes);
    }
    dst[n..].copy_from_slice(sep);
    if find(dst, sep) != Some(n) {
        return Err(EncodeError::ContainsSeparator { field, sep });
    }
    Ok(pos + n + s)
}

/// [`Delimited`]'s decoding with its separator given at run time.
#[inline(always)]
pub(crate) fn delimited_decode<'de, T: VarField<'de>, D: Direction>(
    input: &'de [u8],
    pos: usize,
    sep: &[u8],
    field: &'static str,
) -> Decoded<T> {
    let rest = input.get(pos..).unwrap_or(&[]);
    let n = find(rest, sep).ok_or(DecodeError::MissingSeparator { field })?;
    let value = var_value::<T, D>(&rest[..n], false, false, field)?;
    Ok((value, pos + n + sep.len()))
}

/// The codec `C`, then the separator: every field of a text key but the
/// last and the [`Delimited`] strings.
pub struct Then<C, S>(PhantomData<(C, S)>);

impl<T: ?Sized, C: FieldCodec<T>, S: Sep> FieldCodec<T> for Then<C, S> {
    const FIXED_LEN: Option<usize> = match C::FIXED_LEN {
        Some(n) => Some(n + S::SEP.len()),
        None => None,
    };
    const MIN_LEN: usize = C::MIN_LEN + S::SEP.len();
    const DESC: bool = C::DESC;
    const RAW: bool = false;
    const KEY_FIELD: Option<crate::format::field::KeyFieldInfo> = C::KEY_FIELD;
    #[inline(always)]
    fn encoded_len(value: &T) -> usize {
        C::encoded_len(value) + S::SEP.len()
    }
    #[inline(always)]
    fn max_encoded_len(value: &T) -> usize {
        C::max_encoded_len(value) + S::SEP.len()
    }
    #[inline(always)]
    fn encode(value: &T, out: &mut [u8], pos: usize, field: &'static str) -> Encoded {
        let p = C::encode(value, out, pos, field)?;
        let s = S::SEP.len();
        out[p..p + s].copy_from_slice(S::SEP);
        Ok(p + s)
    }

    #[inline]
    fn encode_bound(v: &T, up: bool, out: &mut [u8], at: usize, field: &'static str) -> Bounded {
        let (p, rounded) = C::encode_bound(v, up, out, at, field)?;
        let s = S::SEP.len();
        out[p..p + s].copy_from_slice(S::SEP);
        Ok((p + s, rounded))
    }
}

impl<'de, T, C: FieldDecode<'de, T>, S: Sep> FieldDecode<'de, T> for Then<C, S> {
    fn describe(value: &T, out: &mut dyn core::fmt::Write) -> core::fmt::Result {
        C::describe(value, out)
    }

    #[inline(always)]
    fn decode(input: &'de [u8], pos: usize, field: &'static str) -> Decoded<T> {
        let (value, p) = C::decode(input, pos, field)?;
        let s = S::SEP.len();
        if input.get(p..p + s) != Some(S::SEP) {
            return Err(DecodeError::MissingSeparator { field });
        }
        Ok((value, p + s))
    }
}

/// The bucket `value % buckets` of `#[salt(hash = "mod")]`: an unsigned
/// integer field, salted by its own value (`phone % 10`).
pub trait ModSalt {
    /// `self % buckets`.
    fn bucket(&self, buckets: u16) -> u8;
}

macro_rules! mod_salt {
    ($($t:ty),*) => {$(
        impl ModSalt for $t {
            #[inline(always)]
            fn bucket(&self, buckets: u16) -> u8 {
                (*self % (buckets.max(1) as $t)) as u8
            }
        }
    )*};
}
mod_salt!(u16, u32, u64, u128);

impl ModSalt for u8 {
    #[inline(always)]
    fn bucket(&self, buckets: u16) -> u8 {
        // 256 buckets: every u8 is its own bucket.
        (u16::from(*self) % buckets.max(1)) as u8
    }
}
