//! The native client against a real HBase (ZooKeeper, a master and two
//! region servers on loopback), no gateway in the path: a table created
//! with split points through the master, regions found through the
//! master's registry and `hbase:meta`, puts batched per region server,
//! gets, scans across regions (the same rows the gateway client reads), a
//! missing table, a table whose regions move under the client (found
//! again through the servers' refusals, the rows still all there), the
//! table dropped; and a silent listener as bootstrap, which ends a call
//! with `Error::Timeout` by its deadline.
//!
//! Then `Client::native`, the same `Client` over the native client,
//! against a gateway client of the same HBase, call for call with equal
//! answers: tables created, listed and dropped; typed writes, gets and
//! multi-gets; merged, reversed, limited and paged scans; skip scans with
//! rowkey's filter and with HBase's own on the region servers; deletes;
//! rejected rows named by their places; a missing table refused when a
//! call opens; the async face.

use rowkey_core::prelude::*;
use rowkey_hbase::native::{NativeClient, ScanOptions};
use rowkey_hbase::testing::HBase;
use rowkey_hbase::{Cell, Client, Error, Pushdown};

fn row(i: u32) -> (Vec<u8>, Vec<Cell>) {
    (
        format!("row{i:06}").into_bytes(),
        vec![
            ("d".into(), b"n".to_vec(), i.to_be_bytes().to_vec()),
            ("d".into(), b"pad".to_vec(), vec![b'x'; (i % 50) as usize]),
        ],
    )
}

