//! Port traits: what the domain needs from the outside world, in the domain's own words.
//!
//! Ports are coarse and transactional (`resolve_or_create_subject`, `record_access`), never
//! table CRUD, so each storage adapter can use its database well and one conformance suite
//! can test every adapter. All are `Send + Sync`; their futures are `Send`.
//!
//! Every tenant-owned operation takes the `TenantId` and MUST scope all its reads and writes
//! by it.

use crate::audit::{AccessRecord, SecurityRecord};
use crate::budget::{BudgetUsage, Spend};
use crate::company::{
    CachedProfile, CompanyProfile, DocumentFetch, Fetch, ProfileFetch, UpstreamCall,
};
use crate::country::{Country, CountrySet};
use crate::event::{EventPage, EventQuery, NewEvent};
use crate::evidence::Evidence;
use crate::grant::{ClientSecret, Grant, SecretHash};
use crate::identifier::{Identifier, IdentifierType};
use crate::ids::{CallRef, ClientId, GrantId, IdentifierRef, SubjectId, SubscriptionId, TenantId};
use crate::paid::{
    CachedPaid, EngagementPage, FetchedOfficers, FetchedOwners, PaidKey, PaidObject,
};
use crate::person::{PersonAtRef, PersonProfile, RegisterPerson, SealedPerson};
use crate::scope::ScopeSet;
use crate::subject::{
    FreshSubject, IdentifierHolder, ProtectedIdentifier, Resolution, SubjectHandle, SubjectRecord,
};
use crate::subscription::{
    ClaimedRun, MonitoringBaseline, RunOutcome, Subscription, SubscriptionFilter,
};
use crate::tenant::{Budget, Permit, Tenant, TenantStatus, WrappedDataKey};
use crate::token::{TokenClaims, TokenRejection};
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};

pub use crate::error::StoreError;

/// A grant together with what the guard needs of its tenant, loaded in one read.
#[derive(Clone, Debug)]
pub struct GrantAccess {
    pub grant: Grant,
    pub tenant: Tenant,
    pub data_key: WrappedDataKey,
}

/// Tenants, their permits and budgets (operator side).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait TenantStore: Send + Sync {
    async fn insert_tenant(
        &self,
        tenant: &Tenant,
        data_key: &WrappedDataKey,
    ) -> Result<(), StoreError>;

    /// # Errors
    /// `NotFound` when no such tenant exists.
    async fn tenant(&self, id: &TenantId) -> Result<Tenant, StoreError>;

    async fn set_tenant_status(
        &self,
        id: &TenantId,
        status: TenantStatus,
    ) -> Result<Tenant, StoreError>;

    /// Replaces the provisioned set.
    ///
    /// # Errors
    /// MUST return `GrantsOutsideCountries` (and change nothing) when a grant that is not
    /// revoked carries a country outside `countries`, checked atomically with the write.
    async fn set_provisioned_countries(
        &self,
        id: &TenantId,
        countries: &CountrySet,
    ) -> Result<Tenant, StoreError>;

    /// Records a new permit; it becomes the tenant's current one.
    async fn record_permit(&self, id: &TenantId, permit: &Permit) -> Result<Tenant, StoreError>;

    async fn set_budget(&self, id: &TenantId, budget: &Budget) -> Result<Tenant, StoreError>;

    /// Sets how many days an ended subscription's events keep their data.
    async fn set_retention(&self, id: &TenantId, days: u32) -> Result<Tenant, StoreError>;

    /// The tenant with its data key, for work done on its behalf without a consumer's
    /// request (scheduled monitoring).
    ///
    /// # Errors
    /// `NotFound` when no such tenant exists.
    async fn tenant_with_key(&self, id: &TenantId) -> Result<(Tenant, WrappedDataKey), StoreError>;
}

