//! The paid company-registry tier: `GET /v1/companies/{orgnr}/beneficial-owners`,
//! `/officers`, `/signatories`, and `GET /v1/persons/{ref}/engagements`.
//!
//! Each paid call is metered against the tenant's daily paid-call budget; when it is spent,
//! a cached value is served with `stale: true`, otherwise 429 `budget_exceeded`. A
//! deployment without the tier answers 501 `country_not_supported` and calls nothing.

use crate::run_route;
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::bodies;
use api_core::{ApiError, AppServices};
use domain::operation::Operation;

#[utoipa::path(
    get,
    summary = "Officers and the signatory rule of a company.",
    description = "Officers (one entry per role) with the tenant's `personal_number_ref` for each person, and the signatory rule as text. Paid tier (provisional field shapes). Metered against the tenant's daily paid-call budget (a calendar day in Europe/Stockholm): past the revalidation window a paid call is made if the budget allows; when it is spent the cached value is served with `stale: true`, else 429 `budget_exceeded`. A deployment without the paid tier answers 501 `country_not_supported`.",
    path = Operation::GetOfficers.route_template(),
    operation_id = "get_officers",
    tag = "companies",
    params(("orgnr" = String, Path, description = "The company's code in wire form (as for the company profile)", example = "556002-1361")),
    responses(
        (status = 200, description = "Officers and signatory rule", body = api_core::dto::Envelope<api_core::dto::OfficersDto>),
    )
)]
pub async fn officers(
    req: HttpRequest,
    orgnr: web::Path<String>,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    run_route(
        &req,
        &services,
        Operation::GetOfficers,
        |services, caller| async move {
            bodies::officers(services, &caller, Operation::GetOfficers, &orgnr).await
        },
    )
    .await
}

#[utoipa::path(
    get,
    summary = "The signatory rule of a company (the same object as the officers route).",
    description = "Paid tier (provisional field shapes). Metered against the tenant's daily paid-call budget (a calendar day in Europe/Stockholm): past the revalidation window a paid call is made if the budget allows; when it is spent the cached value is served with `stale: true`, else 429 `budget_exceeded`. A deployment without the paid tier answers 501 `country_not_supported`.",
    path = Operation::GetSignatories.route_template(),
    operation_id = "get_signatories",
    tag = "companies",
    params(("orgnr" = String, Path, description = "The company's code in wire form (as for the company profile)", example = "556002-1361")),
    responses(
        (status = 200, description = "Officers and signatory rule", body = api_core::dto::Envelope<api_core::dto::OfficersDto>),
    )
)]
pub async fn signatories(
    req: HttpRequest,
    orgnr: web::Path<String>,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    run_route(
        &req,
        &services,
        Operation::GetSignatories,
        |services, caller| async move {
            bodies::officers(services, &caller, Operation::GetSignatories, &orgnr).await
        },
    )
    .await
}

#[utoipa::path(
    get,
    summary = "The beneficial owners of a company.",
    description = "Owners with the tenant's `personal_number_ref` for each person, how control is held and the share band; `no_ubo_reported` when the company reported none. Paid tier (provisional field shapes). Metered against the tenant's daily paid-call budget (a calendar day in Europe/Stockholm): past the revalidation window a paid call is made if the budget allows; when it is spent the cached value is served with `stale: true`, else 429 `budget_exceeded`. A deployment without the paid tier answers 501 `country_not_supported`.",
    path = Operation::GetBeneficialOwners.route_template(),
    operation_id = "get_beneficial_owners",
    tag = "companies",
    params(("orgnr" = String, Path, description = "The company's code in wire form (as for the company profile)", example = "556002-1361")),
    responses(
        (status = 200, description = "Beneficial owners", body = api_core::dto::Envelope<api_core::dto::BeneficialOwnersDto>),
    )
)]
pub async fn beneficial_owners(
    req: HttpRequest,
    orgnr: web::Path<String>,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    run_route(
        &req,
        &services,
        Operation::GetBeneficialOwners,
        |services, caller| async move {
            bodies::beneficial_owners(services, &caller, &orgnr).await
        },
    )
    .await
}

#[utoipa::path(
    get,
    summary = "The companies in which a person holds a role.",
    description = "`{ref}` is an `identifier_ref` of a person subject of this tenant (from a resolve, or an officer's or owner's `personal_number_ref`). An unknown ref, a company's ref, or one outside the credential's countries is 404. Paid tier (provisional field shapes). Metered against the tenant's daily paid-call budget (a calendar day in Europe/Stockholm): each page of the registry's answer is one paid call; when the budget is spent the cached value is served with `stale: true`, else 429 `budget_exceeded`. A deployment without the paid tier answers 501 `country_not_supported`.",
    path = Operation::GetPersonEngagements.route_template(),
    operation_id = "get_person_engagements",
    tag = "persons",
    params(("ref" = String, Path, description = "An `identifier_ref` of a person subject (`idr_` + 26 characters)")),
    responses(
        (status = 200, description = "The person's engagements", body = api_core::dto::Envelope<api_core::dto::EngagementsDto>),
    )
)]
pub async fn person_engagements(
    req: HttpRequest,
    person_ref: web::Path<String>,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    run_route(
        &req,
        &services,
        Operation::GetPersonEngagements,
        |services, caller| async move {
            bodies::person_engagements(services, &caller, &person_ref).await
        },
    )
    .await
}
