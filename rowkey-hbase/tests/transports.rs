//! The gateway's other modes, each a real HBase gateway started so: framed
//! and compact, HTTP, and HTTPS (with a certificate made for the test),
//! each passing a write, get and scan round trip; a client that trusts
//! another root gets a TLS error that says so.

use rowkey_core::prelude::*;
use rowkey_hbase::testing::{HBase, HBaseBuilder};
use rowkey_hbase::{Cell, Client, Error, Tls, Transport};

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 4, by(user_id))]
struct Event {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
}

fn round_trip(builder: HBaseBuilder, splits: &[Vec<u8>]) -> HBase {
    let hbase = builder
        .start()
        .unwrap_or_else(|e| panic!("HBase starts: {e}"));
    let c = hbase.client_builder().scan_batch(7).build().unwrap();
    c.create_table("modes", &["d"], splits).unwrap();
    let rows: Vec<(Event, Vec<Cell>)> = (0..60u64)
        .map(|i| {
            let e = Event {
                user_id: i % 5,
                ts_millis: i as i64,
            };
            (
                e,
                vec![("d".into(), b"q".to_vec(), i.to_be_bytes().to_vec())],
            )
        })
        .collect();
    c.write_rows("modes", rows.clone()).unwrap();
    assert_eq!(
        c.get("modes", &rows[9].0).unwrap().as_ref(),
        Some(&rows[9].1)
    );
    let mut want: Vec<_> = rows
        .iter()
        .filter(|(e, _)| e.user_id == 3)
        .cloned()
        .collect();
    want.sort_by_key(|(e, _)| std::cmp::Reverse(e.ts_millis));
    let got: Vec<_> = c
        .scan_typed::<Event>("modes", &Event::scan_by_user_id(3), None)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(got, want);
    assert_eq!(
        c.scan("modes", &Event::scan_all(), None).unwrap().count(),
        rows.len()
    );
    hbase
}

#[test]
fn a_framed_compact_gateway() {
    // HBase's framed gateway cannot create a pre-split table (see
    // Client::create_table): the client says so before sending.
    let hbase = round_trip(HBase::builder().framed(true).compact(true), &[]);
    let e = hbase
        .client()
        .unwrap()
        .create_table("split", &["d"], &Event::split_points())
        .unwrap_err();
    assert!(e.to_string().contains("framed"), "{e}");
}

#[test]
fn an_http_gateway() {
    let hbase = round_trip(HBase::builder().http(true), &Event::split_points());
    assert!(hbase.gateway_addr().starts_with("http://"));
}

#[test]
fn an_https_gateway_and_a_client_that_trusts_another_root() {
    let hbase = round_trip(HBase::builder().tls(true), &Event::split_points());
    assert!(hbase.gateway_addr().starts_with("https://"));
    let other = include_bytes!("data/other-root.pem");
    let stranger = Client::builder(hbase.gateway_addr())
        .transport(Transport::Http)
        .tls(Tls::root_pem(other.to_vec()))
        .build()
        .unwrap();
    let e = stranger.table_exists("modes").unwrap_err();
    let text = rowkey_core::error_chain(&e);
    assert!(matches!(e, Error::Thrift { .. }), "{e:?}");
    assert!(
        text.contains("certificate") && text.contains("UnknownIssuer"),
        "{text}"
    );
    // TLS is refused on a socket transport, and PEM that is not PEM is
    // named.
    let e = Client::builder(hbase.thrift_addr().to_string())
        .tls(Tls::root_pem(other.to_vec()))
        .build()
        .unwrap_err();
    assert!(e.to_string().contains("TLS needs Transport::Http"), "{e}");
    let e = Client::builder(hbase.gateway_addr())
        .transport(Transport::Http)
        .tls(Tls::root_pem(b"not a certificate".to_vec()))
        .build()
        .unwrap_err();
    assert!(e.to_string().contains("the root certificate"), "{e}");
}