/// Grants and their client credentials.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait GrantStore: Send + Sync {
    /// # Errors
    /// MUST return `GrantsOutsideCountries` when the grant's countries are not a subset of
    /// the tenant's provisioned countries at the moment of the write; `NotFound` when the
    /// tenant does not exist.
    async fn insert_grant(&self, grant: &Grant, secret_hash: &SecretHash)
        -> Result<(), StoreError>;

    /// The tenant a grant belongs to, from the credential directory (a global table, as it
    /// must be: operator commands name a grant by its id alone). `None` for an unknown id.
    /// Every other grant operation is scoped by the tenant this answers.
    async fn grant_tenant(&self, id: &GrantId) -> Result<Option<TenantId>, StoreError>;

    /// # Errors
    /// `NotFound` when the tenant has no such grant.
    async fn grant(&self, tenant: &TenantId, id: &GrantId) -> Result<Grant, StoreError>;

    /// Replaces scopes and/or countries. Same country rule as `insert_grant`.
    async fn update_grant<'a>(
        &self,
        tenant: &TenantId,
        id: &GrantId,
        scopes: Option<&'a ScopeSet>,
        countries: Option<&'a CountrySet>,
    ) -> Result<Grant, StoreError>;

    /// Revokes the grant (revoking twice keeps the first time).
    async fn revoke_grant(
        &self,
        tenant: &TenantId,
        id: &GrantId,
        at: DateTime<Utc>,
    ) -> Result<Grant, StoreError>;

    /// Stores a new secret hash and bumps the credential generation in one write.
    async fn rotate_secret(
        &self,
        tenant: &TenantId,
        id: &GrantId,
        new_hash: &SecretHash,
    ) -> Result<Grant, StoreError>;

    /// The grant (with tenant) a client id belongs to, and its secret hash.
    async fn credentials(
        &self,
        client_id: &ClientId,
    ) -> Result<Option<(GrantAccess, SecretHash)>, StoreError>;

    /// The grant and tenant a token names; `None` when either is unknown.
    async fn grant_access(
        &self,
        tenant: &TenantId,
        grant: &GrantId,
    ) -> Result<Option<GrantAccess>, StoreError>;
}

/// The audit trail.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait AuditSink: Send + Sync {
    /// Writes each record as a row of its tenant's audit log and of its grant's access log,
    /// all in one transaction; durable when it returns.
    async fn record_access(&self, records: &[AccessRecord]) -> Result<(), StoreError>;

    /// Writes one security-log row (unauthenticated or unattributable requests).
    async fn record_security(&self, record: &SecurityRecord) -> Result<(), StoreError>;
}

/// Subjects, their identifiers and customer references.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait SubjectStore: Send + Sync {
    /// Finds the subject holding the identifier (by blind index) or creates it with the
    /// fresh ids given, then attaches the customer reference if one is given.
    ///
    /// # Errors
    /// MUST return `RefConflict` (and create nothing) when the reference is attached to a
    /// different subject. MUST be safe under concurrent calls for the same identifier: both
    /// get the same subject.
    async fn resolve_or_create_subject<'a>(
        &self,
        tenant: &TenantId,
        identifier: &ProtectedIdentifier,
        customer_ref: Option<&'a str>,
        fresh: &FreshSubject,
    ) -> Result<Resolution, StoreError>;

    /// # Errors
    /// `NotFound` when the tenant has no such subject.
    async fn subject(&self, tenant: &TenantId, id: &SubjectId)
        -> Result<SubjectRecord, StoreError>;

    /// Carries out `merge` (both subjects canonical subjects of the tenant, of one kind) in
    /// one transaction: `from`, and every id merged into it, becomes an alias of `into` (one
    /// hop); `from`'s identifiers, customer references, subscriptions, cached company,
    /// person and paid data, document ids and whitelist entries move to `into`; each
    /// subscription in `merge.ended` that has not ended meanwhile ends with its event; then
    /// the merge event is appended. Screening checks stay as written.
    ///
    /// # Errors
    /// `NotFound` when the tenant has no such subject. `SubscriptionExists` (nothing written)
    /// when a subscription of `from` left unended would make two unended subscriptions of
    /// `into` of one kind (one created since the merge was planned): plan again.
    async fn merge_subjects(
        &self,
        tenant: &TenantId,
        merge: &crate::merge::SubjectMerge,
    ) -> Result<(), StoreError>;

    /// The subject holding the identifier behind an `identifier_ref`, with the identifier as
    /// stored (sealed); `None` when the tenant has no such ref.
    async fn identifier_holder(
        &self,
        tenant: &TenantId,
        identifier_ref: &IdentifierRef,
    ) -> Result<Option<IdentifierHolder>, StoreError>;
}

