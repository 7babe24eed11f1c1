//! `POST /v1/subjects/resolve` and `GET /v1/subjects/{id}`.

use crate::bodies;
use crate::context::{bearer_token, read_body, request_context};
use crate::dto::JsonBody;
use crate::{json_response, ApiError, AppServices};
use actix_web::{web, HttpRequest, HttpResponse};
use domain::operation::{Operation, Surface};

pub async fn resolve(
    req: HttpRequest,
    payload: web::Payload,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    let ctx = request_context(&req);
    let services = services.get_ref();
    let body = services
        .gate
        .call(
            bearer_token(&req),
            Operation::ResolveSubject,
            Surface::Rest,
            &ctx,
            |caller| async move {
                let json = JsonBody::parse(&read_body(payload).await?)?;
                bodies::resolve_subject(services, &caller, &json).await
            },
        )
        .await?;
    Ok(json_response(body))
}

pub async fn get(
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
            Operation::GetSubject,
            Surface::Rest,
            &ctx,
            |caller| async move { bodies::get_subject(services, &caller, &id).await },
        )
        .await?;
    Ok(json_response(body))
}
