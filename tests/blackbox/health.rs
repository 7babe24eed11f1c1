//! The orchestrator's probes: `/healthz` answers without reading anything, `/readyz` names
//! each thing a request needs and answers 503 while one is missing. Neither needs a
//! credential, carries tenant data or writes an audit row.

use crate::screening::import_un;
use blackbox::store::StoreKind;
use blackbox::{Answer, TestApp};
use serde_json::Value;
use std::time::Duration;

fn check<'a>(answer: &'a Answer, name: &str) -> &'a Value {
    answer.body["checks"]
        .as_array()
        .expect("the checks")
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("a `{name}` check in {}", answer.text))
}

#[tokio::test(flavor = "multi_thread")]
async fn liveness_and_readiness_answer_without_credentials_or_audit() {
    let app = TestApp::spawn().await;
    let live = app.get("/healthz", None).await;
    assert_eq!(live.status, 200, "{}", live.text);
    assert_eq!(live.body, serde_json::json!({"status": "ok"}));
    assert_eq!(live.headers["cache-control"], "no-store");

    let ready = app.get("/readyz", None).await;
    assert_eq!(ready.status, 200, "{}", ready.text);
    assert_eq!(ready.body["status"], "ready");
    assert_eq!(ready.headers["cache-control"], "no-store");
    let names: Vec<&str> = ready.body["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["store", "migrations", "keys", "screening_index", "mail"]
    );
    // The keys are compared with the store's record of them, and named by fingerprint.
    let keys = check(&ready, "keys")["detail"].as_str().unwrap().to_owned();
    assert!(
        keys.contains("ed25519-sha256:") && keys.contains("hmac-sha256:"),
        "{keys}"
    );
    // The test app runs on the sandbox: its portal mail goes to the sandbox's mailbox.
    assert!(check(&ready, "mail")["detail"]
        .as_str()
        .unwrap()
        .contains("sandbox's mailbox"));
    assert!(ready.body["checks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["ok"] == true));
    assert_eq!(
        check(&ready, "screening_index")["detail"],
        "no sanctions list is active"
    );
    assert!(check(&ready, "migrations")["detail"]
        .as_str()
        .unwrap()
        .starts_with("at "));

    // Another method is 405 naming GET; nothing was audited or logged as a refusal.
    let post = app
        .http
        .post(app.url("/readyz"))
        .send()
        .await
        .expect("request");
    assert_eq!(post.status(), 405);
    assert_eq!(post.headers()["allow"], "GET");
    assert_eq!(app.db.count("audit_log", "true").await, 0);
    assert_eq!(app.db.count("security_log", "true").await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn readiness_waits_for_the_index_of_newly_active_lists_and_starts_its_build() {
    let app = TestApp::spawn().await;
    // A list made active behind the running service's back (as `idreg lists import` from
    // another process does): the index is not built yet.
    import_un(&app).await;
    let first = app.get("/readyz", None).await;
    assert_eq!(first.status, 503, "{}", first.text);
    assert_eq!(first.body["status"], "not_ready");
    let index = check(&first, "screening_index");
    assert_eq!(index["ok"], false);
    assert_eq!(
        index["detail"],
        "sanctions lists are active and their index is not built yet"
    );
    assert_eq!(check(&first, "store")["ok"], true);
    // The probe started the build: polling sees it done.
    let mut last = first;
    for _ in 0..100 {
        last = app.get("/readyz", None).await;
        if last.status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(last.status, 200, "{}", last.text);
    let detail = check(&last, "screening_index")["detail"].as_str().unwrap();
    assert!(detail.ends_with("entries indexed"), "{detail}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_store_outage_is_not_ready_while_liveness_holds() {
    let app = TestApp::spawn().await;
    assert_eq!(app.get("/readyz", None).await.status, 200);
    let outage = app.db.outage().await;
    let live = app.get("/healthz", None).await;
    assert_eq!(live.status, 200, "liveness reads nothing");
    let ready = app.get("/readyz", None).await;
    match app.db.kind() {
        StoreKind::Postgres => {
            assert_eq!(ready.status, 503, "{}", ready.text);
            assert_eq!(check(&ready, "store")["ok"], false);
            assert_eq!(check(&ready, "store")["detail"], "unreachable");
            assert!(
                !ready.text.contains("postgres"),
                "no connection detail: {}",
                ready.text
            );
        }
        // The embedded store's outage is its write lock held by another process: reads go
        // on beside it (WAL), so the service is still ready to answer them.
        StoreKind::Sqlite => assert_eq!(ready.status, 200, "{}", ready.text),
    }
    drop(outage);
    let mut back = app.get("/readyz", None).await;
    for _ in 0..50 {
        if back.status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        back = app.get("/readyz", None).await;
    }
    assert_eq!(back.status, 200, "ready again: {}", back.text);
}
