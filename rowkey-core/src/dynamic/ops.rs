//! A run-time field's operations: the derive's own codec types,
//! monomorphized here for every built-in field type and set of attributes
//! and picked by a `match` when a layout is parsed, so that a
//! [`DynLayout`](crate::DynLayout) writes the bytes `#[derive(RowKey)]`
//! writes by running the same code.

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use core::ops::Bound;

use super::value::{FromValue, Value};
use crate::format::binary::to_string_binary;
use crate::format::codec::{
    padded_decode, padded_encode, Added, Asc, Desc, DescTs, Direction, Dom, Escaped, FieldCodec,
    FieldDecode, FilterSink, Fixed, Fwd, Opt, Raw, Rev, Var,
};
use crate::format::error::{DecodeError, EncodeError};
use crate::format::text::ModSalt;
use crate::layout::explain::{read, Show};
use crate::layout::{Encoding, FieldLayout, FieldWidth, Reader};
use crate::scan::filter::{any_of, FilterParts};

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

/// The operations of codec `C` over values of type `T`.
fn ops<C, T>() -> Ops
where
    C: FieldCodec<T> + for<'de> FieldDecode<'de, T>,
    T: FromValue + Show,
{
    Ops {
        width: C::LAYOUT_WIDTH,
        encode: encode::<C, T>,
        decode: decode::<C, T>,
        read: read::<C, T>,
        constrain: constrain::<C, T>,
        modulo: None,
    }
}

