//! Certificates for a test HBase: the TLS gateway's keystore (made by
//! the JDK's `keytool`), and, with feature `tls`, the certificates of a
//! cluster whose RPC port serves TLS
//! ([`HBaseBuilder::rpc_tls`](super::HBaseBuilder::rpc_tls)): a CA made for
//! the test, a server certificate it signs for `127.0.0.1` and
//! `localhost` (every server of the test cluster uses it, as a keystore
//! in HBase's PEM form), and a client certificate it signs for mutual TLS.

use std::io;
use std::path::Path;
use std::process::{Command, Stdio};

#[cfg(feature = "tls")]
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose,
};

/// A keystore for the TLS gateway, made by the JDK's `keytool` in `dir`: a
/// self-signed certificate for 127.0.0.1. HBase's settings for it, and the
/// certificate as PEM.
pub(super) fn keystore(dir: &Path) -> io::Result<(Vec<String>, Vec<u8>)> {
    let store = dir.join("gateway.jks");
    let pem = dir.join("gateway.pem");
    let password = "rowkey-test";
    let keytool = |args: &[&str]| -> io::Result<()> {
        let out = Command::new("keytool")
            .args(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| io::Error::new(e.kind(), format!("cannot run keytool: {e}")))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(io::Error::other(format!(
                "keytool {}: {}{}",
                args.join(" "),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )))
        }
    };
    let store_arg = store.display().to_string();
    keytool(&[
        "-genkeypair",
        "-alias",
        "gateway",
        "-keyalg",
        "EC",
        "-groupname",
        "secp256r1",
        "-dname",
        "CN=127.0.0.1",
        "-ext",
        "SAN=ip:127.0.0.1",
        "-validity",
        "2",
        "-keystore",
        &store_arg,
        "-storetype",
        "JKS",
        "-storepass",
        password,
        "-keypass",
        password,
    ])?;
    keytool(&[
        "-exportcert",
        "-rfc",
        "-alias",
        "gateway",
        "-keystore",
        &store_arg,
        "-storepass",
        password,
        "-file",
        &pem.display().to_string(),
    ])?;
    let settings = vec![
        "hbase.thrift.ssl.enabled=true".to_string(),
        format!("hbase.thrift.ssl.keystore.store={store_arg}"),
        format!("hbase.thrift.ssl.keystore.password={password}"),
        format!("hbase.thrift.ssl.keystore.keypassword={password}"),
        "hbase.thrift.ssl.keystore.type=jks".to_string(),
    ];
    Ok((settings, std::fs::read(pem)?))
}

/// What a TLS test cluster and its clients need.
#[cfg(feature = "tls")]
#[derive(Clone, Debug)]
pub(super) struct RpcTls {
    /// The CA's certificate (PEM): the root a client trusts.
    pub(super) root: Vec<u8>,
    /// A client certificate the CA signed (PEM) and its private key
    /// (PKCS#8 PEM), for mutual TLS.
    pub(super) client: (Vec<u8>, Vec<u8>),
    /// HBase's settings: TLS on the servers' RPC and on the cluster's own
    /// clients (between its servers, and the launcher's), plaintext
    /// refused, client certificates not asked for (a test asks with
    /// `hbase.server.netty.tls.client.auth.mode=NEED`).
    pub(super) settings: Vec<(String, String)>,
}

/// Makes the certificates of a TLS cluster in `dir`.
#[cfg(feature = "tls")]
pub(super) fn rpc_tls(dir: &Path) -> io::Result<RpcTls> {
    let err = |e: rcgen::Error| io::Error::other(format!("making the test certificates: {e}"));
    let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "rowkey test CA");
    ca.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().map_err(err)?).map_err(err)?;
    let leaf = |name: &str| -> io::Result<(String, String)> {
        let mut params =
            CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
                .map_err(err)?;
        params.distinguished_name.push(DnType::CommonName, name);
        let key = KeyPair::generate().map_err(err)?;
        let cert = params.signed_by(&key, &ca).map_err(err)?;
        Ok((cert.pem(), key.serialize_pem()))
    };
    let (server_cert, server_key) = leaf("hbase")?;
    let (client_cert, client_key) = leaf("rowkey-client")?;
    let keystore = dir.join("rpc-keystore.pem");
    let truststore = dir.join("rpc-truststore.pem");
    std::fs::write(&keystore, format!("{server_key}{server_cert}"))?;
    std::fs::write(&truststore, ca.pem())?;
    let path = |p: &Path| p.display().to_string();
    let settings = [
        ("hbase.server.netty.tls.enabled", "true".to_owned()),
        ("hbase.client.netty.tls.enabled", "true".to_owned()),
        (
            "hbase.server.netty.tls.supportplaintext",
            "false".to_owned(),
        ),
        ("hbase.server.netty.tls.client.auth.mode", "NONE".to_owned()),
        ("hbase.rpc.tls.keystore.location", path(&keystore)),
        ("hbase.rpc.tls.keystore.type", "PEM".to_owned()),
        ("hbase.rpc.tls.truststore.location", path(&truststore)),
        ("hbase.rpc.tls.truststore.type", "PEM".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    Ok(RpcTls {
        root: ca.pem().into_bytes(),
        client: (client_cert.into_bytes(), client_key.into_bytes()),
        settings,
    })
}
