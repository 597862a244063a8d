//! Moving a table's rows from one key layout to another (feature
//! `migrate`): a [`Migration`] re-keys each row, the engines copy with it
//! (`rowkey_core::redb::migrate`, `rowkey_core::fjall::migrate`, and the
//! same pair in rowkey-hbase and rowkey-bigtable), check the result with
//! `verify`, and keep a service's writes in both tables meanwhile through
//! their `MigratingTable`.
//!
//! A migration maps the new layout's fields from the old one's by name.
//! A field only the new layout has takes a value from
//! [`set`](Migration::set); anything else (a field dropped, a type
//! changed, a value computed from others) is a function of the old values
//! ([`Migration::mapped`]), or of the old key itself for derived types
//! ([`Migration::typed`]). What the new layout changes about the bytes
//! (a salt of 10 buckets to 32, a timestamp turned `desc_ts`, text digits
//! turned binary) needs nothing: the values are re-encoded.
//!
//! ```
//! use rowkey_core::migrate::Migration;
//! use rowkey_core::{DynLayout, Value};
//!
//! let old = DynLayout::parse("[salt(user_id)/10 mod][user_id u64][ts i64]")?;
//! let new = DynLayout::parse("[salt(user_id)/32][user_id u64][region u8][ts desc_ts i64]")?;
//! // `region` is new: without a value the migration cannot start.
//! let migration = Migration::new(old.layout(), new.layout())?;
//! assert_eq!(
//!     migration.check().unwrap_err().to_string(),
//!     "field `region` of the new layout has no value: give it one with Migration::set, or map the old values with Migration::mapped"
//! );
//! let migration = migration.set("region", Value::U8(3));
//! let old_key = old.encode(&[42u64.into(), 1_700_000_000_000i64.into()])?;
//! let new_key = migration.rekey(&old_key)?;
//! assert_eq!(new.decode(&new_key)?, [Value::U64(42), Value::U8(3), Value::I64(1_700_000_000_000)]);
//!
//! // Dropping a field loses what told rows apart: it needs a mapping.
//! let narrow = DynLayout::parse("[user_id u64]")?;
//! let err = Migration::new(old.layout(), narrow.layout()).unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "field `ts` of the old layout is not in the new one: map the old values with Migration::mapped to drop it"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The copy and the writes beside it
//! Each engine's `migrate` reads the old table in pages, one part at a
//! time (a salt bucket of the old layout, or the whole table unsalted),
//! re-keys each row and writes it to the new table with a checkpoint of
//! the part: a migration killed half-way resumes after the last page it
//! wrote, with no row copied twice and none skipped ([`MigrateReport`]
//! counts the parts it found done). The checkpoint names both layouts, so
//! a run with other layouts against the same new table is refused.
//!
//! A service keeps writing meanwhile through the engine's
//! `MigratingTable`, whose [`Phase`] says where writes and reads go. On
//! the embedded stores a page of the copy and a service's write are each
//! one transaction, so a page never writes over a newer write of the same
//! row and a row deleted before its page is not copied back.
//!
//! # Verification
//! `verify` reads both tables and compares, per part of the new key space
//! (the byte after the prefix: the salt bucket of a salted layout), an
//! order-independent digest of the rows the old table should give (each
//! row's new key and value) with the new table's. Where a part's digests
//! differ it looks row by row, and [`VerifyReport`] counts the rows
//! missing from the new table, extra in it and differing, with up to
//! [`MAX_EXAMPLES`] decoded keys of each.

mod error;
#[cfg(feature = "index")]
mod indexed;
mod report;
mod run;

use alloc::boxed::Box;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

pub use error::MigrateError;
#[cfg(feature = "index")]
pub use indexed::MigratingIndexedTable;
pub use report::{Examples, MigrateReport, Progress, VerifyReport, MAX_EXAMPLES};
pub use run::{
    checkpoint_id, copy, parts, verify, CopyStore, CopyTx, EachRow, Mark, Snapshot, Source,
    Verifier, PAGE_ROWS,
};

