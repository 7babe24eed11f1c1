//! The person use case: the permit gate before the cache and the register, the ceiling
//! before the call, never stale, an answer about someone else never stored.

use crate::access::caller::Caller;
use crate::access::tenant::{Permit, PermitStatus};
use crate::companies::ports::MockCompanyStore;
use crate::companies::profile::{Fetch, RegistryFailure};
use crate::countries::country::Country;
use crate::countries::registry::{Countries, CountryConnectors};
use crate::error::ErrorCode;
use crate::evidence::{Evidence, EvidenceSource};
use crate::fixtures::{caller, clock, now};
use crate::ids::{CallRef, IdentifierRef, SubjectId};
use crate::persons::ports::{MockPersonRegistry, MockPersonStore, MockPersonVault, PersonRegistry};
use crate::persons::profile::{
    CachedPerson, PersonAtRef, PersonProfile, RegisterName, RegisterPerson, SealedPerson,
};
use crate::persons::service::PersonService;
use crate::subjects::identifier::{Identifier, SubjectKind};
use crate::subjects::ports::{MockIdentifierVault, MockSubjectStore};
use crate::subjects::service::SubjectService;
use crate::subjects::subject::{IdentifierHolder, SubjectHandle};
use chrono::{Duration, NaiveDate};
use std::sync::Arc;

/// One of Skatteverket's test personal numbers.
const PNR: &str = "195704133106";

struct Ports {
    registry: MockPersonRegistry,
    store: MockPersonStore,
    calls: MockCompanyStore,
    vault: MockPersonVault,
    subjects: MockSubjectStore,
    ids: MockIdentifierVault,
    country: Country,
}

fn holder(country: Country) -> IdentifierHolder {
    IdentifierHolder {
        subject: handle(),
        kind: SubjectKind::Person,
        id_type: if country == Country::Se {
            crate::fixtures::schemes::PNR
        } else {
            crate::fixtures::schemes::ASMENS
        },
        country,
        sealed: vec![1, 2, 3],
    }
}

impl Ports {
    /// The ref resolves to a person of `country`; revealing it gives `PNR`.
    fn new(country: Country) -> Ports {
        let registry = MockPersonRegistry::new();
        let subjects = MockSubjectStore::new();
        let mut ids = MockIdentifierVault::new();
        ids.expect_reveal().returning(|_, _, _, _| {
            Ok(Identifier::restore(crate::fixtures::schemes::PNR, PNR).unwrap())
        });
        Ports {
            registry,
            store: MockPersonStore::new(),
            calls: MockCompanyStore::new(),
            vault: MockPersonVault::new(),
            subjects,
            ids,
            country,
        }
    }

    /// The one read behind the ref finds the person and `cached`.
    fn finds(&mut self, cached: Option<CachedPerson>) {
        let country = self.country;
        self.store
            .expect_person_at_ref()
            .times(1)
            .return_once(move |_, _| {
                Ok(Some(PersonAtRef {
                    holder: holder(country),
                    cached,
                }))
            });
    }

    fn service(self) -> PersonService {
        PersonService {
            calendar: Default::default(),
            meter: std::sync::Arc::new(crate::meter::NoMeter),
            countries: Arc::new(
                Countries::new(vec![CountryConnectors::new(Country::Se, &[])
                    .persons(Arc::new(self.registry) as Arc<dyn PersonRegistry>)
                    .screens_persons()])
                .unwrap(),
            ),
            store: Arc::new(self.store),
            calls: Arc::new(self.calls),
            vault: Arc::new(self.vault),
            subjects: Arc::new(SubjectService {
                store: Arc::new(self.subjects),
                vault: Arc::new(self.ids),
                clock: clock(),
            }),
            clock: clock(),
            revalidate_after: Duration::hours(24),
        }
    }

    /// Nothing past the permit gate may happen.
    fn nothing_after_the_gate(&mut self) {
        self.store.expect_person_at_ref().never();
        self.store.expect_spend_person_lookup().never();
        self.registry.expect_fetch_person().never();
    }

