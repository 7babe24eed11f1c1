//! The guard and the audited call: the one path every consumer request takes.
//!
//! 1. [`Gate::admit`] verifies the bearer token, loads the grant record (which governs), and
//!    builds a [`Caller`] whose scopes and countries are the token's intersected with the
//!    grant's current ones. Refusals here are logged once, by this guard.
//! 2. The use case runs with the `Caller` and does all authorization (scope, country).
//! 3. [`Gate::conclude`] writes one audit row for the outcome, durably, before the surface
//!    answers. A 400 validation failure is not logged.
//!
//! REST and MCP both go through [`Gate::call`], so neither can skip a rule.

use crate::audit::{AccessRecord, Outcome, RequestContext, SecurityReason, SecurityRecord};
use crate::clock::Clock;
use crate::country::{Country, CountrySet};
use crate::error::{ErrorCode, Failure};
use crate::ids::{GrantId, TenantId};
use crate::operation::{Operation, Surface};
use crate::ports::{AuditSink, GrantStore, TokenAuthority};
use crate::scope::{Scope, ScopeSet};
use crate::tenant::{Tenant, TenantStatus, WrappedDataKey};
use crate::token::TokenRejection;
use std::future::Future;
use std::sync::Arc;

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
}

impl Caller {
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

    /// Countries a read by id may show: those of the grant that the tenant still provisions.
    pub fn visible_countries(&self) -> CountrySet {
        self.countries.intersection(&self.tenant.provisioned)
    }
}

/// The guard plus the audit trail.
pub struct Gate {
    pub authority: Arc<dyn TokenAuthority>,
    pub grants: Arc<dyn GrantStore>,
    pub audit: Arc<dyn AuditSink>,
    pub clock: Arc<dyn Clock>,
}

impl Gate {
    /// Admits the bearer of `token` for `op`, or refuses (and logs the refusal once).
    pub async fn admit(
        &self,
        token: Option<&str>,
        op: Operation,
        surface: Surface,
        ctx: &RequestContext,
    ) -> Result<Caller, Failure> {
        let now = self.clock.now();
        let token = token.map(str::trim).filter(|t| !t.is_empty());
        let Some(token) = token else {
            return Err(self
                .security_refusal(ctx, op, SecurityReason::MissingToken)
                .await);
        };

        let (claims, expired) = match self.authority.verify(token, now) {
            Ok(claims) => (claims, false),
            Err(TokenRejection::Expired(claims)) => (*claims, true),
            Err(TokenRejection::Malformed) => {
                return Err(self
                    .security_refusal(ctx, op, SecurityReason::MalformedToken)
                    .await)
            }
            Err(TokenRejection::BadSignature) => {
                return Err(self
                    .security_refusal(ctx, op, SecurityReason::BadSignature)
                    .await)
            }
        };

        let access = self
            .grants
            .grant_access(&claims.tenant_id, &claims.grant_id)
            .await
            .map_err(Failure::internal)?;
        let Some(access) = access else {
            return Err(self
                .security_refusal(ctx, op, SecurityReason::UnknownGrant)
                .await);
        };

        let refusal = if expired {
            Some((Failure::unauthorized(), "token_expired"))
        } else if let Some(lapse) = access.grant.lapse(now) {
            Some((Failure::unauthorized(), lapse.as_str()))
        } else if claims.credential_generation != access.grant.credential_generation {
            Some((Failure::unauthorized(), "credential_rotated"))
        } else if access.tenant.status != TenantStatus::Active {
            Some((
                Failure::new(ErrorCode::TenantPending, "the tenant is not yet activated"),
                "tenant_pending",
            ))
        } else {
            None
        };
        if let Some((failure, detail)) = refusal {
            let record = AccessRecord::new(
                ctx,
                op,
                access.grant.tenant_id,
                access.grant.id,
                surface,
                failure.status(),
                Outcome::Refused,
            )
            .with_error(failure.code)
            .with_detail(detail);
            self.audit
                .record_access(&record)
                .await
                .map_err(Failure::internal)?;
            return Err(failure);
        }

        Ok(Caller {
            tenant_id: access.grant.tenant_id,
            grant_id: access.grant.id,
            scopes: claims.scopes.intersection(&access.grant.scopes),
            countries: claims.countries.intersection(&access.grant.countries),
            tenant: access.tenant,
            data_key: access.data_key,
            surface,
            context: ctx.clone(),
        })
    }

    /// Writes the one audit row of an admitted request. Validation failures (400) are not
    /// logged. The write is durable before this returns; if it fails, the request fails.
    pub async fn conclude<T>(
        &self,
        caller: &Caller,
        op: Operation,
        result: &Result<T, Failure>,
    ) -> Result<(), Failure> {
        self.conclude_with(
            caller,
            op,
            result.as_ref().map(|_| ()).map_err(|f| f.code),
            None,
        )
        .await
    }

    /// As [`Gate::conclude`], for callers that only have the outcome; `tool` names an MCP
    /// tool for `mcp.tool_call` rows.
    pub async fn conclude_with(
        &self,
        caller: &Caller,
        op: Operation,
        result: Result<(), ErrorCode>,
        tool: Option<&str>,
    ) -> Result<(), Failure> {
        self.conclude_with_status(caller, op, result, tool, op.success_status())
            .await
    }

    /// As [`Gate::conclude_with`], for a success answered with another status than the
    /// operation's usual one (an MCP notification is accepted with 202).
    pub async fn conclude_with_status(
        &self,
        caller: &Caller,
        op: Operation,
        result: Result<(), ErrorCode>,
        tool: Option<&str>,
        success_status: u16,
    ) -> Result<(), Failure> {
        let (status, outcome, code) = match result {
            Ok(()) => (success_status, Outcome::Allowed, None),
            Err(code) if code.status() == 400 && op != Operation::McpToolCall => return Ok(()),
            Err(code) => (code.status(), Outcome::of_error(code), Some(code)),
        };
        let mut record = AccessRecord::new(
            &caller.context,
            op,
            caller.tenant_id,
            caller.grant_id,
            caller.surface,
            status,
            outcome,
        );
        record.error_code = code;
        if let Some(tool) = tool {
            record = record.with_tool(tool);
        }
        self.audit
            .record_access(&record)
            .await
            .map_err(Failure::internal)
    }

    /// Admits, runs the use case, and concludes: the whole audited path of one request.
    pub async fn call<T, F, Fut>(
        &self,
        token: Option<&str>,
        op: Operation,
        surface: Surface,
        ctx: &RequestContext,
        use_case: F,
    ) -> Result<T, Failure>
    where
        F: FnOnce(Caller) -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        let caller = self.admit(token, op, surface, ctx).await?;
        self.run(&caller, op, use_case).await
    }

    /// Runs a use case for an already admitted caller and concludes it (MCP tools admit once
    /// and run the route invocations they are made of through this).
    pub async fn run<T, F, Fut>(
        &self,
        caller: &Caller,
        op: Operation,
        use_case: F,
    ) -> Result<T, Failure>
    where
        F: FnOnce(Caller) -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        let result = use_case(caller.clone()).await;
        self.conclude(caller, op, &result).await?;
        result
    }

    async fn security_refusal(
        &self,
        ctx: &RequestContext,
        op: Operation,
        reason: SecurityReason,
    ) -> Failure {
        let record = SecurityRecord::new(ctx, op, 401, reason);
        match self.audit.record_security(&record).await {
            Ok(()) => Failure::unauthorized(),
            Err(e) => Failure::internal(e),
        }
    }
}
