//! The country wiring list: every country compiled into this binary, the settings it reads,
//! and how its connectors are built, pointed either at the real upstreams (from
//! configuration) or at the upstream sandbox started in this process (the default run,
//! `serve --sandbox`, tests). What each country serves is its crate's declaration
//! (`adapters_<cc>::connectors`); this file only gives it its configuration, and the
//! country registry (`domain::countries::registry::Countries`) is built here and nowhere else.
//!
//! A country's settings come from the environment (`IDREG_<CC>_<KEY>`) or the TOML file's
//! `[<cc>]` table (the same keys, lower case).
//!
//! Sweden (`IDREG_SE_*`):
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
//!
//! Lithuania (`IDREG_LT_*`):
//!
//! | Variable | Meaning |
//! |---|---|
//! | `IDREG_LT_ENABLED` | `on` serves Lithuania from the open-data API (default `off`: calling a third party for tenants is the operator's choice; the sandbox run always serves it) |
//! | `IDREG_LT_OPEN_DATA_BASE_URL` | the open-data API (default `https://get.data.gov.lt`, no key) |
//! | `IDREG_LT_TIMEOUT_SECS` | time limit per upstream call (default 10) |

use adapters_lt::LtConfig;
use adapters_se::{
    SeConfig, SeEndpoints, SePaidConfig, SparConfig, SsbtParty, SwedishCompanyRegistry,
    SwedishPaidRegistry, SwedishPersonRegistry, Timeouts, TlsConfig,
};
use anyhow::{bail, Context};
use domain::countries::country::Country;
use domain::countries::registry::{Countries, CountryConnectors};
use domain::evidence::EvidenceSource;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use upstream_sandbox::{RunningSandbox, Sandbox, SandboxConfig};

/// One country compiled in: its code, the settings it reads, the evidence sources its
/// connectors cite, and how its connectors are built.
pub struct CountryWiring {
    pub country: Country,
    /// Setting names after `IDREG_<CC>_`, lower case.
    pub settings: &'static [&'static str],
    pub sources: &'static [EvidenceSource],
    /// Its connectors from configuration (`None` when the country is not configured), or
    /// against the sandbox when one runs.
    connect: fn(&Settings, Option<&RunningSandbox>) -> anyhow::Result<Option<CountryConnectors>>,
}

/// A country's settings (`IDREG_<CC>_*` or the `[<cc>]` table).
pub type Settings = std::collections::BTreeMap<String, String>;

/// Every country compiled in, in the order the contract lists their sources.
pub const COUNTRIES: &[CountryWiring] = &[
    CountryWiring {
        country: Country::Se,
        settings: SE_SETTINGS,
        sources: &adapters_se::sources::EVIDENCE_SOURCES,
        connect: sweden,
    },
    CountryWiring {
        country: Country::Lt,
        settings: &["enabled", "open_data_base_url", "timeout_secs"],
        sources: &adapters_lt::EVIDENCE_SOURCES,
        connect: lithuania,
    },
];

/// Every evidence source an answer of this build can cite: the compiled-in countries', then
/// the service's own (the contract's enum).
pub fn evidence_sources() -> Vec<EvidenceSource> {
    domain::countries::registry::evidence_sources(COUNTRIES.iter().map(|c| c.sources))
}

