//! SPAR's person search over real HTTP and mutual TLS against `upstream-sandbox` (in
//! process): the organisation certificate as a PKCS#12 keystore, every marker state of the
//! sandbox's persons, the fault modes, and certificate problems found at start-up.

use adapters_se::{SeConfigError, SparConfig, SwedishPersonRegistry, Timeouts, TlsConfig};
use domain::companies::profile::RegistryFailure;
use domain::persons::ports::PersonRegistry;
use domain::persons::profile::{PersonProfile, Protection};
use domain::subjects::identifier::Identifier;
use std::path::PathBuf;
use std::time::Duration;
use upstream_sandbox::spar::persons;
use upstream_sandbox::{
    FaultSpec, RunningSandbox, Sandbox, SandboxConfig, Source, CLIENT_PKCS12_PASSWORD,
};

fn start() -> RunningSandbox {
    Sandbox::start(SandboxConfig::default()).expect("sandbox")
}

fn config(sb: &RunningSandbox, password: &str) -> SparConfig {
    let tls = sb.tls.as_ref().unwrap();
    let mut c = SparConfig::production("500243", "500243", "637");
    c.url = sb.spar_url().expect("the TLS listener");
    c.tls = TlsConfig {
        client_identity_pkcs12: Some(tls.client_identity_pkcs12_path.clone()),
        client_identity_password: Some(password.to_owned()),
        extra_roots_pem: Some(tls.ca_pem_path.clone()),
        ..TlsConfig::default()
    };
    c.timeouts = Timeouts::total(Duration::from_secs(3));
    c
}

fn registry(sb: &RunningSandbox) -> SwedishPersonRegistry {
    SwedishPersonRegistry::new(&config(sb, CLIENT_PKCS12_PASSWORD)).unwrap()
}

fn person(n: &str) -> Identifier {
    let t = if n[6..8].parse::<u32>().unwrap() > 60 {
        adapters_se::identifiers::SAMORDNINGSNUMMER
    } else {
        adapters_se::identifiers::PERSONNUMMER
    };
    Identifier::restore(t, n).unwrap()
}

/// What a failure must be.
type Expected = fn(&RegistryFailure) -> bool;

const END_USER: &str = "idreg-grant:grt_01TEST";

