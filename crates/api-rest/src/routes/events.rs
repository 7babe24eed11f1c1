//! The per-tenant event log: `GET /v1/events`.

use crate::run_route;
use actix_web::{HttpRequest, HttpResponse};
use api_core::bodies;
use api_core::{ApiError, AppServices};
use domain::monitoring::event_service::EventsRequest;
use domain::operation::Operation;
use domain::Failure;

/// The query parameters a page is asked with; a parameter given twice is refused.
fn events_request(query: &str) -> Result<EventsRequest, Failure> {
    let mut v = super::query_values(query, &["cursor", "limit", "types"])?.into_iter();
    Ok(EventsRequest {
        cursor: v.next().flatten(),
        limit: v.next().flatten(),
        types: v.next().flatten(),
    })
}

#[utoipa::path(
    get,
    summary = "A page of the tenant's event log.",
    description = "Events in `seq` order after `cursor`, bounded by the credential's countries and the `types` filter. `cursor` is `0` (the default) or the exact decimal spelling of a `next_cursor` returned earlier; anything else (`01`, `+1`, `1.0`, negative, past 2^63-1) is 400 `invalid_cursor` with `recovery: \"restart from cursor 0\"`. A well-formed cursor beyond the newest visible event answers 200 with an empty page and the same cursor back. `limit`: 1 to 1000, default 100. `types`: event type names separated by commas (`subscription.*` for that family). A page looks at most 5000 events past the cursor, so a filtered or country-bounded page can come back short while `next_cursor` advances; ask again with it. Cursors never expire and hold across purges and across the tenant's grants.",
    path = Operation::ListEvents.route_template(),
    operation_id = "list_events",
    tag = "events",
    params(
        ("cursor" = Option<String>, Query, description = "`0` or a `next_cursor` returned earlier, spelled exactly"),
        ("limit" = Option<u32>, Query, description = "Events per page, 1 to 1000 (default 100)"),
        ("types" = Option<String>, Query, description = "Event type names separated by commas"),
    ),
    responses(
        (status = 200, description = "A page of events", body = api_core::dto::EventPageDto),
    )
)]
pub async fn list(req: HttpRequest, services: AppServices) -> Result<HttpResponse, ApiError> {
    let query = req.query_string().to_owned();
    run_route(
        &req,
        &services,
        Operation::ListEvents,
        |services, caller| async move {
            let request = events_request(&query)?;
            bodies::events(services, &caller, &request, false).await
        },
    )
    .await
}