use crate::dynamic::{DynLayout, Value};
use crate::key::{DecodeRowKey, RowKey};
use crate::layout::{FieldLayout, Layout};

/// Where a `MigratingTable`'s writes and reads go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Phase {
    /// While the copy runs: writes and deletes go to both tables, reads
    /// come from the old one.
    DualWrite,
    /// After `verify`: writes still go to both (so the move can be
    /// rolled back), reads come from the new table.
    Cutover,
    /// The old table is no longer written: writes, deletes and reads are
    /// the new table's alone.
    Done,
}

/// A `MigratingTable`'s [`Phase`], shared by the threads writing through
/// it (an atomic): each engine's `MigratingTable` holds one.
#[derive(Debug, Default)]
pub struct SharedPhase(core::sync::atomic::AtomicU8);

impl SharedPhase {
    /// The phase now ([`Phase::DualWrite`] at first).
    pub fn get(&self) -> Phase {
        match self.0.load(core::sync::atomic::Ordering::Acquire) {
            0 => Phase::DualWrite,
            1 => Phase::Cutover,
            _ => Phase::Done,
        }
    }

    /// Moves to `phase`.
    pub fn set(&self, phase: Phase) {
        let n = match phase {
            Phase::DualWrite => 0,
            Phase::Cutover => 1,
            Phase::Done => 2,
        };
        self.0.store(n, core::sync::atomic::Ordering::Release);
    }
}

/// The two tables of a move, and where a service's write or read of a
/// row goes in the current [`Phase`]: what HBase's and Bigtable's
/// `MigratingTable`s route by.
#[derive(Debug)]
pub struct Route<'m> {
    old: String,
    new: String,
    migration: &'m Migration,
    phase: SharedPhase,
}

impl<'m> Route<'m> {
    /// `old_table` moving to `new_table` by `migration`, in
    /// [`Phase::DualWrite`].
    pub fn new(old_table: &str, new_table: &str, migration: &'m Migration) -> Route<'m> {
        Route {
            old: old_table.to_string(),
            new: new_table.to_string(),
            migration,
            phase: SharedPhase::default(),
        }
    }

    /// Where writes and reads go now.
    pub fn phase(&self) -> Phase {
        self.phase.get()
    }

    /// Moves to `phase`, for the calls that start after this one.
    pub fn set_phase(&self, phase: Phase) {
        self.phase.set(phase);
    }

    /// The tables a write of the row `old_key` goes to, in the order to
    /// write, with the row's key in each: the old table under `old_key`
    /// (but in [`Phase::Done`]), then the new table under its new key.
    pub fn writes(&self, old_key: &[u8]) -> Result<Vec<(&str, Vec<u8>)>, MigrateError> {
        let new_key = self.migration.rekey(old_key)?;
        Ok(match self.phase() {
            Phase::Done => alloc::vec![(self.new.as_str(), new_key)],
            _ => alloc::vec![
                (self.old.as_str(), old_key.to_vec()),
                (self.new.as_str(), new_key)
            ],
        })
    }

    /// The table a read of the row `old_key` goes to, with the row's key:
    /// the old table in [`Phase::DualWrite`], the new one after.
    pub fn read(&self, old_key: &[u8]) -> Result<(&str, Vec<u8>), MigrateError> {
        Ok(match self.phase() {
            Phase::DualWrite => (self.old.as_str(), old_key.to_vec()),
            _ => (self.new.as_str(), self.migration.rekey(old_key)?),
        })
    }
}

/// An error a mapping function gives for a row it cannot map.
pub type MapError = Box<dyn std::error::Error + Send + Sync>;

type MapFn = dyn Fn(&[Value]) -> Result<Vec<Value>, MapError> + Send + Sync;
type TypedFn = dyn Fn(&[u8]) -> Result<Vec<u8>, MapError> + Send + Sync;

/// How the new key's values come from the old key.
enum Rule {
    /// Per field of the new layout, the index of the old field of that
    /// name, or `None` for a new field (its value from `set`).
    ByName(Vec<Option<usize>>),
    /// A function of the old values.
    Map(Box<MapFn>),
    /// A function of the old key's bytes (a derived type's decode, the
    /// user's function and the new type's encode).
    Typed(Box<TypedFn>),
}

/// How each row's key changes: see the [module documentation](self).
pub struct Migration {
    from: DynLayout,
    to: DynLayout,
    rule: Rule,
    /// Values for fields of the new layout, by index.
    set: Vec<(usize, Value)>,
    /// What `set` was given that the copy must refuse: a field the new
    /// layout lacks, or one the old layout already gives.
    wrong_set: Option<(String, &'static str)>,
}

impl fmt::Debug for Migration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rule = match self.rule {
            Rule::ByName(_) => "by name",
            Rule::Map(_) => "mapped",
            Rule::Typed(_) => "typed",
        };
        f.debug_struct("Migration")
            .field("from", &self.from.layout().to_string())
            .field("to", &self.to.layout().to_string())
            .field("rule", &rule)
            .finish_non_exhaustive()
    }
}

