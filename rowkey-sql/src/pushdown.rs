//! From DataFusion's filters to rowkey's scans: each filter on key fields
//! read as an `OR` of `AND`s of per-field predicates, the filters the scan
//! takes combined into one such plan, each branch a [`KeyFilter`] (the
//! filter the typed API builds for the same predicates, so the same skip
//! scan).
//!
//! A filter is `Exact` when the store returns exactly its rows: every
//! predicate in it became a field's condition, of a kind whose key bytes
//! follow SQL's semantics. It is `Inexact` when a predicate narrows the
//! scan but DataFusion must still check it (floats: SQL's `NaN` and `-0`
//! are not the key's order; a range on an `Option` field, whose `NULL`s
//! sort among the values), and `Unsupported` otherwise.

use std::fmt;
use std::ops::Bound;

use datafusion::common::ScalarValue;
use datafusion::logical_expr::expr::{Between, InList, Like};
use datafusion::logical_expr::{BinaryExpr, Expr, Operator, TableProviderFilterPushDown};
use rowkey_core::scan::KeyFilter;
use rowkey_core::{DynLayout, Value};

use crate::columns::{KeyColumn, KeyKind};

/// The most branches (`OR`ed `AND`s) a plan holds: each is a filter and a
/// scan of its own.
pub(crate) const MAX_BRANCHES: usize = 64;

/// What one field must be.
#[derive(Clone, Debug)]
pub(crate) enum Pred {
    /// One of these values (none: no row).
    Values(Vec<Value>),
    /// In this range of values.
    Range(Bound<Value>, Bound<Value>),
}

/// A field's predicate.
#[derive(Clone, Debug)]
pub(crate) struct Atom {
    field: usize,
    pred: Pred,
}

/// An `OR` of `AND`s of field predicates, and whether it is exactly the
/// filter it came from.
#[derive(Clone, Debug)]
pub(crate) struct Dnf {
    branches: Vec<Vec<Atom>>,
    exact: bool,
}

impl Dnf {
    /// Every row: one branch of no predicate.
    fn all() -> Dnf {
        Dnf {
            branches: vec![Vec::new()],
            exact: true,
        }
    }

    /// Both, or `None` past [`MAX_BRANCHES`].
    fn and(&self, other: &Dnf) -> Option<Dnf> {
        if self.branches.len() * other.branches.len() > MAX_BRANCHES {
            return None;
        }
        let mut branches = Vec::new();
        for a in &self.branches {
            for b in &other.branches {
                branches.push(a.iter().chain(b).cloned().collect());
            }
        }
        Some(Dnf {
            branches,
            exact: self.exact && other.exact,
        })
    }

    /// Either, or `None` past [`MAX_BRANCHES`]. Values of one field
    /// (`a = 1 OR a = 2`, which DataFusion writes for a short `IN`) are
    /// one branch of both values.
    fn or(mut self, other: Dnf) -> Option<Dnf> {
        if let ([a], [b]) = (&mut self.branches[..], &other.branches[..]) {
            if let (
                [Atom {
                    field,
                    pred: Pred::Values(vs),
                }],
                [Atom {
                    field: f2,
                    pred: Pred::Values(more),
                }],
            ) = (&mut a[..], &b[..])
            {
                if field == f2 {
                    vs.extend(more.iter().cloned());
                    self.exact &= other.exact;
                    return Some(self);
                }
            }
        }
        if self.branches.len() + other.branches.len() > MAX_BRANCHES {
            return None;
        }
        self.branches.extend(other.branches);
        self.exact &= other.exact;
        Some(self)
    }
}

/// The scans a table's filters asked for.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// One filter per branch; a row is read by the first branch whose
    /// filter matches it.
    pub(crate) branches: Vec<KeyFilter>,
    /// The filters taken, as SQL, and whether each was exact.
    pub(crate) taken: Vec<(String, bool)>,
}

impl Plan {
    /// What kind of read the plan is, for EXPLAIN: `full scan` (no filter
    /// taken: the layout's every key), `empty` (no key can match, nothing
    /// is read) or `skip scan` (the branches' filters over their ranges).
    pub(crate) fn kind(&self) -> &'static str {
        if self.taken.is_empty() {
            "full scan"
        } else if self.branches.iter().all(|f| f.scan().is_empty()) {
            "empty"
        } else {
            "skip scan"
        }
    }

    /// The ranges the branches read.
    pub(crate) fn range_count(&self) -> usize {
        self.branches.iter().map(|f| f.scan().range_count()).sum()
    }
}

