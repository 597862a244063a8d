//! A run-time field's operations: the derive's own codec types,
//! monomorphized here for every built-in field type and set of attributes
//! and picked by a `match` when a layout is parsed, so that a
//! [`DynLayout`](crate::DynLayout) writes the bytes `#[derive(RowKey)]`
//! writes by running the same code. Codecs with const parameters
//! (`#[fixed(N)]`, a text key's digits and separator) run the functions
//! those codecs call, with the parameters read from the field's descriptor
//! (`RtCodec`).

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use core::ops::Bound;

use super::value::{Borrowed, FromValue, Owned, Value};
use crate::format::binary::to_string_binary;
use crate::format::codec::{
    padded_decode, padded_encode, Added, Asc, Desc, DescTs, Direction, Dom, Escaped, FieldCodec,
    FieldDecode, FilterSink, Fixed, Fwd, Opt, Raw, Rev, Rounded, Var,
};
use crate::format::error::{DecodeError, EncodeError};
use crate::format::field::{KeyBytes, VarField};
use crate::format::ordered_code::{Int64Field, Last, OcInt, OcStr, Term};
use crate::format::text::{
    dec_decode, dec_encode, delimited_decode, delimited_encode, text_desc_ts_decode,
    text_desc_ts_encode, Chars, Decimal, ModSalt, TextForm,
};
use crate::layout::explain::{read, read_opaque, Show};
use crate::layout::{Encoding, FieldLayout, FieldWidth, Reader};
use crate::scan::filter::{any_of, scan_intervals, FilterParts};
use crate::scan::leading::Leading;

/// What a run-time predicate on one field allows.
#[derive(Clone, Debug)]
pub(crate) enum Pred {
    /// Any of these values.
    Values(Vec<Value>),
    /// The values in this range (in value order, as `range_by_*` takes it).
    Range(Bound<Value>, Bound<Value>),
}

/// Appends a value's encoding to the key.
type EncodeFn = fn(&Value, &mut Vec<u8>, &FieldLayout) -> Result<(), EncodeError>;
/// Decodes the field at `pos`: the value and the position after it.
type DecodeFn = fn(&[u8], usize, &FieldLayout) -> Result<(Value, usize), DecodeError>;
/// Adds a predicate on field `i` to a filter under construction.
type ConstrainFn = fn(FilterParts, usize, Pred, &FieldLayout) -> FilterParts;
/// A `mod` salt's bucket of a value.
type ModuloFn = fn(&Value, u16, &FieldLayout) -> Result<u8, EncodeError>;

/// One field's operations, each a function of the field's descriptor (a
/// `#[fixed(N)]` field reads its width from it).
#[derive(Clone, Copy)]
pub(crate) struct Ops {
    pub width: FieldWidth,
    pub encode: EncodeFn,
    pub decode: DecodeFn,
    pub read: Reader,
    pub constrain: ConstrainFn,
    /// `#[salt(hash = "mod")]`: the bucket of an unsigned integer.
    pub modulo: Option<ModuloFn>,
}

fn wrong(f: &FieldLayout, expected: &'static str, v: &Value) -> EncodeError {
    EncodeError::WrongValue {
        field: f.name(),
        expected,
        got: v.kind(),
    }
}

fn value_of<T: FromValue>(v: &Value, f: &FieldLayout) -> Result<T, EncodeError> {
    T::from_value(v).ok_or_else(|| wrong(f, T::EXPECTED, v))
}

fn encode<C: FieldCodec<T>, T: FromValue>(
    v: &Value,
    out: &mut Vec<u8>,
    f: &FieldLayout,
) -> Result<(), EncodeError> {
    let t: T = value_of(v, f)?;
    let pos = out.len();
    out.resize(pos + C::encoded_len(&t), 0);
    let end = C::encode(&t, out, pos, f.name())?;
    out.truncate(end);
    Ok(())
}

/// [`encode`] for a string or byte string, borrowed from the value.
fn encode_borrowed<C: FieldCodec<B>, B: ?Sized + Borrowed>(
    v: &Value,
    out: &mut Vec<u8>,
    f: &FieldLayout,
) -> Result<(), EncodeError> {
    let b = B::borrow(v).ok_or_else(|| wrong(f, B::EXPECTED, v))?;
    let pos = out.len();
    out.resize(pos + C::encoded_len(b), 0);
    let end = C::encode(b, out, pos, f.name())?;
    out.truncate(end);
    Ok(())
}

