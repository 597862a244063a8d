//! Field codecs: the attributes of one field, as a type.
//!
//! The derive picks one codec type per field from its type and attributes
//! (`Fixed<O, D>`, `DescTs`, `Var<F, O, D>`, `Padded<N, PAD, O, D>`,
//! `Opt<C, O>`, where `O` is [`Asc`] or [`Desc`], `D` is [`Fwd`] or [`Rev`]
//! and `F` is [`Raw`] or [`Escaped`]), and generated code calls
//! `<Codec as FieldCodec<_>>::encode` and the other trait items, the value
//! type inferred. Each is a few lines over the field traits, monomorphized
//! and inlined into the generated methods.

use core::fmt;
use core::marker::PhantomData;

#[cfg(feature = "alloc")]
use alloc::vec::Vec;

use crate::format::error::{DecodeError, EncodeError};
use crate::format::escape;
use crate::format::field::{
    ByteArray, DescTimestamp, FixedField, KeyBytes, KeyFieldInfo, VarField,
};

/// Encoding of one field type under one set of attributes.
pub trait FieldCodec<T: ?Sized> {
    /// `Some(width)` when every value encodes to `width` bytes.
    const FIXED_LEN: Option<usize>;
    /// The fewest bytes a value can encode to.
    const MIN_LEN: usize;
    /// The encoding sorts descending: a range's ends swap.
    const DESC: bool;
    /// Stored raw to the end of the key (a variable-length last field): not
    /// prefix-free, so the rows of one value end at `value ++ 00`.
    const RAW: bool;
    /// Bigtable's `OrderedCodeBytes` (`#[rowkey(ordered_code)]`): the
    /// lowest key with a prefix's values may end before the prefix does
    /// (see [`lowest_len`](Self::lowest_len)), which scans take into
    /// account.
    #[doc(hidden)]
    const ORDERED_CODE: bool = false;
    /// A `#[derive(KeyField)]` enum field's repr and variants, for the
    /// layout descriptor; `None` for every other field.
    #[doc(hidden)]
    const KEY_FIELD: Option<KeyFieldInfo> = None;
    /// The width of a fixed-width codec, for generated consts: a compile
    /// error if the derive used it for a variable-length codec.
    const WIDTH: usize = match Self::FIXED_LEN {
        Some(n) => n,
        None => panic!("rowkey: a variable-length field in a fixed-width layout"),
    };
    /// The width in a layout descriptor.
    #[doc(hidden)]
    const LAYOUT_WIDTH: FieldWidth = match Self::FIXED_LEN {
        Some(n) => FieldWidth::Fixed(n),
        None => FieldWidth::Variable { min: Self::MIN_LEN },
    };
    /// Bytes `value` encodes to (for a `Padded` value that is too long: the
    /// fixed width; `encode` reports the error).
    fn encoded_len(value: &T) -> usize;
    /// An upper bound of [`encoded_len`](Self::encoded_len) that is cheaper
    /// to compute (no pass over the bytes): `encode_into` skips the exact
    /// count when the buffer is at least this long.
    #[inline(always)]
    fn max_encoded_len(value: &T) -> usize {
        Self::encoded_len(value)
    }
    /// Writes `value` at `out[pos..]` and returns the position after it.
    /// `out` has room for [`encoded_len`](Self::encoded_len) bytes at `pos`.
    fn encode(
        value: &T,
        out: &mut [u8],
        pos: usize,
        field: &'static str,
    ) -> Result<usize, EncodeError>;

    /// A scan bound's encoding: `value`'s when it can be stored exactly,
    /// else a storable value's next to it (a timestamp finer than its unit
    /// rounds up when `up`, down otherwise; a `#[fixed(N)]` string longer
    /// than `N` is cut to its first `N` bytes, below it), saying which.
    /// Scans use it so that a range means exactly the keys that can be
    /// stored and that the Rust range holds.
    #[doc(hidden)]
    #[inline]
    fn encode_bound(v: &T, up: bool, out: &mut [u8], at: usize, field: &'static str) -> Bounded {
        let _ = up;
        Self::encode(v, out, at, field).map(|p| (p, Rounded::Exact))
    }

