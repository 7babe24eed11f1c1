#![doc = include_str!("../README.md")]

pub mod identifiers;
mod jar;
pub mod plug;
pub mod sources;

use async_trait::async_trait;
use connector_kit::{build_client, ClientConfigError, Timeouts, TlsConfig};
use domain::companies::ports::CompanyRegistry;
use domain::companies::profile::{
    CompanyRegisterData, FetchedProfile, OptionalGroup, ProfileFetch,
};
use domain::countries::registry::CountryConnectors;
use domain::subjects::identifier::Identifier;
use jar::JarClient;
use std::sync::Arc;

pub use sources::EVIDENCE_SOURCES;

/// Lithuania's open-data API in production (no key).
pub const OPEN_DATA_PRODUCTION_BASE_URL: &str = "https://get.data.gov.lt";

/// Where the Lithuanian connectors call, and how long they wait.
#[derive(Clone, Debug)]
pub struct LtConfig {
    /// The open-data API's base URL (`https://get.data.gov.lt`).
    pub open_data_base_url: String,
    pub timeouts: Timeouts,
}

impl LtConfig {
    /// The production open-data API with the default time limits.
    pub fn production() -> LtConfig {
        LtConfig {
            open_data_base_url: OPEN_DATA_PRODUCTION_BASE_URL.to_owned(),
            timeouts: Timeouts::default(),
        }
    }
}

/// The groups of the canonical profile Lithuania's open register has no source for: they are
/// served empty and named in `unchecked`, never as checked.
pub const NOT_IN_THE_OPEN_REGISTER: [OptionalGroup; 4] = [
    OptionalGroup::EmployeesBand,
    OptionalGroup::LatestAnnualReport,
    OptionalGroup::ActivityCodes,
    OptionalGroup::Tax,
];

/// Lithuania's company register (JAR open data) behind the `CompanyRegistry` port.
pub struct LithuanianCompanyRegistry {
    jar: JarClient,
}

impl std::fmt::Debug for LithuanianCompanyRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LithuanianCompanyRegistry")
            .finish_non_exhaustive()
    }
}

impl LithuanianCompanyRegistry {
    pub fn new(config: &LtConfig) -> Result<Self, ClientConfigError> {
        let http = build_client(
            "IDREG_LT_OPEN_DATA_BASE_URL",
            concat!("idreg-adapters-lt/", env!("CARGO_PKG_VERSION")),
            config.timeouts,
            &TlsConfig::default(),
        )?;
        Ok(LithuanianCompanyRegistry {
            jar: JarClient {
                http,
                base_url: config.open_data_base_url.clone(),
            },
        })
    }
}

#[async_trait]
impl CompanyRegistry for LithuanianCompanyRegistry {
    async fn fetch_profile(&self, code: &Identifier) -> ProfileFetch {
        if code.id_type() != crate::identifiers::IMONES_KODAS {
            tracing::warn!(id_type = %code.id_type(), "the Lithuanian register takes company codes only");
            return ProfileFetch {
                calls: Vec::new(),
                outcome: Err(domain::companies::profile::RegistryFailure::NotFound),
            };
        }
        let step = self.jar.juridinis_asmuo(code.expose_canonical()).await;
        let main_call = step.calls.len().saturating_sub(1);
        ProfileFetch {
            calls: step.calls,
            outcome: step.result.map(|e| FetchedProfile {
                data: CompanyRegisterData {
                    orgnr: e.code,
                    name: e.name,
                    legal_form: e.legal_form,
                    status: e.status,
                    registered_at: e.registered_at,
                    address: e.address,
                    activity_codes: Vec::new(),
                    employees_band: None,
                    latest_annual_report: None,
                },
                tax: None,
                unchecked: NOT_IN_THE_OPEN_REGISTER.to_vec(),
                main_call,
            }),
        }
    }
}

/// What Lithuania serves, declared for the country registry: company profiles from the open
/// register (and so refresh), monitored by the scheduler's light check and screened under the
/// register's name. The open data holds no officers, signatories, owners, filings or persons,
/// so those stay `country_not_supported`.
pub fn connectors(config: &LtConfig) -> Result<CountryConnectors, ClientConfigError> {
    let registry = Arc::new(LithuanianCompanyRegistry::new(config)?);
    Ok(
        CountryConnectors::new(crate::identifiers::LT, &EVIDENCE_SOURCES)
            .company(registry)
            .monitors_companies()
            .screens_companies(),
    )
}

/// Sweden's and Lithuania's identifier schemes, installed as the binary installs them, for
/// the tests that read identifiers or country codes (a Swedish prefix is known, too).
#[cfg(test)]
fn install_schemes() {
    adapters_se::identifiers::install();
    crate::identifiers::install();
}
