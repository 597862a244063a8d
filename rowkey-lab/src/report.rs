//! The lab's outputs: the terminal table, one heatmap SVG per design, and a
//! self-contained HTML report with the table and the heatmaps side by side.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::{BoxError, Report, HOT_SPOT};

/// The report as a terminal table, naming the winner of each query.
pub fn format_table(r: &Report) -> String {
    let mut s = String::new();
    let tail = r.settings.tail * 100.0;
    let verdict = r.verdict();
    let _ = writeln!(s, "{}", verdict.summary());
    for note in &r.notes {
        let _ = writeln!(s, "{note}");
    }
    let _ = writeln!(s, "\nranking for the mix {}:", mix_text(r));
    let _ = writeln!(
        s,
        "  {:<4} {:<20} {:>14} {:>14} {:>8}",
        "", "design", "write spread", "mix read cost", "key B"
    );
    for (i, d) in verdict.ranking.iter().enumerate() {
        let place = if d.tie {
            "=".to_string()
        } else {
            format!("{}.", i + 1)
        };
        let hot = if d.hot_spot { " hot spot" } else { "" };
        let _ = writeln!(
            s,
            "  {place:<4} {:<20} {:>13.2}x {:>14.0} {:>8.1}{hot}",
            d.name, d.write_spread, d.read_cost, d.key_bytes
        );
    }
    let _ = writeln!(
        s,
        "  (write spread: the busiest server's share of recent writes over the fair share; \
         over {HOT_SPOT}x is a hot spot and ranks last. mix read cost: per query, its weight \
         times rows read + ranges + seeks. Then key bytes; `=` marks a tie.)\n"
    );
    let _ = writeln!(
        s,
        "{} events on {}; regions split above {} bytes (keys and values), balanced over {} servers\n",
        r.events,
        r.store,
        r.settings.split_bytes_for(r.events),
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
    if r.designs.iter().any(|d| d.ingest.engine.is_some()) {
        let _ = writeln!(
            s,
            "\non {} itself (its own splits and balancer, its region servers' write counts; its busiest \
             region and server per window, averaged over the recent ones), next to the model:",
            r.store
        );
        let _ = writeln!(
            s,
            "{:<w$} {:>16} {:>20} {:>20} {:>10}",
            "design",
            "regions model/hb",
            "busiest rgn model/hb",
            "busiest srv model/hb",
            "srv diff"
        );
        for d in &r.designs {
            let (i, Some(e)) = (&d.ingest, &d.ingest.engine) else {
                continue;
            };
            let pair = |m: f64, h: f64| format!("{:.1}%/{:.1}%", m * 100.0, h * 100.0);
            let _ = writeln!(
                s,
                "{:<w$} {:>16} {:>20} {:>20} {:>+8.1}pt",
                d.name,
                format!("{}/{} (from {})", i.regions, e.regions, e.initial_regions),
                pair(i.recent_busiest_region, e.recent_busiest_region),
                pair(i.recent_busiest_server, e.recent_busiest_server),
                (e.recent_busiest_server - i.recent_busiest_server) * 100.0
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
            "  {:<w$} {:>7} {:>7} {:>10} {:>7} {:>10}",
            "design", "ranges", "seeks", "rows read", "rows", "time"
        );
        for d in &r.designs {
            let run = &d.queries[q];
            let _ = writeln!(
                s,
                "  {:<w$} {:>7} {:>7} {:>10} {:>7} {:>8.2}ms",
                d.name,
                run.ranges,
                run.seeks,
                run.rows_read,
                run.rows,
                run.time.as_secs_f64() * 1e3
            );
        }
        let _ = writeln!(s, "  {}", winners_text(r, q));
    }
    s
}

/// The mix as `query×weight, ...`.
fn mix_text(r: &Report) -> String {
    r.queries
        .iter()
        .zip(&r.mix)
        .map(|(q, w)| format!("{q} x{w}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `winner: NAME` or `winners (tie): A, B`, by rows read then ranges.
fn winners_text(r: &Report, q: usize) -> String {
    let names: Vec<&str> = r.winners(q).iter().map(|d| d.name.as_str()).collect();
    match names.as_slice() {
        [one] => format!("winner: {one} (fewest rows read; time is shown for information only)"),
        many => format!("winners (tie): {} (fewest rows read)", many.join(", ")),
    }
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
    let mut engine_svgs = Vec::new();
    for d in &r.designs {
        let svg = d.heatmap.svg(&title(d, r.settings.tail))?;
        let path = dir.join(format!("heatmap-{}.svg", file_name(&d.name)));
        std::fs::write(&path, &svg)?;
        heatmaps.push(path);
        svgs.push(svg);
        if let (Some(h), Some(e)) = (&d.engine_heatmap, &d.ingest.engine) {
            let svg = h.svg(&format!(
                "{} on {}: busiest region {:.0}%, server {:.0}% (its own counts)",
                d.name,
                r.store,
                e.recent_busiest_region * 100.0,
                e.recent_busiest_server * 100.0
            ))?;
            let path = dir.join(format!("heatmap-{}-{}.svg", file_name(&d.name), r.store));
            std::fs::write(&path, &svg)?;
            heatmaps.push(path);
            engine_svgs.push((d.name.clone(), svg));
        }
    }
    let table = dir.join("report.txt");
    std::fs::write(&table, format_table(r))?;
    let html = dir.join("report.html");
    std::fs::write(&html, html_report_with(r, &svgs, &engine_svgs))?;
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
    html_report_with(r, svgs, &[])
}

/// [`html_report`] with the engine's own heatmaps, `(design, svg)`, each
/// beside the model's.
pub fn html_report_with(r: &Report, svgs: &[String], engine_svgs: &[(String, String)]) -> String {
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
<p><strong>{verdict}</strong></p>
{notes}
<p>{events} events on {store}; regions split above {split} bytes of keys and values and are balanced over {servers} region servers.
"Recent" is the last {tail:.0}% of the ingest.</p>
<div class="side"><div>
<h2>Designs</h2>
<table><tr><th>design</th><th class="layout">key layout</th><th>bytes/row</th><th>regions</th><th>max/mean rows</th>
<th>busiest region (recent)</th><th>busiest server (recent)</th><th>overwrites</th></tr>
"#,
        events = r.events,
        verdict = esc(&r.verdict().summary()),
        notes = r
            .notes
            .iter()
            .map(|n| format!("<p>{}</p>", esc(n)))
            .collect::<String>(),
        store = esc(r.store),
        split = r.settings.split_bytes_for(r.events),
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
    if r.designs.iter().any(|d| d.ingest.engine.is_some()) {
        let _ = writeln!(
            h,
            "<h2>On {} itself, next to the model</h2>\n<p>Regions as the engine split, placed and \
             balanced them; write shares from its region servers' own write-request counts, the \
             busiest region and server taken per window and averaged over the recent windows (its \
             balancer moves regions on its own).</p>\n\
             <table><tr><th>design</th><th>regions (model)</th><th>regions (engine)</th>\
             <th>busiest region (model)</th><th>busiest region (engine)</th>\
             <th>busiest server (model)</th><th>busiest server (engine)</th><th>difference</th></tr>",
            esc(r.store)
        );
        for d in &r.designs {
            let (i, Some(e)) = (&d.ingest, &d.ingest.engine) else {
                continue;
            };
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.1}%</td><td>{:.1}%</td>\
                 <td>{:.1}%</td><td>{:.1}%</td><td>{:+.1} points</td></tr>",
                esc(&d.name),
                i.regions,
                e.regions,
                i.recent_busiest_region * 100.0,
                e.recent_busiest_region * 100.0,
                i.recent_busiest_server * 100.0,
                e.recent_busiest_server * 100.0,
                (e.recent_busiest_server - i.recent_busiest_server) * 100.0
            );
        }
        h.push_str("</table>\n");
    }
    let _ = writeln!(
        h,
        "<h2>Ranking for the mix</h2>\n<p>{}</p>\n<table><tr><th>place</th><th>design</th>\
         <th>write spread</th><th>mix read cost</th><th>key bytes</th></tr>",
        esc(&mix_text(r))
    );
    for (i, d) in r.verdict().ranking.iter().enumerate() {
        let place = if d.tie {
            "=".to_string()
        } else {
            (i + 1).to_string()
        };
        let _ = writeln!(
            h,
            "<tr><td>{place}</td><td>{}</td><td{}>{:.2}x</td><td>{:.0}</td><td>{:.1}</td></tr>",
            esc(&d.name),
            if d.hot_spot { " class=\"hot\"" } else { "" },
            d.write_spread,
            d.read_cost,
            d.key_bytes
        );
    }
    let _ = writeln!(
        h,
        "</table>\n<p>Write spread: the busiest server's share of recent writes over the fair \
         share (1 / servers); over {HOT_SPOT}x is a hot spot and ranks after the rest. Mix read \
         cost: per query, its weight times rows read plus ranges. Then key bytes per row. \
         <code>=</code> marks a tie. Query winners are decided by rows read; times are \
         information only.</p>"
    );
    for (q, name) in r.queries.iter().enumerate() {
        let _ = writeln!(
            h,
            "<h3>{}</h3>\n<table><tr><th>design</th><th>ranges</th><th>seeks</th><th>rows read</th><th>rows</th><th>time</th></tr>",
            esc(name)
        );
        let best: Vec<&str> = r.winners(q).iter().map(|d| d.name.as_str()).collect();
        for d in &r.designs {
            let run = &d.queries[q];
            let mark = if best.contains(&d.name.as_str()) {
                " (winner)"
            } else {
                ""
            };
            let _ = writeln!(
                h,
                "<tr><td>{}{mark}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2} ms</td></tr>",
                esc(&d.name),
                run.ranges,
                run.seeks,
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
        if let Some((_, svg)) = engine_svgs.iter().find(|(n, _)| *n == d.name) {
            let _ = writeln!(
                h,
                "<figure>{}<figcaption>{} on {}, from its region servers' own write counts</figcaption></figure>",
                svg.trim_start_matches(|c| c != '<'),
                esc(&d.name),
                esc(r.store)
            );
        }
    }
    h.push_str("</div></div></div>\n</body></html>\n");
    h
}
