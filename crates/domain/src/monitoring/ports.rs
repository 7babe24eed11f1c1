//! Ports of monitoring: the per-tenant event log and the subscriptions with their runs.
//!
//! What every port promises (coarse, transactional, tenant-scoped) is in the crate's README,
//! "Ports".

use crate::error::StoreError;
use crate::ids::{SubjectId, SubscriptionId, TenantId};
use crate::monitoring::event::{EventPage, EventQuery, NewEvent};
use crate::monitoring::subscription::{
    ClaimedRun, KnownNames, MonitoringBaseline, RunOutcome, Subscription, SubscriptionFilter,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// The per-tenant event log.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait EventStore: Send + Sync {
    /// Appends events to the tenant's log in one transaction and answers their `seq`s, in
    /// order. MUST give each the tenant's next `seq` under a per-tenant lock held until the
    /// commit, so concurrent writers (several replicas) never leave a gap or a duplicate and
    /// a rolled-back append leaves no hole. An event whose idempotency key the tenant's log
    /// already holds is not appended again: its existing `seq` is answered.
    ///
    /// An event naming a subject without a `subject_ref` MUST be logged with the subject's
    /// first customer reference (the earliest attached; of two attached at once, the lesser),
    /// as the store holds it in the appending transaction, or none when it has none.
    async fn append_events(
        &self,
        tenant: &TenantId,
        events: &[NewEvent],
    ) -> Result<Vec<i64>, StoreError>;

    /// One page of the tenant's log: events after `query.after` in `seq` order, among the
    /// next `query.scan_window` at most, filtered by country and type, at most `query.limit`
    /// of them. `next_cursor` is the last `seq` looked at (`query.after` when none).
    async fn events_page(
        &self,
        tenant: &TenantId,
        query: &EventQuery,
    ) -> Result<EventPage, StoreError>;
}

