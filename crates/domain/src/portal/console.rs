//! What a signed-in portal user does at their tenant: grants, usage, the audit log, screening
//! checks, the whitelist's four eyes, and (admins) the tenant's portal users.
//!
//! Every use case here is the operator's own (`AdminService`, `ScreeningAdmin`,
//! `PortalAdmin`, `ScreeningService`), scoped to the session's tenant: the same rules and
//! codes whichever way the tenant comes in. A grant or entry of another tenant is 404, as if
//! it did not exist. Each action writes one row of the tenant's audit log naming the portal
//! user (surface `portal`), whatever its outcome.

use crate::access::admin::{AdminService, IssuedGrant, NewGrant};
use crate::access::audit::{AuditEntry, AuditFilter, Outcome, PortalAuditRecord, RequestContext};
use crate::access::caller::Caller;
use crate::access::grant::{Grant, GrantOwner};
use crate::access::ports::{AuditLog, AuditSink, GrantStore, TenantStore};
use crate::access::scope::ScopeSet;
use crate::clock::Clock;
use crate::companies::budget::{BudgetCalendar, BudgetStatement, BudgetUsage};
use crate::companies::ports::PaidStore;
use crate::countries::country::CountrySet;
use crate::error::{ErrorCode, Failure, StoreError};
use crate::ids::{GrantId, PortalUserId, TenantId};
use crate::portal::action::PortalAction;
use crate::portal::admin::PortalAdmin;
use crate::portal::service::PortalCaller;
use crate::portal::user::{PortalRole, PortalUser};
use crate::screening::admin::{NewWhitelistEntry, ScreeningAdmin};
use crate::screening::check::{ChecksRequest, ServedCheck};
use crate::screening::service::{ScreeningService, WhitelistView};
use chrono::{DateTime, Duration, NaiveDate, Utc};
use std::sync::Arc;

/// Days of spend the usage page shows, today included.
pub const USAGE_DAYS: i64 = 30;
/// Rows of the audit log a page shows.
pub const AUDIT_PAGE: u32 = 50;
/// Checks the screening page shows, newest first.
pub const CHECKS_PAGE: u32 = 50;

pub struct PortalConsole {
    pub admin: Arc<AdminService>,
    pub screening_admin: Arc<ScreeningAdmin>,
    pub portal_admin: Arc<PortalAdmin>,
    pub screening: Arc<ScreeningService>,
    pub tenants: Arc<dyn TenantStore>,
    pub grants: Arc<dyn GrantStore>,
    pub paid: Arc<dyn PaidStore>,
    pub audit_log: Arc<dyn AuditLog>,
    pub audit: Arc<dyn AuditSink>,
    pub clock: Arc<dyn Clock>,
    /// The deployment's calendar (the budget's day).
    pub calendar: BudgetCalendar,
}

/// A grant as a portal admin asks for it (the form's fields, unparsed).
#[derive(Clone, Debug, Default)]
pub struct GrantRequest {
    /// Scope names, space- or comma-separated.
    pub scopes: String,
    /// Country codes, space- or comma-separated.
    pub countries: String,
    /// `YYYY-MM-DD` (in effect through that day, UTC) or RFC 3339; empty for none.
    pub expires: String,
    /// A test-mode grant (`cid_test_`/`cs_test_`: the sandbox registers, on the tenant's test
    /// twin, made on first use); only when making one.
    pub test: bool,
}

/// A whitelist entry as a portal user proposes it.
#[derive(Clone, Debug, Default)]
pub struct WhitelistProposal {
    /// A subject id, or a check's `input_hash`.
    pub clears: String,
    pub source_id: String,
    pub source_entry_id: String,
    pub reason: String,
    /// `YYYY-MM-DD` (in effect through that day, UTC) or RFC 3339.
    pub expires: String,
}

/// The usage page: today's statement and the spend of each of the last [`USAGE_DAYS`] days,
/// newest first.
#[derive(Clone, Debug, PartialEq)]
pub struct UsageReport {
    pub today: BudgetStatement,
    pub days: Vec<(NaiveDate, BudgetUsage)>,
}

/// A page of the audit log, and the cursor of the next one when there is more.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditPage {
    pub entries: Vec<AuditEntry>,
    pub next: Option<String>,
}