/// What DataFusion is told of each filter, and the plan of those taken.
pub(crate) fn plan(
    layout: &DynLayout,
    columns: &[KeyColumn],
    filters: &[&Expr],
) -> (Vec<TableProviderFilterPushDown>, Plan) {
    let mut combined = Dnf::all();
    let mut support = Vec::with_capacity(filters.len());
    let mut taken = Vec::new();
    for expr in filters {
        let next = read(expr, columns)
            .filter(|dnf| builds(layout, dnf))
            .and_then(|dnf| combined.and(&dnf).map(|c| (c, dnf.exact)));
        match next {
            Some((c, exact)) => {
                combined = c;
                taken.push((expr.to_string(), exact));
                support.push(if exact {
                    TableProviderFilterPushDown::Exact
                } else {
                    TableProviderFilterPushDown::Inexact
                });
            }
            None => support.push(TableProviderFilterPushDown::Unsupported),
        }
    }
    let branches = combined
        .branches
        .iter()
        .map(|b| build(layout, b))
        .collect::<Option<Vec<_>>>()
        // Each filter's branches built alone; an intersection of them
        // only narrows what each allows, so this is not expected. Should
        // it fail, no filter was taken: DataFusion checks them all.
        .unwrap_or_else(|| {
            support.fill(TableProviderFilterPushDown::Unsupported);
            taken.clear();
            vec![build(layout, &[]).expect("a layout's filter of no predicate builds")]
        });
    (support, Plan { branches, taken })
}

/// Whether each branch of `dnf` builds a filter on `layout`.
fn builds(layout: &DynLayout, dnf: &Dnf) -> bool {
    dnf.branches.iter().all(|b| build(layout, b).is_some())
}

/// The filter of one branch.
pub(crate) fn build(layout: &DynLayout, atoms: &[Atom]) -> Option<KeyFilter> {
    let mut f = layout.filter();
    for atom in atoms {
        let name = layout.layout().fields()[atom.field].name();
        f = match &atom.pred {
            Pred::Values(vs) => f.any_of(name, vs.iter().cloned()),
            Pred::Range(lo, hi) => f.range(name, (lo.clone(), hi.clone())),
        }
        .ok()?;
    }
    f.build().ok()
}

/// `expr` as field predicates, or `None` if any part of it is not one.
fn read(expr: &Expr, columns: &[KeyColumn]) -> Option<Dnf> {
    match expr {
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => match op {
            Operator::And => read(left, columns)?.and(&read(right, columns)?),
            Operator::Or => read(left, columns)?.or(read(right, columns)?),
            _ => {
                let (column, value, op) = match (column_of(left, columns), literal(right)) {
                    (Some(c), Some(v)) => (c, v, *op),
                    _ => (column_of(right, columns)?, literal(left)?, op.swap()?),
                };
                compare(column, value, op)
            }
        },
        Expr::InList(InList {
            expr,
            list,
            negated: false,
        }) => {
            let column = column_of(expr, columns)?;
            let values = list
                .iter()
                .map(|e| column.value_of(literal(e)?))
                .collect::<Option<Vec<_>>>()?;
            Some(atom(column, Pred::Values(values), exact_values(column)))
        }
        Expr::Between(Between {
            expr,
            negated: false,
            low,
            high,
        }) => {
            let column = column_of(expr, columns)?;
            let lo = column.value_of(literal(low)?)?;
            let hi = column.value_of(literal(high)?)?;
            range(column, Bound::Included(lo), Bound::Included(hi))
        }
        Expr::IsNull(inner) => {
            let column = column_of(inner, columns)?;
            let values = if column.nullable() {
                vec![Value::Option(None)]
            } else {
                Vec::new()
            };
            Some(atom(column, Pred::Values(values), true))
        }
        Expr::Like(Like {
            negated: false,
            expr,
            pattern,
            escape_char: None,
            case_insensitive: false,
        }) => {
            let column = column_of(expr, columns)?;
            let (ScalarValue::Utf8(Some(p)) | ScalarValue::Utf8View(Some(p))) = literal(pattern)?
            else {
                return None;
            };
            like_prefix(column, &p)
        }
        _ => None,
    }
}

/// A literal's value.
fn literal(expr: &Expr) -> Option<ScalarValue> {
    match expr {
        Expr::Literal(v, _) if !v.is_null() => Some(v.clone()),
        _ => None,
    }
}

/// The key column `expr` names: the column itself, or a cast of it to a
/// type that holds each of its values as itself (an integer widened).
fn column_of<'c>(expr: &Expr, columns: &'c [KeyColumn]) -> Option<&'c KeyColumn> {
    match expr {
        Expr::Column(c) => columns.iter().find(|k| k.name() == c.name),
        Expr::Cast(cast) => {
            let column = column_of(&cast.expr, columns)?;
            let widened = integer_width(column.kind)
                .zip(integer_width_of(cast.field.data_type()))
                .is_some_and(|((bits, signed), (to_bits, to_signed))| {
                    (signed == to_signed && to_bits >= bits)
                        || (!signed && to_signed && to_bits > bits)
                });
            widened.then_some(column)
        }
        _ => None,
    }
}

fn integer_width(kind: KeyKind) -> Option<(u32, bool)> {
    Some(match kind {
        KeyKind::U8 => (8, false),
        KeyKind::U16 => (16, false),
        KeyKind::U32 => (32, false),
        KeyKind::U64 => (64, false),
        KeyKind::I8 => (8, true),
        KeyKind::I16 => (16, true),
        KeyKind::I32 => (32, true),
        KeyKind::I64 => (64, true),
        _ => return None,
    })
}

