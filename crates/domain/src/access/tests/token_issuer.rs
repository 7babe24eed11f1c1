//! `TokenIssuer::issue`: client authentication at constant work, one log record per outcome,
//! scope narrowing and the lifetime cap.

use crate::access::audit::AccessRecord;
use crate::access::audit::{Outcome, SecurityReason};
use crate::access::grant::{Grant, SecretHash};
use crate::access::ports::{
    GrantAccess, MockAuditSink, MockCredentialHasher, MockGrantStore, MockTokenAuthority,
};
use crate::access::scope::{Scope, ScopeSet};
use crate::access::token::{IssuedToken, ScopeRequest, TokenRequest};
use crate::access::token_issuer::TokenIssuer;
use crate::error::StoreError;
use crate::error::{ErrorCode, Failure};
use crate::fixtures::{access, clock, ctx, grant, now, scopes, tenant};
use crate::ids::ClientId;
use crate::operation::Surface;
use chrono::Duration;
use std::sync::Arc;

const SECRET: &str = "cs_presented";

fn stored_hash() -> SecretHash {
    SecretHash("$argon2id$stored".into())
}

fn issuer(
    grants: MockGrantStore,
    hasher: MockCredentialHasher,
    authority: MockTokenAuthority,
    audit: MockAuditSink,
) -> TokenIssuer {
    TokenIssuer {
        grants: Arc::new(grants),
        hasher: Arc::new(hasher),
        authority: Arc::new(authority),
        audit: Arc::new(audit),
        clock: clock(),
        lifetime: Duration::minutes(15),
    }
}

fn request(client_id: &str, scope: Option<&str>) -> TokenRequest {
    TokenRequest {
        client_id: client_id.to_owned(),
        client_secret: crate::access::grant::ClientSecret::new(SECRET.to_owned()),
        scope: ScopeRequest::from_wire(scope, false),
    }
}

/// A grant store that knows `access` under its client id (and nothing else).
fn knows(access: GrantAccess) -> MockGrantStore {
    let client_id = access.grant.client_id.clone();
    let mut grants = MockGrantStore::new();
    grants
        .expect_credentials()
        .withf(move |asked| *asked == client_id)
        .times(1)
        .return_once(move |_| Ok(Some((access, stored_hash()))));
    grants
}

/// A hasher expecting one verification of the presented secret against the stored hash.
fn verifies(answer: bool) -> MockCredentialHasher {
    let mut hasher = MockCredentialHasher::new();
    hasher
        .expect_verify_secret()
        .withf(|presented, stored| presented == SECRET && *stored == Some(&stored_hash()))
        .times(1)
        .return_const(answer);
    hasher
}

fn mints_nothing() -> MockTokenAuthority {
    let mut authority = MockTokenAuthority::new();
    authority.expect_mint().never();
    authority
}

/// An audit sink expecting one refused access record of `g` with `detail`.
fn expect_refusal(g: &Grant, detail: &'static str) -> MockAuditSink {
    let (tenant_id, grant_id) = (g.tenant_id, g.id);
    let mut audit = MockAuditSink::new();
    audit.expect_record_security().never();
    audit
        .expect_record_access()
        .withf(move |rows: &[AccessRecord]| {
            let [r] = rows else { return false };
            r.tenant_id == tenant_id
                && r.grant_id == grant_id
                && r.route == "/oauth/token"
                && r.method == "POST"
                && r.surface == Surface::Rest
                && r.status == 401
                && r.outcome == Outcome::Refused
                && r.error_code == Some(ErrorCode::InvalidClient)
                && r.detail == Some(detail)
        })
        .times(1)
        .returning(|_| Ok(()));
    audit
}