/// `YYYY-MM-DD` (the end of that day, UTC) or an RFC 3339 time.
pub fn parse_expiry(field: &str, raw: &str) -> Result<DateTime<Utc>, Failure> {
    let raw = raw.trim();
    if let Ok(day) = NaiveDate::parse_from_str(raw, "%Y-%m-%d") {
        if let Some(end) = day.succ_opt().and_then(|d| d.and_hms_opt(0, 0, 0)) {
            return Ok(end.and_utc() - Duration::microseconds(1));
        }
    }
    DateTime::parse_from_rfc3339(raw)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| Failure::bad_request(field, "must be a date (YYYY-MM-DD) or an RFC 3339 time"))
}

fn scopes(list: &str) -> Result<ScopeSet, Failure> {
    ScopeSet::parse_grantable(list).map_err(|e| Failure::bad_request("scopes", &e.to_string()))
}

fn countries(list: &str) -> Result<CountrySet, Failure> {
    CountrySet::parse_list(list).map_err(|e| Failure::bad_request("countries", &e))
}

/// The owner revokes and narrows a grant: the tenant those it made in the portal, the operator
/// those provisioned on paper terms. (Rotating the secret is the holder's hygiene, either way.)
fn tenants_terms(grant: &Grant) -> Result<(), Failure> {
    match grant.owner {
        GrantOwner::Tenant => Ok(()),
        GrantOwner::Operator => Err(Failure::new(
            ErrorCode::Forbidden,
            "this grant was provisioned by the operator on paper terms: the operator revokes or \
             narrows it",
        )),
    }
}

fn admins_only(caller: &PortalCaller) -> Result<(), Failure> {
    if caller.session.role == PortalRole::Admin {
        Ok(())
    } else {
        Err(Failure::new(
            ErrorCode::Forbidden,
            "only a portal admin of the tenant may do this",
        ))
    }
}

impl PortalConsole {
    fn tenant_of(caller: &PortalCaller) -> TenantId {
        caller.session.tenant_id
    }

    /// Writes the action's audit row; a write that fails fails the request (nothing is
    /// answered that the log does not hold).
    async fn audited<T>(
        &self,
        ctx: &RequestContext,
        caller: &PortalCaller,
        action: PortalAction,
        grant: Option<GrantId>,
        result: Result<T, Failure>,
    ) -> Result<T, Failure> {
        let status = match &result {
            Ok(_) => Ok(200),
            Err(f) => Err(f.code),
        };
        let record = PortalAuditRecord::concluded(
            ctx,
            Self::tenant_of(caller),
            caller.session.user_id,
            action,
            status,
        )
        .on_grant(grant);
        self.audit
            .record_portal(&record)
            .await
            .map_err(Failure::internal)?;
        result
    }

    /// The caller's tenant, and its test twin once it has one: the tenants whose grants the
    /// portal manages (a test-mode grant lives on the twin).
    async fn own_tenants(&self, caller: &PortalCaller) -> Result<Vec<TenantId>, Failure> {
        let live = self
            .tenants
            .tenant(&Self::tenant_of(caller))
            .await
            .map_err(Failure::internal)?;
        Ok(std::iter::once(live.id).chain(live.test_tenant).collect())
    }

    /// A grant of the caller's tenant or its test twin, else 404.
    async fn own_grant(&self, caller: &PortalCaller, id: &str) -> Result<Grant, Failure> {
        let not_found = || Failure::not_found("grant");
        let id: GrantId = id.trim().parse().map_err(|_| not_found())?;
        for tenant in self.own_tenants(caller).await? {
            match self.grants.grant(&tenant, &id).await {
                Ok(g) => return Ok(g),
                Err(StoreError::NotFound) => {}
                Err(e) => return Err(Failure::internal(e)),
            }
        }
        Err(not_found())
    }

    /// The tenant's grants, live and test-mode, newest first.
    pub async fn grants(&self, caller: &PortalCaller) -> Result<Vec<Grant>, Failure> {
        let mut all = Vec::new();
        for tenant in self.own_tenants(caller).await? {
            all.extend(
                self.grants
                    .grants(&tenant)
                    .await
                    .map_err(Failure::internal)?,
            );
        }
        all.sort_by_key(|g| std::cmp::Reverse((g.created_at, g.id)));
        Ok(all)
    }

    /// The tenant's provisioned countries (what a grant may be given).
    pub async fn provisioned(&self, caller: &PortalCaller) -> Result<CountrySet, Failure> {
        self.tenants
            .tenant(&Self::tenant_of(caller))
            .await
            .map(|t| t.provisioned)
            .map_err(Failure::internal)
    }

