//! The operations of the interface, each with the REST route template that names it in
//! audit rows. MCP tools map onto these, so an audit row names the same route whichever
//! surface the request came through.

use crate::access::scope::{Scope, ScopeSet};
use crate::error::ErrorCode;
use crate::usage::quota::Limit;

/// Which surface a request arrived on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Surface {
    Rest,
    Mcp,
    /// Work the service does on a tenant's behalf without a consumer's request (scheduled
    /// monitoring); it has no route invocation to audit.
    Scheduler,
    /// A person at the tenant, signed in to the portal (the actor is the portal user).
    Portal,
    /// The portal assistant's tool calls, run under a grant for a signed-in portal user.
    Assistant,
}

impl Surface {
    pub fn as_str(self) -> &'static str {
        match self {
            Surface::Rest => "rest",
            Surface::Mcp => "mcp",
            Surface::Scheduler => "scheduler",
            Surface::Portal => "portal",
            Surface::Assistant => "assistant",
        }
    }
}

/// One operation of the interface. The route template is what audit rows record (never the
/// identifiers a request carried).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Operation {
    IssueToken,
    ResolveSubject,
    GetSubject,
    GetCompany,
    GetDocument,
    /// The paid tier: `GET /v1/companies/{orgnr}/beneficial-owners`.
    GetBeneficialOwners,
    /// The paid tier: `GET /v1/companies/{orgnr}/officers`.
    GetOfficers,
    /// The paid tier: `GET /v1/companies/{orgnr}/signatories` (the officers object).
    GetSignatories,
    /// The paid tier: `GET /v1/persons/{ref}/engagements`.
    GetPersonEngagements,
    /// The population register: `GET /v1/persons/{ref}` (permit-gated, metered against the
    /// person-lookup ceiling, never stale).
    GetPerson,
    /// `GET /v1/events`: a page of the tenant's event log.
    ListEvents,
    /// `POST /v1/companies/{orgnr}/refresh`: a forced, metered re-fetch (`kyb:refresh` only).
    RefreshCompany,
    /// `POST /v1/subscriptions` (answers 201).
    CreateSubscription,
    /// `GET /v1/subscriptions`.
    ListSubscriptions,
    /// `GET /v1/subscriptions/{id}`.
    GetSubscription,
    /// `POST /v1/subscriptions/{id}/end`.
    EndSubscription,
    /// `POST /v1/screening/checks` (answers 201).
    RunScreeningCheck,
    /// `GET /v1/screening/checks`.
    ListScreeningChecks,
    /// `GET /v1/screening/checks/{id}`.
    GetScreeningCheck,
    /// `GET /v1/screening/overrides`: the tenant's policy override versions.
    ListScreeningOverrides,
    /// `GET /v1/screening/whitelist`: the tenant's whitelist entries.
    ListScreeningWhitelist,
    /// `GET /v1/usage`: the tenant's standing against its daily limits (free, any scope).
    GetUsage,
    /// `POST /v1/webhooks` (answers 201, the secret shown once).
    CreateWebhookEndpoint,
    /// `GET /v1/webhooks`: the grant's endpoints.
    ListWebhookEndpoints,
    /// `GET /v1/webhooks/{id}`.
    GetWebhookEndpoint,
    /// `POST /v1/webhooks/{id}/disable`.
    DisableWebhookEndpoint,
    /// `POST /v1/webhooks/{id}/enable`: resumes at the endpoint's cursor.
    EnableWebhookEndpoint,
    /// `POST /v1/webhooks/{id}/rotate-secret` (the new secret shown once).
    RotateWebhookSecret,
    /// `GET /v1/webhooks/{id}/deliveries`: the endpoint's delivery log.
    ListWebhookDeliveries,
    /// A `POST /mcp` message other than `tools/call` (`initialize`, `tools/list`, `ping`, ...).
    McpRequest,
    /// A call of `POST /mcp` `tools/call`; the tool's own route invocations are audited too.
    McpToolCall,
    /// Scheduled monitoring's reading of a subscription's subject: no route, no consumer;
    /// its name files the upstream calls it makes.
    MonitoringRun,
}

