//! Subject merges over HTTP and MCP: everything keyed by a subject follows it into the merge.
//! A subscription moves to the canonical subject (a second one for the same kind is refused;
//! when both subjects had one, the `into` subject's survives and the other ends with its
//! event); a forced refresh after a change in the sandbox logs the change under the canonical
//! id; cached profiles and documents name the canonical id and its alias; screening checks made
//! before the merge are listed under either id and name the canonical one. The same bodies
//! come back from the MCP tools.

use crate::mcp::call_tool;
use crate::screening::{checked, consumer, ready};
use blackbox::TestApp;
use serde_json::{json, Value};
use upstream_sandbox::CompanyPatch;

// Two companies of the sandbox registry (Bolagsverket test-environment numbers).
const WITH_REPORTS: &str = "5561890038";
const TEST_AB: &str = "5560021361";
const SCOPES: &str = "kyb:read kyb:refresh monitoring:subscribe monitoring:read events:read";

/// Reads the company (caching it): its subject id.
async fn company_subject(app: &TestApp, token: &str, orgnr: &str) -> String {
    let a = app
        .get(&format!("/v1/companies/{orgnr}"), Some(token))
        .await;
    assert_eq!(a.status, 200, "{}", a.text);
    a.body["data"]["subject_id"].as_str().unwrap().to_owned()
}

async fn subscribe(app: &TestApp, token: &str, subject: &str) -> blackbox::Answer {
    app.post_json(
        "/v1/subscriptions",
        Some(token),
        &json!({"subject_id": subject, "kind": "company", "legal_basis": "aml_cdd"}),
    )
    .await
}

async fn merge(app: &TestApp, tenant: &str, from: &str, into: &str) {
    let merged = app
        .admin(&["subject", "merge", tenant, from, into])
        .await
        .unwrap();
    assert_eq!(merged["subject_id"], into);
}

async fn events(app: &TestApp, token: &str) -> Vec<Value> {
    let a = app.get("/v1/events?limit=1000", Some(token)).await;
    assert_eq!(a.status, 200, "{}", a.text);
    a.body["events"].as_array().unwrap().clone()
}

/// The tool's `content[1]` is the REST body, byte for byte.
async fn tool_is_rest(
    app: &TestApp,
    token: &str,
    tool: &str,
    args: Value,
    rest_path: &str,
) -> Value {
    let rest = app.get(rest_path, Some(token)).await;
    assert_eq!(rest.status, 200, "{}", rest.text);
    let result = call_tool(app, token, tool, args).await;
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        result["content"][1]["text"].as_str().unwrap(),
        rest.text,
        "{tool}: content[1] is the REST body"
    );
    rest.body
}

