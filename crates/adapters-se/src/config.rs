//! Configuration of the Swedish connectors: where each source lives, how to authenticate
//! to it and how long a call may take.
//!
//! [`SeConfig::production`] fills in the published production hosts of Bolagsverket's VDM
//! API; the SSBTGU endpoint is not published and must be set, and both SSBTGU and SCB need
//! client certificates in production (see the crate README). [`SeConfig::sandbox`] points
//! everything at a local stand-in such as `upstream-sandbox`.

use connector_kit::{ClientAuth, ClientConfigError, Timeouts, TlsConfig};
use std::fmt;
use std::time::Duration;

/// Bolagsverket VDM production API base (OpenAPI `servers`).
pub const VDM_PRODUCTION_BASE_URL: &str =
    "https://gw.api.bolagsverket.se/vardefulla-datamangder/v1";
/// Bolagsverket VDM production token endpoint (note: the `portal.` host, not `gw.`).
pub const VDM_PRODUCTION_TOKEN_URL: &str = "https://portal.api.bolagsverket.se/oauth2/token";
/// Both VDM scopes, requested together (space separated).
pub const VDM_DEFAULT_SCOPE: &str = "vardefulla-datamangder:read vardefulla-datamangder:ping";
/// SCB's "Sök på var" API base as third-party clients use it (certificate protected).
pub const SCB_PRODUCTION_BASE_URL: &str = "https://privateapi.scb.se/nv0101/v1/sokpavar";
/// The header SCB is believed to read the API id from (some clients send `APIId`).
pub const SCB_DEFAULT_API_ID_HEADER: &str = "api-id";

/// Bolagsverket "API för värdefulla datamängder" (free; OAuth2 client credentials).
#[derive(Clone, PartialEq, Eq)]
pub struct VdmConfig {
    /// API base, without a trailing slash: `.../vardefulla-datamangder/v1`.
    pub base_url: String,
    /// OAuth2 token endpoint.
    pub token_url: String,
    pub client_id: String,
    pub client_secret: String,
    /// Space-separated scopes to request.
    pub scope: String,
    pub client_auth: ClientAuth,
    /// A token is renewed this long before `expires_in` runs out (at most half its life).
    pub token_refresh_margin: Duration,
    /// Limits of token, `/organisationer` and `/dokumentlista` calls.
    pub timeouts: Timeouts,
    /// Total limit of a `/dokument` download (archives can be large).
    pub document_timeout: Duration,
    /// Largest accepted `/dokument` archive.
    pub max_document_bytes: usize,
    pub tls: TlsConfig,
}

impl fmt::Debug for VdmConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VdmConfig")
            .field("base_url", &self.base_url)
            .field("token_url", &self.token_url)
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("scope", &self.scope)
            .field("client_auth", &self.client_auth)
            .field("token_refresh_margin", &self.token_refresh_margin)
            .field("timeouts", &self.timeouts)
            .field("document_timeout", &self.document_timeout)
            .field("max_document_bytes", &self.max_document_bytes)
            .field("tls", &self.tls)
            .finish()
    }
}

/// A party in SSBT metadata (`Datakonsument`, `Anvandare`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SsbtParty {
    /// The party's 10-digit organisationsnummer (`PartId/Organisationsnummer`).
    pub orgnr: String,
    /// `PartNamn`.
    pub name: String,
    /// `Service/ServiceNamn` (sent for the data consumer only).
    pub service: Option<String>,
}

/// Bolagsverket SSBTGU (`GetForetagsuppgifter`, SOAP 1.1), carrying Skatteverket's
/// F-skatt, VAT and employer registrations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SsbtguConfig {
    /// The service endpoint (not published; given at onboarding). Required.
    pub url: Option<String>,
    /// `Datakonsument` of the request metadata: the organisation calling.
    pub consumer: SsbtParty,
    /// `Anvandare` of the request metadata: on whose behalf (the service itself).
    pub user: SsbtParty,
    pub timeouts: Timeouts,
    pub tls: TlsConfig,
}

/// SCB's företagsregister (`POST {base}/api/je/hamtaforetag`).
#[derive(Clone, PartialEq, Eq)]
pub struct ScbConfig {
    /// API base, without a trailing slash, e.g. `.../nv0101/v1/sokpavar`.
    pub base_url: String,
    /// The API id (`Annnnn`) SCB issued with the certificate, if any.
    pub api_id: Option<String>,
    /// The header the API id is sent in.
    pub api_id_header: String,
    pub timeouts: Timeouts,
    pub tls: TlsConfig,
}

