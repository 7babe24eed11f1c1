//! The per-request era (revision 2026-07-28) on the same endpoint: `server/discover`, lists
//! and calls with `_meta` and mirrored headers, the revision's checks in their order and its
//! statuses, and the same bodies, tools and audit rows as the handshake era.

use super::*;

const MODERN: &str = "2026-07-28";

/// The `_meta` a client of the per-request era sends with every request.
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "blackbox", "version": "1"},
    })
}

fn with_meta(mut params: Value) -> Value {
    params["_meta"] = meta();
    params
}

/// A request as a per-request-era client sends it: `_meta` in the body, the revision and
/// method (and for `tools/call` the tool's name) mirrored in headers.
async fn modern(app: &TestApp, token: &str, id: i64, method: &str, params: Value) -> Answer {
    let name = params["name"].as_str().map(str::to_owned);
    let mut headers = vec![("mcp-protocol-version", MODERN), ("mcp-method", method)];
    if let Some(name) = name.as_deref() {
        headers.push(("mcp-name", name));
    }
    let body = rpc(id, method, with_meta(params)).to_string();
    post_mcp(app, Some(token), Some(BOTH), &headers, &body).await
}

#[tokio::test(flavor = "multi_thread")]
async fn discover_names_both_eras_and_is_cacheable_by_anyone() {
    let app = TestApp::spawn().await;
    let (_, token) = consumer(&app, "kyb:read").await;
    let answer = modern(&app, &token, 1, "server/discover", json!({})).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert!(answer.headers.get("mcp-session-id").is_none());
    let result = &answer.body["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["supportedVersions"],
        json!([
            MODERN,
            "2025-11-25",
            "2025-06-18",
            "2025-03-26",
            "2024-11-05"
        ])
    );
    assert_eq!(result["capabilities"], json!({"tools": {}}));
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "idreg"
    );
    assert!(result["instructions"].as_str().unwrap().contains("REST"));
    assert_eq!(result["cacheScope"], "public");
    assert!(result["ttlMs"].as_u64().is_some_and(|ttl| ttl > 0));

    // The handshake era does not serve it: the SDKs' probe falls back on -32601 at 200.
    let legacy = mcp(&app, &token, &rpc(2, "server/discover", json!({}))).await;
    assert_eq!(legacy.status, 200);
    assert_eq!(legacy.body["error"]["code"], -32601);
}

