//! Kerberos for the native client (feature `kerberos`): who the client
//! logs in as ([`Kerberos`]), the protection it asks of the connection
//! ([`Protection`]), and the GSSAPI steps of HBase's SASL exchange, over
//! the system's MIT Kerberos library through the `libgssapi` crate.
//!
//! The library reads its settings from `/etc/krb5.conf`, or the file
//! `KRB5_CONFIG` names; a ticket cache is `KRB5CCNAME`'s, or the
//! library's default.

use std::ffi::CString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use libgssapi::context::{ClientCtx, CtxFlags, SecurityContext};
use libgssapi::credential::Cred;
use libgssapi::name::Name;
use libgssapi::oid::{GSS_MECH_KRB5, GSS_NT_KRB5_PRINCIPAL};

/// The protection a connection's messages get after the login, as
/// HBase's `hbase.rpc.protection` names it. The client asks for exactly
/// this one and refuses a server that does not offer it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Protection {
    /// Authentication only (`authentication`, SASL `auth`): messages go
    /// as they are.
    #[default]
    Authentication,
    /// Each message signed (`integrity`, SASL `auth-int`).
    Integrity,
    /// Each message signed and encrypted (`privacy`, SASL `auth-conf`).
    Privacy,
}

impl Protection {
    /// The RFC 4752 security-layer bit.
    pub(crate) fn layer(self) -> u8 {
        match self {
            Protection::Authentication => 1,
            Protection::Integrity => 2,
            Protection::Privacy => 4,
        }
    }

    /// HBase's name for it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Protection::Authentication => "authentication",
            Protection::Integrity => "integrity",
            Protection::Privacy => "privacy",
        }
    }
}

/// How a client logs in to a kerberized HBase (`ClientBuilder::kerberos`).
///
/// ```no_run
/// use rowkey_hbase::{Client, Kerberos, Protection};
///
/// // A service's own login, renewed from its keytab while it runs.
/// let hbase = Client::native("master1.example.com:16000")
///     .kerberos(
///         Kerberos::keytab("ingest@EXAMPLE.COM", "/etc/security/keytabs/ingest.keytab")
///             .protection(Protection::Privacy),
///     )
///     .build()?;
/// # Ok::<(), rowkey_hbase::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Kerberos {
    login: Login,
    server_principal: Option<String>,
    protection: Protection,
    allow_simple_fallback: bool,
}

#[derive(Clone, Debug)]
enum Login {
    Keytab { principal: String, path: PathBuf },
    TicketCache { cache: Option<String> },
}

impl Kerberos {
    /// Logs in as `principal` (`name@REALM`, or `name/host@REALM`) with
    /// the keys in the keytab at `path`: a service's own login. Tickets
    /// are obtained from the keytab when a connection needs one and
    /// again when they expire, so a client that runs for weeks keeps
    /// working; they are held in memory, apart from any user's cache.
    pub fn keytab(principal: impl Into<String>, path: impl Into<PathBuf>) -> Kerberos {
        Kerberos::with(Login::Keytab {
            principal: principal.into(),
            path: path.into(),
        })
    }

    /// Uses the tickets of the user's cache (`kinit`'s): `KRB5CCNAME`'s,
    /// or the Kerberos library's default cache. A ticket that expires is
    /// not renewed: `kinit` again.
    pub fn ticket_cache() -> Kerberos {
        Kerberos::with(Login::TicketCache { cache: None })
    }

    /// Uses the tickets of the cache named `cache` (`FILE:/tmp/krb5cc_app`,
    /// `KEYRING:persistent:1000`, ...), whatever `KRB5CCNAME` says.
    pub fn ticket_cache_at(cache: impl Into<String>) -> Kerberos {
        Kerberos::with(Login::TicketCache {
            cache: Some(cache.into()),
        })
    }

    fn with(login: Login) -> Kerberos {
        Kerberos {
            login,
            server_principal: None,
            protection: Protection::default(),
            allow_simple_fallback: false,
        }
    }

    /// The principal of HBase's servers, HBase's
    /// `hbase.regionserver.kerberos.principal` (default
    /// `hbase/_HOST@REALM`, the realm the client's principal is in).
    /// `_HOST` becomes the host name a server registered under, in lower
    /// case (as HBase's client does with
    /// `hbase.unsafe.client.kerberos.hostname.disable.reversedns`: no
    /// reverse lookup of its address). For a Thrift2 gateway in HTTP mode
    /// it is the gateway's SPNEGO principal instead (HBase's
    /// `hbase.thrift.spnego.principal`, default `HTTP/_HOST@REALM`, `_HOST`
    /// the URL's host).
    pub fn server_principal(mut self, principal: impl Into<String>) -> Kerberos {
        self.server_principal = Some(principal.into());
        self
    }