/// Monitoring subscriptions. Each change of one is written with its lifecycle event, in one
/// transaction (the event gets its `seq` as `EventStore::append_events` gives it).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait SubscriptionStore: Send + Sync {
    /// Stores a new subscription and appends `event`. The subscription is stored under its
    /// subject's canonical id as of the write (a merge committed since the subject was read
    /// is followed); answers it as stored, with the subject's aliases.
    ///
    /// # Errors
    /// MUST return `SubscriptionExists` (and write nothing) when the tenant has a subscription
    /// of the same subject (under any of its ids) and kind that has not ended, checked
    /// atomically with the write: of concurrent creates, and of a create and a merge, one
    /// wins.
    async fn create_subscription(
        &self,
        tenant: &TenantId,
        subscription: &Subscription,
        event: &NewEvent,
    ) -> Result<Subscription, StoreError>;

    /// The tenant's subscriptions of the subject (asked by its canonical id or an alias)
    /// that have not ended, oldest first.
    async fn unended_subscriptions(
        &self,
        tenant: &TenantId,
        subject: &SubjectId,
    ) -> Result<Vec<Subscription>, StoreError>;

    async fn subscription(
        &self,
        tenant: &TenantId,
        id: &SubscriptionId,
    ) -> Result<Option<Subscription>, StoreError>;

    /// The scheduler's queue, shared by every replica (one of the few queries across
    /// tenants; each claimed row is then acted on under its own tenant): claims up to `limit`
    /// active subscriptions due at `now` whose lease, if any, has passed, and leases each
    /// until `lease_until`. MUST skip rows another replica holds (row locks with
    /// `SKIP LOCKED`), so concurrent claims are disjoint and none waits on another.
    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<ClaimedRun>, StoreError>;

    /// Completes a claimed run: the next due time and the run's dates, the lease released.
    /// MUST change nothing and answer false when the claim no longer holds (its lease was
    /// taken over after expiring) or the subscription is no longer active.
    async fn complete_run(
        &self,
        run: &ClaimedRun,
        outcome: &RunOutcome,
    ) -> Result<bool, StoreError>;

    /// Moves a subscription from `expected` to the state `updated` holds (status, suspension
    /// and next run) and appends `event`, in one transaction; false (nothing written) when
    /// it is no longer in `expected`.
    async fn transition_subscription(
        &self,
        tenant: &TenantId,
        expected: crate::monitoring::subscription::SubscriptionStatus,
        updated: &Subscription,
        event: &NewEvent,
    ) -> Result<bool, StoreError>;

    /// What monitoring last saw of the subscription's subject (parts never read are `None`).
    async fn baseline(
        &self,
        tenant: &TenantId,
        subscription: &SubscriptionId,
    ) -> Result<MonitoringBaseline, StoreError>;

    /// Records a reading of the subscription's subject and the events it gave, in one
    /// transaction: the parts `reading` holds replace the baseline's (the others stay), and
    /// `events` are appended as by [`EventStore::append_events`] (idempotency keys kept once).
    /// So a crash either loses the whole reading, which the next run makes again, or keeps
    /// it with its events: a change is never lost nor logged twice. The subscription's row is
    /// locked for the transaction; when it is no longer active (ended or suspended meanwhile)
    /// nothing is written and the answer is `None`: change events exist only while a
    /// subscription is active. A scheduled run names its lease (`lease_until` of its claim):
    /// once another replica has taken the run over, the late reading writes nothing either,
    /// so an older reading never replaces a newer baseline.
    async fn record_reading(
        &self,
        tenant: &TenantId,
        subscription: &SubscriptionId,
        lease: Option<DateTime<Utc>>,
        reading: &MonitoringBaseline,
        events: &[NewEvent],
    ) -> Result<Option<Vec<i64>>, StoreError>;

    /// Purges up to `limit` ended subscriptions whose `purge_after` has passed at `now`
    /// (across tenants; rows another replica is purging are skipped): each of its events
    /// keeps its envelope with `data` `{purged: true}`, its baseline is deleted, and so is the
    /// tenant's cached data of the subject unless another subscription that has not been
    /// purged still watches it. Each subscription is purged once, in one transaction.
    /// Answers the purged subscriptions.
    async fn purge_due(
        &self,
        now: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<(TenantId, SubscriptionId)>, StoreError>;

    /// The tenant's active subscription of `kind` watching the subject (asked by its
    /// canonical id or an alias), if any.
    async fn active_subscription(
        &self,
        tenant: &TenantId,
        subject: &SubjectId,
        kind: crate::monitoring::subscription::SubscriptionKind,
    ) -> Result<Option<Subscription>, StoreError>;

    /// The names monitoring holds of each subscription's subject ([`KnownNames`]), for a page
    /// of subscriptions at once (ongoing screening's first pass over a list change): one read
    /// of the page, whatever its size. A subscription without cached profiles or baseline
    /// parts is answered with empty names (or left out).
    async fn known_names(
        &self,
        subscriptions: &[(TenantId, SubscriptionId)],
    ) -> Result<Vec<(TenantId, SubscriptionId, KnownNames)>, StoreError>;

    /// Active subscriptions across tenants in `(tenant, subscription)` order, after `after`,
    /// at most `limit` (the re-screening of a list change pages through them).
    async fn active_subscriptions_after(
        &self,
        after: Option<(TenantId, SubscriptionId)>,
        limit: u32,
    ) -> Result<Vec<(TenantId, Subscription)>, StoreError>;

    /// The tenant's subscriptions of the filter's kinds (and status), newest first.
    async fn subscriptions(
        &self,
        tenant: &TenantId,
        filter: &SubscriptionFilter,
    ) -> Result<Vec<Subscription>, StoreError>;

    /// Ends the subscription as `ended` says (status, `ended_at`, `purge_after`, no next run)
    /// and appends `event`, unless it has ended already. Answers the subscription as stored
    /// afterwards and whether this call ended it; `None` when the tenant has no such one.
    async fn end_subscription(
        &self,
        tenant: &TenantId,
        ended: &Subscription,
        event: &NewEvent,
    ) -> Result<Option<(Subscription, bool)>, StoreError>;
}
