//! Fixtures shared by the unit tests of the use cases (each capability's `tests` module).
//! Those tests take each rule in isolation, with every port mocked (mockall) and time fixed,
//! so a test names one rule and fails for that rule only.

pub(crate) mod schemes;

use crate::access::audit::RequestContext;
use crate::access::caller::Caller;
use crate::access::grant::Grant;
use crate::access::ports::GrantAccess;
use crate::access::scope::ScopeSet;
use crate::access::tenant::{Budget, Tenant, TenantStatus, WrappedDataKey};
use crate::access::token::TokenClaims;
use crate::clock::Clock;
use crate::countries::country::CountrySet;
use crate::ids::{ClientId, GrantId, RequestId, TenantId};
use crate::operation::Surface;
use chrono::{DateTime, Duration, TimeZone, Utc};
use std::sync::Arc;

/// A clock that always answers the same instant.
pub(crate) struct FixedClock(pub DateTime<Utc>);

impl Clock for FixedClock {
    fn now(&self) -> DateTime<Utc> {
        self.0
    }
}

/// The instant every test runs at.
pub(crate) fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 21, 12, 0, 0).unwrap()
}

pub(crate) fn clock() -> Arc<dyn Clock> {
    Arc::new(FixedClock(now()))
}

pub(crate) fn countries(list: &str) -> CountrySet {
    CountrySet::parse_list(list).expect("a country list")
}

pub(crate) fn scopes(list: &str) -> ScopeSet {
    ScopeSet::parse_list(list).expect("a scope list")
}

pub(crate) fn data_key() -> WrappedDataKey {
    WrappedDataKey(vec![7; 32])
}

/// An active tenant of Sweden provisioned for `provisioned`.
pub(crate) fn tenant(provisioned: &str) -> Tenant {
    Tenant {
        id: TenantId::generate(),
        name: "Test AB".into(),
        own_country: crate::countries::country::Country::Se,
        provisioned: countries(provisioned),
        status: TenantStatus::Active,
        permit: None,
        budget: Budget::default(),
        retention_days: crate::monitoring::subscription::DEFAULT_RETENTION_DAYS,
        created_at: now() - Duration::days(30),
        mode: crate::access::tenant::TenantMode::Live,
        test_tenant: None,
    }
}

/// An active tenant of Sweden with this id.
pub(crate) fn tenant_with_id(id: TenantId) -> Tenant {
    Tenant { id, ..tenant("SE") }
}

/// A live grant of `tenant` (generation 1, no expiry).
pub(crate) fn grant(tenant: &Tenant, scope_list: &str, country_list: &str) -> Grant {
    Grant {
        id: GrantId::generate(),
        tenant_id: tenant.id,
        client_id: ClientId::generate(),
        scopes: scopes(scope_list),
        countries: countries(country_list),
        expires_at: None,
        revoked_at: None,
        credential_generation: 1,
        created_at: now() - Duration::days(1),
        owner: crate::access::grant::GrantOwner::Operator,
    }
}

pub(crate) fn access(grant: &Grant, tenant: &Tenant) -> GrantAccess {
    GrantAccess {
        grant: grant.clone(),
        tenant: tenant.clone(),
        data_key: data_key(),
    }
}

/// A token copy of `grant` as minted five minutes ago, valid for ten more.
pub(crate) fn claims(grant: &Grant) -> TokenClaims {
    TokenClaims {
        tenant_id: grant.tenant_id,
        grant_id: grant.id,
        scopes: grant.scopes.clone(),
        countries: grant.countries.clone(),
        credential_generation: grant.credential_generation,
        issued_at: now() - Duration::minutes(5),
        expires_at: now() + Duration::minutes(10),
        audience: Vec::new(),
    }
}

pub(crate) fn ctx() -> RequestContext {
    RequestContext {
        request_id: RequestId::generate(),
        received_at: now(),
        peer: Some("192.0.2.7".into()),
        resource: None,
    }
}

/// An admitted caller of a tenant provisioned for `provisioned`, holding `scope_list` over
/// `country_list`.
pub(crate) fn caller(provisioned: &str, scope_list: &str, country_list: &str) -> Caller {
    let tenant = tenant(provisioned);
    Caller {
        tenant_id: tenant.id,
        grant_id: GrantId::generate(),
        scopes: scopes(scope_list),
        countries: countries(country_list),
        tenant,
        data_key: data_key(),
        surface: Surface::Rest,
        context: ctx(),
        connection: false,
        on_behalf: None,
    }
}