/// Failures of the crypto ports. Details never include key material or plaintext.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CryptoError {
    #[error("crypto failure: {0}")]
    Failed(String),
}

/// Mints and verifies access tokens.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait TokenAuthority: Send + Sync {
    fn mint(&self, claims: &TokenClaims) -> Result<String, CryptoError>;

    /// Verifies the signature and structure and evaluates expiry at `now`.
    ///
    /// # Errors
    /// `Expired` carries the claims, so an expired token can still be attributed to its
    /// grant; every other rejection is unattributable.
    fn verify(&self, token: &str, now: DateTime<Utc>) -> Result<TokenClaims, TokenRejection>;
}

/// Client secrets: generation and slow hashing.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait CredentialHasher: Send + Sync {
    fn generate_secret(&self) -> ClientSecret;

    async fn hash_secret(&self, secret: &ClientSecret) -> Result<SecretHash, CryptoError>;

    /// Whether `presented` matches `stored`. With `None` (unknown client) it MUST do the same
    /// work against a dummy hash and answer false: no timing oracle.
    async fn verify_secret<'a>(&self, presented: &str, stored: Option<&'a SecretHash>) -> bool;
}

/// Encryption of identifier values under per-tenant data keys, and keyed blind indexes.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait IdentifierVault: Send + Sync {
    /// A fresh data key for a new tenant, wrapped under the master key.
    fn new_data_key(&self, tenant: &TenantId) -> Result<WrappedDataKey, CryptoError>;

    /// Encrypts the identifier and computes its blind index, both under the tenant's key.
    fn protect(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        identifier: &Identifier,
    ) -> Result<ProtectedIdentifier, CryptoError>;

    /// Decrypts a stored identifier (for upstream calls only).
    fn reveal(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        id_type: IdentifierType,
        sealed: &[u8],
    ) -> Result<Identifier, CryptoError>;
}

/// A country's company registry (its free tier). Implemented by `adapters-<cc>` crates and
/// declared for its country in [`crate::countries::CountryConnectors`].
///
/// Implementations MUST report every upstream call they made in the returned `calls`
/// (including failed ones, with `usable: false`), MUST NOT put identifiers into `operation`,
/// and MUST answer a failure (`Unavailable` or `Garbled`) when a required source (the
/// register data) fails; when an optional source fails, or the country has no source for a
/// group, they leave its value empty and name the group in `unchecked`.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait CompanyRegistry: Send + Sync {
    /// Fetches the profile of the company with this (validated) company code.
    async fn fetch_profile(&self, orgnr: &Identifier) -> ProfileFetch;
}

/// A country's archive of company filings (annual reports), where it has one.
///
/// Implementations MUST report every call as [`CompanyRegistry`] does.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait DocumentArchive: Send + Sync {
    /// Fetches an annual-report archive by the upstream's document id.
    async fn fetch_document(&self, document_id: &str) -> DocumentFetch;
}

/// Storage of call records and of the per-tenant company cache.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait CompanyStore: Send + Sync {
    /// Writes one call record per call, durably, and returns their evidence. `route` is the
    /// interface route the calls served (never an identifier).
    async fn record_calls(
        &self,
        tenant: &TenantId,
        route: &str,
        calls: &[(CallRef, UpstreamCall)],
    ) -> Result<Vec<Evidence>, StoreError>;

    /// The tenant's cached profile of the company, if any, with its subject (canonical id
    /// and aliases): the one read a cached answer needs.
    async fn cached_profile(
        &self,
        tenant: &TenantId,
        country: Country,
        orgnr: &str,
    ) -> Result<Option<CachedProfile>, StoreError>;

    /// Stores (replaces) the tenant's cached profile, and notes the annual report's document
    /// id as one this tenant's subject owns.
    async fn save_profile(
        &self,
        tenant: &TenantId,
        subject: &SubjectId,
        profile: &CompanyProfile,
    ) -> Result<(), StoreError>;

    /// The subject (and country) whose profile handed this tenant the document id.
    async fn document_owner(
        &self,
        tenant: &TenantId,
        document_id: &str,
    ) -> Result<Option<(SubjectHandle, Country)>, StoreError>;
}

