//! The hot-spot lab on a small workload: timestamp-first keys send nearly all
//! recent writes to one region, the salted designs spread them, every query
//! answer matches the workload (the lab checks each), and the designs that
//! should win each query do.

use rowkey_lab::{self as lab, Config, Design, Query};

#[test]
fn timestamp_first_is_a_hot_spot_and_salting_spreads_writes() {
    // Removed when dropped, even when an assertion fails.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let cfg = Config {
        events: 40_000,
        users: 500,
        seed: 7,
        split_rows: 2_000,
        dir: dir.path().to_path_buf(),
        progress: false,
        ..Config::default()
    };
    let report = lab::run(&cfg).expect("the lab runs and every query answer is correct");
    let share = |d: Design| {
        report
            .ingests
            .iter()
            .find(|i| i.design == d)
            .unwrap()
            .hottest_share
    };

    assert!(
        share(Design::TsFirst) > 0.9,
        "timestamp first: busiest region took {:.2}",
        share(Design::TsFirst)
    );
    for d in [Design::ReversedTs, Design::SaltedTs] {
        assert!(
            share(d) < 0.2,
            "{}: busiest region took {:.2}",
            d.name(),
            share(d)
        );
    }
    // Salting by user spreads writes too, though Zipf-hot users make their
    // buckets busier than the rest.
    assert!(
        share(Design::UserNewest) < 0.5,
        "salt by user: {:.2}",
        share(Design::UserNewest)
    );
    let ts_first = report
        .ingests
        .iter()
        .find(|i| i.design == Design::TsFirst)
        .unwrap();
    assert!(ts_first.splits > 0, "regions split as they grow");

    // The winners the key design predicts.
    assert_eq!(
        lab::winner(&report, 0),
        Some(Design::UserNewest),
        "{}",
        Query::Latest20.describe()
    );
    assert!(matches!(
        lab::winner(&report, 1),
        Some(Design::TsFirst | Design::SaltedTs)
    ));
    assert_eq!(
        lab::winner(&report, 2),
        Some(Design::UserNewest),
        "{}",
        Query::UserHour.describe()
    );
    // One user's latest 20 rows read exactly 20 rows from one range.
    let promoted = &report.queries[0][3];
    assert_eq!(
        (promoted.ranges, promoted.rows_read, promoted.rows),
        (1, 20, 20)
    );

    let text = lab::format_report(&cfg, &report);
    assert!(
        text.contains("winner: salt by user, newest first"),
        "{text}"
    );
    // The layout column is each key type's descriptor, and the README's
    // copy of the report shows the same layouts.
    let readme = include_str!("../../README.md");
    for design in lab::Design::ALL {
        let layout = design.layout().to_string();
        assert!(text.contains(&layout), "{layout} in:\n{text}");
        assert!(readme.contains(&layout), "README shows {layout}");
    }
    assert_eq!(
        lab::Design::UserNewest.layout().to_string(),
        "[salt(user_id)/16 1][user_id u64 8][ts_millis desc_ts i64 8] = 17 bytes"
    );
    let svg = std::fs::read_to_string(&report.svg).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("timestamp first"),
        "the picture names the designs"
    );
}
