//! `Client::connect_google` against a local stand-in for Google (this
//! machine cannot reach Google): an HTTPS gRPC server with a certificate
//! made by the test, which records each request's path and headers and
//! answers `NOT_FOUND`, and a local OAuth token endpoint named by the
//! service-account file `GOOGLE_APPLICATION_CREDENTIALS` points to. The
//! client must get its token from Application Default Credentials, speak
//! TLS to the server, and send the bearer token and the routing and
//! resource headers Google's clients send.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use http_body_util::Empty;
use hyper::body::Bytes;
use hyper::{Request, Response};
use rowkey_bigtable::{stream_scan, Client, ClientOptions, GoogleOptions};
use rowkey_core::Scan;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_rustls::rustls;

type Seen = Arc<Mutex<Vec<(String, HashMap<String, String>)>>>;

/// The HTTPS gRPC stand-in: its address and the requests it saw.
async fn grpc_server(cert: &rcgen::CertifiedKey<rcgen::KeyPair>) -> (u16, Seen) {
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(cert.signing_key.serialize_der().into());
    let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![cert.cert.der().clone()], key)
    .unwrap();
    config.alpn_protocols = vec![b"h2".to_vec()];
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen: Seen = Arc::default();
    let log = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            let log = Arc::clone(&log);
            tokio::spawn(async move {
                // A client that refuses the certificate ends here.
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let service =
                    hyper::service::service_fn(move |req: Request<hyper::body::Incoming>| {
                        let headers = req
                            .headers()
                            .iter()
                            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
                            .collect();
                        log.lock()
                            .unwrap()
                            .push((req.uri().path().to_string(), headers));
                        async {
                            // A trailers-only gRPC answer: NOT_FOUND.
                            Ok::<_, Infallible>(
                                Response::builder()
                                    .header("content-type", "application/grpc")
                                    .header("grpc-status", "5")
                                    .header("grpc-message", "the stand-in has no tables")
                                    .body(Empty::<Bytes>::new())
                                    .unwrap(),
                            )
                        }
                    });
                let _ =
                    hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new())
                        .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                        .await;
            });
        }
    });
    (port, seen)
}

/// How the token endpoint answers: tokens lasting this many seconds
/// (under gcp_auth's 20 s margin, every ask fetches a new one), or, when
/// `failing`, HTTP 500.
#[derive(Default)]
struct TokenMode {
    expires_in: std::sync::atomic::AtomicU64,
    failing: std::sync::atomic::AtomicBool,
}

