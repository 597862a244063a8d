//! The cost of security on the native client, in one run on one test
//! HBase (standalone, one region server, on loopback): gets per second
//! from 8 callers for 3 s and a 1,000,000-row table scanned whole, for a
//! plain connection (SIMPLE authentication, no TLS), TLS, Kerberos with
//! `Authentication`, Kerberos with `Privacy` (every message encrypted by
//! GSSAPI) and Kerberos `Privacy` under TLS, each as a ratio to plain.
//! The cluster is kerberized and serves TLS beside plaintext, and lets
//! SIMPLE clients in (`hbase.ipc.server.fallback-to-simple-auth-allowed`)
//! so that every kind of client reaches the same servers and rows.
//!
//! `cargo bench -p rowkey-hbase --features kerberos,tls --bench security`
//! (about four minutes, most of it HBase starting and the table written).
//! Each kind runs three times, interleaved with the others, and keeps its
//! best. Wall-clock figures on a shared machine: read the ratios;
//! BENCHMARKS.md has the run they come from.

use std::time::{Duration, Instant};

use rowkey_core::Scan;
use rowkey_hbase::testing::HBase;
use rowkey_hbase::{Cell, Client, ClientBuilder, Kerberos, Protection, Tls};

const ROWS: u32 = 1_000_000;
const CALLERS: usize = 8;
const RUN: Duration = Duration::from_secs(3);

fn key(i: u32) -> Vec<u8> {
    format!("row{:08}", i.wrapping_mul(2_654_435_761) % ROWS).into_bytes()
}

fn gets_per_second(client: &Client) -> f64 {
    let started = Instant::now();
    let counts: Vec<u64> = std::thread::scope(|s| {
        let threads: Vec<_> = (0..CALLERS)
            .map(|t| {
                let client = client.clone();
                s.spawn(move || {
                    let mut n = 0u64;
                    let mut i = t as u32 * 7_919;
                    while started.elapsed() < RUN {
                        let got = client.get_raw("bench", &key(i)).unwrap();
                        assert!(got.is_some());
                        n += 1;
                        i = i.wrapping_add(1);
                    }
                    n
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    counts.iter().sum::<u64>() as f64 / started.elapsed().as_secs_f64()
}

fn scan_seconds(client: &Client) -> f64 {
    let started = Instant::now();
    let mut n = 0;
    for row in client
        .scan("bench", &Scan::from_bounds(b"", b""), None)
        .unwrap()
    {
        row.unwrap();
        n += 1;
    }
    assert_eq!(n, ROWS as usize);
    started.elapsed().as_secs_f64()
}

fn main() {
    let hbase = HBase::builder()
        .gateway(false)
        .kerberos(true)
        .rpc_tls(true)
        .setting("hbase.server.netty.tls.supportplaintext", "true")
        .setting("hbase.ipc.server.fallback-to-simple-auth-allowed", "true")
        .start()
        .unwrap_or_else(|e| panic!("HBase starts: {e}"));
    let kdc = hbase.kdc();
    std::env::set_var("KRB5_CONFIG", kdc.krb5_conf());
    let (user, keytab) = kdc.principal("bench").unwrap();
    let root = hbase.rpc_tls_root_pem().unwrap().to_vec();
    let native = || Client::native(hbase.bootstrap());
    let kerberos = |p: Protection| Kerberos::keytab(&user, &keytab).protection(p);

    let plain = native().build().unwrap();
    plain.create_table("bench", &["d"], &[]).unwrap();
    let started = Instant::now();
    for chunk in (0..ROWS).collect::<Vec<_>>().chunks(100_000) {
        let rows: Vec<(Vec<u8>, Vec<Cell>)> = chunk
            .iter()
            .map(|&i| {
                (
                    format!("row{i:08}").into_bytes(),
                    vec![("d".to_owned(), b"v".to_vec(), vec![b'x'; 100])],
                )
            })
            .collect();
        plain.write_raw_rows("bench", rows).unwrap();
    }
    eprintln!(
        "{ROWS} rows written in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let kinds: Vec<(&str, ClientBuilder)> = vec![
        ("plain (SIMPLE, no TLS)", native()),
        ("TLS", native().tls(Tls::root_pem(root.clone()))),
        (
            "Kerberos, Authentication",
            native().kerberos(kerberos(Protection::Authentication)),
        ),
        (
            "Kerberos, Privacy",
            native().kerberos(kerberos(Protection::Privacy)),
        ),
        (
            "Kerberos Privacy under TLS",
            native()
                .kerberos(kerberos(Protection::Privacy))
                .tls(Tls::root_pem(root.clone())),
        ),
    ];
    // The servers warmed first (their JIT, block cache, connections),
    // then three rounds over every kind in turn, each kind's best kept:
    // what is left is the connection's cost, not the order it ran in.
    let _ = gets_per_second(&plain);
    let _ = scan_seconds(&plain);
    let clients: Vec<(&str, Client)> = kinds
        .into_iter()
        .map(|(name, builder)| (name, builder.build().unwrap()))
        .collect();
    let mut best = vec![(0f64, f64::MAX); clients.len()];
    for _round in 0..3 {
        for (i, (_, client)) in clients.iter().enumerate() {
            let _ = client.get_raw("bench", &key(1)).unwrap();
            best[i].0 = best[i].0.max(gets_per_second(client));
            best[i].1 = best[i].1.min(scan_seconds(client));
        }
    }
    let (g0, s0) = best[0];
    println!("| connection | gets/s (8 callers) | × plain | 1M-row scan, s | × plain |");
    println!("|---|---:|---:|---:|---:|");
    for ((name, _), (gets, scan)) in clients.iter().zip(best) {
        println!(
            "| {name} | {gets:.0} | {:.2} | {scan:.2} | {:.2} |",
            gets / g0,
            scan / s0
        );
    }
}
