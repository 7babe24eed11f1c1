//! The guard and the audited call: the one path every consumer request takes.
//!
//! 1. [`Gate::admit`] verifies the bearer token, loads the grant record (which governs), and
//!    builds a [`Caller`] whose scopes and countries are the token's intersected with the
//!    grant's current ones. Refusals here are logged once, by this guard.
//! 2. The use case runs with the `Caller` and does all authorization (scope, country).
//! 3. The outcome is noted in the request's [`AuditTrail`] as [`AuditPolicy`] says, and
//!    [`Gate::commit`] writes the trail's rows together, durably, before the surface answers.
//!
//! REST goes through [`Gate::call`]; MCP admits once, runs each route invocation of a tool
//! through [`Gate::run`], notes its own `mcp.tool_call` row and commits, so neither surface
//! can skip a rule.

use crate::access::audit::{Attribution, AuditPolicy, AuditTrail, RequestContext, SecurityReason};
use crate::access::caller::Caller;
use crate::access::ports::{AuditSink, GrantStore, TokenAuthority};
use crate::access::tenant::TenantStatus;
use crate::access::token::TokenRejection;
use crate::clock::Clock;
use crate::error::{ErrorCode, Failure};
use crate::operation::{Operation, Surface};
use std::future::Future;
use std::sync::Arc;

/// The guard plus the audit trail.
pub struct Gate {
    pub authority: Arc<dyn TokenAuthority>,
    pub grants: Arc<dyn GrantStore>,
    pub audit: Arc<dyn AuditSink>,
    pub clock: Arc<dyn Clock>,
}

impl Gate {
    /// Admits the bearer of `token` for `op`, or refuses (and records the refusal once).
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

        // The one read of the guard: grant, tenant and credential generation together.
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
        } else if !claims.audience.is_empty()
            && !ctx
                .resource
                .as_ref()
                .is_some_and(|r| claims.audience.contains(r))
        {
            // Minted for another resource (RFC 8707): not accepted here.
            Some((Failure::unauthorized(), "token_audience"))
        } else if access.tenant.status != TenantStatus::Active {
            Some((
                Failure::new(ErrorCode::TenantPending, "the tenant is not yet activated"),
                "tenant_pending",
            ))
        } else {
            None
        };
        if let Some((failure, detail)) = refusal {
            let who = Attribution {
                tenant_id: access.grant.tenant_id,
                grant_id: access.grant.id,
                surface,
                on_behalf: None,
            };
            let row = AuditPolicy::refused(ctx, op, who, failure.code, detail);
            self.audit
                .record_access(std::slice::from_ref(&row))
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
            connection: !claims.audience.is_empty(),
            on_behalf: None,
        })
    }

    /// Notes the audit row (if the policy records one) of an admitted request, or of one
    /// route invocation of it, that ended with `outcome`: the status it answered or the code
    /// it failed with. `tool` names the MCP tool of an `mcp.tool_call` row.
    pub fn note(
        &self,
        trail: &AuditTrail,
        caller: &Caller,
        op: Operation,
        outcome: Result<u16, ErrorCode>,
        tool: Option<&str>,
    ) {
        trail.push(AuditPolicy::concluded(
            &caller.context,
            op,
            caller.attribution(),
            outcome,
            tool,
        ));
    }

    /// Writes the rows the request noted, together and durably, before it answers. If the
    /// write fails, the request fails.
    pub async fn commit(&self, trail: &AuditTrail) -> Result<(), Failure> {
        let rows = trail.take();
        if rows.is_empty() {
            return Ok(());
        }
        self.audit
            .record_access(&rows)
            .await
            .map_err(Failure::internal)
    }

    /// Admits, runs the use case, and records: the whole audited path of one request.
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
        let trail = AuditTrail::new();
        let result = self.run(&trail, &caller, op, use_case).await;
        self.commit(&trail).await?;
        result
    }

    /// Runs a use case for an already admitted caller and notes its row in `trail` (MCP tools
    /// admit once and run the route invocations they are made of through this).
    pub async fn run<T, F, Fut>(
        &self,
        trail: &AuditTrail,
        caller: &Caller,
        op: Operation,
        use_case: F,
    ) -> Result<T, Failure>
    where
        F: FnOnce(Caller) -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        let result = use_case(caller.clone()).await;
        let outcome = match &result {
            Ok(_) => Ok(op.success_status()),
            Err(failure) => Err(failure.code),
        };
        self.note(trail, caller, op, outcome, None);
        result
    }

    async fn security_refusal(
        &self,
        ctx: &RequestContext,
        op: Operation,
        reason: SecurityReason,
    ) -> Failure {
        let record = AuditPolicy::unattributable(ctx, op, reason);
        match self.audit.record_security(&record).await {
            Ok(()) => Failure::unauthorized(),
            Err(e) => Failure::internal(e),
        }
    }
}

