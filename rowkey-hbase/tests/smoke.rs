use rowkey_core::prelude::*;
use rowkey_hbase::testing::HBase;

#[derive(RowKey, Debug, PartialEq, Clone)]
#[salt(buckets = 4, by(user_id))]
struct Event {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
}

#[test]
fn smoke() {
    let t = std::time::Instant::now();
    let hbase = HBase::start().unwrap();
    eprintln!("started in {:?}", t.elapsed());
    let mut c = hbase.client().unwrap();
    c.create_table("ev", &["d"], &Event::split_points())
        .unwrap();
    for r in c.region_locations("ev").unwrap() {
        eprintln!("{r}");
    }
    let rows: Vec<_> = (0..100)
        .map(|i| {
            (
                Event {
                    user_id: i % 7,
                    ts_millis: i as i64 * 10,
                },
                vec![("d".to_string(), b"q".to_vec(), vec![i as u8])],
            )
        })
        .collect();
    c.write_rows("ev", rows).unwrap();
    let got: Vec<_> = c
        .scan_typed::<Event>("ev", &Event::scan_all(), None)
        .unwrap()
        .map(|r| r.unwrap().0)
        .collect();
    eprintln!("{} rows, first {:?}", got.len(), &got[..3]);
    let mut rev = c
        .scan_typed_reversed::<Event>("ev", &Event::scan_by_user_id(3), Some(5))
        .unwrap();
    let got: Vec<_> = rev.by_ref().map(|r| r.unwrap().0).collect();
    eprintln!("rev {:?} read {}", got, rev.rows_read());
    drop(rev);
    let bad = c.write_raw_rows(
        "ev",
        vec![
            (vec![1, 2], vec![("nope".to_string(), vec![], vec![])]),
            (vec![1, 3], vec![("d".to_string(), vec![], vec![1])]),
        ],
    );
    eprintln!("{bad:?}");
    eprintln!("{:?}", c.get_raw("ev", &[1, 3]).unwrap());
}
