//! HBase's access control against the native client
//! (`hbase.security.authorization` with the `AccessController`): a user
//! without rights on a table is refused at once with
//! `Error::AccessDenied` naming the user and the right missing, never
//! retried; a grant lets the same client read; `whoami` says whom the
//! servers see.

use std::time::{Duration, Instant};

use rowkey_core::Scan;
use rowkey_hbase::testing::HBase;
use rowkey_hbase::{Cell, Client, Error};

fn rows(n: u32) -> Vec<(Vec<u8>, Vec<Cell>)> {
    (0..n)
        .map(|i| {
            (
                format!("row{i:04}").into_bytes(),
                vec![("d".to_owned(), b"n".to_vec(), i.to_be_bytes().to_vec())],
            )
        })
        .collect()
}

/// The error's user and action, or a panic naming what came instead.
fn denied(result: Result<impl std::fmt::Debug, Error>) -> (String, String) {
    match result {
        Err(Error::AccessDenied {
            user,
            table,
            action,
            ..
        }) => {
            assert_eq!(table, "acl");
            (user, action)
        }
        other => panic!("expected Error::AccessDenied, got {other:?}"),
    }
}

#[test]
fn rights_are_enforced_and_named() {
    let hbase = HBase::builder()
        .gateway(false)
        .authorization(true)
        .start()
        .unwrap_or_else(|e| panic!("HBase with access control starts: {e}"));
    // The user the cluster runs as: its superuser.
    let admin = Client::native(hbase.bootstrap()).build().unwrap();
    admin.create_table("acl", &["d"], &[]).unwrap();
    admin.write_raw_rows("acl", rows(100)).unwrap();

    let bob = Client::native(hbase.bootstrap())
        .user("bob")
        .build()
        .unwrap();
    assert_eq!(bob.whoami().unwrap(), "bob");
    assert_ne!(admin.whoami().unwrap(), "bob");

    let started = Instant::now();
    let read = denied(bob.get_raw("acl", b"row0001"));
    assert_eq!(read, ("bob".to_owned(), "READ".to_owned()));
    let write = denied(bob.write_raw_rows("acl", rows(1)));
    assert_eq!(write, ("bob".to_owned(), "WRITE".to_owned()));
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "refusals took {took:?}");

    hbase.grant("bob", "acl", "R").unwrap();
    // The grant reaches the region servers' permission caches through
    // ZooKeeper: read again until it has.
    let deadline = Instant::now() + Duration::from_secs(30);
    let got = loop {
        match bob.get_raw("acl", b"row0001") {
            Ok(got) => break got,
            Err(Error::AccessDenied { .. }) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(200))
            }
            Err(e) => panic!("after the grant: {e}"),
        }
    };
    assert_eq!(got.unwrap(), rows(2)[1].1);
    let scanned = bob
        .scan("acl", &Scan::from_bounds(b"", b""), None)
        .unwrap()
        .count();
    assert_eq!(scanned, 100);
    let write = denied(bob.write_raw_rows("acl", rows(1)));
    assert_eq!(write.1, "WRITE");
    assert!(hbase.grant("bob", "acl", "RZ").is_err());
}