/// A country's paid company-registry tier (officers and signatory rule, beneficial owners,
/// a person's engagements). Implemented by `adapters-<cc>` crates; a deployment without the
/// tier's credentials wires none, and the routes answer without calling anything.
///
/// Each fetch is one billable transaction, metered by the use case before it is called.
/// Implementations MUST report every upstream call they made (failed ones with `usable:
/// false`, billable ones with their `cost`), MUST NOT put identifiers into `operation`, and
/// MUST answer `Garbled` rather than deliver an answer they could read only in part.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait PaidCompanyRegistry: Send + Sync {
    /// Officers and the signatory rule of the company with this (validated) company code.
    async fn fetch_officers(&self, orgnr: &Identifier) -> Fetch<FetchedOfficers>;

    /// The beneficial owners of the company.
    async fn fetch_beneficial_owners(&self, orgnr: &Identifier) -> Fetch<FetchedOwners>;

    /// One page (from 1) of the companies in which the person (a validated personal or
    /// coordination number) holds a role. Each page is one billable call.
    async fn fetch_engagements(&self, person: &Identifier, page: u32) -> Fetch<EngagementPage>;
}

/// The per-tenant cache of paid objects and the daily paid-call budget.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait PaidStore: Send + Sync {
    /// The tenant's cached object under `key`, with its evidence and its subject (canonical
    /// id and aliases), in one read.
    async fn cached_paid(
        &self,
        tenant: &TenantId,
        key: &PaidKey,
    ) -> Result<Option<CachedPaid>, StoreError>;

    /// Stores (replaces) the tenant's object under `key`. Its evidence's call is recorded.
    async fn save_paid(
        &self,
        tenant: &TenantId,
        key: &PaidKey,
        subject: &SubjectId,
        object: &PaidObject,
    ) -> Result<(), StoreError>;

    /// Spends `spend.units` of the spender's part of the day's budget if its use stays within
    /// `spend.cap`, and answers whether it did. MUST be atomic with the check: concurrent
    /// spends never take a part past its cap.
    async fn spend_budget(&self, tenant: &TenantId, spend: &Spend) -> Result<bool, StoreError>;

    /// The tenant's use of a day's budget (zero for a day without spending).
    async fn budget_usage(
        &self,
        tenant: &TenantId,
        day: chrono::NaiveDate,
    ) -> Result<BudgetUsage, StoreError>;
}

/// A country's population register (person search). Implemented by `adapters-<cc>` crates.
///
/// Implementations MUST report every upstream call they made (failed ones with `usable:
/// false`), MUST NOT put identifiers into `operation` or any log line, MUST answer `NotFound`
/// when the register holds no such person and `Garbled` for an answer they cannot read whole
/// (several persons, a truncated result, an answer about another person than asked).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait PersonRegistry: Send + Sync {
    /// The register's entry for the person with this (validated) personal or coordination
    /// number. `end_user` names the consumer the lookup is made for (the register demands
    /// one); it identifies a grant and never a person.
    async fn fetch_person(&self, person: &Identifier, end_user: &str) -> Fetch<RegisterPerson>;
}