#[test]
fn gets_puts_and_scans_go_to_the_region_servers() {
    let hbase = HBase::start_with(2).unwrap_or_else(|e| panic!("HBase starts: {e}"));
    let gateway = hbase.client().unwrap();
    let splits: Vec<Vec<u8>> = (1..16u32)
        .map(|i| format!("row{:06}", i * 625).into_bytes())
        .collect();

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let client = NativeClient::new(&hbase.bootstrap()).unwrap();
    let rows: Vec<_> = (0..10_000u32).map(row).collect();
    rt.block_on(async {
        assert!(!client.table_exists("native").await.unwrap());
        client
            .create_table("native", &["d", "e"], &splits)
            .await
            .unwrap();
        assert!(client.table_exists("native").await.unwrap());
        assert_eq!(client.families("native").await.unwrap(), ["d", "e"]);
        assert_eq!(gateway.families("native").unwrap(), ["d", "e"]);
        let again = client
            .create_table("native", &["d"], &[])
            .await
            .unwrap_err();
        assert!(
            again.to_string().contains("TableExistsException"),
            "{again}"
        );
        let regions = client.region_locations("native").await.unwrap();
        assert_eq!(regions.len(), 16);
        assert_eq!(regions, gateway.region_locations("native").unwrap());

        client.put("native", rows.clone()).await.unwrap();
        for i in [0u32, 1, 624, 625, 5_000, 9_999] {
            let got = client.get("native", &row(i).0).await.unwrap();
            let mut want = row(i).1;
            if i % 50 == 0 {
                // An empty value is a cell too.
            }
            want.sort();
            let mut got = got.unwrap();
            got.sort();
            assert_eq!(got, want, "row {i}");
        }
        assert_eq!(client.get("native", b"nope").await.unwrap(), None);

        let all = client.scan("native", b"", b"", None).await.unwrap();
        assert_eq!(all.len(), rows.len());
        let sorted = |mut r: Vec<(Vec<u8>, Vec<Cell>)>| {
            for (_, cells) in &mut r {
                cells.sort();
            }
            r
        };
        assert!(sorted(all) == sorted(rows.clone()), "every row, in order");
        let some = client
            .scan("native", b"row000600", b"row001300", Some(100))
            .await
            .unwrap();
        assert_eq!(some.len(), 100);
        assert_eq!(some[0].0, b"row000600");
        assert_eq!(some[99].0, b"row000699");
        // A limit inside one region is one call: the region server closes
        // the scanner when it reaches the limit.
        let calls = client.calls();
        let ten = client
            .scan("native", b"row000630", b"row001200", Some(10))
            .await
            .unwrap();
        assert_eq!(ten.len(), 10);
        assert_eq!(client.calls() - calls, 1, "one Scan call");
        // What the gateway reads too.
        let through_gateway: Vec<Vec<u8>> = gateway
            .scan(
                "native",
                &rowkey_core::Scan::from_bounds(b"row000600", b"row001300"),
                Some(100),
            )
            .unwrap()
            .map(|r| r.unwrap().0)
            .collect();
        assert_eq!(
            some.iter().map(|r| r.0.clone()).collect::<Vec<_>>(),
            through_gateway
        );

        // 64 gets at once on a client that knows no region yet: one
        // hbase:meta lookup, the others wait for it (single flight).
        let cold = NativeClient::new(&hbase.bootstrap()).unwrap();
        let gets = (0..64u32).map(|i| {
            let cold = cold.clone();
            async move { cold.get("native", &row(i * 150).0).await }
        });
        for got in futures::future::join_all(gets).await {
            assert!(got.unwrap().is_some());
        }
        assert_eq!(cold.meta_lookups(), 1, "one lookup for 64 callers");

        let started = std::time::Instant::now();
        let missing = client.get("no_such_table", b"r").await.unwrap_err();
        assert!(matches!(missing, Error::TableNotFound { .. }), "{missing}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(1),
            "a missing table is found at once"
        );
    });

    // The regions move: the cached locations are wrong, and the client
    // finds them again from the servers' refusals.
    // The regions move: the cached locations are wrong. The servers they
    // left answer RegionMovedException naming where each went, and the
    // client goes there with no hbase:meta lookup.
    let lookups = client.meta_lookups();
    hbase.move_regions("native").unwrap();
    rt.block_on(async {
        for i in (0..10_000u32).step_by(625) {
            assert!(client.get("native", &row(i).0).await.unwrap().is_some());
        }
    });
    assert_eq!(
        client.meta_lookups(),
        lookups,
        "no hbase:meta lookup after a RegionMovedException"
    );
    hbase.move_regions("native").unwrap();
    rt.block_on(async {
        let all = client.scan("native", b"", b"", None).await.unwrap();
        assert_eq!(all.len(), rows.len());
        client.put("native", vec![row(20_000)]).await.unwrap();
        assert!(client
            .get("native", &row(20_000).0)
            .await
            .unwrap()
            .is_some());
    });
    assert_eq!(client.meta_lookups(), lookups, "nor for scans and puts");

    // A scan read in batches while its regions move, then while one splits:
    // the rows of the model, the scanner opened again where it stopped.
    let model: Vec<Vec<u8>> = {
        let mut keys: Vec<Vec<u8>> = rows.iter().map(|r| r.0.clone()).collect();
        keys.push(row(20_000).0);
        keys.sort();
        keys
    };
    let options = ScanOptions {
        batch: 700,
        ..ScanOptions::default()
    };
    let mut scanner = client.scanner("native", b"", b"", options);
    let mut keys: Vec<Vec<u8>> = Vec::new();
    let mut batches = 0;
    while let Some(batch) = rt.block_on(scanner.next_batch()).unwrap() {
        keys.extend(batch.into_iter().map(|r| r.0));
        batches += 1;
        if batches == 2 {
            hbase.move_regions("native").unwrap();
        }
        if batches == 6 {
            hbase.split_region("native", b"row004000").unwrap();
        }
    }
    assert!(scanner.resumes() >= 1, "the scanner was lost and resumed");
    assert!(
        keys == model,
        "every row once, in order, across moves and a split"
    );

    rt.block_on(async {
        // Reversed, across every region.
        let options = ScanOptions {
            reversed: true,
            batch: 333,
            ..ScanOptions::default()
        };
        let back: Vec<Vec<u8>> = client
            .scanner("native", b"", b"", options)
            .collect()
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.0)
            .collect();
        let mut reversed = model.clone();
        reversed.reverse();
        assert!(back == reversed, "reversed: every row, newest key first");
        let options = ScanOptions {
            reversed: true,
            limit: Some(5),
            ..ScanOptions::default()
        };
        let last: Vec<Vec<u8>> = client
            .scanner("native", b"row000100", b"row000700", options)
            .collect()
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.0)
            .collect();
        assert_eq!(last, reversed_range(&model, b"row000100", b"row000700", 5));

        // A row of 10 MiB (ten cells of 1 MiB) and rows read with results
        // cut at 64 bytes: every row whole, put together from its parts.
        let big: Vec<Cell> = (0..10u8)
            .map(|i| ("d".to_string(), vec![b'c', i], vec![i; 1 << 20]))
            .collect();
        client
            .put("native", vec![(b"row003000x".to_vec(), big.clone())])
            .await
            .unwrap();
        let options = ScanOptions {
            max_result_size: 64,
            batch: 50,
            ..ScanOptions::default()
        };
        let got = client
            .scanner("native", b"row002990", b"row003010", options)
            .collect()
            .await
            .unwrap();
        let keys: Vec<&[u8]> = got.iter().map(|r| r.0.as_slice()).collect();
        assert_eq!(keys.len(), 21);
        let (_, cells) = got.iter().find(|r| r.0 == b"row003000x").unwrap();
        let mut cells = cells.clone();
        cells.sort();
        assert!(cells == big, "the 10 MiB row whole");
        for (key, cells) in &got {
            if key.as_slice() != b"row003000x" {
                assert_eq!(cells.len(), 2, "{}", String::from_utf8_lossy(key));
            }
        }
    });

    rt.block_on(async {
        client.drop_table("native").await.unwrap();
        assert!(!client.table_exists("native").await.unwrap());
        let gone = client.get("native", b"row000001").await.unwrap_err();
        assert!(matches!(gone, Error::TableNotFound { .. }), "{gone}");
        let gone = client.drop_table("native").await.unwrap_err();
        assert!(matches!(gone, Error::TableNotFound { .. }), "{gone}");
    });
}

