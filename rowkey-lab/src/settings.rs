//! The lab's knobs: what a run and its report both read, below both.

/// The lab's knobs.
#[derive(Debug, Clone)]
pub struct Settings {
    /// A region splits when its rows (keys and 8-byte values) take more
    /// bytes than this, as HBase splits by store size; 0: the bytes of a
    /// sixteenth of the events at 32 bytes a row (at least 64 rows' worth),
    /// the same for every design, so longer keys split sooner.
    pub split_bytes: usize,
    /// Writes between two balancer runs, the balancer's own period
    /// (independent of the measurement windows); 0: a sixtieth of the
    /// events.
    pub balance_every: usize,
    /// Region servers the regions are balanced over.
    pub servers: usize,
    /// Measurement windows over the ingest (the heatmap's columns).
    pub windows: usize,
    /// Key-space rows of the heatmap.
    pub key_rows: usize,
    /// The share of the windows, at the ingest's end, whose write spread is
    /// reported as "recent".
    pub tail: f64,
    /// Runs of each query that takes under 10 ms (a slower one runs once:
    /// its rows are the same every run); the fastest counts.
    pub query_runs: usize,
    /// Show progress bars.
    pub progress: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            split_bytes: 0,
            balance_every: 0,
            servers: 4,
            windows: 60,
            key_rows: 64,
            tail: 0.1,
            query_runs: 3,
            progress: false,
        }
    }
}

impl Settings {
    /// The split threshold, in bytes, for `events` events.
    pub fn split_bytes_for(&self, events: usize) -> usize {
        if self.split_bytes == 0 {
            (events / 16).max(64) * 32
        } else {
            self.split_bytes
        }
    }

    /// Writes between balancer runs for `events` events.
    pub fn balance_every_for(&self, events: usize) -> usize {
        if self.balance_every == 0 {
            (events / 60).max(1)
        } else {
            self.balance_every
        }
    }
}
