//! Webhook endpoints and their delivery logs (added in 1.8.0, not in the specification).

use super::timestamp;
use domain::webhooks::endpoint::{Delivery, WebhookEndpoint};
use domain::webhooks::service::{DeliveryPage, EndpointWithSecret};
use serde::Serialize;

/// A webhook endpoint: where the grant's view of the tenant's event log is pushed.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[schema(as = WebhookEndpoint)]
#[schemars(rename = "WebhookEndpoint")]
pub struct WebhookEndpointDto {
    /// `whk_` and 26 characters.
    pub id: String,
    /// Where deliveries are posted (`https`).
    pub url: String,
    /// Only events of these types; `null` for every type.
    #[schema(required = true)]
    pub types: Option<Vec<String>>,
    #[schema(required = true)]
    pub description: Option<String>,
    /// `active` or `disabled`.
    #[schema(schema_with = crate::schema::endpoint_status)]
    pub status: &'static str,
    /// `consumer`, `failing` or `grant_lapsed`; `null` while active.
    #[schema(required = true)]
    pub disabled_reason: Option<&'static str>,
    #[schema(required = true)]
    pub disabled_at: Option<String>,
    /// The `seq` of the last event delivered (or passed over as not the endpoint's): the
    /// events still to come are those `GET /v1/events?cursor=<this>` pages.
    pub cursor: i64,
    /// Failed attempts in a row at the event after `cursor`.
    pub failures: i32,
    /// When the current run of failures began; `null` when the last attempt succeeded.
    #[schema(required = true)]
    pub failing_since: Option<String>,
    /// When the next attempt is due (for an active endpoint with events to send).
    pub next_attempt_at: String,
    /// How many attempts its delivery log holds.
    pub attempts: i64,
    pub created_at: String,
    #[schema(required = true)]
    pub secret_rotated_at: Option<String>,
}

impl From<&WebhookEndpoint> for WebhookEndpointDto {
    fn from(e: &WebhookEndpoint) -> Self {
        WebhookEndpointDto {
            id: e.id.to_string(),
            url: e.url.as_str().to_owned(),
            types: e.types.clone(),
            description: e.description.clone(),
            status: e.status.as_str(),
            disabled_reason: e.disabled_reason.map(|r| r.as_str()),
            disabled_at: e.disabled_at.map(timestamp),
            cursor: e.cursor,
            failures: e.failures,
            failing_since: e.failing_since.map(timestamp),
            next_attempt_at: timestamp(e.next_attempt_at),
            attempts: e.attempts,
            created_at: timestamp(e.created_at),
            secret_rotated_at: e.secret_rotated_at.map(timestamp),
        }
    }
}

/// An endpoint with its signing secret, shown this once (the answer of a create and of a
/// rotation).
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[schema(as = WebhookEndpointWithSecret)]
#[schemars(rename = "WebhookEndpointWithSecret")]
pub struct WebhookEndpointWithSecretDto {
    #[serde(flatten)]
    pub endpoint: WebhookEndpointDto,
    /// `whsec_` and the base64 of 32 bytes: verify each delivery's `webhook-signature` with
    /// it (Standard Webhooks). Shown only now; it is kept sealed and cannot be read again.
    pub secret: String,
}

impl From<&EndpointWithSecret> for WebhookEndpointWithSecretDto {
    fn from(e: &EndpointWithSecret) -> Self {
        WebhookEndpointWithSecretDto {
            endpoint: WebhookEndpointDto::from(&e.endpoint),
            secret: e.secret.expose().to_owned(),
        }
    }
}

/// The credential's endpoints, oldest first.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[schema(as = WebhookEndpointList)]
#[schemars(rename = "WebhookEndpointList")]
pub struct WebhookEndpointListDto {
    pub endpoints: Vec<WebhookEndpointDto>,
}

/// One attempt of an endpoint's delivery log.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[schema(as = WebhookDelivery)]
#[schemars(rename = "WebhookDelivery")]
pub struct WebhookDeliveryDto {
    /// The attempt's number in the endpoint's log (the cursor of the log's pages).
    pub number: i64,
    /// The event sent (its `id`, also the delivery's `webhook-id`).
    pub event_id: String,
    pub seq: i64,
    #[serde(rename = "type")]
    pub type_name: String,
    /// The attempt's number for this event (1 for the first).
    pub attempt: i32,
    pub attempted_at: String,
    /// `delivered` (2xx), `refused` (another status) or `failed` (no answer).
    #[schema(schema_with = crate::schema::delivery_outcome)]
    pub outcome: &'static str,
    /// The receiver's status; `null` without an answer.
    #[schema(required = true)]
    pub status_code: Option<u16>,
    /// Without an answer: `timeout`, `connect`, `address_refused` or `request`.
    #[schema(required = true)]
    pub error: Option<String>,
    pub duration_ms: i64,
    /// When the event is tried again after this failure; `null` otherwise.
    #[schema(required = true)]
    pub next_attempt_at: Option<String>,
}

impl From<&Delivery> for WebhookDeliveryDto {
    fn from(d: &Delivery) -> Self {
        WebhookDeliveryDto {
            number: d.number,
            event_id: d.event_id.to_string(),
            seq: d.seq,
            type_name: d.type_name.clone(),
            attempt: d.attempt,
            attempted_at: timestamp(d.attempted_at),
            outcome: d.result.outcome(),
            status_code: d.result.status(),
            error: d.result.error().map(str::to_owned),
            duration_ms: d.duration_ms,
            next_attempt_at: d.next_attempt_at.map(timestamp),
        }
    }
}

/// A page of an endpoint's delivery log, oldest first.
#[derive(Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[schema(as = WebhookDeliveryPage)]
#[schemars(rename = "WebhookDeliveryPage")]
pub struct WebhookDeliveryPageDto {
    pub deliveries: Vec<WebhookDeliveryDto>,
    /// The cursor to ask with next (the same cursor when nothing lies beyond it).
    pub next_cursor: i64,
}

impl From<&DeliveryPage> for WebhookDeliveryPageDto {
    fn from(p: &DeliveryPage) -> Self {
        WebhookDeliveryPageDto {
            deliveries: p.deliveries.iter().map(WebhookDeliveryDto::from).collect(),
            next_cursor: p.next_cursor,
        }
    }
}
