//! Building one source's HTTP client, and reading client identities (PEM or PKCS#12).

use crate::config::{ClientConfigError, Timeouts, TlsConfig};

/// Builds one source's HTTP client: the time limits, no redirects (a redirected POST would
/// silently become a GET, and a redirect is never part of a registry's contract), the
/// connector's `user_agent` (e.g. `idreg-adapters-se/0.1.0`), an optional client
/// certificate (a PEM file or a PKCS#12 keystore) and optional extra roots.
///
/// Certificate files are read now, so a missing or unusable one fails at start-up, named by
/// `setting`, instead of at the first handshake.
pub fn build_client(
    setting: &'static str,
    user_agent: &str,
    timeouts: Timeouts,
    tls: &TlsConfig,
) -> Result<reqwest::Client, ClientConfigError> {
    let mut b = reqwest::Client::builder()
        .connect_timeout(timeouts.connect)
        .timeout(timeouts.total)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(user_agent);
    if let Some(path) = &tls.client_identity_pem {
        let pem = std::fs::read(path).map_err(|e| ClientConfigError::Tls {
            setting,
            reason: format!(
                "cannot read the client identity file {}: {e}",
                path.display()
            ),
        })?;
        b = b.identity(identity_from_pem(setting, &pem)?);
    }
    if let Some(path) = &tls.client_identity_pkcs12 {
        let der = std::fs::read(path).map_err(|e| ClientConfigError::Tls {
            setting,
            reason: format!("cannot read the PKCS#12 keystore {}: {e}", path.display()),
        })?;
        let pem = pkcs12_to_pem(
            setting,
            &der,
            tls.client_identity_password.as_deref().unwrap_or(""),
        )?;
        b = b.identity(identity_from_pem(setting, &pem)?);
    }
    if let Some(path) = &tls.extra_roots_pem {
        let pem = std::fs::read(path).map_err(|e| ClientConfigError::Tls {
            setting,
            reason: format!("cannot read the root certificate file: {e}"),
        })?;
        let roots =
            reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| ClientConfigError::Tls {
                setting,
                reason: format!("the root certificate file is not a PEM bundle: {e}"),
            })?;
        b = b.tls_certs_merge(roots);
    }
    b.build().map_err(|e| ClientConfigError::Client {
        setting,
        reason: e.to_string(),
    })
}

/// A client identity from PEM text. At least one certificate and one private key are
/// required (the HTTP library would otherwise fail only on the first handshake); without
/// them the reason is "the client identity must hold a certificate and its private key
/// (PEM)".
pub fn identity_from_pem(
    setting: &'static str,
    pem: &[u8],
) -> Result<reqwest::Identity, ClientConfigError> {
    let text = String::from_utf8_lossy(pem);
    if !text.contains("-----BEGIN CERTIFICATE-----") || !text.contains("PRIVATE KEY-----") {
        return Err(ClientConfigError::Tls {
            setting,
            reason: "the client identity must hold a certificate and its private key (PEM)".into(),
        });
    }
    reqwest::Identity::from_pem(pem).map_err(|e| ClientConfigError::Tls {
        setting,
        reason: format!("the client identity is not a usable PEM certificate and key: {e}"),
    })
}

/// The certificate chain and private key of a PKCS#12 keystore (DER bytes), as PEM text
/// ready for [`identity_from_pem`]. A wrong password or a keystore without a private key is
/// refused.
pub fn pkcs12_to_pem(
    setting: &'static str,
    der: &[u8],
    password: &str,
) -> Result<Vec<u8>, ClientConfigError> {
    use base64::Engine;
    let store = p12_keystore::KeyStore::from_pkcs12(
        der,
        password,
        p12_keystore::Pkcs12ImportPolicy::Strict,
    )
    .map_err(|e| ClientConfigError::Tls {
        setting,
        reason: format!("the PKCS#12 keystore cannot be opened (wrong password?): {e}"),
    })?;
    let (_, chain) = store
        .private_key_chain()
        .ok_or_else(|| ClientConfigError::Tls {
            setting,
            reason: "the PKCS#12 keystore holds no private key with its certificate".into(),
        })?;
    let block = |label: &str, der: &[u8]| {
        let b64 = base64::engine::general_purpose::STANDARD.encode(der);
        let mut out = format!("-----BEGIN {label}-----\n");
        for line in b64.as_bytes().chunks(64) {
            out.push_str(&String::from_utf8_lossy(line));
            out.push('\n');
        }
        out.push_str(&format!("-----END {label}-----\n"));
        out
    };
    let mut pem = String::new();
    for cert in chain.certs() {
        pem.push_str(&block("CERTIFICATE", cert.as_der()));
    }
    pem.push_str(&block("PRIVATE KEY", chain.key().as_der()));
    Ok(pem.into_bytes())
}