    /// Of the `written` bytes `encode` wrote for `value` at the end of a
    /// scan's prefix, how many the lowest key with this prefix keeps:
    /// all of them, but in an `OrderedCodeBytes` key, whose last ascending
    /// field has no terminator and whose trailing empty ascending strings
    /// are not written (`None`: this field adds nothing to the lowest key,
    /// which ends where it did before the field).
    #[doc(hidden)]
    #[inline(always)]
    fn lowest_len(value: &T, written: usize) -> Option<usize> {
        let _ = value;
        Some(written)
    }

    /// `prefix` extended by `value`'s encoding. Generated scans call this
    /// (a method of the codec, not a function with a bound of its own), so
    /// that a field type without the needed trait is reported once, as the
    /// unmet `FieldCodec` bound at the field.
    #[doc(hidden)]
    #[inline]
    fn extend<P: ScanPrefix>(prefix: P, value: &T, field: &'static str) -> Result<P, EncodeError>
    where
        Self: Sized,
    {
        prefix.push::<Self, T>(value, field)
    }

    /// `filter` with field `i`, of this codec and of value type `T`, also
    /// constrained by `predicate` (see `FilterSink`).
    #[doc(hidden)]
    #[inline]
    fn constrain<S: FilterSink<T, P>, P>(
        filter: S,
        i: usize,
        predicate: P,
        field: &'static str,
        _value: PhantomData<fn(&T)>,
    ) -> S
    where
        Self: Sized,
        T: Sized,
    {
        filter.constrain::<Self>(i, predicate, field)
    }

    /// Every row under `prefix` whose next field, of this codec, is in
    /// `range` (see `ScanPrefix::range`).
    #[doc(hidden)]
    #[inline]
    fn scan_range<P: ScanPrefix>(
        prefix: P,
        range: &impl core::ops::RangeBounds<T>,
        field: &'static str,
    ) -> Result<P::Scan, EncodeError>
    where
        Self: Sized,
        T: Sized,
    {
        prefix.range::<Self, T>(range, field)
    }
}

/// A skip-scan filter under construction, as the codecs see it: the layer
/// above (`scan::FilterParts`) implements it for every predicate type, so
/// that generated code constrains a field through its codec (one unmet
/// `FieldCodec` bound for a type that is no field type, not one more).
#[doc(hidden)]
pub trait FilterSink<T, P>: Sized {
    /// Field `i`, of codec `C`, must satisfy `predicate` too.
    fn constrain<C: FieldCodec<T>>(self, i: usize, predicate: P, field: &'static str) -> Self;
}

/// A scan under construction, as the codecs see it: the layer above
/// (`scan::Leading`) implements it, so a codec can extend a scan without
/// this layer naming the scan types.
#[doc(hidden)]
pub trait ScanPrefix: Sized {
    /// What [`range`](Self::range) builds.
    type Scan;
    /// The prefix with one more field's encoding appended.
    fn push<C: FieldCodec<T>, T: ?Sized>(
        self,
        value: &T,
        field: &'static str,
    ) -> Result<Self, EncodeError>;
    /// Every row under the prefix whose next field, of codec `C`, is in
    /// `range`.
    fn range<C: FieldCodec<T>, T>(
        self,
        range: &impl core::ops::RangeBounds<T>,
        field: &'static str,
    ) -> Result<Self::Scan, EncodeError>;
}

/// Where the value a bound was encoded as lies against the bound itself.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounded {
    /// The bound itself.
    Exact,
    /// The next storable value above it.
    Above,
    /// A storable value below it, with no storable value between them.
    Below,
}

/// What a codec's `encode` returns: the position after the field.
pub(crate) type Encoded = Result<usize, EncodeError>;

/// What a codec's `encode_bound` returns: the position after the field
/// and where the written value lies against the bound.
pub(crate) type Bounded = Result<(usize, Rounded), EncodeError>;

/// What a codec's `decode` returns: the value and the position after it.
pub(crate) type Decoded<T> = Result<(T, usize), DecodeError>;

/// The consts and `encoded_len` of a codec whose every value is `$width`
/// bytes: the part every fixed-width codec, binary or text, shares.
macro_rules! fixed_width {
    ($width:expr, desc: $desc:expr) => {
        const FIXED_LEN: Option<usize> = Some($width);
        const MIN_LEN: usize = $width;
        const DESC: bool = $desc;
        const RAW: bool = false;
        #[inline(always)]
        fn encoded_len(_: &T) -> usize {
            $width
        }
    };
}
pub(crate) use fixed_width;

/// A field's width in the key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldWidth {
    /// Always this many bytes (with the separator that follows it in a
    /// text key).
    Fixed(usize),
    /// At least this many bytes.
    Variable {
        /// The fewest bytes.
        min: usize,
    },
}