    /// The register answers `register` once, its call recorded.
    fn register_answers(&mut self, outcome: Result<RegisterPerson, RegistryFailure>) {
        self.registry
            .expect_fetch_person()
            .times(1)
            .withf(|p, end_user| {
                p.expose_canonical() == PNR && end_user.starts_with("idreg-grant:")
            })
            .return_once(move |_, _| Fetch {
                calls: Vec::new(),
                outcome,
            });
        self.calls
            .expect_record_calls()
            .times(1)
            .returning(|_, _, _| Ok(vec![evidence(Duration::zero())]));
    }
}

fn handle() -> SubjectHandle {
    SubjectHandle {
        subject_id: SubjectId::generate(),
        aliases: Vec::new(),
    }
}

fn evidence(age: Duration) -> Evidence {
    Evidence {
        source: EvidenceSource::declared("personreg.personsokning"),
        source_timestamp: now() - age,
        call_ref: CallRef::generate(),
        upstream_ref: None,
        digest: None,
        schema_version: None,
        retrieved_at: now() - age,
    }
}

fn cached(age: Duration) -> CachedPerson {
    CachedPerson {
        sealed: SealedPerson(vec![9; 40]),
        evidence: evidence(age),
        fetched_at: now() - age,
    }
}

fn register(id: &str) -> RegisterPerson {
    RegisterPerson {
        id_number: crate::subjects::identifier::EchoedNumber::new(id),
        name: Some(RegisterName {
            given_names: Some("Christina".into()),
            surname: Some("Efternamn3542".into()),
            ..RegisterName::default()
        }),
        ..RegisterPerson::default()
    }
}

fn with_permit(mut c: Caller, status: PermitStatus, from: i64, to: i64) -> Caller {
    let today = now().date_naive();
    c.tenant.permit = Some(Permit {
        valid_from: today + Duration::days(from),
        valid_to: today + Duration::days(to),
        status,
        recorded_at: now(),
    });
    c
}

fn kyc() -> Caller {
    with_permit(
        caller("SE,LT", "kyc:read", "SE,LT"),
        PermitStatus::Active,
        -10,
        300,
    )
}

fn a_ref() -> String {
    IdentifierRef::generate().to_string()
}

#[tokio::test]
async fn without_a_permit_in_force_nothing_is_read_or_called() {
    let base = caller("SE", "kyc:read", "SE");
    let cases = [
        (base.clone(), ErrorCode::PersonregPermitRequired),
        (
            with_permit(base.clone(), PermitStatus::Active, 1, 30),
            ErrorCode::PersonregPermitRequired,
        ),
        (
            with_permit(base.clone(), PermitStatus::Active, -30, -1),
            ErrorCode::PersonregPermitRequired,
        ),
        (
            with_permit(base.clone(), PermitStatus::Suspended, -30, 30),
            ErrorCode::PersonregPermitSuspended,
        ),
    ];
    for (c, code) in cases {
        let mut p = Ports::new(Country::Se);
        p.nothing_after_the_gate();
        let e = p.service().profile(&c, &a_ref()).await.unwrap_err();
        assert_eq!(e.code, code);
        // lookup_person's admission refuses alike, before anything is resolved.
        let p = Ports::new(Country::Se);
        let e = p
            .service()
            .admit_lookup(&c, "personnummer", PNR)
            .unwrap_err();
        assert_eq!(e.code, code);
    }
}

#[tokio::test]
async fn kyb_read_alone_is_forbidden() {
    let mut p = Ports::new(Country::Se);
    p.nothing_after_the_gate();
    let c = with_permit(caller("SE", "kyb:read", "SE"), PermitStatus::Active, -1, 1);
    let e = p.service().profile(&c, &a_ref()).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::Forbidden);
}