fn integer_width_of(ty: &datafusion::arrow::datatypes::DataType) -> Option<(u32, bool)> {
    use datafusion::arrow::datatypes::DataType as T;
    Some(match ty {
        T::UInt8 => (8, false),
        T::UInt16 => (16, false),
        T::UInt32 => (32, false),
        T::UInt64 => (64, false),
        T::Int8 => (8, true),
        T::Int16 => (16, true),
        T::Int32 => (32, true),
        T::Int64 => (64, true),
        _ => return None,
    })
}

/// `column op value`.
fn compare(column: &KeyColumn, literal: ScalarValue, op: Operator) -> Option<Dnf> {
    let v = column.value_of(literal)?;
    match op {
        Operator::Eq => Some(atom(column, Pred::Values(vec![v]), exact_values(column))),
        Operator::Lt => range(column, Bound::Unbounded, Bound::Excluded(v)),
        Operator::LtEq => range(column, Bound::Unbounded, Bound::Included(v)),
        Operator::Gt => range(column, Bound::Excluded(v), Bound::Unbounded),
        Operator::GtEq => range(column, Bound::Included(v), Bound::Unbounded),
        _ => None,
    }
}

/// A range of `column`'s values.
fn range(column: &KeyColumn, lo: Bound<Value>, hi: Bound<Value>) -> Option<Dnf> {
    if column.kind == KeyKind::Enum || column.kind == KeyKind::Wide {
        // A variant's name is not in its discriminant's order.
        return None;
    }
    // An Option field's None sorts among its values: the range may hold
    // NULLs, which SQL's comparison never does.
    let exact = exact_values(column) && !column.nullable();
    Some(atom(column, Pred::Range(lo, hi), exact))
}

/// Whether `=` and `IN` on `column` are exact: not for floats (SQL's
/// `NaN = NaN` and `-0 = 0` are not the key's).
fn exact_values(column: &KeyColumn) -> bool {
    !matches!(column.kind, KeyKind::F32 | KeyKind::F64)
}

fn atom(column: &KeyColumn, pred: Pred, exact: bool) -> Dnf {
    let pred = if matches!(column.kind, KeyKind::F32 | KeyKind::F64) {
        zeros(pred)
    } else {
        pred
    };
    Dnf {
        branches: vec![vec![Atom {
            field: column.index,
            pred,
        }]],
        exact,
    }
}

/// A float predicate that holds both zeros where it holds either: SQL's
/// `0.0 = -0.0`, where the key has two values (the predicate is inexact,
/// so holding more is right).
fn zeros(pred: Pred) -> Pred {
    let zero = |v: &Value| match *v {
        Value::F64(f) => f == 0.0,
        Value::F32(f) => f == 0.0,
        _ => false,
    };
    let both = |v: &Value| match v {
        Value::F32(_) => [Value::F32(-0.0), Value::F32(0.0)],
        _ => [Value::F64(-0.0), Value::F64(0.0)],
    };
    match pred {
        Pred::Values(mut vs) => {
            let more: Vec<Value> = vs.iter().filter(|v| zero(v)).flat_map(both).collect();
            vs.extend(more);
            Pred::Values(vs)
        }
        Pred::Range(lo, hi) => {
            let lo = match lo {
                Bound::Included(v) | Bound::Excluded(v) if zero(&v) => {
                    Bound::Included(both(&v)[0].clone())
                }
                b => b,
            };
            let hi = match hi {
                Bound::Included(v) | Bound::Excluded(v) if zero(&v) => {
                    Bound::Included(both(&v)[1].clone())
                }
                b => b,
            };
            Pred::Range(lo, hi)
        }
    }
}

/// `LIKE 'prefix%'` on a string field: the range of strings from the
/// prefix up to the next string of its length.
fn like_prefix(column: &KeyColumn, pattern: &str) -> Option<Dnf> {
    if column.kind != KeyKind::Str {
        return None;
    }
    let prefix = pattern.strip_suffix('%')?;
    if prefix.is_empty() || prefix.contains(['%', '_', '\\']) {
        return None;
    }
    let hi = match successor(prefix) {
        Some(s) => Bound::Excluded(Value::Str(s)),
        None => Bound::Unbounded,
    };
    range(column, Bound::Included(Value::Str(prefix.into())), hi)
}

/// The least string above every string that starts with `prefix` (UTF-8's
/// bytes sort as its code points do), or `None` if there is none.
fn successor(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let next = (u32::from(last) + 1..=u32::from(char::MAX)).find_map(char::from_u32);
        if let Some(next) = next {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

impl fmt::Display for Plan {
    /// `kind=skip scan, ranges=3, exact=[a = 1], inexact=[f > 2.5]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |exact: bool| {
            self.taken
                .iter()
                .filter(|(_, e)| *e == exact)
                .map(|(s, _)| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        write!(
            f,
            "pushdown={}, branches={}, ranges={}, exact=[{}], inexact=[{}]",
            self.kind(),
            self.branches.len(),
            self.range_count(),
            list(true),
            list(false)
        )
    }
}
