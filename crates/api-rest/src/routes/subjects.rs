//! `POST /v1/subjects/resolve` and `GET /v1/subjects/{id}`.

use crate::context::{bearer_token, read_body, request_context};
use crate::dto::{JsonBody, ResolveResponse, SubjectResponse};
use crate::{ApiError, AppServices};
use actix_web::{web, HttpRequest, HttpResponse};
use domain::operation::{Operation, Surface};
use domain::subject::ResolveRequest;

pub async fn resolve(
    req: HttpRequest,
    payload: web::Payload,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    let ctx = request_context(&req);
    let services = services.get_ref();
    let resolution = services
        .gate
        .call(
            bearer_token(&req),
            Operation::ResolveSubject,
            Surface::Rest,
            &ctx,
            |caller| async move {
                let body = JsonBody::parse(&read_body(payload).await?)?;
                let request = ResolveRequest {
                    id_type: body.required_str("type")?,
                    value: body.required_str("value")?,
                    customer_ref: body.optional_str("ref")?,
                };
                services.subjects.resolve(&caller, request).await
            },
        )
        .await?;
    Ok(HttpResponse::Ok().json(ResolveResponse::from(&resolution)))
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
            |caller| async move {
                let record = services.subjects.get(&caller, &id).await?;
                Ok(SubjectResponse::new(&caller.tenant, &record))
            },
        )
        .await?;
    Ok(HttpResponse::Ok().json(body))
}
