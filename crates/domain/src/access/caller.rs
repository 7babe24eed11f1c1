//! The caller: an admitted consumer, as every use case sees it, and the service's own
//! principals (scheduled monitoring, ongoing screening, the portal's reads), with the scope
//! and country rules every use case applies to it. [`crate::access::gate`] admits one.

use crate::access::audit::{Attribution, RequestContext};
use crate::access::scope::{Scope, ScopeSet};
use crate::access::tenant::{Tenant, WrappedDataKey};
use crate::countries::country::{Country, CountrySet};
use crate::error::{ErrorCode, Failure};
use crate::ids::{GrantId, TenantId};
use crate::operation::{Operation, Surface};

/// An admitted consumer, as every use case sees it.
#[derive(Clone, Debug)]
pub struct Caller {
    pub tenant_id: TenantId,
    pub grant_id: GrantId,
    /// Token scopes ∩ the grant's current scopes.
    pub scopes: ScopeSet,
    /// Token countries ∩ the grant's current countries.
    pub countries: CountrySet,
    pub tenant: Tenant,
    pub data_key: WrappedDataKey,
    pub surface: Surface,
    pub context: RequestContext,
    /// Admitted by a token of a person's agent connection (authorization code): a scope it
    /// lacks can be asked for by the person again (the MCP step-up challenge).
    pub connection: bool,
    /// The portal user and conversation the assistant runs this caller for.
    pub on_behalf: Option<crate::access::audit::OnBehalf>,
}

impl Caller {
    /// Live, or test mode (the caller's tenant is a test twin): which connectors serve it.
    pub fn mode(&self) -> crate::access::tenant::TenantMode {
        self.tenant.mode
    }

    /// The principal of scheduled monitoring work for `tenant`: no consumer's grant
    /// ([`GrantId::MONITORING`]), the company-reading scopes the work needs, every country
    /// the tenant is provisioned for. It never passes through the gate and never reaches a
    /// route; its upstream calls are recorded like any other.
    pub fn monitoring(
        tenant: Tenant,
        data_key: WrappedDataKey,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Caller {
        Caller {
            tenant_id: tenant.id,
            grant_id: GrantId::MONITORING,
            scopes: [Scope::KybRead, Scope::KybRefresh].into_iter().collect(),
            countries: tenant.provisioned.clone(),
            tenant,
            data_key,
            surface: Surface::Scheduler,
            context: RequestContext::new(None, at),
            connection: false,
            on_behalf: None,
        }
    }

    /// The principal of a portal user's reads of the tenant's screening checks: no consumer's
    /// grant ([`GrantId::PORTAL`]), `screening:read` alone (so an organisation number is
    /// masked as for any reader without `kyc:read`), every country the tenant is provisioned
    /// for. The portal records its own audit row for what the user did.
    pub fn portal(tenant: Tenant, data_key: WrappedDataKey, context: RequestContext) -> Caller {
        Caller {
            tenant_id: tenant.id,
            grant_id: GrantId::PORTAL,
            scopes: [Scope::ScreeningRead].into_iter().collect(),
            countries: tenant.provisioned.clone(),
            tenant,
            data_key,
            surface: Surface::Portal,
            context,
            connection: false,
            on_behalf: None,
        }
    }

    /// The principal of ongoing screening for `tenant` (a list change screening its
    /// monitored subjects again): like [`Caller::monitoring`], with `screening:run`, and
    /// `kyc:read` so a monitored person is screened with the register's name and birth date.
    /// The tenant's permit still governs every person read: without one in force, none is
    /// made.
    pub fn ongoing_screening(
        tenant: Tenant,
        data_key: WrappedDataKey,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Caller {
        let mut caller = Caller::monitoring(tenant, data_key, at);
        caller.scopes = [
            Scope::KybRead,
            Scope::KycRead,
            Scope::ScreeningRun,
            Scope::ScreeningRead,
        ]
        .into_iter()
        .collect();
        caller
    }

    /// Passes when the caller holds at least one of `scopes`; else 403 `forbidden` naming them.
    pub fn require_any_scope(&self, scopes: &[Scope]) -> Result<(), Failure> {
        if self.scopes.contains_any(scopes) {
            Ok(())
        } else {
            Err(Failure::forbidden(scopes))
        }
    }

    /// Passes when the caller holds one of the scopes that open `op`; else 403 `forbidden`.
    pub fn require_operation(&self, op: Operation) -> Result<(), Failure> {
        match op.scopes() {
            [] => Ok(()),
            scopes => self.require_any_scope(scopes),
        }
    }

    /// The country rule of every route that names a country: not provisioned for the tenant
    /// gives `country_not_provisioned`; provisioned but outside the grant (or the token) gives
    /// `country_not_granted`.
    pub fn require_country(&self, country: Country) -> Result<(), Failure> {
        if !self.tenant.provisioned.contains(country) {
            return Err(Failure::new(
                ErrorCode::CountryNotProvisioned,
                format!("the tenant is not provisioned for {country}"),
            ));
        }
        if !self.countries.contains(country) {
            return Err(Failure::new(
                ErrorCode::CountryNotGranted,
                format!("this credential is not granted {country}"),
            ));
        }
        Ok(())
    }

    /// Whom this caller's audit rows are filed under.
    pub fn attribution(&self) -> Attribution {
        Attribution {
            tenant_id: self.tenant_id,
            grant_id: self.grant_id,
            surface: self.surface,
            on_behalf: self.on_behalf,
        }
    }

    /// Countries a read by id may show: those of the grant that the tenant still provisions.
    pub fn visible_countries(&self) -> CountrySet {
        self.countries.intersection(&self.tenant.provisioned)
    }
}
