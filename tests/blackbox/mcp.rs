//! MCP: `POST /mcp` over real HTTP. Transport rules (401 before the body is read, 405, 406,
//! JSON-RPC errors), version negotiation, tools listed by scope, tool results equal to the
//! REST bodies byte for byte, REST failures relayed as `isError` results, and the audit rows
//! (one `mcp.tool_call` per call beside the route rows, surface `mcp`). The last test runs the
//! official MCP Python SDK against the app when `IDREG_TEST_PYTHON` names a Python that has it.

use blackbox::{answer, Answer, Consumer, TestApp};
use chrono::Duration;
use serde_json::{json, Value};

// A Bolagsverket test-environment orgnr and an official Skatteverket test personal number.
const TEST_COMPANY: &str = "5560021361";
const TEST_PERSON: &str = "198111309285";
const BOTH: &str = "application/json, text/event-stream";
const ALL_SCOPES: &str = "identity:read kyb:read kyc:read monitoring:read monitoring:subscribe decisions:write events:read screening:read screening:run kyb:refresh";

fn rpc(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// `POST /mcp` with the given `Accept` (None: no header), extra headers and raw body.
async fn post_mcp(
    app: &TestApp,
    token: Option<&str>,
    accept: Option<&str>,
    headers: &[(&str, &str)],
    body: &str,
) -> Answer {
    let mut request = app
        .http
        .post(app.url("/mcp"))
        .header("content-type", "application/json")
        .body(body.to_owned());
    if let Some(accept) = accept {
        request = request.header("accept", accept);
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    answer(request.send().await.expect("request")).await
}

/// A well-formed JSON-RPC message, as the SDKs send it.
async fn mcp(app: &TestApp, token: &str, message: &Value) -> Answer {
    post_mcp(app, Some(token), Some(BOTH), &[], &message.to_string()).await
}

/// `tools/call`; the JSON-RPC `result`.
async fn call_tool(app: &TestApp, token: &str, name: &str, arguments: Value) -> Value {
    let answer = mcp(
        app,
        token,
        &rpc(
            7,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        ),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert!(
        answer.body.get("error").is_none(),
        "a JSON-RPC error: {}",
        answer.text
    );
    answer.body["result"].clone()
}

async fn tool_names(app: &TestApp, token: &str) -> Vec<String> {
    let answer = mcp(app, token, &rpc(2, "tools/list", json!({}))).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    answer.body["result"]["tools"]
        .as_array()
        .expect("a tools array")
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

async fn consumer(app: &TestApp, scopes: &str) -> (Consumer, String) {
    let c = app.provision(scopes, "SE", "SE").await;
    let token = app.token(&c).await;
    (c, token)
}

async fn company_subject(app: &TestApp, token: &str) -> String {
    let resolved = app.resolve(token, "orgnr", TEST_COMPANY, None).await;
    assert_eq!(resolved.status, 200, "{}", resolved.text);
    resolved.body["subject_id"].as_str().unwrap().to_owned()
}

fn text(result: &Value, i: usize) -> &str {
    result["content"][i]["text"].as_str().expect("a text item")
}

#[tokio::test(flavor = "multi_thread")]
async fn missing_bad_expired_and_revoked_tokens_are_401_before_the_body_is_read() {
    let app = TestApp::spawn().await;
    // No token, a body that is not JSON, no Accept: still 401, never -32700 or 406.
    for accept in [Some(BOTH), None] {
        let none = post_mcp(&app, None, accept, &[], "{not json").await;
        assert_eq!(none.status, 401, "{}", none.text);
        assert_eq!(none.error_code(), "unauthorized");
        assert!(none.body["message"].is_string());
        assert!(none.headers["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Bearer"));
    }
    let initialize = rpc(1, "initialize", json!({"protocolVersion": "2025-11-25"})).to_string();
    let garbage = post_mcp(&app, Some("not-a-token"), Some(BOTH), &[], &initialize).await;
    assert_eq!(garbage.status, 401);
    assert_eq!(garbage.error_code(), "unauthorized");
    assert_eq!(
        app.db.count("security_log", "route = '/mcp'").await,
        3,
        "unattributable refusals go to the security log"
    );

    let (c, token) = consumer(&app, "kyb:read").await;
    assert_eq!(
        post_mcp(&app, Some(&token), Some(BOTH), &[], &initialize)
            .await
            .status,
        200
    );
    app.admin(&["grant", "revoke", &c.grant_id]).await.unwrap();
    let revoked = post_mcp(&app, Some(&token), Some(BOTH), &[], "{not json").await;
    assert_eq!(revoked.status, 401, "{}", revoked.text);
    assert_eq!(revoked.error_code(), "unauthorized");

    let (c2, token2) = consumer(&app, "kyb:read").await;
    app.clock.advance(Duration::minutes(16));
    let expired = post_mcp(&app, Some(&token2), Some(BOTH), &[], &initialize).await;
    assert_eq!(expired.status, 401);

    let refusals = app
        .db
        .rows(
            "SELECT grant_id, detail, route, status FROM audit_log WHERE outcome = 'refused' ORDER BY occurred_at",
        )
        .await;
    assert_eq!(refusals.len(), 2, "{refusals:?}");
    assert_eq!(refusals[0]["grant_id"], c.grant_id.as_str());
    assert_eq!(refusals[0]["detail"], "grant_revoked");
    assert_eq!(refusals[1]["grant_id"], c2.grant_id.as_str());
    assert_eq!(refusals[1]["detail"], "token_expired");
    assert!(refusals
        .iter()
        .all(|r| r["route"] == "/mcp" && r["status"] == 401));
}

#[tokio::test(flavor = "multi_thread")]
async fn get_and_delete_are_405_with_allow_post() {
    let app = TestApp::spawn().await;
    let (_, token) = consumer(&app, "kyb:read").await;
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        for token in [None, Some(token.as_str())] {
            let mut request = app
                .http
                .request(method.clone(), app.url("/mcp"))
                .header("accept", "text/event-stream");
            if let Some(token) = token {
                request = request.bearer_auth(token);
            }
            let answer = answer(request.send().await.unwrap()).await;
            assert_eq!(answer.status, 405, "{method}: {}", answer.text);
            assert_eq!(answer.headers["allow"], "POST");
            assert_eq!(answer.error_code(), "method_not_allowed");
            assert!(answer.headers["content-type"]
                .to_str()
                .unwrap()
                .starts_with("application/json"));
        }
    }
    assert_eq!(
        app.db.count("audit_log", "route <> '/oauth/token'").await,
        0,
        "nothing reached a route"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn accept_must_list_both_json_and_event_stream() {
    let app = TestApp::spawn().await;
    let (_, token) = consumer(&app, "kyb:read").await;
    let ping = rpc(1, "ping", json!({})).to_string();
    for accept in [
        None,
        Some("application/json"),
        Some("text/event-stream"),
        Some("*/*"),
        Some("application/json, text/event-stream;q=0"),
    ] {
        let answer = post_mcp(&app, Some(&token), accept, &[], &ping).await;
        assert_eq!(answer.status, 406, "{accept:?}: {}", answer.text);
        assert_eq!(answer.error_code(), "not_acceptable");
    }
    for accept in [BOTH, "text/event-stream, application/json;q=0.5"] {
        let answer = post_mcp(&app, Some(&token), Some(accept), &[], &ping).await;
        assert_eq!(answer.status, 200, "{accept}: {}", answer.text);
        assert_eq!(
            answer.body,
            json!({"jsonrpc": "2.0", "id": 1, "result": {}})
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_call_refused_at_the_transport_still_writes_its_tool_call_row() {
    let app = TestApp::spawn().await;
    let (c, token) = consumer(&app, "kyb:read").await;
    let call = rpc(
        9,
        "tools/call",
        json!({"name": "get_company_profile", "arguments": {"orgnr": TEST_COMPANY}}),
    )
    .to_string();
    let refused = post_mcp(&app, Some(&token), Some("application/json"), &[], &call).await;
    assert_eq!(refused.status, 406, "{}", refused.text);
    let old = post_mcp(
        &app,
        Some(&token),
        Some(BOTH),
        &[("mcp-protocol-version", "1999-01-01")],
        &call,
    )
    .await;
    assert_eq!(old.status, 400, "{}", old.text);
    // A tool we do not serve is never named in a row.
    let unknown = rpc(10, "tools/call", json!({"name": "rm -rf", "arguments": {}})).to_string();
    let refused = post_mcp(&app, Some(&token), Some("text/event-stream"), &[], &unknown).await;
    assert_eq!(refused.status, 406);
    // A message other than a tool call refused with 406 is recorded as a message.
    let ping = rpc(11, "ping", json!({})).to_string();
    assert_eq!(
        post_mcp(&app, Some(&token), None, &[], &ping).await.status,
        406
    );

    let rows = app
        .db
        .rows(&format!(
            "SELECT action, tool, status, outcome, error_code FROM audit_log \
             WHERE grant_id = '{}' AND route = '/mcp' ORDER BY occurred_at, audit_id",
            c.grant_id
        ))
        .await;
    let row = |action: &str, tool: Value, status: u16, code: &str| json!({"action": action, "tool": tool, "status": status, "outcome": "failed", "error_code": code});
    assert_eq!(
        rows,
        vec![
            row(
                "mcp.tool_call",
                json!("get_company_profile"),
                406,
                "not_acceptable"
            ),
            row(
                "mcp.tool_call",
                json!("get_company_profile"),
                400,
                "bad_request"
            ),
            row("mcp.tool_call", Value::Null, 406, "not_acceptable"),
            row("POST /mcp", Value::Null, 406, "not_acceptable"),
        ]
    );
    // The access log holds the same rows, each under its audit row's id.
    assert_eq!(
        app.db
            .count(
                "access_log a JOIN audit_log l ON l.tenant_id = a.tenant_id AND l.audit_id = a.access_id",
                "a.route = '/mcp'"
            )
            .await,
        4
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_orgnr_sent_as_a_json_number_is_read_as_its_digits() {
    let app = TestApp::spawn().await;
    let (_, token) = consumer(&app, "kyb:read").await;
    // As the MCP Inspector CLI sends `--tool-arg orgnr=5560021361`.
    let number: u64 = TEST_COMPANY.parse().unwrap();
    let as_number = call_tool(
        &app,
        &token,
        "get_company_profile",
        json!({"orgnr": number}),
    )
    .await;
    assert_eq!(as_number["isError"], false, "{as_number}");
    let as_text = call_tool(
        &app,
        &token,
        "get_company_profile",
        json!({"orgnr": TEST_COMPANY}),
    )
    .await;
    assert_eq!(as_number["content"][1], as_text["content"][1]);
    // A number that cannot be an organisation number as sent fails as the number it is.
    let short = call_tool(
        &app,
        &token,
        "get_company_profile",
        json!({"orgnr": number / 10}),
    )
    .await;
    let error_of = |result: &Value| -> Value {
        serde_json::from_str::<Value>(result["content"][1]["text"].as_str().unwrap()).unwrap()
            ["error"]
            .clone()
    };
    assert_eq!(short["isError"], true);
    assert_eq!(error_of(&short), "invalid_identifier", "{short}");
    let fraction = call_tool(
        &app,
        &token,
        "get_company_profile",
        json!({"orgnr": 5560021361.5}),
    )
    .await;
    assert_eq!(error_of(&fraction), "bad_request", "{fraction}");
}

#[tokio::test(flavor = "multi_thread")]
async fn initialize_negotiates_the_protocol_version_and_keeps_no_session() {
    let app = TestApp::spawn().await;
    let (_, token) = consumer(&app, "kyb:read").await;
    for (asked, answered) in [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("2026-07-28", "2025-11-25"),
        ("2023-01-01", "2025-11-25"),
    ] {
        let answer = mcp(
            &app,
            &token,
            &rpc(
                1,
                "initialize",
                json!({"protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
            ),
        )
        .await;
        assert_eq!(answer.status, 200, "{}", answer.text);
        assert_eq!(answer.headers["content-type"], "application/json");
        assert!(answer.headers.get("mcp-session-id").is_none());
        let result = &answer.body["result"];
        assert_eq!(result["protocolVersion"], answered, "{asked}");
        assert_eq!(
            result["capabilities"],
            json!({"tools": {"listChanged": false}})
        );
        assert_eq!(result["serverInfo"]["name"], "idreg");
        assert_eq!(result["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(answer.body["id"], 1);
        assert_eq!(answer.body["jsonrpc"], "2.0");
    }
    let missing = mcp(&app, &token, &rpc(4, "initialize", json!({}))).await;
    assert_eq!(missing.body["error"]["code"], -32602);
    assert_eq!(missing.body["id"], 4);
}

#[tokio::test(flavor = "multi_thread")]
async fn ping_notifications_unknown_methods_and_malformed_messages() {
    let app = TestApp::spawn().await;
    let (_, token) = consumer(&app, "kyb:read").await;
    let pong = mcp(&app, &token, &rpc(1, "ping", Value::Null)).await;
    assert_eq!(pong.body, json!({"jsonrpc": "2.0", "id": 1, "result": {}}));

    let note = mcp(
        &app,
        &token,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert_eq!(note.status, 202);
    assert!(note.text.is_empty());

    // The Python SDK's probe: -32601 at 200, whatever version its header names.
    let discover = post_mcp(
        &app,
        Some(&token),
        Some(BOTH),
        &[("mcp-protocol-version", "2026-07-28")],
        &rpc(3, "server/discover", json!({})).to_string(),
    )
    .await;
    assert_eq!(discover.status, 200);
    assert_eq!(discover.body["error"]["code"], -32601);
    assert_eq!(discover.body["id"], 3);

    let cases: [(&str, u16, i64); 6] = [
        ("{not json", 400, -32700),
        ("", 400, -32700),
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, 400, -32600),
        (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, 400, -32600),
        (r#"{"jsonrpc":"2.0","id":1,"method":["ping"]}"#, 400, -32600),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#,
            200,
            -32602,
        ),
    ];
    for (body, status, code) in cases {
        let answer = post_mcp(&app, Some(&token), Some(BOTH), &[], body).await;
        assert_eq!(answer.status, status, "{body}: {}", answer.text);
        assert_eq!(answer.body["error"]["code"], code, "{body}");
        assert_eq!(answer.body["jsonrpc"], "2.0");
    }

    let list = rpc(5, "tools/list", json!({})).to_string();
    let unsupported = post_mcp(
        &app,
        Some(&token),
        Some(BOTH),
        &[("mcp-protocol-version", "2099-01-01")],
        &list,
    )
    .await;
    assert_eq!(unsupported.status, 400);
    assert_eq!(unsupported.body["error"]["code"], -32600);
    assert!(unsupported.body["error"]["data"]["supported"]
        .as_array()
        .unwrap()
        .contains(&json!("2025-11-25")));
    let supported = post_mcp(
        &app,
        Some(&token),
        Some(BOTH),
        &[("mcp-protocol-version", "2025-06-18")],
        &list,
    )
    .await;
    assert_eq!(supported.status, 200, "{}", supported.text);

    let foreign = post_mcp(
        &app,
        Some(&token),
        Some(BOTH),
        &[("origin", "http://attacker.example")],
        &list,
    )
    .await;
    assert_eq!(foreign.status, 403);
    // Its own code: `forbidden` means a missing scope, and this token has every scope it needs.
    assert_eq!(foreign.error_code(), "origin_not_allowed");
    let refused = app
        .db
        .rows("SELECT status, outcome, error_code FROM audit_log WHERE route = '/mcp' AND status = 403")
        .await;
    assert_eq!(
        refused,
        vec![json!({"status": 403, "outcome": "refused", "error_code": "origin_not_allowed"})]
    );
    let own = post_mcp(
        &app,
        Some(&token),
        Some(BOTH),
        &[("origin", &app.base_url)],
        &list,
    )
    .await;
    assert_eq!(own.status, 200, "{}", own.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn tools_list_shows_only_what_the_scopes_permit() {
    let app = TestApp::spawn().await;
    let (_, kyb) = consumer(&app, "kyb:read").await;
    let kyb_tools = ["get_company_profile", "get_subject", "lookup_company"];
    assert_eq!(tool_names(&app, &kyb).await, kyb_tools);
    let (_, events) = consumer(&app, "events:read").await;
    assert!(tool_names(&app, &events).await.is_empty());
    let (_, refresh) = consumer(&app, "kyb:refresh").await;
    assert!(!tool_names(&app, &refresh)
        .await
        .contains(&"get_company_profile".to_owned()));

    // The grant governs: narrowing shows at once.
    let (c, both) = consumer(&app, "kyb:read kyc:read").await;
    assert_eq!(tool_names(&app, &both).await, kyb_tools);
    app.admin(&["grant", "update", &c.grant_id, "--scopes", "kyc:read"])
        .await
        .unwrap();
    assert!(!tool_names(&app, &both)
        .await
        .contains(&"get_subject".to_owned()));

    // The descriptors: schemas and annotations as the spec's table says; the catalog the
    // contract snapshot writes is what a token with every scope sees.
    let (_, all) = consumer(&app, ALL_SCOPES).await;
    let listed = mcp(&app, &all, &rpc(2, "tools/list", Value::Null)).await;
    let tools = listed.body["result"]["tools"].clone();
    let get_subject = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "get_subject")
        .unwrap();
    assert_eq!(get_subject["inputSchema"]["type"], "object");
    assert_eq!(get_subject["inputSchema"]["required"], json!(["id"]));
    assert_eq!(get_subject["outputSchema"]["type"], "object");
    assert_eq!(
        get_subject["annotations"],
        json!({"title": "Subject", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
    );
    let lookup = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "lookup_company")
        .unwrap();
    assert!(lookup.get("outputSchema").is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn get_subject_answers_the_rest_body_byte_for_byte() {
    let app = TestApp::spawn().await;
    let (_, token) = consumer(&app, "kyb:read").await;
    let subject_id = company_subject(&app, &token).await;
    let person = app
        .resolve(&token, "personnummer", TEST_PERSON, Some("cust-9"))
        .await;
    assert_eq!(person.status, 200, "{}", person.text);
    let person_id = person.body["subject_id"].as_str().unwrap().to_owned();

    for id in [subject_id, person_id] {
        let rest = app.get(&format!("/v1/subjects/{id}"), Some(&token)).await;
        assert_eq!(rest.status, 200);
        let result = call_tool(&app, &token, "get_subject", json!({"id": id})).await;
        assert_eq!(result["isError"], false);
        assert_eq!(text(&result, 1), rest.text, "content[1] is the REST body");
        let summary = text(&result, 0);
        assert!(summary.starts_with(&format!("Subject {id}")), "{summary}");
        assert!(!summary.contains('\n'));
        let mut expected = rest.body.clone();
        expected["summary"] = json!(summary);
        assert_eq!(result["structuredContent"], expected);
        assert_eq!(result["content"][0]["type"], "text");
        assert_eq!(result["content"][1]["type"], "text");
        let raw = result.to_string();
        assert!(!raw.contains(TEST_PERSON) && !raw.contains(&TEST_PERSON[2..]));
    }

    // A failure is the REST error body, byte for byte.
    let missing = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
    let rest = app
        .get(&format!("/v1/subjects/{missing}"), Some(&token))
        .await;
    assert_eq!(rest.status, 404);
    let result = call_tool(&app, &token, "get_subject", json!({"id": missing})).await;
    assert_eq!(result["isError"], true);
    assert_eq!(text(&result, 1), rest.text);
    assert_eq!(
        text(&result, 0),
        format!("not_found: {}", rest.body["message"].as_str().unwrap())
    );
    assert!(result.get("structuredContent").is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_the_scopes_do_not_list_answers_like_the_rest_route() {
    let app = TestApp::spawn().await;
    let (_, kyb) = consumer(&app, "kyb:read").await;
    let subject_id = company_subject(&app, &kyb).await;
    let (_, kyc) = consumer(&app, "kyc:read").await;
    let rest = app
        .get(&format!("/v1/subjects/{subject_id}"), Some(&kyc))
        .await;
    assert_eq!(rest.status, 403);
    let result = call_tool(&app, &kyc, "get_subject", json!({"id": subject_id})).await;
    assert_eq!(result["isError"], true);
    assert!(text(&result, 0).starts_with("forbidden: "), "{result}");
    assert_eq!(text(&result, 1), rest.text, "the REST 403 body");

    for tool in ["get_company_profile", "lookup_company"] {
        let result = call_tool(&app, &kyc, tool, json!({"orgnr": TEST_COMPANY})).await;
        assert_eq!(result["isError"], true);
        let body: Value = serde_json::from_str(text(&result, 1)).unwrap();
        assert_eq!(body["error"], "forbidden", "{tool}");
        assert!(body["message"].as_str().unwrap().contains("kyb:read"));
    }
    // lookup_company refused before resolving: the kyc:read tenant has no subject.
    assert_eq!(app.db.count("subjects", "true").await, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_tools_are_invalid_params_and_bad_arguments_are_bad_request() {
    let app = TestApp::spawn().await;
    let (_, token) = consumer(&app, "kyb:read").await;
    let unknown = mcp(
        &app,
        &token,
        &rpc(
            9,
            "tools/call",
            json!({"name": "delete_everything", "arguments": {}}),
        ),
    )
    .await;
    assert_eq!(unknown.status, 200);
    assert_eq!(unknown.body["error"]["code"], -32602);
    assert_eq!(unknown.body["id"], 9);
    assert!(!unknown.text.contains("delete_everything"));

    for params in [
        json!({}),
        json!({"name": 5}),
        json!({"name": "get_subject", "arguments": "id"}),
    ] {
        let answer = mcp(&app, &token, &rpc(10, "tools/call", params.clone())).await;
        assert_eq!(answer.body["error"]["code"], -32602, "{params}");
    }

    for (arguments, message) in [
        (json!({}), "`id`: is required"),
        (Value::Null, "`id`: is required"),
        (json!({"id": null}), "`id`: is required"),
        (json!({"id": 42}), "`id`: must be a string"),
    ] {
        let result = call_tool(&app, &token, "get_subject", arguments.clone()).await;
        assert_eq!(result["isError"], true, "{arguments}");
        assert_eq!(
            text(&result, 0),
            format!("bad_request: {message}"),
            "{arguments}"
        );
        assert_eq!(
            text(&result, 1),
            json!({"error": "bad_request", "message": message}).to_string()
        );
    }
    let result = call_tool(
        &app,
        &token,
        "get_company_profile",
        json!({"orgnr": "not-a-number"}),
    )
    .await;
    assert_eq!(result["isError"], true);
    let rest = app.get("/v1/companies/not-a-number", Some(&token)).await;
    assert_eq!(rest.error_code(), "invalid_identifier");
    assert_eq!(text(&result, 1), rest.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn get_company_profile_answers_the_rest_body_and_relays_its_failures() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE,LT", "SE,LT").await;
    let token = app.token(&c).await;
    let result = call_tool(
        &app,
        &token,
        "get_company_profile",
        json!({"orgnr": TEST_COMPANY}),
    )
    .await;
    assert_eq!(result["isError"], false, "{result}");
    // The second read is served from the tenant's cache: the same body.
    let rest = app
        .get(&format!("/v1/companies/{TEST_COMPANY}"), Some(&token))
        .await;
    assert_eq!(rest.status, 200, "{}", rest.text);
    assert_eq!(text(&result, 1), rest.text);
    let mut expected = rest.body.clone();
    expected["summary"] = result["content"][0]["text"].clone();
    assert_eq!(result["structuredContent"], expected);
    assert!(text(&result, 0).contains(TEST_COMPANY));

    // Failures of the route, relayed with its code and body.
    for (orgnr, code) in [
        ("lt:110443493", "country_not_supported"),
        ("5599000006", "not_found"),
        ("5561890039", "invalid_identifier"),
        ("SE:5561890038", "invalid_identifier"),
    ] {
        let result = call_tool(&app, &token, "get_company_profile", json!({"orgnr": orgnr})).await;
        let rest = app
            .get(&format!("/v1/companies/{orgnr}"), Some(&token))
            .await;
        assert_eq!(rest.error_code(), code, "{orgnr}");
        assert_eq!(result["isError"], true, "{orgnr}");
        assert_eq!(text(&result, 1), rest.text, "{orgnr}");
        assert_eq!(
            text(&result, 0),
            format!("{code}: {}", rest.body["message"].as_str().unwrap())
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn lookup_company_creates_the_subject_and_composes_both_bodies() {
    let app = TestApp::spawn().await;
    let c = app.provision("kyb:read", "SE,LT", "SE,LT").await;
    let token = app.token(&c).await;
    let mine = format!("tenant_id = '{}'", c.tenant_id);
    let subjects = || app.db.count("subjects", &mine);
    assert_eq!(subjects().await, 0);
    let result = call_tool(
        &app,
        &token,
        "lookup_company",
        json!({"orgnr": TEST_COMPANY}),
    )
    .await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(subjects().await, 1, "created on first sight");

    // The same two REST requests give the same two bodies.
    let resolved = app.resolve(&token, "orgnr", TEST_COMPANY, None).await;
    let rest = app
        .get(&format!("/v1/companies/{TEST_COMPANY}"), Some(&token))
        .await;
    assert_eq!((resolved.status, rest.status), (200, 200));
    let expected = format!(r#"{{"subject":{},"company":{}}}"#, resolved.text, rest.text);
    assert_eq!(text(&result, 1), expected);
    let structured = &result["structuredContent"];
    assert_eq!(structured["subject"], resolved.body);
    assert_eq!(structured["company"], rest.body);
    assert_eq!(structured["summary"], result["content"][0]["text"]);
    assert_eq!(
        structured["subject"]["subject_id"],
        structured["company"]["data"]["subject_id"]
    );
    let summary = text(&result, 0);
    assert!(
        summary.contains(resolved.body["subject_id"].as_str().unwrap()),
        "{summary}"
    );

    // What the company route refuses is the answer, and nothing is resolved for it.
    for (orgnr, code) in [
        (TEST_PERSON, "invalid_identifier"),
        ("5599000006", "not_found"),
        ("lt:110443493", "country_not_supported"),
    ] {
        let refused = call_tool(&app, &token, "lookup_company", json!({"orgnr": orgnr})).await;
        assert_eq!(refused["isError"], true, "{orgnr}");
        assert!(
            text(&refused, 0).starts_with(&format!("{code}: ")),
            "{refused}"
        );
        assert!(!refused.to_string().contains(TEST_PERSON));
    }
    assert_eq!(subjects().await, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn every_tool_call_writes_one_tool_call_row_beside_the_route_rows() {
    let app = TestApp::spawn().await;
    let (c, token) = consumer(&app, "kyb:read").await;
    let subject_id = company_subject(&app, &token).await;
    let (narrow, kyc) = consumer(&app, "kyc:read").await;

    // Messages other than tools/call: one POST /mcp row each.
    mcp(
        &app,
        &token,
        &rpc(1, "initialize", json!({"protocolVersion": "2025-11-25"})),
    )
    .await;
    mcp(
        &app,
        &token,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    mcp(&app, &token, &rpc(2, "tools/list", json!({}))).await;
    mcp(&app, &token, &rpc(3, "ping", json!({}))).await;
    mcp(&app, &token, &rpc(4, "server/discover", json!({}))).await;
    // Not logged: a validation failure, and a malformed message.
    mcp(&app, &token, &rpc(5, "initialize", json!({}))).await;
    post_mcp(&app, Some(&token), Some(BOTH), &[], "{oops").await;

    // Tool calls.
    call_tool(&app, &token, "get_subject", json!({"id": subject_id})).await;
    call_tool(
        &app,
        &token,
        "get_subject",
        json!({"id": "01ARZ3NDEKTSV4RRFFQ69G5FAV"}),
    )
    .await;
    call_tool(&app, &token, "get_subject", json!({})).await;
    mcp(&app, &token, &rpc(6, "tools/call", json!({"name": "nope"}))).await;
    call_tool(&app, &kyc, "get_subject", json!({"id": subject_id})).await;
    let lookup = call_tool(
        &app,
        &token,
        "lookup_company",
        json!({"orgnr": TEST_COMPANY}),
    )
    .await;
    assert_eq!(lookup["isError"], false, "{lookup}");

    let rows = |grant: String| {
        let app = &app;
        async move {
            app.db
                .rows(&format!(
                    "SELECT surface, action, route, tool, status, outcome, error_code FROM audit_log \
                     WHERE grant_id = '{grant}' AND route <> '/oauth/token' ORDER BY occurred_at, audit_id"
                ))
                .await
        }
    };
    let row = |surface: &str,
               action: &str,
               route: &str,
               tool: Value,
               status: u16,
               outcome: &str,
               code: Value| {
        json!({"surface": surface, "action": action, "route": route, "tool": tool, "status": status, "outcome": outcome, "error_code": code})
    };
    let got = rows(c.grant_id.clone()).await;
    let mut sorted = got.clone();
    sorted.sort_by_key(|r| r.to_string());
    let mut expected = vec![
        row(
            "rest",
            "POST /v1/subjects/resolve",
            "/v1/subjects/resolve",
            Value::Null,
            200,
            "allowed",
            Value::Null,
        ),
        row(
            "mcp",
            "POST /mcp",
            "/mcp",
            Value::Null,
            200,
            "allowed",
            Value::Null,
        ),
        // The notification, accepted with 202.
        row(
            "mcp",
            "POST /mcp",
            "/mcp",
            Value::Null,
            202,
            "allowed",
            Value::Null,
        ),
        row(
            "mcp",
            "POST /mcp",
            "/mcp",
            Value::Null,
            200,
            "allowed",
            Value::Null,
        ),
        row(
            "mcp",
            "POST /mcp",
            "/mcp",
            Value::Null,
            200,
            "allowed",
            Value::Null,
        ),
        row(
            "mcp",
            "POST /mcp",
            "/mcp",
            Value::Null,
            404,
            "failed",
            json!("not_found"),
        ),
        row(
            "mcp",
            "GET /v1/subjects/{id}",
            "/v1/subjects/{id}",
            Value::Null,
            200,
            "allowed",
            Value::Null,
        ),
        row(
            "mcp",
            "mcp.tool_call",
            "/mcp",
            json!("get_subject"),
            200,
            "allowed",
            Value::Null,
        ),
        row(
            "mcp",
            "GET /v1/subjects/{id}",
            "/v1/subjects/{id}",
            Value::Null,
            404,
            "failed",
            json!("not_found"),
        ),
        row(
            "mcp",
            "mcp.tool_call",
            "/mcp",
            json!("get_subject"),
            404,
            "failed",
            json!("not_found"),
        ),
        row(
            "mcp",
            "mcp.tool_call",
            "/mcp",
            json!("get_subject"),
            400,
            "failed",
            json!("bad_request"),
        ),
        row(
            "mcp",
            "mcp.tool_call",
            "/mcp",
            Value::Null,
            400,
            "failed",
            json!("bad_request"),
        ),
        // lookup_company: its two route invocations and its own row.
        row(
            "mcp",
            "GET /v1/companies/{orgnr}",
            "/v1/companies/{orgnr}",
            Value::Null,
            200,
            "allowed",
            Value::Null,
        ),
        row(
            "mcp",
            "POST /v1/subjects/resolve",
            "/v1/subjects/resolve",
            Value::Null,
            200,
            "allowed",
            Value::Null,
        ),
        row(
            "mcp",
            "mcp.tool_call",
            "/mcp",
            json!("lookup_company"),
            200,
            "allowed",
            Value::Null,
        ),
    ];
    expected.sort_by_key(|r| r.to_string());
    assert_eq!(sorted, expected, "in order: {got:#?}");

    let refused = rows(narrow.grant_id.clone()).await;
    assert_eq!(
        refused,
        [
            row(
                "mcp",
                "GET /v1/subjects/{id}",
                "/v1/subjects/{id}",
                Value::Null,
                403,
                "refused",
                json!("forbidden")
            ),
            row(
                "mcp",
                "mcp.tool_call",
                "/mcp",
                json!("get_subject"),
                403,
                "refused",
                json!("forbidden")
            ),
        ]
    );
    // The per-grant access log holds the same requests.
    assert_eq!(
        app.db
            .count(
                "access_log",
                &format!("grant_id = '{}' AND route <> '/oauth/token'", c.grant_id)
            )
            .await,
        got.len() as i64
    );
}

/// The official MCP Python SDK against this app: `IDREG_TEST_PYTHON=/path/to/venv/bin/python`
/// (a Python with `mcp` installed; see tests/mcp_clients/README.md). Skipped without it.
#[tokio::test(flavor = "multi_thread")]
async fn the_official_python_sdk_lists_calls_and_matches_rest() {
    let Some(python) = blackbox::test_python("the MCP Python SDK") else {
        return;
    };
    let app = TestApp::spawn().await;
    let (_, all) = consumer(&app, ALL_SCOPES).await;
    let (_, narrow) = consumer(&app, "kyc:read").await;
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp_clients/test_python_sdk.py");
    let output = tokio::process::Command::new(python)
        .arg(script)
        .arg("--url")
        .arg(app.url("/mcp"))
        .arg("--token-all")
        .arg(&all)
        .arg("--token-narrow")
        .arg(&narrow)
        .output()
        .await
        .expect("running the Python SDK test");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the Python SDK test failed:\n{stdout}\n{stderr}"
    );
    println!("{stdout}");
    assert!(stdout.contains("PASS: all"), "{stdout}");
}
