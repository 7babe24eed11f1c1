#![doc = include_str!("../README.md")]

mod idempotency;
pub mod input_rules;
pub mod openapi;
pub mod request;
mod routes;
pub mod text;

use actix_web::web;
use api_core::bodies::{self, Body};
use api_core::{
    bearer_token, method_not_allowed, read_body, request_context, ApiError, AppServices,
};
use domain::services::Services;

/// Registers every REST route. Unknown paths answer a JSON 404 through [`not_found`]; a
/// known path asked with a method it does not serve answers 405 naming the one it does.
pub fn configure(cfg: &mut web::ServiceConfig) {
    use actix_web::http::Method;
    use api_core::discovery::{
        Protected, AUTHORIZATION_SERVER_PATH, AUTHORIZE_PATH, REGISTER_PATH,
    };
    // The operations, at the path and method of each one's row; a path two operations share
    // (`GET` and `POST /v1/subscriptions`) is one resource serving both.
    // Each path: whether it answers across origins, and its methods' routes.
    let mut paths: Vec<(&'static str, bool, MethodRoutes)> = Vec::new();
    for (op, route) in routes::operation_routes() {
        let method = Method::from_bytes(op.method().as_bytes())
            .expect("an operation's row names an HTTP method");
        let route = route.method(method.clone());
        let cross_origin = routes::CROSS_ORIGIN.contains(&op);
        match paths.iter_mut().find(|(p, _, _)| *p == op.route_template()) {
            Some((_, cors, routes)) => {
                *cors |= cross_origin;
                routes.push((method, route));
            }
            None => paths.push((op.route_template(), cross_origin, vec![(method, route)])),
        }
    }
    for (path, cross_origin, routes) in paths {
        if cross_origin {
            cfg.service(cors_routes(path, routes));
        } else {
            cfg.service(serve_routes(path, routes));
        }
    }
    cfg.service(cors(
        &Protected::Api.metadata_path(),
        Method::GET,
        routes::discovery::api_resource,
    ))
    .service(cors(
        &Protected::Mcp.metadata_path(),
        Method::GET,
        routes::discovery::mcp_resource,
    ))
    .service(cors(
        AUTHORIZATION_SERVER_PATH,
        Method::GET,
        routes::discovery::authorization_server,
    ))
    .service(serve(AUTHORIZE_PATH, Method::GET, routes::oauth::authorize))
    .service(cors(REGISTER_PATH, Method::POST, routes::oauth::register))
    .service(serve("/openapi.json", Method::GET, openapi::serve))
    .service(serve(
        api_core::problem::ERROR_DOCS_PATH,
        Method::GET,
        routes::docs::index,
    ))
    .service(serve(
        &format!("{}/{{code}}", api_core::problem::ERROR_DOCS_PATH),
        Method::GET,
        routes::docs::code,
    ))
    .service(serve(HEALTHZ_PATH, Method::GET, routes::health::live))
    .service(serve(READYZ_PATH, Method::GET, routes::health::ready));
}

/// A path's routes, each with the method it serves.
type MethodRoutes = Vec<(actix_web::http::Method, actix_web::Route)>;

/// The liveness probe's path.
pub const HEALTHZ_PATH: &str = "/healthz";
/// The readiness probe's path.
pub const READYZ_PATH: &str = "/readyz";

/// A path served for one method; every other method is 405 with `Allow` naming it.
fn serve<F, Args>(path: &str, method: actix_web::http::Method, handler: F) -> actix_web::Resource
where
    F: actix_web::Handler<Args>,
    Args: actix_web::FromRequest + 'static,
    F::Output: actix_web::Responder + 'static,
{
    serve_routes(
        path,
        vec![(method.clone(), web::method(method).to(handler))],
    )
}

/// A path served by `routes`, each for its method; every other method is 405 with `Allow`
/// naming those it serves.
fn serve_routes(path: &str, routes: MethodRoutes) -> actix_web::Resource {
    let mut allow = Vec::new();
    let mut resource = web::resource(path);
    for (method, route) in routes {
        allow.push(method);
        resource = resource.route(route);
    }
    allow.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    resource.default_service(web::to(move || {
        let allow = allow.clone();
        async move { method_not_allowed(&allow) }
    }))
}

/// [`serve`] for a route browser-based OAuth clients call from another origin: its answers
/// carry `Access-Control-Allow-Origin: *` (never credentials), and a preflight `OPTIONS` is
/// answered ([`api_core::oauth::preflight`]).
fn cors<F, Args>(
    path: &str,
    method: actix_web::http::Method,
    handler: F,
) -> impl actix_web::dev::HttpServiceFactory
where
    F: actix_web::Handler<Args>,
    Args: actix_web::FromRequest + 'static,
    F::Output: actix_web::Responder + 'static,
{
    cors_routes(
        path,
        vec![(method.clone(), web::method(method).to(handler))],
    )
}

/// [`serve_routes`] for browser-based OAuth clients on another origin (see [`cors`]).
fn cors_routes(path: &str, routes: MethodRoutes) -> impl actix_web::dev::HttpServiceFactory {
    let mut allow = Vec::new();
    let mut resource = web::resource(path).wrap(api_core::oauth::cors_headers());
    for (method, route) in routes {
        allow.push(method);
        resource = resource.route(route);
    }
    allow.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    let preflight_allows = allow.clone();
    resource
        .route(web::method(actix_web::http::Method::OPTIONS).to(move || {
            let allows = preflight_allows.clone();
            async move { api_core::oauth::preflight(&allows) }
        }))
        .default_service(web::to(move || {
            let allow = allow.clone();
            async move { method_not_allowed(&allow) }
        }))
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

/// The whole REST path of a data route: admit the bearer, run the route's body function as
/// the caller, audit the outcome, answer the body (or the failure).
pub(crate) async fn run_route<'s, F, Fut, B>(
    req: &actix_web::HttpRequest,
    services: &'s AppServices,
    op: domain::operation::Operation,
    body: F,
) -> Result<actix_web::HttpResponse, ApiError>
where
    F: FnOnce(&'s Services, domain::access::caller::Caller) -> Fut,
    Fut: std::future::Future<Output = Result<B, domain::Failure>>,
    B: Into<Body>,
{
    run(req, services, op, None, |services, caller, _| {
        body(services, caller)
    })
    .await
}

/// The REST path of a write (a POST of `/v1`): as [`run_route`], the request body read once
/// admitted and handed to the body function as bytes, and the write made idempotent by an
/// `Idempotency-Key` when the client sends one (`idempotency`).
pub(crate) async fn run_write<'s, F, Fut, B>(
    req: &actix_web::HttpRequest,
    payload: web::Payload,
    services: &'s AppServices,
    op: domain::operation::Operation,
    body: F,
) -> Result<actix_web::HttpResponse, ApiError>
where
    F: FnOnce(&'s Services, domain::access::caller::Caller, web::Bytes) -> Fut,
    Fut: std::future::Future<Output = Result<B, domain::Failure>>,
    B: Into<Body>,
{
    run(req, services, op, Some(payload), body).await
}

async fn run<'s, F, Fut, B>(
    req: &actix_web::HttpRequest,
    services: &'s AppServices,
    op: domain::operation::Operation,
    payload: Option<web::Payload>,
    body: F,
) -> Result<actix_web::HttpResponse, ApiError>
where
    F: FnOnce(&'s Services, domain::access::caller::Caller, web::Bytes) -> Fut,
    Fut: std::future::Future<Output = Result<B, domain::Failure>>,
    B: Into<Body>,
{
    let ctx = request_context(req);
    let services = services.get_ref().as_ref();
    // A metered operation's answer states the caller's standing against its limits, read
    // once the operation has spent (on its 429 too).
    let quota = std::cell::RefCell::new(None);
    // Whether the answer is the one kept under the request's idempotency key.
    let replayed = std::cell::Cell::new(false);
    // Whose answer it is: a test-mode caller's is marked so.
    let mode = std::cell::Cell::new(domain::access::tenant::TenantMode::Live);
    let answer = services
        .gate
        .call(
            bearer_token(req),
            op,
            domain::operation::Surface::Rest,
            &ctx,
            |caller| {
                let (quota, replayed, mode) = (&quota, &replayed, &mode);
                mode.set(caller.mode());
                async move {
                    // Path segments and query values are client text (see `text`).
                    text::check_request(req)?;
                    let key = if op.takes_idempotency_key() {
                        idempotency::key(req)?
                    } else {
                        None
                    };
                    let raw = match payload {
                        Some(payload) => read_body(payload).await?,
                        None => web::Bytes::new(),
                    };
                    let metered = (!op.metered_by().is_empty()).then(|| caller.clone());
                    let result = match key {
                        None => body(services, caller, raw).await.map(Into::into),
                        Some(key) => {
                            let (result, was_replayed) =
                                idempotency::run(req, services, caller, op, &key, raw, body)
                                    .await?;
                            replayed.set(was_replayed);
                            result
                        }
                    };
                    if let Some(caller) = metered {
                        *quota.borrow_mut() =
                            bodies::quota(services, &caller, op.metered_by()).await;
                    }
                    result
                }
            },
        )
        .await;
    let mut response = match answer {
        Ok(answer) => {
            let status = actix_web::http::StatusCode::from_u16(op.success_status())
                .unwrap_or(actix_web::http::StatusCode::OK);
            actix_web::HttpResponse::build(status)
                .content_type("application/json")
                .body(answer.0)
        }
        // A 401 tells a machine client where to find the token endpoint and what to ask for.
        Err(failure) if failure.code == domain::ErrorCode::Unauthorized => {
            use actix_web::ResponseError;
            return Ok(api_core::discovery::challenged(
                ApiError(failure).error_response(),
                req,
                api_core::discovery::Protected::Api,
                op.scopes(),
            ));
        }
        Err(failure) => {
            use actix_web::ResponseError;
            ApiError(failure).error_response()
        }
    };
    if let Some(lines) = quota.into_inner() {
        api_core::quota::insert(&mut response, &lines);
    }
    if replayed.get() {
        idempotency::mark_replayed(&mut response);
    }
    api_core::mode::mark(&mut response, mode.get());
    Ok(response)
}

/// Sweden's and Lithuania's identifier schemes, installed as the binary installs them, for
/// the tests that read identifiers or country codes.
#[cfg(test)]
fn install_schemes() {
    adapters_se::identifiers::install();
    adapters_lt::identifiers::install();
}
