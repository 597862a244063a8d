//! The guide's pictures of keys, drawn from the code they show (a derived
//! key's bytes as its layout lays them out; a skip scan's reads and seeks
//! as a region server makes them through rowkey's filter), so that a
//! picture cannot drift from what rowkey does: `tests/tests/pictures.rs`
//! checks the committed SVGs in `docs/src/img/` against these
//! (`ROWKEY_BLESS=1` writes them again).

use std::fmt::Write as _;

use rowkey_core::layout::{FieldWidth, Layout};
use rowkey_core::prelude::*;
use rowkey_core::KeyFilter;

/// The README's key.
#[derive(RowKey, Debug, PartialEq)]
#[salt(buckets = 16, by(user_id))]
pub struct UserEvent {
    pub user_id: u64,
    #[desc_ts]
    pub ts_millis: i64,
    #[fixed(8)]
    pub kind: String,
}

/// A sensor's reading: site, then day, then sensor. A query on the sensor
/// alone skips through the rows of every site and day.
#[derive(RowKey, Debug, PartialEq)]
pub struct Reading {
    pub site: u8,
    pub day: u8,
    pub sensor: u8,
}

/// Fill colours, one per part of a key, then the skip scan's three kinds of
/// row.
const COLOURS: [&str; 5] = ["#f2c14e", "#7fb3d5", "#f5a35c", "#a9d18e", "#d7bde2"];
const MATCHED: &str = "#2e8b57";
const READ: &str = "#b0b0b0";
const SKIPPED: &str = "#ffffff";

/// The parts of a key of `layout`: each one's name, what it says, and its
/// width in bytes (the prefix, the salt, the fields); `None` when a field is
/// of variable width (not drawn).
fn parts(layout: &Layout) -> Option<Vec<(String, String, usize)>> {
    let mut parts = Vec::new();
    if !layout.prefix().is_empty() {
        parts.push(("prefix".into(), String::new(), layout.prefix().len()));
    }
    if let Some(salt) = layout.salt() {
        parts.push((
            "salt".into(),
            format!("hash({}) % {}", salt.by().join(", "), salt.buckets()),
            salt.len(),
        ));
    }
    for f in layout.fields() {
        let FieldWidth::Fixed(w) = f.width() else {
            return None;
        };
        let how = if f.is_desc() {
            format!("{}, newest first", f.ty())
        } else {
            format!("{}, {w} bytes", f.ty())
        };
        parts.push((f.name().to_string(), how, w));
    }
    Some(parts)
}

/// A key's bytes as its parts: a cell per byte (its hex), each part a
/// colour, named and explained under it.
pub fn salted_key_svg() -> String {
    let event = UserEvent {
        user_id: 42,
        ts_millis: 1_700_000_000_000,
        kind: "click".into(),
    };
    let key = event.encode_to_vec().expect("the README's key encodes");
    let parts = parts(UserEvent::LAYOUT).expect("a fixed-width layout");
    let (cell, left, top) = (28, 50, 34);
    let width = left * 2 + cell * key.len();
    let mut svg = header(width, 150);
    let _ = writeln!(
        svg,
        r#"<text x="{left}" y="20" font-size="13">UserEvent {{ user_id: 42, ts_millis: 1700000000000, kind: "click" }}: {} bytes</text>"#,
        key.len()
    );
    let mut at = 0;
    for (i, (name, how, w)) in parts.iter().enumerate() {
        let x = left + at * cell;
        let colour = COLOURS[i % COLOURS.len()];
        let _ = writeln!(
            svg,
            r##"<rect x="{x}" y="{top}" width="{}" height="{cell}" fill="{colour}" stroke="#333"/>"##,
            w * cell
        );
        for (j, byte) in key[at..at + w].iter().enumerate() {
            let bx = x + j * cell;
            if j > 0 {
                let _ = writeln!(
                    svg,
                    r##"<line x1="{bx}" y1="{top}" x2="{bx}" y2="{}" stroke="#333" stroke-opacity="0.3"/>"##,
                    top + cell
                );
            }
            let _ = writeln!(
                svg,
                r#"<text x="{}" y="{}" font-size="10" text-anchor="middle" font-family="monospace">{byte:02X}</text>"#,
                bx + cell / 2,
                top + cell / 2 + 4
            );
        }
        let mid = x + w * cell / 2;
        let _ = writeln!(
            svg,
            r#"<text x="{mid}" y="{}" font-size="12" text-anchor="middle" font-weight="bold">{name}</text>"#,
            top + cell + 18
        );
        let _ = writeln!(
            svg,
            r#"<text x="{mid}" y="{}" font-size="10" text-anchor="middle">{}</text>"#,
            top + cell + 33,
            escape(how)
        );
        let _ = writeln!(
            svg,
            r##"<text x="{x}" y="{}" font-size="9" fill="#555">{at}</text>"##,
            top - 3
        );
        at += w;
    }
    let _ = writeln!(
        svg,
        r#"<text x="{left}" y="{}" font-size="11">The salt's byte spreads users over 16 regions; one user's events stay together, newest first.</text>"#,
        top + cell + 62
    );
    svg.push_str("</svg>\n");
    svg
}

