//! Sweden as the binary plugs it in ([`PLUG`]): the settings it reads, and its connectors
//! built from them or against the sandbox. Settings come from the environment
//! (`IDREG_SE_<KEY>`) or the configuration file's `[se]` table (the same keys, lower case):
//!
//! | Variable | Meaning |
//! |---|---|
//! | `IDREG_SE_VDM_CLIENT_ID`, `IDREG_SE_VDM_CLIENT_SECRET` | Bolagsverket API credentials (required for production) |
//! | `IDREG_SE_VDM_BASE_URL`, `IDREG_SE_VDM_TOKEN_URL` | default: Bolagsverket's production hosts |
//! | `IDREG_SE_SSBTGU_URL` | the SSBTGU service (tax registrations); required |
//! | `IDREG_SE_SSBTGU_CONSUMER_ORGNR`, `IDREG_SE_SSBTGU_CONSUMER_NAME` | who asks (required) |
//! | `IDREG_SE_SSBTGU_CLIENT_IDENTITY_PEM` | client certificate and key (PEM) for SSBTGU's mutual TLS |
//! | `IDREG_SE_SCB_BASE_URL`, `IDREG_SE_SCB_API_ID`, `IDREG_SE_SCB_CLIENT_IDENTITY_PEM` | SCB's business register |
//! | `IDREG_SE_TIMEOUT_SECS` | time limit per upstream call (default 10) |
//! | `IDREG_SE_PAID_TIER` | `on` (default) or `off`: the paid company-registry tier |
//! | `IDREG_SE_FI_CLIENT_ID`, `IDREG_SE_FI_CLIENT_SECRET` | company information API credentials; without them the paid tier is off |
//! | `IDREG_SE_FI_BASE_URL`, `IDREG_SE_FI_TOKEN_URL`, `IDREG_SE_FI_ORGANISATIONER_PATH`, `IDREG_SE_FI_ENGAGEMANG_PATH` | default: the inferred production hosts and paths |
//! | `IDREG_SE_BO_CLIENT_IDENTITY_PEM` or `IDREG_SE_BO_CLIENT_IDENTITY_PKCS12` (+ `IDREG_SE_BO_CLIENT_IDENTITY_PASSWORD`) | the beneficial-owners client certificate; required with the paid tier |
//! | `IDREG_SE_BO_BASE_URL`, `IDREG_SE_BO_ORGANISATIONER_PATH`, `IDREG_SE_BO_EXTRA_ROOTS_PEM` | the beneficial-owners API |
//! | `IDREG_SE_SPAR_CUSTOMER_NUMBER_RECIPIENT`, `IDREG_SE_SPAR_CUSTOMER_NUMBER_END`, `IDREG_SE_SPAR_ASSIGNMENT_ID` | SPAR agreement numbers (`KundNrLeveransMottagare`, `KundNrSlutkund`, `UppdragId`); without them person data is not served (501) |
//! | `IDREG_SE_SPAR_CLIENT_IDENTITY_PKCS12`, `IDREG_SE_SPAR_CLIENT_IDENTITY_PASSWORD` | the organisation certificate SPAR issued (required with the agreement numbers); its password (environment or the `[se]` table) |
//! | `IDREG_SE_SPAR_URL`, `IDREG_SE_SPAR_EXTRA_ROOTS_PEM` | default: SPAR's production endpoint (2021.1) |

use crate::{
    SeConfig, SeEndpoints, SePaidConfig, SparConfig, SsbtParty, SwedishCompanyRegistry,
    SwedishPaidRegistry, SwedishPersonRegistry, TlsConfig,
};
use connector_kit::plug::{no_upstreams, switch, timeouts, CountryPlug, PlugError, Settings};
use domain::countries::country::Country;
use domain::countries::registry::CountryConnectors;
use std::path::PathBuf;
use std::sync::Arc;
use upstream_sandbox::{RunningSandbox, SandboxPlugin};

