//! Ports of persons: each country's population register, the sealed person cache with its
//! lookup counters, and the person vault.
//!
//! What every port promises (coarse, transactional, tenant-scoped) is in the crate's README,
//! "Ports".

use crate::access::tenant::WrappedDataKey;
use crate::companies::profile::Fetch;
use crate::error::{CryptoError, StoreError};
use crate::ids::{CallRef, IdentifierRef, SubjectId, TenantId};
use crate::persons::profile::{PersonAtRef, PersonProfile, RegisterPerson, SealedPerson};
use crate::subjects::identifier::Identifier;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};

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
