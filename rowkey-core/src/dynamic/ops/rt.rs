//! Codecs whose parameters are only known at run time (`#[fixed(N)]`,
//! a text key's digits and separator, opaque widths, `Option`s of them):
//! the functions the const codecs call, given the descriptor's values.

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use core::ops::Bound;

use super::super::value::{Borrowed, FromValue, Owned, Value};
use crate::format::binary::to_string_binary;
use crate::format::codec::{
    padded_decode, padded_encode, Direction, Dom, FieldCodec, FieldDecode, Fwd, Rev, Rounded,
};
use crate::format::error::{DecodeError, EncodeError};
use crate::format::field::{KeyBytes, VarField};
use crate::format::text::{
    dec_decode, dec_encode, delimited_decode, delimited_encode, text_desc_ts_decode,
    text_desc_ts_encode, Chars, Decimal, ModSalt, TextForm,
};
use crate::layout::explain::{read_opaque, Show};
use crate::layout::{Encoding, FieldLayout, FieldWidth, Reader};
use crate::scan::filter::FilterParts;
use crate::scan::leading::Leading;
use crate::scan::predicate::scan_intervals;

use super::*;

/// Appends the separator after a text key's field that is not the last.
pub(super) fn then_sep(f: &FieldLayout, out: &mut Vec<u8>) {
    if f.sep_len() > 0 {
        out.extend_from_slice(f.sep());
    }
}

/// Checks the separator after a text key's field: the position after it.
pub(super) fn check_sep(input: &[u8], p: usize, f: &FieldLayout) -> Result<usize, DecodeError> {
    let s = f.sep_len();
    if s == 0 {
        return Ok(p);
    }
    if input.get(p..p + s) != Some(f.sep()) {
        return Err(DecodeError::MissingSeparator { field: f.name() });
    }
    Ok(p + s)
}

/// Encodes into a buffer grown by `n` bytes, trimmed to what was written.
pub(super) fn write_with(
    out: &mut Vec<u8>,
    n: usize,
    write: impl FnOnce(&mut [u8]) -> Result<usize, EncodeError>,
) -> Result<(), EncodeError> {
    let pos = out.len();
    out.resize(pos + n, 0);
    let end = write(out)?;
    out.truncate(end);
    Ok(())
}

pub(super) fn rt_encode<C: RtCodec>(
    v: &Value,
    out: &mut Vec<u8>,
    f: &FieldLayout,
) -> Result<(), EncodeError> {
    C::encode_value(v, f, out)
}

pub(super) fn rt_decode<C: RtCodec>(
    input: &[u8],
    pos: usize,
    f: &FieldLayout,
    out: &mut Vec<Value>,
) -> Result<usize, DecodeError> {
    let (t, end) = C::decode(input, pos, f)?;
    out.push(t.into_value());
    Ok(end)
}

pub(super) fn rt_read<C: RtCodec>(
    input: &[u8],
    pos: usize,
    f: &FieldLayout,
    out: &mut dyn fmt::Write,
) -> Result<(usize, Option<i128>), DecodeError>
where
    C::T: Show,
{
    let (t, end) = C::decode(input, pos, f)?;
    let _ = t.show(out);
    Ok((end, t.int()))
}