/// The Swedish settings (the table above).
const SE_SETTINGS: &[&str] = &[
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

/// The country registry and the sandbox when it serves the connectors.
pub struct Upstreams {
    pub countries: Countries,
    pub sandbox: Option<RunningSandbox>,
}

impl Upstreams {
    /// No connectors (operator commands call no upstream).
    pub fn none() -> Upstreams {
        Upstreams {
            countries: Countries::none(),
            sandbox: None,
        }
    }
}

/// The upstreams a configuration asks for, checked and built before anything is started:
/// the live connectors from their settings (which open no listener), or the knowledge that the
/// sandbox will serve them. [`Planned::start`] then starts the sandbox where one is wanted.
pub struct Planned {
    /// The live connectors, unless the sandbox serves them (`--sandbox`).
    live: Option<Vec<CountryConnectors>>,
    sandbox: bool,
    test_mode: bool,
}

/// Checks that some upstream is configured and builds the live connectors (`sandbox`: the
/// sandbox serves them, built at [`Planned::start`]). Starts nothing.
pub fn plan(
    sandbox: bool,
    test_mode: bool,
    settings: &std::collections::BTreeMap<&'static str, Settings>,
) -> anyhow::Result<Planned> {
    let live = if sandbox {
        None
    } else {
        let live = connect_all(settings, None)?;
        if live.is_empty() {
            bail!(
                "no upstream is configured: set the IDREG_SE_* settings (see the README) for the real registries, \
                 or run with --sandbox (or `idreg demo`) for the built-in sandbox"
            );
        }
        Some(live)
    };
    Ok(Planned {
        live,
        sandbox,
        test_mode,
    })
}

impl Planned {
    /// Starts the sandbox (with `--sandbox`, or for test mode) and builds the country registry:
    /// for live tenants the planned connectors (or the sandbox's, with `--sandbox`), and, in
    /// test mode, a second set against the sandbox for test-mode tenants, so a test credential
    /// never reaches a live register.
    pub fn start(
        self,
        settings: &std::collections::BTreeMap<&'static str, Settings>,
    ) -> anyhow::Result<Upstreams> {
        let running = if self.sandbox || self.test_mode {
            Some(
                Sandbox::start(SandboxConfig::default())
                    .context("starting the upstream sandbox")?,
            )
        } else {
            None
        };
        let live = match (self.live, running.as_ref()) {
            (Some(live), _) => live,
            (None, sandbox) => connect_all(settings, sandbox)?,
        };
        let mut countries = Countries::new(live).map_err(|e| anyhow::anyhow!(e))?;
        if let (true, Some(sb)) = (self.test_mode, running.as_ref()) {
            let test =
                Countries::new(connect_all(settings, Some(sb))?).map_err(|e| anyhow::anyhow!(e))?;
            countries = countries.with_test(test);
        }
        Ok(Upstreams {
            countries,
            sandbox: running,
        })
    }
}

/// [`plan`] then [`Planned::start`].
pub fn start(
    sandbox: bool,
    test_mode: bool,
    settings: &std::collections::BTreeMap<&'static str, Settings>,
) -> anyhow::Result<Upstreams> {
    plan(sandbox, test_mode, settings)?.start(settings)
}

/// Every compiled-in country's connectors that its settings (or the sandbox) configure.
fn connect_all(
    settings: &std::collections::BTreeMap<&'static str, Settings>,
    sandbox: Option<&RunningSandbox>,
) -> anyhow::Result<Vec<CountryConnectors>> {
    let mut declared = Vec::new();
    for wiring in COUNTRIES {
        let empty = Settings::new();
        let settings = settings.get(wiring.country.prefix()).unwrap_or(&empty);
        if let Some(connectors) = (wiring.connect)(settings, sandbox)
            .with_context(|| format!("{} connectors", wiring.country))?
        {
            declared.push(connectors);
        }
    }
    Ok(declared)
}

/// `IDREG_<CC>_TIMEOUT_SECS`, if set.
fn timeouts(settings: &Settings, name: &str) -> anyhow::Result<Option<Timeouts>> {
    settings
        .get("timeout_secs")
        .map(|secs| {
            Ok(Timeouts::total(Duration::from_secs(
                secs.parse().with_context(|| name.to_owned())?,
            )))
        })
        .transpose()
}

/// Lithuania: the open-data API (no credentials), when enabled or against the sandbox.
fn lithuania(
    settings: &Settings,
    sandbox: Option<&RunningSandbox>,
) -> anyhow::Result<Option<CountryConnectors>> {
    let mut lt = LtConfig::production();
    if let Some(sb) = sandbox {
        lt.open_data_base_url = sb.lt_base_url();
    } else if !switch(settings, "enabled", false, "IDREG_LT_ENABLED")? {
        return Ok(None);
    }
    // The sandbox's own address wins: a sandbox run (and test mode) never reaches a
    // configured register.
    if let (None, Some(url)) = (sandbox, settings.get("open_data_base_url")) {
        lt.open_data_base_url = url.clone();
    }
    if let Some(t) = timeouts(settings, "IDREG_LT_TIMEOUT_SECS")? {
        lt.timeouts = t;
    }
    let connectors = adapters_lt::connectors(&lt)
        .map_err(|e| anyhow::anyhow!("Lithuanian open-data configuration: {e}"))?;
    Ok(Some(connectors))
}

/// Sweden: the free register (VDM, SSBTGU, SCB), the paid tier and SPAR.
fn sweden(
    settings: &Settings,
    sandbox: Option<&RunningSandbox>,
) -> anyhow::Result<Option<CountryConnectors>> {
    if let Some(sandbox) = sandbox {
        return sweden_sandbox(settings, sandbox).map(Some);
    }
    let Some(se) = production_se(settings)? else {
        return Ok(None);
    };
    let registry = Arc::new(
        SwedishCompanyRegistry::new(&se)
            .map_err(|e| anyhow::anyhow!("Swedish registry configuration: {e}"))?,
    );
    let mut connectors = adapters_se::declare(registry);
    match production_se_paid(settings)? {
        Some(paid) if paid_tier_wanted(settings)? => {
            let registry = SwedishPaidRegistry::new(&paid)
                .map_err(|e| anyhow::anyhow!("Swedish paid-tier configuration: {e}"))?;
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
                .map_err(|e| anyhow::anyhow!("SPAR configuration: {e}"))?;
            connectors = adapters_se::with_persons(connectors, Arc::new(registry));
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
) -> anyhow::Result<CountryConnectors> {
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
    if let Some(t) = timeouts(settings, "IDREG_SE_TIMEOUT_SECS")? {
        se = se.with_timeouts(t);
    }
    let registry = Arc::new(SwedishCompanyRegistry::new(&se).map_err(|e| anyhow::anyhow!("{e}"))?);
    let mut connectors = adapters_se::declare(registry);
    if paid_tier_wanted(settings)? {
        connectors = connectors.paid(sandbox_paid_registry(settings, sandbox)?);
    }
    Ok(adapters_se::with_persons(
        connectors,
        sandbox_person_registry(settings, sandbox)?,
    ))
}

/// An `on`/`off` setting.
fn switch(settings: &Settings, key: &str, default: bool, name: &str) -> anyhow::Result<bool> {
    match settings.get(key).map(|v| v.trim().to_ascii_lowercase()) {
        None => Ok(default),
        Some(v) if v == "on" || v == "true" => Ok(true),
        Some(v) if v == "off" || v == "false" => Ok(false),
        Some(_) => bail!("{name} must be `on` or `off`"),
    }
}

/// `IDREG_SE_PAID_TIER`: on unless set to `off`.
fn paid_tier_wanted(settings: &Settings) -> anyhow::Result<bool> {
    switch(settings, "paid_tier", true, "IDREG_SE_PAID_TIER")
}

/// The paid tier against the sandbox: its company information API and its mutual-TLS
/// beneficial-owners API, trusting the sandbox's throwaway CA with its client certificate.
fn sandbox_paid_registry(
    settings: &Settings,
    sandbox: &RunningSandbox,
) -> anyhow::Result<Arc<SwedishPaidRegistry>> {
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
    if let Some(t) = timeouts(settings, "IDREG_SE_TIMEOUT_SECS")? {
        paid = paid.with_timeouts(t);
    }
    let registry = SwedishPaidRegistry::new(&paid).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(Arc::new(registry))
}

/// SPAR against the sandbox: its mutual-TLS listener, with the sandbox's organisation
/// certificate as a PKCS#12 keystore (as SPAR issues them) and SPAR's public customer-test
/// agreement numbers.
fn sandbox_person_registry(
    settings: &Settings,
    sandbox: &RunningSandbox,
) -> anyhow::Result<Arc<SwedishPersonRegistry>> {
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
    if let Some(t) = timeouts(settings, "IDREG_SE_TIMEOUT_SECS")? {
        spar.timeouts = t;
    }
    let registry = SwedishPersonRegistry::new(&spar).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(Arc::new(registry))
}

/// SPAR's production configuration, or `None` without the agreement numbers.
fn production_spar(settings: &Settings) -> anyhow::Result<Option<SparConfig>> {
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
    if let Some(t) = timeouts(settings, "IDREG_SE_TIMEOUT_SECS")? {
        spar.timeouts = t;
    }
    spar.validate()
        .map_err(|e| anyhow::anyhow!("SPAR configuration: {e}"))?;
    Ok(Some(spar))
}

/// The paid tier's production configuration, or `None` without company-information
/// credentials.
fn production_se_paid(settings: &Settings) -> anyhow::Result<Option<SePaidConfig>> {
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
    if let Some(t) = timeouts(settings, "IDREG_SE_TIMEOUT_SECS")? {
        paid = paid.with_timeouts(t);
    }
    paid.validate()
        .map_err(|e| anyhow::anyhow!("Swedish paid-tier configuration: {e}"))?;
    Ok(Some(paid))
}

/// The Swedish connectors' production configuration, or `None` when none is given.
fn production_se(settings: &Settings) -> anyhow::Result<Option<SeConfig>> {
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
    if let Some(t) = timeouts(settings, "IDREG_SE_TIMEOUT_SECS")? {
        se = se.with_timeouts(t);
    }
    se.validate()
        .map_err(|e| anyhow::anyhow!("Swedish registry configuration: {e}"))?;
    Ok(Some(se))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(pairs: &[(&str, &str)]) -> Settings {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn lithuania_is_served_in_production_only_when_enabled() {
        assert!(lithuania(&Settings::new(), None).unwrap().is_none());
        let on = lithuania(&settings(&[("enabled", "on")]), None).unwrap();
        assert_eq!(on.map(|c| c.country()), Some(Country::Lt));
        let e = lithuania(&settings(&[("enabled", "maybe")]), None)
            .err()
            .expect("refused");
        assert!(e.to_string().contains("IDREG_LT_ENABLED"), "{e}");
        let e = lithuania(
            &settings(&[("enabled", "on"), ("timeout_secs", "soon")]),
            None,
        )
        .err()
        .expect("refused");
        assert!(e.to_string().contains("IDREG_LT_TIMEOUT_SECS"), "{e}");
    }

    #[test]
    fn without_any_configured_country_the_service_does_not_start() {
        assert!(sweden(&Settings::new(), None).unwrap().is_none());
        let e = start(false, false, &Default::default())
            .err()
            .expect("refused");
        assert!(e.to_string().contains("no upstream is configured"), "{e}");
        // Lithuania alone is a configured country.
        let lt = std::collections::BTreeMap::from([("lt", settings(&[("enabled", "on")]))]);
        let up = start(false, false, &lt).expect("started");
        assert_eq!(up.countries.served().collect::<Vec<_>>(), [Country::Lt]);
    }

    #[test]
    fn every_compiled_in_country_is_listed_once_with_its_sources() {
        for (i, w) in COUNTRIES.iter().enumerate() {
            assert!(
                COUNTRIES[..i].iter().all(|o| o.country != w.country),
                "{} listed twice",
                w.country
            );
            assert!(!w.sources.is_empty(), "{} cites no source", w.country);
            assert!(w.settings.contains(&"timeout_secs"), "{}", w.country);
        }
        let all = evidence_sources();
        assert_eq!(all[0].as_str(), "companyreg.vardefulla-datamangder");
        assert!(all
            .iter()
            .any(|s| s.as_str() == "companyreg.jar-atviri-duomenys"));
        assert_eq!(all.last().unwrap().as_str(), "service.merge");
    }
}
