//! Ports of screening: sanctions-list versions, policies, overrides, whitelists, checks, and
//! the vault that seals screening inputs.
//!
//! What every port promises (coarse, transactional, tenant-scoped) is in the crate's README,
//! "Ports".

use crate::countries::country::CountrySet;
use crate::error::{CryptoError, StoreError};
use crate::ids::{SubjectId, TenantId};
use async_trait::async_trait;

/// Sanctions lists: immutable imported versions and which one of each list is active. Lists
/// are reference data shared by every tenant (not tenant-owned).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait SanctionsListStore: Send + Sync {
    /// Stores a complete read of a list as `version` with its entries and makes it the list's
    /// active version, in one transaction: until it commits the previous version stays
    /// active, and a failure leaves everything as it was. When the list already has a version
    /// with the same digest (the same file), nothing is stored and that version becomes the
    /// active one again (`AlreadyStored`).
    ///
    /// When the active version changes, the same transaction records a
    /// [`ListChange`](crate::screening::sanctions::ListChange) (`from` the version active
    /// before). A change of the list not yet begun (unclaimed, no progress) is extended
    /// instead (its `to` becomes the new version, its `from` stays), so a list imported twice
    /// before re-screening is worked once, from the version subjects were last screened at.
    async fn import_version(
        &self,
        version: &crate::screening::sanctions::SourceVersion,
        entries: &[crate::screening::sanctions::ListEntry],
    ) -> Result<crate::screening::sanctions::ImportOutcome, StoreError>;

    /// Records an import that failed (the active version stays).
    async fn record_failed_import(
        &self,
        failure: &crate::screening::sanctions::FailedImport,
    ) -> Result<(), StoreError>;

    /// Every list's active version, with the last failed import since it became active.
    async fn active_lists(
        &self,
    ) -> Result<Vec<crate::screening::sanctions::ActiveList>, StoreError>;

    /// The entries of a stored version, in the order they were imported.
    async fn version_entries(
        &self,
        id: &crate::screening::sanctions::SourceVersionId,
    ) -> Result<Vec<crate::screening::sanctions::ListEntry>, StoreError>;

    /// One stored version's record, active or not.
    async fn source_version(
        &self,
        id: &crate::screening::sanctions::SourceVersionId,
    ) -> Result<Option<crate::screening::sanctions::SourceVersion>, StoreError>;

    /// Claims the oldest list change not yet done, until `lease_until`, when no replica
    /// holds it (its lease, if any, has passed at `now`). Changes are worked one at a time,
    /// oldest first: while the oldest is held, nothing is claimed.
    async fn claim_list_change(
        &self,
        now: chrono::DateTime<chrono::Utc>,
        lease_until: chrono::DateTime<chrono::Utc>,
    ) -> Result<Option<crate::screening::sanctions::ClaimedListChange>, StoreError>;

    /// Records progress on a claimed change: the last subscription worked (`after`), the
    /// lease renewed to `lease_until`, and `done_at` when the work is complete. MUST change
    /// nothing and answer false when the claim no longer holds (its lease was taken over).
    async fn advance_list_change(
        &self,
        claim: &crate::screening::sanctions::ClaimedListChange,
        after: Option<crate::screening::sanctions::RescreenCursor>,
        lease_until: chrono::DateTime<chrono::Utc>,
        done_at: Option<chrono::DateTime<chrono::Utc>>,
    ) -> Result<bool, StoreError>;
}

/// What a check needs of the service's and the tenant's screening configuration, read in one
/// round trip.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScreeningContext {
    /// The service's active policy version (`None`: no check can run).
    pub policy: Option<crate::screening::policy::PolicyVersion>,
    /// The tenant's active override version.
    pub override_version: Option<crate::screening::policy::OverrideVersion>,
    /// The tenant's whitelist entries in effect at the time asked.
    pub whitelist: Vec<crate::screening::whitelist::WhitelistEntry>,
}