/// Sweden, for the binary's list of countries.
pub const PLUG: CountryPlug<RunningSandbox, dyn SandboxPlugin> = CountryPlug {
    country: Country::Se,
    schemes: &crate::identifiers::SCHEMES,
    settings: SETTINGS,
    sources: &crate::sources::EVIDENCE_SOURCES,
    connect: sweden,
    // The sandbox serves these registers itself.
    sandbox_upstreams: no_upstreams,
    // The walk-through's own steps are Sweden's.
    demo_company: None,
};

/// The Swedish settings (the table above).
const SETTINGS: &[&str] = &[
    "vdm_base_url",
    "vdm_token_url",
    "vdm_client_id",
    "vdm_client_secret",
    "ssbtgu_url",
    "ssbtgu_consumer_orgnr",
    "ssbtgu_consumer_name",
    "ssbtgu_client_identity_pem",
    "scb_base_url",
    "scb_api_id",
    "scb_client_identity_pem",
    "timeout_secs",
    "paid_tier",
    "fi_client_id",
    "fi_client_secret",
    "fi_base_url",
    "fi_token_url",
    "fi_organisationer_path",
    "fi_engagemang_path",
    "bo_base_url",
    "bo_organisationer_path",
    "bo_client_identity_pem",
    "bo_client_identity_pkcs12",
    "bo_client_identity_password",
    "bo_extra_roots_pem",
    "spar_url",
    "spar_customer_number_recipient",
    "spar_customer_number_end",
    "spar_assignment_id",
    "spar_client_identity_pkcs12",
    "spar_client_identity_password",
    "spar_extra_roots_pem",
];

/// Sweden: the free register (VDM, SSBTGU, SCB), the paid tier and SPAR.
fn sweden(
    settings: &Settings,
    sandbox: Option<&RunningSandbox>,
) -> Result<Option<CountryConnectors>, PlugError> {
    if let Some(sandbox) = sandbox {
        return sweden_sandbox(settings, sandbox).map(Some);
    }
    let Some(se) = production_se(settings)? else {
        return Ok(None);
    };
    let registry = Arc::new(
        SwedishCompanyRegistry::new(&se)
            .map_err(|e| PlugError::new(format!("Swedish registry configuration: {e}")))?,
    );
    let mut connectors = crate::declare(registry);
    match production_se_paid(settings)? {
        Some(paid) if paid_tier_wanted(settings)? => {
            let registry = SwedishPaidRegistry::new(&paid)
                .map_err(|e| PlugError::new(format!("Swedish paid-tier configuration: {e}")))?;
            connectors = connectors.paid(Arc::new(registry));
        }
        _ => tracing::info!(
            "the paid company-registry tier is off (no company-information credentials, \
             or IDREG_SE_PAID_TIER=off)"
        ),
    }
    match production_spar(settings)? {
        Some(spar) => {
            let registry = SwedishPersonRegistry::new(&spar)
                .map_err(|e| PlugError::new(format!("SPAR configuration: {e}")))?;
            connectors = crate::with_persons(connectors, Arc::new(registry));
        }
        None => tracing::info!(
            "Swedish person data is off (no SPAR agreement numbers); the person routes \
             answer 501"
        ),
    }
    Ok(Some(connectors))
}

fn sweden_sandbox(
    settings: &Settings,
    sandbox: &RunningSandbox,
) -> Result<CountryConnectors, PlugError> {
    let mut se = SeConfig::sandbox(
        SeEndpoints {
            vdm_base_url: sandbox.vdm_base_url(),
            vdm_token_url: sandbox.vdm_token_url(),
            ssbtgu_url: sandbox.ssbtgu_url(),
            scb_base_url: sandbox.scb_base_url(),
        },
        upstream_sandbox::CLIENT_ID,
        upstream_sandbox::CLIENT_SECRET,
    );
    se.scb.api_id = Some(upstream_sandbox::SCB_API_ID.to_owned());
    if let Some(t) = timeouts(settings, Country::Se)? {
        se = se.with_timeouts(t);
    }
    let registry =
        Arc::new(SwedishCompanyRegistry::new(&se).map_err(|e| PlugError::new(e.to_string()))?);
    let mut connectors = crate::declare(registry);
    if paid_tier_wanted(settings)? {
        connectors = connectors.paid(sandbox_paid_registry(settings, sandbox)?);
    }
    Ok(crate::with_persons(
        connectors,
        sandbox_person_registry(settings, sandbox)?,
    ))
}

