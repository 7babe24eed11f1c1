#![doc = include_str!("../README.md")]

pub mod bodies;
mod context;
pub mod dto;
mod error;
pub mod openapi;
mod routes;

pub use context::{
    bearer_token, read_body, request_context, request_context_middleware, RequestIdHeader,
};
pub use error::{ApiError, ErrorBody};

use actix_web::web;
use domain::services::Services;
use std::sync::Arc;

/// The largest request body accepted (JSON or form), in bytes.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Shared state of every handler.
pub type AppServices = web::Data<Arc<Services>>;

/// Registers every REST route. Unknown routes answer a JSON 404 through [`not_found`].
pub fn configure(cfg: &mut web::ServiceConfig) {
    // A method a path does not serve is no route either: the same JSON 404 (decisions.md).
    let resource = |path: &str| web::resource(path).default_service(web::to(not_found));
    cfg.service(resource("/oauth/token").route(web::post().to(routes::token::issue)))
        .service(resource("/v1/subjects/resolve").route(web::post().to(routes::subjects::resolve)))
        .service(resource("/v1/subjects/{id}").route(web::get().to(routes::subjects::get)))
        .service(resource("/v1/companies/{orgnr}").route(web::get().to(routes::companies::profile)))
        .service(resource("/v1/documents/{id}").route(web::get().to(routes::companies::document)))
        .service(resource("/openapi.json").route(web::get().to(openapi::serve)));
}

/// The default service: a JSON 404 that does not echo the path (it may hold identifiers).
pub async fn not_found() -> actix_web::HttpResponse {
    use actix_web::ResponseError;
    ApiError(domain::Failure::new(
        domain::ErrorCode::NotFound,
        "no such route",
    ))
    .error_response()
}

/// A 200 answer carrying a prepared body.
pub fn json_response(body: bodies::Body) -> actix_web::HttpResponse {
    actix_web::HttpResponse::Ok()
        .content_type("application/json")
        .body(body.0)
}

/// The whole REST path of a data route: admit the bearer, run the route's body function as
/// the caller, audit the outcome, answer the body (or the failure).
pub(crate) async fn run_route<'s, F, Fut>(
    req: &actix_web::HttpRequest,
    services: &'s AppServices,
    op: domain::operation::Operation,
    body: F,
) -> Result<actix_web::HttpResponse, ApiError>
where
    F: FnOnce(&'s Services, domain::access::Caller) -> Fut,
    Fut: std::future::Future<Output = Result<bodies::Body, domain::Failure>>,
{
    let ctx = request_context(req);
    let services = services.get_ref().as_ref();
    let answer = services
        .gate
        .call(
            bearer_token(req),
            op,
            domain::operation::Surface::Rest,
            &ctx,
            |caller| body(services, caller),
        )
        .await?;
    Ok(json_response(answer))
}
