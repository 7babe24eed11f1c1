#![doc = include_str!("../README.md")]

pub mod brreg;
pub mod identifiers;
pub mod orgnr;
pub mod plug;
pub mod registry;
pub mod sandbox;
pub mod sources;

pub use brreg::model::{
    Employees, Enhet, EnhetAnswer, EnhetStatus, GoneEnhet, Innehaver, OppdateringerEnheter, Roller,
    RollerAnswer, SlettetEnhet,
};
pub use brreg::{BrregClient, BrregConfig, BrregConfigError, FeedQuery, PRODUCTION_BASE_URL};
pub use orgnr::{Orgnr, OrgnrError};
pub use registry::NorwegianCompanyRegistry;
pub use sandbox::BrregSandbox;
pub use sources::EVIDENCE_SOURCES;

#[cfg(test)]
mod samples {
    use std::path::PathBuf;

    /// The recorded upstream answers (`testdata/`, see its PROVENANCE.md).
    pub fn read(rel: &str) -> Vec<u8> {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("testdata")
            .join(rel);
        std::fs::read(&p)
            .unwrap_or_else(|e| panic!("recorded sample {} is unreadable: {e}", p.display()))
    }
}
