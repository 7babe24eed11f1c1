//! `Gate`: admission (token, grant record, tenant state) and the one audit row of a request.

use crate::access::audit::{AccessRecord, AuditTrail, Outcome, RequestContext, SecurityReason};
use crate::access::caller::Caller;
use crate::access::gate::Gate;
use crate::access::ports::{MockAuditSink, MockGrantStore, MockTokenAuthority};
use crate::access::tenant::TenantStatus;
use crate::access::token::{TokenClaims, TokenRejection};
use crate::error::StoreError;
use crate::error::{ErrorCode, Failure};
use crate::fixtures::{access, caller, claims, clock, ctx, grant, now, scopes, tenant};
use crate::operation::{Operation, Surface};
use chrono::Duration;
use std::sync::Arc;

const OP: Operation = Operation::GetSubject;

fn gate(authority: MockTokenAuthority, grants: MockGrantStore, audit: MockAuditSink) -> Gate {
    Gate {
        authority: Arc::new(authority),
        grants: Arc::new(grants),
        audit: Arc::new(audit),
        clock: clock(),
    }
}

/// An authority answering `verify` with `answer`, once, at the fixed clock's time.
fn authority(answer: Result<TokenClaims, TokenRejection>) -> MockTokenAuthority {
    let mut authority = MockTokenAuthority::new();
    authority
        .expect_verify()
        .withf(|token, at| token == "tok" && *at == now())
        .times(1)
        .return_once(move |_, _| answer);
    authority.expect_mint().never();
    authority
}

/// An audit sink expecting exactly one security record with `reason` and nothing else.
fn expect_security(reason: SecurityReason, ctx: &RequestContext) -> MockAuditSink {
    let mut audit = MockAuditSink::new();
    let request_id = ctx.request_id;
    audit
        .expect_record_security()
        .withf(move |r| {
            r.reason == reason
                && r.status == 401
                && r.request_id == request_id
                && r.occurred_at == now()
                && r.route == "/v1/subjects/{id}"
                && r.method == "GET"
                && r.peer.as_deref() == Some("192.0.2.7")
                && r.client_id.is_none()
        })
        .times(1)
        .returning(|_| Ok(()));
    audit.expect_record_access().never();
    audit
}

fn no_grant_lookup() -> MockGrantStore {
    let mut grants = MockGrantStore::new();
    grants.expect_grant_access().never();
    grants
}

async fn admit(gate: &Gate, token: Option<&str>, ctx: &RequestContext) -> Result<Caller, Failure> {
    gate.admit(token, OP, Surface::Rest, ctx).await
}

fn assert_unauthorized(result: Result<Caller, Failure>) {
    let failure = result.expect_err("refused");
    assert_eq!(failure.code, ErrorCode::Unauthorized);
    assert_eq!(failure.status(), 401);
}

// --- admission: unattributable refusals go to the security log ---

#[tokio::test]
async fn a_missing_token_is_401_and_logged_as_missing_token() {
    let ctx = ctx();
    let mut authority = MockTokenAuthority::new();
    authority.expect_verify().never();
    let gate = gate(
        authority,
        no_grant_lookup(),
        expect_security(SecurityReason::MissingToken, &ctx),
    );
    assert_unauthorized(admit(&gate, None, &ctx).await);
}

#[tokio::test]
async fn an_empty_or_blank_token_counts_as_missing() {
    for blank in ["", "   ", "\t"] {
        let ctx = ctx();
        let mut authority = MockTokenAuthority::new();
        authority.expect_verify().never();
        let gate = gate(
            authority,
            no_grant_lookup(),
            expect_security(SecurityReason::MissingToken, &ctx),
        );
        assert_unauthorized(admit(&gate, Some(blank), &ctx).await);
    }
}

#[tokio::test]
async fn a_malformed_token_is_401_and_logged_as_malformed() {
    let ctx = ctx();
    let gate = gate(
        authority(Err(TokenRejection::Malformed)),
        no_grant_lookup(),
        expect_security(SecurityReason::MalformedToken, &ctx),
    );
    assert_unauthorized(admit(&gate, Some("tok"), &ctx).await);
}