/// A bootstrap server that accepts connections and never answers: the
/// call ends with `Error::Timeout` by its deadline, not later.
#[test]
fn a_silent_bootstrap_server_times_out_by_the_deadline() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap().to_string();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let deadline = std::time::Duration::from_millis(500);
    let client = NativeClient::new(&addr)
        .unwrap()
        .with_request_timeout(deadline);
    let started = std::time::Instant::now();
    let e = rt.block_on(client.get("t", b"r")).unwrap_err();
    let took = started.elapsed();
    assert!(matches!(e, Error::Timeout { .. }), "{e}");
    assert!(took >= deadline, "{took:?}");
    assert!(
        took < deadline + std::time::Duration::from_secs(3),
        "{took:?}"
    );
    drop(silent);
}

/// A silent bootstrap server under a client whose calls may take 30 s but
/// whose operations may take 700 ms: the operation ends by its budget,
/// with `Error::Timeout` naming it; and the connection it opened claimed
/// the user the client was given.
#[test]
fn an_operation_ends_by_its_budget_and_calls_as_its_user() {
    use std::io::Read;
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap().to_string();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let budget = std::time::Duration::from_millis(700);
    let client = NativeClient::new(&addr)
        .unwrap()
        .with_request_timeout(std::time::Duration::from_secs(30))
        .with_operation_timeout(budget)
        .with_user("svc-ingest");
    let started = std::time::Instant::now();
    let e = rt.block_on(client.get("t", b"r")).unwrap_err();
    let took = started.elapsed();
    match &e {
        Error::Timeout { deadline, .. } => assert_eq!(*deadline, budget),
        other => panic!("a timeout, not {other}"),
    }
    assert!(took >= budget && took < budget * 4, "{took:?}");
    assert_eq!(client.counts().timeouts, 1, "{:?}", client.counts());

    let (mut conn, _) = silent.accept().unwrap();
    let mut hello = vec![0u8; 6 + 4];
    conn.read_exact(&mut hello).unwrap();
    assert_eq!(&hello[..6], rowkey_hbase::native::wire::PREAMBLE_SIMPLE);
    let len = u32::from_be_bytes(hello[6..].try_into().unwrap()) as usize;
    let mut header = vec![0u8; len];
    conn.read_exact(&mut header).unwrap();
    let header: rowkey_hbase::native::pb::ConnectionHeader =
        prost::Message::decode(header.as_slice()).unwrap();
    assert_eq!(
        header.user_info.map(|u| u.effective_user).as_deref(),
        Some("svc-ingest")
    );
    assert_eq!(header.service_name.as_deref(), Some("ClientMetaService"));
}