/// `IDREG_SE_PAID_TIER`: on unless set to `off`.
fn paid_tier_wanted(settings: &Settings) -> Result<bool, PlugError> {
    switch(settings, Country::Se, "paid_tier", true)
}

/// The paid tier against the sandbox: its company information API and its mutual-TLS
/// beneficial-owners API, trusting the sandbox's throwaway CA with its client certificate.
fn sandbox_paid_registry(
    settings: &Settings,
    sandbox: &RunningSandbox,
) -> Result<Arc<SwedishPaidRegistry>, PlugError> {
    let (Some(tls), Some(bo_base_url)) = (&sandbox.tls, sandbox.bo_base_url()) else {
        return Err(PlugError::new(
            "the sandbox runs without its TLS listener, which the paid tier needs",
        ));
    };
    let mut paid = SePaidConfig::sandbox(
        sandbox.fi_base_url(),
        sandbox.vdm_token_url(),
        bo_base_url,
        upstream_sandbox::CLIENT_ID,
        upstream_sandbox::CLIENT_SECRET,
        TlsConfig {
            client_identity_pem: Some(tls.client_identity_pem_path.clone()),
            extra_roots_pem: Some(tls.ca_pem_path.clone()),
            ..TlsConfig::default()
        },
    );
    if let Some(t) = timeouts(settings, Country::Se)? {
        paid = paid.with_timeouts(t);
    }
    let registry = SwedishPaidRegistry::new(&paid).map_err(|e| PlugError::new(e.to_string()))?;
    Ok(Arc::new(registry))
}

/// SPAR against the sandbox: its mutual-TLS listener, with the sandbox's organisation
/// certificate as a PKCS#12 keystore (as SPAR issues them) and SPAR's public customer-test
/// agreement numbers.
fn sandbox_person_registry(
    settings: &Settings,
    sandbox: &RunningSandbox,
) -> Result<Arc<SwedishPersonRegistry>, PlugError> {
    let (Some(tls), Some(url)) = (&sandbox.tls, sandbox.spar_url()) else {
        return Err(PlugError::new(
            "the sandbox runs without its TLS listener, which SPAR needs",
        ));
    };
    let mut spar = SparConfig::production("500243", "500243", "637");
    spar.url = url;
    spar.tls = TlsConfig {
        client_identity_pkcs12: Some(tls.client_identity_pkcs12_path.clone()),
        client_identity_password: Some(upstream_sandbox::CLIENT_PKCS12_PASSWORD.to_owned()),
        extra_roots_pem: Some(tls.ca_pem_path.clone()),
        ..TlsConfig::default()
    };
    if let Some(t) = timeouts(settings, Country::Se)? {
        spar.timeouts = t;
    }
    let registry = SwedishPersonRegistry::new(&spar).map_err(|e| PlugError::new(e.to_string()))?;
    Ok(Arc::new(registry))
}

/// SPAR's production configuration, or `None` without the agreement numbers.
fn production_spar(settings: &Settings) -> Result<Option<SparConfig>, PlugError> {
    let get = |k: &str| settings.get(k).cloned();
    let (Some(recipient), Some(end), Some(assignment)) = (
        get("spar_customer_number_recipient"),
        get("spar_customer_number_end"),
        get("spar_assignment_id"),
    ) else {
        return Ok(None);
    };
    let mut spar = SparConfig::production(recipient, end, assignment);
    if let Some(v) = get("spar_url") {
        spar.url = v;
    }
    spar.tls.client_identity_pkcs12 = get("spar_client_identity_pkcs12").map(PathBuf::from);
    spar.tls.client_identity_password = get("spar_client_identity_password");
    spar.tls.extra_roots_pem = get("spar_extra_roots_pem").map(PathBuf::from);
    if let Some(t) = timeouts(settings, Country::Se)? {
        spar.timeouts = t;
    }
    spar.validate()
        .map_err(|e| PlugError::new(format!("SPAR configuration: {e}")))?;
    Ok(Some(spar))
}

