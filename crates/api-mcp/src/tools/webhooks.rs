//! The webhook tools: endpoints (create, read, list, disable, enable, rotate the secret) and
//! their deliveries.

use super::{Ctx, Effect, Fut, NoArgs, Spec, Tool};
use api_core::bodies;
use api_core::dto::webhooks::{
    WebhookDeliveryPageDto, WebhookEndpointDto, WebhookEndpointListDto,
    WebhookEndpointWithSecretDto,
};
use domain::operation::Operation;
use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of `create_webhook`.
#[derive(Deserialize, JsonSchema)]
pub struct CreateWebhookArgs {
    /// Where deliveries are posted: an absolute https URL without credentials or fragment,
    /// naming a publicly routable host.
    pub url: String,
    /// Only events of these types (event type names); absent for every type.
    #[serde(default)]
    pub types: Option<Vec<String>>,
    /// Free text for the consumer's own use, at most 200 characters.
    #[serde(default)]
    pub description: Option<String>,
    /// Deliver the events after this seq first (an earlier next_cursor); absent: only events
    /// logged from now on.
    #[serde(default)]
    pub start_after: Option<i64>,
}

impl From<CreateWebhookArgs> for domain::webhooks::service::CreateEndpointRequest {
    fn from(a: CreateWebhookArgs) -> Self {
        domain::webhooks::service::CreateEndpointRequest {
            url: a.url,
            types: a.types,
            description: a.description,
            start_after: a.start_after,
        }
    }
}

/// Arguments of the tools of one webhook endpoint.
#[derive(Deserialize, JsonSchema)]
pub struct WebhookIdArgs {
    /// The endpoint id (`whk_` + 26 characters).
    pub id: String,
}

/// Arguments of `list_webhook_deliveries`.
#[derive(Deserialize, JsonSchema)]
pub struct WebhookDeliveriesArgs {
    /// The endpoint id (`whk_` + 26 characters).
    pub id: String,
    /// `0` (the default) or a next_cursor returned earlier.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Attempts per page, 1 to 1000 (default 100).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// This file's tools, for the catalog.
pub(super) fn tools() -> Vec<Tool> {
    vec![
        Tool::new(
            Spec {
                name: "create_webhook",
                title: "Register a webhook endpoint",
                description: "Registers an HTTPS endpoint the event log is pushed to: each event \
                    the credential may read (of the endpoint's types) is posted in seq order, \
                    signed after the Standard Webhooks convention (webhook-id, webhook-timestamp, \
                    webhook-signature), retried with backoff, never skipped. The answer holds \
                    the signing secret, shown this once. The 201 body of POST /v1/webhooks.",
                operations: &[Operation::CreateWebhookEndpoint],
                effect: Effect::Write,
                open_world: false,
            },
            create_webhook,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "list_webhooks",
                title: "List webhook endpoints",
                description:
                    "The credential's webhook endpoints, oldest first: status, cursor (the \
                    last seq delivered), failures. The body of GET /v1/webhooks.",
                operations: &[Operation::ListWebhookEndpoints],
                effect: Effect::Read,
                open_world: false,
            },
            list_webhooks,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "get_webhook",
                title: "Webhook endpoint",
                description:
                    "A webhook endpoint by id: status, cursor, failures, next attempt. The \
                    secret is never shown again. The body of GET /v1/webhooks/{id}.",
                operations: &[Operation::GetWebhookEndpoint],
                effect: Effect::Read,
                open_world: false,
            },
            get_webhook,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "disable_webhook",
                title: "Disable a webhook endpoint",
                description: "Stops deliveries to a webhook endpoint until it is enabled again; \
                    its cursor stays. The body of POST /v1/webhooks/{id}/disable.",
                operations: &[Operation::DisableWebhookEndpoint],
                effect: Effect::Write,
                open_world: false,
            },
            disable_webhook,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "enable_webhook",
                title: "Enable a webhook endpoint",
                description: "Enables a disabled webhook endpoint again: deliveries resume at its \
                    cursor, the first event it has not received. The body of \
                    POST /v1/webhooks/{id}/enable.",
                operations: &[Operation::EnableWebhookEndpoint],
                effect: Effect::Write,
                open_world: false,
            },
            enable_webhook,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "rotate_webhook_secret",
                title: "Rotate a webhook secret",
                description: "Gives a webhook endpoint a new signing secret, shown this once; \
                    deliveries from now on are signed with it only. The body of \
                    POST /v1/webhooks/{id}/rotate-secret.",
                operations: &[Operation::RotateWebhookSecret],
                effect: Effect::Write,
                open_world: false,
            },
            rotate_webhook_secret,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "list_webhook_deliveries",
                title: "Webhook delivery log",
                description: "A webhook endpoint's delivery log, oldest first: each attempt's \
                    event, outcome, status, duration and next attempt. The body of \
                    GET /v1/webhooks/{id}/deliveries.",
                operations: &[Operation::ListWebhookDeliveries],
                effect: Effect::Read,
                open_world: false,
            },
            list_webhook_deliveries,
        )
        .with_output(),
    ]
}

fn create_webhook(cx: Ctx<'_>, args: CreateWebhookArgs) -> Fut<'_, WebhookEndpointWithSecretDto> {
    Box::pin(
        cx.route(Operation::CreateWebhookEndpoint, move |s, c| async move {
            bodies::create_webhook(s, &c, args.into()).await
        }),
    )
}

fn list_webhooks(cx: Ctx<'_>, _args: NoArgs) -> Fut<'_, WebhookEndpointListDto> {
    Box::pin(
        cx.route(Operation::ListWebhookEndpoints, move |s, c| async move {
            bodies::list_webhooks(s, &c).await
        }),
    )
}

fn get_webhook(cx: Ctx<'_>, args: WebhookIdArgs) -> Fut<'_, WebhookEndpointDto> {
    Box::pin(
        cx.route(Operation::GetWebhookEndpoint, move |s, c| async move {
            bodies::get_webhook(s, &c, &args.id).await
        }),
    )
}

fn disable_webhook(cx: Ctx<'_>, args: WebhookIdArgs) -> Fut<'_, WebhookEndpointDto> {
    Box::pin(
        cx.route(Operation::DisableWebhookEndpoint, move |s, c| async move {
            bodies::disable_webhook(s, &c, &args.id).await
        }),
    )
}

fn enable_webhook(cx: Ctx<'_>, args: WebhookIdArgs) -> Fut<'_, WebhookEndpointDto> {
    Box::pin(
        cx.route(Operation::EnableWebhookEndpoint, move |s, c| async move {
            bodies::enable_webhook(s, &c, &args.id).await
        }),
    )
}

fn rotate_webhook_secret(
    cx: Ctx<'_>,
    args: WebhookIdArgs,
) -> Fut<'_, WebhookEndpointWithSecretDto> {
    Box::pin(
        cx.route(Operation::RotateWebhookSecret, move |s, c| async move {
            bodies::rotate_webhook_secret(s, &c, &args.id).await
        }),
    )
}

fn list_webhook_deliveries(
    cx: Ctx<'_>,
    args: WebhookDeliveriesArgs,
) -> Fut<'_, WebhookDeliveryPageDto> {
    Box::pin(
        cx.route(Operation::ListWebhookDeliveries, move |s, c| async move {
            let limit = args.limit.map(|l| l.to_string());
            bodies::webhook_deliveries(s, &c, &args.id, args.cursor.as_deref(), limit.as_deref())
                .await
        }),
    )
}
