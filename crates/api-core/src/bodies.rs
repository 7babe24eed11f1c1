//! The response body of each operation, built by one function per operation: it calls the
//! use case and makes the wire value and its text once ([`Answer`]). The REST handlers send
//! the text; the MCP tools put the very same text into `content[1]` and read the value for
//! `structuredContent` and their summary, so the two surfaces answer byte for byte alike and
//! neither parses what the other serialised.
//!
//! A function takes what its operation reads, typed: path and query values as text, and a
//! body as the domain's request (`ResolveRequest`, `SubscribeRequest`, `CheckRequest`), which
//! the REST route reads from its JSON body and the MCP tool from its arguments.

use crate::dto::screening::{
    OverrideVersionDto, OverrideVersionListDto, ScreeningCheckDto, ScreeningCheckListDto,
    WhitelistDto, WhitelistEntryDto,
};
use crate::dto::usage::UsageDto;
use crate::dto::webhooks::{
    WebhookDeliveryPageDto, WebhookEndpointDto, WebhookEndpointListDto,
    WebhookEndpointWithSecretDto,
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

/// A serialised JSON response body: the text a surface sends (and an idempotent write keeps).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Body(pub String);

/// An operation's answer: its wire value and that value's text, serialised once. REST sends
/// the text and drops the value (built anyway to be serialised, so REST pays nothing for
/// it); MCP reads the value instead of parsing the text back.
#[derive(Clone, Debug)]
pub struct Answer<T> {
    pub value: T,
    pub body: Body,
}

impl<T: Serialize> Answer<T> {
    pub fn of(value: T) -> Result<Answer<T>, Failure> {
        let text = serde_json::to_string(&value).map_err(Failure::internal)?;
        Ok(Answer {
            value,
            body: Body(text),
        })
    }
}

impl<T> From<Answer<T>> for Body {
    fn from(answer: Answer<T>) -> Body {
        answer.body
    }
}

/// `POST /v1/subjects/resolve`.
pub async fn resolve_subject(
    services: &Services,
    caller: &Caller,
    request: ResolveRequest,
) -> Result<Answer<ResolveResponse>, Failure> {
    let resolution = services.subjects.resolve(caller, request).await?;
    Answer::of(ResolveResponse::from(&resolution))
}

/// `GET /v1/subjects/{id}`.
pub async fn get_subject(
    services: &Services,
    caller: &Caller,
    id: &str,
) -> Result<Answer<SubjectResponse>, Failure> {
    let record = services.subjects.get(caller, id).await?;
    Answer::of(SubjectResponse::new(&caller.tenant, &record))
}

/// `GET /v1/companies/{orgnr}`.
pub async fn company_profile(
    services: &Services,
    caller: &Caller,
    orgnr: &str,
) -> Result<Answer<Envelope<CompanyProfileDto>>, Failure> {
    let served = services.companies.profile(caller, orgnr).await?;
    Answer::of(Envelope {
        stale: served.stale,
        data: CompanyProfileDto::new(&caller.tenant, &served),
    })
}

/// `GET /v1/documents/{id}`.
pub async fn document(
    services: &Services,
    caller: &Caller,
    id: &str,
) -> Result<Answer<Envelope<DocumentDto>>, Failure> {
    let served = services.companies.document(caller, id).await?;
    Answer::of(Envelope {
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
) -> Result<Answer<Envelope<OfficersDto>>, Failure> {
    let served = services.paid.officers(caller, op, orgnr).await?;
    Answer::of(Envelope {
        stale: served.stale,
        data: OfficersDto::new(&caller.tenant, &served)?,
    })
}

/// `GET /v1/companies/{orgnr}/beneficial-owners`.
pub async fn beneficial_owners(
    services: &Services,
    caller: &Caller,
    orgnr: &str,
) -> Result<Answer<Envelope<BeneficialOwnersDto>>, Failure> {
    let served = services.paid.beneficial_owners(caller, orgnr).await?;
    Answer::of(Envelope {
        stale: served.stale,
        data: BeneficialOwnersDto::new(&caller.tenant, &served)?,
    })
}

/// `GET /v1/persons/{ref}/engagements`.
pub async fn person_engagements(
    services: &Services,
    caller: &Caller,
    person_ref: &str,
) -> Result<Answer<Envelope<EngagementsDto>>, Failure> {
    let served = services.paid.engagements(caller, person_ref).await?;
    Answer::of(Envelope {
        stale: served.stale,
        data: EngagementsDto::new(&caller.tenant, &served)?,
    })
}

/// `GET /v1/persons/{ref}`: never stale.
pub async fn person_profile(
    services: &Services,
    caller: &Caller,
    person_ref: &str,
) -> Result<Answer<Envelope<PersonProfileDto>>, Failure> {
    let served = services.persons.profile(caller, person_ref).await?;
    Answer::of(Envelope {
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
) -> Result<Answer<ResolveResponse>, Failure> {
    services
        .persons
        .admit_lookup(caller, &request.id_type, &request.value)?;
    resolve_subject(services, caller, request).await
}

/// `GET /v1/events` (`list_events`), or with the change types preselected (`list_changes`).
pub async fn events(
    services: &Services,
    caller: &Caller,
    request: &domain::monitoring::event_service::EventsRequest,
    changes_only: bool,
) -> Result<Answer<EventPageDto>, Failure> {
    let page = if changes_only {
        services.events.changes(caller, request).await?
    } else {
        services.events.page(caller, request).await?
    };
    Answer::of(EventPageDto::new(&caller.tenant, &page))
}

/// `POST /v1/subscriptions` (201).
pub async fn create_subscription(
    services: &Services,
    caller: &Caller,
    request: SubscribeRequest,
) -> Result<Answer<SubscriptionDto>, Failure> {
    let s = services.subscriptions.create(caller, request).await?;
    Answer::of(SubscriptionDto::new(&caller.tenant_id, &s))
}

/// `GET /v1/subscriptions`.
pub async fn list_subscriptions(
    services: &Services,
    caller: &Caller,
    request: &domain::monitoring::subscription::SubscriptionsRequest,
) -> Result<Answer<SubscriptionListDto>, Failure> {
    let list = services.subscriptions.list(caller, request).await?;
    Answer::of(SubscriptionListDto {
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
) -> Result<Answer<SubscriptionDto>, Failure> {
    let s = services.subscriptions.get(caller, id).await?;
    Answer::of(SubscriptionDto::new(&caller.tenant_id, &s))
}

/// `POST /v1/subscriptions/{id}/end`.
pub async fn end_subscription(
    services: &Services,
    caller: &Caller,
    id: &str,
) -> Result<Answer<SubscriptionDto>, Failure> {
    let s = services.subscriptions.end(caller, id).await?;
    Answer::of(SubscriptionDto::new(&caller.tenant_id, &s))
}

/// `POST /v1/companies/{orgnr}/refresh`.
pub async fn refresh_company(
    services: &Services,
    caller: &Caller,
    orgnr: &str,
) -> Result<Answer<RefreshDto>, Failure> {
    let refreshed = services.refresh.refresh(caller, orgnr).await?;
    let served = domain::companies::profile::ServedProfile {
        stale: false,
        subject: refreshed.subject,
        profile: refreshed.profile,
    };
    Answer::of(RefreshDto {
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
) -> Result<Answer<ScreeningCheckDto>, Failure> {
    let served = services.screening.run(caller, request).await?;
    Answer::of(ScreeningCheckDto::from(&served))
}

/// `GET /v1/screening/checks`.
pub async fn list_screening_checks(
    services: &Services,
    caller: &Caller,
    request: &domain::screening::check::ChecksRequest,
) -> Result<Answer<ScreeningCheckListDto>, Failure> {
    let checks = services.screening.list(caller, request).await?;
    Answer::of(ScreeningCheckListDto {
        checks: checks.iter().map(ScreeningCheckDto::from).collect(),
    })
}

/// `GET /v1/screening/checks/{id}`.
pub async fn get_screening_check(
    services: &Services,
    caller: &Caller,
    id: &str,
) -> Result<Answer<ScreeningCheckDto>, Failure> {
    let served = services.screening.get(caller, id).await?;
    Answer::of(ScreeningCheckDto::from(&served))
}

/// `GET /v1/screening/overrides`.
pub async fn list_screening_overrides(
    services: &Services,
    caller: &Caller,
) -> Result<Answer<OverrideVersionListDto>, Failure> {
    let versions = services.screening.overrides(caller).await?;
    Answer::of(OverrideVersionListDto {
        versions: versions.iter().map(OverrideVersionDto::from).collect(),
    })
}

/// `GET /v1/screening/whitelist`.
pub async fn list_screening_whitelist(
    services: &Services,
    caller: &Caller,
) -> Result<Answer<WhitelistDto>, Failure> {
    let entries = services.screening.whitelist(caller).await?;
    Answer::of(WhitelistDto {
        entries: entries.iter().map(WhitelistEntryDto::from).collect(),
    })
}

/// `GET /v1/usage`: the caller's tenant's standing against its daily limits.
pub async fn usage(services: &Services, caller: &Caller) -> Result<Answer<UsageDto>, Failure> {
    let usage = services.usage.today(caller).await?;
    Answer::of(UsageDto::from(&usage))
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
) -> Result<Answer<WebhookEndpointWithSecretDto>, Failure> {
    let made = services.webhooks.create(caller, request).await?;
    Answer::of(WebhookEndpointWithSecretDto::from(&made))
}

/// `GET /v1/webhooks`.
pub async fn list_webhooks(
    services: &Services,
    caller: &Caller,
) -> Result<Answer<WebhookEndpointListDto>, Failure> {
    let endpoints = services.webhooks.list(caller).await?;
    Answer::of(WebhookEndpointListDto {
        endpoints: endpoints.iter().map(Into::into).collect(),
    })
}

/// `GET /v1/webhooks/{id}`.
pub async fn get_webhook(
    services: &Services,
    caller: &Caller,
    id: &str,
) -> Result<Answer<WebhookEndpointDto>, Failure> {
    let e = services.webhooks.get(caller, id).await?;
    Answer::of(WebhookEndpointDto::from(&e))
}

/// `POST /v1/webhooks/{id}/disable`.
pub async fn disable_webhook(
    services: &Services,
    caller: &Caller,
    id: &str,
) -> Result<Answer<WebhookEndpointDto>, Failure> {
    let e = services.webhooks.disable(caller, id).await?;
    Answer::of(WebhookEndpointDto::from(&e))
}

/// `POST /v1/webhooks/{id}/enable`.
pub async fn enable_webhook(
    services: &Services,
    caller: &Caller,
    id: &str,
) -> Result<Answer<WebhookEndpointDto>, Failure> {
    let e = services.webhooks.enable(caller, id).await?;
    Answer::of(WebhookEndpointDto::from(&e))
}

/// `POST /v1/webhooks/{id}/rotate-secret`: the endpoint with its new secret, shown once.
pub async fn rotate_webhook_secret(
    services: &Services,
    caller: &Caller,
    id: &str,
) -> Result<Answer<WebhookEndpointWithSecretDto>, Failure> {
    let made = services.webhooks.rotate_secret(caller, id).await?;
    Answer::of(WebhookEndpointWithSecretDto::from(&made))
}

/// `GET /v1/webhooks/{id}/deliveries`.
pub async fn webhook_deliveries(
    services: &Services,
    caller: &Caller,
    id: &str,
    cursor: Option<&str>,
    limit: Option<&str>,
) -> Result<Answer<WebhookDeliveryPageDto>, Failure> {
    let page = services
        .webhooks
        .deliveries(caller, id, cursor, limit)
        .await?;
    Answer::of(WebhookDeliveryPageDto::from(&page))
}