#[tokio::test(flavor = "multi_thread")]
async fn lists_and_calls_answer_what_the_handshake_era_answers() {
    let app = TestApp::spawn().await;
    let (c, token) = consumer(&app, ALL_SCOPES).await;
    let (_, narrow) = consumer(&app, "kyc:read").await;

    // tools/list: the very list (in the same order), private to the authorization.
    let listed = modern(&app, &token, 1, "tools/list", json!({})).await;
    assert_eq!(listed.status, 200, "{}", listed.text);
    let result = &listed.body["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["cacheScope"], "private");
    assert!(result["ttlMs"].as_u64().is_some());
    assert!(result.get("nextCursor").is_none(), "never paginated");
    let legacy = mcp(&app, &token, &rpc(2, "tools/list", json!({}))).await;
    assert_eq!(result["tools"], legacy.body["result"]["tools"]);
    let names: Vec<&str> = result["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "ordered by name");
    let narrow_list = modern(&app, &narrow, 3, "tools/list", json!({})).await;
    let narrow_tools = narrow_list.body["result"]["tools"].as_array().unwrap();
    assert!(narrow_tools.len() < names.len());
    assert!(narrow_tools
        .iter()
        .all(|t| t["name"] != "get_company_profile"));

    // tools/call: content[1] is the REST body byte for byte.
    let call = modern(
        &app,
        &token,
        4,
        "tools/call",
        json!({"name": "get_company_profile", "arguments": {"orgnr": TEST_COMPANY}}),
    )
    .await;
    assert_eq!(call.status, 200, "{}", call.text);
    let result = &call.body["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["isError"], false);
    let rest = app
        .get(&format!("/v1/companies/{TEST_COMPANY}"), Some(&token))
        .await;
    assert_eq!(text(result, 1), rest.text);

    // A REST failure is relayed as an isError result, as in the handshake era.
    let refused = modern(
        &app,
        &narrow,
        5,
        "tools/call",
        json!({"name": "get_company_profile", "arguments": {"orgnr": TEST_COMPANY}}),
    )
    .await;
    assert_eq!(refused.status, 200, "{}", refused.text);
    assert_eq!(refused.body["result"]["isError"], true);
    assert!(text(&refused.body["result"], 0).starts_with("forbidden: "));

    // The same audit rows: one mcp.tool_call beside the route's row.
    let mut rows = app
        .db
        .rows(&format!(
            "SELECT action, tool, status FROM audit_log WHERE grant_id = '{}' \
             AND action IN ('mcp.tool_call', 'GET /v1/companies/{{orgnr}}') AND surface = 'mcp' \
             ORDER BY occurred_at, audit_id",
            c.grant_id
        ))
        .await;
    rows.sort_by_key(|r| r.to_string());
    assert_eq!(
        rows,
        vec![
            json!({"action": "GET /v1/companies/{orgnr}", "tool": null, "status": 200}),
            json!({"action": "mcp.tool_call", "tool": "get_company_profile", "status": 200}),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_revisions_checks_answer_with_its_codes_and_statuses() {
    let app = TestApp::spawn().await;
    let (_, token) = consumer(&app, "kyb:read").await;
    let list = rpc(1, "tools/list", with_meta(json!({}))).to_string();
    let send = |headers: Vec<(&'static str, String)>, body: String| {
        let app = &app;
        let token = token.clone();
        async move {
            let headers: Vec<(&str, &str)> =
                headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
            post_mcp(app, Some(&token), Some(BOTH), &headers, &body).await
        }
    };
    let v = |s: &str| s.to_owned();
    let error = |a: &Answer| a.body["error"]["code"].as_i64().unwrap_or(0);

    // A routing header twice.
    let twice = send(
        vec![
            ("mcp-protocol-version", v(MODERN)),
            ("mcp-method", v("tools/list")),
            ("mcp-method", v("tools/list")),
        ],
        list.clone(),
    )
    .await;
    assert_eq!(
        (twice.status, error(&twice)),
        (400, -32020),
        "{}",
        twice.text
    );
    assert_eq!(twice.body["id"], 1);

    // The required _meta keys.
    let bare = rpc(2, "tools/list", json!({})).to_string();
    let no_meta = send(
        vec![
            ("mcp-protocol-version", v(MODERN)),
            ("mcp-method", v("tools/list")),
        ],
        bare,
    )
    .await;
    assert_eq!((no_meta.status, error(&no_meta)), (400, -32602));

    // Each header against the body: the revision missing, the method or the tool differing.
    let meta_only = send(vec![("mcp-method", v("tools/list"))], list.clone()).await;
    assert_eq!((meta_only.status, error(&meta_only)), (400, -32020));
    let other_method = send(
        vec![
            ("mcp-protocol-version", v(MODERN)),
            ("mcp-method", v("tools/call")),
        ],
        list.clone(),
    )
    .await;
    assert_eq!((other_method.status, error(&other_method)), (400, -32020));
    let call = |name: &str| {
        rpc(
            3,
            "tools/call",
            with_meta(json!({"name": name, "arguments": {"orgnr": TEST_COMPANY}})),
        )
        .to_string()
    };
    let call_headers = |name: &str| {
        vec![
            ("mcp-protocol-version", v(MODERN)),
            ("mcp-method", v("tools/call")),
            ("mcp-name", v(name)),
        ]
    };
    let other_tool = send(call_headers("get_subject"), call("get_company_profile")).await;
    assert_eq!((other_tool.status, error(&other_tool)), (400, -32020));
    // The name may come in the base64 form.
    let encoded = send(
        call_headers("=?base64?Z2V0X2NvbXBhbnlfcHJvZmlsZQ==?="),
        call("get_company_profile"),
    )
    .await;
    assert_eq!(encoded.status, 200, "{}", encoded.text);
    assert_eq!(encoded.body["result"]["isError"], false);

    // A revision not served, named alike in the header and the body: -32022 naming ours.
    let mut future = with_meta(json!({}));
    future["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let unsupported = send(
        vec![
            ("mcp-protocol-version", v("2099-01-01")),
            ("mcp-method", v("tools/list")),
        ],
        rpc(4, "tools/list", future).to_string(),
    )
    .await;
    assert_eq!((unsupported.status, error(&unsupported)), (400, -32022));
    assert_eq!(unsupported.body["error"]["data"]["requested"], "2099-01-01");
    let supported = unsupported.body["error"]["data"]["supported"]
        .as_array()
        .unwrap()
        .clone();
    assert!(supported.contains(&json!(MODERN)) && supported.contains(&json!("2025-11-25")));

    // Methods this era does not have (ping, initialize) or we do not serve: -32601 at 404.
    for method in ["ping", "initialize", "resources/list"] {
        let answer = modern(&app, &token, 5, method, json!({})).await;
        assert_eq!((answer.status, error(&answer)), (404, -32601), "{method}");
    }
    // An unknown tool, or a call without a name: -32602 at 400.
    let unknown = modern(
        &app,
        &token,
        6,
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    )
    .await;
    assert_eq!((unknown.status, error(&unknown)), (400, -32602));
    let nameless = modern(&app, &token, 7, "tools/call", json!({"arguments": {}})).await;
    assert_eq!((nameless.status, error(&nameless)), (400, -32602));

    // A notification at a served revision is accepted and dropped; at another, refused.
    let note = json!({"jsonrpc": "2.0", "method": "notifications/cancelled"}).to_string();
    let accepted = send(
        vec![
            ("mcp-protocol-version", v(MODERN)),
            ("mcp-method", v("notifications/cancelled")),
        ],
        note.clone(),
    )
    .await;
    assert_eq!(accepted.status, 202);
    let refused = send(vec![("mcp-protocol-version", v("2099-01-01"))], note).await;
    assert_eq!((refused.status, error(&refused)), (400, -32022));
    // A client of this era never sends a response.
    let response = send(
        vec![("mcp-protocol-version", v(MODERN))],
        json!({"jsonrpc": "2.0", "id": 9, "result": {}}).to_string(),
    )
    .await;
    assert_eq!((response.status, error(&response)), (400, -32600));
}
