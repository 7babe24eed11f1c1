//! The settings every connector's HTTP client takes: time limits, TLS material, how an OAuth2
//! client authenticates, and the error for a client that cannot be built.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Time limits of one HTTP call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// Establishing the connection (TCP and TLS).
    pub connect: Duration,
    /// The whole call: connect, send, wait, read the body.
    pub total: Duration,
}

impl Default for Timeouts {
    /// Connect 5 s, total 10 s.
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(5),
            total: Duration::from_secs(10),
        }
    }
}

impl Timeouts {
    /// Both limits at once: `connect` is the default's, capped at `total`.
    pub fn total(total: Duration) -> Self {
        Timeouts {
            connect: Timeouts::default().connect.min(total),
            total,
        }
    }
}

/// How an OAuth2 client authenticates to a token endpoint (RFC 6749 §2.3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ClientAuth {
    /// HTTP Basic (`client_id:client_secret`), RFC 6749 §2.3.1's preferred form.
    #[default]
    Basic,
    /// `client_id` and `client_secret` in the form body.
    Body,
}

/// TLS material for a source that wants a client certificate or a private root. Its `Debug`
/// never shows the keystore password.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct TlsConfig {
    /// A PEM file holding the client certificate (chain) and its private key (PKCS#8,
    /// PKCS#1 or SEC1), for mutual TLS.
    pub client_identity_pem: Option<PathBuf>,
    /// A PKCS#12 keystore (`.p12`/`.pfx`) holding the client certificate (chain) and its
    /// private key, the form registries often issue them in; an alternative to the PEM file.
    pub client_identity_pkcs12: Option<PathBuf>,
    /// The PKCS#12 keystore's password (empty when none).
    pub client_identity_password: Option<String>,
    /// A PEM bundle of extra root certificates to trust besides the platform's roots
    /// (for an upstream behind a private CA).
    pub extra_roots_pem: Option<PathBuf>,
}

impl fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsConfig")
            .field("client_identity_pem", &self.client_identity_pem)
            .field("client_identity_pkcs12", &self.client_identity_pkcs12)
            .field(
                "client_identity_password",
                &self.client_identity_password.as_ref().map(|_| "<redacted>"),
            )
            .field("extra_roots_pem", &self.extra_roots_pem)
            .finish()
    }
}

impl TlsConfig {
    /// Whether a client certificate is configured (in either form).
    pub fn has_client_identity(&self) -> bool {
        self.client_identity_pem.is_some() || self.client_identity_pkcs12.is_some()
    }
}

/// Why an HTTP client could not be built. `setting` names the connector's setting the
/// material belongs to, so an operator knows what to fix; a reason never holds key material.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientConfigError {
    /// A certificate, key or keystore is unreadable or unusable.
    #[error("TLS material for `{setting}` is unusable: {reason}")]
    Tls {
        /// The setting the material was configured under.
        setting: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// The HTTP client itself could not be built.
    #[error("the HTTP client for `{setting}` could not be built: {reason}")]
    Client {
        /// The setting of the client.
        setting: &'static str,
        /// The HTTP library's reason.
        reason: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn total_caps_the_connect_limit() {
        let t = Timeouts::total(Duration::from_secs(2));
        assert_eq!(t.connect, Duration::from_secs(2));
        assert_eq!(t.total, Duration::from_secs(2));
        let t = Timeouts::total(Duration::from_secs(30));
        assert_eq!(t.connect, Timeouts::default().connect);
    }

    #[test]
    fn the_password_stays_out_of_debug() {
        let tls = TlsConfig {
            client_identity_password: Some("hunter2".into()),
            ..TlsConfig::default()
        };
        let dbg = format!("{tls:?}");
        assert!(!dbg.contains("hunter2"));
        assert!(dbg.contains("<redacted>"));
    }
}