impl fmt::Debug for ScbConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScbConfig")
            .field("base_url", &self.base_url)
            .field("api_id", &self.api_id.as_ref().map(|_| "<set>"))
            .field("api_id_header", &self.api_id_header)
            .field("timeouts", &self.timeouts)
            .field("tls", &self.tls)
            .finish()
    }
}

/// Bolagsverket "API för att hämta företagsinformation" v4 (paid; OAuth2 client
/// credentials at the same token endpoint as VDM): officers, signatory rule, a person's
/// engagements. Paths are kept in configuration: they are inferred until onboarding
/// confirms them (see the crate README).
#[derive(Clone, PartialEq, Eq)]
pub struct ForetagsinformationConfig {
    /// API base, without a trailing slash: `.../foretagsinformation/v4`.
    pub base_url: String,
    /// Path of the organisation operation (officers and signatory rule).
    pub organisationer_path: String,
    /// Path of a person's engagements (paged).
    pub engagemang_path: String,
    pub token_url: String,
    pub client_id: String,
    pub client_secret: String,
    pub scope: String,
    pub client_auth: ClientAuth,
    pub token_refresh_margin: Duration,
    pub timeouts: Timeouts,
    /// Engagements asked for per page (`antalPerSida`); each page is one billable call.
    pub page_size: u32,
    pub tls: TlsConfig,
}

impl fmt::Debug for ForetagsinformationConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ForetagsinformationConfig")
            .field("base_url", &self.base_url)
            .field("organisationer_path", &self.organisationer_path)
            .field("engagemang_path", &self.engagemang_path)
            .field("token_url", &self.token_url)
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("scope", &self.scope)
            .field("timeouts", &self.timeouts)
            .field("page_size", &self.page_size)
            .field("tls", &self.tls)
            .finish_non_exhaustive()
    }
}

/// Bolagsverket's beneficial-owners API (VerkligaHuvudmän v1; mutual TLS with the client
/// certificate Bolagsverket issued).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerkligaHuvudmanConfig {
    /// API base, without a trailing slash: `.../verkliga-huvudman/v1`.
    pub base_url: String,
    /// Path of an organisation's beneficial owners.
    pub organisationer_path: String,
    pub timeouts: Timeouts,
    /// The client certificate is required.
    pub tls: TlsConfig,
}

/// Everything the Swedish paid tier needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SePaidConfig {
    pub foretagsinformation: ForetagsinformationConfig,
    pub verkliga_huvudman: VerkligaHuvudmanConfig,
}

/// The company information API's production base (inferred; confirm at onboarding).
pub const FI_PRODUCTION_BASE_URL: &str = "https://gw.api.bolagsverket.se/foretagsinformation/v4";
/// The company information API's scope.
pub const FI_DEFAULT_SCOPE: &str = "foretagsinformation:read";
/// The beneficial-owners API's production base (inferred; confirm at onboarding).
pub const BO_PRODUCTION_BASE_URL: &str = "https://gw.api.bolagsverket.se/verkliga-huvudman/v1";

impl SePaidConfig {
    /// Production defaults with these company-information credentials. Still to be set:
    /// the beneficial-owners client certificate (`verkliga_huvudman.tls`).
    pub fn production(client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        SePaidConfig {
            foretagsinformation: ForetagsinformationConfig {
                base_url: FI_PRODUCTION_BASE_URL.to_owned(),
                organisationer_path: "/organisationer".to_owned(),
                engagemang_path: "/organisationsengagemang".to_owned(),
                token_url: VDM_PRODUCTION_TOKEN_URL.to_owned(),
                client_id: client_id.into(),
                client_secret: client_secret.into(),
                scope: FI_DEFAULT_SCOPE.to_owned(),
                client_auth: ClientAuth::Basic,
                token_refresh_margin: Duration::from_secs(60),
                timeouts: Timeouts::default(),
                page_size: 100,
                tls: TlsConfig::default(),
            },
            verkliga_huvudman: VerkligaHuvudmanConfig {
                base_url: BO_PRODUCTION_BASE_URL.to_owned(),
                organisationer_path: "/organisationer".to_owned(),
                timeouts: Timeouts::default(),
                tls: TlsConfig::default(),
            },
        }
    }

