//! Operator use cases: tenants, permits, budgets and grants.
//!
//! The operator command line is a thin surface over these; every rule (a tenant keeps its
//! own country, a grant's countries are a non-empty subset of the tenant's) lives here.

use crate::access::grant::{ClientSecret, Grant};
use crate::access::ports::{CredentialHasher, GrantStore, TenantStore};
use crate::access::scope::ScopeSet;
use crate::access::tenant::{Budget, Permit, PermitStatus, Tenant, TenantMode, TenantStatus};
use crate::clock::Clock;
use crate::companies::budget::{BudgetCalendar, BudgetStatement};
use crate::companies::ports::PaidStore;
use crate::countries::country::{Country, CountrySet};
use crate::error::StoreError;
use crate::error::{ErrorCode, Failure};
use crate::ids::{ClientId, GrantId, TenantId};
use crate::monitoring::subscription::MAX_RETENTION_DAYS;
use crate::persons::ports::PersonStore;
use crate::subjects::ports::IdentifierVault;
use chrono::{DateTime, NaiveDate, Utc};
use std::sync::Arc;

pub struct NewTenant {
    pub name: String,
    pub own_country: Country,
    /// `None` provisions the own country only.
    pub provisioned: Option<CountrySet>,
    pub activate: bool,
}

pub struct NewGrant {
    pub tenant_id: TenantId,
    pub scopes: ScopeSet,
    pub countries: CountrySet,
    pub expires_at: Option<DateTime<Utc>>,
    /// A test-mode grant: made on the tenant's test twin (created on first use), its
    /// credentials marked `cid_test_` and `cs_test_`.
    pub test: bool,
    /// Who will revoke and narrow it: the operator (paper terms) or the tenant (the portal).
    pub owner: crate::access::grant::GrantOwner,
}

/// A created grant and its secret, which is shown this once.
pub struct IssuedGrant {
    pub grant: Grant,
    pub client_secret: ClientSecret,
}

pub struct AdminService {
    pub tenants: Arc<dyn TenantStore>,
    pub grants: Arc<dyn GrantStore>,
    pub hasher: Arc<dyn CredentialHasher>,
    pub vault: Arc<dyn IdentifierVault>,
    /// The daily paid-call budget's counters.
    pub paid: Arc<dyn PaidStore>,
    /// The daily person-lookup counters.
    pub persons: Arc<dyn PersonStore>,
    /// Subscriptions follow the tenant's countries.
    pub subscriptions: Arc<dyn crate::monitoring::ports::SubscriptionStore>,
    /// Where the events its changes log are counted.
    pub meter: Arc<dyn crate::meter::Meter>,
    pub clock: Arc<dyn Clock>,
    /// The deployment's calendar (the budget's day).
    pub calendar: BudgetCalendar,
}

fn store_failure(what: &str) -> impl Fn(StoreError) -> Failure + '_ {
    move |e| match e {
        StoreError::NotFound => Failure::not_found(what),
        StoreError::GrantsOutsideCountries(ids) => {
            let ids: Vec<String> = ids.iter().map(|g| g.to_string()).collect();
            Failure::new(
                ErrorCode::GrantCountriesInvalid,
                format!(
                    "grants would carry countries the tenant is not provisioned for: {}; narrow or revoke them first",
                    ids.join(", ")
                ),
            )
        }
        other => Failure::internal(other),
    }
}

fn grant_countries_invalid(message: &str) -> Failure {
    Failure::new(ErrorCode::GrantCountriesInvalid, message)
}

impl AdminService {
    pub async fn create_tenant(&self, new: NewTenant) -> Result<Tenant, Failure> {
        let name = new.name.trim();
        if name.is_empty() {
            return Err(Failure::bad_request("name", "must not be blank"));
        }
        let provisioned = new
            .provisioned
            .unwrap_or_else(|| [new.own_country].into_iter().collect());
        check_own_country(new.own_country, &provisioned)?;
        let tenant = Tenant {
            id: TenantId::generate(),
            name: name.to_owned(),
            own_country: new.own_country,
            provisioned,
            status: if new.activate {
                TenantStatus::Active
            } else {
                TenantStatus::Pending
            },
            permit: None,
            budget: Budget::default(),
            retention_days: crate::monitoring::subscription::DEFAULT_RETENTION_DAYS,
            created_at: self.clock.now(),
            mode: TenantMode::Live,
            test_tenant: None,
        };
        let key = self
            .vault
            .new_data_key(&tenant.id)
            .map_err(Failure::internal)?;
        self.tenants
            .insert_tenant(&tenant, &key)
            .await
            .map_err(store_failure("tenant"))?;
        Ok(tenant)
    }

