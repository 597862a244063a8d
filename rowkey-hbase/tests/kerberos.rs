//! A secured HBase 2.6 against the native client, as the seeds' clusters
//! run: kerberized (Hadoop's MiniKdc, `hbase.security.authentication=
//! kerberos`, every protection offered), HBase's access control on, and
//! TLS only on the RPC port with client certificates required (Kerberos
//! and TLS together; features `kerberos` and `tls`):
//!
//! - a keytab login reads and writes with each of the three protections,
//!   and `whoami` names its principal;
//! - a user without rights is refused reads and writes with
//!   `Error::AccessDenied` naming the user and the right, at once;
//! - no client certificate, a root that did not sign the servers'
//!   certificates, a plaintext client: each refused at once, saying what
//!   to change;
//! - a ticket-cache login (`kinit`'s cache) works, by name and through
//!   `KRB5CCNAME`;
//! - past the tickets' lifetime, a keytab login opens new connections
//!   with fresh tickets, and a ticket-cache login is refused saying so;
//! - a wrong server principal, a missing ticket, a SIMPLE client, a user
//!   without rights each fail with their own error within 5 s;
//! - the Thrift2 gateway in HTTP mode with SPNEGO: a keytab login writes
//!   and scans through it as its own user; a client without a login is
//!   refused saying so;
//! - a Kerberos client refuses a server that answers "switch to SIMPLE"
//!   (HBase's bytes for it, from the golden file) unless allowed.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use rowkey_core::Scan;
use rowkey_hbase::testing::HBase;
use rowkey_hbase::{Cell, Client, ClientBuilder, Error, Kerberos, Protection, Tls};

fn rows(from: u32, n: u32) -> Vec<(Vec<u8>, Vec<Cell>)> {
    (from..from + n)
        .map(|i| {
            (
                format!("row{i:05}").into_bytes(),
                vec![("d".to_owned(), b"n".to_vec(), i.to_be_bytes().to_vec())],
            )
        })
        .collect()
}

/// The cause of the `Error::Security` `builder`'s first call ends with,
/// which must come within 5 s.
fn refused(what: &str, builder: ClientBuilder) -> String {
    let started = Instant::now();
    let result = builder.build().unwrap().get_raw("secure", b"row00001");
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "{what} took {took:?}");
    match result {
        Err(Error::Security { cause, .. }) => cause,
        other => panic!("{what}: expected Error::Security, got {other:?}"),
    }
}