impl fmt::Display for FieldWidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldWidth::Fixed(w) => write!(f, "{w}"),
            FieldWidth::Variable { min } => write!(f, ">={min}"),
        }
    }
}

/// Decoding of one field type under one set of attributes.
pub trait FieldDecode<'de, T> {
    /// Reads the field at `input[pos..]`; returns it and the position after it.
    fn decode(input: &'de [u8], pos: usize, field: &'static str)
        -> Result<(T, usize), DecodeError>;

    /// How `explain` shows a decoded value of a user type: the type's own
    /// `describe` (a `KeyField` enum's variant name); nothing by default.
    #[doc(hidden)]
    fn describe(value: &T, out: &mut dyn core::fmt::Write) -> core::fmt::Result {
        let _ = (value, out);
        Ok(())
    }
}

/// A field's sort order: [`Asc`] or [`Desc`] (`#[desc]`).
pub trait Order {
    /// The stored bytes are inverted.
    const DESC: bool;
}
/// Ascending: the value's own order.
pub enum Asc {}
/// Descending (`#[desc]`, `#[desc_ts]`): every stored byte inverted.
pub enum Desc {}
impl Order for Asc {
    const DESC: bool = false;
}
impl Order for Desc {
    const DESC: bool = true;
}

/// A field's byte direction: [`Fwd`], [`Rev`] (`#[reverse]`) or [`Dom`]
/// (`#[reverse_domain]`).
pub trait Direction {
    /// The value's bytes are stored last to first.
    const REV: bool;
    /// The value's dot-separated labels are stored last to first.
    const DOMAIN: bool = false;
}
/// The bytes as they are.
pub enum Fwd {}
/// The bytes reversed (`#[reverse]`).
pub enum Rev {}
/// The labels reversed (`#[reverse_domain]`): `www.example.com` is stored
/// as `com.example.www`, so one site's pages sort together.
pub enum Dom {}
impl Direction for Fwd {
    const REV: bool = false;
}
impl Direction for Rev {
    const REV: bool = true;
}
impl Direction for Dom {
    const REV: bool = false;
    const DOMAIN: bool = true;
}

/// Writes `bytes` with its dot-separated labels in reverse order
/// (`www.example.com` → `com.example.www`) into `out[..bytes.len()]`. The
/// same function undoes it.
#[inline]
pub(crate) fn reverse_domain_into(bytes: &[u8], out: &mut [u8]) {
    let mut w = 0;
    for (i, label) in bytes.rsplit(|&b| b == b'.').enumerate() {
        if i > 0 {
            out[w] = b'.';
            w += 1;
        }
        out[w..w + label.len()].copy_from_slice(label);
        w += label.len();
    }
}

/// A variable-length field's frame: [`Raw`] or [`Escaped`].
pub trait Frame {
    /// Escaped and terminated, so the field is prefix-free.
    const ESCAPED: bool;
}
/// Raw bytes to the end of the key (the last field).
pub enum Raw {}
/// Escaped and terminated (any other field).
pub enum Escaped {}
impl Frame for Raw {
    const ESCAPED: bool = false;
}
impl Frame for Escaped {
    const ESCAPED: bool = true;
}

#[inline(always)]
pub(crate) fn take<'a>(
    input: &'a [u8],
    pos: usize,
    n: usize,
    field: &'static str,
) -> Result<&'a [u8], DecodeError> {
    let available = input.len().saturating_sub(pos);
    if available < n {
        return Err(DecodeError::UnexpectedEnd {
            field,
            needed: n,
            available,
        });
    }
    Ok(&input[pos..pos + n])
}