#[tokio::test(flavor = "multi_thread")]
async fn a_subscription_cached_data_and_documents_follow_their_subject_into_a_merge() {
    let app = TestApp::spawn().await;
    let c = app.provision(SCOPES, "SE", "SE").await;
    let token = app.token(&c).await;
    // A: the company with annual reports, subscribed and with its baseline taken; B: another.
    let a = company_subject(&app, &token, WITH_REPORTS).await;
    let b = company_subject(&app, &token, TEST_AB).await;
    let profile = app
        .get(&format!("/v1/companies/{WITH_REPORTS}"), Some(&token))
        .await;
    let doc = profile.body["data"]["latest_annual_report"]["ref"]
        .as_str()
        .unwrap()
        .to_owned();
    let sub = subscribe(&app, &token, &a).await;
    assert_eq!(sub.status, 201, "{}", sub.text);
    assert_eq!(sub.body["subject_id"], a.as_str());
    assert_eq!(sub.body["aliases"], json!([]));
    assert_eq!(sub.body["tenant_id"], c.tenant_id.as_str());
    assert_eq!(sub.body["schema_version"], "1.6.0");
    let sub_id = sub.body["subscription_id"].as_str().unwrap().to_owned();
    let baseline = app
        .post_json(
            &format!("/v1/companies/{WITH_REPORTS}/refresh"),
            Some(&token),
            &json!({}),
        )
        .await;
    assert_eq!(baseline.body["events_emitted"], 1, "{}", baseline.text);

    merge(&app, &c.tenant_id, &a, &b).await;

    // One active subscription per canonical subject and kind: asked by either id, refused.
    for id in [&a, &b] {
        let again = subscribe(&app, &token, id).await;
        assert_eq!(
            (again.status, again.error_code()),
            (409, "subscription_exists"),
            "{}",
            again.text
        );
    }
    // The subscription names the canonical id and its alias.
    let read = app
        .get(&format!("/v1/subscriptions/{sub_id}"), Some(&token))
        .await;
    assert_eq!(read.status, 200, "{}", read.text);
    assert_eq!(read.body["subject_id"], b.as_str());
    assert_eq!(read.body["aliases"], json!([a]));
    assert_eq!(read.body["status"], "active");
    let list = app.get("/v1/subscriptions", Some(&token)).await;
    assert_eq!(list.body["subscriptions"].as_array().unwrap().len(), 1);
    assert_eq!(list.body["subscriptions"][0], read.body);

    // A change in the register is seen by the forced refresh under the moved subscription.
    app.sandbox()
        .patch_company(
            WITH_REPORTS,
            &CompanyPatch {
                name: Some("Sammanslaget Bolag AB".into()),
                ..CompanyPatch::default()
            },
        )
        .unwrap();
    let moved = app
        .post_json(
            &format!("/v1/companies/{WITH_REPORTS}/refresh"),
            Some(&token),
            &json!({}),
        )
        .await;
    assert_eq!(moved.status, 200, "{}", moved.text);
    assert_eq!(moved.body["events_emitted"], 2, "{}", moved.text);
    assert_eq!(moved.body["data"]["subject_id"], b.as_str());
    assert_eq!(moved.body["data"]["aliases"], json!([a]));
    let log = events(&app, &token).await;
    let changed = log
        .iter()
        .find(|e| e["type"] == "company.changed")
        .expect("the change is logged");
    assert_eq!(changed["subject_id"], b.as_str());
    assert_eq!(changed["aliases"], json!([a]));
    assert_eq!(changed["data"]["subscription_id"], sub_id.as_str());
    // Every event about the subject, before the merge or after it, names the canonical id.
    for e in log.iter().filter(|e| !e["subject_id"].is_null()) {
        assert_eq!(e["subject_id"], b.as_str(), "{e}");
        assert_eq!(e["aliases"], json!([a]), "{e}");
    }
    assert!(log.iter().any(|e| e["type"] == "subject.merged"));

    // Cached data and documents name the canonical id and its alias.
    let cached = app
        .get(&format!("/v1/companies/{WITH_REPORTS}"), Some(&token))
        .await;
    assert_eq!(cached.body["data"]["subject_id"], b.as_str());
    assert_eq!(cached.body["data"]["aliases"], json!([a]));
    let document = app.get(&format!("/v1/documents/{doc}"), Some(&token)).await;
    assert_eq!(document.status, 200, "{}", document.text);
    assert_eq!(document.body["data"]["subject_id"], b.as_str());
    assert_eq!(document.body["data"]["aliases"], json!([a]));
    // Beneath the interface: no row of a mutable table names the alias any more.
    for table in [
        "subscriptions",
        "company_profiles",
        "company_documents",
        "customer_refs",
        "subject_identifiers",
    ] {
        let rows = app
            .db
            .rows(&format!(
                "SELECT 1 AS x FROM {table} WHERE subject_id = '{a}'"
            ))
            .await;
        assert!(rows.is_empty(), "{table} still names the alias");
    }

    // MCP: the same bodies.
    let body = tool_is_rest(
        &app,
        &token,
        "get_subscription",
        json!({"id": sub_id}),
        &format!("/v1/subscriptions/{sub_id}"),
    )
    .await;
    assert_eq!(body["aliases"], json!([a]));
    tool_is_rest(
        &app,
        &token,
        "list_subscriptions",
        json!({}),
        "/v1/subscriptions",
    )
    .await;
    let body = tool_is_rest(
        &app,
        &token,
        "get_subject",
        json!({"id": a}),
        &format!("/v1/subjects/{a}"),
    )
    .await;
    assert_eq!(body["subject_id"], b.as_str());
    let refused = call_tool(
        &app,
        &token,
        "subscribe_monitoring",
        json!({"subject_id": a, "kind": "company", "legal_basis": "aml_cdd"}),
    )
    .await;
    assert_eq!(refused["isError"], true);
    assert!(
        refused["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("subscription_exists:"),
        "{refused}"
    );
    let refreshed = call_tool(
        &app,
        &token,
        "refresh_company",
        json!({"orgnr": WITH_REPORTS}),
    )
    .await;
    assert_ne!(refreshed["isError"], true, "{refreshed}");
    assert_eq!(
        refreshed["structuredContent"]["data"]["subject_id"],
        b.as_str()
    );
    assert_eq!(refreshed["structuredContent"]["events_emitted"], 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn when_both_subjects_had_a_subscription_the_canonical_ones_survives() {
    let app = TestApp::spawn().await;
    let c = app.provision(SCOPES, "SE", "SE").await;
    let token = app.token(&c).await;
    let a = company_subject(&app, &token, WITH_REPORTS).await;
    let b = company_subject(&app, &token, TEST_AB).await;
    let of_a = subscribe(&app, &token, &a).await;
    let of_b = subscribe(&app, &token, &b).await;
    assert_eq!((of_a.status, of_b.status), (201, 201));
    let (id_a, id_b) = (
        of_a.body["subscription_id"].as_str().unwrap().to_owned(),
        of_b.body["subscription_id"].as_str().unwrap().to_owned(),
    );

    merge(&app, &c.tenant_id, &a, &b).await;

    // The `into` subject's subscription survives; the other ended with the merge.
    let survivor = app
        .get(&format!("/v1/subscriptions/{id_b}"), Some(&token))
        .await;
    assert_eq!(survivor.body["status"], "active");
    assert_eq!(survivor.body["aliases"], json!([a]));
    let ended = app
        .get(&format!("/v1/subscriptions/{id_a}"), Some(&token))
        .await;
    assert_eq!(ended.body["status"], "ended", "{}", ended.text);
    assert_eq!(ended.body["subject_id"], b.as_str());
    assert_eq!(ended.body["aliases"], json!([a]));
    assert!(ended.body["ended_at"].is_string());
    assert!(ended.body["purge_after"].is_string());
    assert!(ended.body["next_run_at"].is_null());
    let active = app
        .get("/v1/subscriptions?status=active", Some(&token))
        .await;
    assert_eq!(active.body["subscriptions"].as_array().unwrap().len(), 1);

    // Its end is logged with the reason and the survivor, under the canonical id.
    let log = events(&app, &token).await;
    let end = log
        .iter()
        .find(|e| e["type"] == "subscription.ended")
        .expect("the end is logged");
    assert_eq!(end["data"]["subscription_id"], id_a.as_str());
    assert_eq!(end["data"]["reason"], "subject_merged");
    assert_eq!(end["data"]["surviving_subscription_id"], id_b.as_str());
    assert_eq!(end["subject_id"], b.as_str());
    assert_eq!(end["aliases"], json!([a]));
    let kinds: Vec<&str> = log.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "subscription.created",
            "subscription.created",
            "subject.merged",
            "subscription.ended"
        ]
    );

    // Ending the survivor frees the place: a new one made under the alias is stored under
    // the canonical id.
    let end_b = app
        .post_json(
            &format!("/v1/subscriptions/{id_b}/end"),
            Some(&token),
            &json!({}),
        )
        .await;
    assert_eq!(end_b.status, 200, "{}", end_b.text);
    let fresh = subscribe(&app, &token, &a).await;
    assert_eq!(fresh.status, 201, "{}", fresh.text);
    assert_eq!(fresh.body["subject_id"], b.as_str());
    assert_eq!(fresh.body["aliases"], json!([a]));
}

#[tokio::test(flavor = "multi_thread")]
async fn screening_checks_made_before_a_merge_are_found_under_either_id() {
    let (app, _, _) = ready().await;
    let (c, token) = consumer(&app, "screening:run screening:read kyb:read kyc:read").await;
    let a = app.resolve(&token, "orgnr", WITH_REPORTS, None).await;
    let b = app.resolve(&token, "orgnr", TEST_AB, None).await;
    let (a, b) = (
        a.body["subject_id"].as_str().unwrap().to_owned(),
        b.body["subject_id"].as_str().unwrap().to_owned(),
    );
    let of_a = checked(&app, &token, json!({"subject_id": a})).await;
    let of_b = checked(&app, &token, json!({"subject_id": b})).await;
    assert_eq!(of_a.body["aliases"], json!([]));
    assert_eq!(of_a.body["tenant_id"], c.tenant_id.as_str());
    let (check_a, check_b) = (
        of_a.body["id"].as_str().unwrap().to_owned(),
        of_b.body["id"].as_str().unwrap().to_owned(),
    );

    merge(&app, &c.tenant_id, &a, &b).await;

    // Listed under either id: both checks, newest first, each naming the canonical id.
    for id in [&a, &b] {
        let list = app
            .get(
                &format!("/v1/screening/checks?subject_id={id}"),
                Some(&token),
            )
            .await;
        assert_eq!(list.status, 200, "{}", list.text);
        let checks = list.body["checks"].as_array().unwrap();
        let ids: Vec<&str> = checks.iter().map(|k| k["id"].as_str().unwrap()).collect();
        assert_eq!(ids, [check_b.as_str(), check_a.as_str()], "asked by {id}");
        for k in checks {
            assert_eq!(k["subject_id"], b.as_str());
            assert_eq!(k["aliases"], json!([a]));
        }
    }
    let read = app
        .get(&format!("/v1/screening/checks/{check_a}"), Some(&token))
        .await;
    assert_eq!(read.body["subject_id"], b.as_str());
    assert_eq!(read.body["aliases"], json!([a]));
    // Apart from the subject's names, the check reads as it was made (append-only).
    let mut before = of_a.body.clone();
    before["subject_id"] = json!(b);
    before["aliases"] = json!([a]);
    assert_eq!(read.body, before);
    // A new check under the alias is a check of the canonical subject.
    let after = checked(&app, &token, json!({"subject_id": a})).await;
    assert_eq!(after.body["subject_id"], b.as_str());
    assert_eq!(after.body["aliases"], json!([a]));

    // MCP: the same bodies.
    let body = tool_is_rest(
        &app,
        &token,
        "list_screening_checks",
        json!({"subject_id": a}),
        &format!("/v1/screening/checks?subject_id={a}"),
    )
    .await;
    assert_eq!(body["checks"].as_array().unwrap().len(), 3);
    tool_is_rest(
        &app,
        &token,
        "get_screening_check",
        json!({"id": check_a}),
        &format!("/v1/screening/checks/{check_a}"),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_scheduled_run_after_a_merge_logs_the_change_under_the_canonical_id() {
    let app = TestApp::spawn().await;
    let c = app.provision(SCOPES, "SE", "SE").await;
    let token = app.token(&c).await;
    // A first (its company code is the older one the merged subject holds).
    let a = company_subject(&app, &token, WITH_REPORTS).await;
    let b = company_subject(&app, &token, TEST_AB).await;
    let sub = subscribe(&app, &token, &a).await;
    let sub_id = sub.body["subscription_id"].as_str().unwrap().to_owned();
    let report = app.run_scheduler().await;
    assert_eq!(report.claimed, 1, "the baseline: {report:?}");

    merge(&app, &c.tenant_id, &a, &b).await;
    app.sandbox()
        .patch_company(
            WITH_REPORTS,
            &CompanyPatch {
                name: Some("Schemalagt Omdöpt AB".into()),
                ..CompanyPatch::default()
            },
        )
        .unwrap();
    app.clock.advance(chrono::Duration::days(1));
    let token = app.token(&c).await;
    let report = app.run_scheduler().await;
    assert_eq!((report.claimed, report.checked), (1, 1), "{report:?}");

    let log = events(&app, &token).await;
    let changed: Vec<&Value> = log
        .iter()
        .filter(|e| e["type"] == "company.changed")
        .collect();
    assert_eq!(changed.len(), 1, "{log:?}");
    assert_eq!(changed[0]["data"]["trigger"], "scheduled");
    assert_eq!(changed[0]["data"]["subscription_id"], sub_id.as_str());
    assert_eq!(changed[0]["subject_id"], b.as_str());
    assert_eq!(changed[0]["aliases"], json!([a]));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_person_subscription_and_cached_profile_follow_a_merge() {
    use upstream_sandbox::spar::persons::{COORDINATION_RECORDED, ORDINARY};
    let app = TestApp::spawn().await;
    let (c, token) = crate::persons::with_permit(
        &app,
        "kyb:read kyc:read monitoring:subscribe monitoring:read events:read",
    )
    .await;
    let ref_a = crate::persons::person_ref(&app, &token, COORDINATION_RECORDED).await;
    crate::persons::person_ref(&app, &token, ORDINARY).await;
    let profile = app.get(&format!("/v1/persons/{ref_a}"), Some(&token)).await;
    assert_eq!(profile.status, 200, "{}", profile.text);
    let a = profile.body["data"]["subject_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let b = app
        .resolve(&token, "personnummer", ORDINARY, None)
        .await
        .body["subject_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let sub = app
        .post_json(
            "/v1/subscriptions",
            Some(&token),
            &json!({"subject_id": a, "kind": "person", "legal_basis": "aml_cdd"}),
        )
        .await;
    assert_eq!(sub.status, 201, "{}", sub.text);
    let sub_id = sub.body["subscription_id"].as_str().unwrap().to_owned();

    merge(&app, &c.tenant_id, &a, &b).await;

    let read = app
        .get(&format!("/v1/subscriptions/{sub_id}"), Some(&token))
        .await;
    assert_eq!(read.body["subject_id"], b.as_str());
    assert_eq!(read.body["aliases"], json!([a]));
    let again = app
        .post_json(
            "/v1/subscriptions",
            Some(&token),
            &json!({"subject_id": b, "kind": "person", "legal_basis": "aml_cdd"}),
        )
        .await;
    assert_eq!(
        (again.status, again.error_code()),
        (409, "subscription_exists")
    );
    // The cached profile names the canonical subject; so does the tool.
    let body = tool_is_rest(
        &app,
        &token,
        "get_person_profile",
        json!({"ref": ref_a}),
        &format!("/v1/persons/{ref_a}"),
    )
    .await;
    assert_eq!(body["data"]["subject_id"], b.as_str());
    assert_eq!(body["data"]["aliases"], json!([a]));
    let rows = app
        .db
        .rows(&format!(
            "SELECT 1 AS x FROM person_profiles WHERE subject_id = '{a}'"
        ))
        .await;
    assert!(rows.is_empty(), "the cached profile moved");
}

/// Subscription creates racing a merge, under either id: whatever the interleaving, the
/// canonical subject ends with exactly one unended company subscription, and every create
/// answered 201 is that one or one the merge ended with its event.
#[tokio::test(flavor = "multi_thread")]
async fn creates_racing_a_merge_leave_one_active_subscription() {
    for round in 0..3 {
        let app = TestApp::spawn().await;
        let c = app.provision(SCOPES, "SE", "SE").await;
        let token = app.token(&c).await;
        let a = company_subject(&app, &token, WITH_REPORTS).await;
        let b = company_subject(&app, &token, TEST_AB).await;
        let creates: Vec<_> = (0..12)
            .map(|i| {
                let (http, url, token) = (app.http.clone(), app.url("/v1/subscriptions"), token.clone());
                let subject = if i % 2 == 0 { a.clone() } else { b.clone() };
                tokio::spawn(async move {
                    let r = http
                        .post(url)
                        .bearer_auth(token)
                        .json(&json!({"subject_id": subject, "kind": "company", "legal_basis": "aml_cdd"}))
                        .send()
                        .await
                        .expect("request");
                    let status = r.status().as_u16();
                    (status, r.json::<Value>().await.unwrap_or(Value::Null))
                })
            })
            .collect();
        // The merge lands somewhere among the creates (a different point each round).
        tokio::time::sleep(std::time::Duration::from_millis(5 * round)).await;
        merge(&app, &c.tenant_id, &a, &b).await;
        let mut created = Vec::new();
        for create in creates {
            let (status, body) = create.await.unwrap();
            match status {
                201 => created.push(body["subscription_id"].as_str().unwrap().to_owned()),
                409 => assert_eq!(body["error"], "subscription_exists", "{body}"),
                other => panic!("round {round}: {other} {body}"),
            }
        }
        assert!(
            !created.is_empty() && created.len() <= 2,
            "round {round}: {created:?}"
        );
        let listed = app
            .get("/v1/subscriptions?status=active", Some(&token))
            .await;
        let active = listed.body["subscriptions"].as_array().unwrap();
        assert_eq!(active.len(), 1, "round {round}: {}", listed.text);
        assert_eq!(active[0]["subject_id"], b.as_str());
        assert_eq!(active[0]["aliases"], json!([a]));
        // A second create answered 201 was ended by the merge, with its event.
        for id in created
            .iter()
            .filter(|id| active[0]["subscription_id"] != id.as_str())
        {
            let ended = app
                .get(&format!("/v1/subscriptions/{id}"), Some(&token))
                .await;
            assert_eq!(
                ended.body["status"], "ended",
                "round {round}: {}",
                ended.text
            );
            let logged = events(&app, &token).await;
            assert!(
                logged.iter().any(|e| e["type"] == "subscription.ended"
                    && e["data"]["subscription_id"] == id.as_str()
                    && e["data"]["reason"] == "subject_merged"),
                "round {round}: the merge's end event for {id}"
            );
        }
    }
}

/// A whitelist entry made for the merged-away subject clears its candidate for the canonical
/// subject: before the merge only the subject it was made for is cleared, after it a check
/// under either id is.
#[tokio::test(flavor = "multi_thread")]
async fn a_whitelist_entry_follows_its_subject_into_a_merge() {
    let (app, _, _) = ready().await;
    let (c, token) = consumer(&app, "screening:run screening:read kyb:read").await;
    // One entity known under two numbers: both registered under a name the UN list gives
    // (entity CDe.002).
    for orgnr in [WITH_REPORTS, TEST_AB] {
        app.sandbox()
            .patch_company(
                orgnr,
                &CompanyPatch {
                    name: Some("Butembo Airlines".into()),
                    ..CompanyPatch::default()
                },
            )
            .unwrap();
    }
    let a = company_subject(&app, &token, WITH_REPORTS).await;
    let b = company_subject(&app, &token, TEST_AB).await;
    let candidate = |check: &Value| -> Value {
        check["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["source_id"] == "un_sc" && k["source_entry_id"] == "CDe.002")
            .unwrap_or_else(|| panic!("the listed entity is a candidate: {check}"))
            .clone()
    };
    let before = checked(&app, &token, json!({"subject_id": a})).await;
    assert_eq!(
        candidate(&before.body)["whitelisted"],
        false,
        "{}",
        before.text
    );

    let admin = &app.app.services.screening_admin;
    let entry = admin
        .add_whitelist_entry(domain::screening::admin::NewWhitelistEntry {
            tenant: c.tenant_id.clone(),
            subject_id: Some(a.clone()),
            input_hash: None,
            source_id: "un_sc".into(),
            source_entry_id: "CDe.002".into(),
            reason: "the airline is another entity of the same name".into(),
            created_by: "ops-a".into(),
            expires_at: app.clock_now() + chrono::Duration::days(30),
        })
        .await
        .expect("a whitelist entry");
    admin
        .approve_whitelist_entry(&c.tenant_id, &entry.id.to_string(), "ops-b")
        .await
        .expect("approved by another operator");
    let of_a = checked(&app, &token, json!({"subject_id": a})).await;
    let of_b = checked(&app, &token, json!({"subject_id": b})).await;
    assert_eq!(candidate(&of_a.body)["whitelisted"], true, "{}", of_a.text);
    assert_eq!(candidate(&of_b.body)["whitelisted"], false, "{}", of_b.text);

    merge(&app, &c.tenant_id, &a, &b).await;
    for id in [&a, &b] {
        let after = checked(&app, &token, json!({"subject_id": id})).await;
        assert_eq!(after.body["subject_id"], b.as_str());
        let k = candidate(&after.body);
        assert_eq!(k["whitelisted"], true, "asked by {id}: {}", after.text);
        assert_eq!(k["whitelist_id"], entry.id.to_string().as_str());
    }
}
