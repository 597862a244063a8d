//! TLS to HBase's masters and region servers (feature `tls`), as HBase
//! 2.6's netty RPC server serves it (`hbase.server.netty.tls.enabled`):
//! the handshake first, then the preamble and every call as on a plain
//! socket. On rustls with the ring provider; TLS 1.2 (HBase's default
//! `hbase.rpc.tls.protocol`) and 1.3.

use std::sync::Arc;

use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::client::danger::{
    HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier,
};
use tokio_rustls::rustls::client::WebPkiServerVerifier;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use tokio_rustls::rustls::{
    self, CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use tokio_rustls::TlsConnector;

use super::regions::host_of;
use crate::Tls;

/// Why a handshake failed.
#[derive(Debug)]
pub(crate) enum HandshakeError {
    /// A certificate refused on either side, or a server that does not
    /// speak TLS: trying again cannot help.
    Refused(String),
    /// The connection failed.
    Broken(String),
}

/// The TLS side of a native client's connections, made once from its
/// [`Tls`] settings.
#[derive(Clone)]
pub(crate) struct Connector {
    connector: TlsConnector,
    /// Whether a client certificate is presented.
    identity: bool,
}

impl std::fmt::Debug for Connector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Connector")
    }
}

impl Connector {
    /// The connector for `tls`, or what is wrong with its PEM.
    pub(crate) fn new(tls: &Tls) -> Result<Connector, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut roots = RootCertStore::empty();
        for cert in certificates(&tls.roots, "the root certificate")? {
            roots
                .add(cert)
                .map_err(|e| format!("the root certificate: {e}"))?;
        }
        let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
            .build()
            .map_err(|e| format!("the root certificate: {e}"))?;
        let builder = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?;
        let builder = if tls.verify_hostname {
            builder.with_webpki_verifier(webpki)
        } else {
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(AnyHostName(webpki)))
        };
        let config = match &tls.identity {
            Some((chain, key)) => {
                let chain = certificates(chain, "the client certificate")?;
                let key = PrivateKeyDer::from_pem_slice(key)
                    .map_err(|e| format!("the client certificate's private key: {e}"))?;
                builder
                    .with_client_auth_cert(chain, key)
                    .map_err(|e| format!("the client certificate: {e}"))?
            }
            None => builder.with_no_client_auth(),
        };
        Ok(Connector {
            connector: TlsConnector::from(Arc::new(config)),
            identity: tls.identity.is_some(),
        })
    }

    /// The handshake with `server` (`host:port`) over `stream`: the
    /// server's certificate checked against the roots and, unless turned
    /// off, against `host`.
    pub(crate) async fn handshake(
        &self,
        stream: TcpStream,
        server: &str,
    ) -> Result<TlsStream<TcpStream>, HandshakeError> {
        let host = host_of(server);
        let name = ServerName::try_from(host.to_owned()).map_err(|e| {
            HandshakeError::Refused(format!("TLS to {server}: {host} is no host name: {e}"))
        })?;
        self.connector.connect(name, stream).await.map_err(|e| {
            let rustls_error = e
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<rustls::Error>());
            match rustls_error {
                Some(rustls::Error::InvalidCertificate(why)) => HandshakeError::Refused(format!(
                    "TLS handshake with {server}: its certificate is refused: {}",
                    certificate_problem(why, host)
                )),
                // The server refused the client's certificate, or its
                // lack of one.
                Some(alert @ rustls::Error::AlertReceived(_)) => HandshakeError::Refused(format!(
                    "TLS handshake with {server}: the server refused the client ({alert}): {}",
                    if self.identity {
                        "was the client certificate signed by a CA the server trusts?"
                    } else {
                        "a server asking for client certificates \
                             (hbase.server.netty.tls.client.auth.mode) needs Tls::client_identity"
                    }
                )),
                Some(other) => {
                    HandshakeError::Refused(format!("TLS handshake with {server}: {other}"))
                }
                // A server that reads a ClientHello as HBase's preamble
                // closes the connection: it does not speak TLS.
                None if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                    HandshakeError::Refused(format!(
                        "TLS handshake with {server}: the server closed the connection \
                     (is it serving TLS? HBase's hbase.server.netty.tls.enabled)"
                    ))
                }
                None => HandshakeError::Broken(format!("TLS handshake with {server}: {e}")),
            }
        })
    }
}

/// What is wrong with a server's certificate, in words.
fn certificate_problem(why: &CertificateError, host: &str) -> String {
    match why {
        CertificateError::UnknownIssuer => {
            "it is not signed by the root certificate given (Tls::root_pem)".into()
        }
        CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
            format!(
                "it does not name {host} (Tls::verify_hostname(false) skips this check): {why:?}"
            )
        }
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
            format!("it has expired: {why:?}")
        }
        other => format!("{other:?}"),
    }
}

/// The PEM `CERTIFICATE` blocks of `pem`, at least one.
fn certificates(pem: &[u8], what: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{what}: {e}"))?;
    if certs.is_empty() {
        return Err(format!("{what}: no PEM CERTIFICATE block"));
    }
    Ok(certs)
}

/// A verifier that checks the chain against the roots and accepts a
/// certificate whatever host it names (`Tls::verify_hostname(false)`).
#[derive(Debug)]
struct AnyHostName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyHostName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_pem_is_named() {
        let e = Connector::new(&Tls::root_pem("not pem")).unwrap_err();
        assert_eq!(e, "the root certificate: no PEM CERTIFICATE block");
        let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        let e = Connector::new(
            &Tls::root_pem(cert.cert.pem()).client_identity(cert.cert.pem(), "no key"),
        )
        .unwrap_err();
        assert!(e.starts_with("the client certificate's private key"), "{e}");
        assert!(Connector::new(&Tls::root_pem(cert.cert.pem())).is_ok());
    }
}
