//! Sanctions screening over real HTTP and PostgreSQL, with the UN Security Council list
//! imported from the adapters' test data and the default policy published: an ad-hoc check
//! explained, stored, read back byte for byte and listed; a re-run equal but for its id and
//! time; the `name_is_identifier` refusal with a database dump scanned afterwards; 503 with
//! nothing stored; scopes; masking of the orgnr and of a person subject's fields; subject
//! checks through the person and company registers; visibility across grants and tenants;
//! whitelist entries and tenant overrides made through the operator's use cases.

use crate::persons::{set_permit, with_permit};
use adapters_screening::{read_path, ListFormat, ReadList};
use blackbox::{Answer, Consumer, TestApp};
use chrono::Duration;
use domain::screening::admin::NewWhitelistEntry;
use domain::screening::policy::{OverrideConfig, PolicyConfig, PolicyVersion};
use domain::screening::sanctions::SourceVersion;
use serde_json::{json, Value};
use std::sync::OnceLock;
use upstream_sandbox::spar::persons;

/// A UN entry with one full birth date: GERMAIN KATANGA, born 1978-04-28 (`CDi.006`).
pub(crate) const LISTED_NAME: &str = "Germain Katanga";
pub(crate) const LISTED_BIRTH: &str = "1978-04-28";
pub(crate) const LISTED_ENTRY: &str = "CDi.006";
/// Near the listed name, no birth date: the same entry at 0.8664, `review` under the default
/// policy (review 0.80, hit 0.92).
const NEAR_NAME: &str = "Germaine Katanka";
/// A valid Swedish organisation number (check digit right) that no list names.
const ORGNR: &str = "5560360793";
/// The company the sandbox registry serves: AB "Testbolag 4 bokat av SKV Aktiebolag".
const TEST_AB: &str = "5560021361";
const TEST_AB_NAME: &str = "Testbolag 4 bokat av SKV Aktiebolag";

const CHECKS: &str = "/v1/screening/checks";

/// The UN Security Council consolidated list (2 MB), read once per test process.
pub(crate) fn un_list() -> &'static ReadList {
    static LIST: OnceLock<ReadList> = OnceLock::new();
    LIST.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../crates/adapters-screening/testdata/un/un_sc_consolidated_2026-02-27.xml");
        read_path(&path, Some(ListFormat::UnXml)).expect("the UN list reads")
    })
}

/// Imports the UN list into the app (as `idreg lists import` does): its active version.
pub(crate) async fn import_un(app: &TestApp) -> SourceVersion {
    let read = tokio::task::spawn_blocking(|| un_list().clone())
        .await
        .expect("reading the UN list");
    app.app
        .services
        .lists
        .import(read.list, &read.digest)
        .await
        .expect("importing the UN list")
        .version()
        .clone()
}

/// Publishes the default policy (review 0.80, hit 0.92) as operator `ops-a`.
pub(crate) async fn publish_policy(app: &TestApp) -> PolicyVersion {
    app.app
        .services
        .screening_admin
        .publish_policy(PolicyConfig::default(), "ops-a")
        .await
        .expect("publishing the policy")
}

/// An app with the UN list imported and the default policy active.
pub(crate) async fn ready() -> (TestApp, SourceVersion, PolicyVersion) {
    let app = TestApp::spawn().await;
    let list = import_un(&app).await;
    let policy = publish_policy(&app).await;
    (app, list, policy)
}

/// A tenant with one grant of `scopes` over SE, and its token.
pub(crate) async fn consumer(app: &TestApp, scopes: &str) -> (Consumer, String) {
    let c = app.provision(scopes, "SE", "SE").await;
    let token = app.token(&c).await;
    (c, token)
}

/// Another grant of the same tenant, and its token.
async fn grant(app: &TestApp, c: &Consumer, scopes: &str, countries: &str) -> String {
    let g = app.grant(&c.tenant_id, scopes, countries).await;
    app.token(&g).await
}

pub(crate) async fn check(app: &TestApp, token: &str, body: Value) -> Answer {
    app.post_json(CHECKS, Some(token), &body).await
}

/// A check that must succeed: its body.
pub(crate) async fn checked(app: &TestApp, token: &str, body: Value) -> Answer {
    let a = check(app, token, body).await;
    assert_eq!(a.status, 201, "{}", a.text);
    a
}

fn get_check(id: &str) -> String {
    format!("{CHECKS}/{id}")
}

/// The check's ids in a list body.
fn ids(list: &Answer) -> Vec<String> {
    list.body["checks"]
        .as_array()
        .unwrap_or_else(|| panic!("a checks list: {}", list.text))
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect()
}

/// A check body without what differs between two runs of the same input.
fn without_id_and_time(body: &Value) -> String {
    let mut body = body.clone();
    let object = body.as_object_mut().unwrap();
    object.remove("id").expect("an id");
    object.remove("checked_at").expect("a checked_at");
    serde_json::to_string(&body).unwrap()
}