/// The OAuth token endpoint: answers every POST with a token; counts them.
async fn token_server() -> (u16, Arc<Mutex<Vec<String>>>, Arc<TokenMode>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let bodies: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = Arc::clone(&bodies);
    let mode = Arc::new(TokenMode::default());
    mode.expires_in
        .store(3600, std::sync::atomic::Ordering::Relaxed);
    let served = Arc::clone(&mode);
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let log = Arc::clone(&log);
            let mode = Arc::clone(&served);
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                // The request: headers, then Content-Length bytes of body.
                loop {
                    let n = s.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    let text = String::from_utf8_lossy(&buf).to_string();
                    if let Some((head, body)) = text.split_once("\r\n\r\n") {
                        let len = head
                            .lines()
                            .find_map(|l| {
                                l.to_ascii_lowercase()
                                    .strip_prefix("content-length:")
                                    .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                            })
                            .unwrap_or(0);
                        if body.len() >= len {
                            log.lock().unwrap().push(body.to_string());
                            break;
                        }
                    }
                }
                let expires = mode.expires_in.load(std::sync::atomic::Ordering::Relaxed);
                let (status, json) = if mode.failing.load(std::sync::atomic::Ordering::Relaxed) {
                    (
                        "500 Internal Server Error",
                        r#"{"error":"the stand-in is down"}"#.to_string(),
                    )
                } else {
                    (
                        "200 OK",
                        format!(
                            r#"{{"access_token":"test-token-123","expires_in":{expires},"token_type":"Bearer"}}"#
                        ),
                    )
                };
                let answer = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{json}",
                    json.len()
                );
                let _ = s.write_all(answer.as_bytes()).await;
            });
        }
    });
    (port, bodies, mode)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_google_speaks_tls_with_an_adc_token_and_googles_headers() {
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let (port, seen) = grpc_server(&cert).await;
    let (token_port, token_requests, token_mode) = token_server().await;

    // A service account whose token endpoint is the local one.
    let dir = tempfile::tempdir().unwrap();
    let key = include_str!("data/service-account-key.pem");
    let account = serde_json::json!({
        "type": "service_account",
        "project_id": "p",
        "private_key_id": "test",
        "private_key": key,
        "client_email": "rowkey-test@p.iam.gserviceaccount.com",
        "client_id": "1",
        "token_uri": format!("http://127.0.0.1:{token_port}/token"),
    });
    let file = dir.path().join("account.json");
    std::fs::write(&file, account.to_string()).unwrap();
    // This test binary holds this one test: nothing else reads the
    // environment while it is set.
    std::env::set_var("GOOGLE_APPLICATION_CREDENTIALS", &file);

    let options = ClientOptions {
        app_profile_id: Some("serving".into()),
        ..ClientOptions::default()
    };
    let client = Client::connect_google_with(
        "p",
        "i",
        GoogleOptions {
            endpoint: format!("https://localhost:{port}"),
            root_pem: Some(cert.cert.pem().into_bytes()),
            options: options.clone(),
            ..GoogleOptions::default()
        },
    )
    .await
    .unwrap();
    let mut rows = stream_scan(&client, "events", &Scan::from_bounds(b"a", b"b"), None)
        .await
        .unwrap();
    let e = rows.next().await.expect("an item").unwrap_err();
    assert!(
        format!("{e:?}").contains("the stand-in has no tables"),
        "{e:?}"
    );

    let token_bodies = token_requests.lock().unwrap().clone();
    assert!(!token_bodies.is_empty());
    assert!(token_bodies[0].contains("jwt-bearer"), "{token_bodies:?}");
    let requests = seen.lock().unwrap().clone();
    let (path, headers) = requests.first().expect("a request reached the server");
    assert_eq!(path, "/google.bigtable.v2.Bigtable/ReadRows");
    assert_eq!(headers["authorization"], "Bearer test-token-123");
    assert_eq!(
        headers["x-goog-request-params"],
        "table_name=projects%2Fp%2Finstances%2Fi%2Ftables%2Fevents&app_profile_id=serving"
    );
    assert_eq!(
        headers["google-cloud-resource-prefix"],
        "projects/p/instances/i/tables/events"
    );
    assert_eq!(headers["content-type"], "application/grpc");

    // Without the test's root, the server's certificate is refused: no
    // request reaches it.
    let before = seen.lock().unwrap().len();
    let stranger = Client::connect_google_with(
        "p",
        "i",
        GoogleOptions {
            endpoint: format!("https://localhost:{port}"),
            root_pem: None,
            options: options.clone(),
            ..GoogleOptions::default()
        },
    )
    .await
    .unwrap();
    let mut rows = stream_scan(&stranger, "events", &Scan::from_bounds(b"a", b"b"), None)
        .await
        .unwrap();
    let e = rows.next().await.expect("an item").unwrap_err();
    assert!(!format!("{e:?}").contains("the stand-in"), "{e:?}");
    assert_eq!(seen.lock().unwrap().len(), before, "nothing sent past TLS");

    // An endpoint that is not https:// would send the token in clear:
    // refused, unless asked for a test server.
    for endpoint in [
        format!("http://localhost:{port}"),
        format!("localhost:{port}"),
    ] {
        let Err(e) = Client::connect_google_with(
            "p",
            "i",
            GoogleOptions {
                endpoint: endpoint.clone(),
                ..GoogleOptions::default()
            },
        )
        .await
        else {
            panic!("{endpoint}: refused");
        };
        assert!(e.to_string().contains("in clear"), "{endpoint}: {e}");
    }
    let insecure = GoogleOptions {
        endpoint: format!("http://localhost:{port}"),
        ..GoogleOptions::default()
    }
    .insecure_for_testing();
    assert!(Client::connect_google_with("p", "i", insecure)
        .await
        .is_ok());

    // A token refresh that fails: the next call says so (it used to be
    // silent, the old token sent until the server refused it).
    token_mode
        .expires_in
        .store(10, std::sync::atomic::Ordering::Relaxed);
    let refreshing = Client::connect_google_with(
        "p",
        "i",
        GoogleOptions {
            endpoint: format!("https://localhost:{port}"),
            root_pem: Some(cert.cert.pem().into_bytes()),
            options,
            token_refresh: std::time::Duration::from_millis(100),
            ..GoogleOptions::default()
        },
    )
    .await
    .unwrap();
    token_mode
        .failing
        .store(true, std::sync::atomic::Ordering::Relaxed);
    // gcp_auth tries a failing token endpoint 5 times, 1.55 s in all.
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    let before = seen.lock().unwrap().len();
    let mut rows = stream_scan(&refreshing, "events", &Scan::from_bounds(b"a", b"b"), None)
        .await
        .unwrap();
    let e = rows.next().await.expect("an item").unwrap_err();
    assert!(
        format!("{e:?}").contains("refreshing the bearer token"),
        "{e:?}"
    );
    assert_eq!(seen.lock().unwrap().len(), before, "the call was not sent");
}
