//! What idempotent writes need from the outside world: a store of keys and their answers,
//! and the tenant's keys to name, compare and seal them.

use crate::access::tenant::WrappedDataKey;
use crate::error::{CryptoError, StoreError};
use crate::idempotency::key::{IdempotencyKey, KeptAnswer};
use crate::ids::TenantId;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// A request's claim on a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyClaim {
    /// The key's keyed hash (never the key).
    pub key_hash: String,
    /// The request's keyed fingerprint.
    pub fingerprint: String,
    pub now: DateTime<Utc>,
    /// Until when a running claim holds the key; past it, a request of the same
    /// fingerprint takes the key over (its first request's process died).
    pub lease_until: DateTime<Utc>,
    /// When a new claim's key (and its answer) is forgotten.
    pub expires_at: DateTime<Utc>,
}

/// What a claim found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClaimOutcome {
    /// The key was free (never used, expired, or abandoned by a request of the same
    /// fingerprint): this request runs.
    Claimed,
    /// A request of the same fingerprint holds it and is running.
    InUse,
    /// The key (unexpired) belongs to a request of another fingerprint.
    Reused,
    /// The same request was answered: its sealed answer.
    Answered(Vec<u8>),
}

/// Keys and their answers, per tenant.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait IdempotencyStore: Send + Sync {
    /// Claims the key for this request, or reports what holds it, atomically: of two
    /// concurrent claims of a free key exactly one is `Claimed`. An expired key counts as
    /// free whatever its fingerprint.
    async fn claim(&self, tenant: &TenantId, claim: &KeyClaim) -> Result<ClaimOutcome, StoreError>;

    /// Keeps the sealed answer of the claim (`key_hash`, `fingerprint`), if the claim still
    /// holds the key.
    async fn complete(
        &self,
        tenant: &TenantId,
        key_hash: &str,
        fingerprint: &str,
        sealed: &[u8],
    ) -> Result<(), StoreError>;

    /// Gives up the claim (its answer is not kept): the key is free again.
    async fn release(
        &self,
        tenant: &TenantId,
        key_hash: &str,
        fingerprint: &str,
    ) -> Result<(), StoreError>;

    /// Forgets every key that expired before `now`, across tenants, at most `limit`;
    /// answers how many.
    async fn purge_expired(&self, now: DateTime<Utc>, limit: u32) -> Result<u64, StoreError>;
}

/// Names, fingerprints and seals under the tenant's data key.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait IdempotencyVault: Send + Sync {
    /// `hmac-sha256:<hex>` of the key under a key derived for this purpose.
    fn key_hash(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        idempotency_key: &IdempotencyKey,
    ) -> Result<String, CryptoError>;

    /// `hmac-sha256:<hex>` of a request's material under a key derived for this purpose.
    fn fingerprint(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        material: &[u8],
    ) -> Result<String, CryptoError>;

    fn seal_answer(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        answer: &KeptAnswer,
    ) -> Result<Vec<u8>, CryptoError>;

    fn open_answer(
        &self,
        tenant: &TenantId,
        key: &WrappedDataKey,
        sealed: &[u8],
    ) -> Result<KeptAnswer, CryptoError>;
}
