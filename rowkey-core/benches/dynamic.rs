//! A layout read at run time (`DynLayout`) against the derived type for
//! the same layout, in one run: what reading a layout from its text costs
//! per key (values boxed as `Value`s, a function pointer per field, a new
//! `Vec` per key). See BENCHMARKS.md, "Run-time layouts".
//!
//! Under `cargo test` (no `--bench` argument) criterion runs each benchmark
//! once as a smoke test.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rowkey_core::prelude::*;
use rowkey_core::{DynLayout, Value};

/// The README's key: salt by user, user, newest first, a padded kind.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 16, by(user_id))]
struct UserEvent {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
    #[fixed(8)]
    kind: String,
}

const BATCH: usize = 1_000;

fn events() -> Vec<UserEvent> {
    let kinds = ["click", "view", "buy", "scroll"];
    (0..BATCH as u64)
        .map(|i| UserEvent {
            user_id: i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % 100_000,
            ts_millis: 1_700_000_000_000 + i as i64 * 17,
            kind: kinds[i as usize % 4].into(),
        })
        .collect()
}

fn values(e: &UserEvent) -> Vec<Value> {
    vec![e.user_id.into(), e.ts_millis.into(), e.kind.as_str().into()]
}

fn dynamic(c: &mut Criterion) {
    let events = events();
    let layout = DynLayout::parse(&UserEvent::LAYOUT.to_string()).unwrap();
    let vals: Vec<Vec<Value>> = events.iter().map(values).collect();
    for (e, v) in events.iter().zip(&vals) {
        assert_eq!(layout.encode(v).unwrap(), e.encode_to_vec().unwrap());
    }

    let mut g = c.benchmark_group("dynamic/encode");
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function("derived encode_to_vec()", |b| {
        b.iter(|| {
            let mut acc = 0u8;
            for e in black_box(&events) {
                acc ^= e.encode_to_vec().unwrap()[24];
            }
            black_box(acc)
        })
    });
    g.bench_function("DynLayout::encode(&[Value])", |b| {
        b.iter(|| {
            let mut acc = 0u8;
            for v in black_box(&vals) {
                acc ^= layout.encode(v).unwrap()[24];
            }
            black_box(acc)
        })
    });
    g.finish();

    let keys: Vec<Vec<u8>> = events.iter().map(|e| e.encode_to_vec().unwrap()).collect();
    let mut g = c.benchmark_group("dynamic/decode");
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function("derived decode", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for k in black_box(&keys) {
                acc ^= UserEvent::decode(k).unwrap().user_id;
            }
            black_box(acc)
        })
    });
    g.bench_function("DynLayout::decode -> Vec<Value>", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for k in black_box(&keys) {
                if let Value::U64(u) = layout.decode(k).unwrap()[0] {
                    acc ^= u;
                }
            }
            black_box(acc)
        })
    });
    g.bench_function("DynLayout::decode_into (one Vec)", |b| {
        let mut values = Vec::new();
        b.iter(|| {
            let mut acc = 0u64;
            for k in black_box(&keys) {
                layout.decode_into(k, &mut values).unwrap();
                if let Value::U64(u) = values[0] {
                    acc ^= u;
                }
            }
            black_box(acc)
        })
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2))
}

criterion_group! { name = benches; config = config(); targets = dynamic }
criterion_main!(benches);