    /// The live tenant's test twin, made on first use and brought in line with it each
    /// time: the same countries, status and limits, a permit in force (test mode reads only
    /// the sandbox's synthetic persons; the permit gates a real register). A test tenant
    /// has no twin of its own.
    pub(crate) async fn test_twin_of(&self, live: &Tenant) -> Result<Tenant, Failure> {
        if live.mode == TenantMode::Test {
            return Err(Failure::bad_request(
                "tenant",
                "is a test tenant; name its live tenant",
            ));
        }
        let now = self.clock.now();
        let candidate = Tenant {
            id: TenantId::generate(),
            name: format!("{} (test)", live.name),
            own_country: live.own_country,
            provisioned: live.provisioned.clone(),
            status: TenantStatus::Active,
            permit: None,
            budget: live.budget.clone(),
            retention_days: live.retention_days,
            created_at: now,
            mode: TenantMode::Test,
            test_tenant: None,
        };
        let key = self
            .vault
            .new_data_key(&candidate.id)
            .map_err(Failure::internal)?;
        let mut twin = self
            .tenants
            .test_twin(&live.id, &candidate, &key)
            .await
            .map_err(store_failure("tenant"))?;
        if twin.provisioned != live.provisioned {
            twin = self
                .tenants
                .set_provisioned_countries(&twin.id, &live.provisioned)
                .await
                .map_err(store_failure("tenant"))?;
        }
        if twin.budget != live.budget {
            twin = self
                .tenants
                .set_budget(&twin.id, &live.budget)
                .await
                .map_err(store_failure("tenant"))?;
        }
        let today = now.date_naive();
        if Permit::standing(twin.permit.as_ref(), today)
            != crate::access::tenant::PermitStanding::InForce
        {
            let permit = Permit {
                valid_from: today,
                valid_to: today
                    .checked_add_days(chrono::Days::new(3_650))
                    .unwrap_or(today),
                status: PermitStatus::Active,
                recorded_at: now,
            };
            twin = self
                .tenants
                .record_permit(&twin.id, &permit)
                .await
                .map_err(store_failure("tenant"))?;
        }
        Ok(twin)
    }

    /// Deletes the test twin's data (its subjects, events, checks, caches and counters); its
    /// grants and their credentials stay, and its audit trail. `id` names the live tenant
    /// (or the twin itself). A live tenant's own data is never wiped.
    pub async fn wipe_test_data(&self, id: &str) -> Result<(Tenant, u64), Failure> {
        let id = parse_tenant_id(id)?;
        let named = self
            .tenants
            .tenant(&id)
            .await
            .map_err(store_failure("tenant"))?;
        let twin_id = match (named.mode, named.test_tenant) {
            (TenantMode::Test, _) => named.id,
            (TenantMode::Live, Some(twin)) => twin,
            (TenantMode::Live, None) => {
                return Err(Failure::not_found("test tenant (no test grant was made)"))
            }
        };
        let twin = self
            .tenants
            .tenant(&twin_id)
            .await
            .map_err(store_failure("tenant"))?;
        if twin.mode != TenantMode::Test {
            return Err(Failure::internal("a live tenant was named as a test twin"));
        }
        let wiped = self
            .tenants
            .wipe_tenant_data(&twin.id)
            .await
            .map_err(Failure::internal)?;
        Ok((twin, wiped))
    }

    pub async fn tenant(&self, id: &str) -> Result<Tenant, Failure> {
        let id = parse_tenant_id(id)?;
        self.tenants
            .tenant(&id)
            .await
            .map_err(store_failure("tenant"))
    }

    pub async fn activate_tenant(&self, id: &str) -> Result<Tenant, Failure> {
        let id = parse_tenant_id(id)?;
        self.tenants
            .set_tenant_status(&id, TenantStatus::Active)
            .await
            .map_err(store_failure("tenant"))
    }

