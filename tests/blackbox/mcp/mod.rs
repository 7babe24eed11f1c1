//! MCP: `POST /mcp` over real HTTP. Transport rules (401 before the body is read, 405, 406,
//! JSON-RPC errors), version negotiation, tools listed by scope, tool results equal to the
//! REST bodies byte for byte, REST failures relayed as `isError` results, and the audit rows
//! (one `mcp.tool_call` per call beside the route rows, surface `mcp`), in both protocol eras.
//! `official_sdks` runs the official MCP Python SDK and TypeScript SDK client against the app
//! (`IDREG_TEST_PYTHON`, `IDREG_TEST_NODE_CLIENTS`; `cargo xtask test` sets both).
//! One file per concern: `transport`, `per_request` (the 2026-07-28 era), `tools`, `audit`,
//! `screening`, `official_sdks` (the official Python and TypeScript clients); the helpers are here.

use blackbox::{answer, Answer, Consumer, TestApp};
use chrono::Duration;
use serde_json::{json, Value};

// A Bolagsverket test-environment orgnr and an official Skatteverket test personal number.
const TEST_COMPANY: &str = "5560021361";
const TEST_PERSON: &str = "198111309285";
const BOTH: &str = "application/json, text/event-stream";
const ALL_SCOPES: &str = "identity:read kyb:read kyc:read monitoring:read monitoring:subscribe decisions:write events:read screening:read screening:run kyb:refresh";

pub(crate) fn rpc(id: i64, method: &str, params: Value) -> Value {
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
pub(crate) async fn mcp(app: &TestApp, token: &str, message: &Value) -> Answer {
    post_mcp(app, Some(token), Some(BOTH), &[], &message.to_string()).await
}

/// `tools/call`; the JSON-RPC `result`.
pub(crate) async fn call_tool(app: &TestApp, token: &str, name: &str, arguments: Value) -> Value {
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

mod audit;
mod official_sdks;
mod per_request;
mod screening;
mod tools;
mod transport;
