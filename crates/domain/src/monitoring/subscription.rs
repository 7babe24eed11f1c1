//! Monitoring subscriptions: a tenant watching one subject (a company, or a person's permit
//! standing) under a legal basis, at a cadence.
//!
//! Statuses and moves (the interface's transition table; the open points are decided in
//! `docs/decisions.md`, "Monitoring"): created `active`; `active` to `suspended` when the
//! tenant's country is withdrawn or (kind `person`) the permit lapses; back to `active`
//! when that is restored; `active` or `suspended` to `ended` by the consumer, one way.

use crate::companies::paid::{OfficerList, OwnerList};
use crate::companies::profile::CompanyProfile;
use crate::countries::country::Country;
use crate::ids::{SubjectId, SubscriptionId, TenantId};
use chrono::{DateTime, Duration, Utc};

/// What a subscription watches.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SubscriptionKind {
    Person,
    Company,
}

impl SubscriptionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SubscriptionKind::Person => "person",
            SubscriptionKind::Company => "company",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "person" => Some(SubscriptionKind::Person),
            "company" => Some(SubscriptionKind::Company),
            _ => None,
        }
    }
}

/// The legal basis the tenant monitors under.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum LegalBasis {
    AmlCdd,
    Contract,
    LegalObligation,
    Consent,
    LegitimateInterest,
}

impl LegalBasis {
    pub const ALL: [LegalBasis; 5] = [
        LegalBasis::AmlCdd,
        LegalBasis::Contract,
        LegalBasis::LegalObligation,
        LegalBasis::Consent,
        LegalBasis::LegitimateInterest,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            LegalBasis::AmlCdd => "aml_cdd",
            LegalBasis::Contract => "contract",
            LegalBasis::LegalObligation => "legal_obligation",
            LegalBasis::Consent => "consent",
            LegalBasis::LegitimateInterest => "legitimate_interest",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        LegalBasis::ALL.into_iter().find(|b| b.as_str() == s)
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SubscriptionStatus {
    Active,
    Suspended,
    Ended,
}

impl SubscriptionStatus {
    pub const ALL: [SubscriptionStatus; 3] = [
        SubscriptionStatus::Active,
        SubscriptionStatus::Suspended,
        SubscriptionStatus::Ended,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            SubscriptionStatus::Active => "active",
            SubscriptionStatus::Suspended => "suspended",
            SubscriptionStatus::Ended => "ended",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        SubscriptionStatus::ALL
            .into_iter()
            .find(|x| x.as_str() == s)
    }
}

/// Why a subscription is suspended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SuspensionReason {
    CountryDeprovisioned,
    PermitLapsed,
}

impl SuspensionReason {
    pub fn as_str(self) -> &'static str {
        match self {
            SuspensionReason::CountryDeprovisioned => "country_deprovisioned",
            SuspensionReason::PermitLapsed => "permit_lapsed",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        [
            SuspensionReason::CountryDeprovisioned,
            SuspensionReason::PermitLapsed,
        ]
        .into_iter()
        .find(|r| r.as_str() == s)
    }
}

/// Light checks (free tier) every `check_days`: default, bounds.
pub const DEFAULT_CHECK_DAYS: u32 = 1;
/// Paid full refreshes every `full_refresh_days`: default.
pub const DEFAULT_FULL_REFRESH_DAYS: u32 = 30;
/// The longest cadence either may have.
pub const MAX_CADENCE_DAYS: u32 = 365;
/// How long an ended subscription's events keep their data, unless the operator set the
/// tenant another period (Limits 4), and the longest period that may be set.
pub const DEFAULT_RETENTION_DAYS: u32 = 90;
pub const MAX_RETENTION_DAYS: u32 = 3650;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subscription {
    pub id: SubscriptionId,
    /// The subject's canonical id (a merge moves the subscription to the merged subject).
    pub subject_id: SubjectId,
    /// The ids merged into the subject, as read (each stays a valid alias).
    pub aliases: Vec<SubjectId>,
    pub kind: SubscriptionKind,
    pub legal_basis: LegalBasis,
    /// Free text, never parsed.
    pub legal_basis_ref: Option<String>,
    pub status: SubscriptionStatus,
    pub check_days: u32,
    pub full_refresh_days: u32,
    /// The country of the identifier it watches.
    pub country: Country,
    pub created_at: DateTime<Utc>,
    pub suspended_at: Option<DateTime<Utc>>,
    pub suspension_reason: Option<SuspensionReason>,
    pub ended_at: Option<DateTime<Utc>>,
    pub purge_after: Option<DateTime<Utc>>,
    /// When the scheduler next looks at it (`None` once ended).
    pub next_run_at: Option<DateTime<Utc>>,
}

impl Subscription {
    /// The subscription as ended at `at`, with its purge date.
    pub fn ended(mut self, at: DateTime<Utc>, retention: Duration) -> Subscription {
        self.status = SubscriptionStatus::Ended;
        self.ended_at = Some(at);
        self.purge_after = Some(at + retention);
        self.next_run_at = None;
        self
    }
}

/// Why a subscription ended with a merge of its subject into another that already had one of
/// the same kind (the `reason` of its `subscription.ended` event).
pub const ENDED_BY_MERGE: &str = "subject_merged";

/// A create request after the surface has parsed its JSON.
#[derive(Clone, Debug, Default)]
pub struct SubscribeRequest {
    pub subject_id: String,
    pub kind: String,
    pub legal_basis: String,
    pub legal_basis_ref: Option<String>,
    pub check_days: Option<i64>,
    pub full_refresh_days: Option<i64>,
}

/// A list request as the surfaces received it.
#[derive(Clone, Debug, Default)]
pub struct SubscriptionsRequest {
    pub limit: Option<String>,
    pub status: Option<String>,
}

/// What a list asks of the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubscriptionFilter {
    pub kinds: Vec<SubscriptionKind>,
    pub status: Option<SubscriptionStatus>,
    pub limit: u32,
}