pub(super) fn rt_constrain<C: RtCodec>(
    parts: FilterParts,
    i: usize,
    pred: Pred,
    f: &FieldLayout,
) -> FilterParts {
    match pred {
        Pred::Values(vs) => {
            let mut encodings = Vec::with_capacity(vs.len());
            for v in &vs {
                let mut e = Vec::new();
                if let Err(err) = rt_encode::<C>(v, &mut e, f) {
                    return parts.fail(err);
                }
                encodings.push(e);
            }
            parts.constrain_encodings(i, encodings, C::RAW)
        }
        Pred::Range(lo, hi) => {
            if !sorts_by_value(f) {
                return parts.fail_unsupported(f.name());
            }
            let range = match (bound::<C::T>(lo, f), bound::<C::T>(hi, f)) {
                (Ok(lo), Ok(hi)) => (lo, hi),
                (Err(e), _) | (_, Err(e)) => return parts.fail(e),
            };
            // The bounds encoded here (rounded as the codec rounds them),
            // then the derive's own range code over them.
            let pre = |b: Bound<C::T>| -> Result<Bound<Pre>, EncodeError> {
                let encode = |v: &C::T| -> Result<Pre, EncodeError> {
                    let mut up = Vec::new();
                    let r_up = C::encode_bound(v, true, f, &mut up)?;
                    let mut down = Vec::new();
                    let r_down = C::encode_bound(v, false, f, &mut down)?;
                    Ok(Pre {
                        up: (up, r_up),
                        down: (down, r_down),
                    })
                };
                Ok(match b {
                    Bound::Included(v) => Bound::Included(encode(&v)?),
                    Bound::Excluded(v) => Bound::Excluded(encode(&v)?),
                    Bound::Unbounded => Bound::Unbounded,
                })
            };
            let range = match (pre(range.0), pre(range.1)) {
                (Ok(lo), Ok(hi)) => (lo, hi),
                (Err(e), _) | (_, Err(e)) => return parts.fail(e),
            };
            let leading = Leading::unsalted();
            let scan = match (f.is_desc(), C::RAW) {
                (false, false) => {
                    leading.scan_range::<PreCodec<false, false>, Pre>(&range, f.name())
                }
                (true, false) => leading.scan_range::<PreCodec<true, false>, Pre>(&range, f.name()),
                (false, true) => leading.scan_range::<PreCodec<false, true>, Pre>(&range, f.name()),
                (true, true) => leading.scan_range::<PreCodec<true, true>, Pre>(&range, f.name()),
            };
            match scan {
                Ok(scan) => parts.constrain_intervals(i, scan_intervals(&scan)),
                Err(e) => parts.fail(e),
            }
        }
    }
}

/// A scan bound already encoded, rounded up and down: what [`PreCodec`]
/// hands the derive's range code.
pub(super) struct Pre {
    up: (Vec<u8>, Rounded),
    down: (Vec<u8>, Rounded),
}

/// The codec of an encoded bound: `DESC` and `RAW` as the field's codec.
pub(super) struct PreCodec<const DESC: bool, const RAW: bool>;

impl<const DESC: bool, const RAW: bool> FieldCodec<Pre> for PreCodec<DESC, RAW> {
    const FIXED_LEN: Option<usize> = None;
    const MIN_LEN: usize = 0;
    const DESC: bool = DESC;
    const RAW: bool = RAW;
    fn encoded_len(v: &Pre) -> usize {
        v.up.0.len().max(v.down.0.len())
    }
    fn encode(v: &Pre, out: &mut [u8], pos: usize, _: &'static str) -> Result<usize, EncodeError> {
        let b = &v.up.0;
        out[pos..pos + b.len()].copy_from_slice(b);
        Ok(pos + b.len())
    }
    fn encode_bound(
        v: &Pre,
        up: bool,
        out: &mut [u8],
        at: usize,
        _: &'static str,
    ) -> Result<(usize, Rounded), EncodeError> {
        let (b, rounded) = if up { &v.up } else { &v.down };
        out[at..at + b.len()].copy_from_slice(b);
        Ok((at + b.len(), *rounded))
    }
}

/// A field whose bytes sort like its values, so that a range of values is
/// a range of keys: not `#[reverse]`, `#[reverse_domain]`, nor a string
/// between a text key's separators.
pub(crate) fn sorts_by_value(f: &FieldLayout) -> bool {
    !f.is_reverse() && !f.is_reverse_domain() && f.encoding() != Encoding::Delimited
}

pub(super) fn rt_ops<C: RtCodec>(width: FieldWidth) -> Ops
where
    C::T: Show,
{
    rt_ops_reading::<C>(width, rt_read::<C>)
}

/// [`rt_ops`] with its own explain reader.
pub(super) fn rt_ops_reading<C: RtCodec>(width: FieldWidth, read: Reader) -> Ops {
    Ops {
        width,
        encode: rt_encode::<C>,
        decode: rt_decode::<C>,
        read,
        constrain: rt_constrain::<C>,
        modulo: None,
    }
}

/// `#[fixed(N, pad)]`, its width and pad byte from the descriptor.
pub(super) struct PaddedRt<T, D>(PhantomData<(T, D)>);

pub(super) fn padded_params(f: &FieldLayout) -> (usize, u8, bool) {
    match f.encoding() {
        Encoding::Padded { len, pad, desc } => (len, pad, desc),
        _ => unreachable!("padded ops on a field that is not #[fixed]"),
    }
}

