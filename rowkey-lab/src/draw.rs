//! Key fields the events do not have (a metric, a region, a tenant):
//! values drawn for each event from a stated distribution
//! (`--field NAME=DIST`) or from a sample of the table's own keys
//! (`--sample-from`), so that a team can ask the lab about its real key.
//!
//! A drawn value is a function of the event (its entity and time, or its
//! entity alone for a field drawn `@user`) and the field's name, never of
//! the design: an event has the same value under every design, so the
//! designs are compared on one data set, and two runs draw alike.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use rowkey_core::error_chain as chain;
use rowkey_core::{DynLayout, Value};

use crate::Event;

/// How a field's values are drawn: a distribution and whether each event
/// or each entity draws.
///
/// ```
/// use rowkey_lab::draw::Draw;
///
/// let d: Draw = "choice(eu,us,ap)@user".parse().unwrap();
/// assert!(d.per_user());
/// assert!("uniform(0..10)".parse::<Draw>().is_ok());
/// assert!("normal(3)".parse::<Draw>().unwrap_err().contains("uniform(LO..HI)"));
/// ```
#[derive(Clone, Debug)]
pub struct Draw {
    kind: Kind,
    per_user: bool,
}

#[derive(Clone, Debug)]
enum Kind {
    /// One of these texts, each as often as it appears.
    Texts(Arc<Vec<String>>),
    /// An integer in `lo..lo + span`, evenly.
    Uniform { lo: i128, span: u128 },
}

impl std::str::FromStr for Draw {
    type Err = String;

    /// `uniform(LO..HI)` (integers, `HI` excluded), `choice(A,B,...)`
    /// (texts a field's type reads, each as likely), with `@user` after
    /// it for a value each entity keeps (its region) rather than one per
    /// event (its metric).
    fn from_str(text: &str) -> Result<Draw, String> {
        let (dist, per_user) = match text.strip_suffix("@user") {
            Some(d) => (d, true),
            None => (text, false),
        };
        let args = |name: &str| {
            dist.strip_prefix(name)
                .and_then(|d| d.strip_prefix('('))
                .and_then(|d| d.strip_suffix(')'))
        };
        let kind = if let Some(range) = args("uniform") {
            let (lo, hi) = range
                .split_once("..")
                .ok_or_else(|| format!("`{text}`: uniform takes LO..HI"))?;
            let int = |s: &str| {
                s.trim()
                    .replace('_', "")
                    .parse::<i128>()
                    .map_err(|_| format!("`{text}`: `{s}` is not an integer"))
            };
            let (lo, hi) = (int(lo)?, int(hi)?);
            if hi <= lo {
                return Err(format!("`{text}`: the range is empty"));
            }
            Kind::Uniform {
                lo,
                span: hi.abs_diff(lo),
            }
        } else if let Some(list) = args("choice") {
            let texts: Vec<String> = list.split(',').map(|t| t.trim().to_string()).collect();
            if texts.iter().any(String::is_empty) {
                return Err(format!("`{text}`: an empty choice"));
            }
            Kind::Texts(Arc::new(texts))
        } else {
            return Err(format!(
                "`{text}` is no distribution: uniform(LO..HI) or choice(A,B,...), with @user for one value per entity"
            ));
        };
        Ok(Draw { kind, per_user })
    }
}

impl Draw {
    /// Each value of `texts` as often as it appears (a sample's).
    pub fn texts(texts: Vec<String>) -> Draw {
        Draw {
            kind: Kind::Texts(Arc::new(texts)),
            per_user: false,
        }
    }

    /// Whether each entity keeps one value.
    pub fn per_user(&self) -> bool {
        self.per_user
    }

    /// How many values a sample gave (none for a stated distribution).
    pub fn sampled(&self) -> usize {
        match &self.kind {
            Kind::Texts(t) => t.len(),
            Kind::Uniform { .. } => 0,
        }
    }
}

/// `NAME=DIST`, as `--field` takes it.
///
/// ```
/// let (name, _) = rowkey_lab::draw::parse_field("metric=uniform(0..50)").unwrap();
/// assert_eq!(name, "metric");
/// assert!(rowkey_lab::draw::parse_field("uniform(0..50)").unwrap_err().contains("NAME=DIST"));
/// ```
pub fn parse_field(arg: &str) -> Result<(String, Draw), String> {
    let (name, dist) = arg
        .split_once('=')
        .filter(|(n, _)| !n.is_empty() && !n.contains('('))
        .ok_or_else(|| format!("`{arg}` is not NAME=DIST"))?;
    Ok((name.trim().to_string(), dist.parse()?))
}

