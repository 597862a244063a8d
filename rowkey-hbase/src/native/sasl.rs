//! HBase's Kerberos login on a new connection (feature `kerberos`), as
//! its RPC server reads it (`ServerRpcConnection`): the preamble with auth
//! method `KERBEROS`, SASL GSSAPI tokens each framed `int32 length +
//! bytes`, each answered with an `int32` status and a token (or an error:
//! class and message), then RFC 4752's security layer (the server's
//! wrapped offer of protections, the client's wrapped choice) before the
//! connection header. An insecure server answers the preamble with
//! "switch to SIMPLE" instead.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use rowkey_hbase_protocol::wire;

use super::regions::host_of;
use crate::shared::kerberos::{security_layer, Gss, KerberosLogin, Protection};

/// Why a login failed.
#[derive(Debug)]
pub(crate) enum LoginError {
    /// Refused by either side (no ticket, an unknown principal, a
    /// protection not offered, an insecure server): trying again cannot
    /// help.
    Refused(String),
    /// The connection failed.
    Broken(String),
}

/// How a login ended.
pub(crate) enum Outcome {
    /// Authenticated as `user`; with integrity or privacy, every later
    /// message wrapped by `gss` (`encrypt` for privacy).
    Secured {
        gss: Gss,
        user: String,
        wrap: Option<bool>,
    },
    /// The server is not secured and the settings accept that.
    Simple,
}

/// Runs `f` (GSSAPI calls, which may ask the KDC over the network) off
/// the runtime's workers.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, LoginError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| LoginError::Broken(format!("the Kerberos login's task failed: {e}")))?
        .map_err(LoginError::Refused)
}

/// Logs in to `server` over a fresh connection (after its TLS handshake,
/// if any).
pub(crate) async fn login<R, W>(
    read: &mut R,
    write: &mut W,
    server: &str,
    login: &KerberosLogin,
) -> Result<Outcome, LoginError>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let host = host_of(server).to_owned();
    let settings = login.clone();
    let (gss, principal, first) = blocking(move || {
        let cred = settings.credentials()?;
        let me = || {
            cred.name()
                .map(|n| n.to_string())
                .map_err(|e| format!("the login's principal: {e}"))
        };
        let principal = settings.server_principal(&host, me)?;
        let gss = Gss::new(cred, &principal)?;
        let first = settings.step(&gss, None, &principal)?.unwrap_or_default();
        Ok((gss, principal, first))
    })
    .await?;
    let broken = |what: &str, e: std::io::Error| LoginError::Broken(format!("{what}: {e}"));
    let mut hello = wire::PREAMBLE_KERBEROS.to_vec();
    hello.extend_from_slice(&framed(&first));
    write
        .write_all(&hello)
        .await
        .map_err(|e| broken("sending the Kerberos login", e))?;
    let asked = login.settings().protection_asked();
    loop {
        let status = read
            .read_i32()
            .await
            .map_err(|e| broken("reading the Kerberos login's answer", e))?;
        if status != wire::SASL_SUCCESS {
            let class = read_string(read, "exception class").await?;
            let message = read_string(read, "exception message").await?;
            return Err(LoginError::Refused(format!(
                "the server refused the Kerberos login: {class}: {message}"
            )));
        }
        let len = read
            .read_i32()
            .await
            .map_err(|e| broken("reading the Kerberos login's answer", e))?;
        if len == wire::SASL_SWITCH_TO_SIMPLE {
            if login.settings().simple_fallback_allowed() {
                return Ok(Outcome::Simple);
            }
            return Err(LoginError::Refused(
                "the server is not secured (it answered the Kerberos login with \
                 SWITCH_TO_SIMPLE_AUTH): a client that asked for Kerberos refuses it; \
                 Kerberos::allow_simple_fallback(true) accepts it"
                    .into(),
            ));
        }
        let token = read_token(read, len, "SASL token").await?;
        if !gss.is_complete() {
            let (g, p, l) = (gss.clone(), principal.clone(), login.clone());
            let answer = blocking(move || l.step(&g, Some(&token), &p)).await?;
            // An established context with nothing more to say answers
            // with an empty token, as Java's GSSAPI client does: the
            // server's security-layer offer comes next.
            write
                .write_all(&framed(&answer.unwrap_or_default()))
                .await
                .map_err(|e| broken("sending the Kerberos login", e))?;
            continue;
        }
        let offer = gss.unwrap(&token).map_err(LoginError::Refused)?;
        let choice = security_layer(&offer, asked).map_err(LoginError::Refused)?;
        let choice = gss.wrap(false, &choice).map_err(LoginError::Refused)?;
        write
            .write_all(&framed(&choice))
            .await
            .map_err(|e| broken("sending the Kerberos login", e))?;
        let user = gss.client_principal().map_err(LoginError::Refused)?;
        let wrap = match asked {
            Protection::Authentication => None,
            Protection::Integrity => Some(false),
            Protection::Privacy => Some(true),
        };
        return Ok(Outcome::Secured { gss, user, wrap });
    }
}

/// `bytes` framed by their length.
fn framed(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + bytes.len());
    out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    out.extend_from_slice(bytes);
    out
}

/// `len` bytes of a token, the length checked first.
async fn read_token<R: AsyncRead + Unpin>(
    read: &mut R,
    len: i32,
    what: &str,
) -> Result<Vec<u8>, LoginError> {
    let len = usize::try_from(len)
        .ok()
        .filter(|&l| l <= wire::MAX_SASL_TOKEN)
        .ok_or_else(|| {
            LoginError::Broken(format!(
                "the server sent a {what} of {len} bytes (at most {} expected)",
                wire::MAX_SASL_TOKEN
            ))
        })?;
    let mut token = vec![0; len];
    read.read_exact(&mut token)
        .await
        .map_err(|e| LoginError::Broken(format!("reading a {what}: {e}")))?;
    Ok(token)
}

/// A string of a SASL error: `int32 length + UTF-8`.
async fn read_string<R: AsyncRead + Unpin>(read: &mut R, what: &str) -> Result<String, LoginError> {
    let len = read
        .read_i32()
        .await
        .map_err(|e| LoginError::Broken(format!("reading an {what}: {e}")))?;
    let bytes = read_token(read, len, what).await?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