impl Migration {
    /// A migration from keys of layout `from` to keys of layout `to`,
    /// their fields matched by name.
    ///
    /// A field of `from` that `to` lacks (its values would be lost, and
    /// rows it told apart would become one) and a field whose type changes
    /// in a way re-encoding cannot carry (any change but an integer
    /// widened: `u32` to `u64`, `u32` to `i64`) are refused here, naming
    /// the field: map those with [`Migration::mapped`]. A field only `to`
    /// has needs a value from [`set`](Self::set) before the copy starts.
    pub fn new(from: &'static Layout, to: &'static Layout) -> Result<Migration, MigrateError> {
        let (from_dyn, to_dyn) = (dynamic("old", from)?, dynamic("new", to)?);
        for old in from.fields() {
            if to.field(old.name()).is_none() {
                return Err(MigrateError::Dropped { field: old.name() });
            }
        }
        let mut sources = Vec::with_capacity(to.fields().len());
        for new in to.fields() {
            let source = from.fields().iter().position(|f| f.name() == new.name());
            if let Some(i) = source {
                let old = &from.fields()[i];
                if !carries(old, new) {
                    return Err(MigrateError::TypeChanged {
                        field: new.name(),
                        from: old.ty(),
                        to: new.ty(),
                    });
                }
            }
            sources.push(source);
        }
        Ok(Migration {
            from: from_dyn,
            to: to_dyn,
            rule: Rule::ByName(sources),
            set: Vec::new(),
            wrong_set: None,
        })
    }

