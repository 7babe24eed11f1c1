//! The event log over REST and MCP: cursor rules (exact spelling, beyond the newest), pages
//! bounded by the grant's countries and the `types` filter, limits, scopes, and cursors that
//! hold across the tenant's grants. Events are appended through the storage port, as the
//! use cases that emit them do.

use crate::mcp::call_tool;
use crate::persons::tool_error;
use blackbox::{Consumer, TestApp};
use domain::countries::country::Country;
use domain::ids::TenantId;
use serde_json::{json, Value};
use storage_conformance::events::event;

async fn append(app: &TestApp, c: &Consumer, events: &[(&str, &str, Country)]) -> Vec<i64> {
    let tenant: TenantId = c.tenant_id.parse().unwrap();
    let batch: Vec<_> = events
        .iter()
        .map(|(key, t, country)| event(key, t, *country))
        .collect();
    app.app
        .store
        .ports()
        .events
        .append_events(&tenant, &batch)
        .await
        .unwrap()
}

async fn page(app: &TestApp, token: &str, query: &str) -> blackbox::Answer {
    app.get(&format!("/v1/events{query}"), Some(token)).await
}

fn seqs(body: &Value) -> Vec<i64> {
    body["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["seq"].as_i64().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn cursors_pages_and_filters() {
    let app = TestApp::spawn().await;
    let c = app.provision("events:read", "SE,LT", "SE,LT").await;
    let token = app.token(&c).await;

    // An empty log: cursor 0 answers an empty page and 0.
    let a = page(&app, &token, "").await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert_eq!(a.body, json!({"events": [], "next_cursor": 0}));

    append(
        &app,
        &c,
        &[
            ("k1", "company.changed", Country::Se),
            ("k2", "company.status.changed", adapters_lt::identifiers::LT),
            ("k3", "refresh.completed", Country::Se),
            ("k4", "subscription.suspended", Country::Se),
            ("k5", "ubo.changed", Country::Se),
        ],
    )
    .await;

    // Paging by twos.
    let a = page(&app, &token, "?limit=2").await;
    assert_eq!(seqs(&a.body), [1, 2]);
    assert_eq!(a.body["next_cursor"], 2);
    let e = &a.body["events"][0];
    assert_eq!(e["type"], "company.changed");
    assert_eq!(e["country"], "SE");
    assert_eq!(e["tenant_id"], c.tenant_id);
    assert_eq!(e["schema_version"], "1.6.0");
    assert!(e["id"].as_str().unwrap().starts_with("evt_"));
    assert_eq!(e["idempotency_key"], "k1");
    assert_eq!(e["data"], json!({"field": "name", "n": 3}));
    assert_eq!(e["evidence"]["call_ref"], e["evidence"]["transaction_ref"]);
    assert!(e["subject_id"].is_null() && e["ref"].is_null());
    let b = page(&app, &token, "?cursor=2&limit=2").await;
    assert_eq!(seqs(&b.body), [3, 4]);
    let rest = page(&app, &token, "?cursor=4").await;
    assert_eq!(seqs(&rest.body), [5]);
    assert_eq!(rest.body["next_cursor"], 5);

    // Beyond the newest: 200, empty, the same cursor back.
    for cursor in ["5", "6", "1000", "9223372036854775807"] {
        let a = page(&app, &token, &format!("?cursor={cursor}")).await;
        assert_eq!(a.status, 200, "{cursor}: {}", a.text);
        assert_eq!(a.body["events"], json!([]));
        assert_eq!(a.body["next_cursor"].to_string(), cursor);
    }

    // Malformed cursors: 400 invalid_cursor with the recovery.
    for bad in [
        "01",
        "%2B1",
        "1.0",
        "-1",
        "9223372036854775808",
        "abc",
        "",
        "00",
    ] {
        let a = page(&app, &token, &format!("?cursor={bad}")).await;
        assert_eq!(a.status, 400, "{bad}: {}", a.text);
        assert_eq!(a.error_code(), "invalid_cursor");
        assert_eq!(a.body["recovery"], "restart from cursor 0");
    }
    // Bad limits, types and a repeated parameter: 400 bad_request.
    for bad in [
        "?limit=0",
        "?limit=1001",
        "?limit=x",
        "?types=nope",
        "?cursor=1&cursor=2",
    ] {
        let a = page(&app, &token, bad).await;
        assert_eq!((a.status, a.error_code()), (400, "bad_request"), "{bad}");
        assert!(a.body.get("recovery").is_none());
    }

    // Filters: types, and a family.
    let a = page(&app, &token, "?types=ubo.changed,refresh.completed").await;
    assert_eq!(seqs(&a.body), [3, 5]);
    let a = page(&app, &token, "?types=subscription.*").await;
    assert_eq!(seqs(&a.body), [4]);

    // A grant of Sweden only does not see the Lithuanian event; the cursor still advances.
    let se = app.grant(&c.tenant_id, "events:read", "SE").await;
    let se_token = app.token(&se).await;
    let a = page(&app, &se_token, "?cursor=1&limit=1").await;
    assert_eq!(seqs(&a.body), [3]);
    assert_eq!(a.body["next_cursor"], 3);
    // The first grant's cursor works for the second (cursors are the tenant's).
    let a = page(&app, &se_token, "?cursor=4").await;
    assert_eq!(seqs(&a.body), [5]);

    // The scope: kyb:read does not open the log.
    let kyb = app.grant(&c.tenant_id, "kyb:read", "SE").await;
    let kyb_token = app.token(&kyb).await;
    let a = page(&app, &kyb_token, "").await;
    assert_eq!((a.status, a.error_code()), (403, "forbidden"));
}

#[tokio::test(flavor = "multi_thread")]
async fn list_events_and_list_changes_answer_the_route_bodies() {
    let app = TestApp::spawn().await;
    let c = app.provision("events:read", "SE", "SE").await;
    let token = app.token(&c).await;
    append(
        &app,
        &c,
        &[
            ("a", "company.changed", Country::Se),
            ("b", "refresh.completed", Country::Se),
            ("c", "signatory.changed", Country::Se),
        ],
    )
    .await;
    let rest = page(&app, &token, "?cursor=0&limit=2").await;
    let result = call_tool(
        &app,
        &token,
        "list_events",
        json!({"cursor": "0", "limit": 2}),
    )
    .await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["content"][1]["text"], rest.text.as_str());
    assert_eq!(result["structuredContent"]["next_cursor"], 2);
    assert_eq!(
        result["structuredContent"]["summary"],
        "2 events; next_cursor 2"
    );

    let changes = call_tool(&app, &token, "list_changes", json!({})).await;
    let body: Value =
        serde_json::from_str(changes["content"][1]["text"].as_str().unwrap()).unwrap();
    assert_eq!(seqs(&body), [1, 3]);
    assert_eq!(body["next_cursor"], 3);

    let bad = call_tool(&app, &token, "list_events", json!({"cursor": "+1"})).await;
    assert_eq!(tool_error(&bad), "invalid_cursor");
    let text = bad["content"][1]["text"].as_str().unwrap();
    assert!(text.contains("restart from cursor 0"));
}
