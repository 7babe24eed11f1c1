//! The evidence sources the Norwegian connectors cite.

use domain::evidence::EvidenceSource;

/// Brønnøysundregistrene's Enhetsregisteret as its open API serves it
/// (`data.brreg.no/enhetsregisteret/api`: entities, their roles and the update feed).
pub const ENHETSREGISTERET: EvidenceSource =
    EvidenceSource::declared("companyreg.enhetsregisteret");

/// Every source Norway's connectors cite.
pub const EVIDENCE_SOURCES: [EvidenceSource; 1] = [ENHETSREGISTERET];