    /// A new live grant (admins): its secret is shown this once.
    pub async fn create_grant(
        &self,
        ctx: &RequestContext,
        caller: &PortalCaller,
        request: &GrantRequest,
    ) -> Result<IssuedGrant, Failure> {
        let result = async {
            admins_only(caller)?;
            let expires_at = match request.expires.trim() {
                "" => None,
                e => Some(parse_expiry("expires", e)?),
            };
            let countries = countries(&request.countries)?;
            self.admin
                .create_grant(NewGrant {
                    tenant_id: Self::tenant_of(caller),
                    scopes: scopes(&request.scopes)?,
                    countries,
                    expires_at,
                    test: request.test,
                    owner: GrantOwner::Tenant,
                })
                .await
        }
        .await;
        let grant = result.as_ref().ok().map(|g| g.grant.id);
        self.audited(ctx, caller, PortalAction::GrantCreated, grant, result)
            .await
    }

    /// Narrows or widens a grant's scopes and countries (admins).
    pub async fn update_grant(
        &self,
        ctx: &RequestContext,
        caller: &PortalCaller,
        id: &str,
        request: &GrantRequest,
    ) -> Result<Grant, Failure> {
        let mut concerned = None;
        let result = async {
            admins_only(caller)?;
            let grant = self.own_grant(caller, id).await?;
            concerned = Some(grant.id);
            tenants_terms(&grant)?;
            let scopes = Some(scopes(&request.scopes)?);
            let countries = Some(countries(&request.countries)?);
            self.admin
                .update_grant(&grant.id.to_string(), scopes, countries)
                .await
        }
        .await;
        self.audited(ctx, caller, PortalAction::GrantUpdated, concerned, result)
            .await
    }

    /// A new secret (admins); the old one stops working at once.
    pub async fn rotate_grant(
        &self,
        ctx: &RequestContext,
        caller: &PortalCaller,
        id: &str,
    ) -> Result<IssuedGrant, Failure> {
        let mut concerned = None;
        let result = async {
            admins_only(caller)?;
            let grant = self.own_grant(caller, id).await?;
            concerned = Some(grant.id);
            self.admin.rotate_secret(&grant.id.to_string()).await
        }
        .await;
        self.audited(ctx, caller, PortalAction::GrantRotated, concerned, result)
            .await
    }

    /// Revokes a grant (admins), at once.
    pub async fn revoke_grant(
        &self,
        ctx: &RequestContext,
        caller: &PortalCaller,
        id: &str,
    ) -> Result<Grant, Failure> {
        let mut concerned = None;
        let result = async {
            admins_only(caller)?;
            let grant = self.own_grant(caller, id).await?;
            concerned = Some(grant.id);
            tenants_terms(&grant)?;
            if grant.revoked_at.is_some() {
                return Err(Failure::bad_request("grant", "is revoked already"));
            }
            self.admin.revoke_grant(&grant.id.to_string()).await
        }
        .await;
        self.audited(ctx, caller, PortalAction::GrantRevoked, concerned, result)
            .await
    }

    /// Today's paid budget and person ceiling, and the spend of the last [`USAGE_DAYS`] days:
    /// the live tenant's, or with `test` its test twin's (test-mode grants spend the twin's
    /// budget); `None` when `test` and no twin was made yet (nothing was spent in test mode).
    pub async fn usage(
        &self,
        caller: &PortalCaller,
        test: bool,
    ) -> Result<Option<UsageReport>, Failure> {
        let tenant = if test {
            match self.own_tenants(caller).await?.get(1) {
                Some(twin) => *twin,
                None => return Ok(None),
            }
        } else {
            Self::tenant_of(caller)
        };
        let today = self
            .admin
            .budget_statement(&tenant.to_string(), None)
            .await?;
        let last = self.calendar.day(self.clock.now());
        let first = last - Duration::days(USAGE_DAYS - 1);
        let spent: std::collections::HashMap<NaiveDate, BudgetUsage> = self
            .paid
            .budget_usage_between(&tenant, first, last)
            .await
            .map_err(Failure::internal)?
            .into_iter()
            .collect();
        let days = (0..USAGE_DAYS)
            .map(|back| last - Duration::days(back))
            .map(|day| (day, spent.get(&day).cloned().unwrap_or_default()))
            .collect();
        Ok(Some(UsageReport { today, days }))
    }

