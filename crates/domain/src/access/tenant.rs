//! Tenants: the party that holds the contract, the permits and the data.

use crate::countries::country::{Country, CountrySet};
use crate::ids::TenantId;
use chrono::{DateTime, NaiveDate, Utc};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TenantStatus {
    /// Created, not yet activated by the operator: every data request gets 403 `tenant_pending`.
    Pending,
    Active,
}

impl TenantStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TenantStatus::Pending => "pending",
            TenantStatus::Active => "active",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(TenantStatus::Pending),
            "active" => Some(TenantStatus::Active),
            _ => None,
        }
    }
}

/// Whether a tenant's data is real or its test twin's. A test tenant is the test-mode twin
/// of a live one: its own tenant (own id, data key, subjects, events, checks, budget
/// counters), whose grants' credentials say `test`, served by the sandbox connectors, never
/// by a live register.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TenantMode {
    Live,
    Test,
}

impl TenantMode {
    pub fn as_str(self) -> &'static str {
        match self {
            TenantMode::Live => "live",
            TenantMode::Test => "test",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "live" => Some(TenantMode::Live),
            "test" => Some(TenantMode::Test),
            _ => None,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PermitStatus {
    Active,
    Suspended,
}

impl PermitStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            PermitStatus::Active => "active",
            PermitStatus::Suspended => "suspended",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "active" => Some(PermitStatus::Active),
            "suspended" => Some(PermitStatus::Suspended),
            _ => None,
        }
    }
}

/// The tenant's own person-register permit (for Swedish person data). Setting a permit
/// always records a new one: a reinstated permit is a new permit, never an edit of the old.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Permit {
    pub valid_from: NaiveDate,
    pub valid_to: NaiveDate,
    pub status: PermitStatus,
    pub recorded_at: DateTime<Utc>,
}

/// What a permit allows on a given day.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PermitStanding {
    /// Active and within its validity.
    InForce,
    Suspended,
    /// Missing, not yet valid, or past validity.
    Missing,
}

impl Permit {
    pub fn standing(permit: Option<&Permit>, today: NaiveDate) -> PermitStanding {
        match permit {
            None => PermitStanding::Missing,
            Some(p) if p.status == PermitStatus::Suspended => PermitStanding::Suspended,
            Some(p) if today < p.valid_from || today > p.valid_to => PermitStanding::Missing,
            Some(_) => PermitStanding::InForce,
        }
    }
}

/// A tenant's limits. Sizes are the operator's to set; defaults are documented in
/// `docs/decisions.md`.
#[derive(Clone, Debug, PartialEq)]
pub struct Budget {
    /// Paid upstream calls per day, shared by on-demand reads and scheduled monitoring.
    pub daily_paid_calls: i64,
    /// The part of the daily budget scheduled monitoring may take, in `0.0..=1.0`.
    pub monitoring_share: f64,
    /// Person lookups per day, metered separately from the paid company budget.
    pub person_lookup_ceiling: i64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            daily_paid_calls: 1_000,
            monitoring_share: 0.5,
            person_lookup_ceiling: 500,
        }
    }
}

impl Budget {
    /// Checks the bounds: non-negative counts and a share within `0.0..=1.0`.
    pub fn validate(&self) -> Result<(), String> {
        if self.daily_paid_calls < 0 {
            return Err("the daily paid-call budget must not be negative".into());
        }
        if self.person_lookup_ceiling < 0 {
            return Err("the person-lookup ceiling must not be negative".into());
        }
        if !(0.0..=1.0).contains(&self.monitoring_share) || self.monitoring_share.is_nan() {
            return Err("the monitoring share must be between 0 and 1".into());
        }
        Ok(())
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Tenant {
    pub id: TenantId,
    pub name: String,
    pub own_country: Country,
    pub provisioned: CountrySet,
    pub status: TenantStatus,
    pub permit: Option<Permit>,
    pub budget: Budget,
    /// Days an ended subscription's events keep their data (Limits 4), then purged.
    pub retention_days: u32,
    pub created_at: DateTime<Utc>,
    /// Live, or the test twin of a live tenant.
    pub mode: TenantMode,
    /// A live tenant's test twin, once a test grant made one.
    pub test_tenant: Option<TenantId>,
}

/// A data key of one tenant, wrapped (encrypted) under the service's master key. Opaque to
/// everything but the crypto adapter.
#[derive(Clone, PartialEq, Eq)]
pub struct WrappedDataKey(pub Vec<u8>);

impl std::fmt::Debug for WrappedDataKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WrappedDataKey(<redacted>)")
    }
}