    /// The protection asked of each connection (default
    /// [`Protection::Authentication`]): a server whose
    /// `hbase.rpc.protection` does not offer it is refused.
    pub fn protection(mut self, protection: Protection) -> Kerberos {
        self.protection = protection;
        self
    }

    /// Whether a server that is not secured (it answers the login with
    /// HBase's "switch to SIMPLE authentication") is used anyway, as
    /// HBase's `hbase.ipc.client.fallback-to-simple-auth-allowed`
    /// (default `false`: refused, since a client that asked for Kerberos
    /// expects an authenticated server).
    pub fn allow_simple_fallback(mut self, on: bool) -> Kerberos {
        self.allow_simple_fallback = on;
        self
    }

    pub(crate) fn protection_asked(&self) -> Protection {
        self.protection
    }

    pub(crate) fn simple_fallback_allowed(&self) -> bool {
        self.allow_simple_fallback
    }
}

/// Each keytab login's own in-memory ticket cache.
static CACHES: AtomicU64 = AtomicU64::new(0);

/// A client's Kerberos login: its settings and, for a keytab, the
/// in-memory cache its tickets live in (one per client, kept while the
/// client is).
#[derive(Clone, Debug)]
pub(crate) struct KerberosLogin {
    settings: Kerberos,
    memory_cache: Option<String>,
}

impl KerberosLogin {
    pub(crate) fn new(settings: Kerberos) -> KerberosLogin {
        let memory_cache = match settings.login {
            Login::Keytab { .. } => Some(format!(
                "MEMORY:rowkey-hbase-{}-{}",
                std::process::id(),
                CACHES.fetch_add(1, Ordering::Relaxed)
            )),
            Login::TicketCache { .. } => None,
        };
        KerberosLogin {
            settings,
            memory_cache,
        }
    }

    pub(crate) fn settings(&self) -> &Kerberos {
        &self.settings
    }

    /// The credentials of the login (blocking: a keytab login may ask the
    /// KDC for a ticket), with what went wrong and what to do.
    pub(crate) fn credentials(&self) -> Result<Cred, String> {
        let mut store: Vec<(&str, String)> = Vec::new();
        let principal = match &self.settings.login {
            Login::Keytab { principal, path } => {
                store.push(("client_keytab", path.display().to_string()));
                if let Some(cache) = &self.memory_cache {
                    store.push(("ccache", cache.clone()));
                }
                Some(principal.as_str())
            }
            Login::TicketCache { cache } => {
                if let Some(cache) = cache {
                    store.push(("ccache", cache.clone()));
                }
                None
            }
        };
        acquire(principal, &store).map_err(|e| self.login_problem(&e))
    }

    /// What a failed login means, in words that say what to do.
    fn login_problem(&self, e: &str) -> String {
        let what = match &self.settings.login {
            Login::Keytab { principal, path } => {
                format!(
                    "logging in as {principal} from the keytab {}",
                    path.display()
                )
            }
            Login::TicketCache { cache: Some(c) } => format!("reading the ticket cache {c}"),
            Login::TicketCache { cache: None } => "reading the ticket cache".to_owned(),
        };
        let keytab = matches!(self.settings.login, Login::Keytab { .. });
        let hint = if e.contains("No Kerberos credentials")
            || e.contains("No credentials cache")
            || e.contains("No credentials were supplied")
        {
            match keytab {
                true => " (is the principal in the keytab?)",
                false => " (no ticket: run kinit, or log in with Kerberos::keytab)",
            }
        } else {
            self.hint(e)
        };
        format!("{what}: {e}{hint}")
    }

