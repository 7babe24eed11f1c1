//! The dispatcher: the runner inside every replica that pushes each endpoint's events.
//!
//! A pass claims due endpoints (across tenants, under a lease, never two replicas the same
//! one) and works them side by side; within one endpoint it sends the events after the
//! cursor one at a time, in `seq` order, and writes each attempt with what it does to the
//! cursor in one transaction. The first failure ends the endpoint's turn: it is due again
//! after the schedule's delay, and the events behind it wait, so none is skipped and the
//! order is kept. Everything lives in the store, so a restart (or another replica) carries on
//! where the last written attempt left off; an attempt whose answer was not yet written is
//! sent again, and receivers dedupe on `webhook-id` (the event id).
//!
//! What an endpoint receives is decided at each delivery: the events of its types in the
//! countries its grant may read now (as `GET /v1/events` would page them for that grant). A
//! grant that lapsed, or no longer holds `events:read`, disables its endpoints.

use crate::access::scope::Scope;
use crate::access::tenant::TenantStatus;
use crate::clock::Clock;
use crate::error::Failure;
use crate::evidence::Evidence;
use crate::ids::EventId;
use crate::monitoring::event::{EventData, EventQuery, EventType, NewEvent, PAGE_SCAN_WINDOW};
use crate::monitoring::ports::EventStore;
use crate::webhooks::endpoint::{
    ClaimedEndpoint, Delivery, DisabledReason, WebhookEndpoint, DELIVERY_LOG_DAYS,
};
use crate::webhooks::ports::{AfterAttempt, Outgoing, WebhookSender, WebhookStore, WebhookVault};
use crate::webhooks::service::WebhookSettings;
use chrono::{DateTime, Utc};
use std::sync::Arc;

pub struct WebhookDispatcher {
    pub meter: Arc<dyn crate::meter::Meter>,
    pub store: Arc<dyn WebhookStore>,
    pub events: Arc<dyn EventStore>,
    pub grants: Arc<dyn crate::access::ports::GrantStore>,
    pub vault: Arc<dyn WebhookVault>,
    pub sender: Arc<dyn WebhookSender>,
    pub clock: Arc<dyn Clock>,
    pub settings: WebhookSettings,
}

/// What one pass did, for the runner's log line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DispatchReport {
    pub endpoints: u32,
    pub delivered: u32,
    pub failed: u32,
    pub disabled: u32,
}

impl WebhookDispatcher {
    /// One pass: claims due endpoints and works each.
    pub async fn tick(&self) -> Result<DispatchReport, Failure> {
        let now = self.clock.now();
        let claims = self
            .store
            .claim_due_endpoints(now, now + self.settings.lease, self.settings.claim_limit)
            .await
            .map_err(Failure::internal)?;
        let mut report = DispatchReport {
            endpoints: u32::try_from(claims.len()).unwrap_or(u32::MAX),
            ..DispatchReport::default()
        };
        let turns = claims.iter().map(|c| self.turn(c));
        for turn in futures_util::future::join_all(turns).await {
            let t = turn?;
            report.delivered += t.delivered;
            report.failed += t.failed;
            report.disabled += t.disabled;
        }
        Ok(report)
    }

    /// Forgets up to `limit` delivery attempts older than [`DELIVERY_LOG_DAYS`] (the log
    /// stays the source of truth for the events themselves).
    pub async fn purge_deliveries(&self, limit: u32) -> Result<u64, Failure> {
        let before = self.clock.now() - chrono::Duration::days(DELIVERY_LOG_DAYS);
        self.store
            .purge_deliveries(before, limit)
            .await
            .map_err(Failure::internal)
    }

