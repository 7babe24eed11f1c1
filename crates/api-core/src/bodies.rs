//! The response body of each operation, built by one function per operation: it calls the
//! use case and serialises the wire type. The REST handlers send it; the MCP tools put the
//! very same text into `content[1]`, so the two surfaces answer byte for byte alike.
//!
//! A function takes what its operation reads, typed: path and query values as text, and a
//! body as the domain's request (`ResolveRequest`, `SubscribeRequest`, `CheckRequest`), which
//! the REST route reads from its JSON body and the MCP tool from its arguments.

use crate::dto::screening::{
    OverrideVersionDto, OverrideVersionListDto, ScreeningCheckDto, ScreeningCheckListDto,
    WhitelistDto, WhitelistEntryDto,
};
use crate::dto::{
    BeneficialOwnersDto, CompanyProfileDto, DocumentDto, EngagementsDto, Envelope, EventPageDto,
    OfficersDto, PersonProfileDto, RefreshDto, ResolveResponse, SubjectResponse, SubscriptionDto,
    SubscriptionListDto,
};
use domain::access::caller::Caller;
use domain::monitoring::subscription::SubscribeRequest;
use domain::operation::Operation;
use domain::screening::check::CheckRequest;
use domain::services::Services;
use domain::subjects::subject::ResolveRequest;
use domain::Failure;
use serde::Serialize;

/// A serialised JSON response body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Body(pub String);

impl Body {
    pub fn of<T: Serialize>(value: &T) -> Result<Body, Failure> {
        serde_json::to_string(value)
            .map(Body)
            .map_err(Failure::internal)
    }
}

/// `POST /v1/subjects/resolve`.
pub async fn resolve_subject(
    services: &Services,
    caller: &Caller,
    request: ResolveRequest,
) -> Result<Body, Failure> {
    Ok(resolve(services, caller, request).await?.body)
}

/// A resolve body together with the `identifier_ref` it names, for a tool that reads on by
/// that ref (`lookup_person`).
pub struct Resolved {
    pub body: Body,
    pub identifier_ref: String,
}

async fn resolve(
    services: &Services,
    caller: &Caller,
    request: ResolveRequest,
) -> Result<Resolved, Failure> {
    let resolution = services.subjects.resolve(caller, request).await?;
    let response = ResolveResponse::from(&resolution);
    Ok(Resolved {
        body: Body::of(&response)?,
        identifier_ref: response.identifier_ref,
    })
}

/// `GET /v1/subjects/{id}`.
pub async fn get_subject(services: &Services, caller: &Caller, id: &str) -> Result<Body, Failure> {
    let record = services.subjects.get(caller, id).await?;
    Body::of(&SubjectResponse::new(&caller.tenant, &record))
}

/// `GET /v1/companies/{orgnr}`.
pub async fn company_profile(
    services: &Services,
    caller: &Caller,
    orgnr: &str,
) -> Result<Body, Failure> {
    let served = services.companies.profile(caller, orgnr).await?;
    Body::of(&Envelope {
        stale: served.stale,
        data: CompanyProfileDto::new(&caller.tenant, &served),
    })
}

/// `GET /v1/documents/{id}`.
pub async fn document(services: &Services, caller: &Caller, id: &str) -> Result<Body, Failure> {
    let served = services.companies.document(caller, id).await?;
    Body::of(&Envelope {
        stale: false,
        data: DocumentDto::new(&caller.tenant, &served),
    })
}

/// `GET /v1/companies/{orgnr}/officers` and `/signatories` (the same object; `op` names the
/// route for its audit row).
pub async fn officers(
    services: &Services,
    caller: &Caller,
    op: Operation,
    orgnr: &str,
) -> Result<Body, Failure> {
    let served = services.paid.officers(caller, op, orgnr).await?;
    Body::of(&Envelope {
        stale: served.stale,
        data: OfficersDto::new(&caller.tenant, &served)?,
    })
}

/// `GET /v1/companies/{orgnr}/beneficial-owners`.
pub async fn beneficial_owners(
    services: &Services,
    caller: &Caller,
    orgnr: &str,
) -> Result<Body, Failure> {
    let served = services.paid.beneficial_owners(caller, orgnr).await?;
    Body::of(&Envelope {
        stale: served.stale,
        data: BeneficialOwnersDto::new(&caller.tenant, &served)?,
    })
}

/// `GET /v1/persons/{ref}/engagements`.
pub async fn person_engagements(
    services: &Services,
    caller: &Caller,
    person_ref: &str,
) -> Result<Body, Failure> {
    let served = services.paid.engagements(caller, person_ref).await?;
    Body::of(&Envelope {
        stale: served.stale,
        data: EngagementsDto::new(&caller.tenant, &served)?,
    })
}