/// Storage outages at the gate: whatever the guard or the audit commit cannot reach answers
/// 503 `upstream_unavailable` (never 500), and an admitted request's 503 is recorded as such.
#[cfg(test)]
mod storage_outage {
    use super::*;
    use crate::access::audit::AccessRecord;
    use crate::access::ports::{MockAuditSink, MockGrantStore, MockTokenAuthority};
    use crate::error::StoreError;
    use crate::fixtures::{access, claims, clock, ctx, grant, tenant};

    const OP: Operation = Operation::GetSubject;

    fn down() -> StoreError {
        StoreError::Unavailable("connecting: connection refused".into())
    }

    fn gate(grants: MockGrantStore, audit: MockAuditSink, verifies: bool) -> Gate {
        let t = tenant("SE");
        let g = grant(&t, "kyb:read", "SE");
        let token_claims = claims(&g);
        let mut authority = MockTokenAuthority::new();
        if verifies {
            authority
                .expect_verify()
                .return_once(move |_, _| Ok(token_claims));
        } else {
            authority.expect_verify().never();
        }
        Gate {
            authority: Arc::new(authority),
            grants: Arc::new(grants),
            audit: Arc::new(audit),
            clock: clock(),
        }
    }

    fn reachable_grant() -> MockGrantStore {
        let t = tenant("SE");
        let g = grant(&t, "kyb:read", "SE");
        let grant_access = access(&g, &t);
        let mut grants = MockGrantStore::new();
        grants
            .expect_grant_access()
            .return_once(move |_, _| Ok(Some(grant_access)));
        grants
    }

    fn assert_storage_unavailable(failure: &Failure) {
        assert_eq!(failure.code, ErrorCode::UpstreamUnavailable);
        assert_eq!(failure.status(), 503);
        assert!(!failure.message.contains("refused"), "{}", failure.message);
        assert!(failure.retry_after().is_some());
    }

    #[tokio::test]
    async fn an_unreachable_guard_read_is_503() {
        let mut grants = MockGrantStore::new();
        grants.expect_grant_access().returning(|_, _| Err(down()));
        let mut audit = MockAuditSink::new();
        audit.expect_record_access().never();
        audit.expect_record_security().never();
        let gate = gate(grants, audit, true);
        let failure = gate
            .admit(Some("tok"), OP, Surface::Rest, &ctx())
            .await
            .unwrap_err();
        assert_storage_unavailable(&failure);
    }

    #[tokio::test]
    async fn an_unreachable_security_log_is_503() {
        let mut grants = MockGrantStore::new();
        grants.expect_grant_access().never();
        let mut audit = MockAuditSink::new();
        audit
            .expect_record_security()
            .times(1)
            .returning(|_| Err(down()));
        let gate = gate(grants, audit, false);
        let failure = gate
            .admit(None, OP, Surface::Rest, &ctx())
            .await
            .unwrap_err();
        assert_storage_unavailable(&failure);
    }

    #[tokio::test]
    async fn an_audit_commit_that_cannot_reach_the_storage_withholds_the_answer_with_503() {
        let mut audit = MockAuditSink::new();
        audit
            .expect_record_access()
            .times(1)
            .returning(|_| Err(down()));
        let gate = gate(reachable_grant(), audit, true);
        let answered = gate
            .call(Some("tok"), OP, Surface::Rest, &ctx(), |_| async {
                Ok::<_, Failure>(42)
            })
            .await;
        assert_storage_unavailable(&answered.unwrap_err());
    }

    #[tokio::test]
    async fn a_use_case_that_cannot_reach_the_storage_is_recorded_as_503() {
        let mut audit = MockAuditSink::new();
        audit
            .expect_record_access()
            .withf(|rows: &[AccessRecord]| {
                let [r] = rows else { return false };
                r.status == 503 && r.error_code == Some(ErrorCode::UpstreamUnavailable)
            })
            .times(1)
            .returning(|_| Ok(()));
        let gate = gate(reachable_grant(), audit, true);
        let answered = gate
            .call(Some("tok"), OP, Surface::Rest, &ctx(), |_| async {
                Err::<u8, _>(Failure::internal(down()))
            })
            .await;
        assert_storage_unavailable(&answered.unwrap_err());
    }
}