#[tokio::test]
async fn a_token_with_a_bad_signature_is_401_and_logged_as_bad_signature() {
    let ctx = ctx();
    let gate = gate(
        authority(Err(TokenRejection::BadSignature)),
        no_grant_lookup(),
        expect_security(SecurityReason::BadSignature, &ctx),
    );
    assert_unauthorized(admit(&gate, Some("tok"), &ctx).await);
}

#[tokio::test]
async fn the_token_is_trimmed_before_it_is_verified() {
    let ctx = ctx();
    let gate = gate(
        authority(Err(TokenRejection::Malformed)),
        no_grant_lookup(),
        expect_security(SecurityReason::MalformedToken, &ctx),
    );
    assert_unauthorized(admit(&gate, Some("  tok \n"), &ctx).await);
}

#[tokio::test]
async fn a_token_naming_an_unknown_grant_is_logged_as_unknown_grant() {
    let ctx = ctx();
    let t = tenant("SE");
    let g = grant(&t, "kyb:read", "SE");
    let token_claims = claims(&g);
    let mut grants = MockGrantStore::new();
    let (tenant_id, grant_id) = (t.id, g.id);
    grants
        .expect_grant_access()
        .withf(move |tenant, grant| *tenant == tenant_id && *grant == grant_id)
        .times(1)
        .returning(|_, _| Ok(None));
    let gate = gate(
        authority(Ok(token_claims)),
        grants,
        expect_security(SecurityReason::UnknownGrant, &ctx),
    );
    assert_unauthorized(admit(&gate, Some("tok"), &ctx).await);
}

#[tokio::test]
async fn an_expired_token_naming_an_unknown_grant_is_unattributable() {
    let ctx = ctx();
    let t = tenant("SE");
    let g = grant(&t, "kyb:read", "SE");
    let mut grants = MockGrantStore::new();
    grants
        .expect_grant_access()
        .times(1)
        .returning(|_, _| Ok(None));
    let gate = gate(
        authority(Err(TokenRejection::Expired(Box::new(claims(&g))))),
        grants,
        expect_security(SecurityReason::UnknownGrant, &ctx),
    );
    assert_unauthorized(admit(&gate, Some("tok"), &ctx).await);
}

// --- admission: attributable refusals go to the grant's access record ---

/// Admits a token for `g` of `t` (as `verify` answers) and expects exactly one refused access
/// record with `status`, `code` and `detail`.
async fn refused_with(
    verified: Result<TokenClaims, TokenRejection>,
    access: crate::access::ports::GrantAccess,
    status: u16,
    code: ErrorCode,
    detail: &'static str,
) -> Failure {
    let ctx = ctx();
    let (tenant_id, grant_id, request_id) =
        (access.grant.tenant_id, access.grant.id, ctx.request_id);
    let mut grants = MockGrantStore::new();
    grants
        .expect_grant_access()
        .withf(move |tenant, grant| *tenant == tenant_id && *grant == grant_id)
        .times(1)
        .return_once(move |_, _| Ok(Some(access)));
    let mut audit = MockAuditSink::new();
    audit.expect_record_security().never();
    audit
        .expect_record_access()
        .withf(move |rows: &[AccessRecord]| {
            let [r] = rows else { return false };
            r.tenant_id == tenant_id
                && r.grant_id == grant_id
                && r.request_id == request_id
                && r.occurred_at == now()
                && r.surface == Surface::Rest
                && r.route == "/v1/subjects/{id}"
                && r.action == "GET /v1/subjects/{id}"
                && r.status == status
                && r.outcome == Outcome::Refused
                && r.error_code == Some(code)
                && r.detail == Some(detail)
        })
        .times(1)
        .returning(|_| Ok(()));
    let gate = gate(authority(verified), grants, audit);
    let failure = admit(&gate, Some("tok"), &ctx).await.expect_err("refused");
    assert_eq!(failure.code, code);
    assert_eq!(failure.status(), status);
    failure
}