/// The per-tenant person cache (sealed under the tenant's data key) and the daily
/// person-lookup counters.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait PersonStore: Send + Sync {
    /// The subject holding `identifier_ref` (canonical id and aliases, kind, the identifier
    /// as stored) and the tenant's cached profile read by that ref with its evidence, in one
    /// read; `None` when the tenant has no such ref. Called only once the permit gate passed.
    async fn person_at_ref(
        &self,
        tenant: &TenantId,
        identifier_ref: &IdentifierRef,
    ) -> Result<Option<PersonAtRef>, StoreError>;

    /// Stores (replaces) the tenant's sealed profile under `identifier_ref`. The evidence's
    /// call is recorded.
    async fn save_person(
        &self,
        tenant: &TenantId,
        identifier_ref: &IdentifierRef,
        subject: &SubjectId,
        sealed: &SealedPerson,
        call_ref: &CallRef,
        fetched_at: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// Counts one person lookup of `day` if the day's count stays within `ceiling`, and
    /// answers whether it did. MUST be atomic with the check: concurrent lookups never take
    /// the count past the ceiling.
    async fn spend_person_lookup(
        &self,
        tenant: &TenantId,
        day: NaiveDate,
        ceiling: i64,
    ) -> Result<bool, StoreError>;

    /// The tenant's person lookups of a day (zero for a day without any).
    async fn person_lookups(&self, tenant: &TenantId, day: NaiveDate) -> Result<i64, StoreError>;
}

/// Encryption of canonical person objects under per-tenant data keys (person data is cached
/// encrypted at rest, like identifiers).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait PersonVault: Send + Sync {
    fn seal_person(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        profile: &PersonProfile,
    ) -> Result<SealedPerson, CryptoError>;

    /// Decrypts a sealed profile and builds it again through the canonical constructor.
    fn open_person(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        sealed: &SealedPerson,
    ) -> Result<PersonProfile, CryptoError>;
}

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

    /// The scheduler's queue, shared by every replica (the one query across tenants): claims
    /// up to `limit` active subscriptions due at `now` whose lease, if any, has passed, and
    /// leases each until `lease_until`. MUST skip rows another replica holds (row locks with
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
        expected: crate::subscription::SubscriptionStatus,
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
        kind: crate::subscription::SubscriptionKind,
    ) -> Result<Option<Subscription>, StoreError>;

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
    async fn import_version(
        &self,
        version: &crate::sanctions::SourceVersion,
        entries: &[crate::sanctions::ListEntry],
    ) -> Result<crate::sanctions::ImportOutcome, StoreError>;

    /// Records an import that failed (the active version stays).
    async fn record_failed_import(
        &self,
        failure: &crate::sanctions::FailedImport,
    ) -> Result<(), StoreError>;

    /// Every list's active version, with the last failed import since it became active.
    async fn active_lists(&self) -> Result<Vec<crate::sanctions::ActiveList>, StoreError>;

    /// The entries of a stored version, in the order they were imported.
    async fn version_entries(
        &self,
        id: &crate::sanctions::SourceVersionId,
    ) -> Result<Vec<crate::sanctions::ListEntry>, StoreError>;
}