#[inline(always)]
fn invert(bytes: &mut [u8]) {
    for b in bytes {
        *b = !*b;
    }
}

/// A [`FixedField`] with optional `#[desc]` and `#[reverse]`.
pub struct Fixed<O, D>(PhantomData<(O, D)>);

impl<T: FixedField, O: Order, D: Direction> FieldCodec<T> for Fixed<O, D> {
    fixed_width!(T::LEN, desc: O::DESC);
    const KEY_FIELD: Option<KeyFieldInfo> = T::KEY_FIELD;
    #[inline(always)]
    fn encode(value: &T, out: &mut [u8], pos: usize, _: &'static str) -> Encoded {
        let bytes = value.to_key_bytes();
        let dst = &mut out[pos..pos + T::LEN];
        dst.copy_from_slice(bytes.as_ref());
        if D::REV {
            dst.reverse();
        }
        if O::DESC {
            invert(dst);
        }
        Ok(pos + T::LEN)
    }
}

impl<T: FixedField, O: Order, D: Direction> FieldDecode<'_, T> for Fixed<O, D> {
    #[inline(always)]
    fn decode(input: &[u8], pos: usize, field: &'static str) -> Decoded<T> {
        let src = take(input, pos, T::LEN, field)?;
        let mut bytes = T::Bytes::zeroed();
        let b = bytes.as_mut();
        b.copy_from_slice(src);
        if O::DESC {
            invert(b);
        }
        if D::REV {
            b.reverse();
        }
        let value = T::from_key_bytes(bytes).map_err(|e| DecodeError::from_field(field, e))?;
        Ok((value, pos + T::LEN))
    }

    fn describe(value: &T, out: &mut dyn core::fmt::Write) -> core::fmt::Result {
        value.describe(out)
    }
}

/// `#[desc_ts]`: `MAX - ts`, big-endian, newest first.
pub struct DescTs;

impl<T: DescTimestamp> FieldCodec<T> for DescTs {
    fixed_width!(<T::Bytes as ByteArray>::LEN, desc: true);
    #[inline(always)]
    fn encode(value: &T, out: &mut [u8], pos: usize, field: &'static str) -> Encoded {
        let n = <T::Bytes as ByteArray>::LEN;
        let bytes = value.to_desc_ts().ok_or(EncodeError::TimestampOutOfRange {
            field,
            value: value.as_u64(),
            max: T::MAX,
        })?;
        out[pos..pos + n].copy_from_slice(bytes.as_ref());
        Ok(pos + n)
    }
}

impl<T: DescTimestamp> FieldDecode<'_, T> for DescTs {
    #[inline(always)]
    fn decode(input: &[u8], pos: usize, field: &'static str) -> Decoded<T> {
        let n = <T::Bytes as ByteArray>::LEN;
        let mut bytes = T::Bytes::zeroed();
        bytes.as_mut().copy_from_slice(take(input, pos, n, field)?);
        let value = T::from_desc_ts(bytes).ok_or(DecodeError::InvalidValue {
            field,
            reason: "stored #[desc_ts] value is negative, so it is no MAX - ts of an unsigned timestamp",
        })?;
        Ok((value, pos + n))
    }
}

/// A variable-length field: `F` is [`Raw`] (last field, bytes to the end)
/// or [`Escaped`].
pub struct Var<F, O, D>(PhantomData<(F, O, D)>);

