//! Norway's registry behind idreg's ports, against the sandbox plug-in over real HTTP: the
//! shared profile of every kind of entity (active, bankrupt, wound up, dissolved, deleted,
//! withdrawn, unknown), the VAT registration as the one tax kind, officers from the roles,
//! and the plug the binary lists.

use adapters_no::identifiers::{install, ORGANISASJONSNUMMER};
use adapters_no::registry::{NorwegianCompanyRegistry, SN};
use adapters_no::sandbox::{BrregSandbox, NAME};
use adapters_no::BrregConfig;
use connector_kit::Timeouts;
use domain::companies::ports::{CompanyRegistry, PaidCompanyRegistry};
use domain::companies::profile::{
    CompanyStatus, FetchedProfile, OptionalGroup, ProfileFetch, RegistryFailure, TaxKind,
};
use domain::subjects::identifier::Identifier;
use std::sync::Arc;
use std::time::Duration;
use upstream_sandbox::{RunningSandbox, Sandbox, SandboxConfig};

struct Harness {
    _sb: RunningSandbox,
    brreg: Arc<BrregSandbox>,
    registry: NorwegianCompanyRegistry,
}

fn start() -> Harness {
    install();
    let brreg = Arc::new(BrregSandbox::standard());
    let sb = Sandbox::start(SandboxConfig::default().with_plugin(brreg.clone())).expect("sandbox");
    let registry = NorwegianCompanyRegistry::new(&BrregConfig {
        base_url: sb.plugin_base_url(NAME),
        timeouts: Timeouts::total(Duration::from_secs(2)),
        contact: "idreg-tests@example.invalid".into(),
    })
    .expect("registry");
    Harness {
        _sb: sb,
        brreg,
        registry,
    }
}

fn code(n: &str) -> Identifier {
    Identifier::parse_company(&format!("no:{n}")).expect("a valid organisasjonsnummer")
}

fn profile(f: ProfileFetch) -> FetchedProfile {
    assert_eq!(f.calls.len(), 1, "one call per profile");
    assert!(f.calls[0].usable);
    assert_eq!(f.calls[0].cost, 0, "the register is free");
    f.outcome.expect("a profile")
}

#[tokio::test]
async fn an_active_company_maps_into_the_shared_profile() {
    let h = start();
    let n = h.brreg.handy().active_as;
    assert_eq!(code(&n).id_type(), ORGANISASJONSNUMMER);
    let p = profile(h.registry.fetch_profile(&code(&n)).await);
    let summary = h.brreg.company(&n).unwrap();
    assert_eq!(p.data.orgnr, n);
    assert_eq!(p.data.name, summary.navn);
    assert_eq!(p.data.legal_form, "AS");
    assert_eq!(p.data.status, CompanyStatus::Active);
    assert!(p.data.registered_at.is_some());
    assert_eq!(p.data.address.country, "NO");
    assert!(p.data.address.city.is_some());
    assert!(!p.data.activity_codes.is_empty());
    for c in &p.data.activity_codes {
        assert_eq!(c.scheme, SN);
        assert!(
            c.code.len() == 6 && c.code.as_bytes()[2] == b'.',
            "{}",
            c.code
        );
    }
    let band = p.data.employees_band.as_deref().expect("a counted band");
    assert!(band.contains('-') && band != "1-4", "{band}");
    let (tax, call) = p.tax.expect("the VAT register's entry");
    assert_eq!(call, p.main_call, "evidenced by the entity's own call");
    assert_eq!(tax.get(TaxKind::Vat), Some(true));
    assert_eq!(
        tax.get(TaxKind::BusinessTax),
        None,
        "not reported, never false"
    );
    assert_eq!(tax.get(TaxKind::Employer), None);
    assert_eq!(p.unchecked, [OptionalGroup::LatestAnnualReport]);
}

#[tokio::test]
async fn employees_are_a_band_only_where_the_register_registers_some() {
    let h = start();
    let handy = h.brreg.handy();
    let few = profile(
        h.registry
            .fetch_profile(&code(&handy.one_to_four_employees))
            .await,
    );
    assert_eq!(few.data.employees_band.as_deref(), Some("1-4"));
    let none = profile(h.registry.fetch_profile(&code(&handy.no_employees)).await);
    assert_eq!(none.data.employees_band, None);
    assert!(
        !none.unchecked.contains(&OptionalGroup::EmployeesBand),
        "checked"
    );
}

