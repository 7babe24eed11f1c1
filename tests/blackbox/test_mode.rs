//! Test-mode keys: a test grant lives on the tenant's test twin (its own data), its
//! credentials and every answer say `test`, it is served by the sandbox registers and never
//! by a live one, live and test never read each other's subjects, events or checks, the live
//! budget is never spent by it, and the operator wipes its data.

use crate::screening::{ready, LISTED_BIRTH, LISTED_NAME};
use blackbox::{Answer, Consumer, TestApp};
use serde_json::{json, Value};

const SCOPES: &str =
    "kyb:read kyb:refresh events:read monitoring:subscribe monitoring:read screening:run screening:read";
const TEST_AB: &str = "5560021361";

/// A test-mode grant of `tenant_id` over `countries`, made by the operator command.
async fn test_grant(app: &TestApp, tenant_id: &str, countries: &str) -> (Consumer, Value) {
    app.test_grant(tenant_id, SCOPES, countries).await
}

fn is_test(a: &Answer) -> bool {
    a.headers.get("idreg-mode").is_some_and(|v| v == "test")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_test_grant_is_served_apart_from_live_data_and_wiped_by_the_operator() {
    let (app, _, _) = ready().await;
    let live = app.provision(SCOPES, "SE", "SE").await;
    let (test, grant) = test_grant(&app, &live.tenant_id, "SE").await;
    // Visibly distinct credentials, on a tenant of their own.
    assert!(test.client_id.starts_with("cid_test_"), "{grant}");
    assert!(test.client_secret.starts_with("cs_test_"));
    assert_eq!(grant["mode"], "test");
    assert_eq!(
        grant["owner"], "operator",
        "the operator's command provisions on paper terms"
    );
    assert_ne!(test.tenant_id, live.tenant_id);
    let shown = app
        .admin(&["tenant", "show", &live.tenant_id])
        .await
        .unwrap();
    assert_eq!(shown["mode"], "live");
    assert_eq!(shown["test_tenant_id"], test.tenant_id.as_str());
    // A second test grant lands on the same twin.
    let (again, _) = test_grant(&app, &live.tenant_id, "SE").await;
    assert_eq!(again.tenant_id, test.tenant_id);

    // The token response says which mode, and so does every test answer.
    let test_token = app
        .request_token(&test.client_id, &test.client_secret)
        .await;
    assert_eq!(test_token.body["mode"], "test");
    assert!(is_test(&test_token));
    let live_token = app
        .request_token(&live.client_id, &live.client_secret)
        .await;
    assert_eq!(live_token.body["mode"], "live");
    assert!(!is_test(&live_token));
    let (tt, lt) = (
        test_token.body["access_token"].as_str().unwrap().to_owned(),
        live_token.body["access_token"].as_str().unwrap().to_owned(),
    );

    // The same company resolved in each mode is two subjects, each invisible to the other.
    let ts = app.resolve(&tt, "orgnr", TEST_AB, Some("c-1")).await;
    assert_eq!(ts.status, 200, "{}", ts.text);
    assert!(is_test(&ts));
    let ls = app.resolve(&lt, "orgnr", TEST_AB, Some("c-1")).await;
    assert!(!is_test(&ls));
    let (test_subject, live_subject) = (
        ts.body["subject_id"].as_str().unwrap().to_owned(),
        ls.body["subject_id"].as_str().unwrap().to_owned(),
    );
    assert_ne!(test_subject, live_subject);
    assert_eq!(
        app.get(&format!("/v1/subjects/{test_subject}"), Some(&lt))
            .await
            .status,
        404
    );
    assert_eq!(
        app.get(&format!("/v1/subjects/{live_subject}"), Some(&tt))
            .await
            .status,
        404
    );
    let profile = app
        .get(&format!("/v1/companies/{TEST_AB}"), Some(&tt))
        .await;
    assert_eq!(profile.status, 200);
    assert!(is_test(&profile));
    // An error answer to a test caller says so too.
    let missing = app
        .get("/v1/subjects/01ARZ3NDEKTSV4RRFFQ69G5FAV", Some(&tt))
        .await;
    assert_eq!(missing.status, 404);
    assert!(is_test(&missing));

    // Events: a test subscription's events are in the test log only.
    let sub = app
        .post_json(
            "/v1/subscriptions",
            Some(&tt),
            &json!({"subject_id": test_subject, "kind": "company", "legal_basis": "aml_cdd"}),
        )
        .await;
    assert_eq!(sub.status, 201, "{}", sub.text);
    let test_events = app.get("/v1/events?cursor=0", Some(&tt)).await;
    assert!(!test_events.body["events"].as_array().unwrap().is_empty());
    let live_events = app.get("/v1/events?cursor=0", Some(&lt)).await;
    assert!(live_events.body["events"].as_array().unwrap().is_empty());

    // Checks: a test check is not the live tenant's.
    let check = app
        .post_json(
            "/v1/screening/checks",
            Some(&tt),
            &json!({"name": LISTED_NAME, "birth_date": LISTED_BIRTH}),
        )
        .await;
    assert_eq!(check.status, 201, "{}", check.text);
    let check_id = check.body["id"].as_str().unwrap();
    assert_eq!(
        app.get(&format!("/v1/screening/checks/{check_id}"), Some(&lt))
            .await
            .status,
        404
    );
    let live_checks = app.get("/v1/screening/checks", Some(&lt)).await;
    assert!(live_checks.body["checks"].as_array().unwrap().is_empty());

    // The paid tier in test mode never spends the live budget.
    let officers = app
        .get(&format!("/v1/companies/{TEST_AB}/officers"), Some(&tt))
        .await;
    assert_eq!(officers.status, 200, "{}", officers.text);
    let live_usage = app.get("/v1/usage", Some(&lt)).await;
    assert_eq!(live_usage.body["paid_calls"]["on_demand"]["used"], 0);
    let test_usage = app.get("/v1/usage", Some(&tt)).await;
    assert!(
        test_usage.body["paid_calls"]["on_demand"]["used"]
            .as_i64()
            .unwrap()
            >= 1
    );

    // MCP answers to a test token are marked too.
    let mcp = app
        .http
        .post(app.url("/mcp"))
        .bearer_auth(&tt)
        .header("accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    assert_eq!(mcp.headers()["idreg-mode"], "test");

    // The operator wipes the test data: the live tenant's stays, the test grant still works.
    let wiped = app
        .admin(&["tenant", "wipe-test", &live.tenant_id])
        .await
        .expect("wipe-test");
    assert_eq!(wiped["test_tenant_id"], test.tenant_id.as_str());
    assert!(wiped["rows_deleted"].as_i64().unwrap() > 0);
    // Every table holding tenant data (read off the catalog, so a table added later is
    // covered) has nothing of the twin left; what stays is its account, its counters and its
    // audit trail, and its grants with their credentials.
    const KEPT: [&str; 9] = [
        "tenants",
        "permits",
        "grants",
        "client_credentials",
        "audit_log",
        "access_log",
        "paid_call_budget",
        "person_lookups",
        "event_counters",
    ];
    let catalog = match app.db.kind() {
        blackbox::store::StoreKind::Postgres => {
            "SELECT table_name AS name FROM information_schema.columns \
             WHERE column_name = 'tenant_id' AND table_schema = 'public'"
        }
        blackbox::store::StoreKind::Sqlite => {
            "SELECT m.name AS name FROM sqlite_schema m, pragma_table_info(m.name) p \
             WHERE m.type = 'table' AND p.name = 'tenant_id'"
        }
    };
    let tables: Vec<String> = app
        .db
        .rows(catalog)
        .await
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .filter(|t| !KEPT.contains(&t.as_str()))
        .collect();
    assert!(
        tables.contains(&"screening_checks".to_owned()),
        "{tables:?}"
    );
    for table in &tables {
        assert_eq!(
            app.db
                .count(table, &format!("tenant_id = '{}'", test.tenant_id))
                .await,
            0,
            "{table} keeps the wiped twin's rows"
        );
    }
    assert_eq!(
        app.get(&format!("/v1/subjects/{test_subject}"), Some(&tt))
            .await
            .status,
        404
    );
    assert_eq!(
        app.get(&format!("/v1/subjects/{live_subject}"), Some(&lt))
            .await
            .status,
        200
    );
    let after = app.get("/v1/screening/checks", Some(&tt)).await;
    assert_eq!(after.status, 200);
    assert!(after.body["checks"].as_array().unwrap().is_empty());
    // A live tenant is never wiped: naming one without test data is refused.
    let other = app.provision("kyb:read", "SE", "SE").await;
    let refused = app
        .admin(&["tenant", "wipe-test", &other.tenant_id])
        .await
        .unwrap_err();
    assert_eq!(refused["error"], "not_found");
}

#[tokio::test(flavor = "multi_thread")]
async fn test_mode_is_served_by_the_sandbox_and_never_by_a_live_register() {
    // Live: Lithuania's register at an address nothing answers on, Sweden not configured.
    // Test mode: the sandbox started in process.
    let app = TestApp::spawn_with(|config| {
        config.sandbox = false;
        config.test_mode = true;
        let lt = config.countries.entry("lt").or_default();
        lt.insert("enabled".into(), "on".into());
        lt.insert("open_data_base_url".into(), "http://127.0.0.1:9".into());
        lt.insert("timeout_secs".into(), "1".into());
    })
    .await;
    let live = app.provision("kyb:read", "SE,LT", "SE,LT").await;
    let (test, _) = test_grant(&app, &live.tenant_id, "SE,LT").await;
    let lt = app.token(&live).await;
    let tt = app.token(&test).await;
    let code = "lt:110443493";
    let live_lt = app.get(&format!("/v1/companies/{code}"), Some(&lt)).await;
    assert_eq!(live_lt.status, 503, "the live register: {}", live_lt.text);
    let test_lt = app.get(&format!("/v1/companies/{code}"), Some(&tt)).await;
    assert_eq!(test_lt.status, 200, "the sandbox: {}", test_lt.text);
    assert!(is_test(&test_lt));
    let live_se = app
        .get(&format!("/v1/companies/{TEST_AB}"), Some(&lt))
        .await;
    assert_eq!(
        (live_se.status, live_se.error_code()),
        (501, "country_not_supported")
    );
    let test_se = app
        .get(&format!("/v1/companies/{TEST_AB}"), Some(&tt))
        .await;
    assert_eq!(test_se.status, 200, "{}", test_se.text);
    // Every test-mode call went to the sandbox, which saw the reads.
    assert!(!app.sandbox().calls().is_empty());
}