/// Issues for the live grant `g`, requesting `scope`, and returns the token and the claims minted.
async fn issue_for(
    g: Grant,
    scope: Option<&str>,
) -> (IssuedToken, crate::access::token::TokenClaims) {
    let mut t = tenant("SE,LT");
    t.id = g.tenant_id;
    let client_id = g.client_id.to_string();
    let (tenant_id, grant_id) = (g.tenant_id, g.id);
    let minted = Arc::new(std::sync::Mutex::new(None));
    let mut authority = MockTokenAuthority::new();
    let seen = minted.clone();
    authority.expect_mint().times(1).returning(move |claims| {
        *seen.lock().unwrap() = Some(claims.clone());
        Ok("signed-token".into())
    });
    let mut audit = MockAuditSink::new();
    audit.expect_record_security().never();
    audit
        .expect_record_access()
        .withf(move |rows: &[AccessRecord]| {
            let [r] = rows else { return false };
            r.tenant_id == tenant_id
                && r.grant_id == grant_id
                && r.route == "/oauth/token"
                && r.status == 200
                && r.outcome == Outcome::Allowed
                && r.error_code.is_none()
        })
        .times(1)
        .returning(|_| Ok(()));
    let issuer = issuer(knows(access(&g, &t)), verifies(true), authority, audit);
    let issued = issuer
        .issue(request(&client_id, scope), &ctx())
        .await
        .expect("a token");
    assert_eq!(issued.access_token, "signed-token");
    let claims = minted.lock().unwrap().take().expect("minted claims");
    (issued, claims)
}

#[tokio::test]
async fn an_unknown_client_still_verifies_a_secret_and_goes_to_the_security_log() {
    let client_id = ClientId::generate();
    let mut grants = MockGrantStore::new();
    let asked = client_id.clone();
    grants
        .expect_credentials()
        .withf(move |c| *c == asked)
        .times(1)
        .returning(|_| Ok(None));
    let mut hasher = MockCredentialHasher::new();
    // Constant work: the dummy verification runs although there is nothing to compare with.
    hasher
        .expect_verify_secret()
        .withf(|presented, stored| presented == SECRET && stored.is_none())
        .times(1)
        .return_const(false);
    let mut audit = MockAuditSink::new();
    audit.expect_record_access().never();
    let kept = client_id.to_string();
    audit
        .expect_record_security()
        .withf(move |r| {
            r.reason == SecurityReason::UnknownClient
                && r.status == 401
                && r.route == "/oauth/token"
                && r.client_id.as_deref() == Some(kept.as_str())
        })
        .times(1)
        .returning(|_| Ok(()));
    let issuer = issuer(grants, hasher, mints_nothing(), audit);
    let failure = issuer
        .issue(request(client_id.as_str(), None), &ctx())
        .await
        .unwrap_err();
    assert_eq!(failure.code, ErrorCode::InvalidClient);
    assert_eq!(failure.status(), 401);
}

#[tokio::test]
async fn an_unknown_client_id_of_a_foreign_shape_is_not_kept_in_the_security_log() {
    let mut grants = MockGrantStore::new();
    grants.expect_credentials().times(1).returning(|_| Ok(None));
    let mut hasher = MockCredentialHasher::new();
    hasher
        .expect_verify_secret()
        .withf(|_, stored| stored.is_none())
        .times(1)
        .return_const(false);
    let mut audit = MockAuditSink::new();
    audit
        .expect_record_security()
        .withf(|r| r.reason == SecurityReason::UnknownClient && r.client_id.is_none())
        .times(1)
        .returning(|_| Ok(()));
    let issuer = issuer(grants, hasher, mints_nothing(), audit);
    let failure = issuer
        .issue(request("alice@example.com", None), &ctx())
        .await
        .unwrap_err();
    assert_eq!(failure.code, ErrorCode::InvalidClient);
}

