//! Person data from SPAR over the real connector and the sandbox's mutual-TLS SOAP service:
//! every marker state through REST and MCP, the permit gate walked with the sandbox's call
//! log read, the person-lookup ceiling under concurrency, never stale, and bad input.

use crate::mcp::call_tool;
use blackbox::{Consumer, TestApp};
use chrono::Duration;
use serde_json::{json, Value};
use upstream_sandbox::spar::persons;
use upstream_sandbox::{FaultSpec, Source};

/// A tenant with `scopes` over SE (and LT provisioned and granted), its permit in force.
pub(crate) async fn with_permit(app: &TestApp, scopes: &str) -> (Consumer, String) {
    let c = app.provision(scopes, "SE,LT", "SE,LT").await;
    set_permit(app, &c, -30, 365, "active").await;
    let token = app.token(&c).await;
    (c, token)
}

/// Records a new permit valid from `from` to `to` days around today: the service's day
/// (Stockholm's), which between 23:00 and 01:00 UTC is not UTC's.
pub(crate) async fn set_permit(app: &TestApp, c: &Consumer, from: i64, to: i64, status: &str) {
    let today = domain::companies::budget::BudgetCalendar::default().day(app.clock_now());
    app.admin(&[
        "permit",
        "set",
        &c.tenant_id,
        "--valid-from",
        &(today + Duration::days(from)).to_string(),
        "--valid-to",
        &(today + Duration::days(to)).to_string(),
        "--status",
        status,
    ])
    .await
    .expect("permit set");
}

/// The identifier type of a 12-digit number.
pub(crate) fn id_type(n: &str) -> &'static str {
    if n[6..8].parse::<u32>().unwrap() > 60 {
        "samordningsnummer"
    } else {
        "personnummer"
    }
}

/// Resolves a person's number; their `identifier_ref`.
pub(crate) async fn person_ref(app: &TestApp, token: &str, n: &str) -> String {
    let dashed = format!("{}-{}", &n[..8], &n[8..]);
    let r = app.resolve(token, id_type(n), &dashed, None).await;
    assert_eq!(r.status, 200, "{}", r.text);
    r.body["identifier_ref"].as_str().unwrap().to_owned()
}

/// The error code of an `isError` tool result (from `content[1]`, the API's error body).
pub(crate) fn tool_error(result: &Value) -> String {
    assert_eq!(result["isError"], true, "{result}");
    let body: Value = serde_json::from_str(result["content"][1]["text"].as_str().unwrap()).unwrap();
    body["error"].as_str().unwrap().to_owned()
}

fn path(r: &str) -> String {
    format!("/v1/persons/{r}")
}

fn spar_calls(app: &TestApp) -> usize {
    app.sandbox().calls_for(Source::Personsokning).len()
}

fn no_address(d: &Value) {
    assert!(d["address"].is_null(), "{d}");
    assert!(d["foreign_address"].is_null(), "{d}");
    assert!(d["special_postal_address"].is_null(), "{d}");
    let f = &d["folkbokforing"];
    assert!(f["county_code"].is_null() && f["municipality_code"].is_null());
    assert!(f["residence"].is_null());
}

