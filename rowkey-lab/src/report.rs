//! The lab's outputs: the terminal table, one heatmap SVG per design, and a
//! self-contained HTML report with the table and the heatmaps side by side.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::{BoxError, Report};

/// The report as a terminal table, naming the winner of each query.
pub fn format_table(r: &Report) -> String {
    let mut s = String::new();
    let tail = r.settings.tail * 100.0;
    let _ = writeln!(
        s,
        "{} events on {}; regions split above {} rows, balanced over {} servers\n",
        r.events,
        r.store,
        r.settings.split_rows_for(r.events),
        r.settings.servers
    );
    let w = r
        .designs
        .iter()
        .map(|d| d.name.len())
        .max()
        .unwrap_or(0)
        .max("design".len());
    let _ = writeln!(
        s,
        "{:<w$} {:>8} {:>8} {:>9} {:>12} {:>12} {:>8}",
        "design", "key B", "regions", "max/mean", "busiest rgn", "busiest srv", "ingest"
    );
    let recent = format!("(last {tail:.0}%)");
    let _ = writeln!(
        s,
        "{:<w$} {:>8} {:>8} {:>9} {recent:>12} {recent:>12}",
        "", "", "", ""
    );
    for d in &r.designs {
        let i = &d.ingest;
        let _ = writeln!(
            s,
            "{:<w$} {:>8.1} {:>8} {:>9.2} {:>11.1}% {:>11.1}% {:>7.2}s",
            d.name,
            i.bytes_per_row(),
            i.regions,
            i.max_over_mean,
            i.recent_busiest_region * 100.0,
            i.recent_busiest_server * 100.0,
            i.elapsed.as_secs_f64()
        );
        if i.overwrites > 0 {
            let _ = writeln!(
                s,
                "{:<w$}   ! {} events had the key of an earlier event and overwrote its row",
                "", i.overwrites
            );
        }
    }
    let _ = writeln!(s, "\nkey layouts (from the key types):");
    for d in &r.designs {
        let _ = writeln!(s, "  {:<w$} {}", d.name, d.layout);
    }
    for (q, name) in r.queries.iter().enumerate() {
        let _ = writeln!(s, "\n{name}");
        let _ = writeln!(
            s,
            "  {:<w$} {:>7} {:>10} {:>7} {:>10}",
            "design", "ranges", "rows read", "rows", "time"
        );
        for d in &r.designs {
            let run = &d.queries[q];
            let _ = writeln!(
                s,
                "  {:<w$} {:>7} {:>10} {:>7} {:>8.2}ms",
                d.name,
                run.ranges,
                run.rows_read,
                run.rows,
                run.time.as_secs_f64() * 1e3
            );
        }
        if let Some(best) = r.winner(q) {
            let _ = writeln!(s, "  winner: {}", best.name);
        }
    }
    s
}

/// Escapes text for HTML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The files [`write`](fn@write) wrote.
#[derive(Debug, Clone)]
pub struct Outputs {
    /// The HTML report.
    pub html: PathBuf,
    /// The terminal table, as text.
    pub table: PathBuf,
    /// One heatmap per design, in design order.
    pub heatmaps: Vec<PathBuf>,
}

/// A heatmap's title: the design and its recent write spread.
fn title(d: &crate::DesignReport, tail: f64) -> String {
    format!(
        "{}: busiest region {:.0}%, server {:.0}% of the last {:.0}%",
        d.name,
        d.ingest.recent_busiest_region * 100.0,
        d.ingest.recent_busiest_server * 100.0,
        tail * 100.0
    )
}

/// Writes `heatmap-DESIGN.svg` per design, `report.txt` and `report.html`
/// into `dir` (created if missing).
pub fn write(r: &Report, dir: &Path) -> Result<Outputs, BoxError> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut heatmaps = Vec::new();
    let mut svgs = Vec::new();
    for d in &r.designs {
        let svg = d.heatmap.svg(&title(d, r.settings.tail))?;
        let path = dir.join(format!("heatmap-{}.svg", file_name(&d.name)));
        std::fs::write(&path, &svg)?;
        heatmaps.push(path);
        svgs.push(svg);
    }
    let table = dir.join("report.txt");
    std::fs::write(&table, format_table(r))?;
    let html = dir.join("report.html");
    std::fs::write(&html, html_report(r, &svgs))?;
    Ok(Outputs {
        html,
        table,
        heatmaps,
    })
}

