//! The paid tier's use case: the order of cache, budget and upstream call, stale serving when
//! the budget is spent, and a disabled tier that calls nothing.

use crate::companies::paid::{CachedPaid, OfficerList, PaidData, PaidObject};
use crate::companies::paid_service::PaidCompanyService;
use crate::companies::ports::{
    MockCompanyStore, MockPaidCompanyRegistry, MockPaidStore, PaidCompanyRegistry,
};
use crate::companies::profile::{Fetch, RegistryFailure};
use crate::countries::country::Country;
use crate::countries::registry::{Countries, CountryConnectors};
use crate::error::ErrorCode;
use crate::evidence::{Evidence, EvidenceSource};
use crate::fixtures::{caller, clock, now};
use crate::ids::{CallRef, SubjectId};
use crate::operation::Operation;
use crate::subjects::ports::{MockIdentifierVault, MockSubjectStore};
use crate::subjects::service::SubjectService;
use crate::subjects::subject::SubjectHandle;
use chrono::Duration;
use std::sync::Arc;

const ORGNR: &str = "5560021361";

struct Ports {
    registry: Option<MockPaidCompanyRegistry>,
    store: MockPaidStore,
    calls: MockCompanyStore,
    /// The registry is a free register's officers (`free_officers`), not the paid tier.
    free: bool,
}

impl Ports {
    fn new() -> Ports {
        let registry = MockPaidCompanyRegistry::new();
        Ports {
            registry: Some(registry),
            store: MockPaidStore::new(),
            calls: MockCompanyStore::new(),
            free: false,
        }
    }

    fn service(self) -> PaidCompanyService {
        PaidCompanyService {
            calendar: Default::default(),
            meter: std::sync::Arc::new(crate::meter::NoMeter),
            countries: Arc::new(
                Countries::new(
                    self.registry
                        .map(|r| {
                            let r = Arc::new(r) as Arc<dyn PaidCompanyRegistry>;
                            let se = CountryConnectors::new(Country::Se, &[]);
                            if self.free {
                                se.free_officers(r)
                            } else {
                                se.paid(r)
                            }
                        })
                        .into_iter()
                        .collect(),
                )
                .unwrap(),
            ),
            store: Arc::new(self.store),
            calls: Arc::new(self.calls),
            // No subject is resolved in these tests.
            subjects: Arc::new(SubjectService {
                store: Arc::new(MockSubjectStore::new()),
                vault: Arc::new(MockIdentifierVault::new()),
                clock: clock(),
            }),
            clock: clock(),
            revalidate_after: Duration::hours(24),
        }
    }
}

fn cached(age: Duration) -> CachedPaid {
    CachedPaid {
        object: PaidObject {
            country: Country::Se,
            data: PaidData::Officers(OfficerList {
                orgnr: ORGNR.into(),
                officers: Vec::new(),
                signatory_rule_text: Some("Firman tecknas av styrelsen".into()),
            }),
            evidence: Evidence {
                source: EvidenceSource::declared("companyreg.foretagsinformation"),
                source_timestamp: now() - age,
                call_ref: CallRef::generate(),
                upstream_ref: None,
                digest: None,
                schema_version: None,
                retrieved_at: now() - age,
            },
            fetched_at: now() - age,
        },
        subject: SubjectHandle {
            subject_id: SubjectId::generate(),
            aliases: Vec::new(),
        },
    }
}

fn kyb() -> crate::access::caller::Caller {
    caller("SE,LT", "kyb:read", "SE,LT")
}

#[tokio::test]
async fn a_fresh_cached_object_is_served_without_spending_or_calling() {
    let mut p = Ports::new();
    let c = cached(Duration::hours(1));
    p.store
        .expect_cached_paid()
        .times(1)
        .returning(move |_, _| Ok(Some(c.clone())));
    p.store.expect_spend_budget().never();
    p.registry.as_mut().unwrap().expect_fetch_officers().never();
    let served = p
        .service()
        .officers(&kyb(), Operation::GetOfficers, ORGNR)
        .await
        .unwrap();
    assert!(!served.stale);
}

#[tokio::test]
async fn a_spent_budget_serves_the_expired_cache_as_stale_without_calling() {
    let mut p = Ports::new();
    let c = cached(Duration::hours(30));
    p.store
        .expect_cached_paid()
        .returning(move |_, _| Ok(Some(c.clone())));
    p.store
        .expect_spend_budget()
        .times(1)
        .withf(|_, s| s.units == 1 && s.cap == 500)
        .returning(|_, _| Ok(false));
    p.registry.as_mut().unwrap().expect_fetch_officers().never();
    let served = p
        .service()
        .officers(&kyb(), Operation::GetSignatories, ORGNR)
        .await
        .unwrap();
    assert!(served.stale);
}

