//! Webhook endpoints (added in 1.8.0): `POST /v1/webhooks` (201), `GET /v1/webhooks`,
//! `GET /v1/webhooks/{id}`, `POST /v1/webhooks/{id}/disable`, `.../enable`,
//! `.../rotate-secret`, and `GET /v1/webhooks/{id}/deliveries`.

use crate::request::{self, JsonBody};
use crate::{run_route, run_write};
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::bodies;
use api_core::{ApiError, AppServices};
use domain::operation::Operation;

const DELIVERY: &str = "Each event after the endpoint's cursor that the credential may read (its countries, the endpoint's `types`) is posted as the JSON object `GET /v1/events` shows, in `seq` order, one at a time, signed after the Standard Webhooks convention: `webhook-id` (the event id, the same on every retry), `webhook-timestamp` (Unix seconds of the attempt) and `webhook-signature` (`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` under the secret's bytes). A 2xx answer moves the cursor on; anything else is retried after 5 s, 5 min, 30 min, 2 h, 5 h and then every 10 h, and the events behind it wait, so none is skipped and the order holds. After 5 days of failing the endpoint is disabled and a `webhook.endpoint_disabled` event is logged. Deliveries are at least once: dedupe on `webhook-id`.";

#[utoipa::path(
    post,
    summary = "Registers a webhook endpoint; its signing secret is shown this once.",
    description = "`events:read`. `url` is an absolute `https` URL (at most 2048 bytes) without credentials or fragment, naming a publicly routable host; a host name that resolves only to private, loopback, link-local or reserved addresses gets no delivery (`address_refused` in the delivery log). `types` (event type names) limits what is sent; absent, every type. `start_after` (a `seq`, such as an earlier `next_cursor`) delivers the events after it first; absent, only events logged from now on. A credential holds at most 10 endpoints. The endpoint is the credential's: other credentials of the tenant do not see it.",
    path = Operation::CreateWebhookEndpoint.route_template(),
    operation_id = "create_webhook",
    tag = "webhooks",
    request_body(content = crate::request::CreateWebhookRequestBody, content_type = "application/json"),
    responses(
        (status = 201, description = "The endpoint and its secret (shown only now)", body = api_core::dto::webhooks::WebhookEndpointWithSecretDto),
    )
)]
pub async fn create(
    req: HttpRequest,
    payload: web::Payload,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    run_write(
        &req,
        payload,
        &services,
        Operation::CreateWebhookEndpoint,
        |services, caller, raw| async move {
            let json = JsonBody::parse(&raw)?;
            bodies::create_webhook(services, &caller, request::create_webhook(&json)?).await
        },
    )
    .await
}

#[utoipa::path(
    get,
    summary = "The credential's webhook endpoints, oldest first.",
    description = DELIVERY,
    path = Operation::ListWebhookEndpoints.route_template(),
    operation_id = "list_webhooks",
    tag = "webhooks",
    responses(
        (status = 200, description = "The endpoints", body = api_core::dto::webhooks::WebhookEndpointListDto),
    )
)]
pub async fn list(req: HttpRequest, services: AppServices) -> Result<HttpResponse, ApiError> {
    run_route(
        &req,
        &services,
        Operation::ListWebhookEndpoints,
        |services, caller| async move { bodies::list_webhooks(services, &caller).await },
    )
    .await
}

#[utoipa::path(
    get,
    summary = "A webhook endpoint: its status, cursor and failures.",
    description = "404 for an unknown id or another credential's endpoint. The secret is never shown again.",
    path = Operation::GetWebhookEndpoint.route_template(),
    operation_id = "get_webhook",
    tag = "webhooks",
    params(("id" = String, Path, description = "The endpoint id (`whk_` + 26 characters)")),
    responses(
        (status = 200, description = "The endpoint", body = api_core::dto::webhooks::WebhookEndpointDto),
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
        Operation::GetWebhookEndpoint,
        |services, caller| async move { bodies::get_webhook(services, &caller, &id).await },
    )
    .await
}