#[tokio::test]
async fn statuses_follow_the_registers_precedence() {
    let h = start();
    let handy = h.brreg.handy();
    for (n, status) in [
        (&handy.bankrupt, CompanyStatus::Bankruptcy),
        (&handy.winding_up, CompanyStatus::Liquidation),
        (&handy.compulsory_dissolution, CompanyStatus::Liquidation),
        (&handy.restructuring, CompanyStatus::Active),
    ] {
        let p = profile(h.registry.fetch_profile(&code(n)).await);
        assert_eq!(p.data.status, status, "{n}");
    }
}

#[tokio::test]
async fn a_deleted_company_is_deregistered_with_every_optional_group_unchecked() {
    let h = start();
    let n = h.brreg.handy().deleted;
    let p = profile(h.registry.fetch_profile(&code(&n)).await);
    assert_eq!(p.data.status, CompanyStatus::Deregistered);
    assert!(p.tax.is_none());
    assert_eq!(p.unchecked, OptionalGroup::ALL);
    assert!(p.data.activity_codes.is_empty() && p.data.employees_band.is_none());
}

#[tokio::test]
async fn a_withdrawn_company_is_withdrawn_and_an_unknown_one_not_found() {
    let h = start();
    let handy = h.brreg.handy();
    let gone = h.registry.fetch_profile(&code(&handy.gone)).await;
    assert_eq!(gone.calls.len(), 1, "the call is recorded");
    assert_eq!(gone.outcome.unwrap_err(), RegistryFailure::Withdrawn);
    let officers = h.registry.fetch_officers(&code(&handy.gone)).await;
    assert_eq!(officers.outcome.unwrap_err(), RegistryFailure::Withdrawn);
    let unknown = h.registry.fetch_profile(&code(&handy.unknown)).await;
    assert_eq!(unknown.outcome.unwrap_err(), RegistryFailure::NotFound);
}

#[tokio::test]
async fn officers_are_the_roles_held_named_without_any_number() {
    let h = start();
    let n = h.brreg.handy().active_as;
    let f = h.registry.fetch_officers(&code(&n)).await;
    assert_eq!(f.calls.len(), 1);
    assert_eq!(f.calls[0].cost, 0);
    let o = f.outcome.expect("officers");
    assert_eq!(o.orgnr, n);
    assert_eq!(
        o.signatory_rule_text, None,
        "the open roles carry no rule text"
    );
    let codes: Vec<&str> = o
        .officers
        .iter()
        .filter_map(|x| x.role_code.as_deref())
        .collect();
    for role in ["DAGL", "LEDE", "REVI"] {
        assert!(codes.contains(&role), "{role} in {codes:?}");
    }
    assert!(!codes.contains(&"KONT"), "a contact person is no officer");
    for officer in &o.officers {
        assert!(officer.party.person.is_none(), "never a national number");
        assert!(!officer.party.name.is_empty() && !officer.role.is_empty());
        assert!(!officer.party.name.bytes().any(|b| b.is_ascii_digit()));
    }
}

#[tokio::test]
async fn the_plug_serves_norway_against_the_sandbox_with_free_officers() {
    install();
    let plug = adapters_no::plug::PLUG;
    assert_eq!(plug.country.code(), "NO");
    assert_eq!(plug.schemes, adapters_no::identifiers::SCHEMES);
    let upstreams = (plug.sandbox_upstreams)();
    assert_eq!(upstreams.len(), 1);
    assert_eq!(upstreams[0].name(), NAME);
    let sb = Sandbox::start(SandboxConfig::default().with_plugin(upstreams[0].clone()))
        .expect("sandbox");
    let connectors = (plug.connect)(&Default::default(), Some(&sb))
        .unwrap()
        .expect("served against the sandbox");
    let countries = domain::countries::registry::Countries::new(vec![connectors]).unwrap();
    let no = adapters_no::identifiers::NO;
    assert!(countries.company(no).is_ok());
    assert!(countries.paid(no).is_ok());
    assert!(!countries.charges(no), "free officers");
    assert!(countries.owners(no).is_err(), "no open register of owners");
    assert!(countries.persons(no).is_err());
}
