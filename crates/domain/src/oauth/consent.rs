//! What a person may hand an agent: the consent rule by portal role.
//!
//! An admin may connect an agent with any consumer scope, in live or test mode. A member (an
//! analyst who reads) may connect one to read only: companies, screening results, the
//! subscription and event logs. Writing (screening runs, subscriptions, decisions), paid
//! refreshes and person data (`kyc:read`, a register under a permit) are an admin's to hand
//! out. Countries are the tenant's provisioned ones either way.

use crate::access::scope::{Scope, ScopeSet};
use crate::portal::user::PortalRole;

/// The scopes a member may consent to.
pub const MEMBER_SCOPES: [Scope; 5] = [
    Scope::IdentityRead,
    Scope::KybRead,
    Scope::MonitoringRead,
    Scope::EventsRead,
    Scope::ScreeningRead,
];

/// The scopes a person of `role` may hand an agent.
pub fn consentable(role: PortalRole) -> ScopeSet {
    match role {
        PortalRole::Admin => Scope::CONSUMER.into_iter().collect(),
        PortalRole::Member => MEMBER_SCOPES.into_iter().collect(),
    }
}

/// The person's choice on the consent page (the form's fields, unparsed).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConsentChoice {
    /// Scope names, space-separated.
    pub scopes: String,
    /// Country codes, space-separated.
    pub countries: String,
    /// The tenant's test twin (the sandbox registers) rather than the live tenant.
    pub test: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_hands_out_reads_only() {
        let member = consentable(PortalRole::Member);
        for s in [
            Scope::KycRead,
            Scope::KybRefresh,
            Scope::ScreeningRun,
            Scope::MonitoringSubscribe,
            Scope::DecisionsWrite,
        ] {
            assert!(!member.contains(s), "{s:?}");
        }
        assert!(member.is_subset(&consentable(PortalRole::Admin)));
        assert_eq!(
            consentable(PortalRole::Admin).iter().count(),
            Scope::CONSUMER.len()
        );
    }
}
