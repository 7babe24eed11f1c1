//! The official MCP Python SDK as a real client.

use super::*;

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
