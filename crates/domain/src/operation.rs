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

/// What the interface says of one operation, written once in the table below: the one
/// source its method, route, scopes, status, idempotency, limits and errors are read from
/// (the REST routes and the OpenAPI document, the MCP tool list, the gate and the use cases,
/// the audit rows).
struct Row {
    method: &'static str,
    /// The REST route template, what audit rows record (never the identifiers a request
    /// carried).
    route: &'static str,
    /// The scopes that open it ([`Operation::scopes`]).
    scopes: &'static [Scope],
    /// The status of a successful answer.
    status: u16,
    /// Whether its route takes an `Idempotency-Key` ([`Operation::takes_idempotency_key`]).
    idempotency_key: bool,
    /// The daily limits it may spend ([`Operation::metered_by`]).
    metered_by: &'static [Limit],
    /// Whether the identifier or the route names a country, which the grant must hold and
    /// the tenant have provisioned.
    names_country: bool,
    /// What its own work fails with, beside what every operation of its kind answers
    /// ([`Operation::errors`]).
    own_errors: &'static [ErrorCode],
}

/// The operations: the enum, [`Operation::ALL`] and each one's [`Row`], from one table.
macro_rules! operations {
    ($($(#[$doc:meta])* $op:ident => $row:expr,)*) => {
        /// One operation of the interface.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum Operation {
            $($(#[$doc])* $op,)*
        }

        impl Operation {
            /// Every operation, in the table's order.
            pub const ALL: [Operation; [$(Operation::$op,)*].len()] = [$(Operation::$op,)*];

            const fn row(self) -> &'static Row {
                match self {
                    $(Operation::$op => {
                        const ROW: Row = $row;
                        &ROW
                    })*
                }
            }
        }
    };
}

use ErrorCode::*;
use Limit::*;
use Scope::*;

/// A row of the table: most operations need no key, spend no limit and answer 200.
const fn row(method: &'static str, route: &'static str, scopes: &'static [Scope]) -> Row {
    Row {
        method,
        route,
        scopes,
        status: 200,
        idempotency_key: false,
        metered_by: &[],
        names_country: false,
        own_errors: &[],
    }
}

/// The scopes that open the subscription reads: the monitoring scopes whole, `kyb:read` and
/// `kyc:read` for their own kind (the use case filters, [`Operation::opens_in_part`]).
const SUBSCRIPTION_READERS: &[Scope] = &[MonitoringRead, MonitoringSubscribe, KybRead, KycRead];
/// `screening:run` also opens the screening reads.
const SCREENING_READERS: &[Scope] = &[ScreeningRead, ScreeningRun];
/// The policy's own scope reads what the policy is made of too.
const SCREENING_POLICY_READERS: &[Scope] = &[ScreeningRead, ScreeningRun, ScreeningPolicy];
/// The paid tier: metered against the daily budget; a disabled tier answers
/// `country_not_supported` (the resource is not served by this deployment).
const PAID_ERRORS: &[ErrorCode] = &[
    InvalidIdentifier,
    NotFound,
    BudgetExceeded,
    CountryNotSupported,
    UpstreamUnavailable,
];

operations! {
    // Open to every admitted caller: the token endpoint authenticates by credentials.
    IssueToken => Row {
        own_errors: &[BadRequest, InvalidTarget, InvalidScope, InvalidClient],
        ..row("POST", "/oauth/token", &[])
    },
    ResolveSubject => Row {
        idempotency_key: true,
        names_country: true,
        own_errors: &[BadRequest, InvalidIdentifier, RefConflict],
        ..row("POST", "/v1/subjects/resolve", &[KybRead, KycRead])
    },
    GetSubject => Row {
        own_errors: &[NotFound],
        ..row("GET", "/v1/subjects/{id}", &[KybRead])
    },
    GetCompany => Row {
        names_country: true,
        own_errors: &[InvalidIdentifier, NotFound, CountryNotSupported, UpstreamUnavailable],
        ..row("GET", "/v1/companies/{orgnr}", &[KybRead])
    },
    GetDocument => Row {
        names_country: true,
        own_errors: &[NotFound, CountryNotSupported, UpstreamUnavailable],
        ..row("GET", "/v1/documents/{id}", &[KybRead])
    },
    /// The paid tier: `GET /v1/companies/{orgnr}/beneficial-owners`.
    GetBeneficialOwners => Row {
        metered_by: &[PaidCalls],
        names_country: true,
        own_errors: PAID_ERRORS,
        ..row("GET", "/v1/companies/{orgnr}/beneficial-owners", &[KybRead])
    },
    /// The paid tier: `GET /v1/companies/{orgnr}/officers`.
    GetOfficers => Row {
        metered_by: &[PaidCalls],
        names_country: true,
        own_errors: PAID_ERRORS,
        ..row("GET", "/v1/companies/{orgnr}/officers", &[KybRead])
    },
    /// The paid tier: `GET /v1/companies/{orgnr}/signatories` (the officers object).
    GetSignatories => Row {
        metered_by: &[PaidCalls],
        names_country: true,
        own_errors: PAID_ERRORS,
        ..row("GET", "/v1/companies/{orgnr}/signatories", &[KybRead])
    },
    /// The paid tier: `GET /v1/persons/{ref}/engagements`. A ref is an opaque id: one
    /// outside the grant's countries is 404, like any read by id.
    GetPersonEngagements => Row {
        metered_by: &[PaidCalls],
        own_errors: PAID_ERRORS,
        ..row("GET", "/v1/persons/{ref}/engagements", &[KybRead])
    },
    /// The population register: `GET /v1/persons/{ref}` (permit-gated, metered against the
    /// person-lookup ceiling, never stale). `kyc:read` is necessary, never sufficient: the
    /// tenant's permit gates it too; never served stale, so a register that cannot answer
    /// is 503 whatever is cached.
    GetPerson => Row {
        metered_by: &[PersonLookups],
        own_errors: &[
            InvalidIdentifier,
            NotFound,
            PersonregPermitRequired,
            PersonregPermitSuspended,
            BudgetExceeded,
            CountryNotSupported,
            UpstreamUnavailable,
        ],
        ..row("GET", "/v1/persons/{ref}", &[KycRead])
    },
    /// `GET /v1/events`: a page of the tenant's event log.
    ListEvents => Row {
        own_errors: &[BadRequest, InvalidCursor],
        ..row("GET", "/v1/events", &[EventsRead])
    },
    /// `POST /v1/companies/{orgnr}/refresh`: a forced, metered re-fetch (`kyb:refresh` only;
    /// `kyb:read` no longer opens it, 1.6.0). A spent budget is 429, never a cached answer.
    RefreshCompany => Row {
        idempotency_key: true,
        metered_by: &[PaidCalls],
        names_country: true,
        own_errors: &[
            InvalidIdentifier,
            NotFound,
            BudgetExceeded,
            CountryNotSupported,
            UpstreamUnavailable,
        ],
        ..row("POST", "/v1/companies/{orgnr}/refresh", &[KybRefresh])
    },
    /// `POST /v1/subscriptions` (answers 201).
    CreateSubscription => Row {
        status: 201,
        idempotency_key: true,
        own_errors: &[
            BadRequest,
            LegalBasisInvalid,
            NotFound,
            PersonregPermitRequired,
            PersonregPermitSuspended,
            SubscriptionExists,
            CountryNotSupported,
        ],
        ..row("POST", "/v1/subscriptions", &[MonitoringSubscribe])
    },
    /// `GET /v1/subscriptions`.
    ListSubscriptions => Row {
        own_errors: &[BadRequest],
        ..row("GET", "/v1/subscriptions", SUBSCRIPTION_READERS)
    },
    /// `GET /v1/subscriptions/{id}`.
    GetSubscription => Row {
        own_errors: &[NotFound],
        ..row("GET", "/v1/subscriptions/{id}", SUBSCRIPTION_READERS)
    },
    /// `POST /v1/subscriptions/{id}/end`.
    EndSubscription => Row {
        idempotency_key: true,
        own_errors: &[NotFound, SubscriptionEnded],
        ..row("POST", "/v1/subscriptions/{id}/end", &[MonitoringSubscribe])
    },
    /// `POST /v1/screening/checks` (answers 201). `kyc:read` is needed besides when the
    /// subject is a person (the use case checks). Its errors: the body (400s, before anything
    /// is read or stored), the orgnr's country (403), a person subject's scope and permit
    /// (403) and ceiling (429), the subject (404; 501 when identified only where no register
    /// is served), the register (503), then the policy and the lists (503
    /// `screening_unavailable`).
    RunScreeningCheck => Row {
        status: 201,
        idempotency_key: true,
        metered_by: &[PersonLookups],
        own_errors: &[
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
        ..row("POST", "/v1/screening/checks", &[ScreeningRun])
    },
    /// `GET /v1/screening/checks`.
    ListScreeningChecks => Row {
        own_errors: &[BadRequest],
        ..row("GET", "/v1/screening/checks", SCREENING_READERS)
    },
    /// `GET /v1/screening/checks/{id}`.
    GetScreeningCheck => Row {
        own_errors: &[NotFound],
        ..row("GET", "/v1/screening/checks/{id}", SCREENING_READERS)
    },
    /// `GET /v1/screening/overrides`: the tenant's policy override versions.
    ListScreeningOverrides => row("GET", "/v1/screening/overrides", SCREENING_POLICY_READERS),
    /// `GET /v1/screening/whitelist`: the tenant's whitelist entries.
    ListScreeningWhitelist => row("GET", "/v1/screening/whitelist", SCREENING_POLICY_READERS),
    /// `GET /v1/usage`: the tenant's standing against its daily limits (free, any scope: a
    /// tenant's own limits name no subject).
    GetUsage => row("GET", "/v1/usage", &[]),
    /// `POST /v1/webhooks` (answers 201, the secret shown once). A webhook pushes the log
    /// its grant reads anyway: the same scope opens the webhook routes.
    CreateWebhookEndpoint => Row {
        status: 201,
        idempotency_key: true,
        own_errors: &[BadRequest, WebhookLimitReached],
        ..row("POST", "/v1/webhooks", &[EventsRead])
    },
    /// `GET /v1/webhooks`: the grant's endpoints.
    ListWebhookEndpoints => row("GET", "/v1/webhooks", &[EventsRead]),
    /// `GET /v1/webhooks/{id}`.
    GetWebhookEndpoint => Row {
        own_errors: &[NotFound],
        ..row("GET", "/v1/webhooks/{id}", &[EventsRead])
    },
    /// `POST /v1/webhooks/{id}/disable`.
    DisableWebhookEndpoint => Row {
        idempotency_key: true,
        own_errors: &[NotFound],
        ..row("POST", "/v1/webhooks/{id}/disable", &[EventsRead])
    },
    /// `POST /v1/webhooks/{id}/enable`: resumes at the endpoint's cursor.
    EnableWebhookEndpoint => Row {
        idempotency_key: true,
        own_errors: &[NotFound],
        ..row("POST", "/v1/webhooks/{id}/enable", &[EventsRead])
    },
    /// `POST /v1/webhooks/{id}/rotate-secret` (the new secret shown once).
    RotateWebhookSecret => Row {
        idempotency_key: true,
        own_errors: &[NotFound],
        ..row("POST", "/v1/webhooks/{id}/rotate-secret", &[EventsRead])
    },
    /// `GET /v1/webhooks/{id}/deliveries`: the endpoint's delivery log.
    ListWebhookDeliveries => Row {
        own_errors: &[BadRequest, InvalidCursor, NotFound],
        ..row("GET", "/v1/webhooks/{id}/deliveries", &[EventsRead])
    },
    /// A `POST /mcp` message other than `tools/call` (`initialize`, `tools/list`, `ping`,
    /// ...). Its errors are described by the tool list, whose tools answer their routes'.
    McpRequest => row("POST", "/mcp", &[]),
    /// A call of `POST /mcp` `tools/call`; the tool's own route invocations are audited too.
    McpToolCall => row("POST", "/mcp", &[]),
    /// Scheduled monitoring's reading of a subscription's subject: no route, no consumer (the
    /// scheduler's own principal runs it); its name files the upstream calls it makes. Last
    /// in the table: every operation before it is reached by a route.
    MonitoringRun => row("RUN", "scheduler:monitoring", &[]),
}

impl Operation {
    /// Every operation a request reaches by a route (all but scheduled monitoring's run, the
    /// table's last).
    pub const ROUTED: [Operation; Operation::ALL.len() - 1] = {
        let mut routed = [Operation::IssueToken; Operation::ALL.len() - 1];
        let mut i = 0;
        while i < routed.len() {
            routed[i] = Operation::ALL[i];
            i += 1;
        }
        routed
    };

    pub fn method(self) -> &'static str {
        self.row().method
    }

    pub fn route_template(self) -> &'static str {
        self.row().route
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
        self.row().scopes
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
        self.row().status
    }

    /// Whether the operation's route takes an `Idempotency-Key`: every consumer write (the
    /// POST routes of `/v1`; not the token endpoint, which writes nothing a retry could
    /// repeat, and not `/mcp`, whose tool calls are no HTTP request of their own).
    pub fn takes_idempotency_key(self) -> bool {
        self.row().idempotency_key
    }

    /// The daily limits the operation may spend (Limits 1-3 of the interface): the paid tier
    /// and refresh spend paid calls, a person read (and a screening check of a person
    /// subject, which reads the person first) spends a person lookup. Its answers state the
    /// caller's standing against exactly these.
    pub fn metered_by(self) -> &'static [Limit] {
        self.row().metered_by
    }

    /// Every error code the operation may answer, in the code table's order: what the guard
    /// refuses a bearer with, what the operation's scopes and country rule refuse with, and
    /// what its own work fails with. The interface documents (`contract/openapi.json`) list
    /// exactly these, so a rule added to a use case shows in the contract once it is here.
    pub fn errors(self) -> Vec<ErrorCode> {
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
        if self.row().names_country {
            // The identifier or the route names a country.
            codes.extend([CountryNotGranted, CountryNotProvisioned]);
        }
        if self.takes_idempotency_key() {
            // A malformed key (400), a key used for another request (422), a key whose first
            // request is still running (409).
            codes.extend([BadRequest, IdempotencyKeyReused, IdempotencyKeyInUse]);
        }
        codes.extend_from_slice(self.row().own_errors);
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
