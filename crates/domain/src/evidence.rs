//! Evidence: where a value came from, pointing at the service's record of the call.

use crate::ids::CallRef;
use chrono::{DateTime, Utc};

/// The evidence `source` values of the spec.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EvidenceSource {
    CompanyregVardefullaDatamangder,
    CompanyregForetagsinformation,
    PersonregPersonsokning,
    PersonregAvisering,
    TaxauthUppgifter,
    StatsofficeForetagsregister,
    CustomerIdentityEvent,
    ServiceGateway,
    ServiceDerived,
    ServiceMerge,
}

impl EvidenceSource {
    pub const ALL: [EvidenceSource; 10] = [
        EvidenceSource::CompanyregVardefullaDatamangder,
        EvidenceSource::CompanyregForetagsinformation,
        EvidenceSource::PersonregPersonsokning,
        EvidenceSource::PersonregAvisering,
        EvidenceSource::TaxauthUppgifter,
        EvidenceSource::StatsofficeForetagsregister,
        EvidenceSource::CustomerIdentityEvent,
        EvidenceSource::ServiceGateway,
        EvidenceSource::ServiceDerived,
        EvidenceSource::ServiceMerge,
    ];

    pub fn as_str(self) -> &'static str {
        use EvidenceSource::*;
        match self {
            CompanyregVardefullaDatamangder => "companyreg.vardefulla-datamangder",
            CompanyregForetagsinformation => "companyreg.foretagsinformation",
            PersonregPersonsokning => "personreg.personsokning",
            PersonregAvisering => "personreg.avisering",
            TaxauthUppgifter => "taxauth.uppgifter",
            StatsofficeForetagsregister => "statsoffice.foretagsregister",
            CustomerIdentityEvent => "customer.identity_event",
            ServiceGateway => "service.gateway",
            ServiceDerived => "service.derived",
            ServiceMerge => "service.merge",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.as_str() == s)
    }
}

/// The schema version of data objects, evidence groups and events.
pub const SCHEMA_VERSION: &str = "1.6.0";

/// An evidence group as the spec defines it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evidence {
    pub source: EvidenceSource,
    pub source_timestamp: DateTime<Utc>,
    pub call_ref: CallRef,
    pub upstream_ref: Option<String>,
    pub digest: Option<String>,
    pub schema_version: Option<String>,
    pub retrieved_at: DateTime<Utc>,
}

impl Evidence {
    /// Evidence of a subject created from the consumer's own resolve.
    pub fn identity_event(call_ref: CallRef, at: DateTime<Utc>) -> Evidence {
        Evidence {
            source: EvidenceSource::CustomerIdentityEvent,
            source_timestamp: at,
            call_ref,
            upstream_ref: None,
            digest: None,
            schema_version: Some(SCHEMA_VERSION.to_owned()),
            retrieved_at: at,
        }
    }
}
