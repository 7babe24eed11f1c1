//! Norway as the binary plugs it in ([`PLUG`]). Settings come from the environment
//! (`IDREG_NO_<KEY>`) or the configuration file's `[no]` table (the same keys, lower case):
//!
//! | Variable | Meaning |
//! |---|---|
//! | `IDREG_NO_ENABLED` | `on` serves Norway from Enhetsregisteret's open API (default `off`: calling a third party for tenants is the operator's choice; the sandbox run always serves it) |
//! | `IDREG_NO_CONTACT` | how the register can reach the operator (an e-mail address or URL), sent in the User-Agent; required when enabled |
//! | `IDREG_NO_BASE_URL` | the register's host (default `https://data.brreg.no`, no key) |
//! | `IDREG_NO_TIMEOUT_SECS` | time limit per upstream call (default 10) |

use crate::brreg::{BrregConfig, PRODUCTION_BASE_URL};
use crate::identifiers::NO;
use crate::registry::NorwegianCompanyRegistry;
use crate::sandbox::BrregSandbox;
use connector_kit::plug::{
    switch, timeouts, variable, CountryPlug, DemoCompany, PlugError, Settings,
};
use domain::countries::registry::CountryConnectors;
use std::sync::Arc;
use upstream_sandbox::{RunningSandbox, SandboxPlugin};

/// Norway, for the binary's list of countries.
pub const PLUG: CountryPlug<RunningSandbox, dyn SandboxPlugin> = CountryPlug {
    country: NO,
    schemes: &crate::identifiers::SCHEMES,
    settings: &["enabled", "contact", "base_url", "timeout_secs"],
    sources: &crate::EVIDENCE_SOURCES,
    connect: norway,
    sandbox_upstreams,
    demo_company: Some(DemoCompany {
        note: "A Norwegian company from Brønnøysundregistrene's open Enhetsregisteret (`no:`): \
               its SN activity codes and VAT registration are in activity_codes and \
               tax_registrations, and its officers (/officers) spend no paid budget; the \
               register serves no filings, so latest_annual_report is named in \"unchecked\"",
        code: "no:923609016",
    }),
};

/// The contact the sandbox run sends (the sandbox reads no User-Agent).
const SANDBOX_CONTACT: &str = "sandbox@idreg.invalid";

/// The register, imitated with its synthetic entities and recorded answers.
fn sandbox_upstreams() -> Vec<Arc<dyn SandboxPlugin>> {
    vec![Arc::new(BrregSandbox::standard())]
}

/// Norway: the open register (no credentials), when enabled or against the sandbox.
fn norway(
    settings: &Settings,
    sandbox: Option<&RunningSandbox>,
) -> Result<Option<CountryConnectors>, PlugError> {
    let mut config = BrregConfig::production(SANDBOX_CONTACT);
    if let Some(sb) = sandbox {
        config.base_url = sb.plugin_base_url(crate::sandbox::NAME);
    } else if !switch(settings, NO, "enabled", false)? {
        return Ok(None);
    } else {
        config.contact = settings.get("contact").cloned().ok_or_else(|| {
            PlugError::new(format!(
                "{} is required when Norway is enabled: an e-mail address or URL the register \
                 can reach the operator at (it is sent in the User-Agent)",
                variable(NO, "contact")
            ))
        })?;
        config.base_url = settings
            .get("base_url")
            .cloned()
            .unwrap_or_else(|| PRODUCTION_BASE_URL.to_owned());
    }
    if let Some(t) = timeouts(settings, NO)? {
        config.timeouts = t;
    }
    let registry = Arc::new(NorwegianCompanyRegistry::new(&config).map_err(|e| {
        PlugError::new(format!(
            "Enhetsregisteret configuration ({}): {e}",
            variable(NO, "contact")
        ))
    })?);
    Ok(Some(
        CountryConnectors::new(NO, &crate::EVIDENCE_SOURCES)
            .company(registry.clone())
            .free_officers(registry)
            .monitors_companies()
            .screens_companies(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use connector_kit::plug::settings;

    #[test]
    fn norway_is_served_in_production_only_when_enabled_with_a_contact() {
        crate::identifiers::install();
        assert!(norway(&Settings::new(), None).unwrap().is_none());
        let e = norway(&settings(&[("enabled", "on")]), None)
            .err()
            .expect("refused");
        assert!(e.to_string().contains("IDREG_NO_CONTACT"), "{e}");
        let on = norway(
            &settings(&[("enabled", "on"), ("contact", "ops@example.com")]),
            None,
        )
        .unwrap();
        assert_eq!(on.map(|c| c.country()), Some(NO));
        for (key, value, variable) in [
            ("enabled", "maybe", "IDREG_NO_ENABLED"),
            ("timeout_secs", "soon", "IDREG_NO_TIMEOUT_SECS"),
            ("contact", "ops\u{7}@example.com", "IDREG_NO_CONTACT"),
        ] {
            let mut s = settings(&[("enabled", "on"), ("contact", "ops@example.com")]);
            s.insert(key.to_owned(), value.to_owned());
            let e = norway(&s, None).err().expect("refused");
            assert!(e.to_string().contains(variable), "{key}: {e}");
        }
    }
}