impl<T: Owned, D: Direction> PaddedRt<T, D> {
    fn encode_bytes(bytes: &[u8], f: &FieldLayout, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let (n, pad, desc) = padded_params(f);
        write_with(out, n, |o| {
            padded_encode::<D>(bytes, n, pad, desc, o, o.len() - n, f.name())
        })?;
        then_sep(f, out);
        Ok(())
    }
}

impl<T, D> RtCodec for PaddedRt<T, D>
where
    T: KeyBytes + for<'de> VarField<'de> + FromValue + Show + Owned,
    D: Direction,
{
    type T = T;
    fn encode(v: &T, f: &FieldLayout, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        Self::encode_bytes(v.key_bytes(), f, out)
    }
    fn encode_value(v: &Value, f: &FieldLayout, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let b = T::B::borrow(v).ok_or_else(|| wrong(f, T::B::EXPECTED, v))?;
        Self::encode_bytes(b.key_bytes(), f, out)
    }
    /// A bound longer than N bytes: its first N bytes, below it (as
    /// `Padded::encode_bound`).
    fn encode_bound(
        v: &T,
        _up: bool,
        f: &FieldLayout,
        out: &mut Vec<u8>,
    ) -> Result<Rounded, EncodeError> {
        let (n, _, _) = padded_params(f);
        let bytes = v.key_bytes();
        if bytes.len() <= n || D::REV || D::DOMAIN {
            return Self::encode(v, f, out).map(|()| Rounded::Exact);
        }
        Self::encode_bytes(&bytes[..n], f, out)?;
        Ok(Rounded::Below)
    }
    fn decode(input: &[u8], pos: usize, f: &FieldLayout) -> Result<(T, usize), DecodeError> {
        let (n, pad, desc) = padded_params(f);
        let (t, end) = padded_decode::<T, D>(input, pos, n, pad, desc, f.name())?;
        Ok((t, check_sep(input, end, f)?))
    }
}

/// `#[fixed(N, pad)]` (`Padded`), not inside an `Option`.
pub(crate) fn padded<T>(width: usize, dir: Dir) -> Ops
where
    T: KeyBytes + for<'de> VarField<'de> + FromValue + Show + Owned,
{
    let width = FieldWidth::Fixed(width);
    match dir {
        Dir::Fwd => rt_ops::<PaddedRt<T, Fwd>>(width),
        Dir::Rev => rt_ops::<PaddedRt<T, Rev>>(width),
        Dir::Dom => rt_ops::<PaddedRt<T, Dom>>(width),
    }
}

/// A type the runtime does not know, `len` bytes wide: its key bytes as
/// [`Value::Bytes`], written as `Fixed` writes any type's (reversed for
/// `#[reverse]`, inverted for `#[desc]`).
pub(super) struct OpaqueRt;

/// A type the runtime does not know, read as its key bytes.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Opaque(Vec<u8>);

impl FromValue for Opaque {
    const EXPECTED: &'static str = "bytes of the field's width";
    fn from_value(v: &Value) -> Option<Opaque> {
        match v {
            Value::Bytes(b) => Some(Opaque(b.clone())),
            _ => None,
        }
    }
    fn into_value(self) -> Value {
        Value::Bytes(self.0)
    }
}

impl Show for Opaque {
    fn show(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        write!(out, "{}", Value::Bytes(self.0.clone()))
    }
}

pub(super) fn opaque_len(f: &FieldLayout) -> usize {
    match f.width() {
        FieldWidth::Fixed(n) => n - f.sep_len(),
        FieldWidth::Variable { .. } => unreachable!("opaque fields are fixed-width"),
    }
}