    /// A migration whose new values are `map` of the old ones (given in
    /// the old layout's field order; it returns one per field of the new
    /// layout, in its order). Any change of fields: dropped, renamed,
    /// retyped, computed. An error from `map` stops the copy at that row,
    /// naming its key.
    ///
    /// ```
    /// use rowkey_core::migrate::Migration;
    /// use rowkey_core::{DynLayout, Value};
    ///
    /// // A text host name turned into a numeric host id.
    /// let old = DynLayout::parse("[host String][ts i64]")?;
    /// let new = DynLayout::parse("[host_id u32][ts i64]")?;
    /// let migration = Migration::mapped(old.layout(), new.layout(), |old: &[Value]| {
    ///     let Value::Str(host) = &old[0] else { return Err("host is not a string".into()) };
    ///     let id: u32 = host.trim_start_matches("web-").parse()?;
    ///     Ok(vec![Value::U32(id), old[1].clone()])
    /// })?;
    /// let key = migration.rekey(&old.encode(&["web-17".into(), 5i64.into()])?)?;
    /// assert_eq!(new.decode(&key)?, [Value::U32(17), Value::I64(5)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mapped<F>(
        from: &'static Layout,
        to: &'static Layout,
        map: F,
    ) -> Result<Migration, MigrateError>
    where
        F: Fn(&[Value]) -> Result<Vec<Value>, MapError> + Send + Sync + 'static,
    {
        Ok(Migration {
            from: dynamic("old", from)?,
            to: dynamic("new", to)?,
            rule: Rule::Map(Box::new(map)),
            set: Vec::new(),
            wrong_set: None,
        })
    }

    /// Replaces how the new values are found with `map` of the old ones
    /// (as [`mapped`](Self::mapped) does), keeping the layouts this
    /// migration was built for.
    pub fn map<F>(mut self, map: F) -> Migration
    where
        F: Fn(&[Value]) -> Result<Vec<Value>, MapError> + Send + Sync + 'static,
    {
        self.rule = Rule::Map(Box::new(map));
        self
    }

    /// A migration between two derived key types, `map` turning each old
    /// key into its new one.
    ///
    /// ```
    /// use rowkey_core::migrate::Migration;
    /// use rowkey_core::prelude::*;
    ///
    /// #[derive(RowKey)]
    /// struct Old { user: u32, ts: i64 }
    /// #[derive(RowKey, Debug, PartialEq)]
    /// #[salt(buckets = 8, by(user))]
    /// struct New { user: u64, #[desc_ts] ts: i64 }
    ///
    /// let migration = Migration::typed(|old: Old| New { user: old.user.into(), ts: old.ts });
    /// let key = migration?.rekey(&Old { user: 7, ts: 9 }.encode_to_vec()?)?;
    /// assert_eq!(New::decode(&key)?, New { user: 7, ts: 9 });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn typed<Old, New>(
        map: impl Fn(Old) -> New + Send + Sync + 'static,
    ) -> Result<Migration, MigrateError>
    where
        Old: RowKey + for<'de> DecodeRowKey<'de>,
        New: RowKey,
    {
        let rekey = move |key: &[u8]| -> Result<Vec<u8>, MapError> {
            let old = Old::decode(key)?;
            Ok(map(old).encode_to_vec()?)
        };
        Ok(Migration {
            from: dynamic("old", Old::LAYOUT)?,
            to: dynamic("new", New::LAYOUT)?,
            rule: Rule::Typed(Box::new(rekey)),
            set: Vec::new(),
            wrong_set: None,
        })
    }

    /// Gives the new layout's field `field` the value `value` in every
    /// row. Only for a field the old layout lacks; any other use is
    /// refused by [`check`](Self::check), which each copy runs first.
    pub fn set(mut self, field: &str, value: impl Into<Value>) -> Migration {
        let Some(i) = self
            .to
            .layout()
            .fields()
            .iter()
            .position(|f| f.name() == field)
        else {
            self.wrong_set
                .get_or_insert((field.to_string(), "the new layout has no such field"));
            return self;
        };
        if self.from.layout().field(field).is_some() {
            self.wrong_set.get_or_insert((
                field.to_string(),
                "the old layout gives its values (a constant would make its rows one)",
            ));
            return self;
        }
        self.set.retain(|(at, _)| *at != i);
        self.set.push((i, value.into()));
        self
    }

    /// Whether the migration can run: every new field has a value, and
    /// every [`set`](Self::set) named a new field. The copy runs it first.
    pub fn check(&self) -> Result<(), MigrateError> {
        if let Some((field, why)) = &self.wrong_set {
            return Err(MigrateError::SetWhat {
                field: field.clone(),
                why,
            });
        }
        if let Rule::ByName(sources) = &self.rule {
            for (i, source) in sources.iter().enumerate() {
                if source.is_none() && !self.set.iter().any(|(at, _)| *at == i) {
                    return Err(MigrateError::Unset {
                        field: self.to.layout().fields()[i].name(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The old layout.
    pub fn from(&self) -> &DynLayout {
        &self.from
    }

    /// The new layout.
    pub fn to(&self) -> &DynLayout {
        &self.to
    }

    /// The new key of the row whose old key is `old`. A key that does not
    /// decode as the old layout, a mapping that fails and values that do
    /// not encode as the new layout are each a [`MigrateError::Rekey`]
    /// naming the old key.
    pub fn rekey(&self, old: &[u8]) -> Result<Vec<u8>, MigrateError> {
        self.rekey_inner(old).map_err(|cause| MigrateError::Rekey {
            key: old.to_vec(),
            cause,
        })
    }

    fn rekey_inner(&self, old: &[u8]) -> Result<Vec<u8>, MapError> {
        let mut values = match &self.rule {
            Rule::Typed(f) => return f(old),
            Rule::Map(f) => f(&self.from.decode(old)?)?,
            Rule::ByName(sources) => {
                let mut old = self.from.decode(old)?;
                let mut new = Vec::with_capacity(sources.len());
                for source in sources {
                    // A placeholder for a set field, filled below.
                    new.push(match source {
                        Some(i) => core::mem::replace(&mut old[*i], Value::Bool(false)),
                        None => Value::Bool(false),
                    });
                }
                new
            }
        };
        for (i, value) in &self.set {
            if let Some(slot) = values.get_mut(*i) {
                *slot = value.clone();
            }
        }
        Ok(self.to.encode(&values)?)
    }

    /// The bytes of `key`, a derived key of the old layout (for a
    /// `MigratingTable`'s typed calls): refused unless `K`'s layout is the
    /// old one.
    pub fn old_key<K: RowKey>(&self, key: &K) -> Result<Vec<u8>, MigrateError> {
        if K::LAYOUT.id() != self.from.layout().id() {
            return Err(MigrateError::OtherLayout {
                expected: self.from.layout().to_string(),
                got: K::LAYOUT.to_string(),
            });
        }
        key.encode_to_vec().map_err(MigrateError::Encode)
    }

    /// The two layouts' fingerprints, which a checkpoint records.
    pub(crate) fn ids(&self) -> [u64; 2] {
        [self.from.layout().id(), self.to.layout().id()]
    }
}

/// The run-time form of a layout, for decoding and encoding its values.
fn dynamic(side: &'static str, layout: &'static Layout) -> Result<DynLayout, MigrateError> {
    if !layout.members().is_empty() {
        return Err(MigrateError::Family {
            side,
            name: layout.name(),
        });
    }
    let text = if layout.name().is_empty() {
        layout.to_string()
    } else {
        format!("{}: {layout}", layout.name())
    };
    DynLayout::parse(&text).map_err(|error| MigrateError::Layout { side, error })
}

/// Whether re-encoding carries an old field's values into the new one:
/// the same type, or an integer widened.
fn carries(old: &FieldLayout, new: &FieldLayout) -> bool {
    if old.ty() == new.ty() {
        return true;
    }
    match (int_range(old.ty()), int_range(new.ty())) {
        (Some((old_min, old_max)), Some((new_min, new_max))) => {
            new_min <= old_min && old_max <= new_max
        }
        _ => false,
    }
}

/// An integer type's least and greatest values.
fn int_range(ty: &str) -> Option<(i128, u128)> {
    Some(match ty {
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" => (0, u64::MAX.into()),
        "u128" => (0, u128::MAX),
        "i8" => (i8::MIN.into(), i8::MAX as u128),
        "i16" => (i16::MIN.into(), i16::MAX as u128),
        "i32" => (i32::MIN.into(), i32::MAX as u128),
        "i64" => (i64::MIN.into(), i64::MAX as u128),
        "i128" => (i128::MIN, i128::MAX as u128),
        _ => return None,
    })
}
