//! The served OpenAPI document as third-party tools read it: schemathesis (every check, every
//! phase) finds no request the document allows that the service refuses, none it forbids
//! that the service takes, no 5xx and no answer outside the document; and clients generated
//! from it, unmodified, by openapi-python-client and by `@hey-api/openapi-ts` walk the demo
//! (token, resolve, company, document, person, a check, events, usage).
//!
//! The tools come from `cargo xtask test` (`IDREG_TEST_PYTHON`'s venv holds schemathesis and
//! openapi-python-client; `tests/api_clients/typescript` is installed with `npm ci`).

use crate::persons::with_permit;
use crate::screening::{import_un, publish_policy};
use blackbox::TestApp;
use std::path::{Path, PathBuf};

const ALL_SCOPES: &str = "identity:read kyb:read kyc:read monitoring:read monitoring:subscribe decisions:write events:read screening:read screening:run kyb:refresh";

fn clients_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("api_clients")
}

/// An app ready for every operation: lists imported, a policy published, a tenant over SE
/// and LT with its permit in force and a grant of every consumer scope.
async fn ready_app() -> (TestApp, blackbox::Consumer, String) {
    let app = TestApp::spawn().await;
    import_un(&app).await;
    publish_policy(&app).await;
    let (c, token) = with_permit(&app, ALL_SCOPES).await;
    (app, c, token)
}

/// Runs a tool to its end; it must exit 0. Its output is printed either way.
async fn succeeds(mut command: tokio::process::Command, what: &str) -> String {
    let output = command.output().await.expect(what);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}\n{stderr}");
    assert!(
        output.status.success(),
        "{what} failed:\n{stdout}\n{stderr}"
    );
    stdout
}

#[tokio::test(flavor = "multi_thread")]
async fn schemathesis_finds_no_request_or_answer_the_document_does_not_promise() {
    let Some(python) = blackbox::test_python("schemathesis") else {
        return;
    };
    let (app, _, token) = ready_app().await;
    let dir = clients_dir().join("schemathesis");
    let bin = Path::new(&python).with_file_name("schemathesis");
    let mut command = tokio::process::Command::new(bin);
    command
        .current_dir(&dir)
        .env("SCHEMATHESIS_HOOKS", "hooks")
        .env("PYTHONPATH", &dir)
        .env("IDREG_TEST_URL", app.url(""))
        .env("IDREG_TEST_TOKEN", &token)
        .args(["--config-file", "schemathesis.toml", "run"])
        .arg(app.url("/openapi.json"))
        .args(["--checks", "all", "--max-examples", "25", "--no-color"])
        // Hypothesis's own health check that too many drawn bodies were thrown away: the
        // resolve body's value follows its type (one `if`/`then` branch per scheme), which the
        // JSON-Schema generator meets by drawing and discarding, so a run now and then stops
        // there before any request is sent. It judges the generator, not the service; every
        // check of the answers stays on.
        .args(["--suppress-health-check", "filter_too_much"])
        .arg("-H")
        .arg(format!("Authorization: Bearer {token}"));
    let out = succeeds(command, "schemathesis").await;
    assert!(out.contains(" passed"), "{out}");
    assert!(!out.contains("failures"), "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_python_client_generated_by_openapi_python_client_walks_the_demo() {
    let Some(python) = blackbox::test_python("openapi-python-client") else {
        return;
    };
    let (app, c, _) = ready_app().await;
    let dir = clients_dir().join("python");
    let mut command = tokio::process::Command::new(&python);
    command
        .current_dir(&dir)
        // The generator is the venv's console script, found beside its Python.
        .env(
            "PATH",
            format!(
                "{}:{}",
                Path::new(&python).parent().unwrap().display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .arg("walk.py")
        .arg("--url")
        .arg(app.url(""))
        .arg("--client-id")
        .arg(&c.client_id)
        .arg("--client-secret")
        .arg(&c.client_secret);
    let out = succeeds(command, "the generated Python client").await;
    assert!(out.contains("PASS: all"), "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_typescript_client_generated_by_hey_api_walks_the_demo() {
    let Some(dir) = blackbox::test_api_clients("@hey-api/openapi-ts") else {
        return;
    };
    let (app, c, _) = ready_app().await;
    let mut command = tokio::process::Command::new("node");
    command
        .current_dir(&dir)
        .arg("run.mjs")
        .arg("--url")
        .arg(app.url(""))
        .arg("--client-id")
        .arg(&c.client_id)
        .arg("--client-secret")
        .arg(&c.client_secret);
    let out = succeeds(command, "the generated TypeScript client").await;
    assert!(out.contains("PASS: all"), "{out}");
}
