#![doc = include_str!("../README.md")]

mod config;
mod gateway;
mod http;
mod registry;
mod scb;
mod ssbtgu;
mod vdm;
mod xml;

pub use config::{
    ClientAuth, ScbConfig, SeConfig, SeConfigError, SeEndpoints, SsbtParty, SsbtguConfig, Timeouts,
    TlsConfig, VdmConfig, SCB_DEFAULT_API_ID_HEADER, SCB_PRODUCTION_BASE_URL, VDM_DEFAULT_SCOPE,
    VDM_PRODUCTION_BASE_URL, VDM_PRODUCTION_TOKEN_URL,
};
pub use registry::SwedishCompanyRegistry;
pub use vdm::valid_document_id;

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