/// The operator's whitelist entry for `entry` of the UN list, cleared for an input hash.
fn whitelist_entry(
    app: &TestApp,
    c: &Consumer,
    input_hash: &str,
    entry: &str,
) -> NewWhitelistEntry {
    NewWhitelistEntry {
        tenant: c.tenant_id.clone(),
        subject_id: None,
        input_hash: Some(input_hash.to_owned()),
        source_id: "un_sc".into(),
        source_entry_id: entry.into(),
        reason: "a different person: born in Sweden, no tie to the DRC".into(),
        created_by: "ops-a".into(),
        expires_at: app.clock_now() + Duration::days(90),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_adhoc_check_of_a_listed_name_is_explained_stored_and_listed() {
    let (app, list, policy) = ready().await;
    let (_, token) = consumer(&app, "screening:run kyb:read").await;

    let a = checked(
        &app,
        &token,
        json!({"name": LISTED_NAME, "birth_date": LISTED_BIRTH, "nationalities": ["cd"]}),
    )
    .await;
    let k = &a.body;
    let id = k["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("chk_") && id.len() == 30, "{id}");
    assert!(k["subject_id"].is_null());
    assert_eq!(k["input_kind"], "adhoc");
    assert_eq!(
        k["input_snapshot"],
        json!({"name": LISTED_NAME, "birth_date": LISTED_BIRTH, "country": null, "orgnr": null,
               "nationalities": ["CD"], "identifier_masked": false, "person_fields_masked": false,
               "input_hash": k["input_snapshot"]["input_hash"]})
    );
    let hash = k["input_snapshot"]["input_hash"].as_str().unwrap();
    assert!(
        hash.starts_with("hmac-sha256:") && hash.len() == 12 + 64,
        "{hash}"
    );
    assert_eq!(k["input_verified"], false);
    assert_eq!(k["band"], "hit");
    assert_eq!(k["policy_version_id"], policy.id.to_string());
    assert!(k["tenant_override_version_id"].is_null());
    assert_eq!(k["source_version_ids"], json!([list.id.to_string()]));
    assert_eq!(k["degraded_sources"], json!([]));
    assert_eq!(k["truncated_datasets"], json!([]));
    assert_eq!(
        k["matcher_version"],
        domain::screening::matcher::MATCHER_VERSION
    );
    assert_eq!(k["country"], Value::Null, "a name alone names no country");
    assert_eq!(k["schema_version"], "1.6.0");
    let checked_at = k["checked_at"].as_str().unwrap();
    assert!(
        checked_at.ends_with('Z') && checked_at.len() == 24,
        "{checked_at}"
    );

    // The listed entry first, with its reasons, listing and evidence.
    let candidates = k["candidates"].as_array().unwrap();
    assert_eq!(k["candidate_count"], candidates.len());
    let top = &candidates[0];
    assert_eq!(top["source_id"], "un_sc");
    assert_eq!(top["source_entry_id"], LISTED_ENTRY);
    assert_eq!(top["entity_id"], format!("un_sc:{LISTED_ENTRY}"));
    assert_eq!(top["id"], format!("{}:{LISTED_ENTRY}", list.id));
    assert_eq!(top["source_version_id"], list.id.to_string());
    assert_eq!(top["score"], 1.0);
    assert_eq!(top["band"], "hit");
    assert_eq!(top["whitelisted"], false);
    assert!(top["whitelist_id"].is_null());
    let reasons = top["reasons"].as_array().unwrap();
    let codes: Vec<&str> = reasons
        .iter()
        .map(|r| r["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        ["name_exact", "birth_date_exact", "nationality_match"],
        "{reasons:?}"
    );
    for r in reasons {
        assert_eq!(r["contributes"], "up", "{r}");
        assert!(!r["detail"].as_str().unwrap().is_empty());
    }
    assert!(reasons[0]["detail"]
        .as_str()
        .unwrap()
        .contains("`GERMAIN KATANGA`"));
    let listing = &top["listing"];
    assert_eq!(listing["kind"], "person");
    assert_eq!(
        listing["names"][0],
        json!({"name": "GERMAIN KATANGA", "quality": "strong"})
    );
    assert_eq!(listing["birth_dates"], json!([LISTED_BIRTH]));
    assert_eq!(
        listing["nationalities"],
        json!([{"code": "CD", "name": "Democratic Republic of the Congo"}])
    );
    assert_eq!(listing["programs"], json!(["DRC"]));
    assert_eq!(listing["listed_on"], "2005-11-01");
    assert!(listing["identifiers"].is_array() && listing["countries"].is_array());
    let evidence = &top["evidence"];
    assert_eq!(evidence["source"], "un_sc");
    assert_eq!(evidence["source_version_id"], list.id.to_string());
    assert_eq!(evidence["digest"], list.digest.as_str());
    assert_eq!(evidence["published_at"], "2026-02-27T00:00:09.554Z");
    assert!(evidence["imported_at"].is_string());
    assert_eq!(evidence["matched_name"], "GERMAIN KATANGA");
    assert_eq!(evidence["matched_name_quality"], "strong");
    assert_eq!(evidence["matcher_version"], k["matcher_version"]);

    // Read back: the same bytes, twice.
    for _ in 0..2 {
        let got = app.get(&get_check(&id), Some(&token)).await;
        assert_eq!(got.status, 200, "{}", got.text);
        assert_eq!(
            got.text, a.text,
            "the stored check reads back byte for byte"
        );
    }

    // Two more checks (the near name, and a company subject), then the list: newest first.
    let near = checked(&app, &token, json!({"name": NEAR_NAME})).await;
    assert_eq!(near.body["band"], "review");
    assert_eq!(near.body["candidates"][0]["source_entry_id"], LISTED_ENTRY);
    assert_eq!(near.body["candidates"][0]["score"], 0.8664);
    assert_eq!(near.body["candidates"][0]["band"], "review");
    let r = app.resolve(&token, "orgnr", TEST_AB, None).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let company = r.body["subject_id"].as_str().unwrap().to_owned();
    let by_subject = checked(&app, &token, json!({"subject_id": company})).await;
    assert_eq!(by_subject.body["subject_id"], company.as_str());
    let (near_id, subject_check) = (
        near.body["id"].as_str().unwrap().to_owned(),
        by_subject.body["id"].as_str().unwrap().to_owned(),
    );

    let all = app.get(CHECKS, Some(&token)).await;
    assert_eq!(all.status, 200, "{}", all.text);
    assert_eq!(
        ids(&all),
        [subject_check.clone(), near_id.clone(), id.clone()]
    );
    assert_eq!(all.body["checks"][2], a.body, "listed as read by id");
    let two = app.get(&format!("{CHECKS}?limit=2"), Some(&token)).await;
    assert_eq!(ids(&two), [subject_check.clone(), near_id]);
    let one = app
        .get(&format!("{CHECKS}?subject_id={company}"), Some(&token))
        .await;
    assert_eq!(ids(&one), [subject_check]);
    assert_eq!(one.body["checks"][0], by_subject.body);
    let other = app
        .get(
            &format!("{CHECKS}?subject_id=01ARZ3NDEKTSV4RRFFQ69G5FAV"),
            Some(&token),
        )
        .await;
    assert_eq!(other.body, json!({"checks": []}));

    // Bad queries name the field.
    for (query, field) in [
        ("limit=0", "`limit`"),
        ("limit=201", "`limit`"),
        ("limit=ten", "`limit`"),
        ("subject_id=nope", "`subject_id`"),
        ("limit=1&limit=2", "`limit`"),
    ] {
        let bad = app.get(&format!("{CHECKS}?{query}"), Some(&token)).await;
        assert_eq!(
            (bad.status, bad.error_code()),
            (400, "bad_request"),
            "{query}"
        );
        assert!(
            bad.body["message"].as_str().unwrap().contains(field),
            "{query}: {}",
            bad.text
        );
    }
    // An unknown or malformed id is 404.
    for unknown in ["chk_01ARZ3NDEKTSV4RRFFQ69G5FAV", "nope"] {
        let missing = app.get(&get_check(unknown), Some(&token)).await;
        assert_eq!((missing.status, missing.error_code()), (404, "not_found"));
    }
    // No tenant but this one has checks.
    let (_, stranger) = consumer(&app, "screening:read").await;
    assert_eq!(
        app.get(CHECKS, Some(&stranger)).await.body,
        json!({"checks": []})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rerun_of_the_same_input_differs_only_in_id_and_time() {
    let (app, _, _) = ready().await;
    let (_, token) = consumer(&app, "screening:run kyc:read").await;
    let body = json!({"name": "katanga GERMAIN", "birth_date": "1978", "nationalities": ["CD", "RW"],
                      "country": "cd", "orgnr": ORGNR});
    let first = checked(&app, &token, body.clone()).await;
    let second = checked(&app, &token, body).await;
    assert_ne!(first.body["id"], second.body["id"]);
    assert_eq!(
        without_id_and_time(&first.body),
        without_id_and_time(&second.body),
        "the same input under the same versions is the same result"
    );
    assert_eq!(first.body["candidates"][0]["source_entry_id"], LISTED_ENTRY);
    assert_eq!(first.body["input_snapshot"]["country"], "CD");
    assert_eq!(
        first.body["country"], "SE",
        "the orgnr's country bounds the check"
    );
    // Word order and case do not move the input hash: the same input for a whitelist.
    let reordered = checked(
        &app,
        &token,
        json!({"name": "Germain Katanga", "birth_date": "1978", "nationalities": ["RW", "CD"],
               "country": "CD", "orgnr": format!("se:{ORGNR}")}),
    )
    .await;
    assert_eq!(
        reordered.body["input_snapshot"]["input_hash"],
        first.body["input_snapshot"]["input_hash"]
    );
    // And each reads back as it was answered.
    for a in [&first, &second] {
        let got = app
            .get(&get_check(a.body["id"].as_str().unwrap()), Some(&token))
            .await;
        assert_eq!(got.text, a.text);
    }
}

/// The spellings of Skatteverket's test personal number 19811130-9285 a leak could take.
const TEST_NUMBER_SPELLINGS: [&str; 4] =
    ["198111309285", "8111309285", "811130-9285", "19811130-9285"];

#[tokio::test(flavor = "multi_thread")]
async fn a_personal_number_in_a_name_is_refused_unechoed_and_nothing_is_stored() {
    let app = TestApp::spawn().await;
    let (_, token) = consumer(&app, "screening:run kyc:read").await;
    // Refused before anything else is considered: even with no policy and no list.
    let early = check(&app, &token, json!({"name": "Anna 19811130-9285"})).await;
    assert_eq!(
        (early.status, early.error_code()),
        (400, "name_is_identifier"),
        "{}",
        early.text
    );
    import_un(&app).await;
    publish_policy(&app).await;

    let mut texts = vec![early.text];
    for name in [
        "Anna 19811130-9285",
        "Anna 811130-9285 Svensson",
        "8111309285 Anna",
        "Anna 19811130+9285",
    ] {
        for body in [
            json!({"name": name}),
            json!({"name": name, "birth_date": "1912-12-12", "orgnr": ORGNR}),
            // A bad field besides does not come first: the name is never looked at further.
            json!({"name": name, "birth_date": "yesterday"}),
        ] {
            let a = check(&app, &token, body).await;
            assert_eq!(
                (a.status, a.error_code()),
                (400, "name_is_identifier"),
                "{}",
                a.text
            );
            assert!(a.body["message"].as_str().unwrap().contains("subject_id"));
            texts.push(a.text);
        }
    }
    for text in &texts {
        for spelling in TEST_NUMBER_SPELLINGS {
            assert!(
                !text.contains(spelling),
                "the refusal echoes the number: {text}"
            );
        }
        assert!(
            !text.contains("Anna"),
            "the refusal echoes the name: {text}"
        );
    }

    // Nothing was stored: no check, and no trace of the number anywhere in the database.
    let list = app.get(CHECKS, Some(&token)).await;
    assert_eq!(list.body, json!({"checks": []}), "{}", list.text);
    let dump = app.db.dump_text().await;
    assert!(
        dump.contains("screening_policy_versions"),
        "the dump is real"
    );
    for spelling in TEST_NUMBER_SPELLINGS {
        assert!(
            !dump.contains(spelling),
            "the database holds the personal number ({spelling})"
        );
    }

    // The same name without the number is screened.
    checked(&app, &token, json!({"name": "Anna Svensson"})).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn without_an_active_policy_or_a_loaded_list_nothing_is_checked_or_stored() {
    let app = TestApp::spawn().await;
    let (_, token) = consumer(&app, "screening:run").await;
    let body = json!({"name": LISTED_NAME});
    let unavailable = |a: &Answer| {
        assert_eq!(
            (a.status, a.error_code()),
            (503, "screening_unavailable"),
            "{}",
            a.text
        );
    };

    // Neither a policy nor a list.
    unavailable(&check(&app, &token, body.clone()).await);
    // A policy, no list.
    let policy = publish_policy(&app).await;
    let a = check(&app, &token, body.clone()).await;
    unavailable(&a);
    assert!(
        a.body["message"].as_str().unwrap().contains("list"),
        "{}",
        a.text
    );
    assert_eq!(
        app.get(CHECKS, Some(&token)).await.body,
        json!({"checks": []})
    );

    // A list too: checks run.
    import_un(&app).await;
    let ok = checked(&app, &token, body.clone()).await;

    // The policy retired: no active version, nothing checked again.
    app.app
        .services
        .screening_admin
        .retire_policy(&policy.id.to_string())
        .await
        .expect("retiring the policy");
    let a = check(&app, &token, body.clone()).await;
    unavailable(&a);
    assert!(
        a.body["message"].as_str().unwrap().contains("policy"),
        "{}",
        a.text
    );
    let list = app.get(CHECKS, Some(&token)).await;
    assert_eq!(ids(&list), [ok.body["id"].as_str().unwrap().to_owned()]);

    // A new policy: checks name it.
    let next = publish_policy(&app).await;
    let again = checked(&app, &token, body).await;
    assert_eq!(again.body["policy_version_id"], next.id.to_string());
}

#[tokio::test(flavor = "multi_thread")]
async fn scopes_open_the_routes_the_spec_names() {
    let (app, _, _) = ready().await;
    let (c, run) = consumer(&app, "screening:run").await;
    let read = grant(&app, &c, "screening:read", "SE").await;
    let neither = grant(
        &app,
        &c,
        "kyb:read kyc:read events:read monitoring:read",
        "SE",
    )
    .await;

    let made = checked(&app, &run, json!({"name": LISTED_NAME})).await;
    let id = made.body["id"].as_str().unwrap();
    let reads = [
        CHECKS.to_owned(),
        get_check(id),
        "/v1/screening/overrides".to_owned(),
        "/v1/screening/whitelist".to_owned(),
    ];

    // screening:run runs and reads.
    for path in &reads {
        let a = app.get(path, Some(&run)).await;
        assert_eq!(a.status, 200, "{path}: {}", a.text);
    }
    assert_eq!(
        app.get("/v1/screening/overrides", Some(&run)).await.body,
        json!({"versions": []})
    );
    assert_eq!(
        app.get("/v1/screening/whitelist", Some(&run)).await.body,
        json!({"entries": []})
    );
    // screening:read reads, never runs.
    for path in &reads {
        let a = app.get(path, Some(&read)).await;
        assert_eq!(a.status, 200, "{path}: {}", a.text);
    }
    let refused = check(&app, &read, json!({"name": LISTED_NAME})).await;
    assert_eq!((refused.status, refused.error_code()), (403, "forbidden"));
    assert!(refused.body["message"]
        .as_str()
        .unwrap()
        .contains("screening:run"));
    // No screening scope: nothing.
    for path in &reads {
        let a = app.get(path, Some(&neither)).await;
        assert_eq!((a.status, a.error_code()), (403, "forbidden"), "{path}");
    }
    let a = check(&app, &neither, json!({"name": LISTED_NAME})).await;
    assert_eq!((a.status, a.error_code()), (403, "forbidden"));
    // No token: 401.
    assert_eq!(app.get(CHECKS, None).await.status, 401);
    // Only the one check was made.
    assert_eq!(ids(&app.get(CHECKS, Some(&read)).await).len(), 1);
    // A method the path does not serve.
    let put = app
        .http
        .put(app.url(&get_check(id)))
        .bearer_auth(&run)
        .send()
        .await
        .unwrap();
    assert_eq!(put.status(), 405);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_orgnr_is_shown_only_with_kyc_read_and_bad_bodies_name_their_field() {
    let (app, _, _) = ready().await;
    let (c, run) = consumer(&app, "screening:run").await;
    let kyc = grant(&app, &c, "screening:read kyc:read", "SE").await;

    let made = checked(
        &app,
        &run,
        json!({"name": "Volvo Personvagnar", "orgnr": ORGNR}),
    )
    .await;
    let snapshot = &made.body["input_snapshot"];
    assert!(snapshot["orgnr"].is_null(), "{}", made.text);
    assert_eq!(snapshot["identifier_masked"], true);
    assert_eq!(snapshot["name"], "Volvo Personvagnar");
    assert_eq!(made.body["country"], "SE");
    assert!(!made.text.contains(ORGNR));
    let id = made.body["id"].as_str().unwrap();

    let shown = app.get(&get_check(id), Some(&kyc)).await;
    assert_eq!(shown.status, 200, "{}", shown.text);
    assert_eq!(shown.body["input_snapshot"]["orgnr"], format!("se:{ORGNR}"));
    assert_eq!(shown.body["input_snapshot"]["identifier_masked"], false);
    // Masking is the only difference between the two readers.
    let mut unmasked = shown.body.clone();
    unmasked["input_snapshot"]["orgnr"] = Value::Null;
    unmasked["input_snapshot"]["identifier_masked"] = json!(true);
    assert_eq!(unmasked, made.body);
    let masked = app.get(&get_check(id), Some(&run)).await;
    assert_eq!(masked.text, made.text);
    let listed = app.get(CHECKS, Some(&run)).await;
    assert!(!listed.text.contains(ORGNR));
    let listed = app.get(CHECKS, Some(&kyc)).await;
    assert_eq!(listed.body["checks"][0], shown.body);

    // A malformed organisation number.
    for bad in ["5560360794", "556036079", "xx:5560360793", "SE:5560360793"] {
        let a = check(&app, &run, json!({"name": "Volvo", "orgnr": bad})).await;
        assert_eq!(
            (a.status, a.error_code()),
            (400, "invalid_identifier"),
            "{bad}: {}",
            a.text
        );
    }
    // Wrong JSON types and values: 400 naming the field.
    for (body, field) in [
        (json!({"name": 5}), "`name`"),
        (
            json!({"name": "x", "nationalities": "SE"}),
            "`nationalities`",
        ),
        (
            json!({"name": "x", "nationalities": ["SE", 4]}),
            "`nationalities[1]`",
        ),
        (json!({"name": "x", "birth_date": 1978}), "`birth_date`"),
        (
            json!({"name": "x", "birth_date": "28/04/1978"}),
            "`birth_date`",
        ),
        (json!({"name": "x", "country": "Sweden"}), "`country`"),
        (
            json!({"name": "x", "nationalities": ["SWE"]}),
            "`nationalities`",
        ),
        (json!({"subject_id": 7}), "`subject_id`"),
        (json!({"birth_date": "1978"}), "`name`"),
        (json!({"name": "x".repeat(301)}), "`name`"),
        (
            json!({"name": "Anna", "subject_id": "01ARZ3NDEKTSV4RRFFQ69G5FAV"}),
            "`subject_id`",
        ),
    ] {
        let a = check(&app, &run, body.clone()).await;
        assert_eq!(
            (a.status, a.error_code()),
            (400, "bad_request"),
            "{body}: {}",
            a.text
        );
        assert!(
            a.body["message"].as_str().unwrap().contains(field),
            "{body}: {}",
            a.text
        );
    }
    let a = app
        .post_raw(CHECKS, Some(&run), "application/json", b"[1]".to_vec())
        .await;
    assert_eq!((a.status, a.error_code()), (400, "bad_request"));
    // None of them was stored.
    assert_eq!(ids(&app.get(CHECKS, Some(&run)).await), [id.to_owned()]);
}

#[tokio::test(flavor = "multi_thread")]
async fn subject_checks_read_the_person_and_company_registers() {
    let (app, _, _) = ready().await;
    let (c, token) = with_permit(&app, "screening:run kyc:read kyb:read").await;
    let dashed = format!("{}-{}", &persons::ORDINARY[..8], &persons::ORDINARY[8..]);
    let r = app.resolve(&token, "personnummer", &dashed, None).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let person = r.body["subject_id"].as_str().unwrap().to_owned();

    // A person: the register's name and birth date screened, never kept or shown.
    let a = checked(&app, &token, json!({"subject_id": person})).await;
    let k = &a.body;
    assert_eq!(k["subject_id"], person.as_str());
    assert_eq!(k["input_kind"], "subject");
    assert_eq!(k["input_verified"], true);
    assert_eq!(k["country"], "SE");
    let s = &k["input_snapshot"];
    assert_eq!(s["person_fields_masked"], true);
    assert!(s["name"].is_null() && s["birth_date"].is_null(), "{s}");
    assert!(s["orgnr"].is_null() && s["country"].is_null());
    assert_eq!(s["identifier_masked"], false);
    assert!(s["input_hash"]
        .as_str()
        .unwrap()
        .starts_with("hmac-sha256:"));
    assert!(!a.text.contains("Efternamn3542") && !a.text.contains("1957-04-13"));
    let got = app
        .get(&get_check(k["id"].as_str().unwrap()), Some(&token))
        .await;
    assert_eq!(got.text, a.text);
    // The same person again: the same hash (a whitelist entry may name it).
    let again = checked(&app, &token, json!({"subject_id": person})).await;
    assert_eq!(
        without_id_and_time(&again.body),
        without_id_and_time(&a.body)
    );

    // Without kyc:read a person subject is refused; without the permit too.
    let no_kyc = grant(&app, &c, "screening:run kyb:read", "SE").await;
    let refused = check(&app, &no_kyc, json!({"subject_id": person})).await;
    assert_eq!(
        (refused.status, refused.error_code()),
        (403, "forbidden"),
        "{}",
        refused.text
    );
    assert!(refused.body["message"]
        .as_str()
        .unwrap()
        .contains("kyc:read"));
    set_permit(&app, &c, -30, 30, "suspended").await;
    let refused = check(&app, &token, json!({"subject_id": person})).await;
    assert_eq!(
        (refused.status, refused.error_code()),
        (403, "personreg_permit_suspended"),
        "{}",
        refused.text
    );

    // A company: its name and number from the registry's profile.
    let r = app.resolve(&token, "orgnr", TEST_AB, None).await;
    let company = r.body["subject_id"].as_str().unwrap().to_owned();
    let a = checked(&app, &token, json!({"subject_id": company})).await;
    let k = &a.body;
    assert_eq!(k["subject_id"], company.as_str());
    assert_eq!(
        (k["input_kind"].clone(), k["input_verified"].clone()),
        (json!("subject"), json!(true))
    );
    assert_eq!(
        k["input_snapshot"],
        json!({"name": TEST_AB_NAME, "birth_date": null, "country": "SE",
               "orgnr": format!("se:{TEST_AB}"), "nationalities": [], "identifier_masked": false,
               "person_fields_masked": false, "input_hash": k["input_snapshot"]["input_hash"]})
    );
    assert_eq!(k["country"], "SE");
    // Read without kyc:read, the number is masked.
    let masked = app
        .get(&get_check(k["id"].as_str().unwrap()), Some(&no_kyc))
        .await;
    assert_eq!(masked.body["input_snapshot"]["orgnr"], Value::Null);
    assert_eq!(masked.body["input_snapshot"]["identifier_masked"], true);
    assert_eq!(masked.body["input_snapshot"]["name"], TEST_AB_NAME);
    // A company subject needs no kyc:read.
    checked(&app, &no_kyc, json!({"subject_id": company})).await;

    // An unknown subject is 404.
    let a = check(
        &app,
        &token,
        json!({"subject_id": "01ARZ3NDEKTSV4RRFFQ69G5FAV"}),
    )
    .await;
    assert_eq!((a.status, a.error_code()), (404, "not_found"));

    // The person's register data is not in the database in the clear.
    let dump = app.db.dump_text().await;
    assert!(dump.contains("screening_checks"), "the dump is real");
    assert!(!dump.contains("Efternamn3542"));
    for spelling in [
        persons::ORDINARY,
        &persons::ORDINARY[2..],
        &dashed[2..],
        &dashed,
    ] {
        assert!(
            !dump.contains(spelling),
            "the dump holds the personal number"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_name_only_check_is_visible_to_every_grant_of_the_tenant_and_no_other_tenant() {
    let (app, _, _) = ready().await;
    let c = app.provision("screening:run", "SE", "SE,LT").await;
    let se = app.token(&c).await;
    let lt = grant(&app, &c, "screening:read kyc:read", "LT").await;

    let name_only = checked(&app, &se, json!({"name": NEAR_NAME})).await;
    let with_orgnr = checked(&app, &se, json!({"name": "Volvo", "orgnr": ORGNR})).await;
    let (name_id, orgnr_id) = (
        name_only.body["id"].as_str().unwrap(),
        with_orgnr.body["id"].as_str().unwrap(),
    );

    // The Lithuanian grant sees the name-only check, not the Swedish one.
    let got = app.get(&get_check(name_id), Some(&lt)).await;
    assert_eq!(got.status, 200, "{}", got.text);
    assert_eq!(got.text, name_only.text);
    let hidden = app.get(&get_check(orgnr_id), Some(&lt)).await;
    assert_eq!((hidden.status, hidden.error_code()), (404, "not_found"));
    assert_eq!(ids(&app.get(CHECKS, Some(&lt)).await), [name_id.to_owned()]);
    assert_eq!(
        ids(&app.get(CHECKS, Some(&se)).await),
        [orgnr_id.to_owned(), name_id.to_owned()]
    );
    // A Swedish orgnr from the Lithuanian grant is refused by country.
    let other = grant(&app, &c, "screening:run", "LT").await;
    let a = check(&app, &other, json!({"name": "Volvo", "orgnr": ORGNR})).await;
    assert_eq!(
        (a.status, a.error_code()),
        (403, "country_not_granted"),
        "{}",
        a.text
    );

    // Another tenant never sees either.
    let (_, stranger) = consumer(&app, "screening:run kyc:read").await;
    for id in [name_id, orgnr_id] {
        let a = app.get(&get_check(id), Some(&stranger)).await;
        assert_eq!((a.status, a.error_code()), (404, "not_found"));
    }
    assert_eq!(
        app.get(CHECKS, Some(&stranger)).await.body,
        json!({"checks": []})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_whitelisted_candidate_stays_marked_and_no_longer_raises_the_band() {
    let (app, _, _) = ready().await;
    let (c, token) = consumer(&app, "screening:run").await;
    let admin = &app.app.services.screening_admin;
    let input = json!({"name": LISTED_NAME, "birth_date": LISTED_BIRTH});

    let before = checked(&app, &token, input.clone()).await;
    assert_eq!(before.body["band"], "hit");
    let hash = before.body["input_snapshot"]["input_hash"]
        .as_str()
        .unwrap()
        .to_owned();

    // Made by one operator: not in effect until another approves.
    let entry = admin
        .add_whitelist_entry(whitelist_entry(&app, &c, &hash, LISTED_ENTRY))
        .await
        .expect("a whitelist entry");
    let listed = app.get("/v1/screening/whitelist", Some(&token)).await;
    assert_eq!(listed.status, 200, "{}", listed.text);
    let e = &listed.body["entries"][0];
    assert_eq!(e["id"], entry.id.to_string());
    assert_eq!(e["effective"], false);
    assert!(e["approved_by"].is_null());
    let pending = checked(&app, &token, input.clone()).await;
    assert_eq!(pending.body["candidates"][0]["whitelisted"], false);
    assert_eq!(pending.body["band"], "hit");

    // Four eyes: the maker cannot approve.
    let refused = admin
        .approve_whitelist_entry(&c.tenant_id, &entry.id.to_string(), "ops-a")
        .await
        .expect_err("the maker approving");
    assert!(refused.message.contains("four eyes"), "{}", refused.message);
    admin
        .approve_whitelist_entry(&c.tenant_id, &entry.id.to_string(), "ops-b")
        .await
        .expect("another operator approves");
    let listed = app.get("/v1/screening/whitelist", Some(&token)).await;
    assert_eq!(
        listed.body["entries"][0],
        json!({"id": entry.id.to_string(), "subject_id": null, "input_hash": hash,
               "source_id": "un_sc", "source_entry_id": LISTED_ENTRY,
               "reason": "a different person: born in Sweden, no tie to the DRC",
               "created_by": "ops-a", "approved_by": "ops-b",
               "created_at": listed.body["entries"][0]["created_at"],
               "expires_at": listed.body["entries"][0]["expires_at"],
               "revoked_at": null, "effective": true})
    );

    // The same input again: the candidate stays, marked, and the check is clear.
    let after = checked(&app, &token, input.clone()).await;
    let top = &after.body["candidates"][0];
    assert_eq!(top["source_entry_id"], LISTED_ENTRY);
    assert_eq!(top["whitelisted"], true);
    assert_eq!(top["whitelist_id"], entry.id.to_string());
    assert_eq!(top["band"], "hit", "the candidate's own band is kept");
    assert_eq!(top["score"], before.body["candidates"][0]["score"]);
    assert_eq!(after.body["band"], "clear", "{}", after.text);
    // The earlier check is unchanged (append-only).
    let earlier = app
        .get(
            &get_check(before.body["id"].as_str().unwrap()),
            Some(&token),
        )
        .await;
    assert_eq!(earlier.text, before.text);
    // Another input is not cleared by it.
    let other = checked(&app, &token, json!({"name": LISTED_NAME})).await;
    assert_eq!(other.body["candidates"][0]["whitelisted"], false);
    assert_eq!(other.body["band"], "hit");

    // Revoked: the candidate raises the band again.
    admin
        .revoke_whitelist_entry(&c.tenant_id, &entry.id.to_string())
        .await
        .expect("revoking");
    let revoked = checked(&app, &token, input).await;
    assert_eq!(revoked.body["candidates"][0]["whitelisted"], false);
    assert_eq!(revoked.body["band"], "hit");
    let listed = app.get("/v1/screening/whitelist", Some(&token)).await;
    assert_eq!(listed.body["entries"][0]["effective"], false);
    assert!(listed.body["entries"][0]["revoked_at"].is_string());

    // Another tenant's whitelist is its own.
    let (_, stranger) = consumer(&app, "screening:read").await;
    assert_eq!(
        app.get("/v1/screening/whitelist", Some(&stranger))
            .await
            .body,
        json!({"entries": []})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_active_override_bands_the_tenants_checks_and_is_named_by_them() {
    let (app, _, policy) = ready().await;
    let (c, token) = consumer(&app, "screening:read screening:run").await;
    let (_, other_tenant) = consumer(&app, "screening:run").await;
    let admin = &app.app.services.screening_admin;

    let before = checked(&app, &token, json!({"name": NEAR_NAME})).await;
    assert_eq!(before.body["band"], "review");
    let score = before.body["candidates"][0]["score"].as_f64().unwrap();
    assert!(score < 0.90, "{score}");

    // Review raised above the candidate's score, and one weight.
    let mut config = OverrideConfig {
        thresholds: Some((0.90, 0.95)),
        ..OverrideConfig::default()
    };
    assert!(config.weights.set("weak_alias", 0.2));
    let proposed = admin
        .propose_override(&c.tenant_id, config, "ops-a")
        .await
        .expect("proposing");
    let id = proposed.id.to_string();
    let refused = admin
        .approve_override(&c.tenant_id, &id, "ops-a")
        .await
        .expect_err("the proposer approving");
    assert!(refused.message.contains("four eyes"), "{}", refused.message);
    admin
        .approve_override(&c.tenant_id, &id, "ops-b")
        .await
        .expect("approving");
    // Approved, not yet active: checks run under the policy alone.
    let approved = checked(&app, &token, json!({"name": NEAR_NAME})).await;
    assert!(approved.body["tenant_override_version_id"].is_null());
    assert_eq!(approved.body["band"], "review");

    admin
        .activate_override(&c.tenant_id, &id)
        .await
        .expect("activating");
    let versions = app.get("/v1/screening/overrides", Some(&token)).await;
    assert_eq!(versions.status, 200, "{}", versions.text);
    let v = &versions.body["versions"][0];
    assert_eq!(
        *v,
        json!({"id": id, "version": 1,
               "config": {"review": 0.9, "hit": 0.95, "weights": {"weak_alias": 0.2}},
               "proposed_by": "ops-a", "approved_by": "ops-b", "status": "active",
               "effective_from": v["effective_from"], "created_at": v["created_at"]})
    );
    assert!(v["effective_from"].is_string() && v["created_at"].is_string());

    // A check now names the override and bands by it.
    let after = checked(&app, &token, json!({"name": NEAR_NAME})).await;
    assert_eq!(after.body["tenant_override_version_id"], id.as_str());
    assert_eq!(after.body["policy_version_id"], policy.id.to_string());
    let top = &after.body["candidates"][0];
    assert_eq!(top["source_entry_id"], LISTED_ENTRY);
    assert_eq!(top["score"], score, "the thresholds move bands, not scores");
    assert_eq!(top["band"], "clear");
    assert_eq!(after.body["band"], "clear");
    // The exact name still reaches the raised hit threshold.
    let exact = checked(&app, &token, json!({"name": LISTED_NAME})).await;
    assert_eq!(exact.body["band"], "hit");

    // Another tenant is unaffected.
    let theirs = checked(&app, &other_tenant, json!({"name": NEAR_NAME})).await;
    assert!(theirs.body["tenant_override_version_id"].is_null());
    assert_eq!(theirs.body["band"], "review");
    assert_eq!(
        app.get("/v1/screening/overrides", Some(&other_tenant))
            .await
            .body,
        json!({"versions": []})
    );

    // A second, weights-only draft: listed first, its config holding only what it sets.
    let mut weights_only = OverrideConfig::default();
    assert!(weights_only.weights.set("birth_date_exact", 0.1));
    let draft = admin
        .propose_override(&c.tenant_id, weights_only, "ops-b")
        .await
        .expect("a draft");
    let versions = app.get("/v1/screening/overrides", Some(&token)).await;
    let listed = versions.body["versions"].as_array().unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0]["id"], draft.id.to_string());
    assert_eq!(listed[0]["version"], 2);
    assert_eq!(listed[0]["status"], "draft");
    assert_eq!(
        listed[0]["config"],
        json!({"weights": {"birth_date_exact": 0.1}})
    );
    assert!(listed[0]["approved_by"].is_null() && listed[0]["effective_from"].is_null());
    assert_eq!(listed[1]["id"], id.as_str());
}
