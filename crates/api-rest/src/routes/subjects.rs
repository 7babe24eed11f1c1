//! `POST /v1/subjects/resolve` and `GET /v1/subjects/{id}`.

use crate::request::{self, JsonBody};
use crate::{run_route, run_write};
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::bodies;
use api_core::{ApiError, AppServices};
use domain::operation::Operation;

#[utoipa::path(
    post,
    summary = "Resolves an identifier to its subject, creating the subject on first sight.",
    description = "The answer is not enveloped. The identifier is never echoed: only its opaque `identifier_ref`.",
    path = Operation::ResolveSubject.route_template(),
    operation_id = "resolve_subject",
    tag = "subjects",
    request_body(content = crate::request::ResolveRequestBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The subject holding the identifier", body = api_core::dto::ResolveResponse),
    )
)]
pub async fn resolve(
    req: HttpRequest,
    payload: web::Payload,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    run_write(
        &req,
        payload,
        &services,
        Operation::ResolveSubject,
        |services, caller, raw| async move {
            let json = JsonBody::parse(&raw)?;
            bodies::resolve_subject(services, &caller, request::resolve(&json)?).await
        },
    )
    .await
}

#[utoipa::path(
    get,
    summary = "A subject, with only the identifiers in the grant's countries (not enveloped).",
    description = "A subject with no identifier in the grant's countries answers 404, as if it did not exist.",
    path = Operation::GetSubject.route_template(),
    operation_id = "get_subject",
    tag = "subjects",
    params(("id" = String, Path, description = "A subject id (opaque; a merged-away id is an alias)")),
    responses(
        (status = 200, description = "The subject", body = api_core::dto::SubjectResponse),
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
        Operation::GetSubject,
        |services, caller| async move { bodies::get_subject(services, &caller, &id).await },
    )
    .await
}