#[tokio::test]
async fn a_wrong_secret_is_invalid_client_and_recorded_against_the_grant() {
    let t = tenant("SE");
    let g = grant(&t, "kyb:read", "SE");
    let issuer = issuer(
        knows(access(&g, &t)),
        verifies(false),
        mints_nothing(),
        expect_refusal(&g, "wrong_secret"),
    );
    let failure = issuer
        .issue(request(g.client_id.as_str(), None), &ctx())
        .await
        .unwrap_err();
    assert_eq!(failure.code, ErrorCode::InvalidClient);
    assert_eq!(failure.status(), 401);
}

#[tokio::test]
async fn unknown_client_and_wrong_secret_answer_alike() {
    let t = tenant("SE");
    let g = grant(&t, "kyb:read", "SE");
    let wrong = issuer(
        knows(access(&g, &t)),
        verifies(false),
        mints_nothing(),
        expect_refusal(&g, "wrong_secret"),
    )
    .issue(request(g.client_id.as_str(), None), &ctx())
    .await
    .unwrap_err();

    let mut grants = MockGrantStore::new();
    grants.expect_credentials().returning(|_| Ok(None));
    let mut hasher = MockCredentialHasher::new();
    hasher.expect_verify_secret().return_const(false);
    let mut audit = MockAuditSink::new();
    audit.expect_record_security().returning(|_| Ok(()));
    let unknown = issuer(grants, hasher, mints_nothing(), audit)
        .issue(request(ClientId::generate().as_str(), None), &ctx())
        .await
        .unwrap_err();
    assert_eq!(wrong, unknown);
}

#[tokio::test]
async fn a_revoked_grant_is_invalid_client() {
    let t = tenant("SE");
    let mut g = grant(&t, "kyb:read", "SE");
    g.revoked_at = Some(now() - Duration::hours(1));
    let issuer = issuer(
        knows(access(&g, &t)),
        verifies(true),
        mints_nothing(),
        expect_refusal(&g, "grant_revoked"),
    );
    let failure = issuer
        .issue(request(g.client_id.as_str(), None), &ctx())
        .await
        .unwrap_err();
    assert_eq!(failure.code, ErrorCode::InvalidClient);
}

#[tokio::test]
async fn an_expired_grant_is_invalid_client() {
    let t = tenant("SE");
    let mut g = grant(&t, "kyb:read", "SE");
    g.expires_at = Some(now() - Duration::seconds(1));
    let issuer = issuer(
        knows(access(&g, &t)),
        verifies(true),
        mints_nothing(),
        expect_refusal(&g, "grant_expired"),
    );
    let failure = issuer
        .issue(request(g.client_id.as_str(), None), &ctx())
        .await
        .unwrap_err();
    assert_eq!(failure.code, ErrorCode::InvalidClient);
}

#[tokio::test]
async fn an_omitted_scope_means_every_scope_of_the_grant() {
    let t = tenant("SE,LT");
    let g = grant(&t, "kyb:read kyc:read events:read", "SE,LT");
    for omitted in [None, Some(""), Some("   ")] {
        let (issued, claims) = issue_for(g.clone(), omitted).await;
        assert_eq!(issued.scopes, g.scopes);
        assert_eq!(claims.scopes, g.scopes);
        assert_eq!(issued.countries, g.countries);
        assert_eq!(claims.countries, g.countries);
        assert_eq!(claims.tenant_id, g.tenant_id);
        assert_eq!(claims.grant_id, g.id);
        assert_eq!(claims.credential_generation, g.credential_generation);
        assert_eq!(claims.issued_at, now());
    }
}

#[tokio::test]
async fn a_requested_subset_of_the_grant_scopes_narrows_the_token() {
    let t = tenant("SE");
    let g = grant(&t, "kyb:read kyc:read events:read", "SE");
    let (issued, claims) = issue_for(g, Some("kyc:read,events:read")).await;
    assert_eq!(issued.scopes, scopes("kyc:read events:read"));
    assert_eq!(claims.scopes, scopes("kyc:read events:read"));
}

