//! No table holds a raw personal number: a full dump of the database, after a session of
//! resolves, reads and refusals, is scanned for every number sent.

use blackbox::TestApp;

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
