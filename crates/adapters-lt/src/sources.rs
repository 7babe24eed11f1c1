//! The evidence sources the Lithuanian connectors cite.

use domain::evidence::EvidenceSource;

/// Registrų centras' legal-entity register (JAR) as Lithuania's open-data API serves it.
pub const JAR_ATVIRI_DUOMENYS: EvidenceSource =
    EvidenceSource::declared("companyreg.jar-atviri-duomenys");

/// Every source Lithuania's connectors cite.
pub const EVIDENCE_SOURCES: [EvidenceSource; 1] = [JAR_ATVIRI_DUOMENYS];