/// A design name as a file name: letters, digits, `-` and `_` kept.
fn file_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The HTML report: `svgs[i]` is design `i`'s heatmap, inlined.
pub fn html_report(r: &Report, svgs: &[String]) -> String {
    let mut h = String::new();
    let tail = r.settings.tail * 100.0;
    let _ = write!(
        h,
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>rowkey hot-spot lab: {events} events</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 24px; color: #111; background: #fff; }}
table {{ border-collapse: collapse; margin: 8px 0 20px; font-size: 14px; }}
th, td {{ border: 1px solid #ccc; padding: 4px 8px; text-align: right; }}
th:first-child, td:first-child, td.layout, th.layout {{ text-align: left; }}
td.layout {{ font-family: ui-monospace, monospace; font-size: 12px; }}
td.hot {{ background: #f8d0c8; }}
.side {{ display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }}
.grid {{ display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 16px; }}
figure {{ margin: 0; }}
figcaption {{ font-size: 13px; font-family: ui-monospace, monospace; }}
</style></head><body>
<h1>rowkey hot-spot lab</h1>
<p>{events} events on {store}; regions split above {split} rows and are balanced over {servers} region servers.
"Recent" is the last {tail:.0}% of the ingest.</p>
<div class="side"><div>
<h2>Designs</h2>
<table><tr><th>design</th><th class="layout">key layout</th><th>bytes/row</th><th>regions</th><th>max/mean rows</th>
<th>busiest region (recent)</th><th>busiest server (recent)</th><th>overwrites</th></tr>
"#,
        events = r.events,
        store = esc(r.store),
        split = r.settings.split_rows_for(r.events),
        servers = r.settings.servers,
    );
    for d in &r.designs {
        let i = &d.ingest;
        let hot = |share: f64| if share > 0.5 { " class=\"hot\"" } else { "" };
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td class=\"layout\">{}</td><td>{:.1}</td><td>{}</td><td>{:.2}</td>\
             <td{}>{:.1}%</td><td{}>{:.1}%</td><td>{}</td></tr>",
            esc(&d.name),
            esc(&d.layout.to_string()),
            i.bytes_per_row(),
            i.regions,
            i.max_over_mean,
            hot(i.recent_busiest_region),
            i.recent_busiest_region * 100.0,
            hot(i.recent_busiest_server),
            i.recent_busiest_server * 100.0,
            i.overwrites
        );
    }
    h.push_str("</table>\n");
    for (q, name) in r.queries.iter().enumerate() {
        let _ = writeln!(
            h,
            "<h3>{}</h3>\n<table><tr><th>design</th><th>ranges</th><th>rows read</th><th>rows</th><th>time</th></tr>",
            esc(name)
        );
        let best = r.winner(q).map(|d| d.name.as_str());
        for d in &r.designs {
            let run = &d.queries[q];
            let mark = if Some(d.name.as_str()) == best {
                " (winner)"
            } else {
                ""
            };
            let _ = writeln!(
                h,
                "<tr><td>{}{mark}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2} ms</td></tr>",
                esc(&d.name),
                run.ranges,
                run.rows_read,
                run.rows,
                run.time.as_secs_f64() * 1e3
            );
        }
        h.push_str("</table>\n");
    }
    h.push_str(
        "</div><div>\n<h2>Writes over time and key space</h2>\n\
         <p>Each picture is one design: time runs left to right, the key space top (lowest key) \
         to bottom in quantiles of the final keys, brighter is more writes, and cyan lines are \
         the final region boundaries. A bright diagonal or a single bright band is a hot spot; \
         an even glow is writes spread over the table.</p>\n<div class=\"grid\">\n",
    );
    for (d, svg) in r.designs.iter().zip(svgs) {
        let _ = writeln!(
            h,
            "<figure>{}<figcaption>{}: {}</figcaption></figure>",
            svg.trim_start_matches(|c| c != '<'),
            esc(&d.name),
            esc(&d.layout.to_string())
        );
    }
    h.push_str("</div></div></div>\n</body></html>\n");
    h
}
