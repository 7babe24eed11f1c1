//! `GET /v1/companies/{orgnr}` and `GET /v1/documents/{id}`.

use crate::bodies;
use crate::context::{bearer_token, request_context};
use crate::{json_response, ApiError, AppServices};
use actix_web::{web, HttpRequest, HttpResponse};
use domain::operation::{Operation, Surface};

pub async fn profile(
    req: HttpRequest,
    orgnr: web::Path<String>,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    let ctx = request_context(&req);
    let services = services.get_ref();
    let body = services
        .gate
        .call(
            bearer_token(&req),
            Operation::GetCompany,
            Surface::Rest,
            &ctx,
            |caller| async move { bodies::company_profile(services, &caller, &orgnr).await },
        )
        .await?;
    Ok(json_response(body))
}

pub async fn document(
    req: HttpRequest,
    id: web::Path<String>,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    let ctx = request_context(&req);
    let services = services.get_ref();
    let body = services
        .gate
        .call(
            bearer_token(&req),
            Operation::GetDocument,
            Surface::Rest,
            &ctx,
            |caller| async move { bodies::document(services, &caller, &id).await },
        )
        .await?;
    Ok(json_response(body))
}
