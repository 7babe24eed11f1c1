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

/// A throwaway CA and a certificate for `127.0.0.1` it signed, written to `dir`: the CA (for
/// idreg to trust), the certificate and its key (for the test's document listener).
fn document_tls(dir: &std::path::Path) -> (PathBuf, PathBuf, PathBuf) {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, SanType};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params
        .subject_alt_names
        .push(SanType::IpAddress(std::net::IpAddr::V4(
            std::net::Ipv4Addr::LOCALHOST,
        )));
    let cert = params.signed_by(&key, &issuer).unwrap();
    let paths = (dir.join("ca.pem"), dir.join("doc.pem"), dir.join("doc.key"));
    std::fs::write(&paths.0, ca.pem()).unwrap();
    std::fs::write(&paths.1, cert.pem()).unwrap();
    std::fs::write(&paths.2, key.serialize_pem()).unwrap();
    paths
}

use std::path::PathBuf;

/// An app whose client metadata documents may come from loopback over https under the test's
/// own CA; a tenant with a portal admin. Answers the app, the admin's address, and the
/// document listener's certificate and key.
async fn app_for_people(dir: &std::path::Path) -> (TestApp, &'static str, PathBuf, PathBuf) {
    let (ca, cert, key) = document_tls(dir);
    let app = TestApp::spawn_with(|c| {
        c.oauth_documents_allow_loopback = true;
        c.oauth_documents_ca_file = Some(ca.clone());
    })
    .await;
    let c = app.provision("kyb:read", "SE", "SE").await;
    let email = "agent.owner@example.se";
    app.app
        .services
        .portal_admin
        .create_user(&c.tenant_id, email, "admin", None)
        .await
        .expect("a portal user");
    (app, email, cert, key)
}

fn person_env(
    command: &mut tokio::process::Command,
    app: &TestApp,
    chromium: &std::path::Path,
    shots: &str,
) {
    let control = app.app.sandbox.as_ref().expect("the sandbox").control_url();
    let store = if std::env::var("IDREG_TEST_STORE").is_ok_and(|s| s.starts_with("sqlite")) {
        "sqlite"
    } else {
        "postgres"
    };
    // Beside the portal walk's folder, which that test empties when it starts.
    let shots = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../target/portal-screenshots/consent")
        .join(store)
        .join(shots);
    command
        .env("CHROMIUM", chromium)
        .env("MAILBOX_URL", format!("{control}/mailbox"))
        .env("PORTAL_URL", &app.portal_url)
        .env("SHOTS", shots);
}

/// The official MCP Python SDK's authorization-code provider, unmodified, in both protocol
/// eras, with a client registered dynamically and one named by its metadata document: its
/// redirect handler runs a person in headless Chromium who signs in through the sandbox's
/// mailbox and consents; its loopback listener gets the code; it lists and calls tools.
#[tokio::test(flavor = "multi_thread")]
async fn the_official_python_sdk_connects_as_a_person() {
    let Some(python) = blackbox::test_python("the MCP Python SDK") else {
        return;
    };
    let Some((browser, chromium)) =
        crate::portal_browser::prerequisites("python_sdk_authorization_code")
    else {
        return;
    };
    let dir = blackbox::TempDir::new();
    let (app, email, cert, key) = app_for_people(&dir.path).await;
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp_clients/test_python_oauth.py");
    let mut command = tokio::process::Command::new(python);
    command
        .arg(script)
        .arg("--url")
        .arg(app.url("/mcp"))
        .arg("--consent")
        .arg(browser.join("consent.mjs"))
        .arg("--email")
        .arg(email)
        .arg("--doc-cert")
        .arg(&cert)
        .arg("--doc-key")
        .arg(&key);
    person_env(&mut command, &app, &chromium, "python-sdk-consent");
    passes(command, "the Python SDK authorization-code test").await;
}

/// The official MCP TypeScript SDK client's authorization-code flow (its `OAuthClientProvider`
/// interface implemented as an app does, `finishAuth` with the code), in each version mode,
/// registered dynamically and by a metadata document, the person consenting in Chromium.
#[tokio::test(flavor = "multi_thread")]
async fn the_official_typescript_sdk_connects_as_a_person() {
    let Some(dir_ts) = blackbox::test_node_clients("@modelcontextprotocol/client") else {
        return;
    };
    let Some((browser, chromium)) =
        crate::portal_browser::prerequisites("typescript_sdk_authorization_code")
    else {
        return;
    };
    let dir = blackbox::TempDir::new();
    let (app, email, cert, key) = app_for_people(&dir.path).await;
    let mut command = tokio::process::Command::new("node");
    command
        .current_dir(&dir_ts)
        .arg("test_ts_oauth.mjs")
        .arg("--url")
        .arg(app.url("/mcp"))
        .arg("--consent")
        .arg(browser.join("consent.mjs"))
        .arg("--email")
        .arg(email)
        .arg("--doc-cert")
        .arg(&cert)
        .arg("--doc-key")
        .arg(&key);
    person_env(&mut command, &app, &chromium, "typescript-sdk-consent");
    passes(command, "the TypeScript SDK authorization-code test").await;
}