    /// Both APIs at a local stand-in: the company information API under `fi_base_url` (its
    /// tokens from `token_url`), beneficial owners under `bo_base_url` with this client
    /// identity and CA.
    pub fn sandbox(
        fi_base_url: String,
        token_url: String,
        bo_base_url: String,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
        bo_tls: TlsConfig,
    ) -> Self {
        let mut c = SePaidConfig::production(client_id, client_secret);
        c.foretagsinformation.base_url = fi_base_url;
        c.foretagsinformation.token_url = token_url;
        c.verkliga_huvudman.base_url = bo_base_url;
        c.verkliga_huvudman.tls = bo_tls;
        c
    }

    /// The same limits for both APIs.
    pub fn with_timeouts(mut self, timeouts: Timeouts) -> Self {
        self.foretagsinformation.timeouts = timeouts;
        self.verkliga_huvudman.timeouts = timeouts;
        self
    }

    /// Checks the settings without touching the network (certificate files are read when
    /// the registry is built, so an unreadable one fails at start-up).
    pub fn validate(&self) -> Result<(), SeConfigError> {
        let fi = &self.foretagsinformation;
        check_url("foretagsinformation.base_url", &fi.base_url)?;
        check_url("foretagsinformation.token_url", &fi.token_url)?;
        check_path(
            "foretagsinformation.organisationer_path",
            &fi.organisationer_path,
        )?;
        check_path("foretagsinformation.engagemang_path", &fi.engagemang_path)?;
        if fi.client_id.trim().is_empty() {
            return Err(SeConfigError::Missing("foretagsinformation.client_id"));
        }
        if fi.client_secret.is_empty() {
            return Err(SeConfigError::Missing("foretagsinformation.client_secret"));
        }
        if !(1..=1000).contains(&fi.page_size) {
            return Err(SeConfigError::Invalid {
                setting: "foretagsinformation.page_size",
                reason: "must be between 1 and 1000".into(),
            });
        }
        let bo = &self.verkliga_huvudman;
        check_url("verkliga_huvudman.base_url", &bo.base_url)?;
        check_path(
            "verkliga_huvudman.organisationer_path",
            &bo.organisationer_path,
        )?;
        if !bo.tls.has_client_identity() {
            return Err(SeConfigError::Missing(
                "verkliga_huvudman.client_identity (a PEM file or a PKCS#12 keystore)",
            ));
        }
        if bo.tls.client_identity_pem.is_some() && bo.tls.client_identity_pkcs12.is_some() {
            return Err(SeConfigError::Invalid {
                setting: "verkliga_huvudman.client_identity",
                reason: "give either a PEM file or a PKCS#12 keystore, not both".into(),
            });
        }
        for (setting, t) in [
            ("foretagsinformation.timeouts", fi.timeouts),
            ("verkliga_huvudman.timeouts", bo.timeouts),
        ] {
            if t.total.is_zero() || t.connect.is_zero() {
                return Err(SeConfigError::Invalid {
                    setting,
                    reason: "time limits must be positive".into(),
                });
            }
        }
        Ok(())
    }
}

/// SPAR's person search ("Personsök program-program" 2021.1): SOAP over HTTPS with mutual TLS
/// under the organisation certificate SPAR issued (a PKCS#12 keystore), and the customer
/// numbers and assignment id of the agreement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SparConfig {
    /// The SOAP endpoint.
    pub url: String,
    /// `KundNrLeveransMottagare`: the customer number of the recipient of the answer.
    pub customer_number_recipient: String,
    /// `KundNrSlutkund`: the customer number of the end customer.
    pub customer_number_end: String,
    /// `UppdragId`: the assignment id of the agreement.
    pub assignment_id: String,
    pub timeouts: Timeouts,
    /// The organisation certificate is required (PKCS#12, or PEM).
    pub tls: TlsConfig,
}

/// SPAR person search's production endpoint (2021.1).
pub const SPAR_PRODUCTION_URL: &str =
    "https://personsok.statenspersonadressregister.se/2021.1/personsok";
/// SPAR's customer-test endpoint (2021.1).
pub const SPAR_CUSTOMER_TEST_URL: &str =
    "https://test-personsok.statenspersonadressregister.se/2021.1/personsok";

