//! Designs given as a layout's text, without Rust code: `--design
//! 'mine=[salt(user_id)/16][user_id u64][ts_millis desc_ts i64]'`. Each
//! field is bound to an event column by its name, and the built-in queries
//! get plans from the layout: a scan when the entity leads the key, a
//! skip-scan filter otherwise, the query's own full scan where neither
//! applies.

use std::ops::Bound;
use std::sync::Arc;

use rowkey_core::{DynLayout, KeyFilter, Scan, Value};

use crate::builtin::{Subjects, HOUR, LATEST, MINUTE};
use crate::draw::{BoundDraw, Draws};
use crate::{Access, BoxError, Design, Event};

/// The event columns a run-time design's fields bind to, by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Columns {
    /// The entity's column (`--user-col`); `user_id` binds to it too.
    pub user: String,
    /// The time's column (`--ts-col`); `ts_millis` binds to it too.
    pub ts: String,
}

impl Default for Columns {
    fn default() -> Self {
        Columns {
            user: "user_id".into(),
            ts: "ts".into(),
        }
    }
}

/// What a field holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bind {
    User,
    Time,
    /// A value drawn for each event ([`crate::draw`]).
    Drawn,
}

/// `NAME=LAYOUT`, as `--design` takes it: the design's name and its layout.
///
/// ```
/// let (name, layout) = rowkey_lab::runtime::parse_design("mine=[user_id u64][ts_millis i64]").unwrap();
/// assert_eq!(name, "mine");
/// assert_eq!(layout.layout().fixed_len(), Some(16));
/// assert!(rowkey_lab::runtime::parse_design("[user_id u64]").unwrap_err().contains("NAME=LAYOUT"));
/// ```
pub fn parse_design(arg: &str) -> Result<(String, DynLayout), String> {
    let (name, spec) = arg
        .split_once('=')
        .filter(|(n, _)| !n.is_empty() && !n.contains('['))
        .ok_or_else(|| format!("`{arg}` is not NAME=LAYOUT"))?;
    let layout = DynLayout::parse(spec).map_err(|e| format!("design `{name}`: {e}"))?;
    Ok((name.to_owned(), layout))
}

/// Whether a field holds text or bytes (so the entity is stored as its
/// name, not its number).
fn is_text(layout: &DynLayout, i: usize) -> bool {
    matches!(layout.layout().fields()[i].kind(), "str" | "bytes")
}

/// Whether `layout`'s entity field is a string: the events' entity ids
/// are then read as strings ([`crate::workload::read_csv_named`]).
pub fn wants_names(layout: &DynLayout, columns: &Columns) -> bool {
    binds(layout, columns, &Draws::default())
        .map(|b| {
            b.iter()
                .enumerate()
                .any(|(i, b)| *b == Bind::User && is_text(layout, i))
        })
        .unwrap_or(false)
}

fn binds(layout: &DynLayout, columns: &Columns, draws: &Draws) -> Result<Vec<Bind>, String> {
    let binds: Vec<Bind> = layout
        .field_names()
        .map(|f| {
            if f == "user_id" || f == columns.user {
                Ok(Bind::User)
            } else if f == "ts_millis" || f == columns.ts {
                Ok(Bind::Time)
            } else if draws.get(f).is_some() {
                Ok(Bind::Drawn)
            } else {
                Err(format!(
                    "field `{f}` is no column of the events: a field binds by its name to \
                     `user_id` (or `{}`, the entity column) or `ts_millis` (or `{}`, the time column), \
                     or takes values drawn with --field {f}=DIST or from --sample-from",
                    columns.user, columns.ts
                ))
            }
        })
        .collect::<Result<_, _>>()?;
    for (bind, what) in [(Bind::User, "entity"), (Bind::Time, "time")] {
        match binds.iter().filter(|b| **b == bind).count() {
            1 => {}
            0 => {
                return Err(format!(
                    "no field holds the {what}: the key needs the entity and the time, or events would overwrite each other"
                ))
            }
            _ => return Err(format!("two fields hold the {what}")),
        }
    }
    Ok(binds)
}

/// The design `name` of `layout`, its fields bound to the events' columns
/// by name, with plans for the built-in queries about `s`. `names` are the
/// entities' strings when the CSV's ids are strings (a string field then
/// stores the string; an integer field stores its number).
///
/// ```
/// use rowkey_lab::builtin::Subjects;
/// use rowkey_lab::runtime::{design, parse_design, Columns};
/// use rowkey_lab::Event;
///
/// let (name, layout) = parse_design("mine=[salt(user_id)/4][user_id u64][ts_millis desc_ts i64]").unwrap();
/// let s = Subjects { user: 7, now: 1_700_000_000_000, hour: (0, 3_600_000) };
/// let d = design(&name, layout, &Columns::default(), s, None).unwrap();
/// assert_eq!(d.split_points().len(), 3);
/// assert_eq!(d.key(&Event { user_id: 7, ts_millis: 5 }).unwrap().len(), 17);
/// assert_eq!(d.plans().count(), 3);
/// ```
pub fn design(
    name: &str,
    layout: DynLayout,
    columns: &Columns,
    s: Subjects,
    names: Option<Arc<Vec<String>>>,
) -> Result<Design<Event>, String> {
    design_with(name, layout, columns, &Draws::default(), s, names)
}

