//! Monitoring subscriptions over REST and MCP: create (201) with every refusal of the
//! transition table, one unended subscription per subject and kind (also under concurrent
//! creates), the read scopes by kind, end (409 the second time), and the lifecycle events in
//! the tenant's log.

use crate::mcp::call_tool;
use crate::persons::{set_permit, tool_error};
use blackbox::{Consumer, TestApp};
use serde_json::{json, Value};
use upstream_sandbox::spar::persons;

const TEST_AB: &str = "5560021361";
const ALL: &str = "kyb:read kyc:read monitoring:subscribe monitoring:read events:read";

async fn setup(app: &TestApp) -> (Consumer, String) {
    let c = app.provision(ALL, "SE,LT", "SE,LT").await;
    let token = app.token(&c).await;
    (c, token)
}

async fn subject(app: &TestApp, token: &str, id_type: &str, value: &str) -> String {
    let r = app.resolve(token, id_type, value, None).await;
    assert_eq!(r.status, 200, "{}", r.text);
    r.body["subject_id"].as_str().unwrap().to_owned()
}

async fn subscribe(app: &TestApp, token: &str, body: Value) -> blackbox::Answer {
    app.post_json("/v1/subscriptions", Some(token), &body).await
}

#[tokio::test(flavor = "multi_thread")]
async fn create_read_list_and_end_with_their_events() {
    let app = TestApp::spawn().await;
    let (c, token) = setup(&app).await;
    let company = subject(&app, &token, "orgnr", TEST_AB).await;

    let a = subscribe(
        &app,
        &token,
        json!({"subject_id": company, "kind": "company", "legal_basis": "aml_cdd",
               "legal_basis_ref": "KYC-2026-17", "check_days": 2, "full_refresh_days": 14}),
    )
    .await;
    assert_eq!(a.status, 201, "{}", a.text);
    let s = &a.body;
    let id = s["subscription_id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("sub_"));
    assert_eq!(s["subject_id"], company.as_str());
    assert_eq!(s["kind"], "company");
    assert_eq!(s["legal_basis"], "aml_cdd");
    assert_eq!(s["legal_basis_ref"], "KYC-2026-17");
    assert_eq!(s["status"], "active");
    assert_eq!(
        (s["check_days"].clone(), s["full_refresh_days"].clone()),
        (json!(2), json!(14))
    );
    assert_eq!(s["country"], "SE");
    assert!(s["next_run_at"].is_string());
    for f in [
        "suspended_at",
        "ended_at",
        "purge_after",
        "suspension_reason",
    ] {
        assert!(s[f].is_null(), "{f}");
    }

    // One unended subscription per subject and kind.
    let again = subscribe(
        &app,
        &token,
        json!({"subject_id": company, "kind": "company", "legal_basis": "contract"}),
    )
    .await;
    assert_eq!(
        (again.status, again.error_code()),
        (409, "subscription_exists")
    );

    // Read back and listed.
    let got = app
        .get(&format!("/v1/subscriptions/{id}"), Some(&token))
        .await;
    assert_eq!(got.status, 200);
    assert_eq!(got.body, a.body);
    let list = app
        .get("/v1/subscriptions?status=active", Some(&token))
        .await;
    assert_eq!(list.body["subscriptions"][0], a.body);

    // Ended, once.
    let ended = app
        .post_json(
            &format!("/v1/subscriptions/{id}/end"),
            Some(&token),
            &json!({}),
        )
        .await;
    assert_eq!(ended.status, 200, "{}", ended.text);
    assert_eq!(ended.body["status"], "ended");
    assert!(ended.body["ended_at"].is_string() && ended.body["purge_after"].is_string());
    assert!(ended.body["next_run_at"].is_null());
    let twice = app
        .post_json(
            &format!("/v1/subscriptions/{id}/end"),
            Some(&token),
            &json!({}),
        )
        .await;
    assert_eq!(
        (twice.status, twice.error_code()),
        (409, "subscription_ended")
    );
    let list = app
        .get("/v1/subscriptions?status=active", Some(&token))
        .await;
    assert_eq!(list.body["subscriptions"], json!([]));

    // A new subscription after the end: a fresh one.
    let fresh = subscribe(
        &app,
        &token,
        json!({"subject_id": company, "kind": "company", "legal_basis": "contract"}),
    )
    .await;
    assert_eq!(fresh.status, 201, "{}", fresh.text);
    assert_eq!(
        (
            fresh.body["check_days"].clone(),
            fresh.body["full_refresh_days"].clone()
        ),
        (json!(1), json!(30))
    );
    assert_ne!(fresh.body["subscription_id"], id.as_str());

    // The lifecycle in the log, in order, under the subject.
    let log = app
        .get("/v1/events?types=subscription.*", Some(&token))
        .await;
    let types: Vec<&str> = log.body["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "subscription.created",
            "subscription.ended",
            "subscription.created"
        ]
    );
    let first = &log.body["events"][0];
    assert_eq!(first["subject_id"], company.as_str());
    assert_eq!(first["data"]["subscription_id"], id.as_str());
    assert_eq!(first["country"], "SE");
    assert_eq!(first["tenant_id"], c.tenant_id);
}