#[tokio::test]
async fn expired_token_is_refused_and_attributed_to_its_grant() {
    let t = tenant("SE");
    let g = grant(&t, "kyb:read", "SE");
    let mut expired = claims(&g);
    expired.expires_at = now() - Duration::seconds(1);
    refused_with(
        Err(TokenRejection::Expired(Box::new(expired))),
        access(&g, &t),
        401,
        ErrorCode::Unauthorized,
        "token_expired",
    )
    .await;
}

#[tokio::test]
async fn a_revoked_grant_refuses_its_tokens_as_grant_revoked() {
    let t = tenant("SE");
    let mut g = grant(&t, "kyb:read", "SE");
    let token_claims = claims(&g);
    g.revoked_at = Some(now() - Duration::minutes(1));
    refused_with(
        Ok(token_claims),
        access(&g, &t),
        401,
        ErrorCode::Unauthorized,
        "grant_revoked",
    )
    .await;
}

#[tokio::test]
async fn an_expired_grant_refuses_its_tokens_as_grant_expired() {
    let t = tenant("SE");
    let mut g = grant(&t, "kyb:read", "SE");
    let token_claims = claims(&g);
    g.expires_at = Some(now() - Duration::seconds(1));
    refused_with(
        Ok(token_claims),
        access(&g, &t),
        401,
        ErrorCode::Unauthorized,
        "grant_expired",
    )
    .await;
}

#[tokio::test]
async fn a_grant_expiring_this_instant_has_expired() {
    let t = tenant("SE");
    let mut g = grant(&t, "kyb:read", "SE");
    let token_claims = claims(&g);
    g.expires_at = Some(now());
    refused_with(
        Ok(token_claims),
        access(&g, &t),
        401,
        ErrorCode::Unauthorized,
        "grant_expired",
    )
    .await;
}

#[tokio::test]
async fn a_token_of_an_older_credential_generation_is_refused_as_rotated() {
    let t = tenant("SE");
    let mut g = grant(&t, "kyb:read", "SE");
    let token_claims = claims(&g);
    g.credential_generation = 2;
    refused_with(
        Ok(token_claims),
        access(&g, &t),
        401,
        ErrorCode::Unauthorized,
        "credential_rotated",
    )
    .await;
}

#[tokio::test]
async fn a_pending_tenant_is_403_tenant_pending() {
    let mut t = tenant("SE");
    t.status = TenantStatus::Pending;
    let g = grant(&t, "kyb:read", "SE");
    refused_with(
        Ok(claims(&g)),
        access(&g, &t),
        403,
        ErrorCode::TenantPending,
        "tenant_pending",
    )
    .await;
}

#[tokio::test]
async fn a_revoked_grant_is_reported_before_a_pending_tenant() {
    let mut t = tenant("SE");
    t.status = TenantStatus::Pending;
    let mut g = grant(&t, "kyb:read", "SE");
    let token_claims = claims(&g);
    g.revoked_at = Some(now() - Duration::minutes(1));
    refused_with(
        Ok(token_claims),
        access(&g, &t),
        401,
        ErrorCode::Unauthorized,
        "grant_revoked",
    )
    .await;
}

// --- admission: success ---

