//! Ports of companies: each country's registry, document archive and paid tier, the call
//! records and per-tenant caches, and the paid-call budget.
//!
//! What every port promises (coarse, transactional, tenant-scoped) is in the crate's README,
//! "Ports".

use crate::companies::budget::{BudgetUsage, Spend};
use crate::companies::paid::{
    CachedPaid, EngagementPage, FetchedOfficers, FetchedOwners, PaidKey, PaidObject,
};
use crate::companies::profile::{
    CachedProfile, CompanyProfile, DocumentFetch, Fetch, ProfileFetch, UpstreamCall,
};
use crate::countries::country::Country;
use crate::error::StoreError;
use crate::evidence::Evidence;
use crate::ids::{CallRef, SubjectId, TenantId};
use crate::subjects::identifier::Identifier;
use crate::subjects::subject::SubjectHandle;
use async_trait::async_trait;

/// A country's company registry (its free tier). Implemented by `adapters-<cc>` crates and
/// declared for its country in [`crate::countries::registry::CountryConnectors`].
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

    /// Drops every copy the tenant keeps of the company's register data: its cached profile
    /// and its cached officers and owners (the register withdrew the company from its open
    /// data). The subject, its identifiers and the call records stay: they say what was
    /// asked and when, not what the register says. Forgetting what is not kept is no error.
    async fn forget_company(
        &self,
        tenant: &TenantId,
        country: Country,
        orgnr: &str,
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

    /// The tenant's use of each day's budget from `first` through `last`, in one read: only
    /// the days with spending, oldest first (a day not answered spent nothing).
    async fn budget_usage_between(
        &self,
        tenant: &TenantId,
        first: chrono::NaiveDate,
        last: chrono::NaiveDate,
    ) -> Result<Vec<(chrono::NaiveDate, BudgetUsage)>, StoreError>;
}
