//! Monitoring subscriptions: `POST /v1/subscriptions` (201), `GET /v1/subscriptions`,
//! `GET /v1/subscriptions/{id}`, `POST /v1/subscriptions/{id}/end`.

use crate::request::{self, JsonBody};
use crate::{run_route, run_write};
use actix_web::{web, HttpRequest, HttpResponse};
use api_core::bodies;
use api_core::{ApiError, AppServices};
use domain::monitoring::subscription::SubscriptionsRequest;
use domain::operation::Operation;

#[utoipa::path(
    post,
    summary = "Starts monitoring a subject.",
    description = "One subscription that has not ended per subject and kind (409 `subscription_exists`). `legal_basis` outside the enum is 400 `legal_basis_invalid`. A subject unknown to the tenant, or with no identifier in the credential's countries, is 404; a subject identified only in a country without a scheduled source is 501. Kind `person` needs the tenant's person-register permit in force (403). The subscription is due at once (its first run takes the baseline). Each change is logged as a `subscription.*` event.",
    path = Operation::CreateSubscription.route_template(),
    operation_id = "subscribe_monitoring",
    tag = "subscriptions",
    request_body(content = crate::request::SubscribeRequestBody, content_type = "application/json"),
    responses(
        (status = 201, description = "The subscription", body = api_core::dto::SubscriptionDto),
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
        Operation::CreateSubscription,
        |services, caller, raw| async move {
            let json = JsonBody::parse(&raw)?;
            bodies::create_subscription(services, &caller, request::subscribe(&json)?).await
        },
    )
    .await
}

#[utoipa::path(
    get,
    summary = "The tenant's subscriptions, newest first.",
    description = "`monitoring:read` and `monitoring:subscribe` see every kind; `kyb:read` sees company subscriptions and `kyc:read` person ones. Bounded by the credential's countries. `limit` 1 to 1000 (default 100); `status` one of `active`, `suspended`, `ended`.",
    path = Operation::ListSubscriptions.route_template(),
    operation_id = "list_subscriptions",
    tag = "subscriptions",
    params(
        ("limit" = Option<u32>, Query, description = "At most this many, 1 to 1000 (default 100)"),
        ("status" = Option<String>, Query, description = "`active`, `suspended` or `ended`"),
    ),
    responses(
        (status = 200, description = "The subscriptions", body = api_core::dto::SubscriptionListDto),
    )
)]
pub async fn list(req: HttpRequest, services: AppServices) -> Result<HttpResponse, ApiError> {
    let query = req.query_string().to_owned();
    run_route(
        &req,
        &services,
        Operation::ListSubscriptions,
        |services, caller| async move {
            let mut v = super::query_values(&query, &["limit", "status"])?.into_iter();
            let request = SubscriptionsRequest {
                limit: v.next().flatten(),
                status: v.next().flatten(),
            };
            bodies::list_subscriptions(services, &caller, &request).await
        },
    )
    .await
}

#[utoipa::path(
    get,
    summary = "A subscription.",
    description = "404 for an unknown id, a subscription of a kind the credential may not read (`kyb:read`: company only; `kyc:read`: person only), or one outside the credential's countries.",
    path = Operation::GetSubscription.route_template(),
    operation_id = "get_subscription",
    tag = "subscriptions",
    params(("id" = String, Path, description = "The subscription id (`sub_` + 26 characters)")),
    responses(
        (status = 200, description = "The subscription", body = api_core::dto::SubscriptionDto),
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
        Operation::GetSubscription,
        |services, caller| async move { bodies::get_subscription(services, &caller, &id).await },
    )
    .await
}

#[utoipa::path(
    post,
    summary = "Ends a subscription.",
    description = "One way: the status becomes `ended`, queued work is cancelled at once (no upstream call for the subject follows), `purge_after` is set (the end plus the retention period, 90 days). A suspended subscription ends the same way. Ending it again is 409 `subscription_ended`.",
    path = Operation::EndSubscription.route_template(),
    operation_id = "end_subscription",
    tag = "subscriptions",
    params(("id" = String, Path, description = "The subscription id")),
    responses(
        (status = 200, description = "The ended subscription", body = api_core::dto::SubscriptionDto),
    )
)]
pub async fn end(
    req: HttpRequest,
    id: web::Path<String>,
    payload: web::Payload,
    services: AppServices,
) -> Result<HttpResponse, ApiError> {
    run_write(
        &req,
        payload,
        &services,
        Operation::EndSubscription,
        |services, caller, _| async move { bodies::end_subscription(services, &caller, &id).await },
    )
    .await
}
