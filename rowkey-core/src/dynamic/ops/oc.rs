//! Ordered-code fields (Bigtable's `OrderedCodeBytes`): their two
//! codecs each and their scan steps.

use core::ops::Bound;

use super::super::value::{FromValue, Owned, Value};
use crate::format::codec::{Asc, Desc, FieldCodec, FieldDecode};
use crate::format::error::EncodeError;
use crate::format::ordered_code::{Int64Field, Last, OcInt, OcStr, Term};
use crate::format::text::ModSalt;
use crate::layout::explain::Show;
use crate::layout::FieldLayout;
use crate::scan::filter::FilterParts;
use crate::scan::leading::Leading;

use super::*;

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

pub(super) fn oc_push<C: FieldCodec<T>, T: FromValue>(
    l: Leading,
    v: &Value,
    f: &FieldLayout,
) -> Result<Leading, EncodeError> {
    let t: T = value_of(v, f)?;
    C::extend(l, &t, f.name())
}

pub(super) fn oc_range<C: FieldCodec<T>, T: FromValue>(
    l: Leading,
    lo: Bound<Value>,
    hi: Bound<Value>,
    f: &FieldLayout,
) -> Result<crate::Scan, EncodeError> {
    let range = (bound::<T>(lo, f)?, bound::<T>(hi, f)?);
    C::scan_range(l, &range, f.name())
}

/// A filter asked of an ordered-code field: it has none.
pub(super) fn no_filter(parts: FilterParts, _: usize, _: Pred, _: &FieldLayout) -> FilterParts {
    let layout = parts.layout_name();
    parts.fail(EncodeError::NoFilter { layout })
}

/// [`OcOps`] of the codecs `Term` and `Last` (`T` the value type), the
/// string ones encoding from the `Value`'s own bytes (`B`).
pub(super) fn oc_ops<Term, Last, T>() -> OcOps
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