impl<T: KeyBytes + ?Sized, F: Frame, O: Order, D: Direction> FieldCodec<T> for Var<F, O, D> {
    const FIXED_LEN: Option<usize> = None;
    const MIN_LEN: usize = if F::ESCAPED { 2 } else { 0 };
    const DESC: bool = O::DESC;
    const RAW: bool = !F::ESCAPED;
    #[inline(always)]
    fn encoded_len(value: &T) -> usize {
        let bytes = value.key_bytes();
        if F::ESCAPED {
            escape::escaped_len(bytes)
        } else {
            bytes.len()
        }
    }
    #[inline(always)]
    fn max_encoded_len(value: &T) -> usize {
        let n = value.key_bytes().len();
        // Every byte escaped, plus the terminator.
        if F::ESCAPED {
            2 * n + 2
        } else {
            n
        }
    }
    #[inline(always)]
    fn encode(value: &T, out: &mut [u8], pos: usize, _: &'static str) -> Encoded {
        let bytes = value.key_bytes();
        let rest = &mut out[pos..];
        let written = if F::ESCAPED {
            if D::REV {
                escape::escape_reversed_into(bytes, rest)
            } else if D::DOMAIN {
                escape::escape_domain_into(bytes, rest)
            } else {
                escape::escape_into(bytes, rest)
            }
        } else {
            let dst = &mut rest[..bytes.len()];
            if D::DOMAIN {
                reverse_domain_into(bytes, dst);
            } else {
                dst.copy_from_slice(bytes);
            }
            if D::REV {
                dst.reverse();
            }
            bytes.len()
        };
        if O::DESC {
            invert(&mut rest[..written]);
        }
        Ok(pos + written)
    }
}

/// Turns stored content into the value: borrowed when no byte changes,
/// copied (and inverted, reversed) otherwise.
#[inline(always)]
pub(crate) fn var_value<'de, T: VarField<'de>, D: Direction>(
    content: &'de [u8],
    escaped: bool,
    desc: bool,
    field: &'static str,
) -> Result<T, DecodeError> {
    if !escaped && !desc && !D::REV && !D::DOMAIN {
        return T::from_borrowed(content).map_err(|e| DecodeError::from_field(field, e));
    }
    #[cfg(feature = "alloc")]
    {
        let flip = if desc { 0xFF } else { 0 };
        let mut owned: Vec<u8> = if escaped {
            escape::unescape(content, flip)
        } else {
            content.iter().map(|b| b ^ flip).collect()
        };
        if D::REV {
            owned.reverse();
        }
        if D::DOMAIN {
            let stored = owned.clone();
            reverse_domain_into(&stored, &mut owned);
        }
        T::from_owned(owned).map_err(|e| DecodeError::from_field(field, e))
    }
    #[cfg(not(feature = "alloc"))]
    {
        Err(DecodeError::CannotBorrow { field })
    }
}

impl<'de, T: VarField<'de>, F: Frame, O: Order, D: Direction> FieldDecode<'de, T> for Var<F, O, D> {
    #[inline(always)]
    fn decode(input: &'de [u8], pos: usize, field: &'static str) -> Decoded<T> {
        if F::ESCAPED {
            let end = escape::find_end(input, pos, O::DESC, field)?;
            let content = &input[pos..end.content_end];
            let value = var_value::<T, D>(content, end.has_escapes, O::DESC, field)?;
            Ok((value, end.next))
        } else {
            let content = input.get(pos..).unwrap_or(&[]);
            let value = var_value::<T, D>(content, false, O::DESC, field)?;
            Ok((value, input.len().max(pos)))
        }
    }
}

/// `#[fixed(N, pad = PAD)]`: a string or byte string padded to `N` bytes.
pub struct Padded<const N: usize, const PAD: u8, O, D>(PhantomData<(O, D)>);

impl<T: KeyBytes + ?Sized, const N: usize, const PAD: u8, O: Order, D: Direction> FieldCodec<T>
    for Padded<N, PAD, O, D>
{
    fixed_width!(N, desc: O::DESC);
    #[inline(always)]
    fn encode(value: &T, out: &mut [u8], pos: usize, field: &'static str) -> Encoded {
        padded_encode::<D>(value.key_bytes(), N, PAD, O::DESC, out, pos, field)
    }
    /// A bound longer than `N` bytes: the stored values are at most `N`
    /// bytes, so the nearest below is its first `N` bytes, and above it
    /// every value past those (the first `N` bytes sort below the bound).
    #[inline]
    fn encode_bound(v: &T, up: bool, out: &mut [u8], at: usize, field: &'static str) -> Bounded {
        let _ = up;
        let bytes = v.key_bytes();
        if bytes.len() <= N || D::REV || D::DOMAIN {
            return Self::encode(v, out, at, field).map(|p| (p, Rounded::Exact));
        }
        // Its first N bytes: below the bound, and every stored v (at
        // most N bytes) above them is above the bound too.
        <Self as FieldCodec<[u8]>>::encode(&bytes[..N], out, at, field).map(|p| (p, Rounded::Below))
    }
}