/// `GET /v1/persons/{ref}`: never stale.
pub async fn person_profile(
    services: &Services,
    caller: &Caller,
    person_ref: &str,
) -> Result<Body, Failure> {
    let served = services.persons.profile(caller, person_ref).await?;
    Body::of(&Envelope {
        stale: false,
        data: PersonProfileDto::new(&caller.tenant, &served),
    })
}

/// The resolve step of `lookup_person`: the person gate first (scope, a person's number,
/// country, a served country, the permit), so nothing is resolved or stored for a lookup
/// that would be refused; then the resolve, as `POST /v1/subjects/resolve` answers it.
pub async fn resolve_person(
    services: &Services,
    caller: &Caller,
    request: ResolveRequest,
) -> Result<Resolved, Failure> {
    services
        .persons
        .admit_lookup(caller, &request.id_type, &request.value)?;
    resolve(services, caller, request).await
}

/// `GET /v1/events` (`list_events`), or with the change types preselected (`list_changes`).
pub async fn events(
    services: &Services,
    caller: &Caller,
    request: &domain::monitoring::event_service::EventsRequest,
    changes_only: bool,
) -> Result<Body, Failure> {
    let page = if changes_only {
        services.events.changes(caller, request).await?
    } else {
        services.events.page(caller, request).await?
    };
    Body::of(&EventPageDto::new(&caller.tenant, &page))
}

/// `POST /v1/subscriptions` (201).
pub async fn create_subscription(
    services: &Services,
    caller: &Caller,
    request: SubscribeRequest,
) -> Result<Body, Failure> {
    let s = services.subscriptions.create(caller, request).await?;
    Body::of(&SubscriptionDto::new(&caller.tenant_id, &s))
}

/// `GET /v1/subscriptions`.
pub async fn list_subscriptions(
    services: &Services,
    caller: &Caller,
    request: &domain::monitoring::subscription::SubscriptionsRequest,
) -> Result<Body, Failure> {
    let list = services.subscriptions.list(caller, request).await?;
    Body::of(&SubscriptionListDto {
        subscriptions: list
            .iter()
            .map(|s| SubscriptionDto::new(&caller.tenant_id, s))
            .collect(),
    })
}

/// `GET /v1/subscriptions/{id}`.
pub async fn get_subscription(
    services: &Services,
    caller: &Caller,
    id: &str,
) -> Result<Body, Failure> {
    let s = services.subscriptions.get(caller, id).await?;
    Body::of(&SubscriptionDto::new(&caller.tenant_id, &s))
}

/// `POST /v1/subscriptions/{id}/end`.
pub async fn end_subscription(
    services: &Services,
    caller: &Caller,
    id: &str,
) -> Result<Body, Failure> {
    let s = services.subscriptions.end(caller, id).await?;
    Body::of(&SubscriptionDto::new(&caller.tenant_id, &s))
}

/// `POST /v1/companies/{orgnr}/refresh`.
pub async fn refresh_company(
    services: &Services,
    caller: &Caller,
    orgnr: &str,
) -> Result<Body, Failure> {
    let refreshed = services.refresh.refresh(caller, orgnr).await?;
    let served = domain::companies::profile::ServedProfile {
        stale: false,
        subject: refreshed.subject,
        profile: refreshed.profile,
    };
    Body::of(&RefreshDto {
        stale: false,
        data: CompanyProfileDto::new(&caller.tenant, &served),
        events_emitted: refreshed.events_emitted,
    })
}

/// `POST /v1/screening/checks` (201). The use case judges the request's values, a personal
/// number in `name` first of all.
pub async fn run_screening_check(
    services: &Services,
    caller: &Caller,
    request: CheckRequest,
) -> Result<Body, Failure> {
    let served = services.screening.run(caller, request).await?;
    Body::of(&ScreeningCheckDto::from(&served))
}

/// `GET /v1/screening/checks`.
pub async fn list_screening_checks(
    services: &Services,
    caller: &Caller,
    request: &domain::screening::check::ChecksRequest,
) -> Result<Body, Failure> {
    let checks = services.screening.list(caller, request).await?;
    Body::of(&ScreeningCheckListDto {
        checks: checks.iter().map(ScreeningCheckDto::from).collect(),
    })
}