#[tokio::test]
async fn an_admitted_caller_holds_the_token_scopes_and_countries_the_grant_still_has() {
    let ctx = ctx();
    let t = tenant("SE,LT");
    let mut g = grant(&t, "kyb:read events:read monitoring:read", "SE");
    let mut token_claims = claims(&g);
    token_claims.scopes = scopes("kyb:read kyc:read monitoring:read");
    token_claims.countries = crate::fixtures::countries("SE,LT");
    // The grant was widened after minting: events:read does not reach the old token.
    g.scopes = scopes("kyb:read events:read monitoring:read");
    let grant_access = access(&g, &t);
    let mut grants = MockGrantStore::new();
    grants
        .expect_grant_access()
        .times(1)
        .return_once(move |_, _| Ok(Some(grant_access)));
    let mut audit = MockAuditSink::new();
    audit.expect_record_access().never();
    audit.expect_record_security().never();
    let gate = gate(authority(Ok(token_claims)), grants, audit);

    let admitted = gate
        .admit(Some("tok"), OP, Surface::Mcp, &ctx)
        .await
        .expect("admitted");
    assert_eq!(admitted.scopes, scopes("kyb:read monitoring:read"));
    assert_eq!(admitted.countries, crate::fixtures::countries("SE"));
    assert_eq!(admitted.tenant_id, t.id);
    assert_eq!(admitted.grant_id, g.id);
    assert_eq!(admitted.tenant, t);
    assert_eq!(admitted.data_key, crate::fixtures::data_key());
    assert_eq!(admitted.surface, Surface::Mcp);
    assert_eq!(admitted.context.request_id, ctx.request_id);
}

// --- admission: failures of the ports ---

#[tokio::test]
async fn a_grant_store_failure_is_an_internal_error() {
    let ctx = ctx();
    let t = tenant("SE");
    let g = grant(&t, "kyb:read", "SE");
    let mut grants = MockGrantStore::new();
    grants
        .expect_grant_access()
        .returning(|_, _| Err(StoreError::Backend("down".into())));
    let mut audit = MockAuditSink::new();
    audit.expect_record_access().never();
    audit.expect_record_security().never();
    let gate = gate(authority(Ok(claims(&g))), grants, audit);
    let failure = admit(&gate, Some("tok"), &ctx).await.unwrap_err();
    assert_eq!(failure.code, ErrorCode::InternalError);
    assert_eq!(failure.message, "internal error");
}

#[tokio::test]
async fn a_failed_security_log_write_turns_the_refusal_into_an_internal_error() {
    let ctx = ctx();
    let mut authority = MockTokenAuthority::new();
    authority.expect_verify().never();
    let mut audit = MockAuditSink::new();
    audit
        .expect_record_security()
        .times(1)
        .returning(|_| Err(StoreError::Backend("disk full".into())));
    let gate = gate(authority, no_grant_lookup(), audit);
    let failure = admit(&gate, None, &ctx).await.unwrap_err();
    assert_eq!(failure.code, ErrorCode::InternalError);
}

#[tokio::test]
async fn a_failed_access_record_write_turns_the_refusal_into_an_internal_error() {
    let ctx = ctx();
    let mut t = tenant("SE");
    t.status = TenantStatus::Pending;
    let g = grant(&t, "kyb:read", "SE");
    let grant_access = access(&g, &t);
    let mut grants = MockGrantStore::new();
    grants
        .expect_grant_access()
        .return_once(move |_, _| Ok(Some(grant_access)));
    let mut audit = MockAuditSink::new();
    audit
        .expect_record_access()
        .times(1)
        .returning(|_| Err(StoreError::Backend("disk full".into())));
    let gate = gate(authority(Ok(claims(&g))), grants, audit);
    let failure = admit(&gate, Some("tok"), &ctx).await.unwrap_err();
    assert_eq!(failure.code, ErrorCode::InternalError);
}

// --- run and commit: one audit row per admitted request, written before it answers ---

/// Runs `result` as the use case of an admitted request and commits its trail, as
/// `Gate::call` does after admission.
async fn conclude<T: Clone>(
    gate: &Gate,
    c: &Caller,
    result: &Result<T, Failure>,
) -> Result<(), Failure> {
    let trail = AuditTrail::new();
    let answer = result.clone();
    let _ = gate.run(&trail, c, OP, |_| async move { answer }).await;
    gate.commit(&trail).await
}

/// A gate whose only expected port call is the audit sink given.
fn concluding_gate(audit: MockAuditSink) -> Gate {
    let mut authority = MockTokenAuthority::new();
    authority.expect_verify().never();
    gate(authority, no_grant_lookup(), audit)
}