/// A registry (HBase's `ClientMetaService`) played by a local socket,
/// speaking HBase's RPC: it answers every call by saying `hbase:meta` is
/// on `meta_at`. Returns its address.
fn fake_registry(meta_at: std::net::SocketAddr) -> String {
    use prost::Message;
    use rowkey_hbase::native::pb;
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { return };
            std::thread::spawn(move || -> Option<()> {
                let mut preamble = [0u8; 6];
                let mut len = [0u8; 4];
                conn.read_exact(&mut preamble).ok()?;
                conn.read_exact(&mut len).ok()?;
                let mut header = vec![0u8; u32::from_be_bytes(len) as usize];
                conn.read_exact(&mut header).ok()?;
                loop {
                    conn.read_exact(&mut len).ok()?;
                    let mut call = vec![0u8; u32::from_be_bytes(len) as usize];
                    conn.read_exact(&mut call).ok()?;
                    let request =
                        pb::RequestHeader::decode_length_delimited(call.as_slice()).ok()?;
                    let answer = pb::GetMetaRegionLocationsResponse {
                        meta_locations: vec![pb::RegionLocation {
                            region_info: pb::RegionInfo {
                                region_id: 1,
                                table_name: pb::TableName {
                                    namespace: b"hbase".to_vec(),
                                    qualifier: b"meta".to_vec(),
                                },
                                replica_id: Some(0),
                                ..Default::default()
                            },
                            server_name: Some(pb::ServerName {
                                host_name: meta_at.ip().to_string(),
                                port: Some(u32::from(meta_at.port())),
                                start_code: Some(1),
                            }),
                            seq_num: 1,
                        }],
                    };
                    let mut body = pb::ResponseHeader {
                        call_id: request.call_id,
                        ..Default::default()
                    }
                    .encode_length_delimited_to_vec();
                    body.extend(answer.encode_length_delimited_to_vec());
                    let mut frame = (body.len() as u32).to_be_bytes().to_vec();
                    frame.extend(body);
                    conn.write_all(&frame).ok()?;
                }
            });
        }
    });
    addr
}

/// A region server that accepts connections and never answers (hbase:meta
/// said to be on it, by a registry that answers): a get ends with
/// `Error::Timeout` by its deadline, not later.
#[test]
fn a_silent_region_server_times_out_by_the_deadline() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let registry = fake_registry(silent.local_addr().unwrap());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let deadline = std::time::Duration::from_millis(500);
    let client = NativeClient::new(&registry)
        .unwrap()
        .with_request_timeout(deadline);
    let started = std::time::Instant::now();
    let e = rt.block_on(client.get("t", b"r")).unwrap_err();
    let took = started.elapsed();
    assert!(matches!(e, Error::Timeout { .. }), "{e}");
    assert!(took >= deadline, "{took:?}");
    assert!(took < deadline * 4, "{took:?}");
    // The registry answered; the silent server was the one called.
    let per_server = client.server_stats();
    let silent_addr = silent.local_addr().unwrap().to_string();
    assert!(
        per_server
            .iter()
            .any(|s| s.server == silent_addr && s.failures == 1),
        "{per_server:?}"
    );
    drop(silent);
}

/// The last `n` keys of `model` in `[start, stop)`, highest first.
fn reversed_range(model: &[Vec<u8>], start: &[u8], stop: &[u8], n: usize) -> Vec<Vec<u8>> {
    model
        .iter()
        .rev()
        .filter(|k| k.as_slice() >= start && k.as_slice() < stop)
        .take(n)
        .cloned()
        .collect()
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 8, by(user_id))]
struct Event {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
}

