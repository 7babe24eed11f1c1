//! Norway as a new user sees it, from the sandbox's Enhetsregisteret over real HTTP: a
//! company profile over REST and MCP (byte for byte alike) with its evidence, SN activity
//! codes and VAT registration; the subject its `organisasjonsnummer` resolves to; officers
//! free of the paid budget; beneficial owners 501; a deleted company, a withdrawn one (whose
//! kept copies go) and an unknown one; monitoring whose status and name changes are events
//! under `NO`; and screening of a Norwegian company subject.

use crate::mcp::call_tool;
use crate::screening::{checked, ready};
use blackbox::{Consumer, TestApp};
use chrono::Duration;
use serde_json::{json, Value};

/// A recorded real entity the sandbox serves byte for byte (Equinor ASA).
const RECORDED: &str = "923609016";

const SCOPES: &str = "kyb:read kyb:refresh monitoring:subscribe monitoring:read events:read";

async fn setup(app: &TestApp, scopes: &str) -> (Consumer, String) {
    let c = app.provision(scopes, "NO", "SE,NO").await;
    let token = app.token(&c).await;
    (c, token)
}

fn company(n: &str) -> String {
    format!("/v1/companies/no:{n}")
}

/// The sandbox register's control routes (`/control/plugins/no-brreg/...`).
fn control(app: &TestApp, path: &str) -> String {
    let base = app.app.sandbox.as_ref().expect("the sandbox").control_url();
    format!("{base}/plugins/no-brreg/{path}")
}

