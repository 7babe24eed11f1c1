//! Ports of access: tenants, grants and their credentials, the audit trail, tokens and
//! client secrets.
//!
//! What every port promises (coarse, transactional, tenant-scoped) is in the crate's README,
//! "Ports".

use crate::access::audit::{
    AccessRecord, AuditEntry, AuditFilter, PortalAuditRecord, SecurityRecord,
};
use crate::access::grant::{ClientSecret, Grant, SecretHash};
use crate::access::scope::ScopeSet;
use crate::access::tenant::{Budget, Permit, Tenant, TenantStatus, WrappedDataKey};
use crate::access::token::{TokenClaims, TokenRejection};
use crate::countries::country::CountrySet;
use crate::error::{CryptoError, StoreError};
use crate::ids::{ClientId, GrantId, TenantId};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

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

    /// The live tenant `live`'s test twin: the one it has, or `twin` (a test-mode tenant)
    /// inserted with `data_key` and named on the live tenant, atomically with the check, so
    /// a live tenant never gets two twins.
    ///
    /// # Errors
    /// `NotFound` when `live` does not exist.
    async fn test_twin(
        &self,
        live: &TenantId,
        twin: &Tenant,
        data_key: &WrappedDataKey,
    ) -> Result<Tenant, StoreError>;

    /// Deletes every row of the tenant's data (subjects and their identifiers and
    /// references, caches, documents, call records, events and their counter, subscriptions
    /// and baselines, screening checks, overrides and whitelists, budget and lookup counters,
    /// idempotency keys), keeping the tenant, its permits, its grants and its audit trail.
    /// Answers the rows deleted.
    async fn wipe_tenant_data(&self, id: &TenantId) -> Result<u64, StoreError>;
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

    /// The tenant's grants, newest first (revoked and expired ones included).
    async fn grants(&self, tenant: &TenantId) -> Result<Vec<Grant>, StoreError>;

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

    /// Writes a portal user's action as a row of its tenant's audit log; durable when it
    /// returns.
    async fn record_portal(&self, record: &PortalAuditRecord) -> Result<(), StoreError>;
}

/// Reading a tenant's audit log back (the portal's audit page).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait AuditLog: Send + Sync {
    /// The tenant's rows matching `filter`, newest first, at most `limit`.
    async fn audit_entries(
        &self,
        tenant: &TenantId,
        filter: &AuditFilter,
        limit: u32,
    ) -> Result<Vec<AuditEntry>, StoreError>;
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