/// [`design`] whose fields that are no column of the events take the
/// values `draws` gives them ([`crate::draw`]).
pub fn design_with(
    name: &str,
    layout: DynLayout,
    columns: &Columns,
    draws: &Draws,
    s: Subjects,
    names: Option<Arc<Vec<String>>>,
) -> Result<Design<Event>, String> {
    let binds = binds(&layout, columns, draws).map_err(|e| format!("design `{name}`: {e}"))?;
    let shared = Arc::new(layout.clone());
    let drawn: Vec<Option<BoundDraw>> = binds
        .iter()
        .zip(layout.field_names())
        .map(|(b, field)| match (b, draws.get(field)) {
            (Bind::Drawn, Some(draw)) => BoundDraw::new(draw, &shared, field)
                .map(Some)
                .map_err(|e| format!("design `{name}`: {e}")),
            _ => Ok(None),
        })
        .collect::<Result<_, _>>()?;
    let user_at = binds.iter().position(|b| *b == Bind::User).unwrap_or(0);
    let time_at = binds.iter().position(|b| *b == Bind::Time).unwrap_or(0);
    let text_user = is_text(&layout, user_at);
    let user_value = {
        let names = names.clone();
        move |id: u64| -> Value {
            if !text_user {
                return Value::U64(id);
            }
            let text = names
                .as_ref()
                .and_then(|n| n.get(id as usize).cloned())
                .unwrap_or_else(|| id.to_string());
            Value::Str(text)
        }
    };
    let key_layout = layout.clone();
    let uv = user_value.clone();
    let mut d = Design::from_layout(name, layout.layout(), move |e: &Event| {
        let values: Vec<Value> = binds
            .iter()
            .zip(&drawn)
            .map(|(b, d)| match (b, d) {
                (Bind::User, _) => uv(e.user_id),
                (Bind::Time, _) => Value::I64(e.ts_millis),
                (Bind::Drawn, Some(d)) => d.value(e),
                (Bind::Drawn, None) => unreachable!("a drawn field is bound"),
            })
            .collect();
        key_layout.encode(&values).map_err(BoxError::from)
    });

    let layout = Arc::new(layout);
    let (user_name, time_name) = {
        let f = layout.layout().fields();
        (f[user_at].name(), f[time_at].name())
    };
    let user = user_value(s.user);
    let leads = user_at == 0 && time_at == 1;
    let time = &layout.layout().fields()[time_at];
    // Key order after the entity is time order (newest first when
    // descending) unless the time's bytes are reversed.
    let time_sorted = !time.is_reverse();
    let time_desc = time.is_desc();
    let minute = (
        Bound::Excluded(Value::I64(s.now.saturating_sub(60_000))),
        Bound::Unbounded,
    );
    let hour = (
        Bound::Included(Value::I64(s.hour.0)),
        Bound::Excluded(Value::I64(s.hour.1)),
    );

    // A plan is added only when the layout can serve it (a range over a
    // #[reverse] field cannot); otherwise the query's own full scan runs.
    type PlanFn = Box<dyn Fn() -> Result<Access<Event>, BoxError> + Send + Sync>;
    let mut plans: Vec<(&str, PlanFn)> = Vec::new();
    {
        let (layout, user) = (layout.clone(), user.clone());
        plans.push((
            LATEST,
            Box::new(move || {
                if user_at != 0 {
                    let f = layout.filter().eq(user_name, user.clone())?.build()?;
                    return Ok(Access::skip(f));
                }
                let scan = layout.scan(std::slice::from_ref(&user), None)?;
                Ok(match (leads && time_sorted, time_desc) {
                    // Newest first after the entity: its first 20 rows.
                    (true, true) if scan.ranges().count() == 1 => Access::scan(scan).limit(20),
                    // Oldest first: read each range backwards.
                    (true, false) => Access::scan(scan).reverse().limit(20),
                    _ => Access::scan(scan),
                })
            }),
        ));
    }
    {
        let layout = layout.clone();
        plans.push((
            MINUTE,
            Box::new(move || {
                let f: KeyFilter = layout.filter().range(time_name, minute.clone())?.build()?;
                Ok(Access::skip(f))
            }),
        ));
    }
    {
        let layout = layout.clone();
        plans.push((
            HOUR,
            Box::new(move || {
                if leads {
                    let scan: Scan =
                        layout.scan(std::slice::from_ref(&user), Some(hour.clone()))?;
                    return Ok(Access::scan(scan));
                }
                let f = layout
                    .filter()
                    .eq(user_name, user.clone())?
                    .range(time_name, hour.clone())?
                    .build()?;
                Ok(Access::skip(f))
            }),
        ));
    }
    for (query, plan) in plans {
        if plan().is_ok() {
            d = d.plan(query, plan);
        }
    }
    Ok(d)
}
