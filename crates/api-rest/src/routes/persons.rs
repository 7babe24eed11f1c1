//! The population register: `GET /v1/persons/{ref}`.
//!
//! `kyc:read` is necessary, never sufficient: the tenant's person-register permit gates every
//! read before anything cached is read or the register is asked. Lookups are metered against
//! the tenant's daily person-lookup ceiling, and a profile is never served stale.

use crate::run_route;
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::bodies;
use api_core::{ApiError, AppServices};
use domain::operation::Operation;

#[utoipa::path(
    get,
    summary = "A person's profile from the population register.",
    description = "`{ref}` is an `identifier_ref` of a person subject of this tenant (from a resolve, `lookup_person`, or an officer's or owner's `personal_number_ref`); the personal number itself is never sent or returned. Order of checks: the scope `kyc:read` and a well-formed ref (400 `invalid_identifier`); the tenant's person-register permit (403 `personreg_permit_required` when none is in force, `personreg_permit_suspended` when suspended; nothing stored is read and the register is not asked); the ref (404 when unknown, a company's, or outside the credential's countries; 501 `country_not_supported` for a Lithuanian person); the tenant's cache within the revalidation window; the daily person-lookup ceiling, counted before the register is asked (429 `budget_exceeded`); the register (404 when it holds no such person). The profile is never served stale: `stale` is always false, and when the register cannot answer past the revalidation window the answer is 503 `upstream_unavailable`. Under a protection marker (`sekretess`, `skyddad`) no address of any kind is returned.",
    path = Operation::GetPerson.route_template(),
    operation_id = "get_person_profile",
    tag = "persons",
    params(("ref" = String, Path, description = "An `identifier_ref` of a person subject (`idr_` + 26 characters)")),
    responses(
        (status = 200, description = "The person's profile (`stale` is always false)", body = api_core::dto::Envelope<api_core::dto::PersonProfileDto>),
    )
)]
pub async fn profile(
    req: HttpRequest,
    person_ref: web::Path<String>,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    run_route(
        &req,
        &services,
        Operation::GetPerson,
        |services, caller| async move {
            bodies::person_profile(services, &caller, &person_ref).await
        },
    )
    .await
}
