//! The consumer's webhook operations: register an endpoint (its secret shown once), list and
//! read them, disable and enable one, rotate its secret, and read its delivery log.
//!
//! Scope model: `events:read` opens them all. An endpoint pushes the log its grant may read
//! anyway (the same events `GET /v1/events` pages, in the grant's countries as they are at
//! each delivery), so no new power is granted; it belongs to the grant that registered it,
//! which alone sees and manages it (another grant's endpoint is 404, like any id of another
//! tenant).

use crate::access::caller::Caller;
use crate::error::Failure;
use crate::ids::WebhookEndpointId;
use crate::monitoring::event::{parse_limit, EventType};
use crate::operation::Operation;
use crate::webhooks::endpoint::{
    Delivery, DisabledReason, EndpointStatus, EndpointUrl, RetrySchedule, WebhookEndpoint,
    WebhookSecret, MAX_DESCRIPTION_CHARS, MAX_ENDPOINTS_PER_GRANT,
};
use crate::webhooks::ports::{StartAt, WebhookStore, WebhookVault};
use chrono::Duration;
use std::sync::Arc;

/// How webhooks are delivered in this deployment.
#[derive(Clone, Debug, PartialEq)]
pub struct WebhookSettings {
    /// Whether endpoints may name a loopback host (and plain http to it): the demo and tests.
    pub allow_loopback: bool,
    pub schedule: RetrySchedule,
    /// How long a dispatcher holds an endpoint it claimed.
    pub lease: Duration,
    /// How many endpoints one pass claims.
    pub claim_limit: u32,
    /// How many events one claim of an endpoint sends at most.
    pub batch: u32,
    /// How long an endpoint of a tenant that is not active waits before it is looked at again.
    pub paused_wait: Duration,
    /// The longest one delivery may take (the sender's own time limit, and a margin): a turn
    /// sends no event that could still be under way when its lease ends, so a replica that
    /// takes the endpoint over never sends beside it.
    pub send_timeout: Duration,
}

impl Default for WebhookSettings {
    fn default() -> Self {
        WebhookSettings {
            allow_loopback: false,
            schedule: RetrySchedule::default(),
            lease: Duration::minutes(2),
            claim_limit: 16,
            batch: 100,
            paused_wait: Duration::minutes(5),
            send_timeout: Duration::seconds(20),
        }
    }
}

/// `POST /v1/webhooks` as the surfaces read it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CreateEndpointRequest {
    pub url: String,
    pub types: Option<Vec<String>>,
    pub description: Option<String>,
    /// Deliver the events after this `seq` (an earlier `next_cursor`); absent: only events
    /// logged from now on.
    pub start_after: Option<i64>,
}

/// An endpoint with its secret in the clear: the answer of a create and of a rotation, the
/// only times the secret is shown.
#[derive(Clone, Debug)]
pub struct EndpointWithSecret {
    pub endpoint: WebhookEndpoint,
    pub secret: WebhookSecret,
}

/// A page of an endpoint's delivery log.
#[derive(Clone, Debug, PartialEq)]
pub struct DeliveryPage {
    pub deliveries: Vec<Delivery>,
    /// The cursor to ask with next (the attempt number of the last one shown, or the cursor
    /// asked with when none).
    pub next_cursor: i64,
}

pub struct WebhookService {
    pub store: Arc<dyn WebhookStore>,
    pub vault: Arc<dyn WebhookVault>,
    pub clock: Arc<dyn crate::clock::Clock>,
    pub settings: WebhookSettings,
}

