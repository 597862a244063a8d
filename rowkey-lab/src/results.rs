//! What a lab run measures: per design its ingest (write spread per
//! window, regions), heatmap and query costs, gathered in a `Report`.

use std::time::Duration;

use rowkey_core::Layout;

use crate::heatmap::Heatmap;
use crate::settings::Settings;

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
    /// The busiest server's share of the recent writes (the last `tail`
    /// of the events, each counted on the server that took it), one block
    /// whatever the windows.
    pub recent_busiest_server: f64,
    /// Wall time of the ingest.
    pub elapsed: Duration,
    /// The same figures as the engine itself measured them, where it
    /// reports its regions ([`Store::engine_regions`](crate::Store::engine_regions)).
    pub engine: Option<EngineIngest>,
}

/// An ingest's regions and write spread as the engine measured them (a
/// real HBase: its own splits, placement and balancer, and its region
/// servers' write-request counts), next to the lab's model.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineIngest {
    /// Regions at the end.
    pub regions: usize,
    /// Regions at the start (the pre-split).
    pub initial_regions: usize,
    /// The busiest region's share of each recent window's writes, averaged.
    pub recent_busiest_region: f64,
    /// The busiest server's share of each recent window's writes,
    /// averaged: HBase's balancer moves regions on its own, and a hot
    /// region that moves is still on one server at a time.
    pub recent_busiest_server: f64,
    /// Regions per server at the end (servers holding none not listed).
    pub regions_per_server: Vec<usize>,
    /// Writes the engine counted over the ingest (a region that split or
    /// moved between two looks loses its last count).
    pub writes_counted: u64,
    /// Per window, each region's start key and the writes it served: the
    /// engine's heatmap ([`Heatmap::from_engine`]).
    pub window_writes: Vec<Vec<(Vec<u8>, u64)>>,
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
    /// Rows the store returned before the answer was complete (for a skip
    /// scan, every row it read, matching or not).
    pub rows_read: usize,
    /// Seeks of a skip scan ([`Access::skip`](crate::Access::skip)): reads
    /// started again further on; 0 for a plain scan.
    pub seeks: usize,
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
    /// The same drawn from the engine's own per-region counts, where it
    /// reports them.
    pub engine_heatmap: Option<Heatmap>,
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
    /// Per query (in [`queries`](Self::queries) order), how often the mix
    /// the verdict weighs runs it; 1 each unless set with
    /// [`with_mix`](Self::with_mix).
    pub mix: Vec<f64>,
    /// Lines the report opens with after the verdict (what the queries ask
    /// about, the hottest entities), added by the caller.
    pub notes: Vec<String>,
}

/// A hot spot: the busiest server takes more than this many times its fair
/// share (1 / servers) of the recent writes.
pub const HOT_SPOT: f64 = 2.0;

/// Two designs whose mix read costs are within this fraction of each other
/// read alike; key length decides between them.
pub const READ_TIE: f64 = 0.05;

/// One design's place in the [`Verdict`].
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// The design's name.
    pub name: String,
    /// The busiest server's share of recent writes over the fair share
    /// (1 / servers): 1 is perfectly even, `servers` is one server taking
    /// every write.
    pub write_spread: f64,
    /// The mix's read cost: for each query, its weight times (rows read +
    /// ranges asked for).
    pub read_cost: f64,
    /// Mean key length.
    pub key_bytes: f64,
    /// Whether [`write_spread`](Self::write_spread) is over [`HOT_SPOT`].
    pub hot_spot: bool,
    /// Ranked equal with the design before it: no cost tells them apart.
    pub tie: bool,
}

/// The designs ranked for a query mix, best first; see
/// [`Report::verdict`].
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Every design, best first.
    pub ranking: Vec<Ranked>,
}

impl Verdict {
    /// The recommended design (with any tied with it), and one sentence of
    /// why.
    pub fn summary(&self) -> String {
        let Some(best) = self.ranking.first() else {
            return "no designs were compared".into();
        };
        let tied: Vec<&str> = self.ranking[1..]
            .iter()
            .take_while(|r| r.tie)
            .map(|r| r.name.as_str())
            .collect();
        let name = if tied.is_empty() {
            format!("use {}", best.name)
        } else {
            format!("use {} (tied with {})", best.name, tied.join(", "))
        };
        let spread = if best.hot_spot {
            format!(
                "every design is a write hot spot here; it has the busiest server at {:.1}x its fair share",
                best.write_spread
            )
        } else {
            format!(
                "its writes spread over the servers (busiest at {:.2}x its fair share)",
                best.write_spread
            )
        };
        let next = self.ranking[1 + tied.len()..]
            .first()
            .map_or(String::new(), |n| {
                if n.hot_spot && !best.hot_spot {
                    format!(
                        ", while {} is a write hot spot ({:.1}x)",
                        n.name, n.write_spread
                    )
                } else if n.read_cost > best.read_cost * (1.0 + READ_TIE) {
                    format!(
                        " and it reads {:.0} rows+ranges per mix against {:.0} for the next, {}",
                        best.read_cost, n.read_cost, n.name
                    )
                } else {
                    format!(
                        " and it reads as little as {} with shorter keys ({:.1} B against {:.1} B)",
                        n.name, best.key_bytes, n.key_bytes
                    )
                }
            });
        format!("{name}: {spread}{next}.")
    }
}

