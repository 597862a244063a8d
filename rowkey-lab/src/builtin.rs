//! The built-in designs and queries over [`Event`]s: the classic row-key
//! designs of the HBase and Bigtable guides, in binary and in text, and
//! three typical queries.

use std::collections::HashMap;
use std::ops::Bound;

use rowkey_core::prelude::*;
use rowkey_core::EncodeError;

use crate::{Access, Design, Event, Query};

/// `[ts][user]`: timestamp first, the naive design.
#[derive(RowKey, Debug, Clone, Copy, PartialEq)]
pub struct TsFirst {
    /// Event time, milliseconds.
    pub ts_millis: i64,
    /// The entity.
    pub user_id: u64,
}

/// `[reversed ts][user]`: the timestamp's bytes reversed, so the
/// fast-changing low byte leads.
#[derive(RowKey, Debug, Clone, Copy, PartialEq)]
pub struct ReversedTs {
    /// Event time, milliseconds, bytes reversed.
    #[reverse]
    pub ts_millis: i64,
    /// The entity.
    pub user_id: u64,
}

/// `[salt][ts][user]`: a hash byte over the whole key, then timestamp first.
#[derive(RowKey, Debug, Clone, Copy, PartialEq)]
#[salt(buckets = 16)]
pub struct SaltedTs {
    /// Event time, milliseconds.
    pub ts_millis: i64,
    /// The entity.
    pub user_id: u64,
}

/// `[salt(user)][user][MAX - ts]`: field promotion, newest first.
#[derive(RowKey, Debug, Clone, Copy, PartialEq)]
#[salt(buckets = 16, by(user_id))]
pub struct UserNewest {
    /// The entity.
    pub user_id: u64,
    /// Event time, milliseconds, newest first.
    #[desc_ts]
    pub ts_millis: i64,
}

/// `[user][ts]`: the entity first, unsalted (hot when entities are
/// sequential, like order ids).
#[derive(RowKey, Debug, Clone, Copy, PartialEq)]
pub struct UserFirst {
    /// The entity.
    pub user_id: u64,
    /// Event time, milliseconds.
    pub ts_millis: i64,
}

/// Text `ts_user`: `1700000000123_00000000000000000042`.
#[derive(RowKey, Debug, Clone, Copy, PartialEq)]
#[rowkey(text, sep = "_")]
pub struct TsUser {
    /// Event time, milliseconds, in 13 digits (until the year 2286).
    #[digits(13)]
    pub ts_millis: u64,
    /// The entity.
    pub user_id: u64,
}

/// Text `reversed ts _ user`: the timestamp's digits reversed
/// (`3210000000071_...`), the HBase guides' fix for sequential keys that
/// people can still read.
#[derive(RowKey, Debug, Clone, Copy, PartialEq)]
#[rowkey(text, sep = "_")]
pub struct ReversedTsUser {
    /// Event time, milliseconds, 13 digits, reversed.
    #[reverse]
    #[digits(13)]
    pub ts_millis: u64,
    /// The entity.
    pub user_id: u64,
}

/// Text `user % 10 _ user _ MAX-ts`: the call-record key of the HBase
/// guides (`0_18518885160_9223370398234269807` with a phone number).
#[derive(RowKey, Debug, Clone, Copy, PartialEq)]
#[rowkey(text, sep = "_")]
#[salt(buckets = 10, by(user_id), hash = "mod")]
pub struct ModUserNewest {
    /// The entity.
    pub user_id: u64,
    /// Event time, milliseconds, as `Long.MAX_VALUE - ts`.
    #[desc_ts]
    pub ts_millis: i64,
}

/// Every built-in design's name, in report order.
pub const DESIGNS: [&str; 8] = [
    "ts_first",
    "reversed_ts",
    "salted_ts",
    "user_newest",
    "user_first",
    "ts_user",
    "reversed_ts_user",
    "mod_user_newest",
];

/// The designs the command runs when `--designs` is not given: all but
/// `user_first`, which repeats `user_newest` without its salt.
pub const DEFAULT_DESIGNS: [&str; 7] = [
    "ts_first",
    "reversed_ts",
    "salted_ts",
    "user_newest",
    "ts_user",
    "reversed_ts_user",
    "mod_user_newest",
];