fn expect_one_access(
    c: &Caller,
    status: u16,
    outcome: Outcome,
    code: Option<ErrorCode>,
) -> MockAuditSink {
    let (tenant_id, grant_id, request_id, received_at) = (
        c.tenant_id,
        c.grant_id,
        c.context.request_id,
        c.context.received_at,
    );
    let mut audit = MockAuditSink::new();
    audit.expect_record_security().never();
    audit
        .expect_record_access()
        .withf(move |rows: &[AccessRecord]| {
            let [r] = rows else { return false };
            r.tenant_id == tenant_id
                && r.grant_id == grant_id
                && r.request_id == request_id
                && r.occurred_at == received_at
                && r.surface == Surface::Rest
                && r.route == "/v1/subjects/{id}"
                && r.method == "GET"
                && r.tool.is_none()
                && r.detail.is_none()
                && r.status == status
                && r.outcome == outcome
                && r.error_code == code
        })
        .times(1)
        .returning(|_| Ok(()));
    audit
}

#[tokio::test]
async fn a_successful_request_is_recorded_as_allowed() {
    let c = caller("SE", "kyb:read", "SE");
    let gate = concluding_gate(expect_one_access(&c, 200, Outcome::Allowed, None));
    let result: Result<u8, Failure> = Ok(1);
    assert_eq!(conclude(&gate, &c, &result).await, Ok(()));
}

#[tokio::test]
async fn a_validation_failure_is_not_recorded() {
    let c = caller("SE", "kyb:read", "SE");
    let mut audit = MockAuditSink::new();
    audit.expect_record_access().never();
    audit.expect_record_security().never();
    let gate = concluding_gate(audit);
    for failure in [
        Failure::bad_request("type", "unknown"),
        Failure::invalid_identifier("bad check digit"),
    ] {
        let result: Result<(), Failure> = Err(failure);
        assert_eq!(conclude(&gate, &c, &result).await, Ok(()));
    }
}

#[tokio::test]
async fn a_403_is_recorded_as_refused() {
    let c = caller("SE", "kyb:read", "SE");
    let gate = concluding_gate(expect_one_access(
        &c,
        403,
        Outcome::Refused,
        Some(ErrorCode::CountryNotGranted),
    ));
    let result: Result<(), Failure> = Err(Failure::new(ErrorCode::CountryNotGranted, "no"));
    assert_eq!(conclude(&gate, &c, &result).await, Ok(()));
}

#[tokio::test]
async fn a_404_is_recorded_as_failed() {
    let c = caller("SE", "kyb:read", "SE");
    let gate = concluding_gate(expect_one_access(
        &c,
        404,
        Outcome::Failed,
        Some(ErrorCode::NotFound),
    ));
    let result: Result<(), Failure> = Err(Failure::not_found("subject"));
    assert_eq!(conclude(&gate, &c, &result).await, Ok(()));
}

#[tokio::test]
async fn a_conflict_is_recorded_as_failed() {
    let c = caller("SE", "kyb:read", "SE");
    let gate = concluding_gate(expect_one_access(
        &c,
        409,
        Outcome::Failed,
        Some(ErrorCode::RefConflict),
    ));
    let result: Result<(), Failure> = Err(Failure::new(ErrorCode::RefConflict, "taken"));
    assert_eq!(conclude(&gate, &c, &result).await, Ok(()));
}

#[tokio::test]
async fn a_failed_audit_write_turns_the_answer_into_an_internal_error() {
    let c = caller("SE", "kyb:read", "SE");
    let mut audit = MockAuditSink::new();
    audit
        .expect_record_access()
        .times(1)
        .returning(|_| Err(StoreError::Backend("disk full".into())));
    let concluding = concluding_gate(audit);
    let result: Result<u8, Failure> = Ok(1);
    let failure = conclude(&concluding, &c, &result).await.unwrap_err();
    assert_eq!(failure.code, ErrorCode::InternalError);
    assert_eq!(failure.status(), 500);

    // Through `call`, the use case's data is withheld when its audit row is not durable.
    let ctx = ctx();
    let t = tenant("SE");
    let g = grant(&t, "kyb:read", "SE");
    let token_claims = claims(&g);
    let grant_access = access(&g, &t);
    let mut grants = MockGrantStore::new();
    grants
        .expect_grant_access()
        .return_once(move |_, _| Ok(Some(grant_access)));
    let mut audit = MockAuditSink::new();
    audit
        .expect_record_access()
        .times(1)
        .returning(|_| Err(StoreError::Backend("disk full".into())));
    let gate = gate(authority(Ok(token_claims)), grants, audit);
    let answered = gate
        .call(Some("tok"), OP, Surface::Rest, &ctx, |_| async {
            Ok::<_, Failure>(42)
        })
        .await;
    assert_eq!(answered.unwrap_err().code, ErrorCode::InternalError);
}

