//! The team's own queries, given as filters on key fields (`--query
//! 'by_metric: metric=3 ts_millis=1700000000000..'`): each design with
//! every field the query names reads it as a skip scan of its key
//! (`KeyFilter`), every other design by a full scan.
//!
//! What the answer holds is decided once, by the first design that has
//! every field (the reference): the events whose keys under it the
//! filter matches. Every design's rows are checked against that answer,
//! so a design whose plan reads differently fails the run.

use std::sync::Arc;

use rowkey_core::dynamic::Condition;
use rowkey_core::{DynLayout, KeyFilter};

use crate::{Access, BoxError, Design, Event, Query};

/// A query given as text: a name and `field=value` or `field=LO..HI`
/// conditions, all of which a row meets.
///
/// ```
/// let q = rowkey_lab::ask::Asked::parse("cpu: metric=3 ts_millis=10..20").unwrap();
/// assert_eq!(q.name(), "cpu");
/// assert_eq!(q.fields().collect::<Vec<_>>(), ["metric", "ts_millis"]);
/// assert!(rowkey_lab::ask::Asked::parse("cpu metric=3").unwrap_err().contains("NAME:"));
/// ```
#[derive(Clone, Debug)]
pub struct Asked {
    name: String,
    conditions: Vec<(String, String)>,
}

impl Asked {
    /// `NAME: FIELD=TEXT ...`, as `--query` takes it.
    pub fn parse(arg: &str) -> Result<Asked, String> {
        let (name, conditions) = arg
            .split_once(':')
            .filter(|(n, _)| !n.trim().is_empty())
            .ok_or_else(|| format!("`{arg}` is not `NAME: FIELD=VALUE ...`"))?;
        let conditions = conditions
            .split_whitespace()
            .map(|c| {
                c.split_once('=')
                    .filter(|(f, t)| !f.is_empty() && !t.is_empty())
                    .map(|(f, t)| (f.to_string(), t.to_string()))
                    .ok_or_else(|| {
                        format!(
                            "query `{}`: `{c}` is not FIELD=VALUE or FIELD=LO..HI",
                            name.trim()
                        )
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        if conditions.is_empty() {
            return Err(format!("query `{}`: no condition", name.trim()));
        }
        Ok(Asked {
            name: name.trim().to_string(),
            conditions,
        })
    }

    /// The query's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The fields it names, in its order.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.conditions.iter().map(|(f, _)| f.as_str())
    }

    /// Whether `layout` has every field the query names.
    pub fn fits(&self, layout: &DynLayout) -> bool {
        self.fields().all(|f| layout.field_index(f).is_ok())
    }

    /// The query's filter on `layout`'s keys.
    pub fn filter(&self, layout: &DynLayout) -> Result<KeyFilter, String> {
        let mut filter = layout.filter();
        for (field, text) in &self.conditions {
            let c: Condition = layout
                .condition(field, text)
                .map_err(|e| format!("query `{}`: {e}", self.name))?;
            filter = filter
                .condition(field, c)
                .map_err(|e| format!("query `{}`: {e}", self.name))?;
        }
        filter
            .build()
            .map_err(|e| format!("query `{}`: {e}", self.name))
    }

    /// The query over the lab's events: its answer, the events whose keys
    /// under `reference` (a design of `layout`, which has every field)
    /// its filter matches; its plan where a design has none of its own,
    /// a full scan that keeps the answer's rows.
    pub fn query(
        &self,
        reference: Design<Event>,
        layout: &DynLayout,
    ) -> Result<Query<Event>, String> {
        let filter = self.filter(layout)?;
        let reference = Arc::new(reference);
        let expect = move |e: &Event| {
            reference
                .key(e)
                .map(|k| filter.matches(&k))
                .unwrap_or(false)
        };
        let keep = Arc::new(expect.clone());
        Ok(Query::new(
            self.name.clone(),
            expect,
            move |d: &Design<Event>| -> Result<Access<Event>, BoxError> {
                let keep = Arc::clone(&keep);
                Ok(Access::scan(d.scan_all()).filter(move |e| keep(e)))
            },
        ))
    }

    /// `design` with its own plan for this query: a skip scan of the
    /// query's filter on `layout`, its design's.
    pub fn plan_on(
        &self,
        design: Design<Event>,
        layout: &DynLayout,
    ) -> Result<Design<Event>, String> {
        let filter = self.filter(layout)?;
        Ok(design.plan(self.name.clone(), move || {
            Ok::<_, BoxError>(Access::skip(filter.clone()))
        }))
    }
}
