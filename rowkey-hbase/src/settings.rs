//! How a client reaches HBase's Thrift2 gateway: its transport and
//! protocol ([`Transport`], [`Protocol`], which must match the gateway's)
//! and TLS ([`Tls`], for the gateway and for the native client's masters
//! and region servers).

/// How Thrift messages travel to the gateway; it must match the gateway's
/// own setting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Transport {
    /// Messages straight on the socket: `hbase thrift2`'s default.
    #[default]
    Buffered,
    /// Each message in a frame with its length (`hbase thrift2 -f`,
    /// `hbase.regionserver.thrift.framed`; needed by its nonblocking and
    /// hsha servers).
    Framed,
    /// Each call an HTTP `POST` of the message to the gateway's HTTP mode
    /// (`hbase.regionserver.thrift.http`), over TLS when the address is
    /// `https://...` (`hbase.thrift.ssl.enabled`): the only mode in which
    /// HBase's gateway serves TLS, and how it sits behind Knox and load
    /// balancers.
    Http,
}

/// The Thrift protocol, as the gateway speaks it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Protocol {
    /// Thrift's binary protocol: the gateway's default.
    #[default]
    Binary,
    /// Thrift's compact protocol (`hbase thrift2 -c`,
    /// `hbase.regionserver.thrift.compact`).
    Compact,
}

/// TLS settings: the root certificate(s) a server's certificate is
/// checked against, a client certificate when the server asks for one
/// (mutual TLS), and whether the server's certificate must name the host
/// dialed (it must, unless turned off).
///
/// They serve an HTTPS gateway ([`Transport::Http`] with an `https://`
/// address) and, with feature `tls`, a native client's connections to
/// HBase's masters and region servers (HBase 2.6's
/// `hbase.server.netty.tls.enabled`; each server's certificate is checked
/// against the host name it registered under).
///
/// ```no_run
/// use rowkey_hbase::{Client, Tls, Transport};
///
/// let tls = Tls::root_pem(std::fs::read("ca.pem")?);
/// let hbase = Client::builder("https://thrift.example.com:9090/")
///     .transport(Transport::Http)
///     .tls(tls)
///     .build()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Tls {
    pub(crate) roots: Vec<u8>,
    pub(crate) identity: Option<(Vec<u8>, Vec<u8>)>,
    pub(crate) verify_hostname: bool,
}

/// Sizes only: no certificate, and never the private key, in a log.
impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls")
            .field("roots", &format_args!("{} bytes of PEM", self.roots.len()))
            .field(
                "client_identity",
                &self
                    .identity
                    .as_ref()
                    .map(|_| "(certificate and private key, not shown)"),
            )
            .field("verify_hostname", &self.verify_hostname)
            .finish()
    }
}

impl Tls {
    /// Trusts the certificates in `pem` (one or more `CERTIFICATE` blocks)
    /// and no other.
    pub fn root_pem(pem: impl Into<Vec<u8>>) -> Tls {
        Tls {
            roots: pem.into(),
            identity: None,
            verify_hostname: true,
        }
    }

    /// Whether a server's certificate must name the host it is reached by
    /// (`true` by default; HBase's
    /// `hbase.client.netty.tls.verify.server.hostname`). Turning it off
    /// still checks the certificate against the roots: for clusters whose
    /// certificates name no host. A native client's setting only: an
    /// HTTPS gateway's host name is always checked (building such a client
    /// is refused).
    pub fn verify_hostname(mut self, on: bool) -> Tls {
        self.verify_hostname = on;
        self
    }

    /// Presents a client certificate: `chain` (PEM `CERTIFICATE`s, the
    /// client's first) and its private key (PEM, PKCS#8, PKCS#1 or SEC1).
    pub fn client_identity(mut self, chain: impl Into<Vec<u8>>, key: impl Into<Vec<u8>>) -> Tls {
        self.identity = Some((chain.into(), key.into()));
        self
    }

    /// The TLS settings of an HTTP gateway's agent, or what is wrong with
    /// the PEM.
    pub(crate) fn config(&self) -> Result<ureq::tls::TlsConfig, String> {
        if !self.verify_hostname {
            return Err("Tls::verify_hostname(false) is a native client's setting: \
                 an HTTPS gateway's certificate must name its host"
                .into());
        }
        let certs = |pem: &[u8], what: &str| {
            let certs = ureq::tls::parse_pem(pem)
                .filter_map(|item| match item {
                    Ok(ureq::tls::PemItem::Certificate(c)) => Some(Ok(c)),
                    Ok(_) => None,
                    Err(e) => Some(Err(format!("{what}: {e}"))),
                })
                .collect::<Result<Vec<_>, String>>()?;
            if certs.is_empty() {
                return Err(format!("{what}: no PEM CERTIFICATE block"));
            }
            Ok(certs)
        };
        let roots = certs(&self.roots, "the root certificate")?;
        let mut config = ureq::tls::TlsConfig::builder()
            .root_certs(ureq::tls::RootCerts::new_with_certs(&roots));
        if let Some((chain, key)) = &self.identity {
            let chain = certs(chain, "the client certificate")?;
            let key = ureq::tls::PrivateKey::from_pem(key)
                .map_err(|e| format!("the client certificate's private key: {e}"))?;
            config = config.client_cert(Some(ureq::tls::ClientCert::new_with_certs(&chain, key)));
        }
        Ok(config.build())
    }
}
