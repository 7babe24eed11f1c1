//! Client identities over real mutual TLS: the upstream sandbox's listener (a throwaway CA
//! made at start) demands a client certificate issued by its CA. A client built from the
//! sandbox's PKCS#12 keystore or PEM file gets an answer; one without is turned away; broken
//! material is refused when the client is built, with the documented reasons.

use connector_kit::{build_client, exchange, ClientConfigError, Timeouts, TlsConfig};
use std::path::PathBuf;
use std::time::Duration;
use upstream_sandbox::{RunningSandbox, Sandbox, SandboxConfig, CLIENT_PKCS12_PASSWORD};

fn start() -> RunningSandbox {
    Sandbox::start(SandboxConfig::default()).expect("sandbox")
}

fn client(tls: &TlsConfig) -> Result<reqwest::Client, ClientConfigError> {
    build_client(
        "example.client_identity",
        "idreg-connector-kit-test/0",
        Timeouts::total(Duration::from_secs(3)),
        tls,
    )
}

/// Trusts the sandbox's CA, with no client identity yet.
fn trusting(sb: &RunningSandbox) -> TlsConfig {
    TlsConfig {
        extra_roots_pem: Some(sb.tls.as_ref().unwrap().ca_pem_path.clone()),
        ..TlsConfig::default()
    }
}

/// Whether a request over the mutual-TLS listener gets an HTTP answer (any status).
async fn answered(sb: &RunningSandbox, http: &reqwest::Client) -> bool {
    let url = format!("{}/organisationer", sb.bo_base_url().unwrap());
    exchange(http.post(url).json(&serde_json::json!({})), 64 * 1024)
        .await
        .is_ok()
}

fn tls_reason(e: ClientConfigError) -> String {
    match e {
        ClientConfigError::Tls { setting, reason } => {
            assert_eq!(setting, "example.client_identity");
            reason
        }
        other => panic!("{other:?}"),
    }
}

fn write(sb: &RunningSandbox, name: &str, bytes: &[u8]) -> PathBuf {
    let path = sb.tls.as_ref().unwrap().dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pkcs12_identity_is_presented() {
    let sb = start();
    let files = sb.tls.clone().unwrap();
    let with = TlsConfig {
        client_identity_pkcs12: Some(files.client_identity_pkcs12_path.clone()),
        client_identity_password: Some(CLIENT_PKCS12_PASSWORD.to_owned()),
        ..trusting(&sb)
    };
    assert!(answered(&sb, &client(&with).unwrap()).await);
    // The same listener turns a client without a certificate away.
    assert!(!answered(&sb, &client(&trusting(&sb)).unwrap()).await);

    let wrong = TlsConfig {
        client_identity_password: Some("not-the-password".to_owned()),
        ..with.clone()
    };
    let reason = tls_reason(client(&wrong).unwrap_err());
    assert!(
        reason.starts_with("the PKCS#12 keystore cannot be opened (wrong password?)"),
        "{reason}"
    );
    let garbage = TlsConfig {
        client_identity_pkcs12: Some(write(&sb, "garbage.p12", b"not a keystore")),
        ..with
    };
    let reason = tls_reason(client(&garbage).unwrap_err());
    assert!(
        reason.starts_with("the PKCS#12 keystore cannot be opened"),
        "{reason}"
    );
    sb.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pem_identity_is_presented() {
    let sb = start();
    let files = sb.tls.clone().unwrap();
    let with = TlsConfig {
        client_identity_pem: Some(files.client_identity_pem_path.clone()),
        ..trusting(&sb)
    };
    assert!(answered(&sb, &client(&with).unwrap()).await);
    sb.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pem_identity_without_its_key_is_refused_at_build_time() {
    let sb = start();
    let files = sb.tls.clone().unwrap();
    // A real certificate, but no private key with it.
    let cert_only = files
        .client_identity_pem
        .split("-----BEGIN PRIVATE KEY-----")
        .next()
        .unwrap()
        .to_owned();
    assert!(cert_only.contains("-----BEGIN CERTIFICATE-----"));
    let tls = TlsConfig {
        client_identity_pem: Some(write(&sb, "cert-only.pem", cert_only.as_bytes())),
        ..TlsConfig::default()
    };
    let e = client(&tls).unwrap_err();
    assert_eq!(
        e.to_string(),
        "TLS material for `example.client_identity` is unusable: the client identity must \
         hold a certificate and its private key (PEM)"
    );

    let missing = TlsConfig {
        client_identity_pem: Some(files.dir.join("no-such-file.pem")),
        ..TlsConfig::default()
    };
    let reason = tls_reason(client(&missing).unwrap_err());
    assert!(
        reason.starts_with("cannot read the client identity file"),
        "{reason}"
    );

    let roots = TlsConfig {
        extra_roots_pem: Some(write(
            &sb,
            "not-roots.pem",
            b"-----BEGIN CERTIFICATE-----\n%%%\n-----END CERTIFICATE-----\n",
        )),
        ..TlsConfig::default()
    };
    let reason = tls_reason(client(&roots).unwrap_err());
    assert!(
        reason.starts_with("the root certificate file is not a PEM bundle"),
        "{reason}"
    );
    sb.stop().await;
}
