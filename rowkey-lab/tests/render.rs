//! The HTML report as a person sees it: rendered by headless Chromium to a
//! screenshot, which must show the tables and the heatmaps (not a blank or
//! broken page).

use std::path::{Path, PathBuf};
use std::process::Command;

use rowkey_lab::builtin::{self, Subjects};
use rowkey_lab::{report, Lab, RedbStore, Settings, Workload};

/// Chromium: `$CHROMIUM`, else Debian's `/usr/bin/chromium`.
fn chromium() -> PathBuf {
    std::env::var_os("CHROMIUM").map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from)
}

/// RGB pixels of a PNG file, with its width and height.
fn pixels(path: &Path) -> (Vec<[u8; 3]>, u32, u32) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let px = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    (px, info.width, info.height)
}

#[test]
fn the_html_report_renders_in_chromium() {
    let browser = chromium();
    assert!(
        browser.exists(),
        "{} not found: install Debian's chromium (apt-get install chromium; .ci/run does) or set CHROMIUM",
        browser.display()
    );
    let dir = tempfile::tempdir().unwrap();
    let events = Workload::Ingest.generate(5_000, 80, 1);
    let subjects = Subjects::of(&events);
    let mut lab = Lab::new(events.clone()).settings(Settings {
        split_bytes: 400 * 32,
        query_runs: 1,
        ..Settings::default()
    });
    for name in ["ts_first", "salted_ts"] {
        lab = lab.design(builtin::design_for(name, subjects).unwrap());
    }
    for q in builtin::queries(subjects) {
        lab = lab.query(q);
    }
    let report = lab
        .run(&mut RedbStore::create(dir.path()).unwrap())
        .unwrap();
    let out = report::write(&report, dir.path()).unwrap();

    let shot = dir.path().join("shot.png");
    let status = Command::new(&browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--window-size=1400,1800",
        ])
        .arg(format!(
            "--user-data-dir={}",
            dir.path().join("profile").display()
        ))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", out.html.display()))
        .stderr(std::process::Stdio::null())
        .status()
        .expect("chromium runs");
    assert!(status.success(), "chromium: {status}");

    let (px, width, height) = pixels(&shot);
    assert_eq!((width, height), (1400, 1800));
    let count = |f: &dyn Fn(&[u8; 3]) -> bool| px.iter().filter(|p| f(p)).count();
    // Text and table borders: dark and grey pixels, well spread.
    let ink = count(&|p| p.iter().all(|&c| c < 100));
    // The heatmaps: the black of cells without writes, and the bright
    // orange and yellow of the hot ones.
    let hot = count(&|p| p[0] > 200 && p[1] > 80 && p[2] < 120);
    // The hot cells of the "busiest region" column (> 50%: the hot design).
    let flagged = count(&|p| *p == [0xf8, 0xd0, 0xc8]);
    assert!(
        ink > 20_000,
        "{ink} dark pixels: the page is blank or unstyled"
    );
    assert!(
        hot > 500,
        "{hot} hot heatmap pixels: the heatmaps did not render"
    );
    assert!(
        flagged > 500,
        "{flagged} highlighted cells: the table did not render"
    );
    let white = count(&|p| *p == [255, 255, 255]);
    assert!(
        white < px.len() * 95 / 100,
        "{white} of {} pixels white",
        px.len()
    );
}
