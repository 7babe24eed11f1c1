//! Subjects: resolve creates on first sight; ids are per tenant and never derived from the
//! identifier; refs are many-to-one and immutable; reads show only the grant's countries.

use blackbox::TestApp;
use serde_json::json;

// Official Skatteverket test personal numbers and Bolagsverket test-environment orgnr.
const TEST_PERSON: &str = "198111309285";
const TEST_COMPANY: &str = "5560021361";

#[tokio::test(flavor = "multi_thread")]
async fn resolve_creates_on_first_sight_and_finds_again() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let token = app.token(&c).await;
    let first = app
        .resolve(&token, "orgnr", TEST_COMPANY, Some("cust-1"))
        .await;
    assert_eq!(first.status, 200, "{}", first.text);
    let keys: Vec<&String> = first.body.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["aliases", "identifier_ref", "subject_id"],
        "un-enveloped resolve response"
    );
    assert_eq!(first.body["aliases"], json!([]));
    let subject_id = first.body["subject_id"].as_str().unwrap();
    assert_eq!(subject_id.len(), 26, "a bare ULID");
    assert!(first.body["identifier_ref"]
        .as_str()
        .unwrap()
        .starts_with("idr_"));

    // Every spelling of the same number is the same identifier.
    for spelling in [
        "556002-1361",
        "se:5560021361",
        "165560021361",
        " 5560021361 ",
    ] {
        let again = app.resolve(&token, "orgnr", spelling, None).await;
        assert_eq!(again.status, 200, "{spelling}: {}", again.text);
        assert_eq!(
            again.body["subject_id"], first.body["subject_id"],
            "{spelling}"
        );
        assert_eq!(again.body["identifier_ref"], first.body["identifier_ref"]);
    }

    let subject = app
        .get(&format!("/v1/subjects/{subject_id}"), Some(&token))
        .await;
    assert_eq!(subject.status, 200, "{}", subject.text);
    let s = &subject.body;
    assert_eq!(s["subject_id"], subject_id);
    assert_eq!(s["tenant_id"], c.tenant_id);
    assert_eq!(s["kind"], "company");
    assert!(s["schema_version"].is_string());
    assert!(s["created_at"].is_string());
    assert_eq!(s["identifiers"].as_array().unwrap().len(), 1);
    assert_eq!(s["identifiers"][0]["type"], "orgnr");
    assert_eq!(s["identifiers"][0]["country"], "SE");
    assert_eq!(
        s["identifiers"][0]["identifier_ref"],
        first.body["identifier_ref"]
    );
    assert!(s["identifiers"][0]["valid_to"].is_null());
    assert_eq!(s["refs"][0]["ref"], "cust-1");
    assert_eq!(s["aliases"], json!([]));
    assert_eq!(s["evidence"]["source"], "customer.identity_event");
    assert_eq!(s["evidence"]["call_ref"], s["evidence"]["transaction_ref"]);
    assert!(
        !subject.text.contains(TEST_COMPANY),
        "the subject object never carries the number"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_number_at_two_tenants_gives_unrelated_subjects() {
    let app = TestApp::spawn().await;
    let a = app.provision("kyc:read kyb:read", "SE", "SE").await;
    let b = app.provision("kyc:read kyb:read", "SE", "SE").await;
    let (ta, tb) = (app.token(&a).await, app.token(&b).await);
    let ra = app.resolve(&ta, "personnummer", TEST_PERSON, None).await;
    let rb = app.resolve(&tb, "personnummer", TEST_PERSON, None).await;
    assert_eq!((ra.status, rb.status), (200, 200));
    assert_ne!(ra.body["subject_id"], rb.body["subject_id"]);
    assert_ne!(ra.body["identifier_ref"], rb.body["identifier_ref"]);
    // And neither tenant can read the other's subject.
    let cross = app
        .get(
            &format!("/v1/subjects/{}", rb.body["subject_id"].as_str().unwrap()),
            Some(&ta),
        )
        .await;
    assert_eq!(cross.status, 404);
    // Stored blind indexes differ too: nothing links the tenants.
    let linked = app
        .db
        .count(
            "subject_identifiers a JOIN subject_identifiers b ON a.blind_index = b.blind_index",
            "a.tenant_id <> b.tenant_id",
        )
        .await;
    assert_eq!(linked, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn refs_are_many_to_one_and_immutable() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let token = app.token(&c).await;
    let first = app.resolve(&token, "orgnr", "5567223705", Some("a")).await;
    let second = app.resolve(&token, "orgnr", "5567223705", Some("b")).await;
    assert_eq!(
        first.body["subject_id"], second.body["subject_id"],
        "two refs, one subject"
    );
    assert_eq!(
        app.resolve(&token, "orgnr", "5567223705", Some("a"))
            .await
            .status,
        200,
        "idempotent"
    );

    let subjects_before = app.db.count("subjects", "true").await;
    let conflict = app.resolve(&token, "orgnr", "9124001992", Some("a")).await;
    assert_eq!(conflict.status, 409);
    assert_eq!(conflict.error_code(), "ref_conflict");
    assert_eq!(
        app.db.count("subjects", "true").await,
        subjects_before,
        "nothing created on conflict"
    );
    let subject = app
        .get(
            &format!(
                "/v1/subjects/{}",
                first.body["subject_id"].as_str().unwrap()
            ),
            Some(&token),
        )
        .await;
    let refs: Vec<&str> = subject.body["refs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ref"].as_str().unwrap())
        .collect();
    assert_eq!(refs, ["a", "b"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_person_resolves_to_an_identifier_ref_only() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyc:read kyb:read", "SE", "SE").await;
    let token = app.token(&c).await;
    let r = app
        .resolve(&token, "personnummer", "19811130-9285", None)
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(!r.text.contains("9285"));
    let s = app
        .get(
            &format!("/v1/subjects/{}", r.body["subject_id"].as_str().unwrap()),
            Some(&token),
        )
        .await;
    assert_eq!(s.body["kind"], "person");
    assert!(!s.text.contains("811130"));
    let coordination = app
        .resolve(&token, "samordningsnummer", "198111852383", None)
        .await;
    // An official test coordination number (day of month plus 60).
    assert_eq!(coordination.status, 200, "{}", coordination.text);
    assert!(!coordination.text.contains("811185"));
    let s = app
        .get(
            &format!(
                "/v1/subjects/{}",
                coordination.body["subject_id"].as_str().unwrap()
            ),
            Some(&token),
        )
        .await;
    assert_eq!(s.body["kind"], "person");
    assert_eq!(s.body["identifiers"][0]["type"], "samordningsnummer");
    assert_ne!(
        s.body["subject_id"], r.body["subject_id"],
        "a different person"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn reads_show_only_identifiers_in_the_grants_countries() {
    let app = TestApp::spawn().await;
    let both = app.provision("kyb:read", "SE,LT", "SE,LT").await;
    let token = app.token(&both).await;
    let lt = app
        .resolve(&token, "imones-kodas", "lt:110443493", None)
        .await;
    assert_eq!(lt.status, 200);
    let id = lt.body["subject_id"].as_str().unwrap().to_owned();
    let visible = app.get(&format!("/v1/subjects/{id}"), Some(&token)).await;
    assert_eq!(visible.body["identifiers"][0]["country"], "LT");

    // A second grant of the same tenant, SE only: the LT-only subject does not exist for it.
    let se_only = app.grant(&both.tenant_id, "kyb:read", "SE").await;
    let se_token = app.token(&se_only).await;
    let hidden = app
        .get(&format!("/v1/subjects/{id}"), Some(&se_token))
        .await;
    assert_eq!(hidden.status, 404);
    assert_eq!(hidden.error_code(), "not_found");
}

#[tokio::test(flavor = "multi_thread")]
async fn identifiers_are_validated_with_the_specs_codes() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read kyc:read", "SE,LT", "SE,LT").await;
    let token = app.token(&c).await;
    let cases = [
        ("orgnr", "5560021362", "invalid_identifier"), // check digit
        ("orgnr", "SE:5560021361", "invalid_identifier"), // prefix not lower case
        ("orgnr", "de:5560021361", "invalid_identifier"), // unknown prefix
        ("personnummer", "lt:19811130-9285", "invalid_identifier"), // type does not fit the prefix
        ("imones-kodas", "110443493", "invalid_identifier"), // unprefixed means se:
        ("personnummer", "19811131-9285", "invalid_identifier"), // no such date
        ("passport", "X1", "bad_request"),
    ];
    for (ty, value, code) in cases {
        let a = app.resolve(&token, ty, value, None).await;
        assert_eq!(a.status, 400, "{ty} {value}: {}", a.text);
        assert_eq!(a.error_code(), code, "{ty} {value}");
        let digits: String = value.chars().filter(char::is_ascii_digit).collect();
        assert!(
            !a.text.contains(&digits),
            "the message never repeats the value: {}",
            a.text
        );
    }
    let missing = app
        .post_json(
            "/v1/subjects/resolve",
            Some(&token),
            &json!({"type": "orgnr"}),
        )
        .await;
    assert_eq!(missing.error_code(), "bad_request");
    assert!(missing.body["message"].as_str().unwrap().contains("value"));
    let wrong_type = app
        .post_json(
            "/v1/subjects/resolve",
            Some(&token),
            &json!({"type": "orgnr", "value": 5560021361u64}),
        )
        .await;
    assert_eq!(wrong_type.error_code(), "bad_request");
    assert!(!wrong_type.text.contains("5560021361"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_merge_keeps_the_old_id_as_an_alias_and_logs_one_event() {
    let app = TestApp::spawn().await;
    let c = app
        .provision("kyb:read kyc:read events:read", "SE", "SE")
        .await;
    let token = app.token(&c).await;
    // One person known under a coordination number and, later, a personal number.
    let older = app
        .resolve(
            &token,
            "samordningsnummer",
            "199012652385",
            Some("cust-old"),
        )
        .await;
    let newer = app
        .resolve(&token, "personnummer", "195704133106", Some("cust-new"))
        .await;
    let (from, into) = (
        older.body["subject_id"].as_str().unwrap().to_owned(),
        newer.body["subject_id"].as_str().unwrap().to_owned(),
    );
    let merged = app
        .admin(&["subject", "merge", &c.tenant_id, &from, &into])
        .await
        .unwrap();
    assert_eq!(merged["subject_id"], into.as_str());
    assert_eq!(merged["aliases"], serde_json::json!([from]));
    assert_eq!(merged["identifiers"], 2);

    // The old id resolves one hop to the canonical subject, which holds both identifiers.
    for id in [&from, &into] {
        let s = app.get(&format!("/v1/subjects/{id}"), Some(&token)).await;
        assert_eq!(s.status, 200, "{}", s.text);
        assert_eq!(s.body["subject_id"], into.as_str());
        assert_eq!(s.body["aliases"], serde_json::json!([from]));
        assert_eq!(s.body["identifiers"].as_array().unwrap().len(), 2);
        assert_eq!(s.body["refs"].as_array().unwrap().len(), 2);
    }
    // Resolving the old number finds the canonical subject.
    let again = app
        .resolve(&token, "samordningsnummer", "199012652385", None)
        .await;
    assert_eq!(again.body["subject_id"], into.as_str());
    assert_eq!(again.body["aliases"], serde_json::json!([from]));

    // One event, under the canonical subject and its country.
    let log = app
        .get("/v1/events?types=subject.merged", Some(&token))
        .await;
    let events = log.body["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{}", log.text);
    assert_eq!(events[0]["subject_id"], into.as_str());
    assert_eq!(events[0]["country"], "SE");
    assert_eq!(events[0]["data"]["merged_subject_id"], from.as_str());
    assert_eq!(events[0]["evidence"]["source"], "service.merge");

    // Refusals: merging an alias, a subject into itself, a company into a person.
    let company = app.resolve(&token, "orgnr", "5560021361", None).await;
    let company = company.body["subject_id"].as_str().unwrap().to_owned();
    for (a, b) in [(&from, &into), (&into, &into), (&company, &into)] {
        let e = app
            .admin(&["subject", "merge", &c.tenant_id, a, b])
            .await
            .unwrap_err();
        assert_eq!(e["error"], "bad_request", "{e}");
    }
}