impl WebhookService {
    /// `POST /v1/webhooks` (201).
    pub async fn create(
        &self,
        caller: &Caller,
        request: CreateEndpointRequest,
    ) -> Result<EndpointWithSecret, Failure> {
        caller.require_operation(Operation::CreateWebhookEndpoint)?;
        let url = EndpointUrl::parse(&request.url, self.settings.allow_loopback)?;
        let types = check_types(request.types)?;
        let description = check_description(request.description)?;
        let start = match request.start_after {
            None => StartAt::Head,
            Some(n) if n >= 0 => StartAt::After(n),
            Some(_) => {
                return Err(Failure::bad_request(
                    "start_after",
                    "must be 0 or a next_cursor returned earlier",
                ))
            }
        };
        let now = self.clock.now();
        let secret = self.vault.new_webhook_secret();
        let sealed = self
            .vault
            .seal_webhook_secret(&caller.tenant_id, &caller.data_key, &secret)
            .map_err(Failure::internal)?;
        let endpoint = WebhookEndpoint {
            id: WebhookEndpointId::generate(),
            tenant_id: caller.tenant_id,
            grant_id: caller.grant_id,
            url,
            types,
            description,
            status: EndpointStatus::Active,
            disabled_reason: None,
            disabled_at: None,
            cursor: 0,
            failures: 0,
            failing_since: None,
            next_attempt_at: now,
            attempts: 0,
            created_at: now,
            secret_rotated_at: None,
        };
        let stored = self
            .store
            .create_endpoint(&endpoint, &sealed, start, MAX_ENDPOINTS_PER_GRANT)
            .await
            .map_err(Failure::internal)?
            .ok_or_else(|| {
                Failure::new(
                    crate::error::ErrorCode::WebhookLimitReached,
                    format!(
                        "this credential holds {MAX_ENDPOINTS_PER_GRANT} webhook endpoints \
                         already, the most one may hold"
                    ),
                )
            })?;
        Ok(EndpointWithSecret {
            endpoint: stored,
            secret,
        })
    }

    /// `GET /v1/webhooks`: the caller's grant's endpoints, oldest first.
    pub async fn list(&self, caller: &Caller) -> Result<Vec<WebhookEndpoint>, Failure> {
        caller.require_operation(Operation::ListWebhookEndpoints)?;
        self.store
            .endpoints(&caller.tenant_id, &caller.grant_id)
            .await
            .map_err(Failure::internal)
    }

    /// `GET /v1/webhooks/{id}`.
    pub async fn get(&self, caller: &Caller, id: &str) -> Result<WebhookEndpoint, Failure> {
        caller.require_operation(Operation::GetWebhookEndpoint)?;
        let id = endpoint_id(id)?;
        self.store
            .endpoint(&caller.tenant_id, &caller.grant_id, &id)
            .await
            .map_err(Failure::internal)?
            .ok_or_else(not_found)
    }

    /// `POST /v1/webhooks/{id}/disable`: no delivery follows until it is enabled again.
    pub async fn disable(&self, caller: &Caller, id: &str) -> Result<WebhookEndpoint, Failure> {
        caller.require_operation(Operation::DisableWebhookEndpoint)?;
        let id = endpoint_id(id)?;
        self.store
            .disable_endpoint(
                &caller.tenant_id,
                &caller.grant_id,
                &id,
                DisabledReason::Consumer,
                self.clock.now(),
                None,
            )
            .await
            .map_err(Failure::internal)?
            .ok_or_else(not_found)
    }

    /// `POST /v1/webhooks/{id}/enable`: deliveries resume at the endpoint's cursor (the first
    /// event it has not received), however it was disabled.
    pub async fn enable(&self, caller: &Caller, id: &str) -> Result<WebhookEndpoint, Failure> {
        caller.require_operation(Operation::EnableWebhookEndpoint)?;
        let id = endpoint_id(id)?;
        self.store
            .enable_endpoint(&caller.tenant_id, &caller.grant_id, &id, self.clock.now())
            .await
            .map_err(Failure::internal)?
            .ok_or_else(not_found)
    }

