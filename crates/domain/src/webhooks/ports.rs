//! Ports of webhooks: the endpoints with their cursors and delivery logs, the sealing of
//! their secrets, and the sending of one signed delivery.
//!
//! What every port promises (coarse, transactional, tenant-scoped) is in the crate's README,
//! "Ports".

use crate::access::tenant::WrappedDataKey;
use crate::error::{CryptoError, StoreError};
use crate::ids::{GrantId, TenantId, WebhookEndpointId};
use crate::monitoring::event::{LoggedEvent, NewEvent};
use crate::webhooks::endpoint::{
    AttemptResult, ClaimedEndpoint, Delivery, DisabledReason, EndpointUrl, SealedWebhookSecret,
    WebhookEndpoint, WebhookSecret,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// Where an endpoint's cursor starts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StartAt {
    /// After the newest event the tenant's log holds when the endpoint is stored.
    Head,
    /// After this `seq` (an earlier `next_cursor`): the events since are delivered first.
    After(i64),
}

/// What an attempt does to its endpoint, written with the attempt in one transaction.
#[derive(Clone, Debug, PartialEq)]
pub enum AfterAttempt {
    /// Delivered: the cursor moves to the event's `seq`, the failures are cleared and the
    /// endpoint is due again at once.
    Advance,
    /// Failed: one failure more, `failing_since` kept (or set to the attempt's time), due
    /// again at `next_attempt_at`.
    Retry { next_attempt_at: DateTime<Utc> },
    /// Failed for too long: the endpoint is disabled (`failing`) and `event` appended to the
    /// tenant's log.
    Disable { event: Box<NewEvent> },
}

/// Webhook endpoints, their cursors and delivery logs. Every read and change but the
/// dispatcher's claim names the tenant and the owning grant: an endpoint of another grant is
/// not found.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait WebhookStore: Send + Sync {
    /// Stores a new endpoint with its sealed secret, its cursor set as `start` says, in one
    /// transaction. Answers `None` (and writes nothing) when the grant already holds
    /// `max_per_grant` endpoints, counted atomically with the write.
    async fn create_endpoint(
        &self,
        endpoint: &WebhookEndpoint,
        secret: &SealedWebhookSecret,
        start: StartAt,
        max_per_grant: u32,
    ) -> Result<Option<WebhookEndpoint>, StoreError>;

    /// The grant's endpoints, oldest first.
    async fn endpoints(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
    ) -> Result<Vec<WebhookEndpoint>, StoreError>;

    async fn endpoint(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
        id: &WebhookEndpointId,
    ) -> Result<Option<WebhookEndpoint>, StoreError>;

    /// Disables the endpoint (`reason`, at `at`; `event` appended in the same transaction
    /// when given) unless it is disabled already; any lease is released. Answers the endpoint
    /// as stored afterwards.
    async fn disable_endpoint(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
        id: &WebhookEndpointId,
        reason: DisabledReason,
        at: DateTime<Utc>,
        event: Option<NewEvent>,
    ) -> Result<Option<WebhookEndpoint>, StoreError>;

    /// Makes a disabled endpoint active again at its cursor: its failures cleared, due at
    /// `at`. An active endpoint is left as it is. Answers the endpoint as stored afterwards.
    async fn enable_endpoint(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
        id: &WebhookEndpointId,
        at: DateTime<Utc>,
    ) -> Result<Option<WebhookEndpoint>, StoreError>;

    /// Replaces the endpoint's sealed secret (deliveries from now on are signed with the new
    /// one).
    async fn replace_secret(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
        id: &WebhookEndpointId,
        secret: &SealedWebhookSecret,
        at: DateTime<Utc>,
    ) -> Result<Option<WebhookEndpoint>, StoreError>;

    /// The dispatcher's queue, shared by every replica (a query across tenants): claims up to
    /// `limit` active endpoints due at `now`, whose lease (if any) has passed and whose
    /// tenant's log holds an event after their cursor, and leases each until `lease_until`.
    /// MUST skip endpoints another replica holds, so concurrent claims are disjoint.
    async fn claim_due_endpoints(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<ClaimedEndpoint>, StoreError>;

    /// Writes one attempt into the endpoint's delivery log (numbered after the last) and what
    /// it does to the endpoint (`after`), in one transaction. MUST write nothing and answer
    /// false when the claim no longer holds (its lease was taken over, or the endpoint was
    /// disabled or its cursor moved meanwhile).
    async fn record_attempt(
        &self,
        claim: &ClaimedEndpoint,
        delivery: &Delivery,
        after: &AfterAttempt,
    ) -> Result<bool, StoreError>;

    /// Ends a claim: the cursor moved to `cursor` (events the endpoint does not receive were
    /// passed over; never backwards) and the endpoint due again at `next_attempt_at`, the
    /// lease released. False (nothing written) when the claim no longer holds.
    async fn release_endpoint(
        &self,
        claim: &ClaimedEndpoint,
        cursor: i64,
        next_attempt_at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Forgets up to `limit` attempts (across tenants) made before `before`: the delivery
    /// log's retention. Answers how many were forgotten.
    async fn purge_deliveries(&self, before: DateTime<Utc>, limit: u32) -> Result<u64, StoreError>;

    /// The endpoint's delivery log: attempts numbered after `after`, oldest first, at most
    /// `limit`.
    async fn deliveries(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
        id: &WebhookEndpointId,
        after: i64,
        limit: u32,
    ) -> Result<Vec<Delivery>, StoreError>;
}

/// Endpoint secrets: made, sealed under the tenant's key and opened to sign a delivery.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait WebhookVault: Send + Sync {
    /// A fresh secret (`whsec_` + base64 of 32 random bytes).
    fn new_webhook_secret(&self) -> WebhookSecret;

    fn seal_webhook_secret(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        secret: &WebhookSecret,
    ) -> Result<SealedWebhookSecret, CryptoError>;

    fn open_webhook_secret(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        sealed: &SealedWebhookSecret,
    ) -> Result<WebhookSecret, CryptoError>;
}

/// One delivery to send: the event as the log shows it, to the endpoint's address, signed
/// with its secret.
#[derive(Clone, Debug)]
pub struct Outgoing {
    pub url: EndpointUrl,
    pub secret: WebhookSecret,
    pub event: LoggedEvent,
    pub tenant_id: TenantId,
    /// The attempt's time (the `webhook-timestamp`).
    pub sent_at: DateTime<Utc>,
}

/// Sends one delivery and says what came of it, with the time it took in milliseconds.
/// Never fails: a delivery that does not get through is an [`AttemptResult::Failed`].
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait WebhookSender: Send + Sync {
    async fn send(&self, outgoing: Outgoing) -> (AttemptResult, i64);
}
