//! No table holds a raw personal number: a full dump of the database, after a session of
//! resolves, reads and refusals, is scanned for every number sent. After a session over
//! every person marker state, the dump, every log line and every REST and MCP body are
//! scanned for the protected persons' addresses and for the raw personal numbers.

use crate::mcp::call_tool;
use crate::persons::{id_type, person_ref, set_permit, with_permit};
use blackbox::TestApp;
use serde_json::json;
use upstream_sandbox::spar::persons;
use upstream_sandbox::{FaultSpec, Source};

// Official Skatteverket test numbers (personnummer and samordningsnummer).
const NUMBERS: [&str; 3] = ["198111309285", "195309112489", "197110021834"];

#[tokio::test(flavor = "multi_thread")]
async fn a_database_dump_holds_none_of_the_personal_numbers_sent() {
    let app = TestApp::spawn().await;
    let a = app.provision("kyc:read kyb:read", "SE", "SE").await;
    let b = app.provision("kyc:read", "SE", "SE").await;
    for c in [&a, &b] {
        let token = app.token(c).await;
        for (i, n) in NUMBERS.iter().enumerate() {
            let dashed = format!("{}-{}", &n[..8], &n[8..]);
            let r = app
                .resolve(&token, "personnummer", &dashed, Some(&format!("ref-{i}")))
                .await;
            assert_eq!(r.status, 200, "{}", r.text);
            let id = r.body["subject_id"].as_str().unwrap();
            app.get(&format!("/v1/subjects/{id}"), Some(&token)).await;
            // A refused and a failed request with the number in them too.
            app.resolve(&token, "personnummer", &format!("lt:{n}"), None)
                .await;
            app.get(&format!("/v1/subjects/{n}"), Some(&token)).await;
        }
    }
    let dump = app.db.dump_text().await;
    assert!(dump.contains("subject_identifiers"), "the dump is real");
    for n in NUMBERS {
        for needle in [
            n.to_owned(),
            n[2..].to_owned(),
            format!("{}-{}", &n[2..8], &n[8..]),
        ] {
            assert!(
                !dump.contains(&needle),
                "the dump contains a personal number"
            );
        }
    }
}

/// The spellings of a 12-digit number a leak could take.
fn spellings(n: &str) -> [String; 4] {
    [
        n.to_owned(),
        n[2..].to_owned(),
        format!("{}-{}", &n[2..8], &n[8..]),
        format!("{}-{}", &n[..8], &n[8..]),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn no_protected_address_and_no_number_leaves_through_any_surface_store_or_log() {
    let logs = blackbox::logs::capture();
    let app = TestApp::spawn().await;
    let (c, token) = with_permit(&app, "kyc:read kyb:read").await;
    let everyone: Vec<&str> = persons::RECORDED
        .iter()
        .chain(&persons::SYNTHETIC)
        .copied()
        .collect();
    let mut bodies = Vec::new();
    for n in &everyone {
        let dashed = format!("{}-{}", &n[..8], &n[8..]);
        // REST: resolve, profile (register), profile again (cache), the subject.
        let r = person_ref(&app, &token, n).await;
        for _ in 0..2 {
            let a = app.get(&format!("/v1/persons/{r}"), Some(&token)).await;
            assert_eq!(a.status, 200, "{}", a.text);
            bodies.push(a.text);
        }
        let id = app.resolve(&token, id_type(n), &dashed, None).await;
        bodies.push(id.text.clone());
        let subject = id.body["subject_id"].as_str().unwrap().to_owned();
        bodies.push(
            app.get(&format!("/v1/subjects/{subject}"), Some(&token))
                .await
                .text,
        );
        // MCP: lookup_person (every spelling of the number) and get_person_profile.
        let result = call_tool(
            &app,
            &token,
            "lookup_person",
            json!({"identifier": dashed, "type": id_type(n)}),
        )
        .await;
        assert_eq!(result["isError"], false, "{result}");
        bodies.push(result.to_string());
        let result = call_tool(&app, &token, "get_person_profile", json!({"ref": r})).await;
        bodies.push(result.to_string());
    }
    // Failures carry nothing either: the register down past the window, a garbled answer,
    // an answer about another person, a refused tenant.
    app.clock.advance(chrono::Duration::hours(25));
    let token = app.token(&c).await;
    for fault in [
        FaultSpec::http_5xx(503),
        FaultSpec::field_fel("ANNAN_PERSON", None),
        FaultSpec::field_fel("UNDANTAG", None),
    ] {
        app.sandbox()
            .inject_fault(Source::Personsokning, fault.times(1))
            .unwrap();
        let r = person_ref(&app, &token, persons::SEKRETESS).await;
        let a = app.get(&format!("/v1/persons/{r}"), Some(&token)).await;
        assert_eq!(a.status, 503, "{}", a.text);
        bodies.push(a.text);
    }
    set_permit(&app, &c, -30, 30, "suspended").await;
    let result = call_tool(
        &app,
        &token,
        "lookup_person",
        json!({"identifier": persons::SKYDDAD, "type": "personnummer"}),
    )
    .await;
    bodies.push(result.to_string());

    let dump = app.db.dump_text().await;
    assert!(dump.contains("person_profiles"), "the dump is real");
    let logs = logs.map(|l| l.text()).unwrap_or_default();
    assert!(
        logs.contains("upstream call"),
        "the log capture holds the server's lines"
    );
    let surfaces = [
        ("database dump", dump),
        ("log", logs),
        ("bodies", bodies.join("\n")),
    ];
    for (surface, text) in &surfaces {
        for address in persons::PROTECTED_ADDRESS_TEXTS {
            assert!(
                !text.contains(address),
                "the {surface} contains a protected person's address ({address})"
            );
        }
        for n in &everyone {
            for spelling in spellings(n) {
                assert!(
                    !text.contains(&spelling),
                    "the {surface} contains a personal number"
                );
            }
        }
    }
    // Person data is sealed at rest: no name of the register's is in the dump.
    let dump = &surfaces[0].1;
    for name in [
        "Efternamn3542",
        "Sekretessdotter",
        "Utvandrare",
        "Samordnare",
    ] {
        assert!(
            !dump.contains(name),
            "the dump holds person data in the clear"
        );
    }
}