#[tokio::test]
async fn a_lithuanian_person_is_501_after_the_gate() {
    let mut p = Ports::new(crate::fixtures::schemes::LT);
    p.finds(None);
    p.store.expect_spend_person_lookup().never();
    p.registry.expect_fetch_person().never();
    let e = p.service().profile(&kyc(), &a_ref()).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::CountryNotSupported);
    // Without a permit the gate answers first.
    let mut p = Ports::new(crate::fixtures::schemes::LT);
    p.nothing_after_the_gate();
    let e = p
        .service()
        .profile(&caller("SE,LT", "kyc:read", "SE,LT"), &a_ref())
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::PersonregPermitRequired);
    let p = Ports::new(Country::Se);
    let e = p
        .service()
        .admit_lookup(&kyc(), "asmens-kodas", "39001010009")
        .map(|_| ())
        .unwrap_err();
    assert!(
        matches!(
            e.code,
            ErrorCode::CountryNotSupported | ErrorCode::InvalidIdentifier
        ),
        "{e:?}"
    );
    let p = Ports::new(Country::Se);
    let e = p
        .service()
        .admit_lookup(&kyc(), "orgnr", "5560021361")
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::BadRequest);
}

#[tokio::test]
async fn a_fresh_cached_profile_is_served_without_counting_or_calling() {
    let mut p = Ports::new(Country::Se);
    p.finds(Some(cached(Duration::hours(1))));
    p.store.expect_spend_person_lookup().never();
    p.registry.expect_fetch_person().never();
    p.vault
        .expect_open_person()
        .times(1)
        .returning(|_, _, _| Ok(PersonProfile::from_register(register(PNR))));
    let served = p.service().profile(&kyc(), &a_ref()).await.unwrap();
    assert_eq!(
        served.profile.names().surname.as_deref(),
        Some("Efternamn3542")
    );
}

#[tokio::test]
async fn a_lapsed_cache_and_a_failing_register_is_503_never_stale() {
    for failure in [
        RegistryFailure::Unavailable("down".into()),
        RegistryFailure::Garbled("soap fault".into()),
    ] {
        let mut p = Ports::new(Country::Se);
        p.finds(Some(cached(Duration::hours(25))));
        p.store
            .expect_spend_person_lookup()
            .times(1)
            .withf(|_, day, ceiling| {
                *day == NaiveDate::from_ymd_opt(2026, 11, 21).unwrap() && *ceiling == 500
            })
            .returning(|_, _, _| Ok(true));
        p.register_answers(Err(failure));
        p.vault.expect_open_person().never();
        p.store.expect_save_person().never();
        let e = p.service().profile(&kyc(), &a_ref()).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::UpstreamUnavailable);
    }
}

#[tokio::test]
async fn a_reached_ceiling_is_429_even_with_a_lapsed_cache() {
    let mut p = Ports::new(Country::Se);
    p.finds(Some(cached(Duration::hours(25))));
    p.store
        .expect_spend_person_lookup()
        .returning(|_, _, _| Ok(false));
    p.registry.expect_fetch_person().never();
    let e = p.service().profile(&kyc(), &a_ref()).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::BudgetExceeded);
}

#[tokio::test]
async fn an_answer_about_another_person_is_never_stored() {
    let mut p = Ports::new(Country::Se);
    p.finds(None);
    p.store
        .expect_spend_person_lookup()
        .returning(|_, _, _| Ok(true));
    p.register_answers(Ok(register("198106039228")));
    p.store.expect_save_person().never();
    p.vault.expect_seal_person().never();
    let e = p.service().profile(&kyc(), &a_ref()).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::UpstreamUnavailable);
}