fn decode<C: for<'de> FieldDecode<'de, T>, T: FromValue>(
    input: &[u8],
    pos: usize,
    f: &FieldLayout,
) -> Result<(Value, usize), DecodeError> {
    let (t, end) = C::decode(input, pos, f.name())?;
    Ok((t.into_value(), end))
}

fn bound<T: FromValue>(b: Bound<Value>, f: &FieldLayout) -> Result<Bound<T>, EncodeError> {
    Ok(match b {
        Bound::Included(v) => Bound::Included(value_of(&v, f)?),
        Bound::Excluded(v) => Bound::Excluded(value_of(&v, f)?),
        Bound::Unbounded => Bound::Unbounded,
    })
}

fn constrain<C: FieldCodec<T>, T: FromValue>(
    parts: FilterParts,
    i: usize,
    pred: Pred,
    f: &FieldLayout,
) -> FilterParts {
    match pred {
        Pred::Values(vs) => match vs
            .iter()
            .map(|v| value_of::<T>(v, f))
            .collect::<Result<Vec<T>, _>>()
        {
            Ok(ts) => FilterSink::<T, _>::constrain::<C>(parts, i, any_of(ts), f.name()),
            Err(e) => parts.fail(e),
        },
        // The derive allows no range here (`ValuePredicate`): neither does
        // the runtime.
        Pred::Range(..) if !sorts_by_value(f) => parts.fail_unsupported(f.name()),
        Pred::Range(lo, hi) => match (bound::<T>(lo, f), bound::<T>(hi, f)) {
            (Ok(lo), Ok(hi)) => FilterSink::<T, _>::constrain::<C>(parts, i, (lo, hi), f.name()),
            (Err(e), _) | (_, Err(e)) => parts.fail(e),
        },
    }
}

fn modulo<T: FromValue + ModSalt>(
    v: &Value,
    buckets: u16,
    f: &FieldLayout,
) -> Result<u8, EncodeError> {
    value_of::<T>(v, f).map(|t| t.bucket(buckets))
}

/// How explain shows a field's value: [`Shown`] (the value itself, as
/// the derive shows a built-in type) or [`Described`] (its description and
/// type name, as the derive shows an IP address or a UUID).
trait Shows<T> {
    fn reader<C: for<'de> FieldDecode<'de, T>>() -> Reader;
}

/// The value itself (`read`).
enum Shown {}

impl<T: Show> Shows<T> for Shown {
    fn reader<C: for<'de> FieldDecode<'de, T>>() -> Reader {
        read::<C, T>
    }
}

/// The value's description and type name (`read_opaque`).
enum Described {}

impl<T> Shows<T> for Described {
    fn reader<C: for<'de> FieldDecode<'de, T>>() -> Reader {
        read_opaque::<C, T>
    }
}

/// The operations of codec `C` over values of type `T`, shown as `R`
/// says.
fn ops<C, T, R>() -> Ops
where
    C: FieldCodec<T> + for<'de> FieldDecode<'de, T>,
    T: FromValue,
    R: Shows<T>,
{
    Ops {
        width: C::LAYOUT_WIDTH,
        encode: encode::<C, T>,
        decode: decode::<C, T>,
        read: R::reader::<C>(),
        constrain: constrain::<C, T>,
        modulo: None,
    }
}

/// `ops`, with the `Option` and `#[rowkey(added)]` wrappers the derive
/// puts around the codec.
fn wrapped<C, T, R>(desc: bool, option: bool, added: bool) -> Ops
where
    C: FieldCodec<T> + for<'de> FieldDecode<'de, T>,
    T: FromValue,
    R: Shows<T> + Shows<Option<T>>,
{
    match (option, added, desc) {
        (true, false, false) => ops::<Opt<C, Asc>, Option<T>, R>(),
        (true, false, true) => ops::<Opt<C, Desc>, Option<T>, R>(),
        (true, true, false) => ops::<Added<Opt<C, Asc>>, Option<T>, R>(),
        (true, true, true) => ops::<Added<Opt<C, Desc>>, Option<T>, R>(),
        (false, ..) => ops::<C, T, R>(),
    }
}

/// Which way a field's bytes run (`#[reverse]`, `#[reverse_domain]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dir {
    Fwd,
    Rev,
    Dom,
}

/// A fixed-width built-in type under `#[desc]`/`#[reverse]` (`Fixed`).
pub(crate) fn fixed<T>(desc: bool, dir: Dir, option: bool, added: bool) -> Ops
where
    T: crate::FixedField + FromValue + Show,
{
    fixed_shown::<T, Shown>(desc, dir, option, added)
}

