//! The interface contract: `GET /openapi.json` serves the document the code generates, which
//! is the committed snapshot `contract/openapi.json`, and every operation it documents is routed.

use blackbox::TestApp;
use serde_json::Value;

fn committed(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../contract")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_served_openapi_document_is_the_generated_one_and_the_committed_snapshot() {
    let app = TestApp::spawn().await;
    // No credential is needed.
    let a = app.get("/openapi.json", None).await;
    assert_eq!(a.status, 200, "{}", a.text);
    let content_type = a.headers["content-type"].to_str().unwrap();
    assert!(
        content_type.starts_with("application/json"),
        "{content_type}"
    );

    assert_eq!(
        a.text,
        api_rest::openapi::ServedDocument::new(&idreg::countries::evidence_sources()).text(),
        "the served document is the generated one"
    );
    assert_eq!(
        a.text,
        committed("openapi.json"),
        "the served document is the committed snapshot: run `cargo xtask contract bless`"
    );
    assert_eq!(a.body["openapi"], "3.1.0");
    assert_eq!(a.body["info"]["version"], committed("VERSION").trim());
}

#[tokio::test(flavor = "multi_thread")]
async fn every_documented_operation_is_routed() {
    let app = TestApp::spawn().await;
    let doc: Value = serde_json::from_str(&committed("openapi.json")).unwrap();
    for (template, item) in doc["paths"].as_object().unwrap() {
        // A value for every path parameter; the answer only has to come from the route.
        let path = template
            .replace("{orgnr}", "5560021361")
            .replace("{id}", "01ARZ3NDEKTSV4RRFFQ69G5FAV");
        for method in item.as_object().unwrap().keys() {
            let a = match method.as_str() {
                "get" => app.get(&path, None).await,
                "post" => app.post_json(&path, None, &serde_json::json!({})).await,
                other => panic!("no request helper for {other}"),
            };
            let documented = item[method]["responses"]
                .as_object()
                .unwrap()
                .contains_key(&a.status.to_string());
            assert!(
                documented,
                "{method} {template} answered {} which it does not document: {}",
                a.status, a.text
            );
            assert_ne!(
                a.body["message"], "no such route",
                "{method} {template} is documented but not routed"
            );
        }
    }
}
