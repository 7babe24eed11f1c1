//! The tenant's standing against its daily limits: `GET /v1/usage`.

use crate::run_route;
use actix_web::{HttpRequest, HttpResponse};
use api_core::bodies;
use api_core::{ApiError, AppServices};
use domain::operation::Operation;

#[utoipa::path(
    get,
    summary = "Today's spend against the tenant's daily limits.",
    description = "The paid-call budget (its on-demand part, which the paid tier and refreshes spend, and the part reserved for scheduled monitoring) and the person-lookup ceiling: each limit, what was used today and what is left, and when they renew (midnight in Europe/Stockholm). `quotas` repeats the numbers the `RateLimit-Policy` and `RateLimit` header fields carry on every metered answer (the paid tier, refresh, person reads, screening checks). Free (no upstream call, nothing spent) and open to any scope of the grant: the figures are the tenant's, never another's, and name no subject.",
    path = Operation::GetUsage.route_template(),
    operation_id = "get_usage",
    tag = "usage",
    security(("oauth2" = [])),
    responses(
        (status = 200, description = "The tenant's standing today", body = api_core::dto::usage::UsageDto),
    )
)]
pub async fn get(req: HttpRequest, services: AppServices) -> Result<HttpResponse, ApiError> {
    run_route(
        &req,
        &services,
        Operation::GetUsage,
        |services, caller| async move { bodies::usage(services, &caller).await },
    )
    .await
}
