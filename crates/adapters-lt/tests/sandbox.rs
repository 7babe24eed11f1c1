//! The Lithuanian register connector against the upstream sandbox over real HTTP: the
//! open-data API's wire format, not-found, the register's statuses, faults, and the call
//! records evidence is built from.

use adapters_lt::{LithuanianCompanyRegistry, LtConfig, NOT_IN_THE_OPEN_REGISTER};
use connector_kit::Timeouts;
use domain::companies::ports::CompanyRegistry;
use domain::companies::profile::{CompanyStatus, ProfileFetch, RegistryFailure};
use domain::subjects::identifier::Identifier;
use std::time::Duration;
use upstream_sandbox::{FaultSpec, RunningSandbox, Sandbox, SandboxConfig, Source};

fn start() -> (RunningSandbox, LithuanianCompanyRegistry) {
    let sb = Sandbox::start(SandboxConfig::default().with_timeout_hold(Duration::from_secs(4)))
        .expect("sandbox");
    let registry = LithuanianCompanyRegistry::new(&LtConfig {
        open_data_base_url: sb.lt_base_url(),
        timeouts: Timeouts::total(Duration::from_secs(2)),
    })
    .expect("registry");
    (sb, registry)
}

fn code(c: &str) -> Identifier {
    Identifier::parse_company(&format!("lt:{c}")).expect("a company code")
}

fn failure(f: &ProfileFetch) -> &RegistryFailure {
    f.outcome.as_ref().expect_err("a failure")
}

#[tokio::test]
async fn a_company_reads_whole_from_one_recorded_call() {
    adapters_lt::identifiers::install();
    let (sb, reg) = start();
    let f = reg.fetch_profile(&code("110443493")).await;
    let p = f.outcome.as_ref().expect("a profile");
    assert_eq!(p.data.orgnr, "110443493");
    assert_eq!(p.data.name, "Akcinė bendrovė \"Smėlio dėžė\"");
    assert_eq!(p.data.legal_form, "Akcinė bendrovė");
    assert_eq!(p.data.status, CompanyStatus::Active);
    assert_eq!(p.data.registered_at.unwrap().to_string(), "1991-06-14");
    assert_eq!(p.data.address.city.as_deref(), Some("Vilnius"));
    assert_eq!(p.data.address.country, "LT");
    assert!(p.tax.is_none());
    assert_eq!(p.unchecked, NOT_IN_THE_OPEN_REGISTER);
    assert_eq!(f.calls.len(), 1);
    let call = &f.calls[p.main_call];
    assert_eq!(call.source.as_str(), "companyreg.jar-atviri-duomenys");
    assert_eq!(
        call.operation,
        "GET /datasets/gov/rc/jar/iregistruoti/JuridinisAsmuo"
    );
    assert!(!call.operation.contains("110443493"));
    assert_eq!(call.status, Some(200));
    assert!(call.usable);
    assert_eq!(call.cost, 0);
    assert!(call.digest.as_deref().unwrap().starts_with("sha256:"));
    // The record's `_revision` is the upstream's own reference.
    assert!(call.upstream_ref.is_some());
    assert_eq!(sb.control().calls_for(Source::Lt).len(), 1);
}

#[tokio::test]
async fn the_registers_statuses_map_to_the_canonical_ones() {
    adapters_lt::identifiers::install();
    let (sb, reg) = start();
    let expected = [
        (6, CompanyStatus::Bankruptcy),
        (7, CompanyStatus::Liquidation),
        (10, CompanyStatus::Deregistered),
        (5, CompanyStatus::Bankruptcy),
    ];
    for (statusas, status) in expected {
        let c = sb
            .control()
            .dataset()
            .lt_companies()
            .iter()
            .find(|c| c.statusas == statusas)
            .cloned()
            .unwrap_or_else(|| panic!("the sandbox has a company of status {statusas}"));
        let f = reg
            .fetch_profile(&code(&format!("{:09}", c.ja_kodas)))
            .await;
        assert_eq!(
            f.outcome.unwrap().data.status,
            status,
            "statusas {statusas}"
        );
    }
}

#[tokio::test]
async fn an_unknown_code_is_not_found_and_usable() {
    adapters_lt::identifiers::install();
    let (_sb, reg) = start();
    let f = reg.fetch_profile(&code("999999999")).await;
    assert_eq!(failure(&f), &RegistryFailure::NotFound);
    assert_eq!(f.calls.len(), 1);
    assert!(f.calls[0].usable, "a definite not-found is a usable answer");
}

#[tokio::test]
async fn faults_become_unavailable_or_garbled_and_are_recorded() {
    adapters_lt::identifiers::install();
    let (sb, reg) = start();
    for (spec, unavailable) in [
        (FaultSpec::http_5xx(503), true),
        (FaultSpec::timeout(), true),
        (FaultSpec::malformed(), false),
    ] {
        sb.control()
            .inject_fault(Source::Lt, spec.times(1))
            .unwrap();
        let f = reg.fetch_profile(&code("110443493")).await;
        match failure(&f) {
            RegistryFailure::Unavailable(_) => assert!(unavailable),
            RegistryFailure::Garbled(why) => {
                assert!(!unavailable);
                assert!(!why.contains("110443493"), "{why}");
            }
            RegistryFailure::NotFound | RegistryFailure::Withdrawn => {
                panic!("a fault read as not found")
            }
        }
        assert_eq!(f.calls.len(), 1);
        assert!(!f.calls[0].usable);
    }
    // Once the fault is spent, the register answers again.
    assert!(reg.fetch_profile(&code("110443493")).await.outcome.is_ok());
}

#[tokio::test]
async fn a_personal_code_is_refused_without_a_call() {
    adapters_lt::identifiers::install();
    let (sb, reg) = start();
    // A synthetic exceptional personal code (`9`, no date part): nobody's.
    let person =
        Identifier::restore(adapters_lt::identifiers::ASMENS_KODAS, "90000000009").unwrap();
    let f = reg.fetch_profile(&person).await;
    assert_eq!(failure(&f), &RegistryFailure::NotFound);
    assert!(f.calls.is_empty());
    assert!(sb.control().calls_for(Source::Lt).is_empty());
}
