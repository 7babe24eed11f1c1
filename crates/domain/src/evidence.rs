//! Evidence: where a value came from, pointing at the service's record of the call.

use crate::ids::CallRef;
use chrono::{DateTime, Utc};
use std::sync::Mutex;

/// Where evidence comes from: an upstream source a connector declares
/// (`companyreg.vardefulla-datamangder`), or one of the service's own ([`EvidenceSource::SERVICE`]).
///
/// The set is open: each country's connectors declare the sources they cite (their crate's
/// `EVIDENCE_SOURCES`), and the contract's enum is the service's sources followed by every
/// compiled-in country's, so a new country adds values and never changes one. A name is
/// lower-case ASCII: `<authority>.<register>` with letters, digits, `-` and `_` in dotted parts.
///
/// A source is a `Copy` name: declared ones are constants, and names read back from storage
/// are interned once per process (the set is the handful of names connectors ever wrote).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EvidenceSource(&'static str);

impl EvidenceSource {
    /// A subject created from the consumer's own resolve.
    pub const CUSTOMER_IDENTITY_EVENT: EvidenceSource =
        EvidenceSource::declared("customer.identity_event");
    /// The service's API gateway.
    pub const SERVICE_GATEWAY: EvidenceSource = EvidenceSource::declared("service.gateway");
    /// A value the service derived from others (a monitoring state change).
    pub const SERVICE_DERIVED: EvidenceSource = EvidenceSource::declared("service.derived");
    /// A subject merge.
    pub const SERVICE_MERGE: EvidenceSource = EvidenceSource::declared("service.merge");

    /// The service's own sources, whatever countries are served.
    pub const SERVICE: [EvidenceSource; 4] = [
        EvidenceSource::CUSTOMER_IDENTITY_EVENT,
        EvidenceSource::SERVICE_GATEWAY,
        EvidenceSource::SERVICE_DERIVED,
        EvidenceSource::SERVICE_MERGE,
    ];

    /// A source named in code. A malformed name stops the build where it is a constant
    /// (and panics otherwise): names are checked once, where they are written.
    pub const fn declared(name: &'static str) -> EvidenceSource {
        assert!(
            well_formed(name.as_bytes()),
            "malformed evidence source name"
        );
        EvidenceSource(name)
    }

    /// A source name read back (from storage): `None` unless it is well formed.
    pub fn parse(name: &str) -> Option<EvidenceSource> {
        if !well_formed(name.as_bytes()) {
            return None;
        }
        static INTERNED: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
        let mut interned = INTERNED
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(known) = interned.iter().find(|k| **k == name) {
            return Some(EvidenceSource(known));
        }
        let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
        interned.push(leaked);
        Some(EvidenceSource(leaked))
    }

    pub fn as_str(self) -> &'static str {
        self.0
    }
}

/// `part(.part)+`, each part `[a-z0-9_-]+` starting with a letter, at most 64 bytes in all.
const fn well_formed(b: &[u8]) -> bool {
    if b.is_empty() || b.len() > 64 {
        return false;
    }
    let mut i = 0;
    let mut dots = 0;
    let mut part_start = true;
    while i < b.len() {
        let c = b[i];
        if part_start {
            if !c.is_ascii_lowercase() {
                return false;
            }
            part_start = false;
        } else if c == b'.' {
            dots += 1;
            part_start = true;
        } else if !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-' || c == b'_') {
            return false;
        }
        i += 1;
    }
    dots > 0 && !part_start
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
            source: EvidenceSource::CUSTOMER_IDENTITY_EVENT,
            source_timestamp: at,
            call_ref,
            upstream_ref: None,
            digest: None,
            schema_version: Some(SCHEMA_VERSION.to_owned()),
            retrieved_at: at,
        }
    }

    /// Evidence of a value the service derived at `at` from what it already held (a state
    /// change of a subscription, a webhook endpoint, a screening reading), under a call
    /// reference of its own.
    pub fn derived(at: DateTime<Utc>) -> Evidence {
        Evidence {
            source: EvidenceSource::SERVICE_DERIVED,
            source_timestamp: at,
            call_ref: CallRef::generate(),
            upstream_ref: None,
            digest: None,
            schema_version: Some(SCHEMA_VERSION.to_owned()),
            retrieved_at: at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_service_sources_are_the_specs() {
        let names = EvidenceSource::SERVICE.map(EvidenceSource::as_str);
        assert_eq!(
            names,
            [
                "customer.identity_event",
                "service.gateway",
                "service.derived",
                "service.merge"
            ]
        );
    }

    #[test]
    fn names_read_back_only_when_well_formed() {
        for good in [
            "taxauth.uppgifter",
            "companyreg.vardefulla-datamangder",
            "lt.rc.jar_2",
        ] {
            assert_eq!(EvidenceSource::parse(good).unwrap().as_str(), good);
        }
        for bad in [
            "",
            "taxauth",
            ".x",
            "x.",
            "a..b",
            "Taxauth.x",
            "a.b c",
            "1a.b",
            "a.-b",
        ] {
            assert!(EvidenceSource::parse(bad).is_none(), "{bad:?} was read");
        }
        assert!(EvidenceSource::parse(&format!("a.{}", "b".repeat(63))).is_none());
    }

    #[test]
    fn a_declared_source_equals_the_same_name_read_back() {
        let read = EvidenceSource::parse("service.merge").unwrap();
        assert_eq!(read, EvidenceSource::SERVICE_MERGE);
    }

    proptest! {
        /// Whatever text is read back, a source is either refused or round-trips exactly.
        #[test]
        fn parse_round_trips_or_refuses(name in "\\PC{0,70}") {
            if let Some(s) = EvidenceSource::parse(&name) {
                prop_assert_eq!(s.as_str(), name.as_str());
                prop_assert!(name.contains('.'));
                prop_assert!(name.bytes().all(|b| b.is_ascii_lowercase()
                    || b.is_ascii_digit() || b"._-".contains(&b)));
            }
        }
    }
}
