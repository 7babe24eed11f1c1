//! Problem details (RFC 9457) negotiated by `Accept`: the RFC's members beside the API's own
//! on every kind of error answer, the plain body for everyone else, and each `type` URI a
//! page of the served documentation.

use blackbox::{answer, Answer, TestApp};
use domain::ErrorCode;

const PROBLEM: &str = "application/problem+json";

async fn get_as(app: &TestApp, path: &str, token: Option<&str>, accept: &str) -> Answer {
    let mut request = app.http.get(app.url(path)).header("accept", accept);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    answer(request.send().await.unwrap()).await
}

fn content_type(a: &Answer) -> &str {
    a.headers["content-type"].to_str().unwrap()
}

/// The RFC's members are right and the API's error body is all there.
fn assert_problem(a: &Answer, status: u16, code: &str) {
    assert_eq!(a.status, status, "{}", a.text);
    assert_eq!(content_type(a), PROBLEM);
    let b = &a.body;
    assert_eq!(b["status"], status);
    assert_eq!(b["error"], code);
    assert_eq!(b["detail"], b["message"]);
    assert!(b["type"]
        .as_str()
        .unwrap()
        .ends_with(&format!("/docs/errors/{code}")));
    assert!(!b["title"].as_str().unwrap().is_empty());
    let request_id = a.headers["x-request-id"].to_str().unwrap();
    assert_eq!(b["instance"], format!("urn:idreg:request:{request_id}"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_that_asks_gets_problem_details_and_every_other_gets_the_plain_body() {
    let app = TestApp::spawn_with_sandbox().await;
    let c = app.provision("kyb:read events:read", "SE", "SE").await;
    let token = app.token(&c).await;

    // 401 from the guard.
    let plain = app.get("/v1/events", None).await;
    assert_eq!(plain.status, 401);
    assert_eq!(content_type(&plain), "application/json");
    let keys: Vec<&String> = plain.body.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["error", "message"]);
    assert!(plain.headers["vary"].to_str().unwrap().contains("accept"));
    let problem = get_as(&app, "/v1/events", None, PROBLEM).await;
    assert_problem(&problem, 401, "unauthorized");
    // The challenge is kept.
    assert!(problem.headers.get("www-authenticate").is_some());

    // A use case's refusal, with its recovery member kept.
    let cursor = get_as(
        &app,
        "/v1/events?cursor=01",
        Some(&token),
        "application/json, application/problem+json;q=0.9",
    )
    .await;
    assert_problem(&cursor, 400, "invalid_cursor");
    assert_eq!(cursor.body["recovery"], "restart from cursor 0");

    // A 403 for a scope, a 404 of an unknown route, a 405 with its Allow.
    assert_problem(
        &get_as(&app, "/v1/screening/checks", Some(&token), PROBLEM).await,
        403,
        "forbidden",
    );
    assert_problem(
        &get_as(&app, "/v1/nothing-here", None, PROBLEM).await,
        404,
        "not_found",
    );
    let wrong = answer(
        app.http
            .delete(app.url("/v1/events"))
            .header("accept", PROBLEM)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_problem(&wrong, 405, "method_not_allowed");
    assert_eq!(wrong.headers["allow"], "GET");

    // The token endpoint's OAuth error keeps `error_description`.
    let token_error = answer(
        app.http
            .post(app.url("/oauth/token"))
            .header("accept", PROBLEM)
            .form(&[
                ("grant_type", "client_credentials"),
                ("client_id", "cid_nobody"),
                ("client_secret", "x"),
            ])
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_problem(&token_error, 401, "invalid_client");
    assert_eq!(
        token_error.body["error_description"],
        token_error.body["message"]
    );

    // A wildcard or a zero weight is not asking.
    for accept in ["*/*", "application/*", "application/problem+json;q=0"] {
        let a = get_as(&app, "/v1/events", None, accept).await;
        assert_eq!(content_type(&a), "application/json", "{accept}");
        assert!(a.body.get("type").is_none(), "{accept}");
    }

    // A success is untouched whatever was asked.
    let ok = get_as(&app, "/v1/events", Some(&token), PROBLEM).await;
    assert_eq!(ok.status, 200);
    assert_eq!(content_type(&ok), "application/json");
    assert!(ok.headers.get("vary").is_none());

    // A JSON-RPC error of /mcp is not the API's error body: it stays JSON-RPC.
    let rpc = answer(
        app.http
            .post(app.url("/mcp"))
            .bearer_auth(&token)
            .header(
                "accept",
                format!("application/json, text/event-stream, {PROBLEM}"),
            )
            .header("content-type", "application/json")
            .body("{not json")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(rpc.status, 400);
    assert_eq!(rpc.body["jsonrpc"], "2.0", "{}", rpc.text);
    assert!(rpc.body.get("type").is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn every_type_uri_is_a_page_of_the_served_documentation() {
    let app = TestApp::spawn().await;
    let problem = get_as(&app, "/v1/events", None, PROBLEM).await;
    let type_uri = problem.body["type"].as_str().unwrap();
    // The URI is absolute, at this service's origin, and resolves.
    assert!(
        type_uri.starts_with(&app.url("/docs/errors/")),
        "{type_uri}"
    );
    let page = app.http.get(type_uri).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let html = page.text().await.unwrap();
    assert!(
        html.contains("<h1><code>unauthorized</code></h1>"),
        "{html}"
    );

    let index = app.get("/docs/errors", None).await;
    assert_eq!(index.status, 200);
    for code in ErrorCode::ALL {
        let path = format!("/docs/errors/{}", code.as_str());
        assert!(index.text.contains(&format!("href=\"{path}\"")), "{path}");
        let page = app.get(&path, None).await;
        assert_eq!(page.status, 200, "{path}");
        assert!(
            page.text.contains(&format!("HTTP {}", code.status())),
            "{path}"
        );
        // The page's text is escaped HTML: the conditions' `<origin>` is not a tag.
        assert!(!page.text.contains("<origin>"), "{path}");
    }
    let unknown = get_as(&app, "/docs/errors/no_such_code", None, PROBLEM).await;
    assert_problem(&unknown, 404, "not_found");
    // Documentation pages are not consumer requests: nothing is audited.
    assert_eq!(app.db.count("audit_log", "true").await, 0);
}
