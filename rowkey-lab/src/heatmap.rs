//! A key-visualizer heatmap: writes over time (x) and key space (y), as
//! Cloud Bigtable's Key Visualizer draws them. A hot spot is a bright line:
//! a diagonal for keys that grow with time (every window writes to the
//! newest part of the key space), a horizontal band for one hot key range,
//! an even glow for a key that spreads its writes.

use std::ops::Bound;

use plotters::prelude::*;

use crate::regions::{KeyMap, Regions};
use crate::BoxError;

/// Writes per (time window, key-space row), and per (window, region).
///
/// The key-space rows are quantiles of the final keys: row `r` of `R` holds
/// the keys ranked from `r * n / R` to `(r + 1) * n / R` in key order, so
/// every row holds as many keys at the end and a row's brightness shows
/// when its keys were written. The regions are the table's final regions.
#[derive(Debug, Clone, PartialEq)]
pub struct Heatmap {
    windows: usize,
    rows: usize,
    /// `cells[w * rows + r]`.
    cells: Vec<u32>,
    regions: usize,
    /// `region_cells[w * regions + g]`.
    region_cells: Vec<u32>,
    /// Where each region after the first starts, as a fraction of the key
    /// space rows (0 = top, the lowest key).
    region_marks: Vec<f64>,
}

impl Heatmap {
    /// Replays the `n` events' keys (in arrival order: `key_of(i, out)`
    /// writes event `i`'s key into `out`, so that no list of every key is
    /// kept) against the final `regions` and keys.
    pub fn measure<X>(
        n: usize,
        mut key_of: impl FnMut(usize, &mut Vec<u8>) -> Result<(), X>,
        regions: &Regions,
        windows: usize,
        key_rows: usize,
    ) -> Result<Heatmap, X> {
        let keys = regions.keys();
        let windows = windows.clamp(1, n.max(1));
        let rows = key_rows.clamp(1, keys.len().max(1));
        let bounds = row_bounds(keys, rows);
        let row_of = |k: &[u8]| bounds.partition_point(|b| *b <= k);
        let region_count = regions.len();
        let mut cells = vec![0u32; windows * rows];
        let mut region_cells = vec![0u32; windows * region_count];
        let mut k = Vec::new();
        for i in 0..n {
            key_of(i, &mut k)?;
            let w = i * windows / n;
            cells[w * rows + row_of(&k)] += 1;
            region_cells[w * region_count + regions.region_of(&k)] += 1;
        }
        // A region's mark is the rank of its start key among the keys.
        let starts = &regions.starts()[1..];
        let len = keys.len().max(1) as f64;
        let mut region_marks = Vec::with_capacity(starts.len());
        for (rank, (k, _)) in keys.iter().enumerate() {
            while region_marks.len() < starts.len()
                && starts[region_marks.len()].as_slice() <= k.as_ref()
            {
                region_marks.push(rank as f64 / len);
            }
        }
        region_marks.resize(starts.len(), 1.0);
        Ok(Heatmap {
            windows,
            rows,
            cells,
            regions: region_count,
            region_cells,
            region_marks,
        })
    }

