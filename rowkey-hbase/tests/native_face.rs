//! `Client::native`: the same `Client` over the native client, against a
//! gateway client of the same HBase, call for call with equal answers:
//! tables created, listed and dropped; typed writes, gets and multi-gets;
//! merged, reversed, limited and paged scans; skip scans with rowkey's
//! filter and with HBase's own on the region servers; deletes; rejected
//! rows named by their places; a missing table refused when a call opens.

use rowkey_core::prelude::*;
use rowkey_hbase::testing::HBase;
use rowkey_hbase::{Cell, Client, Error, Pushdown};

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 8, by(user_id))]
struct Event {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
}

fn cells(i: i64) -> Vec<Cell> {
    vec![
        ("d".into(), b"v".to_vec(), i.to_be_bytes().to_vec()),
        ("d".into(), b"w".to_vec(), vec![b'x'; (i % 7) as usize]),
    ]
}

fn events() -> Vec<(Event, Vec<Cell>)> {
    (0..3_000i64)
        .map(|i| {
            (
                Event {
                    user_id: (i % 37) as u64,
                    ts_millis: 1_700_000_000_000 + i,
                },
                cells(i),
            )
        })
        .collect()
}

/// Rows with their cells in one order, for comparing two clients.
fn sorted(rows: Vec<(Vec<u8>, Vec<Cell>)>) -> Vec<(Vec<u8>, Vec<Cell>)> {
    rows.into_iter()
        .map(|(k, mut c)| {
            c.sort();
            (k, c)
        })
        .collect()
}

fn all(rows: rowkey_hbase::Rows) -> Vec<(Vec<u8>, Vec<Cell>)> {
    sorted(rows.map(Result::unwrap).collect())
}

#[test]
fn a_native_client_answers_as_the_gateway_client() {
    let hbase = HBase::start_with(2).unwrap_or_else(|e| panic!("HBase starts: {e}"));
    let gateway = hbase.client().unwrap();
    let native = Client::native(hbase.bootstrap()).build().unwrap();

    assert!(!native.table_exists("face").unwrap());
    native
        .create_table("face", &["d"], &Event::split_points())
        .unwrap();
    assert!(gateway.table_exists("face").unwrap());
    assert_eq!(
        native.families("face").unwrap(),
        gateway.families("face").unwrap()
    );
    assert_eq!(
        native.region_locations("face").unwrap(),
        gateway.region_locations("face").unwrap()
    );

    let rows = events();
    native.write_rows("face", rows.clone()).unwrap();
    for (e, want) in rows.iter().step_by(97) {
        let got = native.get("face", e).unwrap();
        assert_eq!(got, gateway.get("face", e).unwrap());
        let mut got = got.unwrap();
        got.sort();
        let mut want = want.clone();
        want.sort();
        assert_eq!(got, want);
    }
    let keys: Vec<Event> = rows
        .iter()
        .take(50)
        .map(|(e, _)| e.clone())
        .chain([Event {
            user_id: 999,
            ts_millis: 1,
        }])
        .collect();
    assert_eq!(
        native.get_many("face", &keys).unwrap(),
        gateway.get_many("face", &keys).unwrap()
    );
    assert_eq!(native.get_many("face", &keys).unwrap()[50], None);

    // Scans: merged over the salt buckets, reversed, limited, paged.
    let scan = Event::scan_all();
    let g = all(gateway.scan("face", &scan, None).unwrap());
    assert_eq!(g.len(), rows.len());
    assert!(
        all(native.scan("face", &scan, None).unwrap()) == g,
        "merged scan"
    );
    let g = all(gateway.scan_reversed("face", &scan, None).unwrap());
    assert!(
        all(native.scan_reversed("face", &scan, None).unwrap()) == g,
        "reversed"
    );
    let one_user = Event::scan_by_user_id(5);
    let g = all(gateway.scan("face", &one_user, Some(7)).unwrap());
    assert_eq!(g.len(), 7);
    assert!(
        all(native.scan("face", &one_user, Some(7)).unwrap()) == g,
        "limited"
    );
    let next = one_user.after(&g[6].0);
    assert!(
        all(native.scan("face", &next, Some(7)).unwrap())
            == all(gateway.scan("face", &next, Some(7)).unwrap()),
        "the next page"
    );
    let typed: Vec<Event> = native
        .scan_typed::<Event>("face", &one_user, None)
        .unwrap()
        .map(|r| r.unwrap().0)
        .collect();
    assert_eq!(typed.len(), 3_000 / 37 + usize::from(5 < 3_000 % 37));
    assert!(typed.iter().all(|e| e.user_id == 5));

    // Skip scans: rowkey's filter on the region servers, then HBase's own.
    let window = Event::filter()
        .ts_millis(1_700_000_000_100..1_700_000_000_400)
        .build()
        .unwrap();
    let mut n = native.filter("face", &window, None).unwrap();
    let got = sorted(n.by_ref().map(Result::unwrap).collect());
    assert_eq!(n.pushdown(), Some(Pushdown::Server));
    assert_eq!(got.len(), 300);
    assert!(
        got == all(gateway.filter("face", &window, None).unwrap()),
        "skip scan"
    );
    let without = native.clone().with_server_filter(false);
    let user = Event::filter().user_id(any_of([3, 11])).build().unwrap();
    let mut n = without.filter("face", &user, None).unwrap();
    let got = sorted(n.by_ref().map(Result::unwrap).collect());
    assert_ne!(n.pushdown(), Some(Pushdown::Server));
    assert!(
        got == all(gateway
            .clone()
            .with_server_filter(false)
            .filter("face", &user, None)
            .unwrap()),
        "HBase's own filter"
    );

    // Deletes, and rows HBase refuses, named by their places.
    let gone: Vec<Event> = rows.iter().take(10).map(|(e, _)| e.clone()).collect();
    native.delete_rows("face", gone.clone()).unwrap();
    assert!(gone
        .iter()
        .all(|e| gateway.get("face", e).unwrap().is_none()));
    let bad = vec![
        (b"ok-1".to_vec(), cells(1)),
        (
            b"bad".to_vec(),
            vec![("nope".into(), b"q".to_vec(), b"v".to_vec())],
        ),
        (Vec::new(), cells(2)),
        (b"ok-2".to_vec(), cells(2)),
    ];
    match native.write_raw_rows("face", bad) {
        Err(Error::Rejected { rejected, .. }) => {
            let places: Vec<usize> = rejected.iter().map(|r| r.index).collect();
            assert_eq!(places, [1, 2], "{rejected:?}");
        }
        other => panic!("{other:?}"),
    }
    assert!(gateway.get_raw("face", b"ok-2").unwrap().is_some());

    // A missing table: refused when the call opens.
    let Err(e) = native.scan("no_such_table", &scan, None) else {
        panic!("a scan of a missing table opened");
    };
    assert!(matches!(e, Error::TableNotFound { .. }), "{e}");
    let e = native.get("no_such_table", &gone[0]).unwrap_err();
    assert!(matches!(e, Error::TableNotFound { .. }), "{e}");

    // The async face over the same native client.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let a = rowkey_hbase::AsyncClient::native(hbase.bootstrap())
            .await
            .unwrap();
        let got = a.get("face", &rows[20].0).await.unwrap();
        assert_eq!(got, gateway.get("face", &rows[20].0).unwrap());
        assert!(got.is_some());
    });

    native.drop_table("face").unwrap();
    assert!(!gateway.table_exists("face").unwrap());
    assert!(native.stats().rows_read > 0);
}