    /// `POST /v1/webhooks/{id}/rotate-secret`: a new secret, shown once; the old one signs
    /// nothing from now on.
    pub async fn rotate_secret(
        &self,
        caller: &Caller,
        id: &str,
    ) -> Result<EndpointWithSecret, Failure> {
        caller.require_operation(Operation::RotateWebhookSecret)?;
        let id = endpoint_id(id)?;
        let secret = self.vault.new_webhook_secret();
        let sealed = self
            .vault
            .seal_webhook_secret(&caller.tenant_id, &caller.data_key, &secret)
            .map_err(Failure::internal)?;
        let endpoint = self
            .store
            .replace_secret(
                &caller.tenant_id,
                &caller.grant_id,
                &id,
                &sealed,
                self.clock.now(),
            )
            .await
            .map_err(Failure::internal)?
            .ok_or_else(not_found)?;
        Ok(EndpointWithSecret { endpoint, secret })
    }

    /// `GET /v1/webhooks/{id}/deliveries`: the endpoint's attempts, oldest first, after
    /// `cursor` (an attempt number; 0 or absent: from the first).
    pub async fn deliveries(
        &self,
        caller: &Caller,
        id: &str,
        cursor: Option<&str>,
        limit: Option<&str>,
    ) -> Result<DeliveryPage, Failure> {
        caller.require_operation(Operation::ListWebhookDeliveries)?;
        let id = endpoint_id(id)?;
        let after = match cursor {
            None => 0,
            Some(c) => crate::monitoring::event::parse_cursor(c)?,
        };
        let limit = parse_limit(limit)?;
        // An endpoint of another grant is not found, not an empty log.
        self.store
            .endpoint(&caller.tenant_id, &caller.grant_id, &id)
            .await
            .map_err(Failure::internal)?
            .ok_or_else(not_found)?;
        let deliveries = self
            .store
            .deliveries(&caller.tenant_id, &caller.grant_id, &id, after, limit)
            .await
            .map_err(Failure::internal)?;
        let next_cursor = deliveries.last().map_or(after, |d| d.number.max(after));
        Ok(DeliveryPage {
            deliveries,
            next_cursor,
        })
    }
}

fn endpoint_id(id: &str) -> Result<WebhookEndpointId, Failure> {
    id.parse().map_err(|_| not_found())
}

fn not_found() -> Failure {
    Failure::not_found("webhook endpoint")
}

/// `types`: names of event types (`subscription.*` for that family), at least one, each
/// once.
fn check_types(types: Option<Vec<String>>) -> Result<Option<Vec<String>>, Failure> {
    let Some(types) = types else { return Ok(None) };
    let mut kept: Vec<String> = Vec::new();
    for name in types {
        if !EventType::ALL.iter().any(|t| t.name() == name) {
            return Err(Failure::bad_request(
                "types",
                "must be event type names (see contract/event-types.json)",
            ));
        }
        if !kept.contains(&name) {
            kept.push(name);
        }
    }
    if kept.is_empty() {
        return Err(Failure::bad_request(
            "types",
            "must name at least one event type (leave it out for every type)",
        ));
    }
    Ok(Some(kept))
}

fn check_description(d: Option<String>) -> Result<Option<String>, Failure> {
    let Some(d) = d else { return Ok(None) };
    if d.chars().count() > MAX_DESCRIPTION_CHARS || d.chars().any(char::is_control) {
        return Err(Failure::bad_request(
            "description",
            &format!(
                "must be at most {MAX_DESCRIPTION_CHARS} characters, without control characters"
            ),
        ));
    }
    Ok(Some(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_are_checked_and_kept_once() {
        assert_eq!(check_types(None).unwrap(), None);
        assert_eq!(
            check_types(Some(vec![
                "screening.changed".into(),
                "subscription.*".into(),
                "screening.changed".into()
            ]))
            .unwrap(),
            Some(vec!["screening.changed".into(), "subscription.*".into()])
        );
        assert!(check_types(Some(vec![])).is_err());
        assert!(check_types(Some(vec!["company.renamed".into()])).is_err());
    }

    #[test]
    fn descriptions_are_bounded() {
        assert!(check_description(Some("ops pager".into())).is_ok());
        assert!(check_description(Some("x".repeat(201))).is_err());
        assert!(check_description(Some("a\u{0}b".into())).is_err());
    }
}
