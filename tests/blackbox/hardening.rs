//! What an attacker, a merge and a Unicode digit found (issue 18), probed as a client would:
//! a token built to stall the Datalog engine, personal numbers spelt in other scripts or with
//! unknown date parts in a screening name, and the customer reference on logged events.

use crate::mcp::{mcp, rpc};
use crate::screening::ready;
use blackbox::TestApp;
use serde_json::{json, Value};

const ALL_SCOPES: &str = "identity:read kyb:read kyc:read monitoring:read monitoring:subscribe decisions:write events:read screening:read screening:run kyb:refresh";

/// A valid token of the tenant with one appended block of 200 facts and a rule joining them
/// three ways: refused (401) after one parse, and ordinary reads sent meanwhile are answered.
#[tokio::test(flavor = "multi_thread")]
async fn a_join_bomb_token_is_refused_and_holds_no_worker() {
    use biscuit_auth::BlockBuilder;
    let app = TestApp::spawn_with_sandbox().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let token = app.token(&c).await;
    let subject = app.resolve(&token, "orgnr", "5560021361", None).await;
    let path = format!(
        "/v1/subjects/{}",
        subject.body["subject_id"].as_str().unwrap()
    );

    // The holder appends a block: no key is needed for that, only the token.
    let unverified = biscuit_auth::UnverifiedBiscuit::from_base64(&token).expect("a biscuit");
    let facts: String = (0..200).map(|i| format!("n({i});")).collect();
    let bomb = unverified
        .append(
            BlockBuilder::new()
                .code(format!("{facts} p($a, $b, $c) <- n($a), n($b), n($c);"))
                .expect("the block's code"),
        )
        .expect("appended")
        .to_base64()
        .expect("encoded");
    assert!(
        bomb.len() < 8 * 1024,
        "{} bytes: within the size limit",
        bomb.len()
    );
    // Also a shorter-lived attenuation, which is what appended blocks are for: admitted.
    let shorter = unverified
        .append(
            BlockBuilder::new()
                .code("check if time($t), $t < 2099-01-01T00:00:00Z;")
                .expect("the block's code"),
        )
        .expect("appended")
        .to_base64()
        .expect("encoded");

    let bombs: Vec<_> = (0..4)
        .map(|_| {
            let (http, url, bomb) = (app.http.clone(), app.url(&path), bomb.clone());
            tokio::spawn(async move {
                let r = http
                    .get(url)
                    .bearer_auth(bomb)
                    .send()
                    .await
                    .expect("request");
                let status = r.status().as_u16();
                let body: Value = r.json().await.unwrap_or(Value::Null);
                (status, body)
            })
        })
        .collect();
    let ordinary: Vec<_> = (0..12)
        .map(|_| {
            let (http, url, token) = (app.http.clone(), app.url(&path), token.clone());
            tokio::spawn(async move {
                http.get(url)
                    .bearer_auth(token)
                    .send()
                    .await
                    .expect("request")
                    .status()
                    .as_u16()
            })
        })
        .collect();
    for read in ordinary {
        assert_eq!(read.await.unwrap(), 200);
    }
    for refused in bombs {
        let (status, body) = refused.await.unwrap();
        assert_eq!(status, 401, "{body}");
        assert_eq!(body["error"], "unauthorized", "{body}");
    }
    let attenuated = app.get(&path, Some(&shorter)).await;
    assert_eq!(attenuated.status, 200, "{}", attenuated.text);
    // The refusals are in the security log, as any forged token's.
    assert!(
        app.db.count("security_log", "status = 401").await >= 4,
        "the bombs are logged"
    );
}

/// Names that spell a personal number in other scripts, or a coordination number with an
/// unknown month or day, are refused like the ASCII spelling, over REST and MCP, unechoed,
/// and nothing is stored.
#[tokio::test(flavor = "multi_thread")]
async fn a_personal_number_in_any_script_or_with_unknown_date_parts_is_refused() {
    let (app, _, _) = ready().await;
    let c = app.provision(ALL_SCOPES, "SE", "SE").await;
    let token = app.token(&c).await;
    let names = [
        // Skatteverket's test number 19811130-9285 in fullwidth, Arabic-Indic, Devanagari
        // and mixed digits; then Skatteverket's test coordination numbers with an unknown day
        // or month.
        "Anna \u{FF18}\u{FF11}\u{FF11}\u{FF11}\u{FF13}\u{FF10}-\u{FF19}\u{FF12}\u{FF18}\u{FF15}",
        "Anna \u{0668}\u{0661}\u{0661}\u{0661}\u{0663}\u{0660}\u{0669}\u{0662}\u{0668}\u{0665}",
        "Anna \u{096E}\u{0967}\u{0967}\u{0967}\u{0969}\u{0966}-\u{096F}\u{0968}\u{096E}\u{096B}",
        "Anna 8\u{FF11}1\u{0661}30 - 9\u{0968}85",
        "Anna 81113\u{200B}0-9285",
        "Nils 171160+2399",
        "Nils 19150072-2390",
    ];
    let mut texts = Vec::new();
    for name in names {
        let a = app
            .post_json("/v1/screening/checks", Some(&token), &json!({"name": name}))
            .await;
        assert_eq!(
            (a.status, a.error_code()),
            (400, "name_is_identifier"),
            "{name:?}: {}",
            a.text
        );
        texts.push(a.text);
        let m = mcp(
            &app,
            &token,
            &rpc(
                1,
                "tools/call",
                json!({"name": "screen_subject", "arguments": {"name": name}}),
            ),
        )
        .await;
        assert_eq!(m.body["result"]["isError"], true, "{}", m.text);
        assert!(m.text.contains("name_is_identifier"), "{}", m.text);
        texts.push(m.text);
    }
    for text in &texts {
        for name in names {
            let digits = name.split_once(' ').unwrap().1;
            assert!(!text.contains(digits), "echoed: {text}");
        }
        assert!(
            !text.contains("Anna") && !text.contains("Nils"),
            "echoed: {text}"
        );
    }
    let list = app.get("/v1/screening/checks", Some(&token)).await;
    assert_eq!(list.body, json!({"checks": []}), "{}", list.text);
    assert_eq!(app.db.count("screening_checks", "true").await, 0);
}