/// Screening policies (service-wide), tenants' override versions and whitelists, and the
/// append-only checks.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ScreeningStore: Send + Sync {
    /// The active policy version, the tenant's active override version and its whitelist
    /// entries in effect at `at`, in one read.
    async fn screening_context(
        &self,
        tenant: &TenantId,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<ScreeningContext, StoreError>;

    /// Appends a check. Checks are never updated or deleted.
    async fn insert_check(
        &self,
        check: &crate::screening::check::StoredCheck,
    ) -> Result<(), StoreError>;

    /// Appends a check made by re-screening a monitored subject and the events it gave, in
    /// one transaction under the subscription's row lock, as
    /// [`SubscriptionStore::record_reading`](crate::monitoring::ports::SubscriptionStore::record_reading)
    /// does: `None` (nothing written) when the subscription is no longer active. When the
    /// tenant's log already holds the first event's idempotency key (the same work done
    /// again after a crash), nothing is written and the logged `seq`s are answered.
    async fn record_screening_change(
        &self,
        tenant: &TenantId,
        subscription: &crate::ids::SubscriptionId,
        check: &crate::screening::check::StoredCheck,
        events: &[crate::monitoring::event::NewEvent],
    ) -> Result<Option<Vec<i64>>, StoreError>;

    /// One of the tenant's checks (its subject read as its canonical id now, with aliases).
    async fn check(
        &self,
        tenant: &TenantId,
        id: &crate::ids::ScreeningCheckId,
    ) -> Result<Option<crate::screening::check::StoredCheck>, StoreError>;

    /// The tenant's checks, newest first (`checked_at`, then id), of `subject` when given
    /// (asked by its canonical id or an alias, the checks made under any of its ids),
    /// readable within `countries` (a check with no country is readable by every caller), at
    /// most `limit`.
    async fn checks(
        &self,
        tenant: &TenantId,
        subject: Option<SubjectId>,
        countries: &CountrySet,
        limit: u32,
    ) -> Result<Vec<crate::screening::check::StoredCheck>, StoreError>;

    /// Publishes a new policy version (numbered after the newest) and makes it the active
    /// one, retiring the previously active one, in one transaction.
    async fn publish_policy(
        &self,
        id: crate::ids::PolicyVersionId,
        config: &crate::screening::policy::PolicyConfig,
        created_by: &str,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<crate::screening::policy::PolicyVersion, StoreError>;

    /// Makes `id` no longer active (no policy is active afterwards unless another is
    /// published). `None` when there is no such version.
    async fn retire_policy(
        &self,
        id: &crate::ids::PolicyVersionId,
    ) -> Result<Option<crate::screening::policy::PolicyVersion>, StoreError>;

    /// Every policy version, newest first.
    async fn policies(&self) -> Result<Vec<crate::screening::policy::PolicyVersion>, StoreError>;

    /// Stores a new draft override version for the tenant, numbered after its newest.
    async fn propose_override(
        &self,
        tenant: &TenantId,
        id: crate::ids::OverrideVersionId,
        config: &crate::screening::policy::OverrideConfig,
        proposed_by: &str,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<crate::screening::policy::OverrideVersion, StoreError>;

    /// Moves an override version from `from` to `to` (setting `approved_by` when given, and
    /// `effective_from` = `at` when `to` is active), only if it is still in `from`. Moving to
    /// `active` retires the tenant's active version in the same transaction, so exactly one
    /// is active at a time. `None` when the version does not exist or is no longer in
    /// `from`.
    async fn move_override<'a>(
        &self,
        tenant: &TenantId,
        id: &crate::ids::OverrideVersionId,
        from: crate::screening::policy::OverrideStatus,
        to: crate::screening::policy::OverrideStatus,
        approved_by: Option<&'a str>,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<Option<crate::screening::policy::OverrideVersion>, StoreError>;

    /// One of the tenant's override versions.
    async fn override_version(
        &self,
        tenant: &TenantId,
        id: &crate::ids::OverrideVersionId,
    ) -> Result<Option<crate::screening::policy::OverrideVersion>, StoreError>;

    /// The tenant's override versions, newest first.
    async fn overrides(
        &self,
        tenant: &TenantId,
    ) -> Result<Vec<crate::screening::policy::OverrideVersion>, StoreError>;

    /// Stores a new (unapproved) whitelist entry.
    async fn add_whitelist_entry(
        &self,
        entry: &crate::screening::whitelist::WhitelistEntry,
    ) -> Result<(), StoreError>;

    /// Approves an entry that is unapproved, unrevoked and created by someone other than
    /// `approver`. `None` when no such entry is waiting.
    async fn approve_whitelist_entry(
        &self,
        tenant: &TenantId,
        id: &crate::ids::WhitelistEntryId,
        approver: &str,
    ) -> Result<Option<crate::screening::whitelist::WhitelistEntry>, StoreError>;

    /// Revokes an entry not yet revoked. `None` when there is no such entry or it is revoked
    /// already.
    async fn revoke_whitelist_entry(
        &self,
        tenant: &TenantId,
        id: &crate::ids::WhitelistEntryId,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<Option<crate::screening::whitelist::WhitelistEntry>, StoreError>;

    /// One of the tenant's whitelist entries.
    async fn whitelist_entry(
        &self,
        tenant: &TenantId,
        id: &crate::ids::WhitelistEntryId,
    ) -> Result<Option<crate::screening::whitelist::WhitelistEntry>, StoreError>;

    /// The tenant's whitelist entries, newest first.
    async fn whitelist(
        &self,
        tenant: &TenantId,
    ) -> Result<Vec<crate::screening::whitelist::WhitelistEntry>, StoreError>;
}

/// Keeps screening inputs under the tenant's keys: sealed for storage, and a keyed hash
/// (`input_hash`) that names an input without revealing it.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait ScreeningVault: Send + Sync {
    fn seal_check_input(
        &self,
        tenant: &TenantId,
        key: &crate::access::tenant::WrappedDataKey,
        input: &crate::screening::check::CheckInput,
    ) -> Result<crate::screening::check::SealedCheckInput, CryptoError>;

    fn open_check_input(
        &self,
        tenant: &TenantId,
        key: &crate::access::tenant::WrappedDataKey,
        sealed: &crate::screening::check::SealedCheckInput,
    ) -> Result<crate::screening::check::CheckInput, CryptoError>;

    /// `hmac-sha256:<hex>` of `canonical` under a key derived from the tenant's data key.
    fn input_hash(
        &self,
        tenant: &TenantId,
        key: &crate::access::tenant::WrappedDataKey,
        canonical: &str,
    ) -> Result<String, CryptoError>;
}