    /// A page of the tenant's audit log, newest first: the live log, or with `test` the test
    /// twin's (where test-mode grants' requests are logged). A grant filter reads the log of
    /// the grant's own tenant.
    pub async fn audit(
        &self,
        ctx: &RequestContext,
        caller: &PortalCaller,
        filter: &AuditFilter,
        test: bool,
    ) -> Result<AuditPage, Failure> {
        let result = async {
            let tenant = match &filter.grant {
                Some(g) => Some(self.own_grant(caller, &g.to_string()).await?.tenant_id),
                None if test => self.own_tenants(caller).await?.get(1).copied(),
                None => Some(Self::tenant_of(caller)),
            };
            // No twin yet: no test-mode request was ever made.
            let Some(tenant) = tenant else {
                return Ok(AuditPage {
                    entries: Vec::new(),
                    next: None,
                });
            };
            let mut entries = self
                .audit_log
                .audit_entries(&tenant, filter, AUDIT_PAGE + 1)
                .await
                .map_err(Failure::internal)?;
            let next = if entries.len() > AUDIT_PAGE as usize {
                entries.truncate(AUDIT_PAGE as usize);
                entries.last().map(|e| e.audit_id.clone())
            } else {
                None
            };
            Ok(AuditPage { entries, next })
        }
        .await;
        self.audited(ctx, caller, PortalAction::AuditRead, filter.grant, result)
            .await
    }

    /// The reader a portal user's screening reads run as.
    async fn screening_reader(
        &self,
        ctx: &RequestContext,
        tenant: TenantId,
    ) -> Result<Caller, Failure> {
        let (tenant, key) = self
            .tenants
            .tenant_with_key(&tenant)
            .await
            .map_err(Failure::internal)?;
        Ok(Caller::portal(tenant, key, ctx.clone()))
    }

    /// The tenant's newest checks (`test`: its test twin's, made with test-mode
    /// credentials; none before the twin exists), masked as any reader without `kyc:read`
    /// sees them.
    pub async fn checks(
        &self,
        ctx: &RequestContext,
        caller: &PortalCaller,
        test: bool,
    ) -> Result<Vec<ServedCheck>, Failure> {
        let result = async {
            let tenant = if test {
                match self.own_tenants(caller).await?.get(1) {
                    Some(twin) => *twin,
                    None => return Ok(Vec::new()),
                }
            } else {
                Self::tenant_of(caller)
            };
            let reader = self.screening_reader(ctx, tenant).await?;
            self.screening
                .list(
                    &reader,
                    &ChecksRequest {
                        limit: Some(CHECKS_PAGE.to_string()),
                        subject_id: None,
                    },
                )
                .await
        }
        .await;
        self.audited(ctx, caller, PortalAction::ChecksListed, None, result)
            .await
    }

    /// One check with its candidates and reasons: the tenant's, or its test twin's.
    pub async fn check(
        &self,
        ctx: &RequestContext,
        caller: &PortalCaller,
        id: &str,
    ) -> Result<ServedCheck, Failure> {
        let result = async {
            let mut found = Err(Failure::not_found("screening check"));
            for tenant in self.own_tenants(caller).await? {
                let reader = self.screening_reader(ctx, tenant).await?;
                found = self.screening.get(&reader, id).await;
                if !matches!(&found, Err(f) if f.code == ErrorCode::NotFound) {
                    break;
                }
            }
            found
        }
        .await;
        self.audited(ctx, caller, PortalAction::CheckRead, None, result)
            .await
    }

    /// The tenant's whitelist entries, newest first, each with whether it is in effect now.
    pub async fn whitelist(&self, caller: &PortalCaller) -> Result<Vec<WhitelistView>, Failure> {
        let now = self.clock.now();
        let mut entries = self
            .screening_admin
            .whitelist(&Self::tenant_of(caller).to_string())
            .await?;
        entries.sort_by_key(|e| std::cmp::Reverse(e.created_at));
        Ok(entries
            .into_iter()
            .map(|entry| WhitelistView {
                effective: entry.effective(now),
                entry,
            })
            .collect())
    }

    /// Proposes an entry; it counts only once another user approves it.
    pub async fn propose_whitelist_entry(
        &self,
        ctx: &RequestContext,
        caller: &PortalCaller,
        proposal: &WhitelistProposal,
    ) -> Result<WhitelistView, Failure> {
        let result = async {
            let clears = proposal.clears.trim();
            let (subject_id, input_hash) = if clears.starts_with("hmac-sha256:") {
                (None, Some(clears.to_owned()))
            } else {
                (Some(clears.to_owned()), None)
            };
            let entry = self
                .screening_admin
                .add_whitelist_entry(NewWhitelistEntry {
                    tenant: Self::tenant_of(caller).to_string(),
                    subject_id,
                    input_hash,
                    source_id: proposal.source_id.clone(),
                    source_entry_id: proposal.source_entry_id.clone(),
                    reason: proposal.reason.clone(),
                    created_by: caller.session.user_id.to_string(),
                    expires_at: parse_expiry("expires", &proposal.expires)?,
                })
                .await?;
            Ok(WhitelistView {
                effective: false,
                entry,
            })
        }
        .await;
        self.audited(ctx, caller, PortalAction::WhitelistProposed, None, result)
            .await
    }