#[tokio::test(flavor = "multi_thread")]
async fn every_refusal_of_the_create_row() {
    let app = TestApp::spawn().await;
    let (c, token) = setup(&app).await;
    let company = subject(&app, &token, "orgnr", TEST_AB).await;
    let person = subject(&app, &token, "personnummer", persons::ORDINARY).await;
    // A synthetic exceptional personal code (`9`, no date part): nobody's.
    let lt_person = subject(&app, &token, "asmens-kodas", "lt:90000000009").await;

    for (body, status, code) in [
        (
            json!({"subject_id": company, "kind": "company", "legal_basis": "because"}),
            400,
            "legal_basis_invalid",
        ),
        (
            json!({"subject_id": company, "kind": "company"}),
            400,
            "bad_request",
        ),
        (
            json!({"subject_id": company, "kind": "robot", "legal_basis": "consent"}),
            400,
            "bad_request",
        ),
        (
            json!({"subject_id": company, "kind": "company", "legal_basis": "consent", "check_days": 0}),
            400,
            "bad_request",
        ),
        (
            json!({"subject_id": company, "kind": "company", "legal_basis": "consent", "check_days": 10, "full_refresh_days": 5}),
            400,
            "bad_request",
        ),
        (
            json!({"subject_id": company, "kind": "person", "legal_basis": "consent"}),
            400,
            "bad_request",
        ),
        (
            json!({"subject_id": "01JZZZZZZZZZZZZZZZZZZZZZZZ", "kind": "company", "legal_basis": "consent"}),
            404,
            "not_found",
        ),
        (
            json!({"subject_id": lt_person, "kind": "person", "legal_basis": "consent"}),
            501,
            "country_not_supported",
        ),
        // A person subscription needs the permit.
        (
            json!({"subject_id": person, "kind": "person", "legal_basis": "aml_cdd"}),
            403,
            "personreg_permit_required",
        ),
    ] {
        let a = subscribe(&app, &token, body.clone()).await;
        assert_eq!(
            (a.status, a.error_code()),
            (status, code),
            "{body}: {}",
            a.text
        );
    }
    // With the permit, a person subscription is made; suspended, it is refused again.
    set_permit(&app, &c, -1, 30, "suspended").await;
    let a = subscribe(
        &app,
        &token,
        json!({"subject_id": person, "kind": "person", "legal_basis": "aml_cdd"}),
    )
    .await;
    assert_eq!(a.error_code(), "personreg_permit_suspended");
    set_permit(&app, &c, -1, 30, "active").await;
    let a = subscribe(
        &app,
        &token,
        json!({"subject_id": person, "kind": "person", "legal_basis": "aml_cdd"}),
    )
    .await;
    assert_eq!(a.status, 201, "{}", a.text);

    // Scopes: reading is not subscribing.
    let reader = app.grant(&c.tenant_id, "monitoring:read", "SE").await;
    let reader = app.token(&reader).await;
    let a = subscribe(
        &app,
        &reader,
        json!({"subject_id": company, "kind": "company", "legal_basis": "consent"}),
    )
    .await;
    assert_eq!((a.status, a.error_code()), (403, "forbidden"));
    // Nothing refused was created.
    assert_eq!(
        app.db
            .count("subscriptions", &format!("tenant_id = '{}'", c.tenant_id))
            .await,
        1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_creates_make_one_subscription() {
    let app = TestApp::spawn().await;
    let (_, token) = setup(&app).await;
    let company = subject(&app, &token, "orgnr", TEST_AB).await;
    let body = json!({"subject_id": company, "kind": "company", "legal_basis": "aml_cdd"});
    let answers = futures_util::future::join_all(
        (0..8)
            .map(|_| subscribe(&app, &token, body.clone()))
            .collect::<Vec<_>>(),
    )
    .await;
    let statuses: Vec<u16> = answers.iter().map(|a| a.status).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 409).count(),
        7,
        "{statuses:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn reads_follow_the_kind_the_scope_opens_and_mcp_answers_alike() {
    let app = TestApp::spawn().await;
    let (c, token) = setup(&app).await;
    set_permit(&app, &c, -1, 30, "active").await;
    let company = subject(&app, &token, "orgnr", TEST_AB).await;
    let person = subject(&app, &token, "personnummer", persons::ORDINARY).await;
    let co = subscribe(
        &app,
        &token,
        json!({"subject_id": company, "kind": "company", "legal_basis": "aml_cdd"}),
    )
    .await;
    let pe = subscribe(
        &app,
        &token,
        json!({"subject_id": person, "kind": "person", "legal_basis": "aml_cdd"}),
    )
    .await;
    let (co_id, pe_id) = (
        co.body["subscription_id"].as_str().unwrap().to_owned(),
        pe.body["subscription_id"].as_str().unwrap().to_owned(),
    );

    let kyb = app.grant(&c.tenant_id, "kyb:read", "SE").await;
    let kyb = app.token(&kyb).await;
    let kyc = app.grant(&c.tenant_id, "kyc:read", "SE").await;
    let kyc = app.token(&kyc).await;
    let get = |t: &str, id: &str| {
        let (app, t, id) = (&app, t.to_owned(), id.to_owned());
        async move {
            app.get(&format!("/v1/subscriptions/{id}"), Some(&t))
                .await
                .status
        }
    };
    assert_eq!(get(&kyb, &co_id).await, 200);
    assert_eq!(get(&kyb, &pe_id).await, 404);
    assert_eq!(get(&kyc, &pe_id).await, 200);
    assert_eq!(get(&kyc, &co_id).await, 404);
    let kinds = |body: &Value| -> Vec<String> {
        body["subscriptions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["kind"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        kinds(&app.get("/v1/subscriptions", Some(&kyb)).await.body),
        ["company"]
    );
    assert_eq!(
        kinds(&app.get("/v1/subscriptions", Some(&kyc)).await.body),
        ["person"]
    );
    assert_eq!(
        kinds(&app.get("/v1/subscriptions", Some(&token)).await.body),
        ["person", "company"]
    );
    let bad = app
        .get("/v1/subscriptions?status=paused", Some(&token))
        .await;
    assert_eq!((bad.status, bad.error_code()), (400, "bad_request"));

    // MCP: the same bodies; the write tools refused without monitoring:subscribe.
    let rest = app
        .get(&format!("/v1/subscriptions/{co_id}"), Some(&token))
        .await;
    let result = call_tool(&app, &token, "get_subscription", json!({"id": co_id})).await;
    assert_eq!(result["content"][1]["text"], rest.text.as_str());
    let listed = call_tool(&app, &token, "list_subscriptions", json!({"limit": 1})).await;
    let body: Value = serde_json::from_str(listed["content"][1]["text"].as_str().unwrap()).unwrap();
    assert_eq!(body["subscriptions"].as_array().unwrap().len(), 1);
    let refused = call_tool(
        &app,
        &kyb,
        "end_subscription",
        json!({"subscription_id": co_id}),
    )
    .await;
    assert_eq!(tool_error(&refused), "forbidden");
    let ended = call_tool(
        &app,
        &token,
        "end_subscription",
        json!({"subscription_id": co_id}),
    )
    .await;
    assert_eq!(ended["isError"], false, "{ended}");
    assert_eq!(ended["structuredContent"]["status"], "ended");
    let again = call_tool(
        &app,
        &token,
        "end_subscription",
        json!({"subscription_id": co_id}),
    )
    .await;
    assert_eq!(tool_error(&again), "subscription_ended");
    let made = call_tool(
        &app,
        &token,
        "subscribe_monitoring",
        json!({"subject_id": company, "kind": "company", "legal_basis": "contract"}),
    )
    .await;
    assert_eq!(made["isError"], false, "{made}");
    assert_eq!(made["structuredContent"]["status"], "active");
    let bad_basis = call_tool(
        &app,
        &token,
        "subscribe_monitoring",
        json!({"subject_id": company, "kind": "company", "legal_basis": "vibes"}),
    )
    .await;
    assert_eq!(tool_error(&bad_basis), "legal_basis_invalid");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_withdrawn_country_suspends_and_its_return_resumes() {
    let app = TestApp::spawn().await;
    // A Lithuanian tenant also provisioned for Sweden, watching a Swedish company.
    let tenant = app
        .admin(&[
            "tenant",
            "create",
            "--name",
            "UAB Testas",
            "--country",
            "LT",
            "--provision",
            "LT,SE",
            "--activate",
        ])
        .await
        .unwrap();
    let tenant_id = tenant["tenant_id"].as_str().unwrap().to_owned();
    let c = app.grant(&tenant_id, ALL, "SE,LT").await;
    let token = app.token(&c).await;
    let company = subject(&app, &token, "orgnr", TEST_AB).await;
    let sub = subscribe(
        &app,
        &token,
        json!({"subject_id": company, "kind": "company", "legal_basis": "contract"}),
    )
    .await;
    assert_eq!(sub.status, 201, "{}", sub.text);
    let id = sub.body["subscription_id"].as_str().unwrap().to_owned();

    // Sweden withdrawn (the grant narrowed first, as the operator must).
    app.admin(&["grant", "update", &c.grant_id, "--countries", "LT"])
        .await
        .unwrap();
    app.admin(&["tenant", "countries", &tenant_id, "--provision", "LT"])
        .await
        .unwrap();
    let row = app
        .db
        .rows(&format!(
            "SELECT status, suspension_reason, next_run_at FROM subscriptions \
             WHERE subscription_id = '{id}'"
        ))
        .await;
    assert_eq!(row[0]["status"], "suspended");
    assert_eq!(row[0]["suspension_reason"], "country_deprovisioned");
    assert!(row[0]["next_run_at"].is_null());

    // Restored: active again, due at once; the log tells both moves.
    app.admin(&["tenant", "countries", &tenant_id, "--provision", "LT,SE"])
        .await
        .unwrap();
    app.admin(&["grant", "update", &c.grant_id, "--countries", "SE,LT"])
        .await
        .unwrap();
    let token = app.token(&c).await;
    let got = app
        .get(&format!("/v1/subscriptions/{id}"), Some(&token))
        .await;
    assert_eq!(got.status, 200, "{}", got.text);
    assert_eq!(got.body["status"], "active");
    assert!(got.body["suspension_reason"].is_null() && got.body["next_run_at"].is_string());
    let log = app
        .get("/v1/events?types=subscription.*", Some(&token))
        .await;
    let events = log.body["events"].as_array().unwrap();
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "subscription.created",
            "subscription.suspended",
            "subscription.resumed"
        ]
    );
    assert_eq!(events[1]["data"]["reason"], "country_deprovisioned");
    assert_eq!(events[1]["country"], "SE");
}