/// The default and the largest number of subscriptions in a list.
pub const DEFAULT_LIST_LIMIT: u32 = 100;
pub const MAX_LIST_LIMIT: u32 = 1000;

/// A due run one replica claimed from the shared queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimedRun {
    pub tenant_id: TenantId,
    pub subscription: Subscription,
    /// When the run was due: the run's identity (claimed again after a crash, it has the same
    /// due time, so its events get the same idempotency keys).
    pub due_at: DateTime<Utc>,
    /// The claim holds until then.
    pub lease_until: DateTime<Utc>,
    pub last_checked_at: Option<DateTime<Utc>>,
    pub last_full_refresh_at: Option<DateTime<Utc>>,
}

/// How a claimed run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunOutcome {
    /// When the subscription is due next.
    pub next_run_at: DateTime<Utc>,
    /// When it was last checked (light check or full refresh), if this run checked it.
    pub checked_at: Option<DateTime<Utc>>,
    /// When it was last fully refreshed, if this run did.
    pub full_refresh_at: Option<DateTime<Utc>>,
}

/// What monitoring last saw of a subscription's subject, part by part: the reading the next
/// run (or an on-demand refresh under the subscription) diffs against. Only monitoring moves
/// it, so a consumer's own reads never hide a change from the log. A part never read, or not
/// read by this run, is `None`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MonitoringBaseline {
    pub profile: Option<CompanyProfile>,
    pub officers: Option<OfficerList>,
    pub owners: Option<OwnerList>,
}

/// The names monitoring holds of a subscription's subject without reading it again: the
/// tenant's cached company profiles of the subject (each with its country, number, name and
/// when it was fetched) and the officers and owners of the subscription's baseline. Ongoing
/// screening reads them for a page of subscriptions at once, to pass over the subjects a
/// list change comes near nothing of.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KnownNames {
    pub profiles: Vec<KnownProfile>,
    pub officers: Option<OfficerList>,
    pub owners: Option<OwnerList>,
}

/// A cached company profile's name, as [`KnownNames`] holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnownProfile {
    pub country: Country,
    /// The organisation number in canonical form (a company's number is not personal data).
    pub orgnr: String,
    pub name: String,
    pub fetched_at: DateTime<Utc>,
}

impl MonitoringBaseline {
    pub fn is_empty(&self) -> bool {
        self.profile.is_none() && self.officers.is_none() && self.owners.is_none()
    }
}