#[utoipa::path(
    post,
    summary = "Disables a webhook endpoint.",
    description = "No delivery follows until it is enabled again; its cursor stays where it is. Disabling a disabled endpoint changes nothing.",
    path = Operation::DisableWebhookEndpoint.route_template(),
    operation_id = "disable_webhook",
    tag = "webhooks",
    params(("id" = String, Path, description = "The endpoint id")),
    responses(
        (status = 200, description = "The endpoint", body = api_core::dto::webhooks::WebhookEndpointDto),
    )
)]
pub async fn disable(
    req: HttpRequest,
    id: web::Path<String>,
    payload: web::Payload,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    run_write(
        &req,
        payload,
        &services,
        Operation::DisableWebhookEndpoint,
        |services, caller, _| async move { bodies::disable_webhook(services, &caller, &id).await },
    )
    .await
}

#[utoipa::path(
    post,
    summary = "Enables a disabled webhook endpoint again.",
    description = "Deliveries resume at its cursor, the first event it has not received, whoever or whatever disabled it (the consumer, failures, a lapsed credential: a credential that still lacks `events:read` or has lapsed disables it again). Its failures are cleared. Enabling an active endpoint changes nothing.",
    path = Operation::EnableWebhookEndpoint.route_template(),
    operation_id = "enable_webhook",
    tag = "webhooks",
    params(("id" = String, Path, description = "The endpoint id")),
    responses(
        (status = 200, description = "The endpoint", body = api_core::dto::webhooks::WebhookEndpointDto),
    )
)]
pub async fn enable(
    req: HttpRequest,
    id: web::Path<String>,
    payload: web::Payload,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    run_write(
        &req,
        payload,
        &services,
        Operation::EnableWebhookEndpoint,
        |services, caller, _| async move { bodies::enable_webhook(services, &caller, &id).await },
    )
    .await
}

#[utoipa::path(
    post,
    summary = "Gives a webhook endpoint a new signing secret, shown this once.",
    description = "Deliveries from now on are signed with the new secret only.",
    path = Operation::RotateWebhookSecret.route_template(),
    operation_id = "rotate_webhook_secret",
    tag = "webhooks",
    params(("id" = String, Path, description = "The endpoint id")),
    responses(
        (status = 200, description = "The endpoint and its new secret (shown only now)", body = api_core::dto::webhooks::WebhookEndpointWithSecretDto),
    )
)]
pub async fn rotate_secret(
    req: HttpRequest,
    id: web::Path<String>,
    payload: web::Payload,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    run_write(
        &req,
        payload,
        &services,
        Operation::RotateWebhookSecret,
        |services, caller, _| async move {
            bodies::rotate_webhook_secret(services, &caller, &id).await
        },
    )
    .await
}

#[utoipa::path(
    get,
    summary = "A webhook endpoint's delivery log, oldest first.",
    description = "Every attempt: the event, its outcome (`delivered`, `refused` with the receiver's status, `failed` with the kind of failure), how long it took, and when a failed event is tried again. `cursor` is `0` (the default) or a `next_cursor` returned earlier; `limit` 1 to 1000 (default 100).",
    path = Operation::ListWebhookDeliveries.route_template(),
    operation_id = "list_webhook_deliveries",
    tag = "webhooks",
    params(
        ("id" = String, Path, description = "The endpoint id"),
        ("cursor" = Option<String>, Query, description = "`0` or a `next_cursor` returned earlier, spelled exactly"),
        ("limit" = Option<u32>, Query, description = "Attempts per page, 1 to 1000 (default 100)"),
    ),
    responses(
        (status = 200, description = "A page of the delivery log", body = api_core::dto::webhooks::WebhookDeliveryPageDto),
    )
)]
pub async fn deliveries(
    req: HttpRequest,
    id: web::Path<String>,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    let query = req.query_string().to_owned();
    run_route(
        &req,
        &services,
        Operation::ListWebhookDeliveries,
        |services, caller| async move {
            let mut v = super::query_values(&query, &["cursor", "limit"])?.into_iter();
            let (cursor, limit) = (v.next().flatten(), v.next().flatten());
            bodies::webhook_deliveries(services, &caller, &id, cursor.as_deref(), limit.as_deref())
                .await
        },
    )
    .await
}
