//! A run-time field's operations: the derive's own codec types,
//! monomorphized here for every built-in field type and set of attributes
//! and picked by a `match` when a layout is parsed, so that a
//! [`DynLayout`](crate::DynLayout) writes the bytes `#[derive(RowKey)]`
//! writes by running the same code. Codecs with const parameters
//! (`#[fixed(N)]`, a text key's digits and separator) run the functions
//! those codecs call, with the parameters read from the field's descriptor
//! (`RtCodec`).

use alloc::vec::Vec;
use core::ops::Bound;

use super::value::{Borrowed, FromValue, Owned, Value};
use crate::format::codec::{
    Added, Asc, Desc, DescTs, Dom, Escaped, FieldCodec, FieldDecode, FilterSink, Fixed, Fwd, Opt,
    Raw, Rev, Rounded, Var,
};
use crate::format::error::{DecodeError, EncodeError};
use crate::format::text::ModSalt;
use crate::layout::explain::{read, read_opaque, Show};
use crate::layout::{FieldLayout, FieldWidth, Reader};
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
/// Decodes the field at a position, pushes its value and returns where it
/// ends: the value goes to its place in the caller's `Vec` directly (a
/// 48-byte result read back by the caller stalled on store forwarding).
type DecodeFn = fn(&[u8], usize, &FieldLayout, &mut Vec<Value>) -> Result<usize, DecodeError>;
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
    out: &mut Vec<Value>,
) -> Result<usize, DecodeError> {
    let (t, end) = C::decode(input, pos, f.name())?;
    out.push(t.into_value());
    Ok(end)
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

mod key_field;
mod oc;
mod rt;
#[cfg(any(feature = "chrono", feature = "time", feature = "jiff"))]
mod time;

pub(crate) use key_field::*;
pub(crate) use oc::*;
pub(crate) use rt::*;
#[cfg(any(feature = "chrono", feature = "time", feature = "jiff"))]
pub(crate) use time::*;
