//! Each call is a `tracing` span with the figures an operator asks for, and
//! `Client::stats` counts what the client did: checked against a gateway
//! that accepts connections and closes them, so every call fails on
//! transport and is retried.

use std::collections::BTreeMap;
use std::fmt;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rowkey_hbase::{Client, Error, RetryPolicy};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

type Spans = Arc<Mutex<Vec<(&'static str, BTreeMap<String, String>)>>>;

/// Records every span's name and fields.
#[derive(Clone, Default)]
struct Recorder(Spans);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}"));
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let mut spans = self.0.lock().unwrap();
        let mut fields = BTreeMap::new();
        span.record(&mut Fields(&mut fields));
        spans.push((span.metadata().name(), fields));
        Id::from_u64(spans.len() as u64)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        let mut spans = self.0.lock().unwrap();
        let i = usize::try_from(span.into_u64()).unwrap() - 1;
        values.record(&mut Fields(&mut spans[i].1));
    }

    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

#[test]
fn every_call_is_a_span_with_its_retries_and_the_stats_count_them() {
    // Accepts every connection and closes it at once.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for s in listener.incoming() {
            drop(s);
        }
    });
    let policy = RetryPolicy {
        attempts: 3,
        base: Duration::from_millis(1),
        max: Duration::from_millis(5),
    };
    let c = Client::builder(addr.to_string())
        .retry(policy)
        .build()
        .unwrap();
    let recorder = Recorder::default();
    let (e, stats, scan) = tracing::subscriber::with_default(recorder.clone(), || {
        let e = c.get_raw("events", b"k").unwrap_err();
        let stats = c.stats();
        let scan = c
            .scan("events", &rowkey_core::Scan::from_bounds(b"a", b"b"), None)
            .err();
        (e, stats, scan)
    });
    assert!(scan.is_some(), "the scanner cannot open");
    assert!(matches!(e, Error::Thrift { .. }), "{e:?}");
    assert!(
        e.to_string().contains("the gateway connection failed"),
        "{e}"
    );

    let spans = recorder.0.lock().unwrap();
    let (name, fields) = spans.iter().find(|(n, _)| *n == "hbase").expect("a span");
    assert_eq!(*name, "hbase");
    assert_eq!(fields["table"], "\"events\"");
    assert_eq!(fields["call"], "\"get\"");
    assert_eq!(fields["retries"], "2", "{fields:?}");
    assert!(fields.contains_key("elapsed_us"), "{fields:?}");
    assert!(fields["error"].contains("connection failed"), "{fields:?}");

    // The scan's own span, its figures recorded when it ended.
    let (_, scan) = spans
        .iter()
        .find(|(n, _)| *n == "hbase_scan")
        .expect("a scan span");
    assert_eq!(scan["table"], "\"events\"");
    assert_eq!(scan["call"], "\"scan\"");
    assert_eq!(scan["ranges"], "1");
    assert_eq!(scan["rows_read"], "0", "{scan:?}");
    assert_eq!(scan["rows_returned"], "0", "{scan:?}");
    assert!(scan.contains_key("elapsed_us"), "{scan:?}");

    // The get's figures, then the scanner's opening, also tried three times.
    assert_eq!(stats.calls, 3, "{stats:?}");
    assert_eq!(stats.retries, 2, "{stats:?}");
    assert_eq!(
        stats.reconnects, 3,
        "each failed connection discarded: {stats:?}"
    );
    assert_eq!(stats.connections, 3, "{stats:?}");
    assert_eq!(stats.open, 0, "{stats:?}");
    let after = c.stats();
    assert_eq!(
        (after.calls, after.retries, after.reconnects),
        (6, 4, 6),
        "{after:?}"
    );
}