/// A text key stores the time unsigned.
fn unsigned(ts: i64) -> Result<u64, String> {
    u64::try_from(ts)
        .map_err(|_| format!("time {ts} is before 1970: the text key stores it unsigned"))
}

/// The built-in design named `name`, or `None`.
///
/// ```
/// let d = rowkey_lab::builtin::design("user_newest").unwrap();
/// assert_eq!(
///     d.layout().to_string(),
///     "[salt(user_id)/16 1][user_id u64 8][ts_millis desc_ts i64 8] = 17 bytes"
/// );
/// assert!(rowkey_lab::builtin::design("nope").is_none());
/// ```
pub fn design(name: &str) -> Option<Design<Event>> {
    let d = match name {
        "ts_first" => Design::new(name, |e: &Event| TsFirst {
            ts_millis: e.ts_millis,
            user_id: e.user_id,
        }),
        "reversed_ts" => Design::new(name, |e: &Event| ReversedTs {
            ts_millis: e.ts_millis,
            user_id: e.user_id,
        }),
        "salted_ts" => Design::new(name, |e: &Event| SaltedTs {
            ts_millis: e.ts_millis,
            user_id: e.user_id,
        }),
        "user_newest" => Design::new(name, |e: &Event| UserNewest {
            user_id: e.user_id,
            ts_millis: e.ts_millis,
        }),
        "user_first" => Design::new(name, |e: &Event| UserFirst {
            user_id: e.user_id,
            ts_millis: e.ts_millis,
        }),
        "ts_user" => Design::try_new(name, |e: &Event| {
            Ok::<_, String>(TsUser {
                ts_millis: unsigned(e.ts_millis)?,
                user_id: e.user_id,
            })
        }),
        "reversed_ts_user" => Design::try_new(name, |e: &Event| {
            Ok::<_, String>(ReversedTsUser {
                ts_millis: unsigned(e.ts_millis)?,
                user_id: e.user_id,
            })
        }),
        "mod_user_newest" => Design::new(name, |e: &Event| ModUserNewest {
            user_id: e.user_id,
            ts_millis: e.ts_millis,
        }),
        _ => return None,
    };
    Some(d)
}

/// Which entity the per-user queries ask about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entity {
    /// The entity with the most events (the default): the one whose rows
    /// are a hot key range, and the costliest per-user reads.
    Hottest,
    /// The entity in the middle of the ranking by events: a typical one.
    Median,
    /// This entity.
    Id(u64),
}

impl std::str::FromStr for Entity {
    type Err = String;

    /// `hottest`, `median` or an entity id.
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "hottest" => Ok(Entity::Hottest),
            "median" => Ok(Entity::Median),
            id => id.replace('_', "").parse().map(Entity::Id).map_err(|_| {
                format!("`{s}` is not an entity: give `hottest`, `median` or an entity id")
            }),
        }
    }
}

/// The short names of the built-in queries, in [`queries`] order, for a
/// query mix: the latest 20 of one entity, everything of the last minute,
/// one entity's hour.
pub const QUERY_NAMES: [&str; 3] = ["latest", "minute", "hour"];

/// The default query mix: per user, ten "latest 20" reads and three "one
/// hour" reads for every "last minute" read of everyone.
pub const DEFAULT_MIX: &str = "latest=10,minute=1,hour=3";

/// Parses a query mix, `latest=10,minute=1,hour=3`: a weight (how often the
/// query runs) per built-in query; a query not named weighs 0.
///
/// ```
/// use rowkey_lab::builtin::parse_mix;
/// assert_eq!(parse_mix("latest=10,hour=2.5"), Ok(vec![10.0, 0.0, 2.5]));
/// assert!(parse_mix("latest=1,latest=2").unwrap_err().contains("twice"));
/// assert!(parse_mix("week=1").unwrap_err().contains("`week`"));
/// ```
pub fn parse_mix(s: &str) -> Result<Vec<f64>, String> {
    parse_mix_of(s, &QUERY_NAMES)
}

