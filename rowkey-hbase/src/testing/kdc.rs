//! The KDC of a kerberized test HBase ([`HBaseBuilder::kerberos`](super::HBaseBuilder::kerberos),
//! feature `kerberos`): Hadoop's MiniKdc in the cluster's JVM, its realm
//! and port, a Kerberos configuration for the system's library that
//! points at it, and principals made on request.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where a test cluster's KDC is, and the client configuration written
/// for it.
#[derive(Debug)]
pub(crate) struct KdcInfo {
    pub(super) realm: String,
    pub(super) krb5_conf: PathBuf,
    /// MiniKdc's own krb5.conf, for another JVM (the gateway's).
    pub(super) java_krb5_conf: PathBuf,
    /// The servers' keytab (`hbase/localhost`, `HTTP/localhost`).
    pub(super) keytab: PathBuf,
}

impl KdcInfo {
    /// A kerberized gateway's settings: its own login and its SPNEGO
    /// principal (HTTP mode), both from the servers' keytab.
    pub(super) fn gateway_settings(&self) -> Vec<String> {
        let realm = &self.realm;
        let keytab = self.keytab.display();
        vec![
            "hadoop.security.authentication=kerberos".into(),
            "hbase.security.authentication=kerberos".into(),
            format!("hbase.master.kerberos.principal=hbase/_HOST@{realm}"),
            format!("hbase.regionserver.kerberos.principal=hbase/_HOST@{realm}"),
            format!("hbase.thrift.kerberos.principal=hbase/localhost@{realm}"),
            format!("hbase.thrift.keytab.file={keytab}"),
            format!("hbase.thrift.spnego.principal=HTTP/localhost@{realm}"),
            format!("hbase.thrift.spnego.keytab.file={keytab}"),
        ]
    }

    /// The JVM flag that points a JVM at the KDC.
    pub(super) fn jvm_flag(&self) -> String {
        format!(
            "-Djava.security.krb5.conf={}",
            self.java_krb5_conf.display()
        )
    }
}

impl KdcInfo {
    /// The KDC the launcher announced (`KDC REALM PORT`), with a
    /// `krb5.conf` for it in `dir` asking tickets of `ticket_lifetime`.
    pub(super) fn new(line: &str, dir: &Path, ticket_lifetime: Duration) -> io::Result<KdcInfo> {
        let mut words = line.split(' ');
        let (Some(realm), Some(port), Some(java_krb5_conf), Some(keytab), None) = (
            words.next(),
            words.next(),
            words.next(),
            words.next(),
            words.next(),
        ) else {
            return Err(io::Error::other(format!(
                "not `REALM PORT KRB5_CONF KEYTAB`: {line}"
            )));
        };
        let port: u16 = port
            .parse()
            .map_err(|_| io::Error::other(format!("not a port: {port}")))?;
        let krb5_conf = dir.join("krb5.conf");
        // No DNS anywhere (names are taken as given), TCP first, and the
        // lifetime a test asked for.
        std::fs::write(
            &krb5_conf,
            format!(
                "[libdefaults]\n\
                 \x20 default_realm = {realm}\n\
                 \x20 dns_lookup_kdc = false\n\
                 \x20 dns_lookup_realm = false\n\
                 \x20 dns_canonicalize_hostname = false\n\
                 \x20 rdns = false\n\
                 \x20 udp_preference_limit = 1\n\
                 \x20 ticket_lifetime = {}s\n\
                 \x20 forwardable = false\n\
                 [realms]\n\
                 \x20 {realm} = {{\n\
                 \x20   kdc = localhost:{port}\n\
                 \x20 }}\n\
                 [domain_realm]\n\
                 \x20 localhost = {realm}\n",
                ticket_lifetime.as_secs().max(1)
            ),
        )?;
        Ok(KdcInfo {
            realm: realm.to_owned(),
            krb5_conf,
            java_krb5_conf: PathBuf::from(java_krb5_conf),
            keytab: PathBuf::from(keytab),
        })
    }
}
