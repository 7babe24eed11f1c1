//! `POST /oauth/token`: form, JSON and HTTP Basic clients; scopes; credential failures.

use base64::Engine;
use blackbox::{answer, TestApp};
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn form_json_and_basic_clients_all_get_a_bearer_token() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read events:read", "SE", "SE,LT").await;

    let form = app.request_token(&c.client_id, &c.client_secret).await;
    assert_eq!(form.status, 200, "{}", form.text);
    assert_eq!(form.body["token_type"], "Bearer");
    assert_eq!(form.body["scope"], "kyb:read events:read");
    assert_eq!(form.body["countries"], json!(["SE"]));
    assert_eq!(form.body["expires_in"], 900);
    assert_eq!(form.headers["cache-control"], "no-store");

    let json_answer = app
        .post_json(
            "/oauth/token",
            None,
            &json!({"grant_type": "client_credentials", "client_id": c.client_id, "client_secret": c.client_secret}),
        )
        .await;
    assert_eq!(json_answer.status, 200, "{}", json_answer.text);

    // HTTP Basic, raw (as authlib and requests-oauthlib send it) and URL-encoded.
    for (id, secret) in [
        (c.client_id.clone(), c.client_secret.clone()),
        (
            blackbox::urlencode(&c.client_id),
            blackbox::urlencode(&c.client_secret),
        ),
    ] {
        let basic = base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"));
        let response = app
            .http
            .post(app.url("/oauth/token"))
            .header("authorization", format!("Basic {basic}"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body("grant_type=client_credentials")
            .send()
            .await
            .unwrap();
        let a = answer(response).await;
        assert_eq!(a.status, 200, "{}", a.text);
        let token = a.body["access_token"].as_str().unwrap();
        let probe = app
            .get("/v1/subjects/01ARZ3NDEKTSV4RRFFQ69G5FAV", Some(token))
            .await;
        assert_eq!(probe.status, 404, "a fresh token is accepted by the guard");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_requested_scope_narrows_and_may_not_widen() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read kyc:read", "SE", "SE").await;
    let narrowed = app
        .post_form(
            "/oauth/token",
            &[
                ("grant_type", "client_credentials"),
                ("client_id", &c.client_id),
                ("client_secret", &c.client_secret),
                ("scope", "kyc:read"),
            ],
        )
        .await;
    assert_eq!(narrowed.status, 200);
    assert_eq!(narrowed.body["scope"], "kyc:read");

    let widened = app
        .post_form(
            "/oauth/token",
            &[
                ("grant_type", "client_credentials"),
                ("client_id", &c.client_id),
                ("client_secret", &c.client_secret),
                ("scope", "kyc:read kyb:refresh"),
            ],
        )
        .await;
    assert_eq!(widened.status, 400);
    assert_eq!(widened.error_code(), "bad_request");
    assert!(widened.body["message"]
        .as_str()
        .unwrap()
        .contains("kyb:refresh"));
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_credentials_are_invalid_client_with_an_oauth_error_description() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let wrong_secret = app.request_token(&c.client_id, "cs_wrong").await;
    assert_eq!(wrong_secret.status, 401);
    assert_eq!(wrong_secret.error_code(), "invalid_client");
    assert_eq!(
        wrong_secret.body["error_description"],
        wrong_secret.body["message"]
    );

    let unknown = app
        .request_token("cid_01arz3ndektsv4rrffq69g5fav", &c.client_secret)
        .await;
    assert_eq!(unknown.status, 401);
    assert_eq!(
        unknown.body, wrong_secret.body,
        "unknown and wrong look the same"
    );

    // The wrong secret is attributable to the grant; the unknown client is not.
    assert_eq!(
        app.db
            .count(
                "audit_log",
                &format!(
                    "grant_id = '{}' AND route = '/oauth/token' AND outcome = 'refused'",
                    c.grant_id
                )
            )
            .await,
        1
    );
    assert_eq!(
        app.db
            .count("security_log", "reason = 'unknown_client'")
            .await,
        1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn malformed_token_requests_are_400_with_the_field_named() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let cases: Vec<(Vec<(&str, &str)>, &str)> = vec![
        (
            vec![
                ("client_id", &c.client_id),
                ("client_secret", &c.client_secret),
            ],
            "grant_type",
        ),
        (
            vec![
                ("grant_type", "password"),
                ("client_id", &c.client_id),
                ("client_secret", "x"),
            ],
            "grant_type",
        ),
        (
            vec![("grant_type", "client_credentials"), ("client_secret", "x")],
            "client_id",
        ),
        (
            vec![
                ("grant_type", "client_credentials"),
                ("client_id", &c.client_id),
            ],
            "client_secret",
        ),
    ];
    for (form, field) in cases {
        let a = app.post_form("/oauth/token", &form).await;
        assert_eq!(a.status, 400, "{field}: {}", a.text);
        assert_eq!(a.error_code(), "bad_request");
        assert!(
            a.body["message"].as_str().unwrap().contains(field),
            "{}",
            a.text
        );
        assert!(a.body["error_description"].is_string());
    }
    let garbage = app
        .post_raw(
            "/oauth/token",
            None,
            "application/json",
            b"{not json".to_vec(),
        )
        .await;
    assert_eq!(garbage.status, 400);
    assert_eq!(garbage.error_code(), "bad_request");
    let xml = app
        .post_raw("/oauth/token", None, "text/xml", b"<a/>".to_vec())
        .await;
    assert_eq!(xml.status, 400);
    // Malformed requests are not logged.
    assert_eq!(app.db.count("audit_log", "true").await, 0);
    assert_eq!(app.db.count("security_log", "true").await, 0);
}

/// Standard OAuth client libraries (authlib, requests-oauthlib) against the token endpoint:
/// `IDREG_TEST_PYTHON=/path/to/venv/bin/python` with both installed (`cargo xtask test` does it).
#[tokio::test(flavor = "multi_thread")]
async fn standard_python_oauth_clients_get_working_tokens() {
    let Some(python) = blackbox::test_python("authlib and requests-oauthlib") else {
        return;
    };
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("oauth_clients/test_oauth_clients.py");
    let output = tokio::process::Command::new(python)
        .arg(script)
        .args([
            "--base",
            &app.base_url,
            "--client-id",
            &c.client_id,
            "--client-secret",
            &c.client_secret,
        ])
        .output()
        .await
        .expect("running the OAuth client test");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the OAuth client test failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("PASS: all"), "{stdout}");
}
