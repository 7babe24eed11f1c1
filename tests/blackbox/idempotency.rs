//! Idempotent writes over real HTTP: a retry answered byte for byte from the first request
//! (`Idempotent-Replayed: true`), the key with another request refused, concurrent requests
//! run once, a retry after a dropped connection spending the budget once, what is not kept,
//! and keys forgotten after a day.

use blackbox::{answer, Answer, Consumer, TestApp};
use serde_json::{json, Value};
use std::time::Duration as StdDuration;
use tokio::io::AsyncWriteExt;
use upstream_sandbox::{FaultSpec, Source};

const TEST_AB: &str = "5560021361";
const OTHER_AB: &str = "5561890038";

async fn post_keyed(app: &TestApp, path: &str, token: &str, key: &str, body: &Value) -> Answer {
    answer(
        app.http
            .post(app.url(path))
            .bearer_auth(token)
            .header("idempotency-key", key)
            .json(body)
            .send()
            .await
            .unwrap(),
    )
    .await
}

fn replayed(a: &Answer) -> bool {
    a.headers
        .get("idempotent-replayed")
        .is_some_and(|v| v == "true")
}

async fn paid_used(app: &TestApp, token: &str) -> i64 {
    let u = app.get("/v1/usage", Some(token)).await;
    u.body["paid_calls"]["on_demand"]["used"].as_i64().unwrap()
}

