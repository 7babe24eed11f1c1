//! The paid company tier over the real connectors and the in-process sandbox (company
//! information API and the mutual-TLS beneficial-owners API): officers, signatories,
//! beneficial owners, engagements, refs instead of personal numbers, the daily budget under
//! concurrency, stale serving, faults and the tier switched off.

use blackbox::{Consumer, TestApp};
use chrono::Duration;
use serde_json::Value;
use std::collections::BTreeSet;
use upstream_sandbox::data::{OFFICER_PERSONNUMMER, OFFICER_SAMORDNINGSNUMMER};
use upstream_sandbox::{Dataset, FaultSpec, Source};

const TEST_AB: &str = "5560021361";

async fn setup() -> (TestApp, Consumer, String) {
    let app = TestApp::spawn_with_sandbox().await;
    let c = app.provision("kyb:read", "SE,LT", "SE,LT").await;
    let token = app.token(&c).await;
    (app, c, token)
}

fn officers(orgnr: &str) -> String {
    format!("/v1/companies/{orgnr}/officers")
}

fn owners(orgnr: &str) -> String {
    format!("/v1/companies/{orgnr}/beneficial-owners")
}

/// Every personal number the sandbox names as an officer or owner.
fn sandbox_person_numbers() -> Vec<&'static str> {
    OFFICER_PERSONNUMMER
        .iter()
        .chain(OFFICER_SAMORDNINGSNUMMER)
        .copied()
        .collect()
}

/// Companies of the standard data set with officers (and so with an ownership record).
fn companies_with_roles() -> Vec<(String, upstream_sandbox::Company)> {
    Dataset::standard()
        .companies()
        .iter()
        .filter(|c| !c.officers.is_empty())
        .map(|c| (c.id.clone(), c.clone()))
        .collect()
}

fn assert_paid_evidence(d: &Value) {
    let e = &d["evidence"];
    assert_eq!(e["source"], "companyreg.foretagsinformation");
    assert_eq!(e["call_ref"], e["transaction_ref"]);
    assert!(e["digest"].as_str().unwrap().starts_with("sha256:"));
    assert!(e["upstream_ref"].is_string());
    assert_eq!(d["schema_version"], "1.6.0");
    assert_eq!(d["country"], "SE");
}