#[tokio::test(flavor = "multi_thread")]
async fn every_marker_state_through_rest_and_mcp() {
    let app = TestApp::spawn().await;
    let (c, token) = with_permit(&app, "kyc:read").await;

    // An ordinary person (recorded): every field, evidence, never stale.
    let r = person_ref(&app, &token, persons::ORDINARY).await;
    let a = app.get(&path(&r), Some(&token)).await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert_eq!(a.body["stale"], false);
    let d = &a.body["data"];
    assert_eq!(d["person_ref"], r.as_str());
    assert_eq!(d["tenant_id"], c.tenant_id);
    assert_eq!(d["country"], "SE");
    assert_eq!(d["schema_version"], "1.6.0");
    assert_eq!(
        d["names"],
        json!({"given_name": "Christina Birgitta Ulrika", "middle_name": "Thomeaus",
               "surname": "Efternamn3542", "notification_name": "Efternamn3542, Christina Birgitta",
               "calling_name": "Birgitta"})
    );
    assert_eq!(d["birth_date"], "1957-04-13");
    assert_eq!(
        d["folkbokforing"],
        json!({"registered_at": "2003-01-01", "residence": "Skriven på adressen",
               "county_code": "01", "municipality_code": "0180"})
    );
    assert_eq!(
        d["address"],
        json!({"street": "Gatan142 8", "postal_code": "11146", "city": "STOCKHOLM",
               "country": "SE", "care_of": null, "extra_line": null})
    );
    assert!(d["foreign_address"].is_null() && d["special_postal_address"].is_null());
    assert_eq!(
        d["markers"],
        json!({"protected": "none", "protected_since": null, "deceased_date": null, "emigrated_date": null})
    );
    assert_eq!(d["latest_change_at"], "2019-12-02");
    let e = &d["evidence"];
    assert_eq!(e["source"], "personreg.personsokning");
    assert_eq!(e["call_ref"], e["transaction_ref"]);
    assert!(e["digest"].as_str().unwrap().starts_with("sha256:"));
    assert!(e["upstream_ref"].is_string());
    assert!(!a.text.contains(persons::ORDINARY) && !a.text.contains(&persons::ORDINARY[2..]));

    // The same through MCP: get_person_profile answers the REST body byte for byte (cached).
    let calls = spar_calls(&app);
    let result = call_tool(&app, &token, "get_person_profile", json!({"ref": r})).await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["content"][1]["text"], a.text.as_str());
    assert_eq!(spar_calls(&app), calls, "served from the tenant's cache");

    // Protected persons: the marker is the data.
    for (n, marker, since) in [
        (persons::PROTECTED_RECORDED, "skyddad", "2010-02-02"),
        (persons::SEKRETESS, "sekretess", "2021-06-01"),
        (persons::SKYDDAD, "skyddad", "2019-09-09"),
        (persons::EMIGRATED_PROTECTED, "sekretess", "2020-02-02"),
    ] {
        let r = person_ref(&app, &token, n).await;
        let a = app.get(&path(&r), Some(&token)).await;
        assert_eq!(a.status, 200, "{n}: {}", a.text);
        let d = &a.body["data"];
        assert_eq!(d["markers"]["protected"], marker, "{n}");
        assert_eq!(d["markers"]["protected_since"], since, "{n}");
        no_address(d);
        for text in persons::PROTECTED_ADDRESS_TEXTS {
            assert!(!a.text.contains(text), "{n}: {text}");
        }
    }
    // The recorded protected person has no name either.
    let r = person_ref(&app, &token, persons::PROTECTED_RECORDED).await;
    let a = app.get(&path(&r), Some(&token)).await;
    assert!(a.body["data"]["names"]["surname"].is_null());

    // Emigrated without a marker: the foreign address and the date.
    let r = person_ref(&app, &token, persons::EMIGRATED).await;
    let d = app.get(&path(&r), Some(&token)).await.body["data"].clone();
    assert_eq!(d["markers"]["emigrated_date"], "2022-05-17");
    assert_eq!(
        d["foreign_address"],
        json!({"line_1": "Strandvejen 10", "line_2": "2100 København Ø", "line_3": null,
               "country_name": "DANMARK", "care_of": null})
    );
    assert!(d["address"].is_null());
    let r = person_ref(&app, &token, persons::EMIGRATED_RECORDED).await;
    let d = app.get(&path(&r), Some(&token)).await.body["data"].clone();
    assert_eq!(d["foreign_address"]["country_name"], "STORBRITTANIEN");
    assert_eq!(d["markers"]["emigrated_date"], "2019-11-25");

    // Deceased: the date as far as the register knows it.
    let r = person_ref(&app, &token, persons::DECEASED).await;
    let d = app.get(&path(&r), Some(&token)).await.body["data"].clone();
    assert_eq!(d["markers"]["deceased_date"], "2023-10");
    let r = person_ref(&app, &token, persons::DECEASED_RECORDED).await;
    let d = app.get(&path(&r), Some(&token)).await.body["data"].clone();
    assert_eq!(d["markers"]["deceased_date"], "2019-11-25");
    assert_eq!(d["address"]["care_of"], "CO-NAMN");

    // A special postal address: in Sweden, and abroad for a person who has not emigrated
    // (which is never a foreign address).
    let r = person_ref(&app, &token, persons::SPECIAL_POSTAL).await;
    let d = app.get(&path(&r), Some(&token)).await.body["data"].clone();
    assert_eq!(d["special_postal_address"]["line_2"], "Box 123");
    assert_eq!(d["address"]["extra_line"], "LGH 1102");
    assert_eq!(d["names"]["calling_name"], "Per-Olof");
    let r = person_ref(&app, &token, persons::SPECIAL_POSTAL_RECORDED).await;
    let d = app.get(&path(&r), Some(&token)).await.body["data"].clone();
    assert_eq!(d["special_postal_address"]["country_name"], "MONACO");
    assert!(d["foreign_address"].is_null());

    // Coordination numbers, resolved as such (MCP lookup_person creates the subject).
    for n in [persons::COORDINATION, persons::COORDINATION_RECORDED] {
        let dashed = format!("{}-{}", &n[..8], &n[8..]);
        let result = call_tool(
            &app,
            &token,
            "lookup_person",
            json!({"identifier": dashed, "type": "samordningsnummer"}),
        )
        .await;
        assert_eq!(result["isError"], false, "{result}");
        let text = result["content"][1]["text"].as_str().unwrap();
        assert!(
            !text.contains(n) && !text.contains(&n[2..]),
            "no raw number"
        );
        let body: Value = serde_json::from_str(text).unwrap();
        let r = body["subject"]["identifier_ref"].as_str().unwrap();
        assert_eq!(body["person"]["data"]["person_ref"], r);
        assert_eq!(body["person"]["stale"], false);
        // The same subject as a REST resolve finds.
        assert_eq!(person_ref(&app, &token, n).await, r);
        assert!(result["structuredContent"]["summary"]
            .as_str()
            .unwrap()
            .starts_with("Person idr_"));
    }

    // lookup_person for a protected person: no address in any part of the result.
    let result = call_tool(
        &app,
        &token,
        "lookup_person",
        json!({"identifier": persons::SKYDDAD, "type": "personnummer"}),
    )
    .await;
    let text = result.to_string();
    for t in persons::PROTECTED_ADDRESS_TEXTS {
        assert!(!text.contains(t), "{t}");
    }
    assert!(!text.contains(persons::SKYDDAD));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_permit_gate_comes_before_the_cache_and_the_register() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyc:read", "SE", "SE").await;
    let token = app.token(&c).await;
    let r = person_ref(&app, &token, persons::ORDINARY).await;
    let subjects_before = app
        .db
        .count("subjects", &format!("tenant_id = '{}'", c.tenant_id))
        .await;

    let refused = |a: &blackbox::Answer, code: &str| {
        assert_eq!(a.status, 403, "{}", a.text);
        assert_eq!(a.error_code(), code);
    };
    // No permit; not yet valid; past validity: required. Suspended: suspended.
    for (from, to, status, code) in [
        (None, None, "", "personreg_permit_required"),
        (Some(1), Some(30), "active", "personreg_permit_required"),
        (Some(-60), Some(-1), "active", "personreg_permit_required"),
        (
            Some(-30),
            Some(30),
            "suspended",
            "personreg_permit_suspended",
        ),
    ] {
        if let (Some(from), Some(to)) = (from, to) {
            set_permit(&app, &c, from, to, status).await;
        }
        let calls = spar_calls(&app);
        refused(&app.get(&path(&r), Some(&token)).await, code);
        let result = call_tool(&app, &token, "get_person_profile", json!({"ref": r})).await;
        assert_eq!(tool_error(&result), code);
        let result = call_tool(
            &app,
            &token,
            "lookup_person",
            json!({"identifier": persons::SEKRETESS, "type": "personnummer"}),
        )
        .await;
        assert_eq!(tool_error(&result), code);
        assert_eq!(spar_calls(&app), calls, "no register call when refused");
    }
    // lookup_person created nothing while refused.
    assert_eq!(
        app.db
            .count("subjects", &format!("tenant_id = '{}'", c.tenant_id))
            .await,
        subjects_before
    );

    // Reinstated: a new permit row; the register is asked once, then the cache serves.
    set_permit(&app, &c, -30, 30, "active").await;
    let calls = spar_calls(&app);
    assert_eq!(app.get(&path(&r), Some(&token)).await.status, 200);
    assert_eq!(app.get(&path(&r), Some(&token)).await.status, 200);
    assert_eq!(spar_calls(&app), calls + 1);
    assert_eq!(
        app.db
            .count("permits", &format!("tenant_id = '{}'", c.tenant_id))
            .await,
        4,
        "the permit history is append-only"
    );
    // Suspended again: the cached profile is not served either.
    set_permit(&app, &c, -30, 30, "suspended").await;
    refused(
        &app.get(&path(&r), Some(&token)).await,
        "personreg_permit_suspended",
    );
    // The refusals are audited under the route template, with their code.
    let rows = app
        .db
        .rows(&format!(
            "SELECT route, error_code FROM audit_log WHERE tenant_id = '{}' \
             AND error_code = 'personreg_permit_suspended' AND route = '/v1/persons/{{ref}}'",
            c.tenant_id
        ))
        .await;
    assert!(rows.len() >= 2, "{rows:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_person_ceiling_holds_under_concurrent_requests() {
    let app = TestApp::spawn().await;
    let (c, token) = with_permit(&app, "kyc:read kyb:read").await;
    app.admin(&["budget", "set", &c.tenant_id, "--person-ceiling", "3"])
        .await
        .unwrap();
    // Eight distinct persons (official test numbers), resolved first (no register call).
    let numbers: Vec<&str> = persons::RECORDED
        .iter()
        .chain(&[persons::SEKRETESS])
        .copied()
        .collect();
    let mut refs = Vec::new();
    for n in &numbers {
        refs.push(person_ref(&app, &token, n).await);
    }
    let calls = spar_calls(&app);
    let paths: Vec<String> = refs.iter().map(|r| path(r)).collect();
    let answers = futures_util::future::join_all(
        paths
            .iter()
            .map(|p| app.get(p, Some(&token)))
            .collect::<Vec<_>>(),
    )
    .await;
    let ok = answers.iter().filter(|a| a.status == 200).count();
    let spent = answers
        .iter()
        .filter(|a| a.status == 429 && a.error_code() == "budget_exceeded")
        .count();
    assert_eq!((ok, spent), (3, 5), "{answers:?}");
    assert_eq!(spar_calls(&app) - calls, 3, "never past the ceiling");
    // A cached profile is still served (no lookup needed).
    let served: Vec<&String> = refs
        .iter()
        .zip(&answers)
        .filter(|(_, a)| a.status == 200)
        .map(|(r, _)| r)
        .collect();
    assert_eq!(app.get(&path(served[0]), Some(&token)).await.status, 200);
    // The ceiling is apart from the paid company budget.
    let st = app.admin(&["budget", "show", &c.tenant_id]).await.unwrap();
    assert_eq!(
        st["person_lookups"],
        json!({"ceiling": 3, "used": 3, "remaining": 0})
    );
    assert_eq!(st["on_demand"]["used"], 0);
    assert_eq!(
        app.get("/v1/companies/5560021361", Some(&token))
            .await
            .status,
        200
    );
    // Tomorrow (Stockholm time) the ceiling renews.
    app.clock.advance(Duration::days(1));
    let token = app.token(&c).await;
    let a = app.get(&path(&refs[7]), Some(&token)).await;
    assert_eq!(a.status, 200, "{}", a.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lapsed_profile_is_never_served_stale() {
    let app = TestApp::spawn().await;
    let (c, token) = with_permit(&app, "kyc:read").await;
    let r = person_ref(&app, &token, persons::ORDINARY).await;
    let first = app.get(&path(&r), Some(&token)).await;
    assert_eq!(first.status, 200);

    // Within the window the cache serves, whatever the register does.
    app.sandbox()
        .inject_fault(Source::Personsokning, FaultSpec::http_5xx(503))
        .unwrap();
    let cached = app.get(&path(&r), Some(&token)).await;
    assert_eq!(cached.status, 200);
    assert_eq!(cached.body, first.body);

    // Past it the register is asked; when it fails: 503, never the old value.
    app.clock.advance(Duration::hours(25));
    let token = app.token(&c).await;
    let a = app.get(&path(&r), Some(&token)).await;
    assert_eq!(a.status, 503, "{}", a.text);
    assert_eq!(a.error_code(), "upstream_unavailable");
    assert!(!a.text.contains("Efternamn3542"));
    app.sandbox().clear_fault(Source::Personsokning);

    // Every in-band failure of SPAR is 503 too, and nothing is cached from it.
    for fault in [
        FaultSpec::field_fel("UNDANTAG", None),
        FaultSpec::field_fel("SOAP_FAULT", None),
        FaultSpec::field_fel("OVERSTIGER_MAX", None),
        FaultSpec::field_fel("ANNAN_PERSON", None),
        FaultSpec::malformed(),
        FaultSpec::timeout(),
    ] {
        app.sandbox()
            .inject_fault(Source::Personsokning, fault.clone().times(1))
            .unwrap();
        let a = app.get(&path(&r), Some(&token)).await;
        assert_eq!(a.status, 503, "{fault:?}: {}", a.text);
        assert_eq!(a.error_code(), "upstream_unavailable");
    }
    // The register answers again: a fresh profile, with a new call behind it.
    let again = app.get(&path(&r), Some(&token)).await;
    assert_eq!(again.status, 200, "{}", again.text);
    assert_eq!(again.body["stale"], false);
    assert_ne!(
        again.body["data"]["evidence"]["call_ref"],
        first.body["data"]["evidence"]["call_ref"]
    );
    // No answer about another person was stored: the profile is the one asked for.
    assert_eq!(again.body["data"]["names"]["surname"], "Efternamn3542");
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_and_the_wrong_things_are_refused_clearly() {
    let app = TestApp::spawn().await;
    let (_, token) = with_permit(&app, "kyc:read kyb:read").await;

    // A malformed ref, a raw number in its place: 400, never echoed.
    for bad in ["nonsense", persons::ORDINARY, "idr_0000"] {
        let a = app.get(&path(bad), Some(&token)).await;
        assert_eq!(a.status, 400, "{bad}: {}", a.text);
        assert_eq!(a.error_code(), "invalid_identifier");
        assert!(!a.text.contains(persons::ORDINARY));
    }
    // An unknown ref and a company's ref: 404.
    let unknown = "idr_01JZZZZZZZZZZZZZZZZZZZZZZZ";
    assert_eq!(app.get(&path(unknown), Some(&token)).await.status, 404);
    let company = app.resolve(&token, "orgnr", "5560021361", None).await;
    let company_ref = company.body["identifier_ref"].as_str().unwrap();
    assert_eq!(app.get(&path(company_ref), Some(&token)).await.status, 404);
    // A person the register does not hold (a synthetic number in the test range): 404.
    let r = person_ref(&app, &token, "197001019814").await;
    let a = app.get(&path(&r), Some(&token)).await;
    assert_eq!(a.status, 404, "{}", a.text);
    // A Lithuanian person: 501.
    let lt = app
        .resolve(&token, "asmens-kodas", "lt:39001010000", None)
        .await;
    assert_eq!(lt.status, 200, "{}", lt.text);
    let lt_ref = lt.body["identifier_ref"].as_str().unwrap();
    let a = app.get(&path(lt_ref), Some(&token)).await;
    assert_eq!(a.status, 501, "{}", a.text);
    assert_eq!(a.error_code(), "country_not_supported");
    let result = call_tool(
        &app,
        &token,
        "lookup_person",
        json!({"identifier": "lt:33309240064", "type": "asmens-kodas"}),
    )
    .await;
    assert_eq!(tool_error(&result), "country_not_supported");
    // kyb:read alone never opens person data.
    let (_, kyb) = with_permit(&app, "kyb:read").await;
    let a = app.get(&path(&r), Some(&kyb)).await;
    assert_eq!((a.status, a.error_code()), (403, "forbidden"));

    // lookup_person: a malformed number, a company's type, a Lithuanian code.
    let result = call_tool(
        &app,
        &token,
        "lookup_person",
        json!({"identifier": "19570413-3107", "type": "personnummer"}),
    )
    .await;
    assert_eq!(tool_error(&result), "invalid_identifier");
    assert!(!result.to_string().contains("3107"));
    let result = call_tool(
        &app,
        &token,
        "lookup_person",
        json!({"identifier": "5560021361", "type": "orgnr"}),
    )
    .await;
    assert_eq!(tool_error(&result), "bad_request");
    // A personal number on a company route stays refused.
    let a = app
        .get(
            &format!("/v1/companies/{}", persons::ORDINARY),
            Some(&token),
        )
        .await;
    assert_eq!(a.status, 400);
    assert!(!a.text.contains(persons::ORDINARY));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lookup_writes_the_tool_row_beside_its_two_route_rows() {
    let app = TestApp::spawn().await;
    let (c, token) = with_permit(&app, "kyc:read").await;
    let result = call_tool(
        &app,
        &token,
        "lookup_person",
        json!({"identifier": persons::ORDINARY, "type": "personnummer"}),
    )
    .await;
    assert_eq!(result["isError"], false, "{result}");
    let rows = app
        .db
        .rows(&format!(
            "SELECT surface, action, route, tool, status FROM audit_log \
             WHERE grant_id = '{}' AND route <> '/oauth/token' ORDER BY occurred_at, audit_id",
            c.grant_id
        ))
        .await;
    let mut seen: Vec<(String, String)> = rows
        .iter()
        .map(|r| {
            (
                r["action"].as_str().unwrap().to_owned(),
                r["tool"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            ("GET /v1/persons/{ref}".to_owned(), String::new()),
            ("POST /v1/subjects/resolve".to_owned(), String::new()),
            ("mcp.tool_call".to_owned(), "lookup_person".to_owned()),
        ]
    );
    assert!(rows
        .iter()
        .all(|r| r["surface"] == "mcp" && r["status"] == 200));
    // No row names the number.
    assert!(!serde_json::to_string(&rows)
        .unwrap()
        .contains(persons::ORDINARY));
}