async fn refresher(app: &TestApp) -> (Consumer, String) {
    let c = app
        .provision("kyb:read kyb:refresh events:read", "SE", "SE")
        .await;
    let token = app.token(&c).await;
    (c, token)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_retry_is_answered_byte_for_byte_from_the_first_request() {
    let app = TestApp::spawn_with_sandbox().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let token = app.token(&c).await;
    let body = json!({"type": "orgnr", "value": TEST_AB, "ref": "customer-7"});
    let first = post_keyed(&app, "/v1/subjects/resolve", &token, "\"order-7\"", &body).await;
    assert_eq!(first.status, 200, "{}", first.text);
    assert!(!replayed(&first));
    // The bare form of the same key is the same key.
    let again = post_keyed(&app, "/v1/subjects/resolve", &token, "order-7", &body).await;
    assert_eq!(again.status, 200);
    assert!(replayed(&again));
    assert_eq!(again.text, first.text);
    assert_eq!(again.headers["content-type"], first.headers["content-type"]);
    // Each request is audited, the replay too.
    assert_eq!(
        app.db
            .count(
                "audit_log",
                &format!(
                    "route = '/v1/subjects/resolve' AND grant_id = '{}'",
                    c.grant_id
                )
            )
            .await,
        2
    );
    // No key, no memory: the write runs as before.
    let unkeyed = app
        .post_json("/v1/subjects/resolve", Some(&token), &body)
        .await;
    assert_eq!(unkeyed.status, 200);
    assert!(!replayed(&unkeyed));

    // An error answer is kept and replayed alike.
    let c2 = app.provision("monitoring:subscribe", "SE", "SE").await;
    let t2 = app.token(&c2).await;
    let path = "/v1/subscriptions/sub_01JCZ7Q4S3Y6T4N2M5R8V9W0XA/end";
    let missing = post_keyed(&app, path, &t2, "end-1", &json!({})).await;
    assert_eq!(missing.status, 404, "{}", missing.text);
    let missing_again = post_keyed(&app, path, &t2, "end-1", &json!({})).await;
    assert_eq!(missing_again.status, 404);
    assert!(replayed(&missing_again));
    assert_eq!(missing_again.text, missing.text);

    // Nothing of the key or the body is kept in clear.
    // Nothing of the key is kept in clear, and the kept answer is sealed: its bytes do not
    // hold the subject id the answer names.
    let dump = app.db.dump_text().await;
    assert!(!dump.contains("order-7"));
    let subject = first.body["subject_id"].as_str().unwrap();
    assert_eq!(
        app.db.count("idempotency_keys", "state = 'answered'").await,
        2
    );
    let holds_subject = match app.db.kind() {
        blackbox::store::StoreKind::Postgres => {
            format!("position(convert_to('{subject}', 'UTF8') in answer) > 0")
        }
        blackbox::store::StoreKind::Sqlite => {
            format!("instr(answer, CAST('{subject}' AS BLOB)) > 0")
        }
    };
    assert_eq!(app.db.count("idempotency_keys", &holds_subject).await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_key_with_another_body_path_or_credential_is_refused_and_nothing_runs() {
    let app = TestApp::spawn_with_sandbox().await;
    let (c, token) = refresher(&app).await;
    let resolve = json!({"type": "orgnr", "value": TEST_AB});
    let first = post_keyed(&app, "/v1/subjects/resolve", &token, "k-1", &resolve).await;
    assert_eq!(first.status, 200);
    let other_body = json!({"type": "orgnr", "value": OTHER_AB});
    let reused = post_keyed(&app, "/v1/subjects/resolve", &token, "k-1", &other_body).await;
    assert_eq!(
        (reused.status, reused.error_code()),
        (422, "idempotency_key_reused")
    );
    assert!(!reused.text.contains(OTHER_AB));
    // Another path under the same key.
    let path = post_keyed(
        &app,
        &format!("/v1/companies/{TEST_AB}/refresh"),
        &token,
        "k-1",
        &resolve,
    )
    .await;
    assert_eq!(path.status, 422);
    // Another grant of the same tenant.
    let sibling = app.grant(&c.tenant_id, "kyb:read", "SE").await;
    let sibling_token = app.token(&sibling).await;
    let cross = post_keyed(
        &app,
        "/v1/subjects/resolve",
        &sibling_token,
        "k-1",
        &resolve,
    )
    .await;
    assert_eq!(cross.status, 422);
    // Another tenant's key space is its own.
    let stranger = app.provision("kyb:read", "SE", "SE").await;
    let stranger_token = app.token(&stranger).await;
    let theirs = post_keyed(
        &app,
        "/v1/subjects/resolve",
        &stranger_token,
        "k-1",
        &resolve,
    )
    .await;
    assert_eq!(theirs.status, 200);
    assert!(!replayed(&theirs));
    assert_ne!(theirs.body["subject_id"], first.body["subject_id"]);
    // Nothing was written by the refused requests: one subject for the first tenant.
    assert_eq!(
        app.db
            .count("subjects", &format!("tenant_id = '{}'", c.tenant_id))
            .await,
        1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn malformed_keys_are_refused_before_anything_runs() {
    let app = TestApp::spawn_with_sandbox().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let token = app.token(&c).await;
    let body = json!({"type": "orgnr", "value": TEST_AB});
    let long = "k".repeat(256);
    for bad in ["\"unterminated", "two words", long.as_str(), "\"\""] {
        let a = post_keyed(&app, "/v1/subjects/resolve", &token, bad, &body).await;
        assert_eq!((a.status, a.error_code()), (400, "bad_request"), "{bad}");
        assert!(a.body["message"]
            .as_str()
            .unwrap()
            .starts_with("`Idempotency-Key`"));
    }
    let twice = answer(
        app.http
            .post(app.url("/v1/subjects/resolve"))
            .bearer_auth(&token)
            .header("idempotency-key", "a")
            .header("idempotency-key", "b")
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(twice.status, 400);
    assert_eq!(
        app.db
            .count("subjects", &format!("tenant_id = '{}'", c.tenant_id))
            .await,
        0
    );
}

/// Sends a keyed refresh over a raw connection and drops it before the answer comes.
async fn refresh_and_hang_up(app: &TestApp, token: &str, key: &str, orgnr: &str) {
    let addr = app.url("").trim_start_matches("http://").to_owned();
    let mut stream = tokio::net::TcpStream::connect(addr.trim_end_matches('/'))
        .await
        .unwrap();
    let request = format!(
        "POST /v1/companies/{orgnr}/refresh HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\
         Idempotency-Key: {key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    tokio::time::sleep(StdDuration::from_millis(100)).await;
    drop(stream);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refresh_retried_after_a_dropped_connection_spends_the_budget_once() {
    let app = TestApp::spawn_with_sandbox().await;
    let (_, token) = refresher(&app).await;
    // What one refresh spends, measured.
    let plain = app
        .post_json(
            &format!("/v1/companies/{OTHER_AB}/refresh"),
            Some(&token),
            &json!({}),
        )
        .await;
    assert_eq!(plain.status, 200, "{}", plain.text);
    let per_refresh = paid_used(&app, &token).await;
    assert!(per_refresh >= 1);

    // The register answers slowly; the client hangs up before the answer.
    app.sandbox()
        .inject_fault(Source::Bolagsverket, FaultSpec::slow(1_500))
        .unwrap();
    refresh_and_hang_up(&app, &token, "refresh-1", TEST_AB).await;
    // Retries with the same key: while the first runs, 409; then its answer.
    let mut seen_in_use = false;
    let retried = loop {
        let a = post_keyed(
            &app,
            &format!("/v1/companies/{TEST_AB}/refresh"),
            &token,
            "refresh-1",
            &json!({}),
        )
        .await;
        match a.status {
            409 => {
                assert_eq!(a.error_code(), "idempotency_key_in_use");
                seen_in_use = true;
                tokio::time::sleep(StdDuration::from_millis(200)).await;
            }
            _ => break a,
        }
    };
    assert!(seen_in_use, "the first request was still running");
    assert_eq!(retried.status, 200, "{}", retried.text);
    assert!(replayed(&retried), "the dropped request's answer was kept");
    assert_eq!(retried.body["data"]["orgnr"], TEST_AB);
    // Spent once for the two requests.
    assert_eq!(paid_used(&app, &token).await, 2 * per_refresh);
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_requests_with_one_key_run_once() {
    let app = TestApp::spawn_with_sandbox().await;
    let (_, token) = refresher(&app).await;
    app.sandbox()
        .inject_fault(Source::Bolagsverket, FaultSpec::slow(800))
        .unwrap();
    let path = format!("/v1/companies/{TEST_AB}/refresh");
    let empty = json!({});
    let answers = futures_util::future::join_all(
        (0..6).map(|_| post_keyed(&app, &path, &token, "same", &empty)),
    )
    .await;
    let ran: Vec<&Answer> = answers
        .iter()
        .filter(|a| a.status == 200 && !replayed(a))
        .collect();
    assert_eq!(
        ran.len(),
        1,
        "{:?}",
        answers.iter().map(|a| a.status).collect::<Vec<_>>()
    );
    for a in &answers {
        assert!(
            (a.status == 409 && a.error_code() == "idempotency_key_in_use")
                || (a.status == 200 && (replayed(a) || a.text == ran[0].text)),
            "{}",
            a.text
        );
    }
    // Once it ran, every retry gets its answer.
    let after = post_keyed(&app, &path, &token, "same", &json!({})).await;
    assert!(replayed(&after));
    assert_eq!(after.text, ran[0].text);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_spent_budget_is_not_kept_and_keys_are_forgotten_after_a_day() {
    let app = TestApp::spawn_with_sandbox().await;
    let (c, token) = refresher(&app).await;
    app.admin(&["budget", "set", &c.tenant_id, "--daily-paid", "0"])
        .await
        .unwrap();
    let path = format!("/v1/companies/{TEST_AB}/refresh");
    let refused = post_keyed(&app, &path, &token, "r-1", &json!({})).await;
    assert_eq!(refused.status, 429, "{}", refused.text);
    app.admin(&[
        "budget",
        "set",
        &c.tenant_id,
        "--daily-paid",
        "100",
        "--monitoring-share",
        "0",
    ])
    .await
    .unwrap();
    let token = app.token(&c).await;
    let ran = post_keyed(&app, &path, &token, "r-1", &json!({})).await;
    assert_eq!(ran.status, 200, "{}", ran.text);
    assert!(!replayed(&ran), "the 429 was not kept: the retry ran");

    // A day later the key is free again, for any request; the purge forgets it.
    app.clock.advance(chrono::Duration::hours(25));
    let token = app.token(&c).await;
    let other = json!({"type": "orgnr", "value": TEST_AB});
    let reused_later = post_keyed(&app, "/v1/subjects/resolve", &token, "r-1", &other).await;
    assert_eq!(reused_later.status, 200, "{}", reused_later.text);
    assert!(!replayed(&reused_later));
    app.clock.advance(chrono::Duration::hours(25));
    let purged = app
        .app
        .services
        .idempotency
        .purge_expired(100)
        .await
        .unwrap();
    assert_eq!(purged, 1);
    assert_eq!(app.db.count("idempotency_keys", "true").await, 0);
}

/// A replay re-checks the rights its answer was made under: the credential's standing and
/// the route's scope (the gate), and every scope, country and the permit the first request
/// held. A person's resolve kept under a key is not handed out again once the tenant's
/// permit is suspended, nor once the grant loses `kyc:read`; with the permit back it is.
#[tokio::test(flavor = "multi_thread")]
async fn a_replay_is_refused_once_a_right_its_answer_was_made_under_is_withdrawn() {
    let app = TestApp::spawn_with_sandbox().await;
    let c = app.provision("kyb:read kyc:read", "SE", "SE").await;
    crate::persons::set_permit(&app, &c, -30, 365, "active").await;
    let token = app.token(&c).await;
    let body = json!({"type": "personnummer", "value": "19570413-3106"});
    let first = post_keyed(&app, "/v1/subjects/resolve", &token, "p-1", &body).await;
    assert_eq!(first.status, 200, "{}", first.text);

    crate::persons::set_permit(&app, &c, -30, 365, "suspended").await;
    let refused = post_keyed(&app, "/v1/subjects/resolve", &token, "p-1", &body).await;
    assert_eq!(refused.status, 403, "{}", refused.text);
    assert_eq!(refused.error_code(), "forbidden");
    assert!(refused.text.contains("permit"), "{}", refused.text);
    assert!(
        !refused.text.contains("3106"),
        "no personal number in the refusal"
    );
    assert!(!replayed(&refused));

    crate::persons::set_permit(&app, &c, -30, 365, "active").await;
    let again = post_keyed(&app, "/v1/subjects/resolve", &token, "p-1", &body).await;
    assert_eq!(again.status, 200, "{}", again.text);
    assert!(replayed(&again));
    assert_eq!(again.text, first.text);

    app.admin(&["grant", "update", &c.grant_id, "--scopes", "kyb:read"])
        .await
        .unwrap();
    let narrowed = post_keyed(&app, "/v1/subjects/resolve", &token, "p-1", &body).await;
    assert_eq!(narrowed.status, 403, "{}", narrowed.text);
    assert!(narrowed.text.contains("kyc:read"), "{}", narrowed.text);
}
