//! What a country crate hands the binary: [`CountryPlug`], its country, the settings it
//! reads, the evidence sources it cites and how its connectors are built, against the real
//! registers from those settings or against a running sandbox. The binary keeps a list of
//! plugs and knows nothing else about a country; reading the settings
//! ([`Settings`], [`switch`], [`timeouts`]) is the crate's own business.

use crate::Timeouts;
use domain::countries::country::Country;
use domain::countries::registry::CountryConnectors;
use domain::evidence::EvidenceSource;
use domain::subjects::identifier::IdentifierType;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// A country's settings: `IDREG_<CC>_<KEY>` from the environment or the configuration
/// file's `[<cc>]` table, keyed by the lower-case `<key>`.
pub type Settings = BTreeMap<String, String>;

/// Why a country's connectors could not be built from its settings: a sentence naming the
/// setting (`IDREG_SE_TIMEOUT_SECS must be a whole number of seconds`), never its value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PlugError(pub String);

impl PlugError {
    /// A refusal worded by the crate.
    pub fn new(message: impl Into<String>) -> PlugError {
        PlugError(message.into())
    }
}

/// How a country crate's connectors are built: from its settings, and against the running
/// sandbox `S` when one serves the upstreams (`None` in production). `Ok(None)` means the
/// settings do not configure the country, so this deployment does not serve it.
pub type Connect<S> = fn(&Settings, Option<&S>) -> Result<Option<CountryConnectors>, PlugError>;

/// One country compiled into the binary, as its crate describes it. `S` is the sandbox the
/// binary runs (the crate's connectors point at it in sandbox runs and test mode), `U` the
/// kind of upstream a crate plugs into that sandbox.
pub struct CountryPlug<S: 'static, U: ?Sized + 'static> {
    /// The country.
    pub country: Country,
    /// Its identifier schemes (company and person numbers), which the binary installs at
    /// start: what a `<cc>:` prefix and a type name of this country mean.
    pub schemes: &'static [IdentifierType],
    /// Setting names after `IDREG_<CC>_`, lower case. Any other is refused at start-up.
    pub settings: &'static [&'static str],
    /// The evidence sources its connectors cite, in the contract's order.
    pub sources: &'static [EvidenceSource],
    /// Builds its connectors.
    pub connect: Connect<S>,
    /// The upstreams it adds to the sandbox (its registers imitated in their real formats),
    /// served beside the sandbox's own; [`no_upstreams`] when the sandbox has them already.
    pub sandbox_upstreams: fn() -> Vec<Arc<U>>,
    /// A company the sandbox serves, for the demo's walk-through: what it shows, then its
    /// code in wire form; `None` for a country the walk-through shows by its own steps.
    pub demo_company: Option<DemoCompany>,
}

/// A company of a country's sandbox register the demo's walk-through asks for.
#[derive(Clone, Copy, Debug)]
pub struct DemoCompany {
    /// What its profile shows, one sentence (the walk-through wraps it).
    pub note: &'static str,
    /// Its company code in wire form (`lt:110443493`).
    pub code: &'static str,
}

/// For a crate whose upstreams the sandbox serves itself.
pub fn no_upstreams<U: ?Sized>() -> Vec<Arc<U>> {
    Vec::new()
}

/// Settings from `(key, value)` pairs (tests, and tools that configure a country in code).
pub fn settings(pairs: &[(&str, &str)]) -> Settings {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// The environment variable a setting is read from: `IDREG_SE_TIMEOUT_SECS`.
pub fn variable(country: Country, key: &str) -> String {
    format!("IDREG_{}_{}", country.code(), key.to_ascii_uppercase())
}

/// An `on`/`off` setting (`true`/`false` too, any case); `default` when it is not set.
pub fn switch(
    settings: &Settings,
    country: Country,
    key: &str,
    default: bool,
) -> Result<bool, PlugError> {
    match settings.get(key).map(|v| v.trim().to_ascii_lowercase()) {
        None => Ok(default),
        Some(v) if v == "on" || v == "true" => Ok(true),
        Some(v) if v == "off" || v == "false" => Ok(false),
        Some(_) => Err(PlugError::new(format!(
            "{} must be `on` or `off`",
            variable(country, key)
        ))),
    }
}

/// The `timeout_secs` setting as the connectors' time limits, if it is set.
pub fn timeouts(settings: &Settings, country: Country) -> Result<Option<Timeouts>, PlugError> {
    settings
        .get("timeout_secs")
        .map(|secs| {
            secs.trim()
                .parse::<u64>()
                .ok()
                .filter(|s| *s > 0)
                .map(|s| Timeouts::total(Duration::from_secs(s)))
                .ok_or_else(|| {
                    PlugError::new(format!(
                        "{} must be a whole number of seconds above 0",
                        variable(country, "timeout_secs")
                    ))
                })
        })
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switches_read_on_and_off_and_name_their_variable_otherwise() {
        let lt = Country::declare("LT", "lt");
        assert!(!switch(&Settings::new(), lt, "enabled", false).unwrap());
        assert!(switch(&settings(&[("enabled", " ON ")]), lt, "enabled", false).unwrap());
        assert!(!switch(&settings(&[("enabled", "false")]), lt, "enabled", true).unwrap());
        let e = switch(&settings(&[("enabled", "maybe")]), lt, "enabled", false).unwrap_err();
        assert_eq!(e.to_string(), "IDREG_LT_ENABLED must be `on` or `off`");
    }

    #[test]
    fn timeouts_are_whole_seconds_above_zero() {
        let se = Country::Se;
        assert!(timeouts(&Settings::new(), se).unwrap().is_none());
        assert_eq!(
            timeouts(&settings(&[("timeout_secs", "7")]), se).unwrap(),
            Some(Timeouts::total(Duration::from_secs(7)))
        );
        for bad in ["soon", "0", "-1", "1.5", ""] {
            let e = timeouts(&settings(&[("timeout_secs", bad)]), se).unwrap_err();
            // The variable is named, the value is not repeated.
            assert_eq!(
                e.to_string(),
                "IDREG_SE_TIMEOUT_SECS must be a whole number of seconds above 0"
            );
        }
    }
}