impl Operation {
    /// Every operation a request reaches by a route (all but scheduled monitoring's run).
    pub const ROUTED: [Operation; 31] = [
        Operation::IssueToken,
        Operation::ResolveSubject,
        Operation::GetSubject,
        Operation::GetCompany,
        Operation::GetDocument,
        Operation::GetBeneficialOwners,
        Operation::GetOfficers,
        Operation::GetSignatories,
        Operation::GetPersonEngagements,
        Operation::GetPerson,
        Operation::ListEvents,
        Operation::RefreshCompany,
        Operation::CreateSubscription,
        Operation::ListSubscriptions,
        Operation::GetSubscription,
        Operation::EndSubscription,
        Operation::RunScreeningCheck,
        Operation::ListScreeningChecks,
        Operation::GetScreeningCheck,
        Operation::ListScreeningOverrides,
        Operation::ListScreeningWhitelist,
        Operation::GetUsage,
        Operation::CreateWebhookEndpoint,
        Operation::ListWebhookEndpoints,
        Operation::GetWebhookEndpoint,
        Operation::DisableWebhookEndpoint,
        Operation::EnableWebhookEndpoint,
        Operation::RotateWebhookSecret,
        Operation::ListWebhookDeliveries,
        Operation::McpRequest,
        Operation::McpToolCall,
    ];