fn face_cells(i: i64) -> Vec<Cell> {
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
                face_cells(i),
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
    let before = native.stats();
    assert!(
        all(native.scan("face", &scan, None).unwrap()) == g,
        "merged scan"
    );
    // The native scanners count what they return as the gateway's do.
    let after = native.stats();
    assert_eq!(after.rows_read - before.rows_read, rows.len() as u64);
    assert!(after.calls > before.calls, "{after:?}");
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

    // The same through ZooKeeper (a zk:// bootstrap: hbase:meta and the
    // master found in their znodes, no registry call).
    #[cfg(feature = "zookeeper")]
    {
        let zk = Client::native(format!("zk://127.0.0.1:{}/hbase", hbase.zookeeper_port()))
            .build()
            .unwrap();
        assert!(
            zk.table_exists("face").unwrap(),
            "the master, from its znode"
        );
        assert_eq!(
            zk.region_locations("face").unwrap(),
            gateway.region_locations("face").unwrap()
        );
        for (e, _) in rows.iter().step_by(301) {
            assert_eq!(zk.get("face", e).unwrap(), gateway.get("face", e).unwrap());
        }
        let wrong = Client::native(format!(
            "zk://127.0.0.1:{}/no-hbase",
            hbase.zookeeper_port()
        ))
        .request_timeout(std::time::Duration::from_secs(3))
        .build()
        .unwrap();
        let e = wrong.get("face", &rows[0].0).unwrap_err();
        assert!(
            e.to_string().contains("/no-hbase/meta-region-server"),
            "{e}"
        );
    }

    // Many small scans at once: the 3 newest rows of each of 40 users
    // (37 with rows), each as its own scan would read them.
    let per_user: Vec<rowkey_core::Scan> = (0..40).map(Event::scan_by_user_id).collect();
    let many = native.scan_many("face", &per_user, Some(3)).unwrap();
    assert_eq!(many, gateway.scan_many("face", &per_user, Some(3)).unwrap());
    assert_eq!(many.len(), 40);
    for (user, rows) in many.iter().enumerate() {
        let one: Vec<_> = native
            .scan("face", &per_user[user], Some(3))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(*rows, one, "user {user}");
        assert_eq!(rows.len(), if user < 37 { 3 } else { 0 });
    }
    // A salted scan of every bucket, merged as `scan` merges it.
    let whole = native
        .scan_many("face", &[Event::scan_all()], Some(100))
        .unwrap();
    let one: Vec<_> = native
        .scan("face", &Event::scan_all(), Some(100))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(whole, [one]);

    // Skip scans: rowkey's filter on the region servers, then HBase's own.
    let window = Event::filter()
        .ts_millis(1_700_000_000_100..1_700_000_000_400)
        .build()
        .unwrap();
    let filter_before = hbase.filter_reads().unwrap().rows;
    let mut n = native.filter("face", &window, None).unwrap();
    let got = sorted(n.by_ref().map(Result::unwrap).collect());
    assert_eq!(n.pushdown(), Some(Pushdown::Server));
    assert_eq!(got.len(), 300);
    // What the region servers read for it (their scan metrics): the rows
    // rowkey's filter looked at there, more than it let through.
    let filter_read = hbase.filter_reads().unwrap().rows - filter_before;
    assert_eq!(n.rows_read() as u64, filter_read);
    assert!(n.rows_read() > got.len(), "{}", n.rows_read());
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

    // Keys only (a KeyOnlyFilter beside the skip scan's): the same rows
    // and cells with every value empty, through rowkey's filter, HBase's
    // own and none, on both clients.
    let emptied = |rows: &[(Vec<u8>, Vec<Cell>)]| -> Vec<(Vec<u8>, Vec<Cell>)> {
        rows.iter()
            .map(|(k, cells)| {
                let cells = cells
                    .iter()
                    .map(|(f, q, _)| (f.clone(), q.clone(), Vec::new()));
                (k.clone(), cells.collect())
            })
            .collect()
    };
    let gateway_without = gateway.clone().with_server_filter(false);
    let mut pushdowns = Vec::new();
    for (client, filter) in [
        (&native, &window),
        (&without, &user),
        (&without, &window),
        (&gateway, &window),
        (&gateway_without, &user),
    ] {
        let whole = all(client.filter("face", filter, None).unwrap());
        assert!(whole
            .iter()
            .any(|(_, c)| c.iter().any(|(_, _, v)| !v.is_empty())));
        let mut keys = client
            .filter_keys_in("face", filter, &filter.scan(), None)
            .unwrap();
        let got = sorted(keys.by_ref().map(Result::unwrap).collect());
        assert!(got == emptied(&whole), "keys only ({:?})", keys.pushdown());
        pushdowns.push(keys.pushdown().unwrap());
    }
    assert!(pushdowns.contains(&Pushdown::Server), "{pushdowns:?}");
    assert!(
        pushdowns.contains(&Pushdown::FuzzyRowFilter),
        "{pushdowns:?}"
    );

    // Cells as HBase keeps them: a table keeping 3 versions, a row
    // written at four times; every version, a time range and the newest,
    // by get and by scan, the same through both clients.
    let keep = rowkey_hbase::TableOptions {
        versions: Some(3),
        ..rowkey_hbase::TableOptions::default()
    };
    native
        .create_table_with("versions", &["d"], &[], keep)
        .unwrap();
    for ts in [100i64, 200, 300, 400] {
        for key in [&b"r1"[..], b"r2"] {
            native
                .write_raw_rows_with(
                    "versions",
                    [(key.to_vec(), face_cells(ts))],
                    rowkey_hbase::WriteOptions {
                        timestamp: Some(ts),
                        ..rowkey_hbase::WriteOptions::default()
                    },
                )
                .unwrap();
        }
    }
    let stamps = |cells: &[rowkey_hbase::VersionedCell]| -> Vec<(Vec<u8>, i64)> {
        cells
            .iter()
            .map(|c| (c.qualifier.clone(), c.timestamp))
            .collect()
    };
    let every = rowkey_hbase::ReadOptions::new().versions(10);
    let window = rowkey_hbase::ReadOptions::new()
        .versions(10)
        .time_range(150..350);
    for (read, want) in [
        (every.clone(), vec![400, 300, 200]),
        (window.clone(), vec![300, 200]),
        (rowkey_hbase::ReadOptions::new(), vec![400]),
    ] {
        let n = native
            .get_versions_raw("versions", b"r1", &read)
            .unwrap()
            .unwrap();
        let g = gateway
            .get_versions_raw("versions", b"r1", &read)
            .unwrap()
            .unwrap();
        assert_eq!(n, g, "{read:?}");
        let want: Vec<(Vec<u8>, i64)> = [&b"v"[..], b"w"]
            .iter()
            .flat_map(|q| want.iter().map(move |&t| (q.to_vec(), t)))
            .collect();
        assert_eq!(stamps(&n), want, "{read:?}");
        let value = &n[0].value;
        assert_eq!(
            value,
            &face_cells(n[0].timestamp)[0].2,
            "each version's own value"
        );
    }
    let everything = rowkey_core::Scan::from_bounds(b"", b"");
    let n: Vec<_> = native
        .scan_versions("versions", &everything, None, &window)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let g: Vec<_> = gateway
        .scan_versions("versions", &everything, None, &window)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(n, g);
    assert_eq!(n.len(), 2);
    assert!(n.iter().all(|(_, cells)| cells.len() == 4), "{n:?}");
    assert_eq!(
        native
            .get_versions_raw("versions", b"nope", &every)
            .unwrap(),
        None
    );
    // Deletes of one version and of one whole column: the rest stays.
    // With one of three versions gone, the fourth (100, past VERSIONS and
    // not yet compacted away) shows again, as HBase's own client sees it
    // without NEW_VERSION_BEHAVIOR.
    native
        .delete_columns_raw(
            "versions",
            b"r1",
            &[rowkey_hbase::ColumnDelete::version("d", b"v", 300)],
        )
        .unwrap();
    gateway
        .delete_columns_raw(
            "versions",
            b"r2",
            &[rowkey_hbase::ColumnDelete::column("d", b"w")],
        )
        .unwrap();
    for (row, want) in [
        (
            &b"r1"[..],
            vec![
                (b"v".to_vec(), 400),
                (b"v".to_vec(), 200),
                (b"v".to_vec(), 100),
                (b"w".to_vec(), 400),
                (b"w".to_vec(), 300),
                (b"w".to_vec(), 200),
            ],
        ),
        (
            b"r2",
            vec![
                (b"v".to_vec(), 400),
                (b"v".to_vec(), 300),
                (b"v".to_vec(), 200),
            ],
        ),
    ] {
        let n = native
            .get_versions_raw("versions", row, &every)
            .unwrap()
            .unwrap();
        assert_eq!(
            n,
            gateway
                .get_versions_raw("versions", row, &every)
                .unwrap()
                .unwrap()
        );
        assert_eq!(stamps(&n), want);
    }

    // Deletes, and rows HBase refuses, named by their places.
    let gone: Vec<Event> = rows.iter().take(10).map(|(e, _)| e.clone()).collect();
    native.delete_rows("face", gone.clone()).unwrap();
    assert!(gone
        .iter()
        .all(|e| gateway.get("face", e).unwrap().is_none()));
    let bad = vec![
        (b"ok-1".to_vec(), face_cells(1)),
        (
            b"bad".to_vec(),
            vec![("nope".into(), b"q".to_vec(), b"v".to_vec())],
        ),
        (Vec::new(), face_cells(2)),
        (b"ok-2".to_vec(), face_cells(2)),
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
