//! The forced refresh over REST and MCP: `kyb:refresh` only, never from the cache, metered;
//! a change scripted in the sandbox becomes exactly the change events with the right values
//! under an active subscription, and none without one.

use crate::mcp::call_tool;
use crate::persons::tool_error;
use blackbox::TestApp;
use serde_json::{json, Value};
use upstream_sandbox::{CompanyPatch, CompanyStatus, FaultSpec, Source};

const TEST_AB: &str = "5560021361";
const SCOPES: &str = "kyb:read kyb:refresh monitoring:subscribe events:read";

fn refresh_path(orgnr: &str) -> String {
    format!("/v1/companies/{orgnr}/refresh")
}

async fn log(app: &TestApp, token: &str) -> Vec<Value> {
    let a = app.get("/v1/events?limit=1000", Some(token)).await;
    assert_eq!(a.status, 200, "{}", a.text);
    a.body["events"].as_array().unwrap().clone()
}

fn types(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_scripted_change_becomes_exactly_its_events() {
    let app = TestApp::spawn().await;
    let c = app.provision(SCOPES, "SE", "SE").await;
    let token = app.token(&c).await;

    // The tenant reads the company (the cached reading), then subscribes.
    let first = app
        .get(&format!("/v1/companies/{TEST_AB}"), Some(&token))
        .await;
    assert_eq!(first.status, 200, "{}", first.text);
    let subject = first.body["data"]["subject_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let old_name = first.body["data"]["name"].as_str().unwrap().to_owned();
    let sub = app
        .post_json(
            "/v1/subscriptions",
            Some(&token),
            &json!({"subject_id": subject, "kind": "company", "legal_basis": "aml_cdd"}),
        )
        .await;
    assert_eq!(sub.status, 201, "{}", sub.text);
    let sub_id = sub.body["subscription_id"].as_str().unwrap().to_owned();

    // Nothing moved: only refresh.completed.
    let quiet = app
        .post_json(&refresh_path(TEST_AB), Some(&token), &json!({}))
        .await;
    assert_eq!(quiet.status, 200, "{}", quiet.text);
    assert_eq!(quiet.body["stale"], false);
    assert_eq!(quiet.body["events_emitted"], 1);
    assert_eq!(
        types(&log(&app, &token).await),
        ["subscription.created", "refresh.completed"]
    );

    // The register renames the company and puts it into bankruptcy.
    app.sandbox()
        .patch_company(
            TEST_AB,
            &CompanyPatch {
                name: Some("Omdöpt Testbolag AB".into()),
                status: Some(CompanyStatus::Bankruptcy),
                status_date: Some("2026-11-20".into()),
                ..CompanyPatch::default()
            },
        )
        .unwrap();
    let moved = app
        .post_json(&refresh_path(TEST_AB), Some(&token), &json!({}))
        .await;
    assert_eq!(moved.status, 200, "{}", moved.text);
    assert_eq!(moved.body["data"]["name"], "Omdöpt Testbolag AB");
    assert_eq!(moved.body["data"]["status"], "bankruptcy");
    let events = log(&app, &token).await;
    let new: Vec<&Value> = events.iter().skip(2).collect();
    assert_eq!(
        new.iter()
            .map(|e| e["type"].as_str().unwrap())
            .collect::<Vec<_>>(),
        [
            "company.changed",
            "company.status.changed",
            "refresh.completed"
        ]
    );
    assert_eq!(moved.body["events_emitted"], 3);
    let changed = new[0];
    assert_eq!(changed["subject_id"], subject.as_str());
    assert_eq!(changed["country"], "SE");
    assert_eq!(changed["data"]["trigger"], "on_demand");
    assert_eq!(changed["data"]["subscription_id"], sub_id.as_str());
    let name_change = changed["data"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["field"] == "name")
        .expect("a name change");
    assert_eq!(name_change["old"], old_name.as_str());
    assert_eq!(name_change["new"], "Omdöpt Testbolag AB");
    assert_eq!(new[1]["data"]["old"], "active");
    assert_eq!(new[1]["data"]["new"], "bankruptcy");
    assert_eq!(
        changed["evidence"]["source"],
        "companyreg.vardefulla-datamangder"
    );
    // The same change is not reported twice.
    let again = app
        .post_json(&refresh_path(TEST_AB), Some(&token), &json!({}))
        .await;
    assert_eq!(again.body["events_emitted"], 1);

    // A source that fails is "not checked", never a change.
    app.sandbox()
        .inject_fault(Source::Scb, FaultSpec::http_5xx(503))
        .unwrap();
    let partial = app
        .post_json(&refresh_path(TEST_AB), Some(&token), &json!({}))
        .await;
    assert_eq!(partial.status, 200, "{}", partial.text);
    assert_eq!(partial.body["events_emitted"], 1);
    let events = log(&app, &token).await;
    let completed = events.last().unwrap();
    assert_eq!(completed["type"], "refresh.completed");
    assert!(completed["data"]["not_checked"]
        .as_array()
        .unwrap()
        .contains(&json!("employees_band")));
    app.sandbox().clear_fault(Source::Scb);

    // Ended: the refresh still answers, and logs nothing.
    app.post_json(
        &format!("/v1/subscriptions/{sub_id}/end"),
        Some(&token),
        &json!({}),
    )
    .await;
    let before = log(&app, &token).await.len();
    let after_end = app
        .post_json(&refresh_path(TEST_AB), Some(&token), &json!({}))
        .await;
    assert_eq!(after_end.status, 200);
    assert_eq!(after_end.body["events_emitted"], 0);
    assert_eq!(log(&app, &token).await.len(), before);
}

#[tokio::test(flavor = "multi_thread")]
async fn only_kyb_refresh_opens_it_and_it_is_metered_never_cached() {
    let app = TestApp::spawn().await;
    let c = app.provision(SCOPES, "SE", "SE").await;
    let token = app.token(&c).await;
    let reader = app.grant(&c.tenant_id, "kyb:read", "SE").await;
    let reader = app.token(&reader).await;
    let a = app
        .post_json(&refresh_path(TEST_AB), Some(&reader), &json!({}))
        .await;
    assert_eq!((a.status, a.error_code()), (403, "forbidden"));

    // Without a subscription: the data, no event.
    let a = app
        .post_json(&refresh_path(TEST_AB), Some(&token), &json!({}))
        .await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert_eq!(a.body["events_emitted"], 0);
    assert!(log(&app, &token).await.is_empty());

    // Never from the cache: the register down is 503, although a cached profile exists.
    app.sandbox()
        .inject_fault(Source::Bolagsverket, FaultSpec::http_5xx(503))
        .unwrap();
    let a = app
        .post_json(&refresh_path(TEST_AB), Some(&token), &json!({}))
        .await;
    assert_eq!((a.status, a.error_code()), (503, "upstream_unavailable"));
    app.sandbox().clear_fault(Source::Bolagsverket);

    // Metered: with the budget spent, 429.
    app.admin(&["budget", "set", &c.tenant_id, "--daily-paid", "0"])
        .await
        .unwrap();
    let a = app
        .post_json(&refresh_path(TEST_AB), Some(&token), &json!({}))
        .await;
    assert_eq!(
        (a.status, a.error_code()),
        (429, "budget_exceeded"),
        "{}",
        a.text
    );

    // Bad input: 400, never echoed; a personal number is not a company.
    let a = app
        .post_json(&refresh_path("556002-1362"), Some(&token), &json!({}))
        .await;
    assert_eq!((a.status, a.error_code()), (400, "invalid_identifier"));

    // MCP: the same route.
    app.admin(&["budget", "set", &c.tenant_id, "--daily-paid", "1000"])
        .await
        .unwrap();
    let result = call_tool(&app, &token, "refresh_company", json!({"orgnr": TEST_AB})).await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["structuredContent"]["events_emitted"], 0);
    let refused = call_tool(&app, &reader, "refresh_company", json!({"orgnr": TEST_AB})).await;
    assert_eq!(tool_error(&refused), "forbidden");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_officer_replaced_and_a_new_signatory_rule_become_one_signatory_event() {
    let app = TestApp::spawn().await;
    let c = app.provision(SCOPES, "SE", "SE").await;
    let token = app.token(&c).await;
    let profile = app
        .get(&format!("/v1/companies/{TEST_AB}"), Some(&token))
        .await;
    let subject = profile.body["data"]["subject_id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.post_json(
        "/v1/subscriptions",
        Some(&token),
        &json!({"subject_id": subject, "kind": "company", "legal_basis": "aml_cdd"}),
    )
    .await;
    // The first refresh reads the officers for the first time: the baseline.
    let first = app
        .post_json(&refresh_path(TEST_AB), Some(&token), &json!({}))
        .await;
    assert_eq!(first.body["events_emitted"], 1, "{}", first.text);

    let company = upstream_sandbox::Dataset::standard()
        .company(TEST_AB)
        .unwrap()
        .clone();
    let leaving = company
        .officers
        .iter()
        .find_map(|o| o.identitet.as_ref().map(|i| i.nummer.clone()))
        .expect("an officer with a number");
    // An official test number not among the sandbox's officers.
    let joining = "196202103138";
    app.sandbox()
        .patch_company(
            TEST_AB,
            &CompanyPatch {
                signatory_text: Some("Firman tecknas av styrelsen och av VD var för sig".into()),
                remove_officer: Some(leaving.clone()),
                add_officer: Some(upstream_sandbox::OfficerPatch {
                    fornamn: "Ny".into(),
                    efternamn: "Ledamot".into(),
                    nummer: joining.into(),
                    role: "LE".into(),
                }),
                ..CompanyPatch::default()
            },
        )
        .unwrap();
    let moved = app
        .post_json(&refresh_path(TEST_AB), Some(&token), &json!({}))
        .await;
    assert_eq!(moved.status, 200, "{}", moved.text);
    assert_eq!(moved.body["events_emitted"], 2);
    let events = log(&app, &token).await;
    let signatory: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "signatory.changed")
        .collect();
    assert_eq!(signatory.len(), 1);
    let changes = &signatory[0]["data"]["changes"];
    assert_eq!(
        changes["signatory_rule_text"]["new"],
        "Firman tecknas av styrelsen och av VD var för sig"
    );
    let added = changes["officers_added"].as_array().unwrap();
    assert_eq!(added.len(), 1);
    assert_eq!(added[0]["name"], "Ny Ledamot");
    assert!(added[0]["personal_number_ref"]
        .as_str()
        .unwrap()
        .starts_with("idr_"));
    assert!(!changes["officers_removed"].as_array().unwrap().is_empty());
    assert_eq!(
        signatory[0]["evidence"]["source"],
        "companyreg.foretagsinformation"
    );
    // Persons appear as refs only.
    let text = serde_json::to_string(&events).unwrap();
    for n in [leaving.as_str(), joining] {
        assert!(!text.contains(n) && !text.contains(&n[2..]));
    }
}