/// [`parse_mix`] over the queries named `names` (the built-in ones and a
/// team's own, `--query`).
pub fn parse_mix_of(s: &str, names: &[&str]) -> Result<Vec<f64>, String> {
    let mut mix = vec![None; names.len()];
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, weight) = part
            .split_once('=')
            .ok_or_else(|| format!("`{part}` is not QUERY=WEIGHT"))?;
        let i = names
            .iter()
            .position(|q| *q == name.trim())
            .ok_or_else(|| {
                format!(
                    "`{name}` is not a query: the queries are {}",
                    names.join(", ")
                )
            })?;
        let w: f64 = weight
            .trim()
            .parse()
            .ok()
            .filter(|w: &f64| w.is_finite() && *w >= 0.0)
            .ok_or_else(|| format!("`{weight}` (for `{name}`) is not a weight: a number >= 0"))?;
        if mix[i].replace(w).is_some() {
            return Err(format!("`{name}` is given twice"));
        }
    }
    if mix.iter().all(|w| w.is_none_or(|w| w == 0.0)) {
        return Err(format!("the mix `{s}` weighs no query"));
    }
    Ok(mix.into_iter().map(|w| w.unwrap_or(0.0)).collect())
}

/// The `n` entities with the most events, each with its share of all
/// events, busiest first (ties: the lower id first).
pub fn hottest(events: &[Event], n: usize) -> Vec<(u64, f64)> {
    ranked(events)
        .into_iter()
        .take(n)
        .map(|(c, u)| (u, c as f64 / events.len().max(1) as f64))
        .collect()
}

/// Entities by events, most first, ties by id.
fn ranked(events: &[Event]) -> Vec<(usize, u64)> {
    let mut counts: HashMap<u64, usize> = HashMap::new();
    for e in events {
        *counts.entry(e.user_id).or_default() += 1;
    }
    let mut by_count: Vec<(usize, u64)> = counts.into_iter().map(|(u, c)| (c, u)).collect();
    by_count.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    by_count
}

/// What the built-in queries ask about, chosen from the workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subjects {
    /// The entity of the per-user queries ([`Entity::Hottest`] by default).
    pub user: u64,
    /// The newest event's time.
    pub now: i64,
    /// An hour in the middle of the workload (all of it when shorter).
    pub hour: (i64, i64),
}

impl Subjects {
    /// Chooses the subjects from `events`, asking about the hottest entity.
    pub fn of(events: &[Event]) -> Subjects {
        Subjects::about(events, Entity::Hottest).expect("the hottest entity has events")
    }

    /// Chooses the subjects from `events`, asking about `entity`; an error
    /// when an entity id has no events.
    pub fn about(events: &[Event], entity: Entity) -> Result<Subjects, String> {
        let now = events.iter().map(|e| e.ts_millis).max().unwrap_or(0);
        let first = events.iter().map(|e| e.ts_millis).min().unwrap_or(0);
        // No overflow for times at the ends of i64 (a CSV's, say).
        let mid = first.midpoint(now);
        let by_count = ranked(events);
        let user = match entity {
            Entity::Hottest => by_count.first().map_or(0, |&(_, u)| u),
            Entity::Median => by_count.get(by_count.len() / 2).map_or(0, |&(_, u)| u),
            Entity::Id(id) if events.is_empty() || by_count.iter().any(|&(_, u)| u == id) => id,
            Entity::Id(id) => return Err(format!("entity {id} has no events in this workload")),
        };
        Ok(Subjects {
            user,
            now,
            hour: (mid.saturating_sub(1_800_000), mid.saturating_add(1_800_000)),
        })
    }
}

type Plan = Result<Access<Event>, EncodeError>;

/// The name of the built-in query "the latest 20 events of one entity".
pub const LATEST: &str = "latest 20 events of one user";
/// The name of the built-in query "everything of the last minute".
pub const MINUTE: &str = "all events of the last minute";
/// The name of the built-in query "one entity's events in an hour".
pub const HOUR: &str = "one user's events in an hour";

