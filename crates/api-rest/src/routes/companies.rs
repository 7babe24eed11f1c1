//! `GET /v1/companies/{orgnr}` and `GET /v1/documents/{id}`.

use crate::{run_route, run_write};
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::bodies;
use api_core::{ApiError, AppServices};
use domain::operation::Operation;

#[utoipa::path(
    get,
    summary = "A company profile, with evidence for each field group.",
    description = "Served from the tenant's cache within its revalidation window; past it, from the register, or from the cache with `stale: true` when the register is unavailable.",
    path = Operation::GetCompany.route_template(),
    operation_id = "get_company",
    tag = "companies",
    params((
        "orgnr" = String, Path,
        description = "The company's code in identifier wire form (the document's description is built from the installed schemes).",
        example = "556002-1361",
    )),
    responses(
        (status = 200, description = "The company profile", body = api_core::dto::Envelope<api_core::dto::CompanyProfileDto>),
    )
)]
pub async fn profile(
    req: HttpRequest,
    orgnr: web::Path<String>,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    run_route(
        &req,
        &services,
        Operation::GetCompany,
        |services, caller| async move { bodies::company_profile(services, &caller, &orgnr).await },
    )
    .await
}

#[utoipa::path(
    get,
    summary = "An annual-report archive, base64 in JSON (Sweden only).",
    description = "The id is `data.latest_annual_report.ref` of a company profile this tenant was served.",
    path = Operation::GetDocument.route_template(),
    operation_id = "get_document",
    tag = "companies",
    params(("id" = String, Path, description = "A document id from a company profile (opaque)")),
    responses(
        (status = 200, description = "The document", body = api_core::dto::Envelope<api_core::dto::DocumentDto>),
    )
)]
pub async fn document(
    req: HttpRequest,
    id: web::Path<String>,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    run_route(
        &req,
        &services,
        Operation::GetDocument,
        |services, caller| async move { bodies::document(services, &caller, &id).await },
    )
    .await
}

#[utoipa::path(
    post,
    summary = "Forces a re-fetch of a company profile (metered).",
    description = "`kyb:refresh` only (`kyb:read` gets 403 `forbidden`). Always a re-fetch from the register, never an answer from the cache: one unit of the tenant's on-demand daily budget for the refresh (429 `budget_exceeded` when spent), plus, where the paid tier serves the country, the officers and beneficial-owners calls (each metered). Under an active company subscription of the subject, what moved against the tenant's previous reading is logged as events with `trigger: on_demand` (`company.changed` with a field diff, `company.status.changed`, `signatory.changed`, `ubo.changed`), then `refresh.completed`; `events_emitted` counts them. Without one, no event (`events_emitted` 0). A field group a source could not deliver is reported as not checked, never as a change.",
    path = Operation::RefreshCompany.route_template(),
    operation_id = "refresh_company",
    tag = "companies",
    params(("orgnr" = String, Path, description = "The company's code in wire form (as for the company profile)", example = "556002-1361")),
    responses(
        (status = 200, description = "The fresh company profile and the events logged", body = api_core::dto::RefreshDto),
    )
)]
pub async fn refresh(
    req: HttpRequest,
    orgnr: web::Path<String>,
    payload: web::Payload,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    run_write(
        &req,
        payload,
        &services,
        Operation::RefreshCompany,
        |services, caller, _| async move { bodies::refresh_company(services, &caller, &orgnr).await },
    )
    .await
}
