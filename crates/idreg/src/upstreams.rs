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

use crate::config::Config;
use adapters_se::{SeConfig, SeEndpoints, SsbtParty, SwedishCompanyRegistry, Timeouts};
use anyhow::{bail, Context};
use domain::ports::{CompanyRegistry, PaidCompanyRegistry};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use upstream_sandbox::{RunningSandbox, Sandbox, SandboxConfig};

/// The connectors in use, and the sandbox when it serves them.
pub struct Upstreams {
    pub registries: Vec<Arc<dyn CompanyRegistry>>,
    /// The paid tier's registries; empty when the tier is disabled.
    pub paid_registries: Vec<Arc<dyn PaidCompanyRegistry>>,
    pub sandbox: Option<RunningSandbox>,
}

impl Upstreams {
    /// No connectors (operator commands call no upstream).
    pub fn none() -> Upstreams {
        Upstreams {
            registries: Vec::new(),
            paid_registries: Vec::new(),
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
        return Ok(Upstreams {
            registries: vec![Arc::new(registry)],
            paid_registries: Vec::new(),
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
    Ok(Upstreams {
        registries: vec![Arc::new(registry)],
        paid_registries: Vec::new(),
        sandbox: None,
    })
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