impl<'de, T: VarField<'de>, const N: usize, const PAD: u8, O: Order, D: Direction>
    FieldDecode<'de, T> for Padded<N, PAD, O, D>
{
    #[inline(always)]
    fn decode(input: &'de [u8], pos: usize, field: &'static str) -> Decoded<T> {
        padded_decode::<T, D>(input, pos, N, PAD, O::DESC, field)
    }
}

/// [`Padded`]'s encoding with its width `n` and pad byte given at run
/// time: the one implementation, which `Padded` calls with its consts and
/// a run-time layout (`DynLayout`) with the values it parsed.
#[inline(always)]
pub(crate) fn padded_encode<D: Direction>(
    bytes: &[u8],
    n: usize,
    pad: u8,
    desc: bool,
    out: &mut [u8],
    pos: usize,
    field: &'static str,
) -> Encoded {
    if bytes.len() > n {
        return Err(EncodeError::TooLong {
            field,
            len: bytes.len(),
            max: n,
        });
    }
    let dst = &mut out[pos..pos + n];
    // Padding first, over all n bytes: a fill of a constant width is a
    // store or two, where filling what the value leaves is a call.
    dst.fill(pad);
    let value_part = &mut dst[..bytes.len()];
    if D::DOMAIN {
        reverse_domain_into(bytes, value_part);
    } else {
        value_part.copy_from_slice(bytes);
    }
    if D::REV {
        value_part.reverse();
    }
    // The byte that ends up last before the padding.
    if value_part.last() == Some(&pad) {
        return Err(EncodeError::EndsWithPad { field, pad });
    }
    if desc {
        invert(dst);
    }
    Ok(pos + n)
}

/// [`Padded`]'s decoding with its width and pad byte given at run time.
#[inline(always)]
pub(crate) fn padded_decode<'de, T: VarField<'de>, D: Direction>(
    input: &'de [u8],
    pos: usize,
    n: usize,
    pad: u8,
    desc: bool,
    field: &'static str,
) -> Decoded<T> {
    let stored = take(input, pos, n, field)?;
    let stored_pad = if desc { !pad } else { pad };
    let len = stored
        .iter()
        .rposition(|&b| b != stored_pad)
        .map_or(0, |i| i + 1);
    let value = var_value::<T, D>(&stored[..len], false, desc, field)?;
    Ok((value, pos + n))
}

/// `Option<T>` around the codec `C`: `00` for `None` (followed by zero
/// padding when `C` is fixed-width), `01` and the value for `Some`.
pub struct Opt<C, O>(PhantomData<(C, O)>);

const NONE: u8 = 0;
const SOME: u8 = 1;

impl<T, C: FieldCodec<T>, O: Order> FieldCodec<Option<T>> for Opt<C, O> {
    const FIXED_LEN: Option<usize> = match C::FIXED_LEN {
        Some(n) => Some(n + 1),
        None => None,
    };
    const MIN_LEN: usize = match C::FIXED_LEN {
        Some(n) => n + 1,
        None => 1,
    };
    const DESC: bool = O::DESC;
    const RAW: bool = C::RAW;
    const KEY_FIELD: Option<KeyFieldInfo> = C::KEY_FIELD;
    #[inline(always)]
    fn encoded_len(value: &Option<T>) -> usize {
        match value {
            Some(v) => 1 + C::encoded_len(v),
            None => Self::MIN_LEN,
        }
    }
    #[inline(always)]
    fn max_encoded_len(value: &Option<T>) -> usize {
        match value {
            Some(v) => 1 + C::max_encoded_len(v),
            None => Self::MIN_LEN,
        }
    }
    #[inline(always)]
    fn encode(value: &Option<T>, out: &mut [u8], pos: usize, field: &'static str) -> Encoded {
        let flip = if O::DESC { 0xFF } else { 0 };
        match value {
            Some(v) => {
                out[pos] = SOME ^ flip;
                C::encode(v, out, pos + 1, field)
            }
            None => {
                let n = Self::MIN_LEN;
                out[pos] = NONE ^ flip;
                out[pos + 1..pos + n].fill(flip);
                Ok(pos + n)
            }
        }
    }

