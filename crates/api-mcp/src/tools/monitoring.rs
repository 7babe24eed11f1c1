//! The monitoring tools: subscriptions (subscribe, read, list, end) and the event log
//! (`list_events`, and `list_changes` for the change events).

use super::{Ctx, Effect, Fut, Spec, Tool};
use api_core::bodies;
use api_core::dto::{EventPageDto, SubscriptionDto, SubscriptionListDto};
use domain::monitoring::subscription::SubscribeRequest;
use domain::operation::Operation;
use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of `list_events` and `list_changes`.
#[derive(Deserialize, JsonSchema)]
pub struct EventsArgs {
    /// `0` (the default) or the `next_cursor` of an earlier page, spelled exactly as it came
    /// back (as a string).
    #[serde(default)]
    pub cursor: Option<String>,
    /// Events per page, 1 to 1000 (default 100).
    #[serde(default)]
    pub limit: Option<u32>,
}

impl EventsArgs {
    fn request(self) -> domain::monitoring::event_service::EventsRequest {
        domain::monitoring::event_service::EventsRequest {
            cursor: self.cursor,
            limit: self.limit.map(|l| l.to_string()),
            types: None,
        }
    }
}

/// Arguments of `get_subscription`.
#[derive(Deserialize, JsonSchema)]
pub struct SubscriptionIdArgs {
    /// The subscription id (`sub_` + 26 characters).
    pub id: String,
}

/// Arguments of `subscribe_monitoring`.
#[derive(Deserialize, JsonSchema)]
pub struct SubscribeArgs {
    /// The subject to watch (from a resolve or a lookup).
    pub subject_id: String,
    /// `company`, or `person` (tracks the tenant's permit).
    pub kind: String,
    /// `aml_cdd`, `contract`, `legal_obligation`, `consent` or `legitimate_interest`.
    pub legal_basis: String,
    /// Free text, never parsed.
    #[serde(default)]
    pub legal_basis_ref: Option<String>,
    /// Days between light checks, 1 to 365 (default 1).
    #[serde(default)]
    pub check_days: Option<i64>,
    /// Days between paid full refreshes, check_days to 365 (default 30).
    #[serde(default)]
    pub full_refresh_days: Option<i64>,
}

impl From<SubscribeArgs> for SubscribeRequest {
    fn from(a: SubscribeArgs) -> Self {
        SubscribeRequest {
            subject_id: a.subject_id,
            kind: a.kind,
            legal_basis: a.legal_basis,
            legal_basis_ref: a.legal_basis_ref,
            check_days: a.check_days,
            full_refresh_days: a.full_refresh_days,
        }
    }
}

/// Arguments of `end_subscription`.
#[derive(Deserialize, JsonSchema)]
pub struct EndSubscriptionArgs {
    /// The subscription id (`sub_` + 26 characters).
    pub subscription_id: String,
}

/// Arguments of `list_subscriptions`.
#[derive(Deserialize, JsonSchema)]
pub struct ListSubscriptionsArgs {
    /// At most this many, 1 to 1000 (default 100).
    #[serde(default)]
    pub limit: Option<u32>,
    /// `active`, `suspended` or `ended`.
    #[serde(default)]
    pub status: Option<String>,
}

/// This file's tools, for the catalog.
pub(super) fn tools() -> Vec<Tool> {
    vec![
        Tool::new(
            Spec {
                name: "get_subscription",
                title: "Subscription",
                description:
                    "A monitoring subscription by id: kind, legal basis, status, cadence, \
                    dates. The body of GET /v1/subscriptions/{id}.",
                operations: &[Operation::GetSubscription],
                effect: Effect::Read,
                open_world: false,
            },
            get_subscription,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "end_subscription",
                title: "End a subscription",
                description:
                    "Ends a monitoring subscription, one way: queued work is cancelled at \
                    once and its events are purged after the retention period. Ending it again is \
                    subscription_ended. The body of POST /v1/subscriptions/{id}/end.",
                operations: &[Operation::EndSubscription],
                effect: Effect::Write,
                open_world: false,
            },
            end_subscription,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "list_subscriptions",
                title: "List subscriptions",
                description: "The tenant's monitoring subscriptions, newest first (kyb:read sees \
                    company ones, kyc:read person ones). The body of GET /v1/subscriptions.",
                operations: &[Operation::ListSubscriptions],
                effect: Effect::Read,
                open_world: false,
            },
            list_subscriptions,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "subscribe_monitoring",
                title: "Monitor a subject",
                description:
                    "Starts monitoring a subject (company, or person: the tenant's permit) \
                    under a legal basis; one subscription per subject and kind \
                    (subscription_exists). Changes then arrive in the event log (list_changes). \
                    The 201 body of POST /v1/subscriptions.",
                operations: &[Operation::CreateSubscription],
                effect: Effect::Write,
                open_world: false,
            },
            subscribe_monitoring,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "list_changes",
                title: "List changes",
                description: "A page of the tenant's event log with the change types preselected \
                    (company.changed, company.status.changed, signatory.changed, ubo.changed, \
                    person.changed), bounded by the credential's countries. Pass next_cursor back \
                    as cursor for the next page; an empty page with the same cursor means nothing \
                    new yet. The body of GET /v1/events?types=...",
                operations: &[Operation::ListEvents],
                effect: Effect::Read,
                open_world: false,
            },
            list_changes,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "list_events",
                title: "List events",
                description: "A page of the tenant's event log (every type), bounded by the \
                    credential's countries. Pass next_cursor back as cursor for the next page; an \
                    empty page with the same cursor means nothing new yet. The body of \
                    GET /v1/events.",
                operations: &[Operation::ListEvents],
                effect: Effect::Read,
                open_world: false,
            },
            list_events,
        )
        .with_output(),
    ]
}

fn list_events(cx: Ctx<'_>, args: EventsArgs) -> Fut<'_, EventPageDto> {
    Box::pin(cx.route(Operation::ListEvents, move |s, c| async move {
        bodies::events(s, &c, &args.request(), false).await
    }))
}

fn list_changes(cx: Ctx<'_>, args: EventsArgs) -> Fut<'_, EventPageDto> {
    Box::pin(cx.route(Operation::ListEvents, move |s, c| async move {
        bodies::events(s, &c, &args.request(), true).await
    }))
}

fn get_subscription(cx: Ctx<'_>, args: SubscriptionIdArgs) -> Fut<'_, SubscriptionDto> {
    Box::pin(
        cx.route(Operation::GetSubscription, move |s, c| async move {
            bodies::get_subscription(s, &c, &args.id).await
        }),
    )
}

fn end_subscription(cx: Ctx<'_>, args: EndSubscriptionArgs) -> Fut<'_, SubscriptionDto> {
    Box::pin(
        cx.route(Operation::EndSubscription, move |s, c| async move {
            bodies::end_subscription(s, &c, &args.subscription_id).await
        }),
    )
}

fn list_subscriptions(cx: Ctx<'_>, args: ListSubscriptionsArgs) -> Fut<'_, SubscriptionListDto> {
    Box::pin(
        cx.route(Operation::ListSubscriptions, move |s, c| async move {
            let request = domain::monitoring::subscription::SubscriptionsRequest {
                limit: args.limit.map(|l| l.to_string()),
                status: args.status,
            };
            bodies::list_subscriptions(s, &c, &request).await
        }),
    )
}

fn subscribe_monitoring(cx: Ctx<'_>, args: SubscribeArgs) -> Fut<'_, SubscriptionDto> {
    Box::pin(
        cx.route(Operation::CreateSubscription, move |s, c| async move {
            bodies::create_subscription(s, &c, args.into()).await
        }),
    )
}
