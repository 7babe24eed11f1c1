//! Company data over the real connectors and the in-process upstream sandbox: the profile
//! with evidence, the per-tenant cache, stale serving, faults, country rules, documents.

use base64::Engine;
use blackbox::{Consumer, TestApp};
use chrono::Duration;
use sha2::Digest;
use upstream_sandbox::{CompanyPatch, FaultSpec, Source};

/// Bolagsverket test-environment numbers the sandbox serves with their recorded behaviour.
const WITH_REPORTS: &str = "5561890038";
const MISSING_AT_SCB: &str = "5567223705";
const TEST_AB: &str = "5560021361";

async fn setup() -> (TestApp, Consumer, String) {
    let app = TestApp::spawn_with_sandbox().await;
    let c = app.provision("kyb:read", "SE,LT", "SE,LT").await;
    let token = app.token(&c).await;
    (app, c, token)
}

fn company(orgnr: &str) -> String {
    format!("/v1/companies/{orgnr}")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_profile_carries_every_field_group_with_evidence() {
    let (app, c, token) = setup().await;
    let a = app.get(&company(WITH_REPORTS), Some(&token)).await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert_eq!(a.body["stale"], false);
    let d = &a.body["data"];
    assert_eq!(d["orgnr"], WITH_REPORTS);
    assert_eq!(d["legal_form"], "AB");
    assert_eq!(d["status"], "active");
    assert!(d["name"].as_str().unwrap().len() > 3);
    assert!(d["registered_at"].is_string());
    assert_eq!(d["address"]["country"], "SE");
    assert!(d["sni"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s.as_str().unwrap().len() == 5));
    for flag in ["f_skatt", "vat", "employer"] {
        assert!(d["tax"][flag].is_boolean(), "{flag}");
    }
    assert_eq!(d["tax"]["evidence"]["source"], "taxauth.uppgifter");
    // The neutral forms (1.9.0) say the same: the SNI codes with their classification, and
    // the three registrations, each with the tax call's evidence.
    let codes: Vec<&serde_json::Value> = d["activity_codes"].as_array().unwrap().iter().collect();
    assert_eq!(codes.len(), d["sni"].as_array().unwrap().len());
    for (code, sni) in codes.iter().zip(d["sni"].as_array().unwrap()) {
        assert_eq!(code["scheme"], "SNI2007");
        assert_eq!(&code["code"], sni);
    }
    let registrations = d["tax_registrations"].as_array().unwrap();
    let kinds: Vec<&str> = registrations
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["business_tax", "vat", "employer"]);
    for (r, flag) in registrations.iter().zip(["f_skatt", "vat", "employer"]) {
        assert_eq!(r["registered"], d["tax"][flag], "{flag}");
        assert_eq!(r["evidence"], d["tax"]["evidence"]);
    }
    assert_eq!(d["evidence"]["source"], "companyreg.vardefulla-datamangder");
    for e in [&d["evidence"], &d["tax"]["evidence"]] {
        assert_eq!(e["call_ref"], e["transaction_ref"]);
        assert!(e["digest"].as_str().unwrap().starts_with("sha256:"));
        for key in ["source_timestamp", "retrieved_at", "schema_version"] {
            assert!(e[key].is_string(), "{key}");
        }
    }
    assert_eq!(d["latest_annual_report"]["year"], 2022);
    assert_eq!(d["country"], "SE");
    assert_eq!(d["schema_version"], "1.6.0");
    assert_eq!(d["tenant_id"], c.tenant_id);
    // The subject was created on first sight and is the one a resolve finds.
    let subject_id = d["subject_id"].as_str().unwrap();
    let resolved = app.resolve(&token, "orgnr", WITH_REPORTS, None).await;
    assert_eq!(resolved.body["subject_id"], subject_id);
    // Every upstream call was recorded for the tenant.
    let upstream = "source <> 'customer.identity_event'";
    let calls = app.db.count("call_records", upstream).await;
    assert!(calls >= 3, "{calls} upstream calls recorded");
    let usable = app
        .db
        .count("call_records", &format!("{upstream} AND usable"))
        .await;
    assert_eq!(usable, calls, "every call was usable");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_digest_is_the_hash_of_the_raw_upstream_body() {
    let (app, _c, token) = setup().await;
    let a = app.get(&company(TEST_AB), Some(&token)).await;
    assert_eq!(a.status, 200, "{}", a.text);
    let digest = a.body["data"]["evidence"]["digest"]
        .as_str()
        .unwrap()
        .to_owned();

    // Ask the sandbox the same question directly and hash its raw answer.
    let sandbox = app.app.sandbox.as_ref().unwrap();
    let http = reqwest::Client::new();
    let token_answer: serde_json::Value = http
        .post(sandbox.vdm_token_url())
        .basic_auth(
            upstream_sandbox::CLIENT_ID,
            Some(upstream_sandbox::CLIENT_SECRET),
        )
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!(
            "grant_type=client_credentials&scope={}",
            upstream_sandbox::VDM_SCOPES.replace(' ', "%20")
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let raw = http
        .post(format!("{}/organisationer", sandbox.vdm_base_url()))
        .bearer_auth(token_answer["access_token"].as_str().unwrap())
        .json(&serde_json::json!({ "identitetsbeteckning": TEST_AB }))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let expected = format!("sha256:{}", hex::encode(sha2::Sha256::digest(&raw)));
    assert_eq!(digest, expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fresh_cached_profile_is_served_without_an_upstream_call() {
    let (app, _c, token) = setup().await;
    let first = app.get(&company(WITH_REPORTS), Some(&token)).await;
    let calls = app.sandbox().calls_for(Source::Bolagsverket).len();
    let second = app.get(&company(WITH_REPORTS), Some(&token)).await;
    assert_eq!(second.status, 200);
    assert_eq!(
        app.sandbox().calls_for(Source::Bolagsverket).len(),
        calls,
        "served from the cache"
    );
    assert_eq!(
        second.body["data"]["evidence"],
        first.body["data"]["evidence"]
    );
    assert_eq!(second.body["stale"], false);
}

#[tokio::test(flavor = "multi_thread")]
async fn past_the_window_an_unavailable_upstream_serves_the_cache_as_stale() {
    let (app, consumer, token) = setup().await;
    let fresh = app.get(&company(WITH_REPORTS), Some(&token)).await;
    assert_eq!(fresh.status, 200);
    app.clock.advance(Duration::hours(25));
    let token = app.token(&consumer).await; // the old one expired with the clock
    app.sandbox()
        .inject_fault(Source::Bolagsverket, FaultSpec::http_5xx(503))
        .unwrap();
    let stale = app.get(&company(WITH_REPORTS), Some(&token)).await;
    assert_eq!(stale.status, 200, "{}", stale.text);
    assert_eq!(stale.body["stale"], true);
    assert_eq!(
        stale.body["data"], fresh.body["data"],
        "the cached value, with its original evidence"
    );
    // The failed call was recorded, as unusable.
    assert!(app.db.count("call_records", "usable = false").await >= 1);

    // Once the upstream is back, the profile is revalidated.
    app.sandbox().clear_fault(Source::Bolagsverket);
    let again = app.get(&company(WITH_REPORTS), Some(&token)).await;
    assert_eq!(again.body["stale"], false);
    assert_ne!(
        again.body["data"]["evidence"]["call_ref"],
        fresh.body["data"]["evidence"]["call_ref"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn with_nothing_cached_an_unavailable_upstream_is_503() {
    let (app, _c, token) = setup().await;
    app.sandbox()
        .inject_fault(Source::Bolagsverket, FaultSpec::http_5xx(500))
        .unwrap();
    let a = app.get(&company(TEST_AB), Some(&token)).await;
    assert_eq!(a.status, 503);
    assert_eq!(a.error_code(), "upstream_unavailable");
    app.sandbox().clear_fault(Source::Bolagsverket);
    app.sandbox()
        .inject_fault(Source::Ssbtgu, FaultSpec::timeout())
        .unwrap();
    let started = std::time::Instant::now();
    let timed_out = app.get(&company(TEST_AB), Some(&token)).await;
    assert_eq!(timed_out.status, 503, "{}", timed_out.text);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "bounded by the upstream time limit"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_optional_source_failing_leaves_its_group_unchecked_not_empty() {
    let (app, _c, token) = setup().await;
    let unchecked = |a: &blackbox::Answer| a.body["data"]["unchecked"].clone();

    let all = app.get(&company(WITH_REPORTS), Some(&token)).await;
    assert_eq!(all.status, 200, "{}", all.text);
    assert_eq!(unchecked(&all), serde_json::json!([]));
    assert!(all.body["data"]["employees_band"].is_string());
    assert!(all.body["data"]["latest_annual_report"].is_object());

    // A timeout at the statistics office: the register and the tax source answered.
    let other = app.provision("kyb:read", "SE", "SE").await;
    let token = app.token(&other).await;
    app.sandbox()
        .inject_fault(Source::Scb, FaultSpec::timeout())
        .unwrap();
    let started = std::time::Instant::now();
    let a = app.get(&company(WITH_REPORTS), Some(&token)).await;
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert_eq!(a.status, 200, "{}", a.text);
    assert_eq!(a.body["stale"], false);
    assert!(a.body["data"]["employees_band"].is_null());
    assert_eq!(unchecked(&a), serde_json::json!(["employees_band"]));
    assert_eq!(
        a.body["data"]["latest_annual_report"],
        all.body["data"]["latest_annual_report"]
    );
    app.sandbox().clear_faults();

    // The document list failing, for a third tenant; then both at once for a fourth.
    let third = app.provision("kyb:read", "SE", "SE").await;
    let token = app.token(&third).await;
    app.sandbox()
        .inject_fault(
            Source::Bolagsverket,
            FaultSpec::http_5xx(503).on_path("/dokumentlista"),
        )
        .unwrap();
    let a = app.get(&company(WITH_REPORTS), Some(&token)).await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert!(a.body["data"]["latest_annual_report"].is_null());
    assert_eq!(unchecked(&a), serde_json::json!(["latest_annual_report"]));
    assert_eq!(
        a.body["data"]["employees_band"],
        all.body["data"]["employees_band"]
    );

    let fourth = app.provision("kyb:read", "SE", "SE").await;
    let token = app.token(&fourth).await;
    app.sandbox()
        .inject_fault(Source::Scb, FaultSpec::http_5xx(500))
        .unwrap();
    let a = app.get(&company(WITH_REPORTS), Some(&token)).await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert_eq!(
        unchecked(&a),
        serde_json::json!(["latest_annual_report", "employees_band"])
    );
    // Served again from the cache within the window, it still says what was not checked.
    app.sandbox().clear_faults();
    let cached = app.get(&company(WITH_REPORTS), Some(&token)).await;
    assert_eq!(cached.body["data"], a.body["data"]);
    // The failed calls are on record, unusable.
    let failed = app
        .db
        .count(
            "call_records",
            &format!("tenant_id = '{}' AND NOT usable", fourth.tenant_id),
        )
        .await;
    assert_eq!(failed, 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn garbage_or_a_field_failure_never_overwrites_good_cached_data() {
    let (app, consumer, token) = setup().await;
    let good = app.get(&company(WITH_REPORTS), Some(&token)).await;
    for fault in [
        (Source::Bolagsverket, FaultSpec::malformed()),
        (
            Source::Bolagsverket,
            FaultSpec::field_fel("OTILLGANGLIG_UPPGIFTSKALLA", Some("organisationsnamn")),
        ),
        (Source::Ssbtgu, FaultSpec::malformed()),
    ] {
        app.clock.advance(Duration::hours(25));
        let token = app.token(&consumer).await;
        app.sandbox().inject_fault(fault.0, fault.1).unwrap();
        let a = app.get(&company(WITH_REPORTS), Some(&token)).await;
        assert_eq!(a.status, 200, "{}", a.text);
        assert_eq!(a.body["stale"], true);
        assert_eq!(a.body["data"], good.body["data"]);
        app.sandbox().clear_faults();
    }
    // The cache still holds the good value: a fresh read within the window after a failure
    // would have shown the garbage otherwise.
    let rows = app
        .db
        .rows("SELECT data->>'name' AS name FROM company_profiles")
        .await;
    assert_eq!(rows[0]["name"], good.body["data"]["name"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_scripted_change_shows_after_revalidation() {
    let (app, consumer, token) = setup().await;
    let before = app.get(&company(WITH_REPORTS), Some(&token)).await;
    let patch = CompanyPatch {
        name: Some("Omdöpt Aktiebolag".into()),
        ..Default::default()
    };
    app.sandbox().patch_company(WITH_REPORTS, &patch).unwrap();
    let cached = app.get(&company(WITH_REPORTS), Some(&token)).await;
    assert_eq!(
        cached.body["data"]["name"], before.body["data"]["name"],
        "within the window"
    );
    app.clock.advance(Duration::hours(25));
    let token = app.token(&consumer).await;
    let after = app.get(&company(WITH_REPORTS), Some(&token)).await;
    assert_eq!(after.body["data"]["name"], "Omdöpt Aktiebolag");
}

#[tokio::test(flavor = "multi_thread")]
async fn two_tenants_get_separate_call_records_and_subjects() {
    let (app, a, token_a) = setup().await;
    let b = app.provision("kyb:read", "SE", "SE").await;
    let token_b = app.token(&b).await;
    let ra = app.get(&company(TEST_AB), Some(&token_a)).await;
    let rb = app.get(&company(TEST_AB), Some(&token_b)).await;
    assert_eq!((ra.status, rb.status), (200, 200));
    assert_ne!(ra.body["data"]["subject_id"], rb.body["data"]["subject_id"]);
    assert_ne!(
        ra.body["data"]["evidence"]["call_ref"],
        rb.body["data"]["evidence"]["call_ref"]
    );
    for t in [&a.tenant_id, &b.tenant_id] {
        let n = app
            .db
            .count(
                "call_records",
                &format!("tenant_id = '{t}' AND source <> 'customer.identity_event'"),
            )
            .await;
        assert!(n >= 3, "each tenant's own calls: {n}");
        assert_eq!(
            app.db
                .count("company_profiles", &format!("tenant_id = '{t}'"))
                .await,
            1
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn country_rules_are_the_same_as_every_route() {
    let (app, c, token) = setup().await;
    // Lithuania's register is served (tests/blackbox/lithuania.rs); its unknown code is 404.
    let lt = app.get(&company("lt:999999999"), Some(&token)).await;
    assert_eq!((lt.status, lt.error_code()), (404, "not_found"));
    let bad = app.get(&company("5561890039"), Some(&token)).await;
    assert_eq!((bad.status, bad.error_code()), (400, "invalid_identifier"));
    let prefix = app.get(&company("SE:5561890038"), Some(&token)).await;
    assert_eq!(prefix.error_code(), "invalid_identifier");
    let unknown = app.get(&company("5599000006"), Some(&token)).await;
    assert_eq!((unknown.status, unknown.error_code()), (404, "not_found"));
    assert_eq!(
        app.db.count("subjects", "true").await,
        0,
        "no subject for an unknown company"
    );

    let se_only = app.grant(&c.tenant_id, "kyb:read", "SE").await;
    let se_token = app.token(&se_only).await;
    let not_granted = app.get(&company("lt:110443493"), Some(&se_token)).await;
    assert_eq!(
        (not_granted.status, not_granted.error_code()),
        (403, "country_not_granted")
    );

    let other = app.provision("kyb:read", "SE", "SE").await;
    let other_token = app.token(&other).await;
    let not_provisioned = app.get(&company("lt:110443493"), Some(&other_token)).await;
    assert_eq!(
        (not_provisioned.status, not_provisioned.error_code()),
        (403, "country_not_provisioned")
    );

    let no_scope = app.grant(&c.tenant_id, "kyc:read", "SE").await;
    let no_scope_token = app.token(&no_scope).await;
    let forbidden = app.get(&company(TEST_AB), Some(&no_scope_token)).await;
    assert_eq!(
        (forbidden.status, forbidden.error_code()),
        (403, "forbidden")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_company_missing_at_the_statistics_office_still_has_a_profile() {
    let (app, _c, token) = setup().await;
    let a = app.get(&company(MISSING_AT_SCB), Some(&token)).await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert!(a.body["data"]["employees_band"].is_null());
}

#[tokio::test(flavor = "multi_thread")]
async fn documents_come_from_the_profiles_ref_and_stay_with_the_tenant() {
    let (app, _c, token) = setup().await;
    let profile = app.get(&company(WITH_REPORTS), Some(&token)).await;
    let doc = profile.body["data"]["latest_annual_report"]["ref"]
        .as_str()
        .unwrap()
        .to_owned();
    let a = app.get(&format!("/v1/documents/{doc}"), Some(&token)).await;
    assert_eq!(a.status, 200, "{}", a.text);
    let d = &a.body["data"];
    assert_eq!(d["document_id"], doc.as_str());
    assert_eq!(d["content_type"], "application/zip");
    assert_eq!(d["subject_id"], profile.body["data"]["subject_id"]);
    assert_eq!(d["evidence"]["source"], "companyreg.vardefulla-datamangder");
    let zip = base64::engine::general_purpose::STANDARD
        .decode(d["content_base64"].as_str().unwrap())
        .unwrap();
    assert_eq!(&zip[..4], b"PK\x03\x04");

    // Another tenant was never handed this id.
    let other = app.provision("kyb:read", "SE", "SE").await;
    let other_token = app.token(&other).await;
    assert_eq!(
        app.get(&format!("/v1/documents/{doc}"), Some(&other_token))
            .await
            .status,
        404
    );
    assert_eq!(
        app.get("/v1/documents/nonexistent_paket", Some(&token))
            .await
            .status,
        404
    );

    // A grant without SE may not fetch Swedish filings.
    let lt_only = app.provision("kyb:read", "LT", "SE,LT").await;
    let lt_token = app.token(&lt_only).await;
    let refused = app
        .get(&format!("/v1/documents/{doc}"), Some(&lt_token))
        .await;
    assert_eq!(
        (refused.status, refused.error_code()),
        (403, "country_not_granted")
    );

    // The archive down: 503.
    app.sandbox()
        .inject_fault(Source::Bolagsverket, FaultSpec::http_5xx(503))
        .unwrap();
    let down = app.get(&format!("/v1/documents/{doc}"), Some(&token)).await;
    assert_eq!(
        (down.status, down.error_code()),
        (503, "upstream_unavailable")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_subject_first_seen_in_a_company_read_is_evidenced_by_that_registry_call() {
    let (app, _c, token) = setup().await;
    let a = app.get(&company(TEST_AB), Some(&token)).await;
    assert_eq!(a.status, 200, "{}", a.text);
    let d = &a.body["data"];
    let subject_id = d["subject_id"].as_str().unwrap();
    let subject = app
        .get(&format!("/v1/subjects/{subject_id}"), Some(&token))
        .await;
    assert_eq!(subject.status, 200, "{}", subject.text);
    // Not an identity event the consumer never sent: the register read that found it.
    let e = &subject.body["evidence"];
    assert_eq!(e["source"], "companyreg.vardefulla-datamangder");
    assert_eq!(e["call_ref"], d["evidence"]["call_ref"]);
    assert_eq!(e["digest"], d["evidence"]["digest"]);
    assert_eq!(
        app.db
            .count("call_records", "source = 'customer.identity_event'")
            .await,
        0
    );

    // A subject the consumer resolved first keeps its identity event.
    let resolved = app
        .resolve(&token, "orgnr", WITH_REPORTS, Some("c-9"))
        .await;
    let id = resolved.body["subject_id"].as_str().unwrap().to_owned();
    assert_eq!(
        app.get(&company(WITH_REPORTS), Some(&token)).await.body["data"]["subject_id"],
        id.as_str()
    );
    let subject = app.get(&format!("/v1/subjects/{id}"), Some(&token)).await;
    assert_eq!(
        subject.body["evidence"]["source"],
        "customer.identity_event"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn company_and_document_answers_carry_the_canonical_subject_and_its_aliases() {
    let (app, _c, token) = setup().await;
    let first = app.get(&company(WITH_REPORTS), Some(&token)).await;
    assert_eq!(first.status, 200, "{}", first.text);
    assert_eq!(first.body["data"]["aliases"], serde_json::json!([]));
    let old_id = first.body["data"]["subject_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let doc_ref = first.body["data"]["latest_annual_report"]["ref"]
        .as_str()
        .unwrap()
        .to_owned();
    let document = app
        .get(&format!("/v1/documents/{doc_ref}"), Some(&token))
        .await;
    assert_eq!(document.status, 200, "{}", document.text);
    assert_eq!(document.body["data"]["subject_id"], old_id.as_str());
    assert_eq!(document.body["data"]["aliases"], serde_json::json!([]));

    // Merge the company's subject into another one (merges arrive with monitoring; here the
    // row is set as a merge will set it): answers name the canonical id, the old one as alias.
    let other = app.resolve(&token, "orgnr", TEST_AB, None).await;
    let canonical = other.body["subject_id"].as_str().unwrap().to_owned();
    app.db
        .execute(&format!(
            "UPDATE subjects SET merged_into = '{canonical}' WHERE subject_id = '{old_id}'"
        ))
        .await;
    let cached = app.get(&company(WITH_REPORTS), Some(&token)).await;
    assert_eq!(cached.status, 200, "{}", cached.text);
    assert_eq!(cached.body["stale"], false);
    assert_eq!(cached.body["data"]["subject_id"], canonical.as_str());
    assert_eq!(cached.body["data"]["aliases"], serde_json::json!([old_id]));
    let document = app
        .get(&format!("/v1/documents/{doc_ref}"), Some(&token))
        .await;
    assert_eq!(document.body["data"]["subject_id"], canonical.as_str());
    assert_eq!(
        document.body["data"]["aliases"],
        serde_json::json!([old_id])
    );
}

/// Every field the spec lists for an evidence object is present; nullable ones are `null`
/// when the source gave nothing.
fn assert_complete_evidence(e: &serde_json::Value) {
    let fields = [
        "source",
        "source_timestamp",
        "call_ref",
        "transaction_ref",
        "upstream_ref",
        "digest",
        "schema_version",
        "retrieved_at",
    ];
    for field in fields {
        assert!(e.get(field).is_some(), "evidence lacks `{field}`: {e}");
    }
    for field in [
        "source",
        "source_timestamp",
        "call_ref",
        "transaction_ref",
        "retrieved_at",
    ] {
        assert!(e[field].is_string(), "`{field}` must be a string: {e}");
    }
    for field in ["upstream_ref", "digest", "schema_version"] {
        assert!(
            e[field].is_string() || e[field].is_null(),
            "`{field}` is a string or null: {e}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn nullable_fields_are_present_as_null() {
    let (app, _c, token) = setup().await;
    // A company the statistics office does not know: no employee band.
    let a = app.get(&company(MISSING_AT_SCB), Some(&token)).await;
    assert_eq!(a.status, 200, "{}", a.text);
    let d = &a.body["data"];
    assert_complete_evidence(&d["evidence"]);
    assert_complete_evidence(&d["tax"]["evidence"]);
    assert!(d["employees_band"].is_null(), "{d}");
    for field in ["registered_at", "latest_annual_report"] {
        assert!(d.get(field).is_some(), "`{field}` missing");
    }
    for field in ["street", "postal_code", "city", "country"] {
        assert!(
            d["address"].get(field).is_some(),
            "`address.{field}` missing"
        );
    }
    // A subject the consumer resolved: its evidence is an identity event, with no upstream
    // reference and no digest, shown as null.
    let resolved = app.resolve(&token, "orgnr", TEST_AB, Some("n-1")).await;
    let id = resolved.body["subject_id"].as_str().unwrap();
    let subject = app.get(&format!("/v1/subjects/{id}"), Some(&token)).await;
    let e = &subject.body["evidence"];
    assert_complete_evidence(e);
    assert!(e["upstream_ref"].is_null(), "{e}");
    assert!(e["digest"].is_null(), "{e}");
    let identifier = &subject.body["identifiers"][0];
    assert!(identifier.get("valid_to").is_some() && identifier["valid_to"].is_null());
}