#[tokio::test]
async fn a_person_the_register_does_not_hold_is_404_and_not_cached() {
    let mut p = Ports::new(Country::Se);
    p.finds(None);
    p.store
        .expect_spend_person_lookup()
        .returning(|_, _, _| Ok(true));
    p.register_answers(Err(RegistryFailure::NotFound));
    p.store.expect_save_person().never();
    let e = p.service().profile(&kyc(), &a_ref()).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn a_register_answer_is_sealed_and_cached() {
    let mut p = Ports::new(Country::Se);
    p.finds(None);
    p.store
        .expect_spend_person_lookup()
        .times(1)
        .returning(|_, _, _| Ok(true));
    p.register_answers(Ok(register(PNR)));
    p.vault
        .expect_seal_person()
        .times(1)
        .returning(|_, _, _| Ok(SealedPerson(vec![1; 48])));
    p.store
        .expect_save_person()
        .times(1)
        .withf(|_, _, _, sealed, _, at| sealed.0 == vec![1; 48] && *at == now())
        .returning(|_, _, _, _, _, _| Ok(()));
    let served = p.service().profile(&kyc(), &a_ref()).await.unwrap();
    assert_eq!(served.country, Country::Se);
    assert_eq!(
        served.profile.names().given_name.as_deref(),
        Some("Christina")
    );
}

#[tokio::test]
async fn a_malformed_ref_is_400_and_an_unknown_one_404() {
    let mut p = Ports::new(Country::Se);
    p.nothing_after_the_gate();
    let e = p
        .service()
        .profile(&kyc(), "195704133106")
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidIdentifier);
    assert!(!e.message.contains("195704133106"));

    let mut p = Ports::new(Country::Se);
    p.store.expect_person_at_ref().returning(|_, _| Ok(None));
    p.store.expect_spend_person_lookup().never();
    p.registry.expect_fetch_person().never();
    let e = p.service().profile(&kyc(), &a_ref()).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn screening_reads_a_person_subjects_name_and_birth_date_under_the_gate() {
    use crate::subjects::subject::{SubjectIdentifier, SubjectRecord};
    let record = |kind: SubjectKind| SubjectRecord {
        subject_id: SubjectId::generate(),
        kind,
        created_at: now(),
        identifiers: vec![SubjectIdentifier {
            identifier_ref: IdentifierRef::generate(),
            id_type: crate::fixtures::schemes::PNR,
            country: Country::Se,
            valid_from: now(),
            valid_to: None,
        }],
        refs: Vec::new(),
        aliases: Vec::new(),
        evidence: evidence(Duration::zero()),
    };
    // Without a permit: refused before anything is read.
    let mut p = Ports::new(Country::Se);
    p.subjects.expect_subject().never();
    p.nothing_after_the_gate();
    let e = p
        .service()
        .screening_identity(&caller("SE", "kyc:read", "SE"), &SubjectId::generate())
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::PersonregPermitRequired);

    // A person: the cached profile's name and birth date; nothing counted or called.
    let mut p = Ports::new(Country::Se);
    let person = record(SubjectKind::Person);
    p.subjects
        .expect_subject()
        .return_once(move |_, _| Ok(person));
    p.finds(Some(cached(Duration::hours(1))));
    p.store.expect_spend_person_lookup().never();
    p.vault.expect_open_person().returning(|_, _, _| {
        let mut r = register(PNR);
        r.birth_date = chrono::NaiveDate::from_ymd_opt(1957, 4, 13);
        Ok(PersonProfile::from_register(r))
    });
    let id = p
        .service()
        .screening_identity(&kyc(), &SubjectId::generate())
        .await
        .unwrap();
    assert_eq!(id.name.as_deref(), Some("Christina Efternamn3542"));
    assert_eq!(id.birth_date, chrono::NaiveDate::from_ymd_opt(1957, 4, 13));
    assert_eq!(id.country, Country::Se);

    // A company subject is not a person.
    let mut p = Ports::new(Country::Se);
    let company = record(SubjectKind::Company);
    p.subjects
        .expect_subject()
        .return_once(move |_, _| Ok(company));
    p.store.expect_person_at_ref().never();
    let e = p
        .service()
        .screening_identity(&kyc(), &SubjectId::generate())
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::BadRequest);
}