#[tokio::test(flavor = "multi_thread")]
async fn every_marker_state_is_read_over_mutual_tls() {
    adapters_se::identifiers::install();
    let sb = start();
    let reg = registry(&sb);
    let fetch = reg.fetch_person(&person(persons::ORDINARY), END_USER).await;
    let call = fetch.calls.last().unwrap();
    assert_eq!(call.source, adapters_se::sources::PERSONSOKNING);
    assert_eq!(call.operation, "SOAP PersonSok");
    assert!(call.usable && call.digest.is_some() && call.upstream_ref.is_some());
    let ordinary = PersonProfile::from_register(fetch.outcome.unwrap());
    assert_eq!(ordinary.names().surname.as_deref(), Some("Efternamn3542"));

    for (n, protection) in [
        (persons::PROTECTED_RECORDED, Protection::ProtectedResidence),
        (persons::SEKRETESS, Protection::Confidential),
        (persons::SKYDDAD, Protection::ProtectedResidence),
        (persons::EMIGRATED_PROTECTED, Protection::Confidential),
    ] {
        let r = reg
            .fetch_person(&person(n), END_USER)
            .await
            .outcome
            .unwrap();
        let p = PersonProfile::from_register(r);
        assert_eq!(p.markers().protected, protection, "{n}");
        assert!(
            p.address().is_none() && p.foreign_address().is_none(),
            "{n}"
        );
        assert!(p.special_postal_address().is_none(), "{n}");
        assert!(p.markers().protected_since.is_some(), "{n}");
    }

    let sekretess = reg
        .fetch_person(&person(persons::SEKRETESS), END_USER)
        .await
        .outcome
        .unwrap();
    // The register's record carried addresses of every kind; the canonical object drops them.
    assert!(sekretess.addresses.registered.is_some());
    assert!(sekretess.addresses.special_postal.is_some());
    assert!(sekretess.addresses.contact.is_some());
    let p = PersonProfile::from_register(sekretess);
    assert_eq!(p.names().calling_name.as_deref(), Some("Maja"));

    let emigrated = PersonProfile::from_register(
        reg.fetch_person(&person(persons::EMIGRATED), END_USER)
            .await
            .outcome
            .unwrap(),
    );
    assert_eq!(
        emigrated
            .markers()
            .emigrated_date
            .as_ref()
            .map(|d| d.as_str()),
        Some("2022-05-17")
    );
    assert_eq!(
        emigrated.foreign_address().unwrap().country_name.as_deref(),
        Some("DANMARK")
    );

    let deceased = PersonProfile::from_register(
        reg.fetch_person(&person(persons::DECEASED), END_USER)
            .await
            .outcome
            .unwrap(),
    );
    // A date the register knows only to the month.
    assert_eq!(
        deceased
            .markers()
            .deceased_date
            .as_ref()
            .map(|d| d.as_str()),
        Some("2023-10")
    );

    let coordination = reg
        .fetch_person(&person(persons::COORDINATION), END_USER)
        .await
        .outcome
        .unwrap();
    assert_eq!(
        coordination.id_number,
        domain::subjects::identifier::EchoedNumber::new(persons::COORDINATION)
    );
    assert_eq!(
        coordination.birth_date,
        chrono::NaiveDate::from_ymd_opt(1978, 11, 26)
    );

    let special = PersonProfile::from_register(
        reg.fetch_person(&person(persons::SPECIAL_POSTAL), END_USER)
            .await
            .outcome
            .unwrap(),
    );
    assert!(special.special_postal_address().is_some() && special.address().is_some());
    assert_eq!(special.names().calling_name.as_deref(), Some("Per-Olof"));

    // A synthetic number (birth number in the test range) the register does not hold.
    let none = reg.fetch_person(&person("197001019814"), END_USER).await;
    assert_eq!(none.outcome, Err(RegistryFailure::NotFound));
    assert!(none.calls[0].usable);
    sb.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn faults_map_to_the_service_failures() {
    adapters_se::identifiers::install();
    let sb = start();
    let reg = registry(&sb);
    let ctl = sb.control();
    let cases: [(FaultSpec, Expected); 6] = [
        (FaultSpec::http_5xx(503), |f| {
            matches!(f, RegistryFailure::Unavailable(_))
        }),
        (FaultSpec::malformed(), |f| {
            matches!(f, RegistryFailure::Garbled(_))
        }),
        (FaultSpec::field_fel("UNDANTAG", None), |f| {
            matches!(f, RegistryFailure::Unavailable(_))
        }),
        (FaultSpec::field_fel("SOAP_FAULT", None), |f| {
            matches!(f, RegistryFailure::Garbled(_))
        }),
        (FaultSpec::field_fel("OVERSTIGER_MAX", None), |f| {
            matches!(f, RegistryFailure::Garbled(_))
        }),
        (FaultSpec::field_fel("ANNAN_PERSON", None), |f| {
            matches!(f, RegistryFailure::Garbled(_))
        }),
    ];
    for (spec, expected) in cases {
        let name = format!("{spec:?}");
        ctl.inject_fault(Source::Personsokning, spec.times(1))
            .unwrap();
        let fetch = reg.fetch_person(&person(persons::ORDINARY), END_USER).await;
        let failure = fetch.outcome.unwrap_err();
        assert!(expected(&failure), "{name}: {failure:?}");
        assert!(!fetch.calls[0].usable, "{name}");
        // No failure reason repeats the number asked about.
        assert!(!failure.to_string().contains(persons::ORDINARY), "{name}");
    }
    // Back to normal.
    assert!(reg
        .fetch_person(&person(persons::ORDINARY), END_USER)
        .await
        .outcome
        .is_ok());
    sb.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn certificate_problems_are_start_up_errors_naming_the_setting() {
    adapters_se::identifiers::install();
    let sb = start();
    let wrong = SwedishPersonRegistry::new(&config(&sb, "fel-lösenord")).unwrap_err();
    assert!(
        matches!(
            wrong,
            SeConfigError::Tls {
                setting: "spar.client_identity",
                ..
            }
        ),
        "{wrong}"
    );
    let mut missing = config(&sb, CLIENT_PKCS12_PASSWORD);
    missing.tls.client_identity_pkcs12 = None;
    assert!(matches!(
        SwedishPersonRegistry::new(&missing).unwrap_err(),
        SeConfigError::Missing(s) if s.starts_with("spar.client_identity")
    ));
    let mut unreadable = config(&sb, CLIENT_PKCS12_PASSWORD);
    unreadable.tls.client_identity_pkcs12 = Some(PathBuf::from("/nonexistent/org.p12"));
    assert!(matches!(
        SwedishPersonRegistry::new(&unreadable).unwrap_err(),
        SeConfigError::Tls {
            setting: "spar.client_identity",
            ..
        }
    ));
    // Without a client certificate the TLS listener refuses the connection.
    let mut anonymous = config(&sb, CLIENT_PKCS12_PASSWORD);
    anonymous.tls.client_identity_pkcs12 = None;
    anonymous.tls.client_identity_pem = Some(PathBuf::from("/nonexistent"));
    assert!(SwedishPersonRegistry::new(&anonymous).is_err());
    sb.stop().await;
}