/// The numbers of the sandbox register's entities of each kind.
async fn handy(app: &TestApp) -> Value {
    reqwest::get(control(app, "handy"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// A scripted change of an entity (its name, its status).
async fn change(app: &TestApp, orgnr: &str, body: Value) {
    let r = reqwest::Client::new()
        .post(control(app, &format!("companies/{orgnr}")))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{:?}", r.text().await);
}

fn n(v: &Value, key: &str) -> String {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key}"))
        .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_norwegian_profile_with_evidence_in_the_shared_shape() {
    let app = TestApp::spawn().await;
    let (c, token) = setup(&app, SCOPES).await;
    let a = app.get(&company(RECORDED), Some(&token)).await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert_eq!(a.body["stale"], false);
    let d = &a.body["data"];
    assert_eq!(d["country"], "NO");
    assert_eq!(d["orgnr"], RECORDED);
    assert_eq!(d["name"], "EQUINOR ASA");
    assert_eq!(d["legal_form"], "ASA");
    assert_eq!(d["status"], "active");
    assert!(d["registered_at"].is_string());
    assert_eq!(d["address"]["country"], "NO");
    assert_eq!(d["address"]["city"], "STAVANGER");
    // Norway's classification is not SNI: `sni` is empty, and checked.
    assert_eq!(d["sni"], json!([]));
    let codes = d["activity_codes"].as_array().unwrap();
    assert!(!codes.is_empty());
    assert!(codes.iter().all(|c| c["scheme"] == "SN"), "{codes:?}");
    assert!(d["employees_band"].is_string(), "the register counts them");
    // VAT is the one registration the register reports; Sweden's triple is not served.
    assert!(d["tax"].is_null());
    let registrations = d["tax_registrations"].as_array().unwrap();
    assert_eq!(registrations.len(), 1, "{registrations:?}");
    assert_eq!(registrations[0]["kind"], "vat");
    assert_eq!(registrations[0]["registered"], true);
    assert_eq!(registrations[0]["evidence"], d["evidence"]);
    assert_eq!(d["unchecked"], json!(["latest_annual_report"]));
    assert!(d["latest_annual_report"].is_null());
    let e = &d["evidence"];
    assert_eq!(e["source"], "companyreg.enhetsregisteret");
    assert_eq!(e["call_ref"], e["transaction_ref"]);
    assert!(e["digest"].as_str().unwrap().starts_with("sha256:"));
    assert_eq!(
        e["schema_version"],
        "application/vnd.brreg.enhetsregisteret.enhet.v2+json"
    );
    assert_eq!(d["tenant_id"], c.tenant_id);

    // The subject the profile created is the one its number resolves to.
    let r = app
        .resolve(
            &token,
            "organisasjonsnummer",
            &format!("no:{RECORDED}"),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body["subject_id"], d["subject_id"]);
    let s = app
        .get(
            &format!("/v1/subjects/{}", n(d, "subject_id")),
            Some(&token),
        )
        .await;
    assert_eq!(s.status, 200, "{}", s.text);
    assert_eq!(s.body["identifiers"][0]["type"], "organisasjonsnummer");
    assert_eq!(s.body["identifiers"][0]["country"], "NO");

    // The same answer over MCP, byte for byte.
    let result = call_tool(
        &app,
        &token,
        "get_company_profile",
        json!({"orgnr": format!("no:{RECORDED}")}),
    )
    .await;
    assert_eq!(result["isError"], false, "{result}");
    let again = app.get(&company(RECORDED), Some(&token)).await;
    assert_eq!(result["content"][1]["text"], again.text.as_str());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_check_digit_or_a_grant_without_norway_is_refused() {
    let app = TestApp::spawn().await;
    let (_, token) = setup(&app, SCOPES).await;
    let bad = app.get(&company("923609017"), Some(&token)).await;
    assert_eq!((bad.status, bad.error_code()), (400, "invalid_identifier"));
    assert!(!bad.text.contains("923609017"), "{}", bad.text);
    let sweden_only = app.provision("kyb:read", "SE", "SE,NO").await;
    let token = app.token(&sweden_only).await;
    let a = app.get(&company(RECORDED), Some(&token)).await;
    assert_eq!(a.status, 403, "{}", a.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn officers_come_free_over_rest_and_mcp_and_owners_stay_501() {
    let app = TestApp::spawn().await;
    let (c, token) = setup(&app, "kyb:read").await;
    // No paid call in the budget at all: Norway's roles do not spend it.
    app.admin(&["budget", "set", &c.tenant_id, "--daily-paid", "0"])
        .await
        .expect("budget set");
    let h = handy(&app).await;
    let orgnr = n(&h, "active_as");
    let a = app
        .get(&format!("{}/officers", company(&orgnr)), Some(&token))
        .await;
    assert_eq!(a.status, 200, "{}", a.text);
    let d = &a.body["data"];
    assert_eq!(d["orgnr"], orgnr.as_str());
    assert_eq!(d["country"], "NO");
    assert!(d["signatory_rule_text"].is_null());
    assert_eq!(d["evidence"]["source"], "companyreg.enhetsregisteret");
    let officers = d["officers"].as_array().unwrap();
    let codes: Vec<&str> = officers
        .iter()
        .map(|o| o["role_code"].as_str().unwrap())
        .collect();
    for role in ["DAGL", "LEDE", "REVI"] {
        assert!(codes.contains(&role), "{role} in {codes:?}");
    }
    assert!(officers.iter().all(|o| o["personal_number_ref"].is_null()));
    let signatories = app
        .get(&format!("{}/signatories", company(&orgnr)), Some(&token))
        .await;
    assert_eq!(signatories.status, 200, "{}", signatories.text);
    assert_eq!(signatories.body["data"]["officers"], d["officers"]);

    let tool = call_tool(
        &app,
        &token,
        "get_officers",
        json!({"orgnr": format!("no:{orgnr}")}),
    )
    .await;
    assert_eq!(tool["isError"], false, "{tool}");
    assert_eq!(tool["structuredContent"]["data"]["officers"], d["officers"]);

    let usage = app.get("/v1/usage", Some(&token)).await;
    assert_eq!(
        usage.body["paid_calls"]["on_demand"]["used"], 0,
        "{}",
        usage.text
    );

    let owners = app
        .get(
            &format!("{}/beneficial-owners", company(&orgnr)),
            Some(&token),
        )
        .await;
    assert_eq!(
        (owners.status, owners.error_code()),
        (501, "country_not_supported"),
        "{}",
        owners.text
    );
    assert!(
        owners
            .text
            .contains("for NO: its officers come from an open register"),
        "{}",
        owners.text
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn deleted_withdrawn_and_unknown_companies() {
    let app = TestApp::spawn().await;
    let (c, token) = setup(&app, SCOPES).await;
    let h = handy(&app).await;
    let deleted = app.get(&company(&n(&h, "deleted")), Some(&token)).await;
    assert_eq!(deleted.status, 200, "{}", deleted.text);
    assert_eq!(deleted.body["data"]["status"], "deregistered");
    assert_eq!(
        deleted.body["data"]["unchecked"],
        json!(["employees_band", "latest_annual_report", "sni", "tax"])
    );
    let unknown = app.get(&company(&n(&h, "unknown")), Some(&token)).await;
    assert_eq!((unknown.status, unknown.error_code()), (404, "not_found"));
    let gone = app.get(&company(&n(&h, "gone")), Some(&token)).await;
    assert_eq!((gone.status, gone.error_code()), (404, "not_found"));

    // A company this tenant kept is withdrawn: past the window the register's 410 drops the
    // copy, so it is never served stale, even when the register fails afterwards.
    let kept = n(&h, "active_asa");
    let first = app.get(&company(&kept), Some(&token)).await;
    assert_eq!(first.status, 200, "{}", first.text);
    change(&app, &kept, json!({"status": "gone"})).await;
    app.clock.advance(Duration::hours(25));
    let token = app.token(&c).await;
    let now_gone = app.get(&company(&kept), Some(&token)).await;
    assert_eq!((now_gone.status, now_gone.error_code()), (404, "not_found"));
    app.sandbox()
        .inject_fault(
            upstream_sandbox::Source::Plugin("no-brreg"),
            upstream_sandbox::FaultSpec::http_5xx(503),
        )
        .unwrap();
    let after = app.get(&company(&kept), Some(&token)).await;
    assert_eq!(
        (after.status, after.error_code()),
        (503, "upstream_unavailable"),
        "nothing kept to serve stale: {}",
        after.text
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_monitored_norwegian_company_whose_status_and_name_move() {
    let app = TestApp::spawn().await;
    let (c, token) = setup(&app, SCOPES).await;
    let orgnr = n(&handy(&app).await, "active_as");
    let refreshed = app
        .post_json(
            &format!("{}/refresh", company(&orgnr)),
            Some(&token),
            &json!({}),
        )
        .await;
    assert_eq!(refreshed.status, 200, "{}", refreshed.text);
    let subject = n(&refreshed.body["data"], "subject_id");
    let s = app
        .post_json(
            "/v1/subscriptions",
            Some(&token),
            &json!({"subject_id": subject, "kind": "company", "legal_basis": "aml_cdd",
                    "check_days": 1}),
        )
        .await;
    assert_eq!(s.status, 201, "{}", s.text);
    assert_eq!(s.body["country"], "NO");
    let id = n(&s.body, "subscription_id");
    assert_eq!(app.run_scheduler().await.checked, 1, "the baseline");
    // The baseline is a full reading of the free register's officers: it spends no scheduled
    // paid call.
    let usage = app.get("/v1/usage", Some(&token)).await;
    assert_eq!(
        usage.body["paid_calls"]["scheduled"]["used"], 0,
        "{}",
        usage.text
    );

    change(
        &app,
        &orgnr,
        json!({"name": "OMDØPT SYNTETISK AS", "status": "bankrupt"}),
    )
    .await;
    app.clock.advance(Duration::hours(25));
    let token = app.token(&c).await;
    assert_eq!(app.run_scheduler().await.checked, 1);
    let events = app.get("/v1/events?limit=100", Some(&token)).await;
    assert_eq!(events.status, 200, "{}", events.text);
    let mine: Vec<&Value> = events.body["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["data"]["subscription_id"] == id.as_str())
        .collect();
    let of = |t: &str| -> Vec<&&Value> { mine.iter().filter(|e| e["type"] == t).collect() };
    let status = of("company.status.changed");
    assert_eq!(status.len(), 1, "{mine:?}");
    assert_eq!(status[0]["country"], "NO");
    assert_eq!(status[0]["data"]["new"], "bankruptcy");
    assert_eq!(
        status[0]["evidence"]["source"],
        "companyreg.enhetsregisteret"
    );
    let changed = of("company.changed");
    assert_eq!(changed.len(), 1, "{mine:?}");
    let fields: Vec<&str> = changed[0]["data"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert!(fields.contains(&"name"), "{fields:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_norwegian_company_subject_is_screened_under_the_registers_name() {
    let (app, _, _) = ready().await;
    let c = app
        .provision("kyb:read screening:run screening:read", "NO", "SE,NO")
        .await;
    let token = app.token(&c).await;
    let r = app
        .resolve(
            &token,
            "organisasjonsnummer",
            &format!("no:{RECORDED}"),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let subject = n(&r.body, "subject_id");
    let check = checked(&app, &token, json!({"subject_id": subject})).await;
    let input = &check.body["input_snapshot"];
    assert_eq!(input["name"], "EQUINOR ASA");
    assert_eq!(input["country"], "NO");
    assert_eq!(check.body["input_verified"], true);
}
