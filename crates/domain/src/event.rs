//! The consumer event types of the per-tenant event log, and which of them this build emits.
//!
//! The interface declares the types; whether one is emitted is a fact about the code. A use
//! case that starts appending a type names itself in [`EventType::emitter`] in the same
//! change, so the contract snapshot (`contract/event-types.json`), which reads `emitted` from
//! here, always says what the running service does. Nothing appends events yet: the event
//! log and monitoring arrive together.

/// One event type of the interface.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EventType {
    CompanyChanged,
    CompanyStatusChanged,
    SignatoryChanged,
    UboChanged,
    PersonChanged,
    RefreshCompleted,
    RefreshDeferred,
    SubscriptionSuspended,
    /// The other subscription lifecycle events, whose names the interface leaves open.
    SubscriptionLifecycle,
}

impl EventType {
    pub const ALL: [EventType; 9] = [
        EventType::CompanyChanged,
        EventType::CompanyStatusChanged,
        EventType::SignatoryChanged,
        EventType::UboChanged,
        EventType::PersonChanged,
        EventType::RefreshCompleted,
        EventType::RefreshDeferred,
        EventType::SubscriptionSuspended,
        EventType::SubscriptionLifecycle,
    ];

    /// The type as events carry it (`subscription.*` for the family not named yet).
    pub fn name(self) -> &'static str {
        match self {
            EventType::CompanyChanged => "company.changed",
            EventType::CompanyStatusChanged => "company.status.changed",
            EventType::SignatoryChanged => "signatory.changed",
            EventType::UboChanged => "ubo.changed",
            EventType::PersonChanged => "person.changed",
            EventType::RefreshCompleted => "refresh.completed",
            EventType::RefreshDeferred => "refresh.deferred",
            EventType::SubscriptionSuspended => "subscription.suspended",
            EventType::SubscriptionLifecycle => "subscription.*",
        }
    }

    /// What the interface says emits the type.
    pub fn declared_emitter(self) -> &'static str {
        const CHANGE: &str = "scheduled monitoring, or POST /v1/companies/{orgnr}/refresh under an active subscription";
        match self {
            EventType::CompanyChanged
            | EventType::CompanyStatusChanged
            | EventType::SignatoryChanged
            | EventType::UboChanged => CHANGE,
            EventType::PersonChanged => "declared, not yet emitted",
            EventType::RefreshCompleted => "a refresh",
            EventType::RefreshDeferred => {
                "scheduled work reaching the tenant's monitoring share of the daily budget"
            }
            EventType::SubscriptionSuspended | EventType::SubscriptionLifecycle => {
                "subscription lifecycle"
            }
        }
    }

    pub fn notes(self) -> &'static str {
        match self {
            EventType::CompanyChanged => "field diff with values",
            EventType::PersonChanged => "the scheduled person source does not exist; paths and new values, or the marker alone under identity protection",
            EventType::RefreshDeferred => "work resumes in the next window",
            EventType::SubscriptionSuspended => {
                "reason `country_deprovisioned` or `permit_lapsed`"
            }
            EventType::SubscriptionLifecycle => {
                "further lifecycle events; their names are not fixed by the specification yet"
            }
            _ => "",
        }
    }

    /// The use case of this build that appends events of this type, if any.
    pub fn emitter(self) -> Option<&'static str> {
        match self {
            // No use case appends events yet (the event log arrives with monitoring).
            EventType::CompanyChanged
            | EventType::CompanyStatusChanged
            | EventType::SignatoryChanged
            | EventType::UboChanged
            | EventType::PersonChanged
            | EventType::RefreshCompleted
            | EventType::RefreshDeferred
            | EventType::SubscriptionSuspended
            | EventType::SubscriptionLifecycle => None,
        }
    }

    /// Whether this build emits the type.
    pub fn emitted(self) -> bool {
        self.emitter().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_type_is_listed() {
        let mut names: Vec<&str> = EventType::ALL.iter().map(|t| t.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), EventType::ALL.len());
    }

    #[test]
    fn a_type_is_emitted_exactly_when_a_use_case_emits_it() {
        for t in EventType::ALL {
            assert_eq!(t.emitted(), t.emitter().is_some(), "{}", t.name());
        }
        // This build has no event log: nothing may claim to be emitted.
        assert!(EventType::ALL.iter().all(|t| !t.emitted()));
    }
}