impl RtCodec for OpaqueRt {
    type T = Opaque;
    fn encode(v: &Opaque, f: &FieldLayout, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let len = opaque_len(f);
        if v.0.len() != len {
            return Err(EncodeError::WrongValue {
                field: f.name(),
                expected: "bytes of the field's width",
                got: if v.0.len() > len {
                    "longer bytes"
                } else {
                    "shorter bytes"
                },
            });
        }
        let pos = out.len();
        out.extend_from_slice(&v.0);
        let dst = &mut out[pos..];
        if f.is_reverse() {
            dst.reverse();
        }
        if f.is_desc() {
            dst.iter_mut().for_each(|b| *b = !*b);
        }
        then_sep(f, out);
        Ok(())
    }
    fn decode(input: &[u8], pos: usize, f: &FieldLayout) -> Result<(Opaque, usize), DecodeError> {
        let len = opaque_len(f);
        let available = input.len().saturating_sub(pos);
        if available < len {
            return Err(DecodeError::UnexpectedEnd {
                field: f.name(),
                needed: len,
                available,
            });
        }
        let mut b = input[pos..pos + len].to_vec();
        if f.is_desc() {
            b.iter_mut().for_each(|b| *b = !*b);
        }
        if f.is_reverse() {
            b.reverse();
        }
        Ok((Opaque(b), check_sep(input, pos + len, f)?))
    }
}

/// A type the runtime does not know, `len` bytes wide.
pub(crate) fn opaque(len: usize) -> Ops {
    let mut ops = rt_ops::<OpaqueRt>(FieldWidth::Fixed(len));
    ops.read = opaque_read;
    ops
}

/// Explain shows a byte array as explain shows one (`[u8; 3] ...`), another
/// type as its bytes and its name.
pub(super) fn opaque_read(
    input: &[u8],
    pos: usize,
    f: &FieldLayout,
    out: &mut dyn fmt::Write,
) -> Result<(usize, Option<i128>), DecodeError> {
    let (b, end) = OpaqueRt::decode(input, pos, f)?;
    let _ = if f.ty().starts_with("[u8;") {
        write!(out, "[u8; {}] {}", b.0.len(), to_string_binary(&b.0))
    } else {
        write!(out, "{} ({})", Value::Bytes(b.0), f.ty())
    };
    Ok((end, None))
}

/// A text key's integer as decimal digits (`Dec`), its width and order from
/// the descriptor.
pub(super) struct DigitsRt<T, D>(PhantomData<(T, D)>);

pub(super) fn digits_params(f: &FieldLayout) -> (usize, bool) {
    match f.encoding() {
        Encoding::Digits { digits, desc, .. } => (digits, desc),
        _ => unreachable!("digits ops on a field that is not digits"),
    }
}

impl<T: Decimal + FromValue + Show, D: Direction> RtCodec for DigitsRt<T, D> {
    type T = T;
    fn encode(v: &T, f: &FieldLayout, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let (w, desc) = digits_params(f);
        let n = w + usize::from(T::SIGNED);
        write_with(out, n, |o| {
            dec_encode::<T, D>(v, w, desc, o, o.len() - n, f.name())
        })?;
        then_sep(f, out);
        Ok(())
    }
    fn decode(input: &[u8], pos: usize, f: &FieldLayout) -> Result<(T, usize), DecodeError> {
        let (w, desc) = digits_params(f);
        let (t, end) = dec_decode::<T, D>(input, pos, w, desc, f.name())?;
        Ok((t, check_sep(input, end, f)?))
    }
}

/// A text key's integer (`Dec`): `digits` wide, signed types one more.
pub(crate) fn digits<T: Decimal + FromValue + Show>(width: usize, dir: Dir) -> Ops {
    let width = FieldWidth::Fixed(width);
    match dir {
        Dir::Rev => rt_ops::<DigitsRt<T, Rev>>(width),
        _ => rt_ops::<DigitsRt<T, Fwd>>(width),
    }
}

/// [`digits`] for an unsigned integer, which a `mod` salt may take.
pub(crate) fn unsigned_digits<T>(width: usize, dir: Dir) -> Ops
where
    T: Decimal + FromValue + Show + ModSalt,
{
    let mut ops = digits::<T>(width, dir);
    ops.modulo = Some(modulo::<T>);
    ops
}

/// A text key's `#[desc_ts]`: `max - ts` in digits (`TextDescTs`).
pub(super) struct TextDescTsRt<T>(PhantomData<T>);

pub(super) fn desc_ts_params(f: &FieldLayout) -> (usize, u64) {
    match f.encoding() {
        Encoding::DescTsDigits { digits, max } => (digits, max),
        _ => unreachable!("desc_ts digits ops on another field"),
    }
}