    /// The heatmap of an engine's own counts: per window, each region's
    /// start key and the writes it served (`window_writes`, from
    /// [`EngineIngest`](crate::EngineIngest)), over the same key-space rows
    /// as [`measure`](Self::measure) (quantiles of the final `keys`). A
    /// region's writes are spread evenly over the rows its key range
    /// covers; the marks are the engine's final region boundaries.
    pub fn from_engine(
        window_writes: &[Vec<(Vec<u8>, u64)>],
        keys: &KeyMap,
        key_rows: usize,
    ) -> Heatmap {
        let windows = window_writes.len().max(1);
        let rows = key_rows.clamp(1, keys.len().max(1));
        let bounds = row_bounds(keys, rows);
        let row_of = |k: &[u8]| bounds.partition_point(|b| *b <= k);
        let mut cells = vec![0u32; windows * rows];
        for (w, regions) in window_writes.iter().enumerate() {
            for (g, (start, writes)) in regions.iter().enumerate() {
                let first = row_of(start);
                // The region ends where the next begins (the last: at the
                // end of the key space).
                let last = regions.get(g + 1).map_or(rows - 1, |(next, _)| {
                    row_of(next).saturating_sub(1).max(first)
                });
                let span = (last - first + 1) as u64;
                for r in first..=last {
                    cells[w * rows + r] += u32::try_from(writes / span).unwrap_or(u32::MAX);
                }
            }
        }
        let last = window_writes.last().map_or(&[][..], Vec::as_slice);
        let region_cells: Vec<u32> = window_writes
            .iter()
            .flat_map(|regions| {
                let mut per = vec![0u32; last.len()];
                for (start, writes) in regions {
                    if let Some(g) = last.iter().position(|(s, _)| s == start) {
                        per[g] = u32::try_from(*writes).unwrap_or(u32::MAX);
                    }
                }
                per
            })
            .collect();
        let len = keys.len().max(1) as f64;
        let region_marks = last
            .iter()
            .skip(1)
            .map(|(start, _)| {
                keys.range::<[u8], _>((Bound::Unbounded, Bound::Excluded(start.as_slice())))
                    .count() as f64
                    / len
            })
            .collect();
        Heatmap {
            windows,
            rows,
            cells,
            regions: last.len(),
            region_cells,
            region_marks,
        }
    }

    /// Number of time windows (columns).
    pub fn windows(&self) -> usize {
        self.windows
    }

    /// Number of key-space rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Writes in window `w` to key-space row `r` (0: the lowest keys).
    pub fn cell(&self, w: usize, r: usize) -> u32 {
        self.cells[w * self.rows + r]
    }

    /// Writes in window `w` to each final region, in key order.
    pub fn region_writes(&self, w: usize) -> &[u32] {
        &self.region_cells[w * self.regions..(w + 1) * self.regions]
    }

    /// Where each region after the first starts, as a fraction of the key
    /// space (0: the lowest key).
    pub fn region_marks(&self) -> &[f64] {
        &self.region_marks
    }

    /// The largest cell.
    pub fn max(&self) -> u32 {
        self.cells.iter().copied().max().unwrap_or(0)
    }

    /// The heatmap as an SVG document.
    pub fn svg(&self, title: &str) -> Result<String, BoxError> {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (560, 360)).into_drawing_area();
            root.fill(&WHITE)?;
            let (w, r) = (self.windows as f64, self.rows as f64);
            let mut chart = ChartBuilder::on(&root)
                .caption(title, ("sans-serif", 15))
                .margin(10)
                .x_label_area_size(36)
                .y_label_area_size(46)
                .build_cartesian_2d(0.0..w, r..0.0)?;
            chart
                .configure_mesh()
                .disable_mesh()
                .x_desc("time (ingest windows, oldest left)")
                .y_desc("key space (quantiles)")
                .x_labels(6)
                .y_labels(5)
                .x_label_formatter(&|x| format!("{x:.0}"))
                .y_label_formatter(&|y| format!("{:.0}%", y / r * 100.0))
                .draw()?;
            let max = f64::from(self.max().max(1));
            chart.draw_series(
                (0..self.windows)
                    .flat_map(|wi| (0..self.rows).map(move |ri| (wi, ri)))
                    .map(|(wi, ri)| {
                        let t = (f64::from(self.cell(wi, ri)) / max).sqrt();
                        Rectangle::new(
                            [(wi as f64, ri as f64), (wi as f64 + 1.0, ri as f64 + 1.0)],
                            heat(t).filled(),
                        )
                    }),
            )?;
            // Region boundaries: thin cyan lines across the time axis.
            chart.draw_series(self.region_marks.iter().map(|&m| {
                PathElement::new(
                    vec![(0.0, m * r), (w, m * r)],
                    CYAN.mix(0.6).stroke_width(1),
                )
            }))?;
            root.present()?;
        }
        Ok(out)
    }
}