    /// What to do about a GSSAPI failure common to every step: an expired
    /// ticket, a clock off the KDC's.
    fn hint(&self, e: &str) -> &'static str {
        if e.contains("expired") {
            match self.settings.login {
                Login::Keytab { .. } => " (the ticket expired and the keytab gave no new one)",
                Login::TicketCache { .. } => {
                    " (the ticket expired: kinit again, or log in with Kerberos::keytab, \
                     renewed by itself)"
                }
            }
        } else if e.contains("Clock skew") {
            " (this machine's clock is too far off the KDC's: synchronize it)"
        } else {
            ""
        }
    }

    /// One step of establishing `gss` with `server_principal`, its
    /// failure in words that say what to do.
    pub(crate) fn step(
        &self,
        gss: &Gss,
        token: Option<&[u8]>,
        server_principal: &str,
    ) -> Result<Option<Vec<u8>>, String> {
        gss.step(token).map_err(|e| {
            let hint = if e.contains("not found in Kerberos database") {
                format!(
                    " (the KDC knows no principal {server_principal}: check \
                     Kerberos::server_principal, HBase's hbase.regionserver.kerberos.principal)"
                )
            } else {
                self.hint(&e).to_owned()
            };
            format!("Kerberos login to {server_principal}: {e}{hint}")
        })
    }

    /// The principal of HBase's server registered as `host`; `me` is the
    /// login's own principal (its realm is the default one's).
    pub(crate) fn server_principal(
        &self,
        host: &str,
        me: impl FnOnce() -> Result<String, String>,
    ) -> Result<String, String> {
        self.principal_of("hbase", host, me)
    }

    /// The principal of `service` (`hbase`, or `HTTP` for a gateway's
    /// SPNEGO) at `host`: the settings' pattern, else
    /// `service/_HOST@REALM`.
    fn principal_of(
        &self,
        service: &str,
        host: &str,
        me: impl FnOnce() -> Result<String, String>,
    ) -> Result<String, String> {
        let pattern = match &self.settings.server_principal {
            Some(p) => p.clone(),
            None => {
                let me = me()?;
                let realm = me.rsplit_once('@').map(|(_, r)| r).ok_or_else(|| {
                    format!(
                        "the login's principal {me} names no realm: set Kerberos::server_principal"
                    )
                })?;
                format!("{service}/_HOST@{realm}")
            }
        };
        Ok(pattern.replace("_HOST", &host.to_ascii_lowercase()))
    }

    /// An `Authorization: Negotiate` header's value for one request to
    /// the HTTP gateway at `host` (SPNEGO, RFC 4559: the base64 of a
    /// Kerberos token for `HTTP/host@REALM`, or the settings' principal).
    /// Blocking: a first token asks the KDC for the service's ticket.
    pub(crate) fn negotiate(&self, host: &str) -> Result<String, String> {
        let cred = self.credentials()?;
        let me = || {
            cred.name()
                .map(|n| n.to_string())
                .map_err(|e| format!("the login's principal: {e}"))
        };
        let principal = self.principal_of("HTTP", host, me)?;
        let target = Name::new(principal.as_bytes(), Some(GSS_NT_KRB5_PRINCIPAL))
            .map_err(|e| format!("the gateway's principal {principal}: {e}"))?;
        let gss = Gss(Arc::new(Mutex::new(ClientCtx::new(
            Some(cred),
            target,
            CtxFlags::empty(),
            Some(GSS_MECH_KRB5),
        ))));
        let token = self.step(&gss, None, &principal)?.unwrap_or_default();
        Ok(format!("Negotiate {}", base64(&token)))
    }
}

