//! The guard: the grant record governs every request. Revocation, expiry and narrowing take
//! effect on the next request; widening only for tokens minted afterwards; a scope or
//! country removed and restored within a token's lifetime works again at once. Every
//! refusal is logged once, by the guard that refused.

use blackbox::{Consumer, TestApp};
use chrono::Duration;

const SOME_SUBJECT: &str = "/v1/subjects/01ARZ3NDEKTSV4RRFFQ69G5FAV";

async fn audit_rows(app: &TestApp, c: &Consumer) -> Vec<serde_json::Value> {
    app.db
        .rows(&format!(
            "SELECT route, status, outcome, error_code, detail FROM audit_log WHERE grant_id = '{}' AND route <> '/oauth/token' ORDER BY occurred_at, audit_id",
            c.grant_id
        ))
        .await
}

async fn last_audit(app: &TestApp, c: &Consumer) -> serde_json::Value {
    audit_rows(app, c).await.pop().expect("an audit row")
}

#[tokio::test(flavor = "multi_thread")]
async fn missing_forged_and_garbage_tokens_are_401_and_go_to_the_security_log() {
    let app = TestApp::spawn().await;
    let none = app.get(SOME_SUBJECT, None).await;
    assert_eq!(none.status, 401);
    assert_eq!(none.error_code(), "unauthorized");
    assert!(none.headers.contains_key("www-authenticate"));

    let garbage = app.get(SOME_SUBJECT, Some("not-a-token")).await;
    assert_eq!(garbage.status, 401);

    // A token signed by another service's key.
    let other = TestApp::spawn().await;
    let c = other.provision("kyb:read", "SE", "SE").await;
    let foreign = other.token(&c).await;
    let forged = app.get(SOME_SUBJECT, Some(&foreign)).await;
    assert_eq!(forged.status, 401);

    let reasons = app
        .db
        .rows("SELECT reason, route, status FROM security_log ORDER BY occurred_at")
        .await;
    let reasons: Vec<&str> = reasons
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    assert_eq!(
        reasons,
        ["missing_token", "malformed_token", "bad_signature"]
    );
    assert_eq!(
        app.db
            .count("security_log", "route = '/v1/subjects/{id}'")
            .await,
        3
    );
    assert_eq!(app.db.count("audit_log", "true").await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn revoked_grant_is_refused_on_the_next_request() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let token = app.token(&c).await;
    assert_eq!(app.get(SOME_SUBJECT, Some(&token)).await.status, 404);
    app.admin(&["grant", "revoke", &c.grant_id]).await.unwrap();
    let after = app.get(SOME_SUBJECT, Some(&token)).await;
    assert_eq!(after.status, 401);
    assert_eq!(after.error_code(), "unauthorized");
    let row = last_audit(&app, &c).await;
    assert_eq!(row["outcome"], "refused");
    assert_eq!(row["detail"], "grant_revoked");
    assert_eq!(row["status"], 401);
    // A revoked grant mints nothing.
    let minted = app.request_token(&c.client_id, &c.client_secret).await;
    assert_eq!(minted.status, 401);
    assert_eq!(minted.error_code(), "invalid_client");
}

#[tokio::test(flavor = "multi_thread")]
async fn narrowing_applies_at_once_and_a_restored_scope_works_again() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read kyc:read", "SE", "SE").await;
    let token = app.token(&c).await;
    assert_eq!(app.get(SOME_SUBJECT, Some(&token)).await.status, 404);

    app.admin(&["grant", "update", &c.grant_id, "--scopes", "kyc:read"])
        .await
        .unwrap();
    let narrowed = app.get(SOME_SUBJECT, Some(&token)).await;
    assert_eq!(narrowed.status, 403);
    assert_eq!(narrowed.error_code(), "forbidden");
    assert!(narrowed.body["message"]
        .as_str()
        .unwrap()
        .contains("kyb:read"));
    let row = last_audit(&app, &c).await;
    assert_eq!(
        (row["outcome"].as_str(), row["error_code"].as_str()),
        (Some("refused"), Some("forbidden"))
    );

    app.admin(&[
        "grant",
        "update",
        &c.grant_id,
        "--scopes",
        "kyb:read kyc:read",
    ])
    .await
    .unwrap();
    assert_eq!(
        app.get(SOME_SUBJECT, Some(&token)).await.status,
        404,
        "restored at once"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn widening_takes_effect_only_for_tokens_minted_afterwards() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyc:read", "SE", "SE").await;
    let before = app.token(&c).await;
    assert_eq!(app.get(SOME_SUBJECT, Some(&before)).await.status, 403);
    app.admin(&[
        "grant",
        "update",
        &c.grant_id,
        "--scopes",
        "kyc:read kyb:read",
    ])
    .await
    .unwrap();
    assert_eq!(
        app.get(SOME_SUBJECT, Some(&before)).await.status,
        403,
        "the old token never gains a scope"
    );
    let after = app.token(&c).await;
    assert_eq!(app.get(SOME_SUBJECT, Some(&after)).await.status, 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn country_rules_not_provisioned_not_granted_and_restored() {
    let app = TestApp::spawn().await;
    // Tenant provisioned for SE only: LT is not provisioned.
    let se_only = app.provision("kyb:read", "SE", "SE").await;
    let token = app.token(&se_only).await;
    let lt = app
        .resolve(&token, "imones-kodas", "lt:110443493", None)
        .await;
    assert_eq!(lt.status, 403);
    assert_eq!(lt.error_code(), "country_not_provisioned");

    // Tenant with SE and LT, grant carries both; narrowed to SE; restored.
    let both = app.provision("kyb:read", "SE,LT", "SE,LT").await;
    let token = app.token(&both).await;
    assert_eq!(
        app.resolve(&token, "imones-kodas", "lt:110443493", None)
            .await
            .status,
        200
    );
    app.admin(&["grant", "update", &both.grant_id, "--countries", "SE"])
        .await
        .unwrap();
    let narrowed = app
        .resolve(&token, "imones-kodas", "lt:110443493", None)
        .await;
    assert_eq!(narrowed.status, 403);
    assert_eq!(narrowed.error_code(), "country_not_granted");
    assert_eq!(
        last_audit(&app, &both).await["error_code"],
        "country_not_granted"
    );
    app.admin(&["grant", "update", &both.grant_id, "--countries", "SE,LT"])
        .await
        .unwrap();
    assert_eq!(
        app.resolve(&token, "imones-kodas", "lt:110443493", None)
            .await
            .status,
        200
    );

    // A grant narrowed to LT only: the token keeps its SE copy, but the grant governs.
    app.admin(&["grant", "update", &both.grant_id, "--countries", "LT"])
        .await
        .unwrap();
    let se = app.resolve(&token, "orgnr", "5560021361", None).await;
    assert_eq!(se.error_code(), "country_not_granted");
}

#[tokio::test(flavor = "multi_thread")]
async fn expired_tokens_and_expired_grants_are_401_and_attributed() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let token = app.token(&c).await;
    app.clock.advance(Duration::minutes(16));
    let expired = app.get(SOME_SUBJECT, Some(&token)).await;
    assert_eq!(expired.status, 401);
    assert_eq!(last_audit(&app, &c).await["detail"], "token_expired");

    let tenant = c.tenant_id.clone();
    let soon = (app.clock_now() + Duration::hours(1)).to_rfc3339();
    let g = app
        .admin(&[
            "grant",
            "create",
            "--tenant",
            &tenant,
            "--scopes",
            "kyb:read",
            "--countries",
            "SE",
            "--expires-at",
            &soon,
        ])
        .await
        .unwrap();
    let expiring = blackbox::Consumer {
        tenant_id: tenant,
        grant_id: g["grant_id"].as_str().unwrap().into(),
        client_id: g["client_id"].as_str().unwrap().into(),
        client_secret: g["client_secret"].as_str().unwrap().into(),
    };
    let minted = app
        .request_token(&expiring.client_id, &expiring.client_secret)
        .await;
    assert_eq!(minted.body["expires_in"], 900);
    let token = minted.body["access_token"].as_str().unwrap().to_owned();
    assert_eq!(app.get(SOME_SUBJECT, Some(&token)).await.status, 404);
    // A token of the same age from a grant without expiry: the control that shows tokens
    // of that age are still live when the expiring grant's token is refused.
    let control = app.token(&c).await;

    // The grant's expiry moved to before the token's own (no route shortens an expiry yet;
    // the row is set as an operator's change would set it). The guard reads the grant on
    // every request, so the live token is refused for the grant's expiry.
    let earlier = app.clock_now() + Duration::minutes(5);
    let changed = app
        .db
        .execute(&format!(
            "UPDATE grants SET expires_at = {} WHERE grant_id = '{}'",
            app.db.time_literal(earlier),
            expiring.grant_id
        ))
        .await;
    assert_eq!(changed, 1);
    app.clock.advance(Duration::minutes(6));
    // Nine of the token's fifteen minutes are left; the grant lapsed a minute ago.
    assert_eq!(app.get(SOME_SUBJECT, Some(&control)).await.status, 404);
    let after = app.get(SOME_SUBJECT, Some(&token)).await;
    assert_eq!(after.status, 401, "{}", after.text);
    assert_eq!(after.error_code(), "unauthorized");
    let row = last_audit(&app, &expiring).await;
    assert_eq!(row["detail"], "grant_expired", "{row}");
    let mint_again = app
        .request_token(&expiring.client_id, &expiring.client_secret)
        .await;
    assert_eq!(mint_again.status, 401);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_never_outlives_its_grant() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let soon = (app.clock_now() + Duration::minutes(5)).to_rfc3339();
    let g = app
        .admin(&[
            "grant",
            "create",
            "--tenant",
            &c.tenant_id,
            "--scopes",
            "kyb:read",
            "--countries",
            "SE",
            "--expires-at",
            &soon,
        ])
        .await
        .unwrap();
    let minted = app
        .post_form(
            "/oauth/token",
            &[
                ("grant_type", "client_credentials"),
                ("client_id", g["client_id"].as_str().unwrap()),
                ("client_secret", g["client_secret"].as_str().unwrap()),
            ],
        )
        .await;
    let expires_in = minted.body["expires_in"].as_i64().unwrap();
    assert!((298..=300).contains(&expires_in), "{expires_in}");
}

#[tokio::test(flavor = "multi_thread")]
async fn rotating_the_secret_stops_old_tokens_and_the_old_secret() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let old_token = app.token(&c).await;
    let rotated = app
        .admin(&["grant", "rotate-secret", &c.grant_id])
        .await
        .unwrap();
    let new_secret = rotated["client_secret"].as_str().unwrap().to_owned();
    assert_ne!(new_secret, c.client_secret);

    let refused = app.get(SOME_SUBJECT, Some(&old_token)).await;
    assert_eq!(refused.status, 401);
    assert_eq!(last_audit(&app, &c).await["detail"], "credential_rotated");

    let old_secret = app.request_token(&c.client_id, &c.client_secret).await;
    assert_eq!(old_secret.status, 401);
    let fresh = app
        .token(&Consumer {
            client_secret: new_secret,
            ..c.clone()
        })
        .await;
    assert_eq!(app.get(SOME_SUBJECT, Some(&fresh)).await.status, 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pending_tenant_is_refused_until_activated() {
    let app = TestApp::spawn().await;
    let tenant = app
        .admin(&[
            "tenant",
            "create",
            "--name",
            "Pending AB",
            "--country",
            "SE",
        ])
        .await
        .unwrap();
    assert_eq!(tenant["status"], "pending");
    let tenant_id = tenant["tenant_id"].as_str().unwrap();
    let c = app.grant(tenant_id, "kyb:read", "SE").await;
    let token = app.token(&c).await;
    let pending = app.get(SOME_SUBJECT, Some(&token)).await;
    assert_eq!(pending.status, 403);
    assert_eq!(pending.error_code(), "tenant_pending");
    assert_eq!(last_audit(&app, &c).await["detail"], "tenant_pending");
    app.admin(&["tenant", "activate", tenant_id]).await.unwrap();
    assert_eq!(app.get(SOME_SUBJECT, Some(&token)).await.status, 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn every_routed_request_is_logged_once_and_validation_failures_not_at_all() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let token = app.token(&c).await;
    // allowed, failed (404), refused (403 country), validation (400, not logged)
    assert_eq!(
        app.resolve(&token, "orgnr", "5560021361", Some("r-1"))
            .await
            .status,
        200
    );
    assert_eq!(app.get(SOME_SUBJECT, Some(&token)).await.status, 404);
    let lt = app
        .resolve(&token, "imones-kodas", "lt:110443493", None)
        .await;
    assert_eq!(lt.status, 403);
    assert_eq!(
        app.resolve(&token, "orgnr", "5560021362", None)
            .await
            .status,
        400
    );
    assert_eq!(app.resolve(&token, "nonsense", "1", None).await.status, 400);

    let rows = audit_rows(&app, &c).await;
    let summary: Vec<(i64, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["status"].as_i64().unwrap(),
                r["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [(200, "allowed"), (404, "failed"), (403, "refused")]
    );
    // The per-grant access log holds the same requests.
    assert_eq!(
        app.db
            .count(
                "access_log",
                &format!("grant_id = '{}' AND route <> '/oauth/token'", c.grant_id)
            )
            .await,
        3
    );
    // Rows name route templates, never identifiers.
    let routes = app
        .db
        .rows("SELECT DISTINCT route FROM audit_log ORDER BY route")
        .await;
    let routes: Vec<&str> = routes
        .iter()
        .map(|r| r["route"].as_str().unwrap())
        .collect();
    assert_eq!(
        routes,
        ["/oauth/token", "/v1/subjects/resolve", "/v1/subjects/{id}"]
    );
}