impl SparConfig {
    /// The production endpoint with the agreement's numbers. Still to be set: the
    /// organisation certificate (`tls`).
    pub fn production(
        customer_number_recipient: impl Into<String>,
        customer_number_end: impl Into<String>,
        assignment_id: impl Into<String>,
    ) -> Self {
        SparConfig {
            url: SPAR_PRODUCTION_URL.to_owned(),
            customer_number_recipient: customer_number_recipient.into(),
            customer_number_end: customer_number_end.into(),
            assignment_id: assignment_id.into(),
            timeouts: Timeouts::default(),
            tls: TlsConfig::default(),
        }
    }

    /// Checks the settings without touching the network (the keystore is read when the
    /// client is built, so an unreadable one fails at start-up).
    pub fn validate(&self) -> Result<(), SeConfigError> {
        check_url("spar.url", &self.url)?;
        for (setting, v) in [
            (
                "spar.customer_number_recipient",
                &self.customer_number_recipient,
            ),
            ("spar.customer_number_end", &self.customer_number_end),
            ("spar.assignment_id", &self.assignment_id),
        ] {
            if v.trim().is_empty() {
                return Err(SeConfigError::Missing(setting));
            }
            if !v.bytes().all(|b| b.is_ascii_digit()) || v.len() > 20 {
                return Err(SeConfigError::Invalid {
                    setting,
                    reason: "must be digits (as in the agreement with SPAR)".into(),
                });
            }
        }
        if !self.tls.has_client_identity() {
            return Err(SeConfigError::Missing(
                "spar.client_identity (the organisation certificate: a PKCS#12 keystore)",
            ));
        }
        if self.tls.client_identity_pem.is_some() && self.tls.client_identity_pkcs12.is_some() {
            return Err(SeConfigError::Invalid {
                setting: "spar.client_identity",
                reason: "give either a PKCS#12 keystore or a PEM file, not both".into(),
            });
        }
        if self.timeouts.total.is_zero() || self.timeouts.connect.is_zero() {
            return Err(SeConfigError::Invalid {
                setting: "spar.timeouts",
                reason: "time limits must be positive".into(),
            });
        }
        Ok(())
    }
}

fn check_path(setting: &'static str, path: &str) -> Result<(), SeConfigError> {
    if path.starts_with('/') && !path.contains("..") && !path.contains('?') {
        Ok(())
    } else {
        Err(SeConfigError::Invalid {
            setting,
            reason: "must be an absolute path such as `/organisationer`".into(),
        })
    }
}

/// Where the sandbox (or any stand-in) serves each source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeEndpoints {
    /// VDM API base (`.../vardefulla-datamangder/v1`).
    pub vdm_base_url: String,
    /// VDM token endpoint.
    pub vdm_token_url: String,
    /// SSBTGU SOAP endpoint.
    pub ssbtgu_url: String,
    /// SCB API base (`{base}/api/je/hamtaforetag` is called).
    pub scb_base_url: String,
}

/// Everything the Swedish registry needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeConfig {
    pub vdm: VdmConfig,
    pub ssbtgu: SsbtguConfig,
    pub scb: ScbConfig,
}

impl SeConfig {
    /// Production defaults: Bolagsverket's published VDM hosts with these client
    /// credentials, SCB's API host, default time limits. Still to be set before use:
    /// `ssbtgu.url`, `ssbtgu.consumer`/`ssbtgu.user`, the client certificates
    /// (`ssbtgu.tls`, `scb.tls`) and `scb.api_id`.
    pub fn production(client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        SeConfig {
            vdm: VdmConfig {
                base_url: VDM_PRODUCTION_BASE_URL.to_owned(),
                token_url: VDM_PRODUCTION_TOKEN_URL.to_owned(),
                client_id: client_id.into(),
                client_secret: client_secret.into(),
                scope: VDM_DEFAULT_SCOPE.to_owned(),
                client_auth: ClientAuth::Basic,
                token_refresh_margin: Duration::from_secs(60),
                timeouts: Timeouts::default(),
                document_timeout: Duration::from_secs(60),
                max_document_bytes: 64 * 1024 * 1024,
                tls: TlsConfig::default(),
            },
            ssbtgu: SsbtguConfig {
                url: None,
                consumer: SsbtParty {
                    orgnr: String::new(),
                    name: String::new(),
                    service: Some("idreg".to_owned()),
                },
                user: SsbtParty {
                    orgnr: String::new(),
                    name: String::new(),
                    service: None,
                },
                timeouts: Timeouts::default(),
                tls: TlsConfig::default(),
            },
            scb: ScbConfig {
                base_url: SCB_PRODUCTION_BASE_URL.to_owned(),
                api_id: None,
                api_id_header: SCB_DEFAULT_API_ID_HEADER.to_owned(),
                timeouts: Timeouts::default(),
                tls: TlsConfig::default(),
            },
        }
    }