/// The drawn fields by name.
#[derive(Clone, Debug, Default)]
pub struct Draws {
    fields: BTreeMap<String, Draw>,
}

impl Draws {
    /// Draws `name`'s values by `draw` (replacing a sample's).
    pub fn set(&mut self, name: String, draw: Draw) {
        self.fields.insert(name, draw);
    }

    /// How `name` is drawn, if it is.
    pub fn get(&self, name: &str) -> Option<&Draw> {
        self.fields.get(name)
    }

    /// The fields drawn, by name.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.fields.keys().map(String::as_str)
    }

    /// A sample from a CSV file with a header: each column's values (at
    /// most `rows` rows), drawn as often as they appear; `rows` says how
    /// many rows were read.
    pub fn from_csv(path: &Path, rows: usize) -> Result<(Draws, usize), String> {
        let name = path.display();
        let mut reader = csv::Reader::from_path(path)
            .map_err(|e| format!("--sample-from {name}: {}", chain(&e)))?;
        let headers: Vec<String> = reader
            .headers()
            .map_err(|e| format!("--sample-from {name}: {}", chain(&e)))?
            .iter()
            .map(|h| h.trim().to_string())
            .collect();
        let mut columns: Vec<Vec<String>> = vec![Vec::new(); headers.len()];
        let mut read = 0;
        for record in reader.records().take(rows) {
            let record = record.map_err(|e| format!("--sample-from {name}: {}", chain(&e)))?;
            for (column, value) in columns.iter_mut().zip(record.iter()) {
                column.push(value.to_string());
            }
            read += 1;
        }
        if read == 0 {
            return Err(format!("--sample-from {name}: no rows"));
        }
        let mut draws = Draws::default();
        for (h, column) in headers.into_iter().zip(columns) {
            draws.set(h, Draw::texts(column));
        }
        Ok((draws, read))
    }

    /// A sample of keys of `layout`: each field's values, as the layout's
    /// text reads them back. A key that does not decode is an error
    /// naming it.
    pub fn from_keys(
        layout: &DynLayout,
        keys: impl IntoIterator<Item = Vec<u8>>,
    ) -> Result<Draws, String> {
        let names: Vec<&str> = layout.field_names().collect();
        let mut columns: Vec<Vec<String>> = vec![Vec::new(); names.len()];
        for key in keys {
            let values = layout.decode(&key).map_err(|e| {
                format!(
                    "a sampled key {} is not a key of the table's layout: {e}",
                    rowkey_core::hbase::to_string_binary(&key)
                )
            })?;
            for (column, v) in columns.iter_mut().zip(values) {
                column.push(v.to_string());
            }
        }
        let mut draws = Draws::default();
        for (name, column) in names.into_iter().zip(columns) {
            if !column.is_empty() {
                draws.set(name.to_string(), Draw::texts(column));
            }
        }
        Ok(draws)
    }
}

/// A field drawn under one design: the draw and, for texts, each read
/// as the design's field reads it.
#[derive(Clone)]
pub(crate) struct BoundDraw {
    /// The field's name, hashed: what makes two fields draw apart.
    salt: u64,
    per_user: bool,
    values: Values,
}

#[derive(Clone)]
enum Values {
    Listed(Arc<Vec<Value>>),
    Uniform {
        lo: i128,
        span: u128,
        layout: Arc<DynLayout>,
        field: String,
    },
}

