//! What the assistant may do for a person. It never does more than the person could through
//! a credential of their tenant:
//!
//! - it runs under one **grant** of the person's tenant, picked when the conversation starts
//!   (its scopes and countries, re-read on every message, so a revoked or narrowed grant
//!   stops or narrows the assistant at once);
//! - within that grant, only the scopes the person's **role** may hand out
//!   ([`crate::oauth::consent::consentable`]: a member reads; an admin also reads persons
//!   and runs screening), and only the scopes the assistant ever uses ([`ASSISTANT_SCOPES`]);
//! - only operations that read, plus a screening check ([`may_run`]): a check is the
//!   append-only record of what was screened against which list versions, the evidence an
//!   analyst asks for; subscriptions, refreshes, webhooks and policies are never touched.

use crate::access::scope::{Scope, ScopeSet};
use crate::operation::Operation;
use crate::portal::user::PortalRole;
use chrono::Duration;

/// The scopes the assistant ever uses: reads, and running a screening check.
pub const ASSISTANT_SCOPES: [Scope; 7] = [
    Scope::IdentityRead,
    Scope::KybRead,
    Scope::KycRead,
    Scope::MonitoringRead,
    Scope::EventsRead,
    Scope::ScreeningRead,
    Scope::ScreeningRun,
];

/// The scopes the assistant holds for a person of `role` under a grant holding `grant`.
pub fn scopes(role: PortalRole, grant: &ScopeSet) -> ScopeSet {
    let ours: ScopeSet = ASSISTANT_SCOPES.into_iter().collect();
    grant
        .intersection(&crate::oauth::consent::consentable(role))
        .intersection(&ours)
}

/// Whether the assistant may run `op`: a read, resolving a subject (which creates the
/// tenant's subject at most once, as a read does), or a screening check.
pub fn may_run(op: Operation) -> bool {
    match op {
        Operation::ResolveSubject | Operation::RunScreeningCheck => true,
        Operation::RefreshCompany
        | Operation::CreateSubscription
        | Operation::EndSubscription
        | Operation::CreateWebhookEndpoint
        | Operation::DisableWebhookEndpoint
        | Operation::EnableWebhookEndpoint
        | Operation::RotateWebhookSecret => false,
        op => op.method() == "GET",
    }
}

/// Rounds of tool calls one message may take before the assistant stops and says so.
pub const ROUND_CAP: u32 = 6;

/// Tool calls one model turn may ask for; more are answered as refused.
pub const CALLS_PER_ROUND: usize = 8;

/// The longest message a person may send, in characters.
pub const MAX_MESSAGE_CHARS: usize = 4_000;

/// Tokens a model turn may write.
pub const MAX_TOKENS: u32 = 2_048;

/// Characters of the first message a conversation's title keeps.
pub const TITLE_CHARS: usize = 60;

/// Conversations a person's list shows.
pub const LIST_LIMIT: u32 = 100;

/// Model calls a tenant may make a day unless the operator sets another allowance.
pub const DEFAULT_DAILY_CALLS: u32 = 200;

/// How long a conversation is kept after it was last used unless the operator sets another.
pub fn default_retention() -> Duration {
    Duration::days(30)
}

/// A message still being answered holds its conversation this long at most: a person's
/// message left without an answer after it (the service stopped mid-answer) no longer
/// blocks the next.
pub fn answer_hold() -> Duration {
    Duration::minutes(5)
}

/// The operator's settings of the assistant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssistantSettings {
    pub daily_calls: u32,
    pub retention: Duration,
    pub round_cap: u32,
}

impl Default for AssistantSettings {
    fn default() -> Self {
        AssistantSettings {
            daily_calls: DEFAULT_DAILY_CALLS,
            retention: default_retention(),
            round_cap: ROUND_CAP,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_reads_and_an_admin_also_reads_persons_and_screens_within_the_grant() {
        let all: ScopeSet = Scope::CONSUMER.into_iter().collect();
        let member = scopes(PortalRole::Member, &all);
        assert!(member.contains(Scope::KybRead));
        assert!(!member.contains(Scope::KycRead));
        assert!(!member.contains(Scope::ScreeningRun));
        let admin = scopes(PortalRole::Admin, &all);
        assert!(admin.contains(Scope::KycRead) && admin.contains(Scope::ScreeningRun));
        for never in [
            Scope::KybRefresh,
            Scope::MonitoringSubscribe,
            Scope::ScreeningPolicy,
            Scope::DecisionsWrite,
        ] {
            assert!(!admin.contains(never), "{never:?}");
        }
        // Never more than the grant.
        let narrow: ScopeSet = [Scope::KybRead].into_iter().collect();
        assert_eq!(scopes(PortalRole::Admin, &narrow), narrow);
    }

    #[test]
    fn the_assistant_runs_reads_and_checks_and_never_another_write() {
        for op in Operation::ROUTED {
            let allowed = may_run(op);
            let reads = op.method() == "GET";
            match op {
                Operation::ResolveSubject | Operation::RunScreeningCheck => assert!(allowed),
                _ if !reads => assert!(!allowed, "{op:?} writes"),
                _ => {}
            }
        }
    }
}
