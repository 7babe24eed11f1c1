//! Ports of subjects: the subject store and the identifier vault.
//!
//! What every port promises (coarse, transactional, tenant-scoped) is in the crate's README,
//! "Ports".

use crate::access::tenant::WrappedDataKey;
use crate::error::{CryptoError, StoreError};
use crate::ids::{IdentifierRef, SubjectId, TenantId};
use crate::subjects::identifier::{Identifier, IdentifierType};
use crate::subjects::subject::{
    FreshSubject, IdentifierHolder, ProtectedIdentifier, Resolution, SubjectRecord,
};
use async_trait::async_trait;

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
        merge: &crate::subjects::merge::SubjectMerge,
    ) -> Result<(), StoreError>;

    /// The subject holding the identifier behind an `identifier_ref`, with the identifier as
    /// stored (sealed); `None` when the tenant has no such ref.
    async fn identifier_holder(
        &self,
        tenant: &TenantId,
        identifier_ref: &IdentifierRef,
    ) -> Result<Option<IdentifierHolder>, StoreError>;
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
