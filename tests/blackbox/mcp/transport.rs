//! The transport: tokens before the body, 405, 406, refusals that still write their row, argument
//! conversion, version negotiation, ping, notifications and malformed messages.

use super::*;

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

    // The handshake era has no `server/discover`: the SDKs' probe falls back on -32601 at 200
    // (the per-request era serves it: `per_request`).
    let discover = mcp(&app, &token, &rpc(3, "server/discover", json!({}))).await;
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

    // A version header naming no handshake revision puts the request in the per-request
    // era, whose checks it fails (no `_meta`): -32602 at 400.
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
    assert_eq!(unsupported.body["error"]["code"], -32602);
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
