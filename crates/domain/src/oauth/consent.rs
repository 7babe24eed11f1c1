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

/// What a scope lets an agent do, in the words the consent page shows a person.
pub fn plain_words(scope: Scope) -> &'static str {
    match scope {
        Scope::IdentityRead => "identity reads (declared; no route needs it yet)",
        Scope::KybRead => "read companies: profiles, officers, signatories, owners",
        Scope::KycRead => "read persons: the population register under your permit (personal data)",
        Scope::MonitoringRead => "read your monitoring subscriptions",
        Scope::MonitoringSubscribe => "start and end monitoring of companies and persons",
        Scope::DecisionsWrite => "record decisions (declared; no route needs it yet)",
        Scope::EventsRead => "read your event log and manage webhooks",
        Scope::ScreeningRead => "read screening checks, overrides and the whitelist",
        Scope::ScreeningRun => "run sanctions screening checks",
        Scope::KybRefresh => "refresh a company from the paid register (spends your budget)",
        Scope::ScreeningPolicy => "the operator's screening policy (never handed to an agent)",
    }
}

/// What the consent page ticks at first: what the app asked for among the reads a member may
/// hand out (least privilege: writes, paid refreshes and person data are ticked by the person
/// alone), or those reads when it asked for none of them.
pub fn proposed(asked: &ScopeSet, allowed: &ScopeSet) -> ScopeSet {
    let reads: ScopeSet = MEMBER_SCOPES.into_iter().collect();
    let asked_reads = asked.intersection(allowed).intersection(&reads);
    if asked_reads.is_empty() {
        reads.intersection(allowed)
    } else {
        asked_reads
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
