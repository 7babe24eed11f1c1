//! The evidence sources the Swedish connectors cite (the spec's names).

use domain::evidence::EvidenceSource;

/// Bolagsverket's "värdefulla datamängder" API (the free company register).
pub const VARDEFULLA_DATAMANGDER: EvidenceSource =
    EvidenceSource::declared("companyreg.vardefulla-datamangder");
/// Bolagsverket's company information API (the paid tier) and the beneficial-owners register.
pub const FORETAGSINFORMATION: EvidenceSource =
    EvidenceSource::declared("companyreg.foretagsinformation");
/// SPAR's person search.
pub const PERSONSOKNING: EvidenceSource = EvidenceSource::declared("personreg.personsokning");
/// SPAR's notification service (declared by the spec; not called by this build).
pub const AVISERING: EvidenceSource = EvidenceSource::declared("personreg.avisering");
/// Skatteverket's registrations (F-skatt, VAT, employer), relayed by SSBTGU.
pub const SKATTEVERKET_UPPGIFTER: EvidenceSource = EvidenceSource::declared("taxauth.uppgifter");
/// SCB's business register.
pub const SCB_FORETAGSREGISTER: EvidenceSource =
    EvidenceSource::declared("statsoffice.foretagsregister");

/// Every source Sweden's connectors cite, in the spec's order.
pub const EVIDENCE_SOURCES: [EvidenceSource; 6] = [
    VARDEFULLA_DATAMANGDER,
    FORETAGSINFORMATION,
    PERSONSOKNING,
    AVISERING,
    SKATTEVERKET_UPPGIFTER,
    SCB_FORETAGSREGISTER,
];
