//! TLS on the native client (feature `tls`): host names.
//!
//! (Against a real HBase 2.6 serving TLS only, with client certificates
//! required, the native client is tested in `tests/kerberos.rs`: its
//! secured cluster is kerberized and serves TLS, so one cluster's start
//! covers both.)
//!
//! Against a local TLS listener whose certificate names another host: the
//! host name check refuses it, and `Tls::verify_hostname(false)` lets the
//! client through (the listener reads HBase's preamble over TLS).

use std::sync::Arc;
use std::time::Duration;

use rowkey_hbase::{Client, Error, Tls};

/// `Error::Security`'s cause, or a panic naming what came instead.
fn security_cause(result: Result<impl std::fmt::Debug, Error>) -> String {
    match result {
        Err(Error::Security { cause, .. }) => cause,
        other => panic!("expected Error::Security, got {other:?}"),
    }
}

/// A TLS listener on loopback whose certificate (signed by the returned
/// root) names only `elsewhere.example`; it sends each connection's
/// first six bytes after the handshake on the channel.
fn listener_for_another_host() -> (
    String,
    String,
    std::sync::mpsc::Receiver<Vec<u8>>,
    tokio::runtime::Runtime,
) {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
    use tokio::io::AsyncReadExt;
    use tokio_rustls::rustls;

    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(vec!["elsewhere.example".to_owned()])
        .unwrap()
        .signed_by(&key, &ca)
        .unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(
        vec![cert.der().clone()],
        rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
    )
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (tx, rx) = std::sync::mpsc::channel();
    rt.spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            let tx = tx.clone();
            tokio::spawn(async move {
                if let Ok(mut tls) = acceptor.accept(socket).await {
                    let mut preamble = [0u8; 6];
                    if tls.read_exact(&mut preamble).await.is_ok() {
                        let _ = tx.send(preamble.to_vec());
                    }
                }
            });
        }
    });
    (addr, ca.pem(), rx, rt)
}

#[test]
fn host_names_are_checked_unless_turned_off() {
    let (addr, root, preambles, _rt) = listener_for_another_host();
    let client = |tls: Tls| {
        Client::native(addr.clone())
            .tls(tls)
            .operation_timeout(Duration::from_secs(5))
            .request_timeout(Duration::from_secs(2))
            .build()
            .unwrap()
    };

    let checked = client(Tls::root_pem(root.clone()));
    let cause = security_cause(checked.get_raw("t", b"row"));
    assert!(cause.contains("does not name 127.0.0.1"), "{cause}");
    assert!(preambles.try_recv().is_err(), "no preamble after a refusal");

    // Not checked: the handshake passes and HBase's preamble comes over
    // TLS (the listener then answers nothing; the call's end is not this
    // test's concern).
    let unchecked = client(Tls::root_pem(root).verify_hostname(false));
    let _ = unchecked.get_raw("t", b"row");
    let preamble = preambles.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(preamble, b"HBas\x00\x50");

    // The gateway's HTTPS cannot turn the check off: refused when built.
    let gateway = Client::builder("https://127.0.0.1:1/")
        .transport(rowkey_hbase::Transport::Http)
        .tls(Tls::root_pem(b"x".to_vec()).verify_hostname(false))
        .build();
    assert!(
        matches!(&gateway, Err(Error::Config(m)) if m.contains("verify_hostname")),
        "{:?}",
        gateway.err()
    );
}