    /// One endpoint's turn.
    async fn turn(&self, claim: &ClaimedEndpoint) -> Result<DispatchReport, Failure> {
        let mut report = DispatchReport::default();
        let ep = &claim.endpoint;
        let now = self.clock.now();
        let access = self
            .grants
            .grant_access(&ep.tenant_id, &ep.grant_id)
            .await
            .map_err(Failure::internal)?;
        let Some(access) = access else {
            // The grant is gone: nothing is delivered, and the tenant is unknown to log to.
            self.disable(claim, DisabledReason::GrantLapsed, now, None)
                .await?;
            report.disabled += 1;
            return Ok(report);
        };
        let countries = access
            .grant
            .countries
            .intersection(&access.tenant.provisioned);
        if access.grant.lapse(now).is_some()
            || !access.grant.scopes.contains(Scope::EventsRead)
            || countries.is_empty()
        {
            let event = disabled_event(
                ep,
                DisabledReason::GrantLapsed,
                now,
                &access.tenant,
                &countries,
            );
            self.disable(claim, DisabledReason::GrantLapsed, now, Some(event))
                .await?;
            report.disabled += 1;
            return Ok(report);
        }
        if access.tenant.status != TenantStatus::Active {
            self.store
                .release_endpoint(claim, ep.cursor, now + self.settings.paused_wait)
                .await
                .map_err(Failure::internal)?;
            return Ok(report);
        }
        let secret = self
            .vault
            .open_webhook_secret(&ep.tenant_id, &access.data_key, &claim.sealed_secret)
            .map_err(Failure::internal)?;
        let page = self
            .events
            .events_page(
                &ep.tenant_id,
                &EventQuery {
                    after: ep.cursor,
                    limit: self.settings.batch,
                    scan_window: PAGE_SCAN_WINDOW.max(self.settings.batch),
                    countries: countries.clone(),
                    types: ep.types.clone(),
                },
            )
            .await
            .map_err(Failure::internal)?;
        let mut failures = ep.failures;
        let mut failing_since = ep.failing_since;
        let mut delivered_up_to = ep.cursor;
        for event in page.events {
            let sent_at = self.clock.now();
            if sent_at + self.settings.send_timeout >= claim.lease_until {
                // The lease would end while this event may still be under way: the turn ends
                // here, the endpoint due again at once, and the next claim goes on from here.
                self.store
                    .release_endpoint(claim, delivered_up_to, sent_at)
                    .await
                    .map_err(Failure::internal)?;
                return Ok(report);
            }
            let (result, duration_ms) = self
                .sender
                .send(Outgoing {
                    url: ep.url.clone(),
                    secret: secret.clone(),
                    event: event.clone(),
                    tenant_id: ep.tenant_id,
                    sent_at,
                })
                .await;
            let mut delivery = Delivery {
                number: 0,
                endpoint_id: ep.id,
                event_id: event.event.id,
                seq: event.seq,
                type_name: event.event.type_name.clone(),
                attempt: failures.saturating_add(1),
                attempted_at: sent_at,
                result,
                duration_ms,
                next_attempt_at: None,
            };
            self.meter.webhook_attempt(delivery.result.outcome());
            if delivery.result.delivered() {
                if !self
                    .record(claim, &delivery, &AfterAttempt::Advance)
                    .await?
                {
                    return Ok(report);
                }
                report.delivered += 1;
                delivered_up_to = event.seq;
                failures = 0;
                failing_since = None;
                continue;
            }
            report.failed += 1;
            let since = failing_since.unwrap_or(sent_at);
            let after = if self.settings.schedule.gives_up(since, sent_at) {
                report.disabled += 1;
                self.meter.webhook_attempt("disabled");
                let mut failing = ep.clone();
                failing.failing_since = Some(since);
                failing.failures = failures.saturating_add(1);
                failing.cursor = event.seq - 1;
                AfterAttempt::Disable {
                    event: Box::new(disabled_event(
                        &failing,
                        DisabledReason::Failing,
                        sent_at,
                        &access.tenant,
                        &countries,
                    )),
                }
            } else {
                let next = sent_at + self.settings.schedule.delay(failures.saturating_add(1));
                delivery.next_attempt_at = Some(next);
                AfterAttempt::Retry {
                    next_attempt_at: next,
                }
            };
            self.record(claim, &delivery, &after).await?;
            return Ok(report);
        }
        // Every event of the page went through (or none was the endpoint's): the cursor moves
        // past the events looked at, and the endpoint is due again at once.
        self.store
            .release_endpoint(claim, page.next_cursor.max(ep.cursor), self.clock.now())
            .await
            .map_err(Failure::internal)?;
        Ok(report)
    }

    async fn record(
        &self,
        claim: &ClaimedEndpoint,
        delivery: &Delivery,
        after: &AfterAttempt,
    ) -> Result<bool, Failure> {
        self.store
            .record_attempt(claim, delivery, after)
            .await
            .map_err(Failure::internal)
    }

    async fn disable(
        &self,
        claim: &ClaimedEndpoint,
        reason: DisabledReason,
        at: DateTime<Utc>,
        event: Option<NewEvent>,
    ) -> Result<(), Failure> {
        let ep = &claim.endpoint;
        self.store
            .disable_endpoint(&ep.tenant_id, &ep.grant_id, &ep.id, reason, at, event)
            .await
            .map_err(Failure::internal)?;
        Ok(())
    }
}

/// `webhook.endpoint_disabled`: filed under the tenant's own country when the owning grant
/// reads it, else under one the grant reads, so the grant that owns the endpoint finds it in
/// its log.
pub(crate) fn disabled_event(
    ep: &WebhookEndpoint,
    reason: DisabledReason,
    at: DateTime<Utc>,
    tenant: &crate::access::tenant::Tenant,
    countries: &crate::countries::country::CountrySet,
) -> NewEvent {
    let country = if countries.contains(tenant.own_country) {
        tenant.own_country
    } else {
        countries.iter().next().unwrap_or(tenant.own_country)
    };
    let mut data = vec![
        ("endpoint_id".to_owned(), EventData::Text(ep.id.to_string())),
        (
            "reason".to_owned(),
            EventData::Text(reason.as_str().to_owned()),
        ),
        ("last_delivered_seq".to_owned(), EventData::Int(ep.cursor)),
    ];
    if let Some(since) = ep.failing_since {
        data.push((
            "failing_since".to_owned(),
            EventData::Text(since.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
        ));
        data.push((
            "failed_attempts".to_owned(),
            EventData::Int(i64::from(ep.failures)),
        ));
    }
    NewEvent {
        id: EventId::generate(),
        idempotency_key: format!("{}:disabled:{}", ep.id, at.timestamp_micros()),
        type_name: EventType::WebhookEndpointDisabled.name().to_owned(),
        country,
        subject_id: None,
        subject_ref: None,
        subscription_id: None,
        occurred_at: at,
        data: EventData::Object(data),
        evidence: Evidence::derived(at),
    }
}