    /// Everything pointed at a local stand-in (plain HTTP on loopback is accepted), with
    /// placeholder SSBT parties and no certificates.
    pub fn sandbox(
        endpoints: SeEndpoints,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        let mut c = SeConfig::production(client_id, client_secret);
        c.vdm.base_url = endpoints.vdm_base_url;
        c.vdm.token_url = endpoints.vdm_token_url;
        c.ssbtgu.url = Some(endpoints.ssbtgu_url);
        c.ssbtgu.consumer = SsbtParty {
            orgnr: "5560000000".to_owned(),
            name: "idreg sandbox".to_owned(),
            service: Some("idreg".to_owned()),
        };
        c.ssbtgu.user = SsbtParty {
            orgnr: "5560000000".to_owned(),
            name: "idreg sandbox".to_owned(),
            service: None,
        };
        c.scb.base_url = endpoints.scb_base_url;
        c
    }

    /// The same limits for every source's ordinary calls (the document limit is kept
    /// at least as long as `total`).
    pub fn with_timeouts(mut self, timeouts: Timeouts) -> Self {
        self.vdm.timeouts = timeouts;
        self.ssbtgu.timeouts = timeouts;
        self.scb.timeouts = timeouts;
        self.vdm.document_timeout = self.vdm.document_timeout.max(timeouts.total);
        self
    }

    /// Checks the settings without touching the network (certificate files are read when
    /// the registry is built).
    pub fn validate(&self) -> Result<(), SeConfigError> {
        check_url("vdm.base_url", &self.vdm.base_url)?;
        check_url("vdm.token_url", &self.vdm.token_url)?;
        check_url("scb.base_url", &self.scb.base_url)?;
        match &self.ssbtgu.url {
            None => return Err(SeConfigError::Missing("ssbtgu.url")),
            Some(u) => check_url("ssbtgu.url", u)?,
        }
        if self.vdm.client_id.trim().is_empty() {
            return Err(SeConfigError::Missing("vdm.client_id"));
        }
        if self.vdm.client_secret.is_empty() {
            return Err(SeConfigError::Missing("vdm.client_secret"));
        }
        check_orgnr("ssbtgu.consumer.orgnr", &self.ssbtgu.consumer.orgnr)?;
        check_orgnr("ssbtgu.user.orgnr", &self.ssbtgu.user.orgnr)?;
        if self.ssbtgu.consumer.name.trim().is_empty() {
            return Err(SeConfigError::Missing("ssbtgu.consumer.name"));
        }
        if self.ssbtgu.user.name.trim().is_empty() {
            return Err(SeConfigError::Missing("ssbtgu.user.name"));
        }
        if self.scb.api_id.is_some()
            && reqwest::header::HeaderName::from_bytes(self.scb.api_id_header.as_bytes()).is_err()
        {
            return Err(SeConfigError::Invalid {
                setting: "scb.api_id_header",
                reason: "not a valid HTTP header name".into(),
            });
        }
        for (setting, t) in [
            ("vdm.timeouts", self.vdm.timeouts),
            ("ssbtgu.timeouts", self.ssbtgu.timeouts),
            ("scb.timeouts", self.scb.timeouts),
        ] {
            if t.total.is_zero() || t.connect.is_zero() {
                return Err(SeConfigError::Invalid {
                    setting,
                    reason: "time limits must be positive".into(),
                });
            }
        }
        if self.vdm.document_timeout.is_zero() {
            return Err(SeConfigError::Invalid {
                setting: "vdm.document_timeout",
                reason: "time limits must be positive".into(),
            });
        }
        Ok(())
    }
}