#[tokio::test]
async fn an_mcp_tool_call_is_recorded_even_when_it_fails_validation() {
    let mut c = caller("SE", "kyb:read", "SE");
    c.surface = Surface::Mcp;
    let mut audit = MockAuditSink::new();
    audit
        .expect_record_access()
        .withf(|rows: &[AccessRecord]| {
            let [r] = rows else { return false };
            r.action == "mcp.tool_call"
                && r.tool.as_deref() == Some("resolve_subject")
                && r.surface == Surface::Mcp
                && r.status == 400
                && r.outcome == Outcome::Failed
                && r.error_code == Some(ErrorCode::BadRequest)
        })
        .times(1)
        .returning(|_| Ok(()));
    let gate = concluding_gate(audit);
    let trail = AuditTrail::new();
    gate.note(
        &trail,
        &c,
        Operation::McpToolCall,
        Err(ErrorCode::BadRequest),
        Some("resolve_subject"),
    );
    assert_eq!(gate.commit(&trail).await, Ok(()));
}

#[tokio::test]
async fn a_tool_call_writes_its_row_and_its_route_rows_in_one_write() {
    let mut c = caller("SE", "kyb:read", "SE");
    c.surface = Surface::Mcp;
    let mut audit = MockAuditSink::new();
    audit
        .expect_record_access()
        .withf(|rows: &[AccessRecord]| {
            let [route, tool] = rows else { return false };
            route.action == "GET /v1/subjects/{id}"
                && route.surface == Surface::Mcp
                && route.status == 404
                && route.tool.is_none()
                && tool.action == "mcp.tool_call"
                && tool.tool.as_deref() == Some("get_subject")
                && tool.status == 404
                && tool.request_id == route.request_id
        })
        .times(1)
        .returning(|_| Ok(()));
    let gate = concluding_gate(audit);
    let trail = AuditTrail::new();
    let answered = gate
        .run(&trail, &c, OP, |_| async {
            Err::<(), _>(Failure::not_found("subject"))
        })
        .await;
    let code = answered.unwrap_err().code;
    gate.note(
        &trail,
        &c,
        Operation::McpToolCall,
        Err(code),
        Some("get_subject"),
    );
    assert_eq!(gate.commit(&trail).await, Ok(()));
}

#[tokio::test]
async fn an_empty_trail_writes_nothing() {
    let mut audit = MockAuditSink::new();
    audit.expect_record_access().never();
    let gate = concluding_gate(audit);
    assert_eq!(gate.commit(&AuditTrail::new()).await, Ok(()));
}

#[tokio::test]
async fn a_refused_admission_never_runs_the_use_case() {
    let ctx = ctx();
    let mut authority = MockTokenAuthority::new();
    authority.expect_verify().never();
    let gate = gate(
        authority,
        no_grant_lookup(),
        expect_security(SecurityReason::MissingToken, &ctx),
    );
    let ran = std::sync::atomic::AtomicBool::new(false);
    let answered = gate
        .call(None, OP, Surface::Rest, &ctx, |_| async {
            ran.store(true, std::sync::atomic::Ordering::SeqCst);
            Ok::<_, Failure>(())
        })
        .await;
    assert_eq!(answered.unwrap_err().code, ErrorCode::Unauthorized);
    assert!(!ran.load(std::sync::atomic::Ordering::SeqCst));
}
