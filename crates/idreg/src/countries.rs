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
//! Each country's settings are listed in its crate's `plug` module (`adapters_se::plug`,
//! for one).

use anyhow::{bail, Context};
use connector_kit::plug::CountryPlug;
use domain::countries::registry::{Countries, CountryConnectors};
use domain::evidence::EvidenceSource;
use upstream_sandbox::{RunningSandbox, Sandbox, SandboxConfig, SandboxPlugin};

pub use connector_kit::plug::Settings;

/// One country compiled in, as its crate plugs it in.
pub type CountryWiring = CountryPlug<RunningSandbox, dyn SandboxPlugin>;

/// Every country compiled in, in the order the contract lists their sources.
pub const COUNTRIES: &[CountryWiring] = &[
    adapters_se::plug::PLUG,
    adapters_lt::plug::PLUG,
    adapters_no::plug::PLUG,
];

/// Makes every listed country's identifier schemes known to the process, in the list's
/// order (which is the order the interface documents them in). Everything that reads an
/// identifier, a country code or the interface document runs after it: the configuration's
/// loading and the document's making call it, and it is harmless twice.
pub fn install_schemes() {
    for wiring in COUNTRIES {
        domain::subjects::identifier::scheme::install(wiring.schemes);
    }
}

/// Every evidence source an answer of this build can cite: the compiled-in countries', then
/// the service's own (the contract's enum).
pub fn evidence_sources() -> Vec<EvidenceSource> {
    install_schemes();
    domain::countries::registry::evidence_sources(COUNTRIES.iter().map(|c| c.sources))
}

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
            Some(Sandbox::start(sandbox_config()).context("starting the upstream sandbox")?)
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

/// The sandbox with every compiled-in country's plugged-in upstreams.
fn sandbox_config() -> SandboxConfig {
    COUNTRIES
        .iter()
        .flat_map(|c| (c.sandbox_upstreams)())
        .fold(SandboxConfig::default(), SandboxConfig::with_plugin)
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
            .map_err(anyhow::Error::from)
            .with_context(|| format!("{} connectors", wiring.country))?
        {
            declared.push(connectors);
        }
    }
    Ok(declared)
}

#[cfg(test)]
mod tests {
    use super::*;
    use connector_kit::plug::settings;

    #[test]
    fn without_any_configured_country_the_service_does_not_start() {
        let e = start(false, false, &Default::default())
            .err()
            .expect("refused");
        assert!(e.to_string().contains("no upstream is configured"), "{e}");
        // Lithuania alone is a configured country.
        let lt = std::collections::BTreeMap::from([("lt", settings(&[("enabled", "on")]))]);
        let up = start(false, false, &lt).expect("started");
        assert_eq!(
            up.countries.served().collect::<Vec<_>>(),
            [adapters_lt::identifiers::LT]
        );
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
