//! Sanctions screening: `POST /v1/screening/checks` (201), `GET /v1/screening/checks`,
//! `GET /v1/screening/checks/{id}`, `GET /v1/screening/overrides`,
//! `GET /v1/screening/whitelist`.
//!
//! Bodies are bare objects (no `{stale, data}`): a check is a result the service computed and
//! appended, never upstream data served from a cache.

use crate::request::{self, JsonBody};
use crate::{run_route, run_write};
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::bodies;
use api_core::{ApiError, AppServices};
use domain::operation::Operation;
use domain::screening::check::ChecksRequest;

#[utoipa::path(
    post,
    summary = "Screens a subject or an ad-hoc identity against the sanctions lists and, under the tenant's policy, the PEP lists.",
    description = "Send either `subject_id` (a subject of the tenant) or an ad-hoc identity: `name`, `birth_date`, `nationalities`, `orgnr`, `country`, with at least a `name` or an `orgnr`. Every call runs the matcher again; a check is never served from a cache.\n\nOrder of checks, nothing stored unless all pass: the scope `screening:run`; the body (a `name` holding a number shaped like a Swedish personal or coordination number or a Lithuanian personal code is 400 `name_is_identifier` first, before anything is read, and the value is never echoed; a malformed `orgnr` is 400 `invalid_identifier`, one of a country the credential lacks 403); an active policy version and a loaded list (else 503 `screening_unavailable`); then a subject's identity: a person subject's name and birth date from the population register (`kyc:read` as well, and the tenant's person-register permit in force: 403; metered against the person-lookup ceiling: 429), a company subject's name and number from its profile. The check is then appended, naming every version it ran under (policy, the tenant's override, each list version, the matcher), so the same input under the same versions gives the same candidates, scores, reasons and bands.\n\nMasking: the `orgnr` screened is shown only to callers holding `kyc:read` (`identifier_masked`); on a check of a person subject the register's name and birth date are never kept or shown (`person_fields_masked`), the keyed `input_hash` stands for them. A check with an `orgnr` or of a subject is visible to grants of that country; a check on a name alone to every grant of the tenant. Candidates: best score first, at most 25, down to 0.10 below the `review` threshold; a candidate an effective whitelist entry clears stays, with `whitelisted: true`, and no longer raises the check's band.\n\nLists of two kinds: sanctions, and politically exposed persons with their family members and close associates (PEP), screened when the tenant's policy says so. Each candidate names its `list_kind`; a `pep` candidate is at most `review` (being politically exposed is not a sanction), `clear` once no office or tie counts any more, and its `reasons` and `listing.exposure` say the office or tie and when it ended.",
    path = Operation::RunScreeningCheck.route_template(),
    operation_id = "screen_subject",
    tag = "screening",
    request_body(content = crate::request::ScreeningCheckRequestBody, content_type = "application/json"),
    responses(
        (status = 201, description = "The check", body = api_core::dto::screening::ScreeningCheckDto),
    )
)]
pub async fn run(
    req: HttpRequest,
    payload: web::Payload,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    run_write(
        &req,
        payload,
        &services,
        Operation::RunScreeningCheck,
        |services, caller, raw| async move {
            let json = JsonBody::parse(&raw)?;
            bodies::run_screening_check(services, &caller, request::screening_check(&json)?).await
        },
    )
    .await
}

#[utoipa::path(
    get,
    summary = "The tenant's screening checks, newest first.",
    description = "Bounded by the credential's countries (a check on a name alone is visible to every grant of the tenant). `limit` 1 to 200 (default 50); `subject_id` keeps the checks of one subject. Inputs are masked for the reader as on the check itself.",
    path = Operation::ListScreeningChecks.route_template(),
    operation_id = "list_screening_checks",
    tag = "screening",
    params(
        ("limit" = Option<u32>, Query, description = "At most this many, 1 to 200 (default 50)"),
        ("subject_id" = Option<String>, Query, description = "Only the checks of this subject"),
    ),
    responses(
        (status = 200, description = "The checks", body = api_core::dto::screening::ScreeningCheckListDto),
    )
)]
pub async fn list(req: HttpRequest, services: AppServices) -> Result<HttpResponse, ApiError> {
    let query = req.query_string().to_owned();
    run_route(
        &req,
        &services,
        Operation::ListScreeningChecks,
        |services, caller| async move {
            let mut v = super::query_values(&query, &["limit", "subject_id"])?.into_iter();
            let request = ChecksRequest {
                limit: v.next().flatten(),
                subject_id: v.next().flatten(),
            };
            bodies::list_screening_checks(services, &caller, &request).await
        },
    )
    .await
}

#[utoipa::path(
    get,
    summary = "A screening check.",
    description = "The check as it was appended, its input masked for this reader. Reading it again gives the same bytes. 404 for an unknown id, or a check of a country outside the credential's.",
    path = Operation::GetScreeningCheck.route_template(),
    operation_id = "get_screening_check",
    tag = "screening",
    params(("id" = String, Path, description = "The check id (`chk_` + 26 characters)")),
    responses(
        (status = 200, description = "The check", body = api_core::dto::screening::ScreeningCheckDto),
    )
)]
pub async fn get(
    req: HttpRequest,
    id: web::Path<String>,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    run_route(
        &req,
        &services,
        Operation::GetScreeningCheck,
        |services, caller| async move { bodies::get_screening_check(services, &caller, &id).await },
    )
    .await
}

#[utoipa::path(
    get,
    summary = "The tenant's screening policy override versions, newest first.",
    description = "An override changes the service's policy for this tenant: the `review` and `hit` thresholds (both or neither) and any of the scorer's weights; `config` holds only what it sets. Versions are proposed, approved by another operator (four eyes) and activated outside this interface; at most one is `active`, and a check names it in `tenant_override_version_id`.",
    path = Operation::ListScreeningOverrides.route_template(),
    operation_id = "list_screening_overrides",
    tag = "screening",
    responses(
        (status = 200, description = "The override versions", body = api_core::dto::screening::OverrideVersionListDto),
    )
)]
pub async fn overrides(req: HttpRequest, services: AppServices) -> Result<HttpResponse, ApiError> {
    run_route(
        &req,
        &services,
        Operation::ListScreeningOverrides,
        |services, caller| async move { bodies::list_screening_overrides(services, &caller).await },
    )
    .await
}

#[utoipa::path(
    get,
    summary = "The tenant's screening whitelist, newest first.",
    description = "Each entry clears one list entry (`source_id`, `source_entry_id`) for one subject or one ad-hoc input (a check's `input_snapshot.input_hash`). Entries are made and approved by two different operators outside this interface, expire, and can be revoked; `effective` says whether one is in effect now.",
    path = Operation::ListScreeningWhitelist.route_template(),
    operation_id = "list_screening_whitelist",
    tag = "screening",
    responses(
        (status = 200, description = "The whitelist entries", body = api_core::dto::screening::WhitelistDto),
    )
)]
pub async fn whitelist(req: HttpRequest, services: AppServices) -> Result<HttpResponse, ApiError> {
    run_route(
        &req,
        &services,
        Operation::ListScreeningWhitelist,
        |services, caller| async move { bodies::list_screening_whitelist(services, &caller).await },
    )
    .await
}