/// Where each key-space row after the first starts: row `r` of `rows`
/// starts at the key of rank `r * len / rows`, found in one pass.
fn row_bounds(keys: &KeyMap, rows: usize) -> Vec<&[u8]> {
    let step = keys.len() as f64 / rows as f64;
    let mut want = (1..rows).map(|r| (r as f64 * step) as usize).peekable();
    let mut out = Vec::with_capacity(rows.saturating_sub(1));
    for (rank, (k, _)) in keys.iter().enumerate() {
        while want.peek() == Some(&rank) {
            out.push(k.as_ref());
            want.next();
        }
    }
    out
}

/// Key Visualizer's palette: black (no writes) through red and orange to
/// pale yellow (the most).
fn heat(t: f64) -> RGBColor {
    let stops = [
        (0.0, (0u8, 0u8, 0u8)),
        (0.35, (140, 20, 10)),
        (0.7, (240, 120, 20)),
        (1.0, (255, 250, 200)),
    ];
    let t = t.clamp(0.0, 1.0);
    let i = stops
        .iter()
        .rposition(|&(at, _)| at <= t)
        .unwrap_or(0)
        .min(stops.len() - 2);
    let ((a, ca), (b, cb)) = (stops[i], stops[i + 1]);
    let f = (t - a) / (b - a);
    let mix = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * f).round() as u8;
    RGBColor(mix(ca.0, cb.0), mix(ca.1, cb.1), mix(ca.2, cb.2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regions::KeyLog;

    #[test]
    fn the_palette_runs_from_black_to_pale_yellow() {
        assert_eq!(heat(0.0), RGBColor(0, 0, 0));
        assert_eq!(heat(1.0), RGBColor(255, 250, 200));
        assert!(heat(0.5).0 > heat(0.2).0);
    }

    #[test]
    fn an_engine_heatmap_spreads_each_region_over_its_rows() {
        let keys: KeyMap = (0..100u8)
            .map(|k| (Box::from([k].as_slice()), usize::from(k)))
            .collect();
        // Window 0: one region takes 40 writes; window 1: it split at 50,
        // the upper half took 10.
        let windows = vec![vec![(vec![], 40)], vec![(vec![], 0), (vec![50], 10)]];
        let h = Heatmap::from_engine(&windows, &keys, 10);
        assert_eq!((h.windows(), h.rows()), (2, 10));
        assert!((0..10).all(|r| h.cell(0, r) == 4), "40 over 10 rows");
        assert!((0..5).all(|r| h.cell(1, r) == 0) && (5..10).all(|r| h.cell(1, r) == 2));
        assert_eq!(h.region_marks(), [0.5]);
        assert_eq!(h.region_writes(1), [0, 10]);
    }

    #[test]
    fn sequential_keys_draw_a_diagonal() {
        let keys: KeyLog = (0..1_000u32).map(|e| e.to_be_bytes()).collect();
        // 4-byte keys and 8-byte values: splits above 100 rows.
        let mut regions = Regions::new(&[], 100 * 12, 2);
        for (i, k) in keys.iter().enumerate() {
            regions.write(k, i);
        }
        let h = Heatmap::measure(
            keys.len(),
            |i, out| {
                out.clear();
                out.extend_from_slice(keys.get(i));
                Ok::<(), ()>(())
            },
            &regions,
            10,
            10,
        )
        .unwrap();
        for w in 0..10 {
            for r in 0..10 {
                assert_eq!(h.cell(w, r), if w == r { 100 } else { 0 }, "({w}, {r})");
            }
            // Each window writes to the regions holding its tenth of the keys.
            assert!(h.region_writes(w).iter().filter(|&&c| c > 0).count() <= 2);
        }
        assert_eq!(h.region_writes(9).iter().sum::<u32>(), 100);
        assert_eq!(h.region_marks().len(), regions.len() - 1);
        assert!(h.region_marks().windows(2).all(|m| m[0] < m[1]));
        let svg = h.svg("sequential").unwrap();
        assert!(svg.contains("sequential") && svg.matches("<rect").count() >= 100);
    }
}
