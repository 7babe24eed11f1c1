//! The registry connectors, pointed either at the real upstreams (from configuration) or at
//! the upstream sandbox started in this process (the default run, `serve --sandbox`, tests).
//!
//! Swedish settings (environment, or the `[se]` table of the TOML file with the same names in
//! lower case without `IDREG_SE_`):
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

use crate::config::Config;
use adapters_se::{
    SeConfig, SeEndpoints, SePaidConfig, SparConfig, SsbtParty, SwedishCompanyRegistry,
    SwedishPaidRegistry, SwedishPersonRegistry, Timeouts, TlsConfig,
};
use anyhow::{bail, Context};
use domain::ports::{CompanyRegistry, PaidCompanyRegistry, PersonRegistry};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use upstream_sandbox::{RunningSandbox, Sandbox, SandboxConfig};

/// The connectors in use, and the sandbox when it serves them.
pub struct Upstreams {
    pub registries: Vec<Arc<dyn CompanyRegistry>>,
    /// The paid tier's registries; empty when the tier is disabled.
    pub paid_registries: Vec<Arc<dyn PaidCompanyRegistry>>,
    /// The population registers (person search) of the countries whose person data is served.
    pub person_registries: Vec<Arc<dyn PersonRegistry>>,
    pub sandbox: Option<RunningSandbox>,
}

impl Upstreams {
    /// No connectors (operator commands call no upstream).
    pub fn none() -> Upstreams {
        Upstreams {
            registries: Vec::new(),
            paid_registries: Vec::new(),
            person_registries: Vec::new(),
            sandbox: None,
        }
    }
}

/// Starts the sandbox (when configured) and builds every country's registry.
pub fn start(config: &Config) -> anyhow::Result<Upstreams> {
    if config.sandbox {
        let sandbox =
            Sandbox::start(SandboxConfig::default()).context("starting the upstream sandbox")?;
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
        if let Some(secs) = config.se.get("timeout_secs") {
            se = se.with_timeouts(Timeouts::total(Duration::from_secs(
                secs.parse().context("IDREG_SE_TIMEOUT_SECS")?,
            )));
        }
        let registry = SwedishCompanyRegistry::new(&se).map_err(|e| anyhow::anyhow!("{e}"))?;
        let paid_registries = if paid_tier_wanted(config)? {
            vec![sandbox_paid_registry(config, &sandbox)?]
        } else {
            Vec::new()
        };
        let person_registries = vec![sandbox_person_registry(config, &sandbox)?];
        return Ok(Upstreams {
            registries: vec![Arc::new(registry)],
            paid_registries,
            person_registries,
            sandbox: Some(sandbox),
        });
    }
    let Some(se) = production_se(config)? else {
        bail!(
            "no upstream is configured: set the IDREG_SE_* settings (see the README) for the real registries, \
             or run with --sandbox (or `idreg demo`) for the built-in sandbox"
        );
    };
    let registry = SwedishCompanyRegistry::new(&se)
        .map_err(|e| anyhow::anyhow!("Swedish registry configuration: {e}"))?;
    let paid_registries = match production_se_paid(config)? {
        Some(paid) if paid_tier_wanted(config)? => {
            let registry = SwedishPaidRegistry::new(&paid)
                .map_err(|e| anyhow::anyhow!("Swedish paid-tier configuration: {e}"))?;
            vec![Arc::new(registry) as Arc<dyn PaidCompanyRegistry>]
        }
        _ => {
            tracing::info!(
                "the paid company-registry tier is off (no company-information credentials, \
                 or IDREG_SE_PAID_TIER=off)"
            );
            Vec::new()
        }
    };
    let person_registries = match production_spar(config)? {
        Some(spar) => {
            let registry = SwedishPersonRegistry::new(&spar)
                .map_err(|e| anyhow::anyhow!("SPAR configuration: {e}"))?;
            vec![Arc::new(registry) as Arc<dyn PersonRegistry>]
        }
        None => {
            tracing::info!(
                "Swedish person data is off (no SPAR agreement numbers); the person routes \
                 answer 501"
            );
            Vec::new()
        }
    };
    Ok(Upstreams {
        registries: vec![Arc::new(registry)],
        paid_registries,
        person_registries,
        sandbox: None,
    })
}