#[tokio::test]
async fn a_requested_scope_outside_the_grant_is_a_bad_request_naming_it() {
    let t = tenant("SE");
    let g = grant(&t, "kyb:read kyc:read", "SE");
    let mut audit = MockAuditSink::new();
    audit.expect_record_access().returning(|_| Ok(()));
    audit.expect_record_security().never();
    let issuer = issuer(
        knows(access(&g, &t)),
        verifies(true),
        mints_nothing(),
        audit,
    );
    let failure: Failure = issuer
        .issue(
            request(g.client_id.as_str(), Some("kyc:read kyb:refresh")),
            &ctx(),
        )
        .await
        .unwrap_err();
    assert_eq!(failure.code, ErrorCode::BadRequest);
    assert!(failure.message.contains("`scope`"), "{}", failure.message);
    assert!(
        failure.message.contains("kyb:refresh"),
        "{}",
        failure.message
    );
    assert!(!failure.message.contains("kyc:read"), "{}", failure.message);
}

#[tokio::test]
async fn an_unknown_scope_name_is_a_bad_request_naming_it() {
    let t = tenant("SE");
    let g = grant(&t, "kyb:read", "SE");
    let mut audit = MockAuditSink::new();
    audit.expect_record_access().returning(|_| Ok(()));
    audit.expect_record_security().never();
    let issuer = issuer(
        knows(access(&g, &t)),
        verifies(true),
        mints_nothing(),
        audit,
    );
    let failure = issuer
        .issue(request(g.client_id.as_str(), Some("kyb:write")), &ctx())
        .await
        .unwrap_err();
    assert_eq!(failure.code, ErrorCode::BadRequest);
    assert!(failure.message.contains("kyb:write"), "{}", failure.message);
}

#[tokio::test]
async fn a_token_lives_the_configured_lifetime_when_the_grant_does_not_expire_sooner() {
    let t = tenant("SE");
    let mut g = grant(&t, "kyb:read", "SE");
    g.expires_at = Some(now() + Duration::days(1));
    let (issued, claims) = issue_for(g, None).await;
    assert_eq!(issued.expires_in, 15 * 60);
    assert_eq!(claims.expires_at, now() + Duration::minutes(15));
}

#[tokio::test]
async fn a_token_never_outlives_its_grant() {
    let t = tenant("SE");
    let mut g = grant(&t, "kyb:read", "SE");
    g.expires_at = Some(now() + Duration::minutes(5));
    let (issued, claims) = issue_for(g, None).await;
    assert_eq!(issued.expires_in, 5 * 60);
    assert_eq!(claims.expires_at, now() + Duration::minutes(5));
}

#[tokio::test]
async fn a_credential_store_failure_is_an_internal_error_without_a_log_record() {
    let mut grants = MockGrantStore::new();
    grants
        .expect_credentials()
        .returning(|_| Err(StoreError::Backend("down".into())));
    let mut hasher = MockCredentialHasher::new();
    hasher.expect_verify_secret().never();
    let mut audit = MockAuditSink::new();
    audit.expect_record_access().never();
    audit.expect_record_security().never();
    let failure = issuer(grants, hasher, mints_nothing(), audit)
        .issue(request(ClientId::generate().as_str(), None), &ctx())
        .await
        .unwrap_err();
    assert_eq!(failure.code, ErrorCode::InternalError);
}

#[tokio::test]
async fn a_failed_audit_write_withholds_the_token() {
    let t = tenant("SE");
    let g = grant(&t, "kyb:read", "SE");
    let mut authority = MockTokenAuthority::new();
    authority
        .expect_mint()
        .returning(|_| Ok("signed-token".into()));
    let mut audit = MockAuditSink::new();
    audit
        .expect_record_access()
        .times(1)
        .returning(|_| Err(StoreError::Backend("disk full".into())));
    let issuer = issuer(knows(access(&g, &t)), verifies(true), authority, audit);
    let failure = issuer
        .issue(request(g.client_id.as_str(), None), &ctx())
        .await
        .unwrap_err();
    assert_eq!(failure.code, ErrorCode::InternalError);
}

