//! The error model: every error is `{error, message}` with the spec's codes.

use blackbox::TestApp;

#[tokio::test(flavor = "multi_thread")]
async fn unknown_routes_are_a_json_404_that_does_not_echo_the_path() {
    let app = TestApp::spawn().await;
    for path in ["/v1/nothing-here", "/v1/companies/5560021361/nonsense", "/"] {
        let a = app.get(path, None).await;
        assert_eq!(a.status, 404, "{path}");
        assert_eq!(a.error_code(), "not_found");
        assert!(a.body["message"].is_string());
        assert!(!a.text.contains("5560021361"));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_known_path_with_a_method_it_does_not_serve_is_405_naming_the_one_it_does() {
    let app = TestApp::spawn().await;
    let cases = [
        (reqwest::Method::GET, "/v1/subjects/resolve", "POST"),
        (reqwest::Method::GET, "/oauth/token", "POST"),
        (
            reqwest::Method::DELETE,
            "/v1/subjects/01ARZ3NDEKTSV4RRFFQ69G5FAV",
            "GET",
        ),
        (reqwest::Method::POST, "/v1/companies/5560021361", "GET"),
        (reqwest::Method::PUT, "/v1/documents/x", "GET"),
        (reqwest::Method::PATCH, "/openapi.json", "GET"),
        (reqwest::Method::GET, "/mcp", "POST"),
        // A path serving two methods lists both.
        (reqwest::Method::DELETE, "/v1/subscriptions", "GET, POST"),
        (reqwest::Method::PUT, "/v1/screening/checks", "GET, POST"),
    ];
    for (method, path, allow) in cases {
        let a = blackbox::answer(
            app.http
                .request(method.clone(), app.url(path))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(a.status, 405, "{method} {path}: {}", a.text);
        assert_eq!(a.error_code(), "method_not_allowed", "{method} {path}");
        assert_eq!(a.headers["allow"], allow, "{method} {path}");
        assert!(!a.text.contains("5560021361"), "the path is not echoed");
    }
    // Nothing reached a route: no audit row, no security row.
    assert_eq!(app.db.count("audit_log", "true").await, 0);
    assert_eq!(app.db.count("security_log", "true").await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn malformed_json_and_missing_fields_are_bad_request_naming_the_field() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let token = app.token(&c).await;
    let cases: [(&[u8], &str); 5] = [
        (b"{\"type\": ", "body"),
        (b"[]", "body"),
        (b"", "body"),
        (b"{\"value\": \"5560021361\"}", "type"),
        (
            b"{\"type\": \"orgnr\", \"value\": \"5560021361\", \"ref\": 7}",
            "ref",
        ),
    ];
    for (body, field) in cases {
        let a = app
            .post_raw(
                "/v1/subjects/resolve",
                Some(&token),
                "application/json",
                body.to_vec(),
            )
            .await;
        assert_eq!(a.status, 400, "{}", a.text);
        assert_eq!(a.error_code(), "bad_request");
        assert!(
            a.body["message"].as_str().unwrap().contains(field),
            "{field}: {}",
            a.text
        );
    }
    let big = vec![b' '; 70 * 1024];
    let a = app
        .post_raw(
            "/v1/subjects/resolve",
            Some(&token),
            "application/json",
            big,
        )
        .await;
    assert_eq!(a.status, 400);
    assert_eq!(a.error_code(), "bad_request");
}

#[tokio::test(flavor = "multi_thread")]
async fn every_answer_carries_a_request_id() {
    let app = TestApp::spawn().await;
    let a = app
        .get("/v1/subjects/01ARZ3NDEKTSV4RRFFQ69G5FAV", None)
        .await;
    let id = a.headers["x-request-id"].to_str().unwrap();
    assert!(id.starts_with("req_"));
    // The security log row carries the same id, so support can find it.
    assert_eq!(
        app.db
            .count("security_log", &format!("request_id = '{id}'"))
            .await,
        1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_database_outage_is_a_503_without_detail() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let token = app.token(&c).await;
    // Take the store away under the running app.
    let outage = app.db.outage().await;
    let a = app
        .get("/v1/subjects/01ARZ3NDEKTSV4RRFFQ69G5FAV", Some(&token))
        .await;
    // The storage could not be reached: 503 with a retry hint, never 500, never the cause.
    assert_eq!(a.status, 503, "{}", a.text);
    assert_eq!(a.error_code(), "upstream_unavailable");
    assert_eq!(
        a.body["message"],
        "the service's storage is unavailable; retry shortly"
    );
    assert_eq!(a.headers.get("retry-after").unwrap(), "5");
    drop(outage);
    // Back: the same request is answered again.
    let a = app
        .get("/v1/subjects/01ARZ3NDEKTSV4RRFFQ69G5FAV", Some(&token))
        .await;
    assert_eq!(a.status, 404, "{}", a.text);
}
