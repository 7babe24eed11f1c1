//! The Swedish paid tier over real HTTP against `upstream-sandbox` (in process): the company
//! information API behind the gateway's token, the beneficial-owners API over mutual TLS with
//! a PEM or a PKCS#12 client identity, paging, and certificate problems found at start-up.

use adapters_se::{SeConfigError, SePaidConfig, SwedishPaidRegistry, Timeouts, TlsConfig};
use base64::Engine;
use domain::companies::paid::ShareBand;
use domain::companies::ports::PaidCompanyRegistry;
use domain::subjects::identifier::Identifier;
use std::path::PathBuf;
use std::time::Duration;
use upstream_sandbox::{RunningSandbox, Sandbox, SandboxConfig, CLIENT_ID, CLIENT_SECRET};

const TEST_AB: &str = "5560021361";

fn start() -> RunningSandbox {
    Sandbox::start(SandboxConfig::default()).expect("sandbox")
}

fn config(sb: &RunningSandbox, tls: TlsConfig) -> SePaidConfig {
    SePaidConfig::sandbox(
        sb.fi_base_url(),
        sb.vdm_token_url(),
        sb.bo_base_url().expect("the TLS listener"),
        CLIENT_ID,
        CLIENT_SECRET,
        tls,
    )
    .with_timeouts(Timeouts::total(Duration::from_secs(3)))
}

fn pem_identity(sb: &RunningSandbox) -> TlsConfig {
    let tls = sb.tls.as_ref().unwrap();
    TlsConfig {
        client_identity_pem: Some(tls.client_identity_pem_path.clone()),
        extra_roots_pem: Some(tls.ca_pem_path.clone()),
        ..TlsConfig::default()
    }
}

fn orgnr(s: &str) -> Identifier {
    Identifier::parse_company(s).unwrap()
}

/// The DER blocks of one PEM label.
fn pem_blocks(pem: &str, label: &str) -> Vec<Vec<u8>> {
    let begin = format!("-----BEGIN {label}-----");
    let end = format!("-----END {label}-----");
    pem.split(&begin)
        .skip(1)
        .map(|rest| {
            let body: String = rest
                .split(&end)
                .next()
                .unwrap()
                .split_whitespace()
                .collect();
            base64::engine::general_purpose::STANDARD
                .decode(body)
                .unwrap()
        })
        .collect()
}