/// The bounds the built-in queries use, from their subjects.
#[derive(Clone, Copy)]
struct Bounds {
    user: u64,
    /// The last minute: after this time.
    minute_start: i64,
    hour: (i64, i64),
}

impl Bounds {
    fn of(s: Subjects) -> Bounds {
        Bounds {
            user: s.user,
            // Saturating: a workload at the start of i64 has no minute
            // before it.
            minute_start: s.now.saturating_sub(60_000),
            hour: s.hour,
        }
    }

    fn of_user(self) -> impl Fn(&Event) -> bool + Clone + Send + Sync + 'static {
        move |e: &Event| e.user_id == self.user
    }

    fn in_minute(self) -> impl Fn(&Event) -> bool + Clone + Send + Sync + 'static {
        move |e: &Event| e.ts_millis > self.minute_start
    }

    fn in_hour(self) -> impl Fn(&Event) -> bool + Clone + Send + Sync + 'static {
        move |e: &Event| e.user_id == self.user && (self.hour.0..self.hour.1).contains(&e.ts_millis)
    }

    fn minute(self) -> (Bound<i64>, Bound<i64>) {
        (Bound::Excluded(self.minute_start), Bound::Unbounded)
    }

    /// The last minute for a key that stores time unsigned: a minute that
    /// starts before 1970 holds every stored time (`Excluded(0)` would lose
    /// the events at 0).
    fn minute_u(self) -> (Bound<u64>, Bound<u64>) {
        let start = u64::try_from(self.minute_start).map_or(Bound::Unbounded, Bound::Excluded);
        (start, Bound::Unbounded)
    }

    fn hour_u(self) -> std::ops::Range<u64> {
        (self.hour.0.max(0) as u64)..(self.hour.1.max(0) as u64)
    }
}

/// The three typical queries: the latest 20 events of one entity, every
/// event of the last minute, one entity's events in an hour. Their own
/// plans read the whole table and keep what they ask for: what a design
/// without a plan of its own for them costs. [`design_for`] gives each
/// built-in design its plans.
pub fn queries(s: Subjects) -> Vec<crate::Query<Event>> {
    let b = Bounds::of(s);
    let (of_user, in_minute, in_hour) = (b.of_user(), b.in_minute(), b.in_hour());
    vec![
        Query::new(LATEST, of_user.clone(), move |d: &Design<Event>| -> Plan {
            Ok(Access::scan(d.scan_all()).filter(of_user.clone()))
        })
        .newest(20, |e| e.ts_millis),
        Query::new(
            MINUTE,
            in_minute.clone(),
            move |d: &Design<Event>| -> Plan {
                Ok(Access::scan(d.scan_all()).filter(in_minute.clone()))
            },
        ),
        Query::new(HOUR, in_hour.clone(), move |d: &Design<Event>| -> Plan {
            Ok(Access::scan(d.scan_all()).filter(in_hour.clone()))
        }),
    ]
}