#[tokio::test]
async fn a_spent_budget_without_a_cache_is_429() {
    let mut p = Ports::new();
    p.store.expect_cached_paid().returning(|_, _| Ok(None));
    p.store.expect_spend_budget().returning(|_, _| Ok(false));
    p.registry
        .as_mut()
        .unwrap()
        .expect_fetch_beneficial_owners()
        .never();
    let err = p
        .service()
        .beneficial_owners(&kyb(), ORGNR)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::BudgetExceeded);
    assert!(err.message.contains("Europe/Stockholm"));
}

#[tokio::test]
async fn the_budget_is_spent_before_the_call_and_a_failed_call_serves_the_cache() {
    let mut p = Ports::new();
    let c = cached(Duration::hours(30));
    p.store
        .expect_cached_paid()
        .returning(move |_, _| Ok(Some(c.clone())));
    let mut seq = mockall::Sequence::new();
    p.store
        .expect_spend_budget()
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_, _| Ok(true));
    p.registry
        .as_mut()
        .unwrap()
        .expect_fetch_officers()
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_| Fetch {
            calls: Vec::new(),
            outcome: Err(RegistryFailure::Unavailable("down".into())),
        });
    // The failed call is recorded before its outcome is used.
    p.calls
        .expect_record_calls()
        .times(1)
        .in_sequence(&mut seq)
        .withf(|_, route, _| route == "/v1/companies/{orgnr}/officers")
        .returning(|_, _, _| Ok(Vec::new()));
    p.store.expect_save_paid().never();
    let served = p
        .service()
        .officers(&kyb(), Operation::GetOfficers, ORGNR)
        .await
        .unwrap();
    assert!(served.stale, "the failure never replaces the cached value");
}

#[tokio::test]
async fn a_free_registers_officers_spend_no_budget_and_it_serves_no_owners() {
    let mut p = Ports::new();
    p.free = true;
    p.store.expect_cached_paid().returning(|_, _| Ok(None));
    p.store.expect_spend_budget().never();
    p.registry
        .as_mut()
        .unwrap()
        .expect_fetch_officers()
        .times(1)
        .returning(|_| Fetch {
            calls: Vec::new(),
            outcome: Err(RegistryFailure::NotFound),
        });
    p.registry
        .as_mut()
        .unwrap()
        .expect_fetch_beneficial_owners()
        .never();
    p.calls
        .expect_record_calls()
        .returning(|_, _, _| Ok(Vec::new()));
    let service = p.service();
    let err = service
        .officers(&kyb(), Operation::GetOfficers, ORGNR)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound, "called, without spending");
    let err = service.beneficial_owners(&kyb(), ORGNR).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::CountryNotSupported);
}

#[tokio::test]
async fn a_company_withdrawn_from_open_data_is_forgotten_and_not_found() {
    let mut p = Ports::new();
    p.free = true;
    let c = cached(Duration::hours(30));
    p.store
        .expect_cached_paid()
        .returning(move |_, _| Ok(Some(c.clone())));
    p.registry
        .as_mut()
        .unwrap()
        .expect_fetch_officers()
        .returning(|_| Fetch {
            calls: Vec::new(),
            outcome: Err(RegistryFailure::Withdrawn),
        });
    p.calls
        .expect_record_calls()
        .returning(|_, _, _| Ok(Vec::new()));
    p.calls
        .expect_forget_company()
        .times(1)
        .withf(|_, country, orgnr| *country == Country::Se && orgnr == ORGNR)
        .returning(|_, _, _| Ok(()));
    p.store.expect_save_paid().never();
    let err = p
        .service()
        .officers(&kyb(), Operation::GetOfficers, ORGNR)
        .await
        .unwrap_err();
    assert_eq!(
        err.code,
        ErrorCode::NotFound,
        "never the cached copy as stale"
    );
}

#[tokio::test]
async fn a_disabled_tier_answers_501_after_the_input_checks_and_touches_nothing() {
    let mut p = Ports::new();
    p.registry = None;
    p.store.expect_cached_paid().never();
    p.store.expect_spend_budget().never();
    let service = p.service();
    let err = service
        .officers(&kyb(), Operation::GetOfficers, ORGNR)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::CountryNotSupported);
    assert!(err.message.contains("not enabled"));
    let bad = service
        .officers(&kyb(), Operation::GetOfficers, "123")
        .await
        .unwrap_err();
    assert_eq!(bad.code, ErrorCode::InvalidIdentifier);
    let no_scope = service
        .officers(
            &caller("SE", "events:read", "SE"),
            Operation::GetOfficers,
            ORGNR,
        )
        .await
        .unwrap_err();
    assert_eq!(no_scope.code, ErrorCode::Forbidden);
}

#[tokio::test]
async fn lithuania_is_not_served_and_a_country_outside_the_grant_is_refused() {
    let p = Ports::new();
    let service = p.service();
    let lt = service
        .beneficial_owners(&kyb(), "lt:110053842")
        .await
        .unwrap_err();
    assert_eq!(lt.code, ErrorCode::CountryNotSupported);
    let not_granted = service
        .beneficial_owners(&caller("SE,LT", "kyb:read", "LT"), ORGNR)
        .await
        .unwrap_err();
    assert_eq!(not_granted.code, ErrorCode::CountryNotGranted);
}