    #[inline]
    fn encode_bound(
        v: &Option<T>,
        up: bool,
        out: &mut [u8],
        at: usize,
        field: &'static str,
    ) -> Bounded {
        match v {
            Some(v) => {
                out[at] = SOME ^ if O::DESC { 0xFF } else { 0 };
                C::encode_bound(v, up, out, at + 1, field)
            }
            None => Self::encode(v, out, at, field).map(|p| (p, Rounded::Exact)),
        }
    }
}

impl<'de, T, C: FieldCodec<T> + FieldDecode<'de, T>, O: Order> FieldDecode<'de, Option<T>>
    for Opt<C, O>
{
    fn describe(value: &Option<T>, out: &mut dyn core::fmt::Write) -> core::fmt::Result {
        match value {
            None => out.write_str("None"),
            Some(v) => C::describe(v, out),
        }
    }

    #[inline(always)]
    fn decode(input: &'de [u8], pos: usize, field: &'static str) -> Decoded<Option<T>> {
        let flip = if O::DESC { 0xFF } else { 0 };
        let tag = take(input, pos, 1, field)?[0] ^ flip;
        match tag {
            SOME => {
                let (v, next) = C::decode(input, pos + 1, field)?;
                Ok((Some(v), next))
            }
            NONE => {
                let n = <Self as FieldCodec<Option<T>>>::MIN_LEN;
                let padding = &take(input, pos, n, field)?[1..];
                if padding.iter().any(|&b| b != flip) {
                    return Err(DecodeError::InvalidPadding { field });
                }
                Ok((None, pos + n))
            }
            byte => Err(DecodeError::InvalidOptionTag { field, byte }),
        }
    }
}

/// A `#[rowkey(added)]` field around its `Opt` codec `C`: where the key
/// ends before it (a key written before the field was added) it decodes as
/// `None`. Encoding is `C`'s; the generated code writes the field only when
/// it or an added field after it is `Some`, so a trailing `None` is no
/// bytes, and a key that ends with a `None` tag is rejected: every value has
/// one key.
pub struct Added<C>(PhantomData<C>);

/// Why a key ending in an added field's `None` tag is rejected.
pub(crate) const TRAILING_NONE: &str =
    "a trailing #[rowkey(added)] None is stored as no bytes, not as a None tag";

impl<T, C: FieldCodec<Option<T>>> FieldCodec<Option<T>> for Added<C> {
    const FIXED_LEN: Option<usize> = C::FIXED_LEN;
    const MIN_LEN: usize = C::MIN_LEN;
    const DESC: bool = C::DESC;
    const RAW: bool = C::RAW;
    const KEY_FIELD: Option<KeyFieldInfo> = C::KEY_FIELD;
    #[inline(always)]
    fn encoded_len(value: &Option<T>) -> usize {
        C::encoded_len(value)
    }
    #[inline(always)]
    fn max_encoded_len(value: &Option<T>) -> usize {
        C::max_encoded_len(value)
    }
    #[inline(always)]
    fn encode(value: &Option<T>, out: &mut [u8], pos: usize, field: &'static str) -> Encoded {
        C::encode(value, out, pos, field)
    }

    #[inline]
    fn encode_bound(
        v: &Option<T>,
        up: bool,
        out: &mut [u8],
        at: usize,
        field: &'static str,
    ) -> Bounded {
        C::encode_bound(v, up, out, at, field)
    }
}

impl<'de, T, C: FieldDecode<'de, Option<T>>> FieldDecode<'de, Option<T>> for Added<C> {
    fn describe(value: &Option<T>, out: &mut dyn core::fmt::Write) -> core::fmt::Result {
        C::describe(value, out)
    }

    #[inline]
    fn decode(input: &'de [u8], pos: usize, field: &'static str) -> Decoded<Option<T>> {
        if pos == input.len() {
            return Ok((None, pos));
        }
        let (value, end) = C::decode(input, pos, field)?;
        if value.is_none() && end == input.len() {
            return Err(DecodeError::InvalidValue {
                field,
                reason: TRAILING_NONE,
            });
        }
        Ok((value, end))
    }
}