/// `IDREG_SE_PAID_TIER`: on unless set to `off`.
fn paid_tier_wanted(config: &Config) -> anyhow::Result<bool> {
    match config
        .se
        .get("paid_tier")
        .map(|v| v.trim().to_ascii_lowercase())
    {
        None => Ok(true),
        Some(v) if v == "on" || v == "true" => Ok(true),
        Some(v) if v == "off" || v == "false" => Ok(false),
        Some(_) => bail!("IDREG_SE_PAID_TIER must be `on` or `off`"),
    }
}

/// The paid tier against the sandbox: its company information API and its mutual-TLS
/// beneficial-owners API, trusting the sandbox's throwaway CA with its client certificate.
fn sandbox_paid_registry(
    config: &Config,
    sandbox: &RunningSandbox,
) -> anyhow::Result<Arc<dyn PaidCompanyRegistry>> {
    let (Some(tls), Some(bo_base_url)) = (&sandbox.tls, sandbox.bo_base_url()) else {
        bail!("the sandbox runs without its TLS listener, which the paid tier needs");
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
    if let Some(secs) = config.se.get("timeout_secs") {
        paid = paid.with_timeouts(Timeouts::total(Duration::from_secs(
            secs.parse().context("IDREG_SE_TIMEOUT_SECS")?,
        )));
    }
    let registry = SwedishPaidRegistry::new(&paid).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(Arc::new(registry))
}

/// SPAR against the sandbox: its mutual-TLS listener, with the sandbox's organisation
/// certificate as a PKCS#12 keystore (as SPAR issues them) and SPAR's public customer-test
/// agreement numbers.
fn sandbox_person_registry(
    config: &Config,
    sandbox: &RunningSandbox,
) -> anyhow::Result<Arc<dyn PersonRegistry>> {
    let (Some(tls), Some(url)) = (&sandbox.tls, sandbox.spar_url()) else {
        bail!("the sandbox runs without its TLS listener, which SPAR needs");
    };
    let mut spar = SparConfig::production("500243", "500243", "637");
    spar.url = url;
    spar.tls = TlsConfig {
        client_identity_pkcs12: Some(tls.client_identity_pkcs12_path.clone()),
        client_identity_password: Some(upstream_sandbox::CLIENT_PKCS12_PASSWORD.to_owned()),
        extra_roots_pem: Some(tls.ca_pem_path.clone()),
        ..TlsConfig::default()
    };
    if let Some(secs) = config.se.get("timeout_secs") {
        spar.timeouts = Timeouts::total(Duration::from_secs(
            secs.parse().context("IDREG_SE_TIMEOUT_SECS")?,
        ));
    }
    let registry = SwedishPersonRegistry::new(&spar).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(Arc::new(registry))
}

/// SPAR's production configuration, or `None` without the agreement numbers.
fn production_spar(config: &Config) -> anyhow::Result<Option<SparConfig>> {
    let get = |k: &str| config.se.get(k).cloned();
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
    if let Some(secs) = get("timeout_secs") {
        spar.timeouts = Timeouts::total(Duration::from_secs(
            secs.parse().context("IDREG_SE_TIMEOUT_SECS")?,
        ));
    }
    spar.validate()
        .map_err(|e| anyhow::anyhow!("SPAR configuration: {e}"))?;
    Ok(Some(spar))
}

/// The paid tier's production configuration, or `None` without company-information
/// credentials.
fn production_se_paid(config: &Config) -> anyhow::Result<Option<SePaidConfig>> {
    let get = |k: &str| config.se.get(k).cloned();
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
    if let Some(secs) = get("timeout_secs") {
        paid = paid.with_timeouts(Timeouts::total(Duration::from_secs(
            secs.parse().context("IDREG_SE_TIMEOUT_SECS")?,
        )));
    }
    paid.validate()
        .map_err(|e| anyhow::anyhow!("Swedish paid-tier configuration: {e}"))?;
    Ok(Some(paid))
}

/// The Swedish connectors' production configuration, or `None` when none is given.
fn production_se(config: &Config) -> anyhow::Result<Option<SeConfig>> {
    let get = |k: &str| config.se.get(k).cloned();
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
    if let Some(secs) = get("timeout_secs") {
        se = se.with_timeouts(Timeouts::total(Duration::from_secs(
            secs.parse().context("IDREG_SE_TIMEOUT_SECS")?,
        )));
    }
    se.validate()
        .map_err(|e| anyhow::anyhow!("Swedish registry configuration: {e}"))?;
    Ok(Some(se))
}