/// A logged event names the subject's customer reference: the first one attached.
#[tokio::test(flavor = "multi_thread")]
async fn events_carry_the_subjects_first_customer_reference() {
    let app = TestApp::spawn_with_sandbox().await;
    let c = app.provision(ALL_SCOPES, "SE", "SE").await;
    let token = app.token(&c).await;
    let first = app
        .resolve(&token, "orgnr", "5560021361", Some("cust-17"))
        .await;
    assert_eq!(first.status, 200, "{}", first.text);
    app.clock.advance(chrono::Duration::seconds(5));
    let second = app
        .resolve(&token, "orgnr", "5560021361", Some("a-later-ref"))
        .await;
    assert_eq!(second.status, 200, "{}", second.text);
    let subject_id = first.body["subject_id"].as_str().unwrap();
    let created = app
        .post_json(
            "/v1/subscriptions",
            Some(&token),
            &json!({"subject_id": subject_id, "kind": "company", "legal_basis": "aml_cdd"}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    let page = app.get("/v1/events?cursor=0", Some(&token)).await;
    let events = page.body["events"].as_array().expect("events");
    let about: Vec<&Value> = events
        .iter()
        .filter(|e| e["subject_id"] == subject_id)
        .collect();
    assert!(!about.is_empty(), "{}", page.text);
    for e in about {
        assert_eq!(e["ref"], "cust-17", "{e}");
    }
}

/// A 400 `bad_request` whose message names `field` first.
fn refused_naming(a: &blackbox::Answer, field: &str) {
    assert_eq!(
        (a.status, a.error_code()),
        (400, "bad_request"),
        "{}",
        a.text
    );
    let message = a.body["message"].as_str().unwrap_or("");
    assert!(message.starts_with(&format!("`{field}`")), "{}", a.text);
}

/// Free text that is stored and logged as sent (a customer reference, a legal-basis
/// reference) never carries a personal number: refused naming the field, unechoed, nothing
/// stored.
#[tokio::test(flavor = "multi_thread")]
async fn references_holding_a_personal_number_are_refused() {
    let app = TestApp::spawn_with_sandbox().await;
    let c = app.provision(ALL_SCOPES, "SE", "SE").await;
    let token = app.token(&c).await;
    for reference in [
        "19811130-9285",
        "cust 811130 9285",
        "\u{FF18}\u{FF11}\u{FF11}\u{FF11}\u{FF13}\u{FF10}\u{FF19}\u{FF12}\u{FF18}\u{FF15}",
    ] {
        let a = app
            .resolve(&token, "orgnr", "5560021361", Some(reference))
            .await;
        refused_naming(&a, "ref");
        assert!(
            !a.text.contains("9285") && !a.text.contains('\u{FF15}'),
            "{}",
            a.text
        );
    }
    assert_eq!(
        app.db.count("subjects", "true").await,
        0,
        "nothing was created"
    );
    let subject = app
        .resolve(&token, "orgnr", "5560021361", Some("cust-17"))
        .await;
    let subject_id = subject.body["subject_id"].as_str().unwrap();
    let a = app
        .post_json(
            "/v1/subscriptions",
            Some(&token),
            &json!({"subject_id": subject_id, "kind": "company", "legal_basis": "aml_cdd",
                    "legal_basis_ref": "KYC file of 19811130-9285"}),
        )
        .await;
    refused_naming(&a, "legal_basis_ref");
    assert_eq!(app.db.count("subscriptions", "true").await, 0);
    let dump = app.db.dump_text().await;
    for spelling in ["198111309285", "8111309285", "811130-9285", "811130 9285"] {
        assert!(!dump.contains(spelling), "the database holds {spelling}");
    }
}