/// [`fixed`], shown as `R` says.
fn fixed_shown<T, R>(desc: bool, dir: Dir, option: bool, added: bool) -> Ops
where
    T: crate::FixedField + FromValue,
    R: Shows<T> + Shows<Option<T>>,
{
    match (desc, dir) {
        (false, Dir::Rev) => wrapped::<Fixed<Asc, Rev>, T, R>(desc, option, added),
        (true, Dir::Rev) => wrapped::<Fixed<Desc, Rev>, T, R>(desc, option, added),
        (false, _) => wrapped::<Fixed<Asc, Fwd>, T, R>(desc, option, added),
        (true, _) => wrapped::<Fixed<Desc, Fwd>, T, R>(desc, option, added),
    }
}

/// [`fixed`] for an unsigned integer, which a `mod` salt may take.
pub(crate) fn unsigned<T>(desc: bool, dir: Dir, option: bool, added: bool) -> Ops
where
    T: crate::FixedField + FromValue + Show + ModSalt,
{
    let mut ops = fixed::<T>(desc, dir, option, added);
    if !option {
        ops.modulo = Some(modulo::<T>);
    }
    ops
}

/// `#[desc_ts]` on `i64`, `u64`, `i32`, `u32` (or a timestamp's `i64`).
pub(crate) fn desc_ts<T>(option: bool, added: bool) -> Ops
where
    T: crate::DescTimestamp + FromValue + Show,
{
    wrapped::<DescTs, T, Shown>(true, option, added)
}

/// A string or byte string, escaped or raw (`Var`).
pub(crate) fn var<T>(raw: bool, desc: bool, dir: Dir, option: bool, added: bool) -> Ops
where
    T: crate::KeyBytes + for<'de> crate::VarField<'de> + FromValue + Show + Owned,
{
    // A value that is no `Option` is encoded from the `Value`'s own bytes.
    macro_rules! one {
        ($c:ty) => {{
            let mut ops = wrapped::<$c, T, Shown>(desc, option, added);
            if !option {
                ops.encode = encode_borrowed::<$c, T::B>;
            }
            ops
        }};
    }
    macro_rules! pick {
        ($frame:ty) => {
            match (desc, dir) {
                (false, Dir::Fwd) => one!(Var<$frame, Asc, Fwd>),
                (false, Dir::Rev) => one!(Var<$frame, Asc, Rev>),
                (false, Dir::Dom) => one!(Var<$frame, Asc, Dom>),
                (true, Dir::Fwd) => one!(Var<$frame, Desc, Fwd>),
                (true, Dir::Rev) => one!(Var<$frame, Desc, Rev>),
                (true, Dir::Dom) => one!(Var<$frame, Desc, Dom>),
            }
        };
    }
    if raw {
        pick!(Raw)
    } else {
        pick!(Escaped)
    }
}

/// A codec whose parameters (a `#[fixed(N)]` width, a text key's digits
/// and separator) a run-time layout knows only at run time: each function
/// reads them from the field's descriptor and calls the one implementation
/// the const codec calls too. A field of a text key but the last is
/// followed by the separator (the derive's `Then`), which these write and
/// check.
trait RtCodec {
    /// The value type.
    type T: FromValue;
    /// Appends `v`'s encoding.
    fn encode(v: &Self::T, f: &FieldLayout, out: &mut Vec<u8>) -> Result<(), EncodeError>;
    /// A scan bound's encoding (see `FieldCodec::encode_bound`).
    fn encode_bound(
        v: &Self::T,
        up: bool,
        f: &FieldLayout,
        out: &mut Vec<u8>,
    ) -> Result<Rounded, EncodeError> {
        let _ = up;
        Self::encode(v, f, out).map(|()| Rounded::Exact)
    }
    /// The value at `pos` and the position after it.
    fn decode(input: &[u8], pos: usize, f: &FieldLayout) -> Result<(Self::T, usize), DecodeError>;
    /// Appends the encoding of a [`Value`] (a string codec borrows its
    /// bytes rather than convert it).
    fn encode_value(v: &Value, f: &FieldLayout, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let t: Self::T = value_of(v, f)?;
        Self::encode(&t, f, out)
    }
    /// Stored raw to the end of the key.
    const RAW: bool = false;
}