/// A client that named the resource asks for what the metadata advertises: it gets the
/// granted scopes among them, and the answer says which.
#[tokio::test]
async fn a_resource_bound_request_carries_the_granted_scopes_among_those_asked() {
    let t = tenant("SE");
    let g = grant(&t, "kyb:read events:read", "SE");
    let mut t2 = tenant("SE");
    t2.id = g.tenant_id;
    let mut authority = MockTokenAuthority::new();
    authority
        .expect_mint()
        .withf(|claims| claims.scopes == scopes("kyb:read events:read"))
        .times(1)
        .returning(|_| Ok("signed-token".into()));
    let mut audit = MockAuditSink::new();
    audit.expect_record_access().times(1).returning(|_| Ok(()));
    let issuer = issuer(knows(access(&g, &t2)), verifies(true), authority, audit);
    let every: Vec<&str> = Scope::CONSUMER.iter().map(|s| s.as_str()).collect();
    let mut asked = request(g.client_id.as_str(), None);
    asked.scope = ScopeRequest::from_wire(Some(&every.join(" ")), true);
    let issued = issuer.issue(asked, &ctx()).await.expect("a token");
    assert_eq!(issued.scopes, scopes("kyb:read events:read"));
}

#[test]
fn the_wire_form_of_a_scope_request() {
    assert_eq!(ScopeRequest::from_wire(None, true), ScopeRequest::Granted);
    assert_eq!(
        ScopeRequest::from_wire(Some("  "), false),
        ScopeRequest::Granted
    );
    assert_eq!(
        ScopeRequest::from_wire(Some(" kyb:read "), false),
        ScopeRequest::Exactly("kyb:read".into())
    );
    assert_eq!(
        ScopeRequest::from_wire(Some("kyb:read"), true),
        ScopeRequest::AtMost("kyb:read".into())
    );
    // An unknown name is malformed either way.
    let granted = scopes("kyb:read");
    for request in [
        ScopeRequest::Exactly("kyb:write".into()),
        ScopeRequest::AtMost("kyb:write".into()),
    ] {
        assert_eq!(
            request.against(&granted).unwrap_err().code,
            ErrorCode::BadRequest
        );
    }
}

mod scope_requests {
    use super::*;
    use proptest::prelude::*;

    fn subset(mask: u16) -> Vec<&'static str> {
        Scope::CONSUMER
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, s)| s.as_str())
            .collect()
    }

    proptest! {
        /// For every list asked and every grant: an exact request gets what it asked or is
        /// refused naming what is missing; an upper-bound request gets the granted ones among
        /// those asked, or `invalid_scope` when there are none.
        #[test]
        fn a_token_never_carries_a_scope_the_grant_lacks(asked in 1u16..1024, held in 0u16..1024) {
            let (asked, held) = (subset(asked), subset(held));
            let granted = if held.is_empty() { ScopeSet::default() } else { scopes(&held.join(" ")) };
            let list = asked.join(" ");
            let within: Vec<&str> = asked.iter().copied().filter(|s| held.contains(s)).collect();

            match ScopeRequest::Exactly(list.clone()).against(&granted) {
                Ok(got) => {
                    prop_assert_eq!(within.len(), asked.len());
                    prop_assert_eq!(got, scopes(&list));
                }
                Err(failure) => {
                    prop_assert_eq!(failure.code, ErrorCode::BadRequest);
                    prop_assert!(within.len() < asked.len());
                }
            }
            match ScopeRequest::AtMost(list).against(&granted) {
                Ok(got) => prop_assert_eq!(got, scopes(&within.join(" "))),
                Err(failure) => {
                    prop_assert_eq!(failure.code, ErrorCode::InvalidScope);
                    prop_assert!(within.is_empty());
                }
            }
        }
    }
}