#[test]
fn kerberized_hbase() {
    let hbase = HBase::builder()
        .kerberos(true)
        .authorization(true)
        .rpc_tls(true)
        .setting("hbase.server.netty.tls.client.auth.mode", "NEED")
        .ticket_lifetime(Duration::from_secs(10))
        .start()
        .unwrap_or_else(|e| panic!("a kerberized HBase starts: {e}"));
    let kdc = hbase.kdc();
    // The system's Kerberos library reads the test realm's settings from
    // here (set before any login; this binary's only test).
    std::env::set_var("KRB5_CONFIG", kdc.krb5_conf());
    let realm = kdc.realm().to_owned();
    let (admin, admin_keytab) = kdc.principal("admin").unwrap();
    let (alice, alice_keytab) = kdc.principal("alice").unwrap();
    let (bob, bob_keytab) = kdc.principal("bob").unwrap();
    let root = hbase.rpc_tls_root_pem().unwrap().to_vec();
    let (chain, key) = hbase.rpc_tls_client_identity().unwrap();
    let tls = Tls::root_pem(root.clone()).client_identity(chain, key);
    let native = || Client::native(hbase.bootstrap()).tls(tls.clone());

    let admin_client = native()
        .kerberos(Kerberos::keytab(&admin, &admin_keytab))
        .build()
        .unwrap();
    // HBase names users by their short names (its access control's).
    assert_eq!(admin_client.whoami().unwrap(), "admin");
    admin_client
        .create_table("secure", &["d"], &[b"row00500".to_vec()])
        .unwrap();
    hbase.grant("alice", "secure", "RW").unwrap();

    for (i, protection) in [
        Protection::Authentication,
        Protection::Integrity,
        Protection::Privacy,
    ]
    .into_iter()
    .enumerate()
    {
        let client = native()
            .kerberos(Kerberos::keytab(&alice, &alice_keytab).protection(protection))
            .build()
            .unwrap();
        assert_eq!(client.whoami().unwrap(), "alice", "{protection:?}");
        let written = rows(i as u32 * 1_000, 1_000);
        // The grant reaches the region servers through ZooKeeper: write
        // again until it has.
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            match client.write_raw_rows("secure", written.clone()) {
                Ok(()) => break,
                Err(Error::AccessDenied { .. }) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(200))
                }
                Err(e) => panic!("{protection:?}: {e}"),
            }
        }
        let got = client.get_raw("secure", &written[999].0).unwrap().unwrap();
        assert_eq!(got, written[999].1, "{protection:?}");
        let start = written[0].0.clone();
        let end = rows(i as u32 * 1_000 + 1_000, 1)[0].0.clone();
        let scanned: Vec<_> = client
            .scan("secure", &Scan::from_bounds(&start, &end), None)
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(scanned, written, "{protection:?}");
    }

    // kinit's cache, by name and through KRB5CCNAME.
    let cache_dir = tempfile::tempdir().unwrap();
    let cache = format!("FILE:{}", cache_dir.path().join("alice.cc").display());
    let kinit_at = Instant::now();
    let kinit = std::process::Command::new("kinit")
        .args(["-k", "-t"])
        .arg(&alice_keytab)
        .args(["-c", &cache, &alice])
        .output()
        .unwrap_or_else(|e| panic!("kinit runs (Debian's krb5-user): {e}"));
    assert!(
        kinit.status.success(),
        "kinit: {}",
        String::from_utf8_lossy(&kinit.stderr)
    );
    let by_name = native()
        .kerberos(Kerberos::ticket_cache_at(&cache))
        .build()
        .unwrap();
    assert_eq!(by_name.whoami().unwrap(), "alice");
    std::env::set_var("KRB5CCNAME", &cache);
    let by_env = native().kerberos(Kerberos::ticket_cache()).build().unwrap();
    assert!(by_env.get_raw("secure", b"row00001").unwrap().is_some());
    std::env::remove_var("KRB5CCNAME");

    // Each refusal with its own error, at once.
    let wrong_principal = refused(
        "a wrong server principal",
        native().kerberos(
            Kerberos::keytab(&alice, &alice_keytab)
                .server_principal(format!("nobody/_HOST@{realm}")),
        ),
    );
    assert!(
        wrong_principal.contains("knows no principal nobody/localhost"),
        "{wrong_principal}"
    );
    let no_ticket = refused(
        "no ticket",
        native().kerberos(Kerberos::ticket_cache_at(format!(
            "FILE:{}",
            cache_dir.path().join("none.cc").display()
        ))),
    );
    assert!(no_ticket.contains("run kinit"), "{no_ticket}");
    let simple = refused("a SIMPLE client", native());
    assert!(
        simple.contains("log in with ClientBuilder::kerberos"),
        "{simple}"
    );
    let login = || Kerberos::keytab(&alice, &alice_keytab);
    let no_identity = refused(
        "no client certificate",
        Client::native(hbase.bootstrap())
            .tls(Tls::root_pem(root.clone()))
            .kerberos(login()),
    );
    assert!(
        no_identity.contains("needs Tls::client_identity"),
        "{no_identity}"
    );
    let other_ca = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let (chain, key) = hbase.rpc_tls_client_identity().unwrap();
    let wrong_root = refused(
        "a wrong root",
        Client::native(hbase.bootstrap())
            .tls(Tls::root_pem(other_ca.cert.pem()).client_identity(chain, key))
            .kerberos(login()),
    );
    assert!(
        wrong_root.contains("not signed by the root certificate"),
        "{wrong_root}"
    );
    // A plaintext client: the server drops its connection without a
    // word, which the client reads as a hint (not a proof: a server going
    // away looks the same), so the bootstrap lookup fails at once naming
    // TLS.
    let started = Instant::now();
    let plaintext = Client::native(hbase.bootstrap()).build().unwrap();
    match plaintext.get_raw("secure", b"row00001") {
        Err(Error::Connection { cause, .. }) => {
            assert!(cause.contains("ClientBuilder::tls"), "{cause}")
        }
        other => panic!("plaintext: expected Error::Connection, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    let bob_client = native()
        .kerberos(Kerberos::keytab(&bob, &bob_keytab))
        .build()
        .unwrap();
    let started = Instant::now();
    match bob_client.get_raw("secure", b"row00001") {
        Err(Error::AccessDenied { user, action, .. }) => {
            assert_eq!((user.as_str(), action.as_str()), ("bob", "READ"))
        }
        other => panic!("bob: expected Error::AccessDenied, got {other:?}"),
    }
    // A write all of whose rows are refused for the right: AccessDenied
    // too (not Rejected row by row); HBase's wording for a write names the
    // whole principal.
    match bob_client.write_raw_rows("secure", rows(0, 3)) {
        Err(Error::AccessDenied { user, action, .. }) => {
            assert_eq!((user.as_str(), action.as_str()), (bob.as_str(), "WRITE"))
        }
        other => panic!("bob: expected Error::AccessDenied, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(5));

    // The gateway, SPNEGO in HTTP mode: alice's rights through it.
    let gateway = Client::builder(hbase.gateway_addr())
        .transport(rowkey_hbase::Transport::Http)
        .kerberos(Kerberos::keytab(&alice, &alice_keytab))
        .build()
        .unwrap();
    let written = rows(50_000, 200);
    gateway.write_raw_rows("secure", written.clone()).unwrap();
    let scanned: Vec<_> = gateway
        .scan(
            "secure",
            &Scan::from_bounds(&written[0].0, &rows(50_200, 1)[0].0),
            None,
        )
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(scanned, written);
    let anonymous = Client::builder(hbase.gateway_addr())
        .transport(rowkey_hbase::Transport::Http)
        .build()
        .unwrap();
    let no_login = anonymous.get_raw("secure", b"row00001").unwrap_err();
    let no_login = rowkey_core::error_chain(&no_login);
    assert!(
        no_login.contains("needs ClientBuilder::kerberos"),
        "{no_login}"
    );

    // Past the tickets' 10 s: the keytab login takes new ones for a new
    // connection (the master's MasterService, opened by a table's
    // creation); the ticket cache's expired, and only kinit renews it.
    // (The keytab logins' first tickets are older than kinit's.)
    let expired_at = kinit_at + Duration::from_secs(12);
    std::thread::sleep(expired_at.saturating_duration_since(Instant::now()));
    admin_client
        .create_table("secure2", &["d"], &[])
        .unwrap_or_else(|e| panic!("a keytab login past its tickets' lifetime: {e}"));
    let expired = refused(
        "an expired ticket",
        native().kerberos(Kerberos::ticket_cache_at(&cache)),
    );
    assert!(expired.contains("expired"), "{expired}");

    switch_to_simple_is_refused_unless_allowed(&alice, &alice_keytab, &realm);
}

/// A listener that answers a Kerberos login as an insecure HBase does
/// (the golden file's `sasl_switch_to_simple`, printed by HBase's
/// classes), and sends back what came after the login's first token.
fn switch_to_simple_is_refused_unless_allowed(alice: &str, keytab: &std::path::Path, realm: &str) {
    let golden = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/native_golden.txt"
    ))
    .unwrap();
    let hex = golden
        .lines()
        .find_map(|l| l.strip_prefix("sasl_switch_to_simple "))
        .unwrap();
    let answer: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for socket in listener.incoming() {
            let Ok(mut socket) = socket else { return };
            let answer = answer.clone();
            let tx = tx.clone();
            std::thread::spawn(move || {
                let mut preamble = [0u8; 6];
                let mut len = [0u8; 4];
                if socket.read_exact(&mut preamble).is_err() || socket.read_exact(&mut len).is_err()
                {
                    return;
                }
                let mut token = vec![0; u32::from_be_bytes(len) as usize];
                let _ = socket.read_exact(&mut token);
                let _ = socket.write_all(&answer);
                let mut after = [0u8; 4];
                let got = socket.read_exact(&mut after).ok().map(|_| after);
                let _ = tx.send((preamble, got));
            });
        }
    });
    let client = |fallback: bool| {
        Client::native(addr.clone())
            .operation_timeout(Duration::from_secs(5))
            .kerberos(
                Kerberos::keytab(alice, keytab)
                    .server_principal(format!("hbase/localhost@{realm}"))
                    .allow_simple_fallback(fallback),
            )
            .build()
            .unwrap()
    };
    match client(false).get_raw("t", b"r") {
        Err(Error::Security { cause, .. }) => {
            assert!(cause.contains("allow_simple_fallback(true)"), "{cause}")
        }
        other => panic!("expected Error::Security, got {other:?}"),
    }
    let (preamble, _) = rx.recv_timeout(Duration::from_secs(5)).unwrap();
    assert_eq!(&preamble, b"HBas\x00\x51");
    // Allowed: the client goes on as a SIMPLE one, its connection header
    // next (the listener then hangs up; the call's end is not the point).
    let _ = client(true).get_raw("t", b"r");
    let (_, after) = rx.recv_timeout(Duration::from_secs(5)).unwrap();
    assert!(after.is_some(), "a connection header after the fallback");
}