impl<T: Decimal<Mag = u64> + FromValue + Show> RtCodec for TextDescTsRt<T> {
    type T = T;
    fn encode(v: &T, f: &FieldLayout, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let (w, max) = desc_ts_params(f);
        write_with(out, w, |o| {
            text_desc_ts_encode(v, w, max, o, o.len() - w, f.name())
        })?;
        then_sep(f, out);
        Ok(())
    }
    fn decode(input: &[u8], pos: usize, f: &FieldLayout) -> Result<(T, usize), DecodeError> {
        let (w, max) = desc_ts_params(f);
        let (t, end) = text_desc_ts_decode::<T>(input, pos, w, max, f.name())?;
        Ok((t, check_sep(input, end, f)?))
    }
}

/// A text key's `#[desc_ts]` field.
pub(crate) fn text_desc_ts<T: Decimal<Mag = u64> + FromValue + Show>(width: usize) -> Ops {
    rt_ops::<TextDescTsRt<T>>(FieldWidth::Fixed(width))
}

/// A text key's string that is not the last field, up to the separator
/// (`Delimited`).
pub(super) struct DelimitedRt<T, D>(PhantomData<(T, D)>);

impl<T: Owned, D: Direction> DelimitedRt<T, D> {
    fn encode_bytes(bytes: &[u8], f: &FieldLayout, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let n = bytes.len() + f.sep().len();
        write_with(out, n, |o| {
            delimited_encode::<D>(bytes, f.sep(), o, o.len() - n, f.name())
        })
    }
}

impl<T, D> RtCodec for DelimitedRt<T, D>
where
    T: KeyBytes + for<'de> VarField<'de> + FromValue + Show + Owned,
    D: Direction,
{
    type T = T;
    fn encode(v: &T, f: &FieldLayout, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        Self::encode_bytes(v.key_bytes(), f, out)
    }
    fn encode_value(v: &Value, f: &FieldLayout, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let b = T::B::borrow(v).ok_or_else(|| wrong(f, T::B::EXPECTED, v))?;
        Self::encode_bytes(b.key_bytes(), f, out)
    }
    fn decode(input: &[u8], pos: usize, f: &FieldLayout) -> Result<(T, usize), DecodeError> {
        delimited_decode::<T, D>(input, pos, f.sep(), f.name())
    }
}

/// A text key's string that is not the last field.
pub(crate) fn delimited<T>(dir: Dir) -> Ops
where
    T: KeyBytes + for<'de> VarField<'de> + FromValue + Show + Owned,
{
    // The derive's descriptor: variable, at least the separator.
    match dir {
        Dir::Dom => rt_ops::<DelimitedRt<T, Dom>>(FieldWidth::Variable { min: 0 }),
        _ => rt_ops::<DelimitedRt<T, Fwd>>(FieldWidth::Variable { min: 0 }),
    }
}

/// A type the runtime knows by name (a UUID, a ULID, an IP address) in a
/// binary key: its own `FixedField` codec (in `Option` and `added`
/// wrappers as the derive puts them), shown by explain as the derive shows
/// it (`read_opaque`).
pub(crate) fn known<T: crate::FixedField + FromValue>(
    desc: bool,
    dir: Dir,
    option: bool,
    added: bool,
) -> Ops {
    fixed_shown::<T, Described>(desc, dir, option, added)
}

/// The same type in a text key: its text form (`Chars`), then the
/// separator.
pub(super) struct CharsRt<T, D>(PhantomData<(T, D)>);

impl<T: TextForm + FromValue, D: Direction> RtCodec for CharsRt<T, D> {
    type T = T;
    fn encode(v: &T, f: &FieldLayout, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let n = T::TEXT_LEN;
        write_with(out, n, |o| {
            <Chars<D> as FieldCodec<T>>::encode(v, o, o.len() - n, f.name())
        })?;
        then_sep(f, out);
        Ok(())
    }
    fn decode(input: &[u8], pos: usize, f: &FieldLayout) -> Result<(T, usize), DecodeError> {
        let (t, end) = <Chars<D> as FieldDecode<'_, T>>::decode(input, pos, f.name())?;
        Ok((t, check_sep(input, end, f)?))
    }
}

/// Explain's reader for a text form: the derive's, then the separator.
pub(super) fn chars_read<T: TextForm, D: Direction>(
    input: &[u8],
    pos: usize,
    f: &FieldLayout,
    out: &mut dyn fmt::Write,
) -> Result<(usize, Option<i128>), DecodeError> {
    let (end, _) = read_opaque::<Chars<D>, T>(input, pos, f, out)?;
    Ok((check_sep(input, end, f)?, None))
}