/// A configuration the registry cannot run with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeConfigError {
    #[error("setting `{0}` is required")]
    Missing(&'static str),
    #[error("setting `{setting}` is invalid: {reason}")]
    Invalid {
        setting: &'static str,
        reason: String,
    },
    #[error("TLS material for `{setting}` is unusable: {reason}")]
    Tls {
        setting: &'static str,
        reason: String,
    },
    #[error("the HTTP client for `{setting}` could not be built: {reason}")]
    Client {
        setting: &'static str,
        reason: String,
    },
}

impl From<ClientConfigError> for SeConfigError {
    /// A client that cannot be built, with the kit's setting and reason unchanged.
    fn from(e: ClientConfigError) -> Self {
        match e {
            ClientConfigError::Tls { setting, reason } => SeConfigError::Tls { setting, reason },
            ClientConfigError::Client { setting, reason } => {
                SeConfigError::Client { setting, reason }
            }
        }
    }
}

/// Accepts `https://` anywhere and `http://` on loopback only (credentials and data must
/// not travel in the clear).
fn check_url(setting: &'static str, url: &str) -> Result<(), SeConfigError> {
    let parsed = reqwest::Url::parse(url).map_err(|e| SeConfigError::Invalid {
        setting,
        reason: e.to_string(),
    })?;
    match parsed.scheme() {
        "https" => Ok(()),
        "http" => {
            let host = parsed.host_str().unwrap_or("");
            let bare = host.trim_start_matches('[').trim_end_matches(']');
            let loopback = host.eq_ignore_ascii_case("localhost")
                || bare
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback());
            if loopback {
                Ok(())
            } else {
                Err(SeConfigError::Invalid {
                    setting,
                    reason: "plain http is accepted for loopback hosts only".into(),
                })
            }
        }
        other => Err(SeConfigError::Invalid {
            setting,
            reason: format!("unsupported scheme `{other}`"),
        }),
    }
}

fn check_orgnr(setting: &'static str, v: &str) -> Result<(), SeConfigError> {
    if v.is_empty() {
        return Err(SeConfigError::Missing(setting));
    }
    if v.len() != 10 || !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(SeConfigError::Invalid {
            setting,
            reason: "must be ten digits".into(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoints() -> SeEndpoints {
        SeEndpoints {
            vdm_base_url: "http://127.0.0.1:1/vdm/v1".into(),
            vdm_token_url: "http://127.0.0.1:1/vdm/oauth2/token".into(),
            ssbtgu_url: "http://127.0.0.1:1/ssbtgu".into(),
            scb_base_url: "http://localhost:1/scb".into(),
        }
    }

    #[test]
    fn production_needs_the_ssbtgu_endpoint() {
        let c = SeConfig::production("id", "secret");
        assert_eq!(c.vdm.base_url, VDM_PRODUCTION_BASE_URL);
        assert_eq!(c.vdm.token_url, VDM_PRODUCTION_TOKEN_URL);
        assert_eq!(c.validate(), Err(SeConfigError::Missing("ssbtgu.url")));
    }

    #[test]
    fn sandbox_validates() {
        assert_eq!(
            SeConfig::sandbox(endpoints(), "id", "secret").validate(),
            Ok(())
        );
    }

    #[test]
    fn plain_http_only_on_loopback() {
        let mut e = endpoints();
        e.scb_base_url = "http://scb.example/api".into();
        assert!(matches!(
            SeConfig::sandbox(e, "id", "secret").validate(),
            Err(SeConfigError::Invalid {
                setting: "scb.base_url",
                ..
            })
        ));
    }

    #[test]
    fn secrets_stay_out_of_debug() {
        let c = SeConfig::sandbox(endpoints(), "id", "hunter2");
        let mut c2 = c.clone();
        c2.scb.api_id = Some("A12345".into());
        let dbg = format!("{c2:?}");
        assert!(!dbg.contains("hunter2"));
        assert!(!dbg.contains("A12345"));
    }

    #[test]
    fn timeouts_apply_everywhere() {
        let t = Timeouts::total(Duration::from_secs(2));
        assert_eq!(t.connect, Duration::from_secs(2));
        let c = SeConfig::sandbox(endpoints(), "id", "s").with_timeouts(t);
        assert_eq!(c.scb.timeouts, t);
        assert_eq!(c.ssbtgu.timeouts, t);
        assert_eq!(c.vdm.timeouts, t);
    }
}
