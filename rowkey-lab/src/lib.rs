//! The rowkey hot-spot lab: put row-key designs in front of a workload and
//! see where the writes land, what the queries cost and how long the keys
//! are, before a table lives with the choice for years.
//!
//! The lab is generic over your events and your key types:
//!
//! - a [`Design`] is a name and a function from an event to any
//!   `#[derive(RowKey)]` key;
//! - a [`Query`] is a predicate selecting the events of its answer and, for
//!   each design, the [`Access`] (a typed [`Scan`](rowkey_core::Scan), rows
//!   to discard, where to stop) that reads it;
//! - [`Lab::run`] writes every event under every design to a [`Store`]
//!   (redb, or Bigtable's emulator with the `bigtable` feature), models the
//!   table's regions and region servers the way HBase splits and balances
//!   them, measures the write spread over time, runs every query on every
//!   design and checks each answer against the workload;
//! - [`report::write`] draws a key-visualizer [`Heatmap`] per design and an
//!   HTML report.
//!
//! `examples/own_design.rs` compares three designs of a struct of its own;
//! [`builtin`] holds the designs and queries the command runs, and
//! [`workload`] the generators and the CSV reader, and [`runtime`] the
//! designs given as a layout's text (`--design`).

pub mod ask;
pub mod builtin;
mod design;
pub mod draw;
mod heatmap;
pub mod kept;
mod lab;
pub mod regions;
pub mod report;
mod results;
pub mod runtime;
mod settings;
pub mod store;
pub mod workload;

#[cfg(feature = "bigtable")]
pub mod bigtable;
#[cfg(feature = "hbase")]
pub mod hbase;

pub use design::{Access, Design, Query};
pub use heatmap::Heatmap;
pub use lab::Lab;
pub use results::{
    DesignReport, EngineIngest, Ingest, QueryRun, Ranked, Report, Verdict, Window, HOT_SPOT,
    READ_TIE,
};
pub use settings::Settings;
pub use store::{EngineRegion, RedbStore, SkipRead, Store};
pub use workload::{Event, Workload};

/// The lab's error type: every error names what failed (the design, the
/// query, the event, the file) in its message.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;