/// What a region server does for a filter over `keys` (sorted): each row it
/// reads, whether the filter kept it, and each seek (from the row it read
/// to the first row at or after the filter's hint); every row neither read
/// nor returned was skipped by a seek.
pub fn skip_scan(keys: &[Vec<u8>], filter: &KeyFilter) -> (Vec<Option<bool>>, Vec<(usize, usize)>) {
    let mut rows = vec![None; keys.len()];
    let mut seeks = Vec::new();
    let mut i = 0;
    while i < keys.len() {
        let hit = filter.matches(&keys[i]);
        rows[i] = Some(hit);
        if hit {
            i += 1;
            continue;
        }
        let Some(hint) = filter.seek_hint(&keys[i]) else {
            break;
        };
        let to = keys.partition_point(|k| k.as_slice() < hint.as_slice());
        if to > i + 1 {
            seeks.push((i, to));
        }
        i = to;
    }
    (rows, seeks)
}

/// The readings of 3 sites × 4 days × 6 sensors, scanned for sensor 3: a
/// row per cell, green when returned, grey when read and dropped, white
/// when a seek stepped over it; an arc per seek.
pub fn skip_scan_svg() -> String {
    let mut keys = Vec::new();
    for site in 0..3 {
        for day in 0..4 {
            for sensor in 0..6 {
                keys.push(
                    Reading { site, day, sensor }
                        .encode_to_vec()
                        .expect("encodes"),
                );
            }
        }
    }
    let filter = Reading::filter()
        .sensor(3)
        .build()
        .expect("a filter on the sensor");
    let (rows, seeks) = skip_scan(&keys, &filter);
    let (cell, left, top) = (12, 10, 70);
    let width = left * 2 + cell * keys.len();
    let mut svg = header(width, 150);
    let read = rows.iter().filter(|r| r.is_some()).count();
    let matched = rows.iter().filter(|r| **r == Some(true)).count();
    let _ = writeln!(
        svg,
        r#"<text x="{left}" y="20" font-size="13">Reading::filter().sensor(3) over {} rows [site u8][day u8][sensor u8]: {read} read, {matched} returned, {} seeks</text>"#,
        keys.len(),
        seeks.len()
    );
    for (i, row) in rows.iter().enumerate() {
        let fill = match row {
            Some(true) => MATCHED,
            Some(false) => READ,
            None => SKIPPED,
        };
        let _ = writeln!(
            svg,
            r##"<rect x="{}" y="{top}" width="{cell}" height="{cell}" fill="{fill}" stroke="#333" stroke-width="0.5"/>"##,
            left + i * cell
        );
    }
    for (from, to) in &seeks {
        let (x1, x2) = (left + from * cell + cell / 2, left + to * cell + cell / 2);
        let _ = writeln!(
            svg,
            r##"<path d="M {x1} {} Q {} {} {x2} {}" fill="none" stroke="#c0392b" stroke-width="1.2" marker-end="url(#arrow)"/>"##,
            top - 2,
            (x1 + x2) / 2,
            top - 34,
            top - 2
        );
    }
    for (site, x) in (0..3).map(|s| (s, left + s * 24 * cell)) {
        let _ = writeln!(
            svg,
            r#"<text x="{x}" y="{}" font-size="10">site {site}</text>"#,
            top + cell + 14
        );
    }
    let _ = writeln!(
        svg,
        r##"<text x="{left}" y="{}" font-size="11"><tspan fill="{MATCHED}">■</tspan> returned  <tspan fill="{READ}">■</tspan> read, dropped  □ skipped by a seek (red arcs: the filter's hints)</text>"##,
        top + cell + 40
    );
    svg.push_str("</svg>\n");
    svg
}

fn header(width: usize, height: usize) -> String {
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#c0392b"/></marker></defs>
<rect width="{width}" height="{height}" fill="#ffffff"/>
"##
    )
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