/// `ops`, with the `Option` and `#[rowkey(added)]` wrappers the derive
/// puts around the codec.
fn wrapped<C, T>(desc: bool, option: bool, added: bool) -> Ops
where
    C: FieldCodec<T> + for<'de> FieldDecode<'de, T>,
    T: FromValue + Show,
{
    match (option, added, desc) {
        (true, false, false) => ops::<Opt<C, Asc>, Option<T>>(),
        (true, false, true) => ops::<Opt<C, Desc>, Option<T>>(),
        (true, true, false) => ops::<Added<Opt<C, Asc>>, Option<T>>(),
        (true, true, true) => ops::<Added<Opt<C, Desc>>, Option<T>>(),
        (false, ..) => ops::<C, T>(),
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
    match (desc, dir) {
        (false, Dir::Rev) => wrapped::<Fixed<Asc, Rev>, T>(desc, option, added),
        (true, Dir::Rev) => wrapped::<Fixed<Desc, Rev>, T>(desc, option, added),
        (false, _) => wrapped::<Fixed<Asc, Fwd>, T>(desc, option, added),
        (true, _) => wrapped::<Fixed<Desc, Fwd>, T>(desc, option, added),
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
    wrapped::<DescTs, T>(true, option, added)
}

/// A string or byte string, escaped or raw (`Var`).
pub(crate) fn var<T>(raw: bool, desc: bool, dir: Dir, option: bool, added: bool) -> Ops
where
    T: crate::KeyBytes + for<'de> crate::VarField<'de> + FromValue + Show,
{
    macro_rules! pick {
        ($frame:ty) => {
            match (desc, dir) {
                (false, Dir::Fwd) => wrapped::<Var<$frame, Asc, Fwd>, T>(desc, option, added),
                (false, Dir::Rev) => wrapped::<Var<$frame, Asc, Rev>, T>(desc, option, added),
                (false, Dir::Dom) => wrapped::<Var<$frame, Asc, Dom>, T>(desc, option, added),
                (true, Dir::Fwd) => wrapped::<Var<$frame, Desc, Fwd>, T>(desc, option, added),
                (true, Dir::Rev) => wrapped::<Var<$frame, Desc, Rev>, T>(desc, option, added),
                (true, Dir::Dom) => wrapped::<Var<$frame, Desc, Dom>, T>(desc, option, added),
            }
        };
    }
    if raw {
        pick!(Raw)
    } else {
        pick!(Escaped)
    }
}

/// `#[fixed(N, pad)]` (`Padded`), its width and pad byte read from the
/// descriptor. Values only in filters (a range's rounding is the const
/// codec's); not inside an `Option`.
pub(crate) fn padded<T>(len: usize, dir: Dir) -> Ops
where
    T: crate::KeyBytes + for<'de> crate::VarField<'de> + FromValue + Show,
{
    fn params(f: &FieldLayout) -> (usize, u8, bool) {
        match f.encoding() {
            Encoding::Padded { len, pad, desc } => (len, pad, desc),
            _ => unreachable!("padded ops on a field that is not #[fixed]"),
        }
    }
    fn enc<T: crate::KeyBytes + FromValue, D: Direction>(
        v: &Value,
        out: &mut Vec<u8>,
        f: &FieldLayout,
    ) -> Result<(), EncodeError> {
        let t: T = value_of(v, f)?;
        let (n, pad, desc) = params(f);
        let pos = out.len();
        out.resize(pos + n, 0);
        padded_encode::<D>(t.key_bytes(), n, pad, desc, out, pos, f.name()).map(|_| ())
    }
    fn dec<T: for<'de> crate::VarField<'de> + FromValue, D: Direction>(
        input: &[u8],
        pos: usize,
        f: &FieldLayout,
    ) -> Result<(Value, usize), DecodeError> {
        let (n, pad, desc) = params(f);
        let (t, end) = padded_decode::<T, D>(input, pos, n, pad, desc, f.name())?;
        Ok((t.into_value(), end))
    }
    fn rd<T: for<'de> crate::VarField<'de> + Show, D: Direction>(
        input: &[u8],
        pos: usize,
        f: &FieldLayout,
        out: &mut dyn fmt::Write,
    ) -> Result<(usize, Option<i128>), DecodeError> {
        let (n, pad, desc) = params(f);
        let (t, end) = padded_decode::<T, D>(input, pos, n, pad, desc, f.name())?;
        let _ = t.show(out);
        Ok((end, None))
    }
    fn values<T: crate::KeyBytes + FromValue, D: Direction>(
        parts: FilterParts,
        i: usize,
        pred: Pred,
        f: &FieldLayout,
    ) -> FilterParts {
        let Pred::Values(vs) = pred else {
            return parts.fail_unsupported(f.name());
        };
        let mut encodings = Vec::with_capacity(vs.len());
        for v in &vs {
            let mut e = vec![];
            if let Err(err) = enc::<T, D>(v, &mut e, f) {
                return parts.fail(err);
            }
            encodings.push(e);
        }
        parts.constrain_encodings(i, encodings)
    }
    macro_rules! with_dir {
        ($d:ty) => {
            Ops {
                width: FieldWidth::Fixed(len),
                encode: enc::<T, $d>,
                decode: dec::<T, $d>,
                read: rd::<T, $d>,
                constrain: values::<T, $d>,
                modulo: None,
            }
        };
    }
    match dir {
        Dir::Fwd => with_dir!(Fwd),
        Dir::Rev => with_dir!(Rev),
        Dir::Dom => with_dir!(Dom),
    }
}

/// A type the runtime does not know, `len` bytes wide: its key bytes as
/// [`Value::Bytes`], written as `Fixed` writes any type's (reversed for
/// `#[reverse]`, inverted for `#[desc]`).
pub(crate) fn opaque(len: usize) -> Ops {
    fn flags(f: &FieldLayout) -> (usize, bool, bool) {
        let len = match f.width() {
            FieldWidth::Fixed(n) => n,
            FieldWidth::Variable { .. } => unreachable!("opaque fields are fixed-width"),
        };
        (len, f.is_desc(), f.is_reverse())
    }
    fn enc(v: &Value, out: &mut Vec<u8>, f: &FieldLayout) -> Result<(), EncodeError> {
        let (len, desc, rev) = flags(f);
        let bytes = match v {
            Value::Bytes(b) if b.len() == len => b,
            Value::Bytes(b) => {
                return Err(EncodeError::WrongValue {
                    field: f.name(),
                    expected: "bytes of the field's width",
                    got: if b.len() > len {
                        "longer bytes"
                    } else {
                        "shorter bytes"
                    },
                })
            }
            v => return Err(wrong(f, "bytes", v)),
        };
        let pos = out.len();
        out.extend_from_slice(bytes);
        let dst = &mut out[pos..];
        if rev {
            dst.reverse();
        }
        if desc {
            dst.iter_mut().for_each(|b| *b = !*b);
        }
        Ok(())
    }
    fn stored(input: &[u8], pos: usize, f: &FieldLayout) -> Result<(Vec<u8>, usize), DecodeError> {
        let (len, desc, rev) = flags(f);
        let available = input.len().saturating_sub(pos);
        if available < len {
            return Err(DecodeError::UnexpectedEnd {
                field: f.name(),
                needed: len,
                available,
            });
        }
        let mut b = input[pos..pos + len].to_vec();
        if desc {
            b.iter_mut().for_each(|b| *b = !*b);
        }
        if rev {
            b.reverse();
        }
        Ok((b, pos + len))
    }
    fn dec(input: &[u8], pos: usize, f: &FieldLayout) -> Result<(Value, usize), DecodeError> {
        stored(input, pos, f).map(|(b, end)| (Value::Bytes(b), end))
    }
    fn rd(
        input: &[u8],
        pos: usize,
        f: &FieldLayout,
        out: &mut dyn fmt::Write,
    ) -> Result<(usize, Option<i128>), DecodeError> {
        let (b, end) = stored(input, pos, f)?;
        // A byte array as explain shows one; another type as its bytes.
        let _ = if f.ty().starts_with("[u8;") {
            write!(out, "[u8; {}] {}", b.len(), to_string_binary(&b))
        } else {
            write!(out, "{} ({})", Value::Bytes(b), f.ty())
        };
        Ok((end, None))
    }
    fn values(parts: FilterParts, i: usize, pred: Pred, f: &FieldLayout) -> FilterParts {
        let Pred::Values(vs) = pred else {
            return parts.fail_unsupported(f.name());
        };
        let mut encodings = Vec::with_capacity(vs.len());
        for v in &vs {
            let mut e = vec![];
            if let Err(err) = enc(v, &mut e, f) {
                return parts.fail(err);
            }
            encodings.push(e);
        }
        parts.constrain_encodings(i, encodings)
    }
    Ops {
        width: FieldWidth::Fixed(len),
        encode: enc,
        decode: dec,
        read: rd,
        constrain: values,
        modulo: None,
    }
}
