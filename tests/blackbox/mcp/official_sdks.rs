//! The official MCP SDKs (Python, TypeScript) as real clients.

use super::*;

/// The official MCP Python SDK against this app, in each of its modes (pinned to 2026-07-28,
/// auto, legacy), with bearer tokens and with its client-credentials OAuth provider:
/// `IDREG_TEST_PYTHON=/path/to/venv/bin/python` (a Python with `mcp` installed; see
/// tests/mcp_clients/README.md). Skipped without it.
#[tokio::test(flavor = "multi_thread")]
async fn the_official_python_sdk_lists_calls_and_matches_rest() {
    let Some(python) = blackbox::test_python("the MCP Python SDK") else {
        return;
    };
    let app = TestApp::spawn().await;
    let (wide, all) = consumer(&app, ALL_SCOPES).await;
    let (_, narrow) = consumer(&app, "kyc:read").await;
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp_clients/test_python_sdk.py");
    let mut command = tokio::process::Command::new(python);
    command
        .arg(script)
        .arg("--url")
        .arg(app.url("/mcp"))
        .arg("--token-all")
        .arg(&all)
        .arg("--token-narrow")
        .arg(&narrow)
        .arg("--client-id")
        .arg(&wide.client_id)
        .arg("--client-secret")
        .arg(&wide.client_secret);
    passes(command, "the Python SDK test").await;
}

/// Runs a client script to its end; it must exit 0 and say `PASS: all`.
async fn passes(mut command: tokio::process::Command, what: &str) {
    let output = command.output().await.expect(what);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{what} failed:\n{stdout}\n{stderr}"
    );
    println!("{stdout}");
    assert!(stdout.contains("PASS: all"), "{stdout}");
}

/// The official MCP TypeScript SDK client's `ClientCredentialsProvider` on loopback, from the
/// MCP URL, a client id and a secret alone, in each version-negotiation mode:
/// `IDREG_TEST_NODE_CLIENTS=tests/mcp_clients/typescript` after `npm ci` there (`cargo xtask
/// test` does it). Skipped without it.
#[tokio::test(flavor = "multi_thread")]
async fn the_official_typescript_sdk_discovers_authorization_and_matches_rest() {
    let Some(dir) = blackbox::test_node_clients("@modelcontextprotocol/client") else {
        return;
    };
    let app = TestApp::spawn().await;
    let (c, _) = consumer(&app, "kyb:read").await;
    let mut command = tokio::process::Command::new("node");
    command
        .current_dir(&dir)
        .arg("test_ts_sdk.mjs")
        .arg("--url")
        .arg(app.url("/mcp"))
        .arg("--client-id")
        .arg(&c.client_id)
        .arg("--client-secret")
        .arg(&c.client_secret);
    passes(command, "the TypeScript SDK test").await;
}