/// What a check needs of the service's and the tenant's screening configuration, read in one
/// round trip.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScreeningContext {
    /// The service's active policy version (`None`: no check can run).
    pub policy: Option<crate::screening::PolicyVersion>,
    /// The tenant's active override version.
    pub override_version: Option<crate::screening::OverrideVersion>,
    /// The tenant's whitelist entries in effect at the time asked.
    pub whitelist: Vec<crate::screening::WhitelistEntry>,
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
    async fn insert_check(&self, check: &crate::screening::StoredCheck) -> Result<(), StoreError>;

    /// One of the tenant's checks (its subject read as its canonical id now, with aliases).
    async fn check(
        &self,
        tenant: &TenantId,
        id: &crate::ids::ScreeningCheckId,
    ) -> Result<Option<crate::screening::StoredCheck>, StoreError>;

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
    ) -> Result<Vec<crate::screening::StoredCheck>, StoreError>;

    /// Publishes a new policy version (numbered after the newest) and makes it the active
    /// one, retiring the previously active one, in one transaction.
    async fn publish_policy(
        &self,
        id: crate::ids::PolicyVersionId,
        config: &crate::screening::PolicyConfig,
        created_by: &str,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<crate::screening::PolicyVersion, StoreError>;

    /// Makes `id` no longer active (no policy is active afterwards unless another is
    /// published). `None` when there is no such version.
    async fn retire_policy(
        &self,
        id: &crate::ids::PolicyVersionId,
    ) -> Result<Option<crate::screening::PolicyVersion>, StoreError>;

    /// Every policy version, newest first.
    async fn policies(&self) -> Result<Vec<crate::screening::PolicyVersion>, StoreError>;

    /// Stores a new draft override version for the tenant, numbered after its newest.
    async fn propose_override(
        &self,
        tenant: &TenantId,
        id: crate::ids::OverrideVersionId,
        config: &crate::screening::OverrideConfig,
        proposed_by: &str,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<crate::screening::OverrideVersion, StoreError>;

    /// Moves an override version from `from` to `to` (setting `approved_by` when given, and
    /// `effective_from` = `at` when `to` is active), only if it is still in `from`. Moving to
    /// `active` retires the tenant's active version in the same transaction, so exactly one
    /// is active at a time. `None` when the version does not exist or is no longer in
    /// `from`.
    async fn move_override<'a>(
        &self,
        tenant: &TenantId,
        id: &crate::ids::OverrideVersionId,
        from: crate::screening::OverrideStatus,
        to: crate::screening::OverrideStatus,
        approved_by: Option<&'a str>,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<Option<crate::screening::OverrideVersion>, StoreError>;

    /// One of the tenant's override versions.
    async fn override_version(
        &self,
        tenant: &TenantId,
        id: &crate::ids::OverrideVersionId,
    ) -> Result<Option<crate::screening::OverrideVersion>, StoreError>;

    /// The tenant's override versions, newest first.
    async fn overrides(
        &self,
        tenant: &TenantId,
    ) -> Result<Vec<crate::screening::OverrideVersion>, StoreError>;

    /// Stores a new (unapproved) whitelist entry.
    async fn add_whitelist_entry(
        &self,
        entry: &crate::screening::WhitelistEntry,
    ) -> Result<(), StoreError>;

    /// Approves an entry that is unapproved, unrevoked and created by someone other than
    /// `approver`. `None` when no such entry is waiting.
    async fn approve_whitelist_entry(
        &self,
        tenant: &TenantId,
        id: &crate::ids::WhitelistEntryId,
        approver: &str,
    ) -> Result<Option<crate::screening::WhitelistEntry>, StoreError>;

    /// Revokes an entry not yet revoked. `None` when there is no such entry or it is revoked
    /// already.
    async fn revoke_whitelist_entry(
        &self,
        tenant: &TenantId,
        id: &crate::ids::WhitelistEntryId,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<Option<crate::screening::WhitelistEntry>, StoreError>;

    /// One of the tenant's whitelist entries.
    async fn whitelist_entry(
        &self,
        tenant: &TenantId,
        id: &crate::ids::WhitelistEntryId,
    ) -> Result<Option<crate::screening::WhitelistEntry>, StoreError>;

    /// The tenant's whitelist entries, newest first.
    async fn whitelist(
        &self,
        tenant: &TenantId,
    ) -> Result<Vec<crate::screening::WhitelistEntry>, StoreError>;
}

/// Keeps screening inputs under the tenant's keys: sealed for storage, and a keyed hash
/// (`input_hash`) that names an input without revealing it.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait ScreeningVault: Send + Sync {
    fn seal_check_input(
        &self,
        tenant: &TenantId,
        key: &crate::tenant::WrappedDataKey,
        input: &crate::screening::CheckInput,
    ) -> Result<crate::screening::SealedCheckInput, CryptoError>;

    fn open_check_input(
        &self,
        tenant: &TenantId,
        key: &crate::tenant::WrappedDataKey,
        sealed: &crate::screening::SealedCheckInput,
    ) -> Result<crate::screening::CheckInput, CryptoError>;

    /// `hmac-sha256:<hex>` of `canonical` under a key derived from the tenant's data key.
    fn input_hash(
        &self,
        tenant: &TenantId,
        key: &crate::tenant::WrappedDataKey,
        canonical: &str,
    ) -> Result<String, CryptoError>;
}