    /// Replaces the provisioned set. Refuses to drop the own country, and refuses (whole) a
    /// set that would leave a live grant carrying a country outside it.
    pub async fn set_tenant_countries(
        &self,
        id: &str,
        countries: CountrySet,
    ) -> Result<Tenant, Failure> {
        let id = parse_tenant_id(id)?;
        let tenant = self
            .tenants
            .tenant(&id)
            .await
            .map_err(store_failure("tenant"))?;
        check_own_country(tenant.own_country, &countries)?;
        let updated = self
            .tenants
            .set_provisioned_countries(&id, &countries)
            .await
            .map_err(store_failure("tenant"))?;
        crate::monitoring::subscription_service::follow_countries(
            self.subscriptions.as_ref(),
            self.meter.as_ref(),
            &id,
            &tenant.provisioned,
            &updated.provisioned,
            self.clock.now(),
        )
        .await?;
        Ok(updated)
    }

    pub async fn set_permit(
        &self,
        id: &str,
        valid_from: NaiveDate,
        valid_to: NaiveDate,
        status: PermitStatus,
    ) -> Result<Tenant, Failure> {
        let id = parse_tenant_id(id)?;
        if valid_to < valid_from {
            return Err(Failure::bad_request(
                "valid-to",
                "must not be before valid-from",
            ));
        }
        let permit = Permit {
            valid_from,
            valid_to,
            status,
            recorded_at: self.clock.now(),
        };
        let updated = self
            .tenants
            .record_permit(&id, &permit)
            .await
            .map_err(store_failure("tenant"))?;
        crate::monitoring::subscription_service::follow_permit(
            self.subscriptions.as_ref(),
            self.meter.as_ref(),
            &updated,
            self.calendar.day(self.clock.now()),
            self.clock.now(),
        )
        .await?;
        Ok(updated)
    }

    /// Sets how many days an ended subscription's events keep their data (1 to
    /// [`MAX_RETENTION_DAYS`]); subscriptions that end afterwards use it.
    pub async fn set_retention(&self, id: &str, days: i64) -> Result<Tenant, Failure> {
        let id = parse_tenant_id(id)?;
        let days = u32::try_from(days)
            .ok()
            .filter(|d| (1..=MAX_RETENTION_DAYS).contains(d))
            .ok_or_else(|| {
                Failure::bad_request(
                    "days",
                    &format!("must be a whole number of days from 1 to {MAX_RETENTION_DAYS}"),
                )
            })?;
        self.tenants
            .set_retention(&id, days)
            .await
            .map_err(store_failure("tenant"))
    }

    pub async fn set_budget(&self, id: &str, budget: Budget) -> Result<Tenant, Failure> {
        let id = parse_tenant_id(id)?;
        budget
            .validate()
            .map_err(|m| Failure::new(ErrorCode::BadRequest, m))?;
        self.tenants
            .set_budget(&id, &budget)
            .await
            .map_err(store_failure("tenant"))
    }

    /// The tenant's budget and its use on `day` (today, in the budget's time zone, when
    /// `None`).
    pub async fn budget_statement(
        &self,
        id: &str,
        day: Option<NaiveDate>,
    ) -> Result<BudgetStatement, Failure> {
        let id = parse_tenant_id(id)?;
        let tenant = self
            .tenants
            .tenant(&id)
            .await
            .map_err(store_failure("tenant"))?;
        let day = day.unwrap_or_else(|| self.calendar.day(self.clock.now()));
        let usage = self
            .paid
            .budget_usage(&id, day)
            .await
            .map_err(Failure::internal)?;
        let person_lookups = self
            .persons
            .person_lookups(&id, day)
            .await
            .map_err(Failure::internal)?;
        Ok(BudgetStatement {
            day,
            person_lookups,
            time_zone: self.calendar.zone(),
            renews_at: self.calendar.renews_at(day),
            budget: tenant.budget,
            usage,
        })
    }

    pub async fn create_grant(&self, new: NewGrant) -> Result<IssuedGrant, Failure> {
        if new.countries.is_empty() {
            return Err(grant_countries_invalid(
                "a grant needs at least one country",
            ));
        }
        let tenant = self
            .tenants
            .tenant(&new.tenant_id)
            .await
            .map_err(store_failure("tenant"))?;
        let tenant = if new.test {
            self.test_twin_of(&tenant).await?
        } else {
            tenant
        };
        if !new.countries.is_subset(&tenant.provisioned) {
            return Err(grant_countries_invalid(&format!(
                "the grant's countries must be a subset of the tenant's provisioned countries ({})",
                tenant.provisioned
            )));
        }
        let now = self.clock.now();
        if new.expires_at.is_some_and(|e| e <= now) {
            return Err(Failure::bad_request("expires-at", "must be in the future"));
        }
        let client_secret = self.hasher.generate_secret();
        let client_secret = if new.test {
            client_secret.for_test()
        } else {
            client_secret
        };
        let hash = self
            .hasher
            .hash_secret(&client_secret)
            .await
            .map_err(Failure::internal)?;
        let grant = Grant {
            id: GrantId::generate(),
            tenant_id: tenant.id,
            client_id: if new.test {
                ClientId::generate_test()
            } else {
                ClientId::generate()
            },
            scopes: new.scopes,
            countries: new.countries,
            expires_at: new.expires_at,
            revoked_at: None,
            credential_generation: 1,
            created_at: now,
            owner: new.owner,
        };
        self.grants
            .insert_grant(&grant, &hash)
            .await
            .map_err(store_failure("tenant"))?;
        Ok(IssuedGrant {
            grant,
            client_secret,
        })
    }