/// Standard base64 with padding (RFC 4648), for a Negotiate header.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from_be_bytes([0, b[0], b[1], b[2]]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `gss_acquire_cred_from`: Kerberos initiator credentials for
/// `principal` (the cache's default principal when `None`) from the
/// credential store `store` (MIT's `client_keytab`, `ccache`; empty: the
/// library's defaults). The crate's one unsafe code: `libgssapi` wraps
/// no `gss_acquire_cred_from`, the only way to give a login its own
/// keytab and cache without changing the process's environment.
#[allow(unsafe_code)]
fn acquire(principal: Option<&str>, store: &[(&str, String)]) -> Result<Cred, String> {
    use libgssapi_sys as sys;
    let strings: Vec<(CString, CString)> = store
        .iter()
        .map(|(k, v)| {
            Ok((
                CString::new(*k).map_err(|e| e.to_string())?,
                CString::new(v.as_str()).map_err(|_| format!("{k} {v:?} holds a NUL byte"))?,
            ))
        })
        .collect::<Result<_, String>>()?;
    let mut elements: Vec<sys::gss_key_value_element_desc> = strings
        .iter()
        .map(|(k, v)| sys::gss_key_value_element_desc {
            key: k.as_ptr(),
            value: v.as_ptr(),
        })
        .collect();
    let set = sys::gss_key_value_set_desc {
        count: elements.len() as u32,
        elements: elements.as_mut_ptr(),
    };
    let status = |major: u32, minor: u32| {
        libgssapi::error::Error {
            major: libgssapi::error::MajorFlags::from_bits_retain(major),
            minor,
        }
        .to_string()
    };
    // Kerberos' own OIDs: the mechanism (1.2.840.113554.1.2.2) and its
    // principal name type (1.2.840.113554.1.2.2.1).
    let mut mech_bytes: Vec<u8> = GSS_MECH_KRB5.to_vec();
    let mut mech = sys::gss_OID_desc {
        length: mech_bytes.len() as u32,
        elements: mech_bytes.as_mut_ptr().cast(),
    };
    let mut mechs = sys::gss_OID_set_desc {
        count: 1,
        elements: &mut mech,
    };
    let mut name_type_bytes: Vec<u8> = GSS_NT_KRB5_PRINCIPAL.to_vec();
    let mut name_type = sys::gss_OID_desc {
        length: name_type_bytes.len() as u32,
        elements: name_type_bytes.as_mut_ptr().cast(),
    };
    let mut minor: sys::OM_uint32 = 0;
    let mut name: sys::gss_name_t = std::ptr::null_mut();
    if let Some(principal) = principal {
        let mut buffer = sys::gss_buffer_desc {
            length: principal.len(),
            value: principal.as_ptr() as *mut std::ffi::c_void,
        };
        // SAFETY: the buffer and the OID point into live values the
        // library only reads; on success `name` is the caller's, released
        // below.
        let major =
            unsafe { sys::gss_import_name(&mut minor, &mut buffer, &mut name_type, &mut name) };
        if major != sys::GSS_S_COMPLETE {
            return Err(format!(
                "the principal {principal}: {}",
                status(major, minor)
            ));
        }
    }
    let mut cred: sys::gss_cred_id_t = std::ptr::null_mut();
    // SAFETY: every pointer passed lives across the call (`strings`,
    // `elements`, `set`, `mechs`, `name`); the library copies what it
    // keeps. On success `cred` is a credential the caller owns, handed to
    // `Cred`, which releases it once.
    let major = unsafe {
        sys::gss_acquire_cred_from(
            &mut minor,
            name,
            sys::_GSS_C_INDEFINITE,
            &mut mechs,
            sys::GSS_C_INITIATE as sys::gss_cred_usage_t,
            if store.is_empty() {
                std::ptr::null()
            } else {
                &set
            },
            &mut cred,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    if !name.is_null() {
        let mut ignored: sys::OM_uint32 = 0;
        // SAFETY: `name` came from gss_import_name and is released once.
        unsafe { sys::gss_release_name(&mut ignored, &mut name) };
    }
    if major == sys::GSS_S_COMPLETE {
        // SAFETY: see above.
        Ok(unsafe { Cred::from_c(cred) })
    } else {
        Err(status(major, minor))
    }
}

/// A GSSAPI context with HBase's server, shared by a connection's reader
/// and writer once the login is done (to wrap and unwrap messages).
#[derive(Clone)]
pub(crate) struct Gss(Arc<Mutex<ClientCtx>>);

impl Gss {
    /// A context for `server_principal` from `cred`: mutual
    /// authentication, and integrity and confidentiality available (the
    /// security layer picks).
    pub(crate) fn new(cred: Cred, server_principal: &str) -> Result<Gss, String> {
        let target = Name::new(server_principal.as_bytes(), Some(GSS_NT_KRB5_PRINCIPAL))
            .map_err(|e| format!("the server principal {server_principal}: {e}"))?;
        let flags = CtxFlags::GSS_C_MUTUAL_FLAG
            | CtxFlags::GSS_C_INTEG_FLAG
            | CtxFlags::GSS_C_CONF_FLAG
            | CtxFlags::GSS_C_SEQUENCE_FLAG;
        Ok(Gss(Arc::new(Mutex::new(ClientCtx::new(
            Some(cred),
            target,
            flags,
            Some(GSS_MECH_KRB5),
        )))))
    }

    fn ctx(&self) -> std::sync::MutexGuard<'_, ClientCtx> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// One step of the context's establishment (blocking: the first asks
    /// the KDC for the server's ticket): the token to send, if any
    /// ([`KerberosLogin::step`] says what a failure means).
    fn step(&self, token: Option<&[u8]>) -> Result<Option<Vec<u8>>, String> {
        self.ctx()
            .step(token, None)
            .map(|t| t.map(|b| b.to_vec()))
            .map_err(|e| e.to_string())
    }

    /// Whether the context is established.
    pub(crate) fn is_complete(&self) -> bool {
        self.ctx().is_complete()
    }

    /// `msg` wrapped: signed, and encrypted when `encrypt`.
    pub(crate) fn wrap(&self, encrypt: bool, msg: &[u8]) -> Result<Vec<u8>, String> {
        self.ctx()
            .wrap(encrypt, msg)
            .map(|b| b.to_vec())
            .map_err(|e| format!("GSSAPI wrap: {e}"))
    }

    /// A wrapped message's contents, its signature checked.
    pub(crate) fn unwrap(&self, msg: &[u8]) -> Result<Vec<u8>, String> {
        self.ctx()
            .unwrap(msg)
            .map(|b| b.to_vec())
            .map_err(|e| format!("GSSAPI unwrap: {e}"))
    }

    /// The authenticated principal of the client.
    pub(crate) fn client_principal(&self) -> Result<String, String> {
        self.ctx()
            .source_name()
            .map(|n| n.to_string())
            .map_err(|e| format!("the login's principal: {e}"))
    }
}

/// The client's answer to the server's security-layer offer (RFC 4752
/// section 3.1: the unwrapped offer is the layers the server supports,
/// a bit mask, and its largest message, 3 bytes): the layer asked for and
/// the client's own largest message, or why the offer is refused.
pub(crate) fn security_layer(offer: &[u8], asked: Protection) -> Result<[u8; 4], String> {
    let [mask, ..] = *offer else {
        return Err(format!(
            "the server's security-layer offer is {} bytes, not 4",
            offer.len()
        ));
    };
    if offer.len() != 4 {
        return Err(format!(
            "the server's security-layer offer is {} bytes, not 4",
            offer.len()
        ));
    }
    if mask & asked.layer() == 0 {
        let offered: Vec<&str> = [
            Protection::Authentication,
            Protection::Integrity,
            Protection::Privacy,
        ]
        .into_iter()
        .filter(|p| mask & p.layer() != 0)
        .map(Protection::name)
        .collect();
        return Err(format!(
            "the server offers protection {} (its hbase.rpc.protection), not the {} asked \
             (Kerberos::protection)",
            offered.join(", "),
            asked.name()
        ));
    }
    let max = rowkey_hbase_protocol::wire::MAX_FRAME as u32;
    let max = max.min(0x00ff_ffff).to_be_bytes();
    Ok([asked.layer(), max[1], max[2], max[3]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn security_layers_are_chosen_or_refused() {
        let all = [0b111, 0, 0x10, 0];
        assert_eq!(
            security_layer(&all, Protection::Privacy).unwrap(),
            [4, 0xff, 0xff, 0xff]
        );
        assert_eq!(
            security_layer(&all, Protection::Authentication).unwrap()[0],
            1
        );
        let e = security_layer(&[0b001, 0, 0x10, 0], Protection::Privacy).unwrap_err();
        assert!(
            e.contains("offers protection authentication (its hbase.rpc.protection), not the privacy asked"),
            "{e}"
        );
        assert!(security_layer(&[7, 0], Protection::Privacy).is_err());
        assert!(security_layer(&[], Protection::Privacy).is_err());
    }

    #[test]
    fn base64_is_rfc_4648s() {
        // RFC 4648 section 10's vectors.
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), coded);
        }
        assert_eq!(base64(&[0xff, 0xfe, 0xfd]), "//79");
    }

    #[test]
    fn server_principals_follow_the_host() {
        let login = KerberosLogin::new(Kerberos::keytab("alice@EXAMPLE.COM", "/nonexistent"));
        let me = || Ok("alice@EXAMPLE.COM".to_owned());
        assert_eq!(
            login.server_principal("RS1.Example.com", me).unwrap(),
            "hbase/rs1.example.com@EXAMPLE.COM"
        );
        let login =
            KerberosLogin::new(Kerberos::ticket_cache().server_principal("hbase/_HOST@OTHER.ORG"));
        let never = || -> Result<String, String> { unreachable!("a pattern needs no realm") };
        assert_eq!(
            login.server_principal("rs2", never).unwrap(),
            "hbase/rs2@OTHER.ORG"
        );
        let nameless = KerberosLogin::new(Kerberos::ticket_cache());
        assert!(nameless
            .server_principal("rs2", || Ok("alice".to_owned()))
            .unwrap_err()
            .contains("names no realm"));
    }
}