    pub fn method(self) -> &'static str {
        match self {
            Operation::IssueToken
            | Operation::ResolveSubject
            | Operation::CreateSubscription
            | Operation::EndSubscription
            | Operation::RefreshCompany
            | Operation::RunScreeningCheck
            | Operation::CreateWebhookEndpoint
            | Operation::DisableWebhookEndpoint
            | Operation::EnableWebhookEndpoint
            | Operation::RotateWebhookSecret
            | Operation::McpRequest
            | Operation::McpToolCall => "POST",
            Operation::MonitoringRun => "RUN",
            Operation::GetSubject
            | Operation::GetCompany
            | Operation::GetDocument
            | Operation::GetBeneficialOwners
            | Operation::GetOfficers
            | Operation::GetSignatories
            | Operation::GetPersonEngagements
            | Operation::GetPerson
            | Operation::ListEvents
            | Operation::ListSubscriptions
            | Operation::GetSubscription
            | Operation::ListScreeningChecks
            | Operation::GetScreeningCheck
            | Operation::ListScreeningOverrides
            | Operation::ListScreeningWhitelist
            | Operation::ListWebhookEndpoints
            | Operation::GetWebhookEndpoint
            | Operation::ListWebhookDeliveries
            | Operation::GetUsage => "GET",
        }
    }

    pub fn route_template(self) -> &'static str {
        match self {
            Operation::IssueToken => "/oauth/token",
            Operation::ResolveSubject => "/v1/subjects/resolve",
            Operation::GetSubject => "/v1/subjects/{id}",
            Operation::GetCompany => "/v1/companies/{orgnr}",
            Operation::GetDocument => "/v1/documents/{id}",
            Operation::GetBeneficialOwners => "/v1/companies/{orgnr}/beneficial-owners",
            Operation::GetOfficers => "/v1/companies/{orgnr}/officers",
            Operation::GetSignatories => "/v1/companies/{orgnr}/signatories",
            Operation::GetPersonEngagements => "/v1/persons/{ref}/engagements",
            Operation::GetPerson => "/v1/persons/{ref}",
            Operation::ListEvents => "/v1/events",
            Operation::RefreshCompany => "/v1/companies/{orgnr}/refresh",
            Operation::CreateSubscription | Operation::ListSubscriptions => "/v1/subscriptions",
            Operation::GetSubscription => "/v1/subscriptions/{id}",
            Operation::EndSubscription => "/v1/subscriptions/{id}/end",
            Operation::RunScreeningCheck | Operation::ListScreeningChecks => "/v1/screening/checks",
            Operation::GetScreeningCheck => "/v1/screening/checks/{id}",
            Operation::ListScreeningOverrides => "/v1/screening/overrides",
            Operation::ListScreeningWhitelist => "/v1/screening/whitelist",
            Operation::GetUsage => "/v1/usage",
            Operation::CreateWebhookEndpoint | Operation::ListWebhookEndpoints => "/v1/webhooks",
            Operation::GetWebhookEndpoint => "/v1/webhooks/{id}",
            Operation::DisableWebhookEndpoint => "/v1/webhooks/{id}/disable",
            Operation::EnableWebhookEndpoint => "/v1/webhooks/{id}/enable",
            Operation::RotateWebhookSecret => "/v1/webhooks/{id}/rotate-secret",
            Operation::ListWebhookDeliveries => "/v1/webhooks/{id}/deliveries",
            Operation::McpRequest | Operation::McpToolCall => "/mcp",
            Operation::MonitoringRun => "scheduler:monitoring",
        }
    }

    /// The audit action name: `mcp.tool_call` for tool calls, else `METHOD template`.
    pub fn action(self) -> String {
        match self {
            Operation::McpToolCall => "mcp.tool_call".to_owned(),
            other => format!("{} {}", other.method(), other.route_template()),
        }
    }

    /// The scopes that open the operation: holding any one of them is enough. Written here
    /// once: the use case checks these, the OpenAPI document states them (the consumer scopes
    /// among them) as the operation's security, and the MCP tool list is derived from them
    /// ([`Operation::listed_for`]), so none of the three can drift from the others.
    pub fn scopes(self) -> &'static [Scope] {
        match self {
            Operation::ResolveSubject => &[Scope::KybRead, Scope::KycRead],
            Operation::GetSubject
            | Operation::GetCompany
            | Operation::GetDocument
            | Operation::GetBeneficialOwners
            | Operation::GetOfficers
            | Operation::GetSignatories
            | Operation::GetPersonEngagements => &[Scope::KybRead],
            // Necessary, never sufficient: the tenant's permit gates it too.
            Operation::GetPerson => &[Scope::KycRead],
            // A webhook pushes the log its grant reads anyway: the same scope opens it.
            Operation::ListEvents
            | Operation::CreateWebhookEndpoint
            | Operation::ListWebhookEndpoints
            | Operation::GetWebhookEndpoint
            | Operation::DisableWebhookEndpoint
            | Operation::EnableWebhookEndpoint
            | Operation::RotateWebhookSecret
            | Operation::ListWebhookDeliveries => &[Scope::EventsRead],
            // `kyb:read` no longer opens it (1.6.0).
            Operation::RefreshCompany => &[Scope::KybRefresh],
            Operation::CreateSubscription | Operation::EndSubscription => {
                &[Scope::MonitoringSubscribe]
            }
            // The last two see only their kind (the use case filters).
            Operation::ListSubscriptions | Operation::GetSubscription => &[
                Scope::MonitoringRead,
                Scope::MonitoringSubscribe,
                Scope::KybRead,
                Scope::KycRead,
            ],
            // `kyc:read` is needed besides when the subject is a person (the use case checks).
            Operation::RunScreeningCheck => &[Scope::ScreeningRun],
            // `screening:run` also opens the screening reads.
            Operation::ListScreeningChecks | Operation::GetScreeningCheck => {
                &[Scope::ScreeningRead, Scope::ScreeningRun]
            }
            Operation::ListScreeningOverrides | Operation::ListScreeningWhitelist => &[
                Scope::ScreeningRead,
                Scope::ScreeningRun,
                Scope::ScreeningPolicy,
            ],
            // Open to every admitted caller (the token endpoint authenticates by credentials;
            // a tenant's own limits name no subject).
            Operation::IssueToken
            | Operation::McpRequest
            | Operation::McpToolCall
            | Operation::GetUsage => &[],
            // Not a consumer's operation: the scheduler's own principal runs it.
            Operation::MonitoringRun => &[],
        }
    }

    /// Whether `scope`, one of [`Operation::scopes`], opens the operation only in part:
    /// `kyb:read` and `kyc:read` read the subscriptions of their own kind alone (the use case
    /// leaves out the others), where the monitoring scopes read them all.
    pub fn opens_in_part(self, scope: Scope) -> bool {
        matches!(
            (self, scope),
            (
                Operation::ListSubscriptions | Operation::GetSubscription,
                Scope::KybRead | Scope::KycRead
            )
        )
    }

    /// The scopes a tool running the operation is listed for: those of
    /// [`Operation::scopes`] that open the whole of it. A tool list offers a tool only to a
    /// caller it serves whole (the subscription tools: to the monitoring scopes); a caller
    /// holding a scope that opens it in part may still call it, as the route, and gets what
    /// that scope opens.
    pub fn listing_scopes(self) -> impl Iterator<Item = Scope> {
        self.scopes()
            .iter()
            .copied()
            .filter(move |s| !self.opens_in_part(*s))
    }

    /// Whether a tool list shows a tool running the operation to a caller holding `held`:
    /// always for an operation that needs no scope, else when `held` has one of its
    /// [`Operation::listing_scopes`].
    pub fn listed_for(self, held: &ScopeSet) -> bool {
        self.scopes().is_empty() || self.listing_scopes().any(|s| held.contains(s))
    }

    /// The status of a successful answer.
    pub fn success_status(self) -> u16 {
        match self {
            Operation::CreateSubscription
            | Operation::RunScreeningCheck
            | Operation::CreateWebhookEndpoint => 201,
            _ => 200,
        }
    }

    /// Whether the operation's route takes an `Idempotency-Key`: every consumer write (the
    /// POST routes of `/v1`; not the token endpoint, which writes nothing a retry could
    /// repeat, and not `/mcp`, whose tool calls are no HTTP request of their own).
    pub fn takes_idempotency_key(self) -> bool {
        matches!(
            self,
            Operation::ResolveSubject
                | Operation::CreateSubscription
                | Operation::EndSubscription
                | Operation::RefreshCompany
                | Operation::RunScreeningCheck
                | Operation::CreateWebhookEndpoint
                | Operation::DisableWebhookEndpoint
                | Operation::EnableWebhookEndpoint
                | Operation::RotateWebhookSecret
        )
    }

    /// The daily limits the operation may spend (Limits 1-3 of the interface): the paid tier
    /// and refresh spend paid calls, a person read (and a screening check of a person
    /// subject, which reads the person first) spends a person lookup. Its answers state the
    /// caller's standing against exactly these.
    pub fn metered_by(self) -> &'static [Limit] {
        match self {
            Operation::GetBeneficialOwners
            | Operation::GetOfficers
            | Operation::GetSignatories
            | Operation::GetPersonEngagements
            | Operation::RefreshCompany => &[Limit::PaidCalls],
            Operation::GetPerson | Operation::RunScreeningCheck => &[Limit::PersonLookups],
            _ => &[],
        }
    }

    /// Every error code the operation may answer, in the code table's order: what the guard
    /// refuses a bearer with, what the operation's scopes and country rule refuse with, and
    /// what its own work fails with. The interface documents (`contract/openapi.json`) list
    /// exactly these, so a rule added to a use case shows in the contract once it is here.
    pub fn errors(self) -> Vec<ErrorCode> {
        use ErrorCode::*;
        // Every operation reads or writes the service's storage (at least the guard and the
        // audit trail): while it cannot be reached, the answer is 503 `upstream_unavailable`
        // with `Retry-After`.
        let mut codes = vec![InternalError, UpstreamUnavailable];
        if self != Operation::IssueToken {
            // The guard: a missing or dead token, a tenant not yet activated.
            codes.extend([Unauthorized, TenantPending]);
        }
        if !self.scopes().is_empty() {
            codes.push(Forbidden);
        }
        if matches!(
            self,
            Operation::ResolveSubject
                | Operation::GetCompany
                | Operation::GetDocument
                | Operation::GetBeneficialOwners
                | Operation::GetOfficers
                | Operation::GetSignatories
                | Operation::RefreshCompany
        ) {
            // The identifier or the route names a country.
            codes.extend([CountryNotGranted, CountryNotProvisioned]);
        }
        if self.takes_idempotency_key() {
            // A malformed key (400), a key used for another request (422), a key whose first
            // request is still running (409).
            codes.extend([BadRequest, IdempotencyKeyReused, IdempotencyKeyInUse]);
        }
        codes.extend_from_slice(match self {
            Operation::IssueToken => &[BadRequest, InvalidTarget, InvalidScope, InvalidClient],
            Operation::ResolveSubject => &[BadRequest, InvalidIdentifier, RefConflict],
            Operation::GetSubject => &[NotFound],
            Operation::GetCompany => &[
                InvalidIdentifier,
                NotFound,
                CountryNotSupported,
                UpstreamUnavailable,
            ],
            Operation::GetDocument => &[NotFound, CountryNotSupported, UpstreamUnavailable],
            // The paid tier: metered against the daily budget; a disabled tier answers
            // `country_not_supported` (the resource is not served by this deployment).
            Operation::GetBeneficialOwners | Operation::GetOfficers | Operation::GetSignatories => {
                &[
                    InvalidIdentifier,
                    NotFound,
                    BudgetExceeded,
                    CountryNotSupported,
                    UpstreamUnavailable,
                ]
            }
            // A ref is an opaque id: one outside the grant's countries is 404, like any read
            // by id.
            Operation::GetPersonEngagements => &[
                InvalidIdentifier,
                NotFound,
                BudgetExceeded,
                CountryNotSupported,
                UpstreamUnavailable,
            ],
            // The permit gate, then the person-lookup ceiling; never served stale, so a
            // register that cannot answer is 503 whatever is cached.
            Operation::GetPerson => &[
                InvalidIdentifier,
                NotFound,
                PersonregPermitRequired,
                PersonregPermitSuspended,
                BudgetExceeded,
                CountryNotSupported,
                UpstreamUnavailable,
            ],
            Operation::ListEvents => &[BadRequest, InvalidCursor],
            // Always a metered re-fetch: a spent budget is 429 (never a cached answer).
            Operation::RefreshCompany => &[
                InvalidIdentifier,
                NotFound,
                BudgetExceeded,
                CountryNotSupported,
                UpstreamUnavailable,
            ],
            Operation::CreateSubscription => &[
                BadRequest,
                LegalBasisInvalid,
                NotFound,
                PersonregPermitRequired,
                PersonregPermitSuspended,
                SubscriptionExists,
                CountryNotSupported,
            ],
            Operation::ListSubscriptions => &[BadRequest],
            Operation::GetSubscription => &[NotFound],
            Operation::EndSubscription => &[NotFound, SubscriptionEnded],
            // The body (400s, before anything is read or stored), the orgnr's country (403),
            // a person subject's scope and permit (403) and ceiling (429), the subject (404;
            // 501 when identified only where no register is served), the register (503),
            // then the policy and the lists (503 `screening_unavailable`).
            Operation::RunScreeningCheck => &[
                BadRequest,
                InvalidIdentifier,
                NameIsIdentifier,
                CountryNotGranted,
                CountryNotProvisioned,
                NotFound,
                PersonregPermitRequired,
                PersonregPermitSuspended,
                BudgetExceeded,
                CountryNotSupported,
                UpstreamUnavailable,
                ScreeningUnavailable,
            ],
            Operation::ListScreeningChecks => &[BadRequest],
            Operation::GetScreeningCheck => &[NotFound],
            Operation::ListScreeningOverrides | Operation::ListScreeningWhitelist => &[],
            Operation::GetUsage => &[],
            Operation::CreateWebhookEndpoint => &[BadRequest, WebhookLimitReached],
            Operation::ListWebhookEndpoints => &[],
            Operation::GetWebhookEndpoint
            | Operation::DisableWebhookEndpoint
            | Operation::EnableWebhookEndpoint
            | Operation::RotateWebhookSecret => &[NotFound],
            Operation::ListWebhookDeliveries => &[BadRequest, InvalidCursor, NotFound],
            // Described by the tool list, whose tools answer their routes' errors.
            Operation::McpRequest | Operation::McpToolCall => &[],
            Operation::MonitoringRun => &[],
        });
        codes.sort_unstable();
        codes.dedup();
        codes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every consumer write of `/v1` takes an idempotency key, and nothing else does.
    #[test]
    fn the_writes_of_v1_take_an_idempotency_key() {
        for op in Operation::ROUTED {
            assert_eq!(
                op.takes_idempotency_key(),
                op.method() == "POST" && op.route_template().starts_with("/v1/"),
                "{op:?}"
            );
        }
    }

    /// An operation states its standing against exactly the limits that can refuse it
    /// with 429: metered means it may answer `budget_exceeded`, and the other way round.
    #[test]
    fn the_metered_operations_are_those_a_spent_limit_refuses() {
        for op in Operation::ROUTED {
            assert_eq!(
                !op.metered_by().is_empty(),
                op.errors().contains(&ErrorCode::BudgetExceeded),
                "{op:?}"
            );
        }
        assert_eq!(Operation::GetOfficers.metered_by(), &[Limit::PaidCalls]);
        assert_eq!(Operation::GetPerson.metered_by(), &[Limit::PersonLookups]);
        assert!(Operation::GetUsage.metered_by().is_empty());
        assert!(Operation::GetUsage.scopes().is_empty());
    }

    #[test]
    fn what_the_gate_and_the_scopes_refuse_with_is_listed() {
        for op in Operation::ROUTED {
            let errors = op.errors();
            assert!(errors.contains(&ErrorCode::InternalError), "{op:?}");
            assert_eq!(
                errors.contains(&ErrorCode::Forbidden),
                !op.scopes().is_empty(),
                "{op:?}"
            );
            assert_eq!(
                errors.contains(&ErrorCode::Unauthorized),
                op != Operation::IssueToken,
                "{op:?}"
            );
            let mut sorted = errors.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(errors, sorted, "{op:?}: in table order, once each");
        }
    }

    #[test]
    fn a_tool_is_listed_for_scopes_that_open_its_operation_whole() {
        for op in Operation::ROUTED {
            let listing: Vec<Scope> = op.listing_scopes().collect();
            // Listed only for scopes that open it: never for one the use case refuses.
            assert!(listing.iter().all(|s| op.scopes().contains(s)), "{op:?}");
            // An operation that needs a scope is listed for at least one.
            assert_eq!(listing.is_empty(), op.scopes().is_empty(), "{op:?}");
        }
        // The subscription reads: opened for their own kind by `kyb:read` and `kyc:read`,
        // listed for the monitoring scopes only.
        for op in [Operation::ListSubscriptions, Operation::GetSubscription] {
            assert_eq!(
                op.listing_scopes().collect::<Vec<_>>(),
                [Scope::MonitoringRead, Scope::MonitoringSubscribe]
            );
        }
        let held = |s: Scope| -> ScopeSet { [s].into_iter().collect() };
        assert!(Operation::GetCompany.listed_for(&held(Scope::KybRead)));
        assert!(!Operation::GetCompany.listed_for(&held(Scope::KycRead)));
        assert!(!Operation::GetSubscription.listed_for(&held(Scope::KybRead)));
        assert!(Operation::GetSubscription.listed_for(&held(Scope::MonitoringRead)));
        assert!(Operation::McpRequest.listed_for(&ScopeSet::new()));
    }

    #[test]
    fn the_company_route_answers_its_country_and_upstream_failures() {
        use ErrorCode::*;
        assert_eq!(
            Operation::GetCompany.errors(),
            vec![
                InvalidIdentifier,
                Unauthorized,
                Forbidden,
                CountryNotGranted,
                CountryNotProvisioned,
                TenantPending,
                NotFound,
                InternalError,
                CountryNotSupported,
                UpstreamUnavailable,
            ]
        );
        assert_eq!(
            Operation::IssueToken.errors(),
            vec![
                BadRequest,
                InvalidTarget,
                InvalidScope,
                InvalidClient,
                InternalError,
                UpstreamUnavailable
            ]
        );
        // A storage outage can reach every operation.
        assert!(Operation::ListEvents
            .errors()
            .contains(&UpstreamUnavailable));
    }
}