/// The built-in design named `name` with its own plans for the built-in
/// [`queries`] about `s`: the reads its key serves. The plans belong to the
/// design, not to its name: a renamed design keeps them.
///
/// ```
/// use rowkey_lab::builtin::{design_for, Subjects};
/// let s = Subjects { user: 7, now: 1_700_000_000_000, hour: (0, 3_600_000) };
/// let d = design_for("user_newest", s).unwrap().renamed("mine");
/// assert_eq!(d.name(), "mine");
/// assert_eq!(
///     d.plans().collect::<Vec<_>>(),
///     ["latest 20 events of one user", "all events of the last minute", "one user's events in an hour"]
/// );
/// ```
pub fn design_for(name: &str, s: Subjects) -> Option<Design<Event>> {
    let d = design(name)?;
    let b = Bounds::of(s);
    let (user, hour) = (b.user, b.hour.0..b.hour.1);
    let of_user = b.of_user();
    Some(match name {
        // The per-user designs answer "the last minute of everyone" with
        // a skip scan: each user's minute, the rest of the user's rows
        // skipped by a seek.
        "user_newest" => d
            .plan(LATEST, move || -> Plan {
                Ok(Access::scan(UserNewest::scan_by_user_id(user)).limit(20))
            })
            .plan(MINUTE, move || -> Plan {
                Ok(Access::skip(
                    UserNewest::filter().ts_millis(b.minute()).build()?,
                ))
            })
            .plan(HOUR, move || -> Plan {
                Ok(Access::scan(UserNewest::range_by_user_id_ts_millis(
                    user,
                    hour.clone(),
                )))
            }),
        "mod_user_newest" => d
            .plan(LATEST, move || -> Plan {
                Ok(Access::scan(ModUserNewest::scan_by_user_id(user)).limit(20))
            })
            .plan(MINUTE, move || -> Plan {
                // No time before 1970 in a text key: a minute that starts
                // before it starts at 0.
                let minute = match b.minute() {
                    (Bound::Excluded(t), end) if t < 0 => (Bound::Unbounded, end),
                    m => m,
                };
                Ok(Access::skip(
                    ModUserNewest::filter().ts_millis(minute).build()?,
                ))
            })
            .plan(HOUR, move || -> Plan {
                // A text key stores no time before 1970: clamp, as ts_user
                // does, rather than fail the query.
                let clamped = hour.start.max(0)..hour.end.max(0);
                Ok(Access::scan(ModUserNewest::range_by_user_id_ts_millis(
                    user, clamped,
                )?))
            }),
        // Oldest-first keys: read backwards until 20 of the user's rows
        // (per bucket when salted).
        "user_first" => d
            .plan(LATEST, move || -> Plan {
                Ok(Access::scan(UserFirst::scan_by_user_id(user))
                    .reverse()
                    .limit(20))
            })
            .plan(MINUTE, move || -> Plan {
                Ok(Access::skip(
                    UserFirst::filter().ts_millis(b.minute()).build()?,
                ))
            })
            .plan(HOUR, move || -> Plan {
                Ok(Access::scan(UserFirst::range_by_user_id_ts_millis(
                    user,
                    hour.clone(),
                )))
            }),
        "ts_first" => {
            let (latest, in_hour) = (of_user.clone(), of_user.clone());
            d.plan(LATEST, move || -> Plan {
                Ok(Access::scan(TsFirst::scan_all())
                    .filter(latest.clone())
                    .reverse()
                    .limit(20))
            })
            .plan(MINUTE, move || -> Plan {
                Ok(Access::scan(TsFirst::range_by_ts_millis(b.minute())))
            })
            .plan(HOUR, move || -> Plan {
                Ok(Access::scan(TsFirst::range_by_ts_millis(hour.clone())).filter(in_hour.clone()))
            })
        }
        "salted_ts" => {
            let (latest, in_hour) = (of_user.clone(), of_user.clone());
            d.plan(LATEST, move || -> Plan {
                Ok(Access::scan(SaltedTs::scan_all())
                    .filter(latest.clone())
                    .reverse()
                    .limit(20))
            })
            .plan(MINUTE, move || -> Plan {
                Ok(Access::scan(SaltedTs::range_by_ts_millis(b.minute())))
            })
            .plan(HOUR, move || -> Plan {
                Ok(
                    Access::scan(SaltedTs::range_by_ts_millis(hour.clone()))
                        .filter(in_hour.clone()),
                )
            })
        }
        "ts_user" => {
            let (latest, in_hour) = (of_user.clone(), of_user.clone());
            d.plan(LATEST, move || -> Plan {
                Ok(Access::scan(TsUser::scan_all())
                    .filter(latest.clone())
                    .reverse()
                    .limit(20))
            })
            .plan(MINUTE, move || -> Plan {
                Ok(Access::scan(TsUser::range_by_ts_millis(b.minute_u())?))
            })
            .plan(HOUR, move || -> Plan {
                Ok(Access::scan(TsUser::range_by_ts_millis(b.hour_u())?).filter(in_hour.clone()))
            })
        }
        // The reversed-time designs serve no query by range: their own
        // plans are the queries' full scans.
        _ => d,
    })
}