impl Report {
    /// The design named `name`.
    pub fn design(&self, name: &str) -> Option<&DesignReport> {
        self.designs.iter().find(|d| d.name == name)
    }

    /// The designs that read the fewest rows for query `q` (then the
    /// fewest ranges): one, or several tied. Time is not a criterion: on an
    /// idle machine it is noise.
    pub fn winners(&self, q: usize) -> Vec<&DesignReport> {
        let cost = |d: &DesignReport| {
            let run = &d.queries[q];
            (run.rows_read, run.ranges + run.seeks)
        };
        let Some(best) = self.designs.iter().map(cost).min() else {
            return Vec::new();
        };
        self.designs.iter().filter(|d| cost(d) == best).collect()
    }

    /// The first of [`winners`](Self::winners).
    pub fn winner(&self, q: usize) -> Option<&DesignReport> {
        self.winners(q).into_iter().next()
    }

    /// Sets the query mix the verdict weighs: per query (in
    /// [`queries`](Self::queries) order) how often it runs.
    ///
    /// # Panics
    /// If `mix` does not have one weight per query, or a weight is negative
    /// or not finite (a programming error: parse user input first).
    pub fn with_mix(mut self, mix: Vec<f64>) -> Self {
        assert_eq!(mix.len(), self.queries.len(), "one weight per query");
        assert!(
            mix.iter().all(|w| w.is_finite() && *w >= 0.0),
            "weights are finite and >= 0"
        );
        self.mix = mix;
        self
    }

    /// The designs ranked for the report's [`mix`](Self::mix), best first,
    /// by this rule:
    ///
    /// 1. a design whose busiest server takes more than [`HOT_SPOT`] times
    ///    its fair share of the recent writes ranks after every design that
    ///    does not (a hot spot caps the table's write throughput at one
    ///    server's);
    /// 2. then by the mix's read cost, each query's weight times its rows
    ///    read plus its ranges (deterministic: counted, not timed), costs
    ///    within [`READ_TIE`] of each other counting as equal;
    /// 3. then by key bytes per row (every row pays them, in storage and in
    ///    the block cache), within half a byte counting as equal.
    ///
    /// Designs equal on all three are ties.
    pub fn verdict(&self) -> Verdict {
        let servers = self.settings.servers.max(1) as f64;
        let mut ranking: Vec<Ranked> = self
            .designs
            .iter()
            .map(|d| {
                let write_spread = d.ingest.recent_busiest_server * servers;
                let read_cost = d
                    .queries
                    .iter()
                    .zip(&self.mix)
                    .map(|(q, w)| w * (q.rows_read + q.ranges + q.seeks) as f64)
                    .sum();
                Ranked {
                    name: d.name.clone(),
                    write_spread,
                    read_cost,
                    key_bytes: d.ingest.bytes_per_row(),
                    hot_spot: write_spread > HOT_SPOT,
                    tie: false,
                }
            })
            .collect();
        // A stable sort on a total order: designs equal under it keep their
        // order, so two runs rank alike.
        ranking.sort_by(|a, b| {
            a.hot_spot
                .cmp(&b.hot_spot)
                .then(a.read_cost.total_cmp(&b.read_cost))
        });
        // Groups of equal reads (within READ_TIE of the group's first),
        // shorter keys first within each; ties within a group.
        let mut start = 0;
        while start < ranking.len() {
            let (hot, cost) = (ranking[start].hot_spot, ranking[start].read_cost);
            let len = ranking[start..]
                .iter()
                .take_while(|r| r.hot_spot == hot && r.read_cost <= cost * (1.0 + READ_TIE))
                .count();
            let group = &mut ranking[start..start + len];
            group.sort_by(|a, b| a.key_bytes.total_cmp(&b.key_bytes));
            for i in 1..group.len() {
                group[i].tie = (group[i].key_bytes - group[i - 1].key_bytes).abs() < 0.5;
            }
            start += len;
        }
        Verdict { ranking }
    }
}