#[tokio::test(flavor = "multi_thread")]
async fn officers_carry_refs_roles_and_the_signatory_rule() {
    let (app, c, token) = setup().await;
    let a = app.get(&officers(TEST_AB), Some(&token)).await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert_eq!(a.body["stale"], false);
    let d = &a.body["data"];
    assert_eq!(d["orgnr"], TEST_AB);
    assert_eq!(d["tenant_id"], c.tenant_id);
    assert_paid_evidence(d);
    assert!(d["signatory_rule_text"]
        .as_str()
        .unwrap()
        .starts_with("Firman tecknas"));
    let list = d["officers"].as_array().unwrap();
    assert!(list.len() >= 3);
    // The register's people with a Swedish number (not the audit firm) each get a ref.
    let people = Dataset::standard()
        .company(TEST_AB)
        .unwrap()
        .officers
        .iter()
        .filter(|o| {
            o.identitet
                .as_ref()
                .is_some_and(|i| i.typ != "ORGANISATIONSNUMMER")
        })
        .count();
    assert!(
        people >= 2,
        "the sandbox's {TEST_AB} has people with numbers"
    );
    let mut refs = BTreeSet::new();
    for o in list {
        assert!(o["role"].is_string() && o["name"].is_string());
        assert!(o.get("appointed_at").is_some() && o.get("personal_number_ref").is_some());
        if let Some(r) = o["personal_number_ref"].as_str() {
            refs.insert(r.to_owned());
            assert!(r.starts_with("idr_"), "{r}");
            // The ref is a person subject of this tenant.
            let e = app
                .get(&format!("/v1/persons/{r}/engagements"), Some(&token))
                .await;
            assert_eq!(e.status, 200, "{}", e.text);
            assert_eq!(e.body["data"]["person_ref"], r);
            assert!(e.body["data"]["engagements"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x["orgnr"] == TEST_AB));
        }
    }
    assert_eq!(refs.len(), people, "one ref per numbered person: {refs:?}");
    // The audit firm is named without a ref.
    assert!(list
        .iter()
        .any(|o| o["role_code"] == "REV" && o["personal_number_ref"].is_null()));
    // The signatories route returns the same object (from the cache: no second paid call).
    let before = app.sandbox().calls_for(Source::Foretagsinformation).len();
    let s = app
        .get(
            &format!("/v1/companies/{TEST_AB}/signatories"),
            Some(&token),
        )
        .await;
    assert_eq!(s.status, 200);
    assert_eq!(s.body, a.body);
    assert_eq!(
        app.sandbox().calls_for(Source::Foretagsinformation).len(),
        before
    );
    // No personal number in any answer.
    for nr in sandbox_person_numbers() {
        assert!(!a.text.contains(nr) && !a.text.contains(&nr[2..]));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_role_code_and_share_band_is_served() {
    let (app, _, token) = setup().await;
    let mut roles = BTreeSet::new();
    let mut bands = BTreeSet::new();
    let mut none_reported = false;
    // The data set cycles its shapes; the first dozen companies cover them.
    for (orgnr, _) in companies_with_roles().into_iter().take(14) {
        let o = app.get(&officers(&orgnr), Some(&token)).await;
        assert_eq!(o.status, 200, "{orgnr}: {}", o.text);
        for x in o.body["data"]["officers"].as_array().unwrap() {
            roles.insert(x["role_code"].as_str().unwrap().to_owned());
        }
        let b = app.get(&owners(&orgnr), Some(&token)).await;
        assert_eq!(b.status, 200, "{orgnr}: {}", b.text);
        assert_paid_evidence(&b.body["data"]);
        let list = b.body["data"]["owners"].as_array().unwrap();
        if b.body["data"]["no_ubo_reported"] == true {
            assert!(list.is_empty());
            none_reported = true;
        }
        for x in list {
            bands.insert(x["share_band"].as_str().unwrap().to_owned());
            assert!(x["nature_of_control"].is_string());
        }
    }
    for band in ["25-50", "50-75", "75-100", "unknown"] {
        assert!(bands.contains(band), "{band} in {bands:?}");
    }
    assert!(none_reported);
    for code in [
        "LE", "OF", "SU", "VD", "EVD", "VVD", "EVVD", "VLE", "ARB", "FTR", "VOF", "REV",
    ] {
        assert!(roles.contains(code), "{code} in {roles:?}");
    }
    // A dump of the database holds none of the officers' or owners' numbers.
    let dump = app.db.dump_text().await;
    for nr in sandbox_person_numbers() {
        assert!(!dump.contains(nr), "a personal number in the database");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn engagement_refs_are_checked() {
    let (app, _, token) = setup().await;
    let bad = app.get("/v1/persons/12345/engagements", Some(&token)).await;
    assert_eq!((bad.status, bad.error_code()), (400, "invalid_identifier"));
    let unknown = app
        .get(
            "/v1/persons/idr_01ARZ3NDEKTSV4RRFFQ69G5FAV/engagements",
            Some(&token),
        )
        .await;
    assert_eq!((unknown.status, unknown.error_code()), (404, "not_found"));
    // A company's ref is not a person's.
    let company = app.resolve(&token, "orgnr", TEST_AB, None).await;
    let r = company.body["identifier_ref"].as_str().unwrap();
    let not_person = app
        .get(&format!("/v1/persons/{r}/engagements"), Some(&token))
        .await;
    assert_eq!(
        (not_person.status, not_person.error_code()),
        (404, "not_found")
    );
    // A resolved test person with roles in several companies.
    let person = app
        .resolve(&token, "personnummer", OFFICER_PERSONNUMMER[0], None)
        .await;
    let r = person.body["identifier_ref"].as_str().unwrap();
    let e = app
        .get(&format!("/v1/persons/{r}/engagements"), Some(&token))
        .await;
    assert_eq!(e.status, 200, "{}", e.text);
    let orgs: BTreeSet<&str> = e.body["data"]["engagements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["orgnr"].as_str().unwrap())
        .collect();
    assert!(orgs.len() >= 2, "{orgs:?}");
    assert_eq!(e.body["data"]["subject_id"], person.body["subject_id"]);
    // Malformed and foreign company numbers follow the profile's rules.
    let a = app.get(&officers("5560021362"), Some(&token)).await;
    assert_eq!((a.status, a.error_code()), (400, "invalid_identifier"));
    let lt = app.get(&owners("lt:110053842"), Some(&token)).await;
    assert_eq!((lt.status, lt.error_code()), (501, "country_not_supported"));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_budget_is_never_overspent_under_concurrent_reads() {
    let (app, c, token) = setup().await;
    // A daily budget of 6 with half reserved for monitoring: 3 paid reads today.
    app.admin(&[
        "budget",
        "set",
        &c.tenant_id,
        "--daily-paid",
        "6",
        "--monitoring-share",
        "0.5",
    ])
    .await
    .unwrap();
    // A fresh token: the budget is read from the tenant at admission.
    drop(token);
    let token = app.token(&c).await;
    let orgnrs: Vec<String> = companies_with_roles()
        .into_iter()
        .take(12)
        .map(|(o, _)| o)
        .collect();
    let reads = orgnrs.iter().map(|o| {
        let app = &app;
        let token = &token;
        async move { app.get(&officers(o), Some(token)).await }
    });
    let answers = futures_util::future::join_all(reads).await;
    let ok = answers.iter().filter(|a| a.status == 200).count();
    let refused: Vec<_> = answers.iter().filter(|a| a.status == 429).collect();
    assert_eq!(ok, 3, "exactly the on-demand part of the budget");
    assert_eq!(refused.len(), 9);
    assert!(refused.iter().all(|a| a.error_code() == "budget_exceeded"));
    assert_eq!(
        app.sandbox().calls_for(Source::Foretagsinformation).len(),
        3,
        "no paid call beyond the budget"
    );
    let shown = app.admin(&["budget", "show", &c.tenant_id]).await.unwrap();
    assert_eq!(shown["on_demand"]["used"], 3);
    assert_eq!(shown["on_demand"]["remaining"], 0);
    assert_eq!(shown["scheduled"]["remaining"], 3);
    assert_eq!(shown["time_zone"], "Europe/Stockholm");

    // Past the revalidation window (same budget day is not guaranteed, so spend it again by
    // setting a budget of zero): a cached value is served stale, no call is made.
    let served = answers.iter().find(|a| a.status == 200).unwrap();
    let orgnr = served.body["data"]["orgnr"].as_str().unwrap().to_owned();
    app.admin(&["budget", "set", &c.tenant_id, "--daily-paid", "0"])
        .await
        .unwrap();
    app.clock.advance(Duration::hours(25));
    let token = app.token(&c).await;
    let calls = app.sandbox().calls_for(Source::Foretagsinformation).len();
    let stale = app.get(&officers(&orgnr), Some(&token)).await;
    assert_eq!(stale.status, 200, "{}", stale.text);
    assert_eq!(stale.body["stale"], true);
    assert_eq!(stale.body["data"], served.body["data"]);
    assert_eq!(
        app.sandbox().calls_for(Source::Foretagsinformation).len(),
        calls
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn faults_on_each_source_never_replace_good_data() {
    let (app, c, token) = setup().await;
    // Nothing cached and the source down: 503, and the call was still recorded.
    app.sandbox()
        .inject_fault(Source::Foretagsinformation, FaultSpec::http_5xx(503))
        .unwrap();
    let down = app.get(&officers(TEST_AB), Some(&token)).await;
    assert_eq!(
        (down.status, down.error_code()),
        (503, "upstream_unavailable")
    );
    app.sandbox()
        .inject_fault(Source::VerkligaHuvudman, FaultSpec::malformed())
        .unwrap();
    let garbled = app.get(&owners(TEST_AB), Some(&token)).await;
    assert_eq!(
        (garbled.status, garbled.error_code()),
        (503, "upstream_unavailable")
    );
    assert_eq!(
        app.db.count("paid_objects", "true").await,
        0,
        "nothing stored"
    );
    app.sandbox().clear_faults();

    let good = app.get(&owners(TEST_AB), Some(&token)).await;
    assert_eq!(good.status, 200, "{}", good.text);
    app.clock.advance(Duration::hours(25));
    let token = app.token(&c).await;
    for fault in [
        FaultSpec::http_5xx(502),
        FaultSpec::malformed(),
        FaultSpec::timeout(),
    ] {
        app.sandbox()
            .inject_fault(Source::VerkligaHuvudman, fault)
            .unwrap();
        let stale = app.get(&owners(TEST_AB), Some(&token)).await;
        assert_eq!(stale.status, 200, "{}", stale.text);
        assert_eq!(stale.body["stale"], true);
        assert_eq!(stale.body["data"], good.body["data"]);
        app.sandbox().clear_faults();
    }
    // Failed calls are billed (the upstream counts them) and recorded as unusable.
    assert!(
        app.db
            .count("call_records", "cost = 1 AND NOT usable")
            .await
            >= 2
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_deployment_without_the_tier_answers_501_and_calls_nothing() {
    let app = TestApp::spawn_with(|c| {
        c.countries
            .entry("se")
            .or_default()
            .insert("paid_tier".into(), "off".into());
    })
    .await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let token = app.token(&c).await;
    let person = app
        .resolve(&token, "personnummer", OFFICER_PERSONNUMMER[1], None)
        .await;
    let r = person.body["identifier_ref"].as_str().unwrap().to_owned();
    for path in [
        officers(TEST_AB),
        format!("/v1/companies/{TEST_AB}/signatories"),
        owners(TEST_AB),
        format!("/v1/persons/{r}/engagements"),
    ] {
        let a = app.get(&path, Some(&token)).await;
        assert_eq!(
            (a.status, a.error_code()),
            (501, "country_not_supported"),
            "{path}"
        );
        assert!(a.body["message"].as_str().unwrap().contains("not enabled"));
    }
    assert!(app
        .sandbox()
        .calls_for(Source::Foretagsinformation)
        .is_empty());
    assert!(app.sandbox().calls_for(Source::VerkligaHuvudman).is_empty());
    // Bad input still gets its own answer first.
    let a = app.get(&officers("nope"), Some(&token)).await;
    assert_eq!(a.status, 400);
}