    /// Narrows or widens a grant. Narrowing takes effect on the next request; widening only
    /// for tokens minted afterwards (the guard intersects token and grant).
    pub async fn update_grant(
        &self,
        id: &str,
        scopes: Option<ScopeSet>,
        countries: Option<CountrySet>,
    ) -> Result<Grant, Failure> {
        if scopes.is_none() && countries.is_none() {
            return Err(Failure::bad_request(
                "scopes",
                "give --scopes, --countries or both",
            ));
        }
        if countries.as_ref().is_some_and(CountrySet::is_empty) {
            return Err(grant_countries_invalid(
                "a grant needs at least one country",
            ));
        }
        let (tenant_id, id) = self.locate_grant(id).await?;
        if let Some(countries) = &countries {
            let tenant = self
                .tenants
                .tenant(&tenant_id)
                .await
                .map_err(store_failure("tenant"))?;
            if !countries.is_subset(&tenant.provisioned) {
                return Err(grant_countries_invalid(&format!(
                    "the grant's countries must be a subset of the tenant's provisioned countries ({})",
                    tenant.provisioned
                )));
            }
        }
        self.grants
            .update_grant(&tenant_id, &id, scopes.as_ref(), countries.as_ref())
            .await
            .map_err(store_failure("grant"))
    }

    pub async fn revoke_grant(&self, id: &str) -> Result<Grant, Failure> {
        let (tenant_id, id) = self.locate_grant(id).await?;
        self.grants
            .revoke_grant(&tenant_id, &id, self.clock.now())
            .await
            .map_err(store_failure("grant"))
    }

    /// A new secret; tokens minted under the old one stop working at once.
    pub async fn rotate_secret(&self, id: &str) -> Result<IssuedGrant, Failure> {
        let (tenant_id, id) = self.locate_grant(id).await?;
        let current = self
            .grants
            .grant(&tenant_id, &id)
            .await
            .map_err(store_failure("grant"))?;
        let client_secret = self.hasher.generate_secret();
        let client_secret = if current.client_id.is_test() {
            client_secret.for_test()
        } else {
            client_secret
        };
        let hash = self
            .hasher
            .hash_secret(&client_secret)
            .await
            .map_err(Failure::internal)?;
        let grant = self
            .grants
            .rotate_secret(&tenant_id, &id, &hash)
            .await
            .map_err(store_failure("grant"))?;
        Ok(IssuedGrant {
            grant,
            client_secret,
        })
    }

    /// The tenant and id of the grant an operator named by id alone; every later step is
    /// scoped by that tenant.
    async fn locate_grant(&self, id: &str) -> Result<(TenantId, GrantId), Failure> {
        let id = parse_grant_id(id)?;
        let tenant = self
            .grants
            .grant_tenant(&id)
            .await
            .map_err(Failure::internal)?
            .ok_or_else(|| Failure::not_found("grant"))?;
        Ok((tenant, id))
    }
}

fn check_own_country(own: Country, provisioned: &CountrySet) -> Result<(), Failure> {
    if provisioned.contains(own) {
        Ok(())
    } else {
        Err(Failure::new(
            ErrorCode::ProvisionedCountriesInvalid,
            format!("the tenant's own country ({own}) must remain in its provisioned countries"),
        ))
    }
}

fn parse_tenant_id(id: &str) -> Result<TenantId, Failure> {
    id.parse().map_err(|_| Failure::not_found("tenant"))
}

fn parse_grant_id(id: &str) -> Result<GrantId, Failure> {
    id.parse().map_err(|_| Failure::not_found("grant"))
}
