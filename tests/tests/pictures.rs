//! The guide's pictures of keys (`docs/src/img/salted-key.svg`,
//! `skip-scan.svg`) are what rowkey draws from the code today: a change to
//! the key's bytes or to the filter's seeks shows here until the pictures
//! are written again on purpose (`ROWKEY_BLESS=1 cargo test -p rowkey-tests
//! --test pictures`). The seeks themselves are checked: every row the
//! filter matches is returned, and the scan reads fewer rows than a full
//! one.

use rowkey_core::prelude::*;
use rowkey_tests::pictures::{salted_key_svg, skip_scan, skip_scan_svg, Reading};

#[test]
fn the_guides_pictures_are_drawn_from_the_code() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/src/img");
    let bless = std::env::var_os("ROWKEY_BLESS").is_some();
    let mut changed = Vec::new();
    for (name, svg) in [
        ("salted-key.svg", salted_key_svg()),
        ("skip-scan.svg", skip_scan_svg()),
    ] {
        let path = dir.join(name);
        if bless {
            std::fs::write(&path, &svg).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(svg.as_str()) {
            changed.push(name);
        }
    }
    assert!(
        changed.is_empty(),
        "{changed:?} differ from what the code draws (ROWKEY_BLESS=1 writes them again)"
    );
}

#[test]
fn the_pictured_skip_scan_returns_every_match_and_skips_rows() {
    let mut keys = Vec::new();
    for site in 0..3 {
        for day in 0..4 {
            for sensor in 0..6 {
                keys.push(Reading { site, day, sensor }.encode_to_vec().unwrap());
            }
        }
    }
    let filter = Reading::filter().sensor(3).build().unwrap();
    let (rows, seeks) = skip_scan(&keys, &filter);
    let returned: Vec<usize> = (0..keys.len()).filter(|&i| rows[i] == Some(true)).collect();
    let want: Vec<usize> = (0..keys.len())
        .filter(|&i| filter.matches(&keys[i]))
        .collect();
    assert_eq!(returned, want);
    assert_eq!(returned.len(), 12, "one row a site and day");
    let read = rows.iter().filter(|r| r.is_some()).count();
    assert!(read < keys.len() / 2, "{read} of {} rows read", keys.len());
    assert!(!seeks.is_empty());
}