/// `GET /v1/screening/checks/{id}`.
pub async fn get_screening_check(
    services: &Services,
    caller: &Caller,
    id: &str,
) -> Result<Body, Failure> {
    let served = services.screening.get(caller, id).await?;
    Body::of(&ScreeningCheckDto::from(&served))
}

/// `GET /v1/screening/overrides`.
pub async fn list_screening_overrides(
    services: &Services,
    caller: &Caller,
) -> Result<Body, Failure> {
    let versions = services.screening.overrides(caller).await?;
    Body::of(&OverrideVersionListDto {
        versions: versions.iter().map(OverrideVersionDto::from).collect(),
    })
}

/// `GET /v1/screening/whitelist`.
pub async fn list_screening_whitelist(
    services: &Services,
    caller: &Caller,
) -> Result<Body, Failure> {
    let entries = services.screening.whitelist(caller).await?;
    Body::of(&WhitelistDto {
        entries: entries.iter().map(WhitelistEntryDto::from).collect(),
    })
}

/// `GET /v1/usage`: the caller's tenant's standing against its daily limits.
pub async fn usage(services: &Services, caller: &Caller) -> Result<Body, Failure> {
    let usage = services.usage.today(caller).await?;
    Body::of(&crate::dto::usage::UsageDto::from(&usage))
}

/// The caller's standing against `limits` (those of the operations a route or tool ran),
/// read after they ran (so it counts what they spent): `None` for no limits, or when the
/// counters cannot be read (the answer then goes without its quota, never fails for it).
pub async fn quota(
    services: &Services,
    caller: &Caller,
    limits: &[domain::usage::quota::Limit],
) -> Option<Vec<domain::usage::quota::QuotaLine>> {
    if limits.is_empty() {
        return None;
    }
    match services.usage.today(caller).await {
        Ok(usage) => Some(usage.lines(limits)),
        Err(failure) => {
            tracing::warn!(code = failure.code.as_str(), "the quota could not be read");
            None
        }
    }
}

/// `POST /v1/webhooks` (201): the endpoint with its secret, shown this once.
pub async fn create_webhook(
    services: &Services,
    caller: &Caller,
    request: domain::webhooks::service::CreateEndpointRequest,
) -> Result<Body, Failure> {
    let made = services.webhooks.create(caller, request).await?;
    Body::of(&crate::dto::webhooks::WebhookEndpointWithSecretDto::from(
        &made,
    ))
}

/// `GET /v1/webhooks`.
pub async fn list_webhooks(services: &Services, caller: &Caller) -> Result<Body, Failure> {
    let endpoints = services.webhooks.list(caller).await?;
    Body::of(&crate::dto::webhooks::WebhookEndpointListDto {
        endpoints: endpoints.iter().map(Into::into).collect(),
    })
}

/// `GET /v1/webhooks/{id}`.
pub async fn get_webhook(services: &Services, caller: &Caller, id: &str) -> Result<Body, Failure> {
    let e = services.webhooks.get(caller, id).await?;
    Body::of(&crate::dto::webhooks::WebhookEndpointDto::from(&e))
}

/// `POST /v1/webhooks/{id}/disable`.
pub async fn disable_webhook(
    services: &Services,
    caller: &Caller,
    id: &str,
) -> Result<Body, Failure> {
    let e = services.webhooks.disable(caller, id).await?;
    Body::of(&crate::dto::webhooks::WebhookEndpointDto::from(&e))
}

/// `POST /v1/webhooks/{id}/enable`.
pub async fn enable_webhook(
    services: &Services,
    caller: &Caller,
    id: &str,
) -> Result<Body, Failure> {
    let e = services.webhooks.enable(caller, id).await?;
    Body::of(&crate::dto::webhooks::WebhookEndpointDto::from(&e))
}

/// `POST /v1/webhooks/{id}/rotate-secret`: the endpoint with its new secret, shown once.
pub async fn rotate_webhook_secret(
    services: &Services,
    caller: &Caller,
    id: &str,
) -> Result<Body, Failure> {
    let made = services.webhooks.rotate_secret(caller, id).await?;
    Body::of(&crate::dto::webhooks::WebhookEndpointWithSecretDto::from(
        &made,
    ))
}

/// `GET /v1/webhooks/{id}/deliveries`.
pub async fn webhook_deliveries(
    services: &Services,
    caller: &Caller,
    id: &str,
    cursor: Option<&str>,
    limit: Option<&str>,
) -> Result<Body, Failure> {
    let page = services
        .webhooks
        .deliveries(caller, id, cursor, limit)
        .await?;
    Body::of(&crate::dto::webhooks::WebhookDeliveryPageDto::from(&page))
}
