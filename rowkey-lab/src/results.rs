//! What a lab run measures: per design its ingest (write spread per
//! window, regions), heatmap and query costs, gathered in a `Report`.

use std::time::Duration;

use rowkey_core::Layout;

use crate::heatmap::Heatmap;
use crate::lab::Settings;

/// Write spread in one measurement window.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    /// Writes in the window.
    pub writes: usize,
    /// The busiest region's share of them.
    pub busiest_region: f64,
    /// The busiest server's share of them.
    pub busiest_server: f64,
    /// Regions that received a write.
    pub regions_written: usize,
}

/// What the ingest of one design measured.
#[derive(Debug, Clone)]
pub struct Ingest {
    /// Rows stored (events minus overwrites).
    pub rows: usize,
    /// Events whose key equalled an earlier event's: the earlier row was
    /// overwritten (a key that does not identify its event).
    pub overwrites: usize,
    /// Bytes of all rows' keys.
    pub key_bytes: u64,
    /// Regions at the end.
    pub regions: usize,
    /// Splits during the ingest.
    pub splits: usize,
    /// Rows in the largest region over the mean rows per region.
    pub max_over_mean: f64,
    /// Regions per server at the end.
    pub regions_per_server: Vec<usize>,
    /// Each window's write spread, in time order.
    pub windows: Vec<Window>,
    /// Mean busiest-region share over the recent windows.
    pub recent_busiest_region: f64,
    /// Mean busiest-server share over the recent windows.
    pub recent_busiest_server: f64,
    /// Wall time of the ingest.
    pub elapsed: Duration,
}

impl Ingest {
    /// Mean key length.
    pub fn bytes_per_row(&self) -> f64 {
        self.key_bytes as f64 / self.rows.max(1) as f64
    }
}

/// One query on one design.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryRun {
    /// Ranges the store was asked for.
    pub ranges: usize,
    /// Rows the store returned before the answer was complete.
    pub rows_read: usize,
    /// Rows in the answer.
    pub rows: usize,
    /// Fastest of the runs.
    pub time: Duration,
}

/// Everything measured for one design.
#[derive(Debug, Clone)]
pub struct DesignReport {
    /// The design's name.
    pub name: String,
    /// Its key type's layout.
    pub layout: &'static Layout,
    /// The ingest.
    pub ingest: Ingest,
    /// Writes over time and key space.
    pub heatmap: Heatmap,
    /// Per query, in the order they were added.
    pub queries: Vec<QueryRun>,
}

/// The lab's results.
#[derive(Debug, Clone)]
pub struct Report {
    /// Events in the workload.
    pub events: usize,
    /// The store the rows went to.
    pub store: &'static str,
    /// The settings used.
    pub settings: Settings,
    /// Query names, in order.
    pub queries: Vec<String>,
    /// Per design, in the order they were added.
    pub designs: Vec<DesignReport>,
}

impl Report {
    /// The design named `name`.
    pub fn design(&self, name: &str) -> Option<&DesignReport> {
        self.designs.iter().find(|d| d.name == name)
    }

    /// The design that read the fewest rows for query `q` (ties: the
    /// fastest).
    pub fn winner(&self, q: usize) -> Option<&DesignReport> {
        self.designs.iter().min_by(|a, b| {
            let (x, y) = (&a.queries[q], &b.queries[q]);
            x.rows_read.cmp(&y.rows_read).then(x.time.cmp(&y.time))
        })
    }
}