/// A type the runtime knows by name in a text key: `width` is its text's
/// length and the separator.
pub(crate) fn known_text<T: TextForm + FromValue>(width: usize, dir: Dir) -> Ops {
    let width = FieldWidth::Fixed(width);
    match dir {
        Dir::Rev => rt_ops_reading::<CharsRt<T, Rev>>(width, chars_read::<T, Rev>),
        _ => rt_ops_reading::<CharsRt<T, Fwd>>(width, chars_read::<T, Fwd>),
    }
}

/// `Option` around a run-time codec `C` (the derive's `Opt`, and `Added`
/// for an added field), its order and `added` from the descriptor: `00`
/// and the inner width of zero padding for `None`, `01` and the value for
/// `Some`, every byte inverted when descending (the inner codec inverts
/// its own). An added field is absent at the end of an older key, and a
/// key ending with its `None` tag is refused, as the derive refuses it.
pub(super) struct OptRt<C>(PhantomData<C>);

/// The inner codec's width: the `None` padding.
pub(super) fn inner_len(f: &FieldLayout) -> usize {
    match f.width() {
        FieldWidth::Fixed(n) => n - 1,
        FieldWidth::Variable { .. } => unreachable!("OptRt wraps fixed-width codecs"),
    }
}

impl<C: RtCodec> RtCodec for OptRt<C> {
    type T = Option<C::T>;
    fn encode(v: &Option<C::T>, f: &FieldLayout, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let flip = if f.is_desc() { 0xFF } else { 0 };
        match v {
            Some(v) => {
                out.push(1 ^ flip);
                C::encode(v, f, out)
            }
            None => {
                out.push(flip);
                out.resize(out.len() + inner_len(f), flip);
                Ok(())
            }
        }
    }
    fn encode_bound(
        v: &Option<C::T>,
        up: bool,
        f: &FieldLayout,
        out: &mut Vec<u8>,
    ) -> Result<Rounded, EncodeError> {
        match v {
            Some(inner) => {
                out.push(1 ^ if f.is_desc() { 0xFF } else { 0 });
                C::encode_bound(inner, up, f, out)
            }
            None => Self::encode(v, f, out).map(|()| Rounded::Exact),
        }
    }
    fn decode(
        input: &[u8],
        pos: usize,
        f: &FieldLayout,
    ) -> Result<(Option<C::T>, usize), DecodeError> {
        let field = f.name();
        if f.is_added() && pos == input.len() {
            return Ok((None, pos));
        }
        let flip = if f.is_desc() { 0xFF } else { 0 };
        let Some(&tag) = input.get(pos) else {
            return Err(DecodeError::UnexpectedEnd {
                field,
                needed: 1,
                available: 0,
            });
        };
        match tag ^ flip {
            1 => {
                let (v, end) = C::decode(input, pos + 1, f)?;
                Ok((Some(v), end))
            }
            0 => {
                let n = inner_len(f);
                let padding =
                    input
                        .get(pos + 1..pos + 1 + n)
                        .ok_or(DecodeError::UnexpectedEnd {
                            field,
                            needed: n + 1,
                            available: input.len() - pos,
                        })?;
                if padding.iter().any(|&b| b != flip) {
                    return Err(DecodeError::InvalidPadding { field });
                }
                let end = pos + 1 + n;
                if f.is_added() && end == input.len() {
                    return Err(DecodeError::InvalidValue {
                        field,
                        reason: crate::format::codec::TRAILING_NONE,
                    });
                }
                Ok((None, end))
            }
            byte => Err(DecodeError::InvalidOptionTag { field, byte }),
        }
    }
}

/// `Option` of a `#[fixed(N)]` string or byte string (added or not).
pub(crate) fn padded_option<T>(width: usize, dir: Dir) -> Ops
where
    T: KeyBytes + for<'de> VarField<'de> + FromValue + Show + Owned,
    Option<T>: FromValue + Show,
{
    let width = FieldWidth::Fixed(width + 1);
    match dir {
        Dir::Fwd => rt_ops::<OptRt<PaddedRt<T, Fwd>>>(width),
        Dir::Rev => rt_ops::<OptRt<PaddedRt<T, Rev>>>(width),
        Dir::Dom => rt_ops::<OptRt<PaddedRt<T, Dom>>>(width),
    }
}
