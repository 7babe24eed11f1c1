//! Lithuania as the binary plugs it in ([`PLUG`]). Settings come from the environment
//! (`IDREG_LT_<KEY>`) or the configuration file's `[lt]` table (the same keys, lower case):
//!
//! | Variable | Meaning |
//! |---|---|
//! | `IDREG_LT_ENABLED` | `on` serves Lithuania from the open-data API (default `off`: calling a third party for tenants is the operator's choice; the sandbox run always serves it) |
//! | `IDREG_LT_OPEN_DATA_BASE_URL` | the open-data API (default `https://get.data.gov.lt`, no key) |
//! | `IDREG_LT_TIMEOUT_SECS` | time limit per upstream call (default 10) |

use crate::LtConfig;
use connector_kit::plug::{
    no_upstreams, switch, timeouts, CountryPlug, DemoCompany, PlugError, Settings,
};
use domain::countries::registry::CountryConnectors;
use upstream_sandbox::{RunningSandbox, SandboxPlugin};

/// Lithuania, for the binary's list of countries.
pub const PLUG: CountryPlug<RunningSandbox, dyn SandboxPlugin> = CountryPlug {
    country: crate::identifiers::LT,
    schemes: &crate::identifiers::SCHEMES,
    settings: &["enabled", "open_data_base_url", "timeout_secs"],
    sources: &crate::EVIDENCE_SOURCES,
    connect: lithuania,
    // The sandbox serves these registers itself.
    sandbox_upstreams: no_upstreams,
    demo_company: Some(DemoCompany {
        note: "A Lithuanian company from Registrų centras' open register: its tax \
               registrations, size class, activity codes and filings have no open source, so \
               they are empty and named in \"unchecked\"",
        code: "lt:110443493",
    }),
};

/// Lithuania: the open-data API (no credentials), when enabled or against the sandbox.
fn lithuania(
    settings: &Settings,
    sandbox: Option<&RunningSandbox>,
) -> Result<Option<CountryConnectors>, PlugError> {
    let mut lt = LtConfig::production();
    if let Some(sb) = sandbox {
        lt.open_data_base_url = sb.lt_base_url();
    } else if !switch(settings, crate::identifiers::LT, "enabled", false)? {
        return Ok(None);
    }
    // The sandbox's own address wins: a sandbox run (and test mode) never reaches a
    // configured register.
    if let (None, Some(url)) = (sandbox, settings.get("open_data_base_url")) {
        lt.open_data_base_url = url.clone();
    }
    if let Some(t) = timeouts(settings, crate::identifiers::LT)? {
        lt.timeouts = t;
    }
    let connectors = crate::connectors(&lt)
        .map_err(|e| PlugError::new(format!("Lithuanian open-data configuration: {e}")))?;
    Ok(Some(connectors))
}

#[cfg(test)]
mod tests {
    use super::*;
    use connector_kit::plug::settings;

    #[test]
    fn lithuania_is_served_in_production_only_when_enabled() {
        assert!(lithuania(&Settings::new(), None).unwrap().is_none());
        let on = lithuania(&settings(&[("enabled", "on")]), None).unwrap();
        assert_eq!(on.map(|c| c.country()), Some(crate::identifiers::LT));
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
}