impl BoundDraw {
    /// `draw` for field `field` of `layout`: every listed value read by
    /// the field's type, the ends of a range checked.
    pub(crate) fn new(
        draw: &Draw,
        layout: &Arc<DynLayout>,
        field: &str,
    ) -> Result<BoundDraw, String> {
        let read = |text: &str| {
            layout.value(field, text).map_err(|e| {
                format!(
                    "field `{field}` cannot hold the drawn value `{text}`: {}",
                    chain(&e)
                )
            })
        };
        let values = match &draw.kind {
            Kind::Texts(texts) => {
                // Each distinct text read once.
                let mut read_once: BTreeMap<&str, Value> = BTreeMap::new();
                let mut values = Vec::with_capacity(texts.len());
                for t in texts.iter() {
                    let v = match read_once.get(t.as_str()) {
                        Some(v) => v.clone(),
                        None => {
                            let v = read(t)?;
                            read_once.insert(t, v.clone());
                            v
                        }
                    };
                    values.push(v);
                }
                Values::Listed(Arc::new(values))
            }
            Kind::Uniform { lo, span } => {
                read(&lo.to_string())?;
                read(&(lo + (*span - 1) as i128).to_string())?;
                Values::Uniform {
                    lo: *lo,
                    span: *span,
                    layout: Arc::clone(layout),
                    field: field.to_string(),
                }
            }
        };
        Ok(BoundDraw {
            salt: mix(field.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
            })),
            per_user: draw.per_user,
            values,
        })
    }

    /// The value `e` draws.
    pub(crate) fn value(&self, e: &Event) -> Value {
        let mut h = mix(self.salt ^ e.user_id);
        if !self.per_user {
            h = mix(h ^ e.ts_millis as u64);
        }
        match &self.values {
            Values::Listed(values) => values[(h % values.len() as u64) as usize].clone(),
            Values::Uniform {
                lo,
                span,
                layout,
                field,
            } => {
                let n = lo + (u128::from(h) % span) as i128;
                // Both ends were read at binding: every value between is
                // a value of the field's integer type.
                layout
                    .value(field, &n.to_string())
                    .unwrap_or(Value::I128(n))
            }
        }
    }
}

/// splitmix64's finalizer: a well-spread hash of `x`.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound(dist: &str, spec: &str) -> BoundDraw {
        let layout = Arc::new(DynLayout::parse(spec).unwrap());
        BoundDraw::new(&dist.parse().unwrap(), &layout, "f").unwrap()
    }

    fn event(user_id: u64, ts_millis: i64) -> Event {
        Event { user_id, ts_millis }
    }

    #[test]
    fn an_entity_keeps_its_value_when_drawn_per_user() {
        let d = bound("choice(a,b,c,d,e,f,g,h)@user", "[f String][user_id u64]");
        for user in 0..50 {
            let first = d.value(&event(user, 0));
            assert!((1..100).all(|ts| d.value(&event(user, ts)) == first));
        }
        // Per event, one entity's events take several values.
        let d = bound("choice(a,b,c,d,e,f,g,h)", "[f String][user_id u64]");
        let seen: std::collections::BTreeSet<String> = (0..100)
            .map(|ts| d.value(&event(1, ts)).to_string())
            .collect();
        assert!(seen.len() > 4, "{seen:?}");
    }

    #[test]
    fn uniform_values_stay_in_their_range_and_cover_it() {
        let d = bound("uniform(10..14)", "[f u8][user_id u64]");
        let mut counts = [0u32; 4];
        for i in 0..4_000 {
            match d.value(&event(i % 97, i as i64)) {
                Value::U8(v @ 10..=13) => counts[usize::from(v - 10)] += 1,
                other => panic!("{other:?} is outside 10..14"),
            }
        }
        assert!(
            counts.iter().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
        // A range the field cannot hold is refused when bound, naming it.
        let layout = Arc::new(DynLayout::parse("[f u8][user_id u64]").unwrap());
        let err = BoundDraw::new(&"uniform(0..300)".parse().unwrap(), &layout, "f")
            .err()
            .unwrap();
        assert!(
            err.contains("field `f` cannot hold the drawn value `299`"),
            "{err}"
        );
    }

    #[test]
    fn a_samples_values_are_drawn_as_often_as_it_holds_them() {
        let texts: Vec<String> = ["1", "1", "1", "2"].iter().map(|s| s.to_string()).collect();
        let layout = Arc::new(DynLayout::parse("[f u8][user_id u64]").unwrap());
        let d = BoundDraw::new(&Draw::texts(texts), &layout, "f").unwrap();
        let ones = (0..10_000)
            .filter(|i| d.value(&event(i % 13, *i as i64)) == Value::U8(1))
            .count();
        assert!((7_000..8_000).contains(&ones), "{ones} of 10000");
    }
}
