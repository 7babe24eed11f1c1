#![doc = include_str!("../README.md")]

mod config;
mod foretagsinformation;
mod gateway;
pub mod identifiers;
mod paid_registry;
mod person_registry;
pub mod plug;
mod registry;
mod scb;
pub mod sources;
mod spar;
mod ssbtgu;
mod vdm;
mod verkliga_huvudman;

pub use config::{
    ForetagsinformationConfig, ScbConfig, SeConfig, SeConfigError, SeEndpoints, SePaidConfig,
    SparConfig, SsbtParty, SsbtguConfig, VdmConfig, VerkligaHuvudmanConfig, BO_PRODUCTION_BASE_URL,
    FI_DEFAULT_SCOPE, FI_PRODUCTION_BASE_URL, SCB_DEFAULT_API_ID_HEADER, SCB_PRODUCTION_BASE_URL,
    SPAR_CUSTOMER_TEST_URL, SPAR_PRODUCTION_URL, VDM_DEFAULT_SCOPE, VDM_PRODUCTION_BASE_URL,
    VDM_PRODUCTION_TOKEN_URL,
};
// The connector kit's settings, as this crate's configuration uses them.
pub use connector_kit::{ClientAuth, Timeouts, TlsConfig};
pub use paid_registry::SwedishPaidRegistry;
pub use person_registry::SwedishPersonRegistry;
pub use registry::SwedishCompanyRegistry;
pub use vdm::valid_document_id;

use domain::countries::country::Country;
use domain::countries::registry::CountryConnectors;

/// The user agent of every request this crate sends.
const USER_AGENT: &str = concat!("idreg-adapters-se/", env!("CARGO_PKG_VERSION"));

/// What Sweden serves, declared for the country registry: company profiles (and refresh)
/// and the annual-report archive from the free register, monitored by the scheduler's light
/// check and screened under the register's name. The paid tier and person data are added
/// where they are configured ([`CountryConnectors::paid`], [`with_persons`]).
pub fn declare(registry: std::sync::Arc<SwedishCompanyRegistry>) -> CountryConnectors {
    CountryConnectors::new(Country::Se, &sources::EVIDENCE_SOURCES)
        .company(registry.clone())
        .documents(registry)
        .monitors_companies()
        .screens_companies()
}

/// Sweden's person data from SPAR: person profiles, monitored and screened under the
/// register's name and birth date.
pub fn with_persons(
    connectors: CountryConnectors,
    spar: std::sync::Arc<SwedishPersonRegistry>,
) -> CountryConnectors {
    connectors
        .persons(spar)
        .monitors_persons()
        .screens_persons()
}

#[cfg(test)]
mod samples {
    use std::path::PathBuf;

    /// The recorded upstream answers (`testdata/`, see its PROVENANCE.md).
    pub fn dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata")
    }

    /// A recorded sample (`vdm/...` or `ssbt/...`).
    pub fn read(rel: &str) -> Vec<u8> {
        let p = dir().join(rel);
        std::fs::read(&p)
            .unwrap_or_else(|e| panic!("recorded sample {} is unreadable: {e}", p.display()))
    }
}