    /// Approves another user's proposal (four eyes: by a user of another line than the
    /// proposer's, [`crate::portal::four_eyes`]). A refusal is audited with its reason.
    pub async fn approve_whitelist_entry(
        &self,
        ctx: &RequestContext,
        caller: &PortalCaller,
        id: &str,
    ) -> Result<WhitelistView, Failure> {
        let mut refusal = None;
        let result = async {
            let tenant = Self::tenant_of(caller);
            let (_, proposed) = self.screening_admin.whitelist_entry(&tenant, id).await?;
            let users = self.portal_admin.users(&tenant.to_string()).await?;
            if let Err(r) = crate::portal::four_eyes::may_approve(
                &users,
                &proposed.created_by,
                caller.session.user_id,
            ) {
                let failure = Failure::new(ErrorCode::BadRequest, r.message());
                refusal = Some(r);
                return Err(failure);
            }
            let entry = self
                .screening_admin
                .approve_whitelist_entry(
                    &Self::tenant_of(caller).to_string(),
                    id,
                    &caller.session.user_id.to_string(),
                )
                .await?;
            Ok(WhitelistView {
                effective: entry.effective(self.clock.now()),
                entry,
            })
        }
        .await;
        let status = match &result {
            Ok(_) => Ok(200),
            Err(f) => Err(f.code),
        };
        let mut record = PortalAuditRecord::concluded(
            ctx,
            Self::tenant_of(caller),
            caller.session.user_id,
            PortalAction::WhitelistApproved,
            status,
        );
        record.detail = refusal.as_ref().map(|r| r.as_str());
        self.audit
            .record_portal(&record)
            .await
            .map_err(Failure::internal)?;
        result
    }

    /// Revokes an entry at once.
    pub async fn revoke_whitelist_entry(
        &self,
        ctx: &RequestContext,
        caller: &PortalCaller,
        id: &str,
    ) -> Result<WhitelistView, Failure> {
        let result = self
            .screening_admin
            .revoke_whitelist_entry(&Self::tenant_of(caller).to_string(), id)
            .await
            .map(|entry| WhitelistView {
                effective: false,
                entry,
            });
        self.audited(ctx, caller, PortalAction::WhitelistRevoked, None, result)
            .await
    }

    /// The tenant's portal users, oldest first.
    pub async fn users(&self, caller: &PortalCaller) -> Result<Vec<PortalUser>, Failure> {
        self.portal_admin
            .users(&Self::tenant_of(caller).to_string())
            .await
    }

    /// Adds a portal user (admins).
    pub async fn add_user(
        &self,
        ctx: &RequestContext,
        caller: &PortalCaller,
        email: &str,
        role: &str,
    ) -> Result<PortalUser, Failure> {
        let result = async {
            admins_only(caller)?;
            self.portal_admin
                .create_user(
                    &Self::tenant_of(caller).to_string(),
                    email,
                    role,
                    Some(caller.session.user_id),
                )
                .await
        }
        .await;
        self.audited(ctx, caller, PortalAction::UserAdded, None, result)
            .await
    }

    /// Disables a portal user (admins; never oneself): their sessions end with it.
    pub async fn disable_user(
        &self,
        ctx: &RequestContext,
        caller: &PortalCaller,
        id: &str,
    ) -> Result<PortalUser, Failure> {
        let result = async {
            admins_only(caller)?;
            let id: PortalUserId = id
                .trim()
                .parse()
                .map_err(|_| Failure::not_found("portal user"))?;
            if id == caller.session.user_id {
                return Err(Failure::bad_request(
                    "user",
                    "an admin cannot disable their own user; ask another admin",
                ));
            }
            self.portal_admin
                .disable_user(&Self::tenant_of(caller).to_string(), &id)
                .await
        }
        .await;
        self.audited(ctx, caller, PortalAction::UserDisabled, None, result)
            .await
    }
}

/// An outcome's name as the audit page's filter offers it.
pub fn outcome_filter(raw: &str) -> Result<Option<Outcome>, Failure> {
    match raw.trim() {
        "" => Ok(None),
        o => Outcome::parse(o)
            .map(Some)
            .ok_or_else(|| Failure::bad_request("outcome", "must be allowed, refused or failed")),
    }
}
