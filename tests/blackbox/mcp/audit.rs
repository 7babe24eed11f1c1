//! The audit rows of tool calls: one `mcp.tool_call` row per call beside the route rows.

use super::*;

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