/// The sandbox's client identity as a PKCS#12 keystore under `password`, in a file.
fn pkcs12_file(sb: &RunningSandbox, password: &str) -> PathBuf {
    let tls = sb.tls.as_ref().unwrap();
    let cert = pem_blocks(&tls.client_identity_pem, "CERTIFICATE").remove(0);
    let key = pem_blocks(&tls.client_identity_pem, "PRIVATE KEY").remove(0);
    let chain = p12_keystore::PrivateKeyChain::new(
        b"idreg-test".to_vec(),
        p12_keystore::PrivateKey::from_der(&key).unwrap(),
        [p12_keystore::Certificate::from_der(&cert).unwrap()],
    );
    let mut store = p12_keystore::KeyStore::new();
    store.add_entry(
        "client",
        p12_keystore::KeyStoreEntry::PrivateKeyChain(chain),
    );
    let der = store.writer(password).write().unwrap();
    let path = tls.dir.join("client.p12");
    std::fs::write(&path, der).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread")]
async fn officers_owners_and_engagements_are_read_and_billed() {
    adapters_se::identifiers::install();
    let sb = start();
    let reg = SwedishPaidRegistry::new(&config(&sb, pem_identity(&sb))).unwrap();

    let fetch = reg.fetch_officers(&orgnr(TEST_AB)).await;
    let officers = fetch.outcome.unwrap();
    assert_eq!(officers.orgnr, TEST_AB);
    assert!(officers.officers.iter().any(|o| o.party.person.is_some()));
    assert!(officers.signatory_rule_text.is_some());
    let call = fetch.calls.last().unwrap();
    assert_eq!(call.source, adapters_se::sources::FORETAGSINFORMATION);
    assert_eq!(call.operation, "POST /organisationer");
    assert_eq!((call.cost, call.usable), (1, true));
    assert!(call.upstream_ref.is_some());

    let fetch = reg.fetch_beneficial_owners(&orgnr(TEST_AB)).await;
    let owners = fetch.outcome.unwrap();
    assert!(!owners.owners.is_empty());
    assert!(owners
        .owners
        .iter()
        .all(|o| ShareBand::ALL.contains(&o.share_band)));
    assert_eq!(fetch.calls.last().unwrap().cost, 1);

    // A person with several engagements, two per page: every page is its own billed call.
    let mut paged = config(&sb, pem_identity(&sb));
    paged.foretagsinformation.page_size = 2;
    let reg = SwedishPaidRegistry::new(&paged).unwrap();
    let person = officers
        .officers
        .iter()
        .find_map(|o| o.party.person.clone())
        .unwrap();
    assert!([
        adapters_se::identifiers::PERSONNUMMER,
        adapters_se::identifiers::SAMORDNINGSNUMMER
    ]
    .contains(&person.id_type()));
    let mut seen = Vec::new();
    for page in 1..=20 {
        let fetch = reg.fetch_engagements(&person, page).await;
        assert_eq!(fetch.calls.len(), 1);
        assert_eq!(fetch.calls[0].cost, 1);
        let p = fetch.outcome.unwrap();
        assert!(
            p.engagements.len() <= 4,
            "two organisations, a role or two each"
        );
        seen.extend(p.engagements);
        if !p.more {
            assert!(page >= 2, "this person's roles span more than one page");
            break;
        }
    }
    assert!(seen.iter().any(|e| e.orgnr == TEST_AB));
    sb.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pkcs12_identity_works_and_a_wrong_password_fails_at_start_up() {
    adapters_se::identifiers::install();
    let sb = start();
    let path = pkcs12_file(&sb, "hemligt");
    let ca = sb.tls.as_ref().unwrap().ca_pem_path.clone();
    let tls = |password: &str| TlsConfig {
        client_identity_pkcs12: Some(path.clone()),
        client_identity_password: Some(password.to_owned()),
        extra_roots_pem: Some(ca.clone()),
        ..TlsConfig::default()
    };
    let reg = SwedishPaidRegistry::new(&config(&sb, tls("hemligt"))).unwrap();
    let owners = reg.fetch_beneficial_owners(&orgnr(TEST_AB)).await;
    assert!(owners.outcome.is_ok(), "{:?}", owners.outcome);

    let err = SwedishPaidRegistry::new(&config(&sb, tls("fel"))).unwrap_err();
    assert!(
        matches!(
            err,
            SeConfigError::Tls {
                setting: "verkliga_huvudman.client_identity",
                ..
            }
        ),
        "{err}"
    );
    sb.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_or_unreadable_certificate_is_a_start_up_error_naming_the_setting() {
    adapters_se::identifiers::install();
    let sb = start();
    let none = SwedishPaidRegistry::new(&config(
        &sb,
        TlsConfig {
            extra_roots_pem: pem_identity(&sb).extra_roots_pem,
            ..TlsConfig::default()
        },
    ))
    .unwrap_err();
    assert!(
        matches!(none, SeConfigError::Missing(s) if s.starts_with("verkliga_huvudman.client_identity"))
    );

    let mut unreadable = pem_identity(&sb);
    unreadable.client_identity_pem = Some(PathBuf::from("/nonexistent/client.pem"));
    let err = SwedishPaidRegistry::new(&config(&sb, unreadable)).unwrap_err();
    assert!(
        matches!(
            err,
            SeConfigError::Tls {
                setting: "verkliga_huvudman.client_identity",
                ..
            }
        ),
        "{err}"
    );
    // A file that is not a certificate and key.
    let mut garbage = pem_identity(&sb);
    garbage.client_identity_pem = Some(sb.tls.as_ref().unwrap().ca_pem_path.clone());
    assert!(SwedishPaidRegistry::new(&config(&sb, garbage)).is_err());

    // Without a client certificate the TLS listener refuses the connection: unavailable.
    let sb_plain = SePaidConfig {
        verkliga_huvudman: adapters_se::VerkligaHuvudmanConfig {
            // The plain listener: the API answers 403 without a certificate.
            base_url: format!("{}{}", sb.base_url, upstream_sandbox::BO_PREFIX),
            ..config(&sb, pem_identity(&sb)).verkliga_huvudman
        },
        ..config(&sb, pem_identity(&sb))
    };
    let reg = SwedishPaidRegistry::new(&sb_plain).unwrap();
    let refused = reg.fetch_beneficial_owners(&orgnr(TEST_AB)).await;
    assert!(matches!(
        refused.outcome,
        Err(domain::companies::profile::RegistryFailure::Unavailable(_))
    ));
    sb.stop().await;
}