/// The paid tier's production configuration, or `None` without company-information
/// credentials.
fn production_se_paid(settings: &Settings) -> Result<Option<SePaidConfig>, PlugError> {
    let get = |k: &str| settings.get(k).cloned();
    let (Some(id), Some(secret)) = (get("fi_client_id"), get("fi_client_secret")) else {
        return Ok(None);
    };
    let mut paid = SePaidConfig::production(id, secret);
    let fi = &mut paid.foretagsinformation;
    if let Some(v) = get("fi_base_url") {
        fi.base_url = v;
    }
    if let Some(v) = get("fi_token_url") {
        fi.token_url = v;
    }
    if let Some(v) = get("fi_organisationer_path") {
        fi.organisationer_path = v;
    }
    if let Some(v) = get("fi_engagemang_path") {
        fi.engagemang_path = v;
    }
    let bo = &mut paid.verkliga_huvudman;
    if let Some(v) = get("bo_base_url") {
        bo.base_url = v;
    }
    if let Some(v) = get("bo_organisationer_path") {
        bo.organisationer_path = v;
    }
    bo.tls.client_identity_pem = get("bo_client_identity_pem").map(PathBuf::from);
    bo.tls.client_identity_pkcs12 = get("bo_client_identity_pkcs12").map(PathBuf::from);
    bo.tls.client_identity_password = get("bo_client_identity_password");
    bo.tls.extra_roots_pem = get("bo_extra_roots_pem").map(PathBuf::from);
    if let Some(t) = timeouts(settings, Country::Se)? {
        paid = paid.with_timeouts(t);
    }
    paid.validate()
        .map_err(|e| PlugError::new(format!("Swedish paid-tier configuration: {e}")))?;
    Ok(Some(paid))
}

/// The Swedish connectors' production configuration, or `None` when none is given.
fn production_se(settings: &Settings) -> Result<Option<SeConfig>, PlugError> {
    let get = |k: &str| settings.get(k).cloned();
    let (Some(id), Some(secret)) = (get("vdm_client_id"), get("vdm_client_secret")) else {
        return Ok(None);
    };
    let mut se = SeConfig::production(id, secret);
    if let Some(v) = get("vdm_base_url") {
        se.vdm.base_url = v;
    }
    if let Some(v) = get("vdm_token_url") {
        se.vdm.token_url = v;
    }
    se.ssbtgu.url = get("ssbtgu_url");
    let party = SsbtParty {
        orgnr: get("ssbtgu_consumer_orgnr").unwrap_or_default(),
        name: get("ssbtgu_consumer_name").unwrap_or_default(),
        service: Some("idreg".to_owned()),
    };
    se.ssbtgu.user = SsbtParty {
        service: None,
        ..party.clone()
    };
    se.ssbtgu.consumer = party;
    se.ssbtgu.tls.client_identity_pem = get("ssbtgu_client_identity_pem").map(PathBuf::from);
    if let Some(v) = get("scb_base_url") {
        se.scb.base_url = v;
    }
    se.scb.api_id = get("scb_api_id");
    se.scb.tls.client_identity_pem = get("scb_client_identity_pem").map(PathBuf::from);
    if let Some(t) = timeouts(settings, Country::Se)? {
        se = se.with_timeouts(t);
    }
    se.validate()
        .map_err(|e| PlugError::new(format!("Swedish registry configuration: {e}")))?;
    Ok(Some(se))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_credentials_sweden_is_not_configured() {
        assert!(sweden(&Settings::new(), None).unwrap().is_none());
    }

    #[test]
    fn every_setting_read_is_declared() {
        // The keys this file reads are the ones the binary accepts (any other is refused).
        let source = include_str!("plug.rs");
        for key in source
            .split("get(\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
        {
            assert!(SETTINGS.contains(&key), "`{key}` is read but not declared");
        }
        assert!(SETTINGS.contains(&"timeout_secs") && SETTINGS.contains(&"paid_tier"));
    }
}
