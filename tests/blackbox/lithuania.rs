//! Lithuania as a new user sees it: company profiles from Registrų centras' open register
//! over REST and MCP (byte for byte alike), with evidence, the subject they create, stale
//! serving and 503, refresh, monitoring by light checks and screening of a Lithuanian company
//! subject; and every capability the open data cannot give still 501.

use crate::mcp::call_tool;
use crate::screening::{checked, ready};
use blackbox::{Consumer, TestApp};
use chrono::Duration;
use serde_json::{json, Value};
use upstream_sandbox::{FaultSpec, LtPatch, Source};

/// A company of the sandbox's Lithuanian register (a public company, no legal status).
const AB: &str = "lt:110443493";
/// A code the register does not hold.
const UNKNOWN: &str = "lt:999999999";

const SCOPES: &str = "kyb:read kyb:refresh monitoring:subscribe monitoring:read events:read";

async fn setup(app: &TestApp) -> (Consumer, String) {
    let c = app.provision(SCOPES, "LT", "SE,LT").await;
    let token = app.token(&c).await;
    (c, token)
}

fn company(code: &str) -> String {
    format!("/v1/companies/{code}")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lithuanian_profile_with_evidence_its_subject_and_the_unchecked_groups() {
    let app = TestApp::spawn().await;
    let (c, token) = setup(&app).await;
    let a = app.get(&company(AB), Some(&token)).await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert_eq!(a.body["stale"], false);
    let d = &a.body["data"];
    assert_eq!(d["country"], "LT");
    assert_eq!(d["orgnr"], "110443493");
    assert_eq!(d["name"], "Akcinė bendrovė \"Smėlio dėžė\"");
    assert_eq!(d["legal_form"], "Akcinė bendrovė");
    assert_eq!(d["status"], "active");
    assert_eq!(d["registered_at"], "1991-06-14");
    assert_eq!(
        d["address"],
        json!({"street": "Testų g. 1", "postal_code": null, "city": "Vilnius", "country": "LT"})
    );
    // What the open register has no source for is empty and named, never served as checked.
    assert_eq!(
        d["unchecked"],
        json!(["employees_band", "latest_annual_report", "sni", "tax"])
    );
    assert!(d["tax"].is_null() && d["employees_band"].is_null());
    assert!(d["latest_annual_report"].is_null());
    assert_eq!(d["sni"], json!([]));
    assert_eq!(d["activity_codes"], json!([]));
    assert_eq!(d["tax_registrations"], json!([]));
    let e = &d["evidence"];
    assert_eq!(e["source"], "companyreg.jar-atviri-duomenys");
    assert_eq!(e["call_ref"], e["transaction_ref"]);
    assert!(e["digest"].as_str().unwrap().starts_with("sha256:"));
    assert!(e["upstream_ref"].is_string(), "the record's revision");
    assert_eq!(d["tenant_id"], c.tenant_id);

    // The first sight created the subject, evidenced by that register call.
    let subject_id = d["subject_id"].as_str().unwrap();
    let s = app
        .get(&format!("/v1/subjects/{subject_id}"), Some(&token))
        .await;
    assert_eq!(s.status, 200, "{}", s.text);
    assert_eq!(s.body["kind"], "company");
    assert_eq!(s.body["identifiers"][0]["type"], "imones-kodas");
    assert_eq!(s.body["identifiers"][0]["country"], "LT");
    assert_eq!(s.body["evidence"]["call_ref"], e["call_ref"]);
    let r = app.resolve(&token, "imones-kodas", AB, None).await;
    assert_eq!(r.body["subject_id"], subject_id);

    // Within the window the cache answers: no second register call.
    let calls = app.sandbox().calls_for(Source::Lt).len();
    let again = app.get(&company(AB), Some(&token)).await;
    assert_eq!(again.text, a.text);
    assert_eq!(app.sandbox().calls_for(Source::Lt).len(), calls);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_tool_answers_the_routes_body_byte_for_byte() {
    let app = TestApp::spawn().await;
    let (_, token) = setup(&app).await;
    let rest = app.get(&company(AB), Some(&token)).await;
    assert_eq!(rest.status, 200, "{}", rest.text);
    let result = call_tool(&app, &token, "get_company_profile", json!({"orgnr": AB})).await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["content"][1]["text"], rest.text.as_str());
    assert_eq!(result["structuredContent"]["data"], rest.body["data"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn stale_past_the_window_503_with_nothing_cached_404_for_an_unknown_code() {
    let app = TestApp::spawn().await;
    let (c, token) = setup(&app).await;
    let unknown = app.get(&company(UNKNOWN), Some(&token)).await;
    assert_eq!((unknown.status, unknown.error_code()), (404, "not_found"));

    app.sandbox()
        .inject_fault(Source::Lt, FaultSpec::http_5xx(503))
        .unwrap();
    let none = app.get(&company(AB), Some(&token)).await;
    assert_eq!(
        (none.status, none.error_code()),
        (503, "upstream_unavailable")
    );
    app.sandbox().clear_fault(Source::Lt);
    let fresh = app.get(&company(AB), Some(&token)).await;
    assert_eq!(fresh.status, 200, "{}", fresh.text);

    app.clock.advance(Duration::hours(25));
    let token = app.token(&c).await;
    app.sandbox()
        .inject_fault(Source::Lt, FaultSpec::malformed())
        .unwrap();
    let stale = app.get(&company(AB), Some(&token)).await;
    assert_eq!(stale.status, 200, "{}", stale.text);
    assert_eq!(stale.body["stale"], true);
    assert_eq!(stale.body["data"], fresh.body["data"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn what_the_open_data_cannot_give_stays_501() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read kyc:read", "LT", "SE,LT").await;
    let token = app.token(&c).await;
    for path in ["officers", "signatories", "beneficial-owners"] {
        let a = app
            .get(&format!("{}/{path}", company(AB)), Some(&token))
            .await;
        assert_eq!(
            (a.status, a.error_code()),
            (501, "country_not_supported"),
            "{path}: {}",
            a.text
        );
    }
    // Filings are Swedish only: a grant without Sweden cannot read any.
    let doc = app.get("/v1/documents/any-id", Some(&token)).await;
    assert_eq!(doc.status, 403, "{}", doc.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refresh_and_a_monitored_company_whose_register_entry_moves() {
    let app = TestApp::spawn().await;
    let (c, token) = setup(&app).await;
    let refreshed = app
        .post_json(
            &format!("{}/refresh", company(AB)),
            Some(&token),
            &json!({}),
        )
        .await;
    assert_eq!(refreshed.status, 200, "{}", refreshed.text);
    assert_eq!(refreshed.body["data"]["country"], "LT");
    let subject = refreshed.body["data"]["subject_id"]
        .as_str()
        .unwrap()
        .to_owned();

    let s = app
        .post_json(
            "/v1/subscriptions",
            Some(&token),
            &json!({"subject_id": subject, "kind": "company", "legal_basis": "aml_cdd",
                    "check_days": 1}),
        )
        .await;
    assert_eq!(s.status, 201, "{}", s.text);
    assert_eq!(s.body["country"], "LT");
    let id = s.body["subscription_id"].as_str().unwrap().to_owned();
    // The first run takes the baseline.
    assert_eq!(app.run_scheduler().await.checked, 1);

    // The register puts the company into liquidation; the next light check logs it once.
    app.sandbox()
        .patch_lt_company(
            110443493,
            &LtPatch {
                statusas: Some(7),
                ..LtPatch::default()
            },
        )
        .unwrap();
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
    let status: Vec<&&Value> = mine
        .iter()
        .filter(|e| e["type"] == "company.status.changed")
        .collect();
    assert_eq!(status.len(), 1, "{mine:?}");
    assert_eq!(status[0]["country"], "LT");
    assert_eq!(status[0]["data"]["new"], "liquidation");
    assert_eq!(
        status[0]["evidence"]["source"],
        "companyreg.jar-atviri-duomenys"
    );
    // Nothing the register cannot say is reported as a change.
    assert!(
        mine.iter().all(|e| e["type"] != "company.changed"),
        "{mine:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lithuanian_company_subject_is_screened_under_the_registers_name() {
    let (app, _, _) = ready().await;
    let c = app
        .provision("kyb:read screening:run screening:read", "LT", "SE,LT")
        .await;
    let token = app.token(&c).await;
    let r = app.resolve(&token, "imones-kodas", AB, None).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let subject = r.body["subject_id"].as_str().unwrap().to_owned();
    let check = checked(&app, &token, json!({"subject_id": subject})).await;
    assert_eq!(check.body["subject_id"], subject.as_str());
    let input = &check.body["input_snapshot"];
    assert_eq!(input["name"], "Akcinė bendrovė \"Smėlio dėžė\"");
    assert_eq!(input["country"], "LT");
    assert_eq!(check.body["input_verified"], true);
}