/// Appends the separator after a text key's field that is not the last.
fn then_sep(f: &FieldLayout, out: &mut Vec<u8>) {
    if f.sep_len() > 0 {
        out.extend_from_slice(f.sep());
    }
}

/// Checks the separator after a text key's field: the position after it.
fn check_sep(input: &[u8], p: usize, f: &FieldLayout) -> Result<usize, DecodeError> {
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
fn write_with(
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

fn rt_encode<C: RtCodec>(v: &Value, out: &mut Vec<u8>, f: &FieldLayout) -> Result<(), EncodeError> {
    C::encode_value(v, f, out)
}

fn rt_decode<C: RtCodec>(
    input: &[u8],
    pos: usize,
    f: &FieldLayout,
) -> Result<(Value, usize), DecodeError> {
    C::decode(input, pos, f).map(|(t, end)| (t.into_value(), end))
}

fn rt_read<C: RtCodec>(
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

fn rt_constrain<C: RtCodec>(
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
struct Pre {
    up: (Vec<u8>, Rounded),
    down: (Vec<u8>, Rounded),
}

/// The codec of an encoded bound: `DESC` and `RAW` as the field's codec.
struct PreCodec<const DESC: bool, const RAW: bool>;

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

fn rt_ops<C: RtCodec>(width: FieldWidth) -> Ops
where
    C::T: Show,
{
    rt_ops_reading::<C>(width, rt_read::<C>)
}

/// [`rt_ops`] with its own explain reader.
fn rt_ops_reading<C: RtCodec>(width: FieldWidth, read: Reader) -> Ops {
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
struct PaddedRt<T, D>(PhantomData<(T, D)>);

fn padded_params(f: &FieldLayout) -> (usize, u8, bool) {
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
struct OpaqueRt;

/// A type the runtime does not know, read as its key bytes.
#[derive(Clone, Debug, PartialEq)]
struct Opaque(Vec<u8>);

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

fn opaque_len(f: &FieldLayout) -> usize {
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
fn opaque_read(
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
struct DigitsRt<T, D>(PhantomData<(T, D)>);

fn digits_params(f: &FieldLayout) -> (usize, bool) {
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
struct TextDescTsRt<T>(PhantomData<T>);

fn desc_ts_params(f: &FieldLayout) -> (usize, u64) {
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
struct DelimitedRt<T, D>(PhantomData<(T, D)>);

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
struct CharsRt<T, D>(PhantomData<(T, D)>);

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
fn chars_read<T: TextForm, D: Direction>(
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

/// A timestamp field of a type the runtime knows by name (chrono's
/// `DateTime<Utc>`, time's `OffsetDateTime` and `PrimitiveDateTime`,
/// `jiff::Timestamp`): its value is the `i64` of its unit and its bytes
/// are the `i64` codec's (`base`), as `Ts` writes them; decoding goes
/// through `Ts` and the type itself (so a tick the type cannot hold is the
/// derive's error), and explain shows the time as the derive does; in
/// the `Option` and `added` wrappers as the derive puts them.
#[cfg(any(feature = "chrono", feature = "time", feature = "jiff"))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn time<T: crate::TimeField>(
    base: Ops,
    unit: crate::TimeUnit,
    desc_ts: bool,
    desc: bool,
    dir: Dir,
    option: bool,
    added: bool,
) -> Ops {
    use crate::format::timestamp::{Micros, Millis, Nanos, Secs, Ts};

    /// The derive's codec `C` over the time type `T` checks the bytes and
    /// shows the value; the `i64` codec `B` (the same bytes) gives it.
    fn with<C, T, B, I>(base: Ops) -> Ops
    where
        C: for<'de> FieldDecode<'de, T>,
        B: for<'de> FieldDecode<'de, I>,
        I: FromValue,
    {
        fn decode<C, T, B, I>(
            input: &[u8],
            pos: usize,
            f: &FieldLayout,
        ) -> Result<(Value, usize), DecodeError>
        where
            C: for<'de> FieldDecode<'de, T>,
            B: for<'de> FieldDecode<'de, I>,
            I: FromValue,
        {
            C::decode(input, pos, f.name())?;
            let (ticks, end) = B::decode(input, pos, f.name())?;
            Ok((ticks.into_value(), end))
        }
        Ops {
            decode: decode::<C, T, B, I>,
            read: read_opaque::<C, T>,
            ..base
        }
    }
    // The Option's order follows the field's, `desc_ts` included.
    let opt_desc = desc || desc_ts;
    macro_rules! wrap {
        ($u:ty, $b:ty) => {
            match (option, added, opt_desc) {
                (false, ..) => with::<Ts<$u, $b>, T, $b, i64>(base),
                (true, false, false) => {
                    with::<Opt<Ts<$u, $b>, Asc>, Option<T>, Opt<$b, Asc>, Option<i64>>(base)
                }
                (true, false, true) => {
                    with::<Opt<Ts<$u, $b>, Desc>, Option<T>, Opt<$b, Desc>, Option<i64>>(base)
                }
                (true, true, false) => with::<
                    Added<Opt<Ts<$u, $b>, Asc>>,
                    Option<T>,
                    Added<Opt<$b, Asc>>,
                    Option<i64>,
                >(base),
                (true, true, true) => with::<
                    Added<Opt<Ts<$u, $b>, Desc>>,
                    Option<T>,
                    Added<Opt<$b, Desc>>,
                    Option<i64>,
                >(base),
            }
        };
    }
    macro_rules! unit {
        ($u:ty) => {
            match (desc_ts, desc, dir) {
                (true, ..) => wrap!($u, DescTs),
                (false, false, Dir::Rev) => wrap!($u, Fixed<Asc, Rev>),
                (false, true, Dir::Rev) => wrap!($u, Fixed<Desc, Rev>),
                (false, false, _) => wrap!($u, Fixed<Asc, Fwd>),
                (false, true, _) => wrap!($u, Fixed<Desc, Fwd>),
            }
        };
    }
    match unit {
        crate::TimeUnit::Secs => unit!(Secs),
        crate::TimeUnit::Millis => unit!(Millis),
        crate::TimeUnit::Micros => unit!(Micros),
        crate::TimeUnit::Nanos => unit!(Nanos),
    }
}

/// [`time`] in a text key: the digits (`Dec`, `TextDescTs`) read at run
/// time, the value checked and shown through the type as `Ts` does.
#[cfg(any(feature = "chrono", feature = "time", feature = "jiff"))]
pub(crate) fn text_time<T: crate::TimeField>(
    base: Ops,
    unit: crate::TimeUnit,
    desc_ts: bool,
    dir: Dir,
) -> Ops {
    use crate::format::timestamp::{Micros, Millis, Nanos, Secs, Unit};

    fn time_of<T: crate::TimeField, U: Unit>(
        ticks: i64,
        f: &FieldLayout,
    ) -> Result<T, DecodeError> {
        T::from_instant(U::UNIT.instant(ticks)).map_err(|_| DecodeError::InvalidValue {
            field: f.name(),
            reason: "the stored timestamp is outside the range of the field's type",
        })
    }
    fn decode<B: RtCodec<T = i64>, T: crate::TimeField, U: Unit>(
        input: &[u8],
        pos: usize,
        f: &FieldLayout,
    ) -> Result<(Value, usize), DecodeError> {
        let (ticks, end) = B::decode(input, pos, f)?;
        time_of::<T, U>(ticks, f)?;
        Ok((Value::I64(ticks), end))
    }
    fn read<B: RtCodec<T = i64>, T: crate::TimeField, U: Unit>(
        input: &[u8],
        pos: usize,
        f: &FieldLayout,
        out: &mut dyn fmt::Write,
    ) -> Result<(usize, Option<i128>), DecodeError> {
        let (ticks, end) = B::decode(input, pos, f)?;
        let t = time_of::<T, U>(ticks, f)?;
        let mut described = alloc::string::String::new();
        let _ = t.describe(&mut described);
        crate::layout::explain::show_described::<T>(&described, out);
        Ok((end, None))
    }
    fn with<B: RtCodec<T = i64>, T: crate::TimeField, U: Unit>(base: Ops) -> Ops {
        Ops {
            decode: decode::<B, T, U>,
            read: read::<B, T, U>,
            ..base
        }
    }
    macro_rules! unit {
        ($u:ty) => {
            match (desc_ts, dir) {
                (true, _) => with::<TextDescTsRt<i64>, T, $u>(base),
                (false, Dir::Rev) => with::<DigitsRt<i64, Rev>, T, $u>(base),
                (false, _) => with::<DigitsRt<i64, Fwd>, T, $u>(base),
            }
        };
    }
    match unit {
        crate::TimeUnit::Secs => unit!(Secs),
        crate::TimeUnit::Millis => unit!(Millis),
        crate::TimeUnit::Micros => unit!(Micros),
        crate::TimeUnit::Nanos => unit!(Nanos),
    }
}

/// Extends a scan's leading fields by a value (an ordered-code field's
/// `FieldCodec::extend`, typed from the `Value`).
pub(crate) type PushFn = fn(Leading, &Value, &FieldLayout) -> Result<Leading, EncodeError>;
/// The scan of the rows under a prefix whose next field is in a range
/// (its `FieldCodec::scan_range`).
pub(crate) type RangeFn =
    fn(Leading, Bound<Value>, Bound<Value>, &FieldLayout) -> Result<crate::Scan, EncodeError>;

/// An ordered-code field's operations: `term` as a field that another
/// follows in the key, `last` as the last one a key writes (the derive's
/// `__K<i>` and `__L<i>`), and its scan steps (the derive's, which keep the
/// lowest key of a prefix: an ordered-code `Leading`).
#[derive(Clone, Copy)]
pub(crate) struct OcOps {
    pub term: Ops,
    pub last: Ops,
    pub push: PushFn,
    pub range: RangeFn,
}

fn oc_push<C: FieldCodec<T>, T: FromValue>(
    l: Leading,
    v: &Value,
    f: &FieldLayout,
) -> Result<Leading, EncodeError> {
    let t: T = value_of(v, f)?;
    C::extend(l, &t, f.name())
}

fn oc_range<C: FieldCodec<T>, T: FromValue>(
    l: Leading,
    lo: Bound<Value>,
    hi: Bound<Value>,
    f: &FieldLayout,
) -> Result<crate::Scan, EncodeError> {
    let range = (bound::<T>(lo, f)?, bound::<T>(hi, f)?);
    C::scan_range(l, &range, f.name())
}

/// A filter asked of an ordered-code field: it has none.
fn no_filter(parts: FilterParts, _: usize, _: Pred, _: &FieldLayout) -> FilterParts {
    let layout = parts.layout_name();
    parts.fail(EncodeError::NoFilter { layout })
}

/// [`OcOps`] of the codecs `Term` and `Last` (`T` the value type), the
/// string ones encoding from the `Value`'s own bytes (`B`).
fn oc_ops<Term, Last, T>() -> OcOps
where
    Term: FieldCodec<T> + for<'de> FieldDecode<'de, T>,
    Last: FieldCodec<T> + for<'de> FieldDecode<'de, T>,
    T: FromValue + Show,
{
    let no_filter_ops = |mut ops: Ops| {
        ops.constrain = no_filter;
        ops
    };
    OcOps {
        term: no_filter_ops(ops::<Term, T, Shown>()),
        last: no_filter_ops(ops::<Last, T, Shown>()),
        push: oc_push::<Term, T>,
        range: oc_range::<Term, T>,
    }
}

/// An ordered-code `Int64` field of type `T` (`i64`, `i8` to `i32`, `u8` to
/// `u32`); a descending one is terminated even when last.
pub(crate) fn oc_int<T>(desc: bool) -> OcOps
where
    T: Int64Field + FromValue + Show,
{
    if desc {
        oc_ops::<OcInt<Desc, Term>, OcInt<Desc, Term>, T>()
    } else {
        oc_ops::<OcInt<Asc, Term>, OcInt<Asc, Last>, T>()
    }
}

/// [`oc_int`] for an unsigned type, which a `mod` salt may take.
pub(crate) fn oc_uint<T>(desc: bool) -> OcOps
where
    T: Int64Field + FromValue + Show + ModSalt,
{
    let mut ops = oc_int::<T>(desc);
    ops.term.modulo = Some(modulo::<T>);
    ops.last.modulo = Some(modulo::<T>);
    ops
}

/// An ordered-code `String` (`T` = `String`) or `Bytes` (`Vec<u8>`) field.
pub(crate) fn oc_str<T>(desc: bool) -> OcOps
where
    T: crate::KeyBytes + for<'de> crate::VarField<'de> + FromValue + Show + Owned,
{
    let mut ops = if desc {
        oc_ops::<OcStr<Desc, Term>, OcStr<Desc, Term>, T>()
    } else {
        oc_ops::<OcStr<Asc, Term>, OcStr<Asc, Last>, T>()
    };
    if desc {
        ops.term.encode = encode_borrowed::<OcStr<Desc, Term>, T::B>;
        ops.last.encode = ops.term.encode;
    } else {
        ops.term.encode = encode_borrowed::<OcStr<Asc, Term>, T::B>;
        ops.last.encode = encode_borrowed::<OcStr<Asc, Last>, T::B>;
    }
    ops
}

/// `Option` around a run-time codec `C` (the derive's `Opt`, and `Added`
/// for an added field), its order and `added` from the descriptor: `00`
/// and the inner width of zero padding for `None`, `01` and the value for
/// `Some`, every byte inverted when descending (the inner codec inverts
/// its own). An added field is absent at the end of an older key, and a
/// key ending with its `None` tag is refused, as the derive refuses it.
struct OptRt<C>(PhantomData<C>);

/// The inner codec's width: the `None` padding.
fn inner_len(f: &FieldLayout) -> usize {
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

/// A `#[derive(KeyField)]` enum's repr integer `T` (or `Option<T>`), as
/// the key stores it: read as the integer, but only a discriminant of one
/// of the enum's variants (the field's [`KeyFieldInfo`]) is a value of it,
/// as the enum's own `from_key_bytes` decides in a derived type.
///
/// [`KeyFieldInfo`]: crate::KeyFieldInfo
pub(crate) trait EnumInt {
    /// The discriminant, `None` for `None`.
    fn discriminant(&self) -> Option<i128>;
}

macro_rules! enum_int {
    ($($t:ty),*) => {$(
        impl EnumInt for $t {
            fn discriminant(&self) -> Option<i128> {
                Some(*self as i128)
            }
        }
    )*};
}
enum_int!(u8, u16, u32, u64, u128, i8, i16, i32, i64, i128);

impl<T: EnumInt> EnumInt for Option<T> {
    fn discriminant(&self) -> Option<i128> {
        self.as_ref().and_then(EnumInt::discriminant)
    }
}

fn variants(f: &FieldLayout) -> &crate::KeyFieldInfo {
    f.key_field()
        .expect("enum ops on a field with its variants")
}

/// The variant of a discriminant, or the enum's own error.
fn variant_of(d: i128, f: &FieldLayout) -> Result<&'static str, DecodeError> {
    let info = variants(f);
    info.variant(d).ok_or(DecodeError::InvalidValue {
        field: f.name(),
        reason: info.invalid(),
    })
}

/// Refuses an enum value that is no variant's discriminant (`got`: what
/// it was given).
fn check_variant(x: &impl EnumInt, f: &FieldLayout, got: &'static str) -> Result<(), EncodeError> {
    match x.discriminant() {
        Some(d) if variants(f).variant(d).is_none() => Err(EncodeError::WrongValue {
            field: f.name(),
            expected: "the discriminant of one of the enum's variants",
            got,
        }),
        _ => Ok(()),
    }
}

/// Explain shows the variant and the type, as the derive shows a
/// `KeyField` enum: `View (Kind)`, `None (Option<Kind>)`.
fn show_variant(
    x: &impl EnumInt,
    f: &FieldLayout,
    out: &mut dyn fmt::Write,
) -> Result<(), DecodeError> {
    let described = match x.discriminant() {
        Some(d) => variant_of(d, f)?,
        None => "None",
    };
    let ty = crate::layout::explain::strip_paths(f.ty());
    let _ = write!(out, "{described} ({ty})");
    Ok(())
}

fn enum_encode<C: FieldCodec<X>, X: FromValue + EnumInt>(
    v: &Value,
    out: &mut Vec<u8>,
    f: &FieldLayout,
) -> Result<(), EncodeError> {
    check_variant(&value_of::<X>(v, f)?, f, v.kind())?;
    encode::<C, X>(v, out, f)
}

fn enum_decode<C: for<'de> FieldDecode<'de, X>, X: FromValue + EnumInt>(
    input: &[u8],
    pos: usize,
    f: &FieldLayout,
) -> Result<(Value, usize), DecodeError> {
    let (x, end) = C::decode(input, pos, f.name())?;
    if let Some(d) = x.discriminant() {
        variant_of(d, f)?;
    }
    Ok((x.into_value(), end))
}

/// Explain's reader of an enum field: [`show_variant`].
fn enum_read<C: for<'de> FieldDecode<'de, X>, X: EnumInt>(
    input: &[u8],
    pos: usize,
    f: &FieldLayout,
    out: &mut dyn fmt::Write,
) -> Result<(usize, Option<i128>), DecodeError> {
    let (x, end) = C::decode(input, pos, f.name())?;
    show_variant(&x, f, out)?;
    Ok((end, None))
}

fn enum_ops_of<C, X>() -> Ops
where
    C: FieldCodec<X> + for<'de> FieldDecode<'de, X>,
    X: FromValue + EnumInt,
{
    Ops {
        width: C::LAYOUT_WIDTH,
        encode: enum_encode::<C, X>,
        decode: enum_decode::<C, X>,
        read: enum_read::<C, X>,
        constrain: constrain::<C, X>,
        modulo: None,
    }
}

fn enum_wrapped<C, T>(desc: bool, option: bool, added: bool) -> Ops
where
    C: FieldCodec<T> + for<'de> FieldDecode<'de, T>,
    T: FromValue + EnumInt,
{
    match (option, added, desc) {
        (true, false, false) => enum_ops_of::<Opt<C, Asc>, Option<T>>(),
        (true, false, true) => enum_ops_of::<Opt<C, Desc>, Option<T>>(),
        (true, true, false) => enum_ops_of::<Added<Opt<C, Asc>>, Option<T>>(),
        (true, true, true) => enum_ops_of::<Added<Opt<C, Desc>>, Option<T>>(),
        (false, ..) => enum_ops_of::<C, T>(),
    }
}

/// A `#[derive(KeyField)]` enum of repr `T` in a binary key: the
/// discriminant under `#[desc]`/`#[reverse]`, in an `Option` or added.
pub(crate) fn key_field<T>(desc: bool, dir: Dir, option: bool, added: bool) -> Ops
where
    T: crate::FixedField + FromValue + EnumInt,
{
    match (desc, dir) {
        (false, Dir::Rev) => enum_wrapped::<Fixed<Asc, Rev>, T>(desc, option, added),
        (true, Dir::Rev) => enum_wrapped::<Fixed<Desc, Rev>, T>(desc, option, added),
        (false, _) => enum_wrapped::<Fixed<Asc, Fwd>, T>(desc, option, added),
        (true, _) => enum_wrapped::<Fixed<Desc, Fwd>, T>(desc, option, added),
    }
}

/// A run-time codec `C` over a `KeyField` enum's repr integer: only the
/// discriminants of the field's variants are values (a text key's enum,
/// its discriminant's digits).
struct EnumRt<C>(PhantomData<C>);

impl<C: RtCodec> RtCodec for EnumRt<C>
where
    C::T: EnumInt,
{
    type T = C::T;
    fn encode(v: &C::T, f: &FieldLayout, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        check_variant(v, f, "another integer")?;
        C::encode(v, f, out)
    }
    fn encode_value(v: &Value, f: &FieldLayout, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let t: C::T = value_of(v, f)?;
        check_variant(&t, f, v.kind())?;
        C::encode(&t, f, out)
    }
    fn decode(input: &[u8], pos: usize, f: &FieldLayout) -> Result<(C::T, usize), DecodeError> {
        let (t, end) = C::decode(input, pos, f)?;
        match t.discriminant() {
            // The derive's error: the enum's `Decimal::join` has no value.
            Some(d) if variants(f).variant(d).is_none() => Err(DecodeError::InvalidValue {
                field: f.name(),
                reason: crate::format::text::DIGITS_OUT_OF_RANGE,
            }),
            _ => Ok((t, end)),
        }
    }
}

/// Explain's reader of [`EnumRt`]: [`show_variant`].
fn enum_rt_read<C: RtCodec>(
    input: &[u8],
    pos: usize,
    f: &FieldLayout,
    out: &mut dyn fmt::Write,
) -> Result<(usize, Option<i128>), DecodeError>
where
    C::T: EnumInt,
{
    let (t, end) = EnumRt::<C>::decode(input, pos, f)?;
    show_variant(&t, f, out)?;
    Ok((end, None))
}

/// A `#[derive(KeyField)]` enum of repr `T` in a text key: its
/// discriminant's digits (`Dec`), `width` with the separator.
pub(crate) fn key_field_digits<T>(width: usize, dir: Dir) -> Ops
where
    T: Decimal + FromValue + Show + EnumInt,
{
    let width = FieldWidth::Fixed(width);
    match dir {
        Dir::Rev => {
            rt_ops_reading::<EnumRt<DigitsRt<T, Rev>>>(width, enum_rt_read::<DigitsRt<T, Rev>>)
        }
        _ => rt_ops_reading::<EnumRt<DigitsRt<T, Fwd>>>(width, enum_rt_read::<DigitsRt<T, Fwd>>),
    }
}
