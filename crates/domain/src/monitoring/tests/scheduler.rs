//! Scheduled monitoring's rules in isolation: what a reading logs and keeps (a part not
//! checked is never a change and keeps its old baseline), a lapsed permit suspends a person
//! subscription without any upstream call, and a subscription ended while its run was under
//! way makes no upstream call at all.

use crate::access::ports::MockTenantStore;
use crate::access::tenant::{Permit, PermitStatus};
use crate::companies::paid_service::PaidCompanyService;
use crate::companies::ports::{
    CompanyRegistry, MockCompanyRegistry, MockCompanyStore, MockPaidStore,
};
use crate::companies::profile::{
    ActivityCode, Address, AnnualReportRef, CompanyProfile, CompanyRegisterData, CompanyStatus,
    OptionalGroup, TaxGroup, TaxKind, TaxRegistrations, SNI_2007,
};
use crate::companies::service::CompanyService;
use crate::countries::country::Country;
use crate::countries::registry::{Countries, CountryConnectors};
use crate::evidence::{Evidence, EvidenceSource};
use crate::fixtures::{clock, data_key, now, tenant};
use crate::ids::{CallRef, IdentifierRef, SubjectId, SubscriptionId};
use crate::monitoring::event::EventData;
use crate::monitoring::ports::MockSubscriptionStore;
use crate::monitoring::refresh_service::{
    observe, PaidReadings, Reading, ReadingScope, RefreshService, Trigger,
};
use crate::monitoring::scheduler::{Scheduler, SchedulerSettings};
use crate::monitoring::subscription::{
    ClaimedRun, LegalBasis, MonitoringBaseline, Subscription, SubscriptionKind, SubscriptionStatus,
    SuspensionReason,
};
use crate::subjects::identifier::{Identifier, SubjectKind};
use crate::subjects::ports::{MockIdentifierVault, MockSubjectStore};
use crate::subjects::service::SubjectService;
use crate::subjects::subject::{IdentifierHolder, SubjectHandle, SubjectIdentifier, SubjectRecord};
use chrono::Duration;
use std::sync::Arc;

fn evidence() -> Evidence {
    Evidence {
        source: EvidenceSource::declared("companyreg.vardefulla-datamangder"),
        source_timestamp: now(),
        call_ref: CallRef::generate(),
        upstream_ref: None,
        digest: None,
        schema_version: None,
        retrieved_at: now(),
    }
}

fn profile(name: &str, employees: Option<&str>, unchecked: &[OptionalGroup]) -> CompanyProfile {
    CompanyProfile {
        country: Country::Se,
        data: CompanyRegisterData {
            orgnr: "5560021361".into(),
            name: name.into(),
            legal_form: "AB".into(),
            status: CompanyStatus::Active,
            registered_at: None,
            address: Address {
                street: Some("Testgatan 1".into()),
                postal_code: Some("85102".into()),
                city: Some("Sundsvall".into()),
                country: "SE".into(),
            },
            activity_codes: vec![ActivityCode::new(SNI_2007, "62010")],
            employees_band: employees.map(str::to_owned),
            latest_annual_report: Some(AnnualReportRef {
                year: 2025,
                document_id: "doc".into(),
            }),
        },
        tax: Some(TaxGroup {
            registrations: TaxRegistrations::of(&TaxKind::ALL.map(|k| (k, true))),
            evidence: evidence(),
        }),
        unchecked: unchecked.to_vec(),
        evidence: evidence(),
        fetched_at: now(),
    }
}

fn subscription(kind: SubscriptionKind) -> Subscription {
    Subscription {
        id: SubscriptionId::generate(),
        subject_id: SubjectId::generate(),
        aliases: Vec::new(),
        kind,
        legal_basis: LegalBasis::AmlCdd,
        legal_basis_ref: None,
        status: SubscriptionStatus::Active,
        check_days: 1,
        full_refresh_days: 30,
        country: Country::Se,
        created_at: now() - Duration::days(3),
        suspended_at: None,
        suspension_reason: None,
        ended_at: None,
        purge_after: None,
        next_run_at: Some(now()),
    }
}

fn handle(s: &Subscription) -> SubjectHandle {
    SubjectHandle {
        subject_id: s.subject_id,
        aliases: Vec::new(),
    }
}

fn text_list(e: &EventData, key: &str) -> Vec<String> {
    let EventData::Object(fields) = e else {
        panic!("an object")
    };
    let Some((_, EventData::List(items))) = fields.iter().find(|(k, _)| k == key) else {
        panic!("no list {key}")
    };
    items
        .iter()
        .map(|i| match i {
            EventData::Text(t) => t.clone(),
            other => panic!("{other:?}"),
        })
        .collect()
}

#[test]
fn a_group_not_checked_is_never_a_change_and_keeps_its_old_value() {
    let s = subscription(SubscriptionKind::Company);
    let baseline = MonitoringBaseline {
        profile: Some(profile("Bolaget AB", Some("10-19"), &[])),
        ..MonitoringBaseline::default()
    };
    // The statistics office failed this time: its group is empty and unchecked.
    let after = profile("Bolaget AB", None, &[OptionalGroup::EmployeesBand]);
    let reading = Reading {
        trigger: Trigger::Scheduled,
        key: "run-1".into(),
        scope: ReadingScope::Light,
        profile: &after,
        paid: &PaidReadings::default(),
        deferred_until: None,
    };
    let (events, kept) = observe(&s, &handle(&s), &baseline, &reading, now());
    let types: Vec<&str> = events.iter().map(|e| e.type_name.as_str()).collect();
    assert_eq!(types, ["refresh.completed"]);
    assert_eq!(
        text_list(&events[0].data, "not_checked"),
        ["employees_band"]
    );
    // The kept reading still knows the band, as checked: a later move from it is reported.
    let kept = kept.profile.unwrap();
    assert_eq!(kept.data.employees_band.as_deref(), Some("10-19"));
    assert!(kept.unchecked.is_empty());
    assert_eq!(
        events[0].idempotency_key,
        format!("{}:run-1:refresh.completed", s.id)
    );
    assert_eq!(events[0].subscription_id, Some(s.id));
}

#[test]
fn the_first_reading_is_the_baseline_and_a_deferral_is_logged_before_completion() {
    let s = subscription(SubscriptionKind::Company);
    let after = profile("Bolaget AB", Some("10-19"), &[]);
    let resumes = now() + Duration::hours(11);
    let reading = Reading {
        trigger: Trigger::Scheduled,
        key: "run-1".into(),
        scope: ReadingScope::Light,
        profile: &after,
        paid: &PaidReadings::default(),
        deferred_until: Some(resumes),
    };
    let (events, kept) = observe(
        &s,
        &handle(&s),
        &MonitoringBaseline::default(),
        &reading,
        now(),
    );
    let types: Vec<&str> = events.iter().map(|e| e.type_name.as_str()).collect();
    assert_eq!(types, ["refresh.deferred", "refresh.completed"]);
    assert_eq!(kept.profile, Some(after));
    assert_eq!(
        kept.officers, None,
        "a deferred part keeps its old baseline"
    );
}

struct Mocks {
    subscriptions: MockSubscriptionStore,
    tenants: MockTenantStore,
    subjects: MockSubjectStore,
    vault: MockIdentifierVault,
}

impl Mocks {
    fn new() -> Mocks {
        Mocks {
            subscriptions: MockSubscriptionStore::new(),
            tenants: MockTenantStore::new(),
            subjects: MockSubjectStore::new(),
            vault: MockIdentifierVault::new(),
        }
    }

    /// The scheduler with a company registry, a company store and a budget that fail the
    /// test if anything calls them (no expectations are set on them).
    fn scheduler(self) -> Scheduler {
        let registry = MockCompanyRegistry::new();
        let countries = Arc::new(
            Countries::new(vec![CountryConnectors::new(Country::Se, &[])
                .company(Arc::new(registry) as Arc<dyn CompanyRegistry>)
                .monitors_companies()])
            .unwrap(),
        );
        let subscriptions = Arc::new(self.subscriptions);
        let vault = Arc::new(self.vault);
        let subject_store = Arc::new(self.subjects);
        let subjects = Arc::new(SubjectService {
            store: subject_store.clone(),
            vault,
            clock: clock(),
        });
        let budget = Arc::new(MockPaidStore::new());
        let companies = Arc::new(CompanyService {
            meter: std::sync::Arc::new(crate::meter::NoMeter),
            countries: countries.clone(),
            store: Arc::new(MockCompanyStore::new()),
            subjects: subjects.clone(),
            clock: clock(),
            revalidate_after: Duration::hours(24),
        });
        let paid = Arc::new(PaidCompanyService {
            calendar: Default::default(),
            meter: std::sync::Arc::new(crate::meter::NoMeter),
            countries,
            store: budget.clone(),
            calls: Arc::new(MockCompanyStore::new()),
            subjects: subjects.clone(),
            clock: clock(),
            revalidate_after: Duration::hours(24),
        });
        Scheduler {
            calendar: Default::default(),
            meter: std::sync::Arc::new(crate::meter::NoMeter),
            refresh: Arc::new(RefreshService {
                calendar: Default::default(),
                meter: std::sync::Arc::new(crate::meter::NoMeter),
                companies,
                paid,
                paid_store: budget.clone(),
                subscriptions: subscriptions.clone(),
                clock: clock(),
                parties: None,
            }),
            subscriptions,
            tenants: Arc::new(self.tenants),
            subjects,
            subject_store,
            budget,
            clock: clock(),
            settings: SchedulerSettings::default(),
        }
    }
}

fn claimed(s: &Subscription, tenant_id: crate::ids::TenantId) -> ClaimedRun {
    ClaimedRun {
        tenant_id,
        subscription: s.clone(),
        due_at: now(),
        lease_until: now() + Duration::minutes(5),
        last_checked_at: None,
        last_full_refresh_at: None,
    }
}

#[tokio::test]
async fn a_lapsed_permit_suspends_a_person_subscription_without_an_upstream_call() {
    let mut t = tenant("SE");
    t.permit = Some(Permit {
        valid_from: (now() - Duration::days(60)).date_naive(),
        valid_to: (now() - Duration::days(1)).date_naive(),
        status: PermitStatus::Active,
        recorded_at: now() - Duration::days(60),
    });
    let s = subscription(SubscriptionKind::Person);
    let mut m = Mocks::new();
    let run = claimed(&s, t.id);
    m.subscriptions
        .expect_claim_due()
        .returning(move |_, _, _| Ok(vec![run.clone()]));
    let tenant_row = t.clone();
    m.tenants
        .expect_tenant_with_key()
        .returning(move |_| Ok((tenant_row.clone(), data_key())));
    let id = s.id;
    m.subscriptions
        .expect_transition_subscription()
        .withf(move |_, expected, updated, event| {
            *expected == SubscriptionStatus::Active
                && updated.id == id
                && updated.status == SubscriptionStatus::Suspended
                && updated.suspension_reason == Some(SuspensionReason::PermitLapsed)
                && updated.next_run_at.is_none()
                && event.type_name == "subscription.suspended"
        })
        .times(1)
        .returning(|_, _, _, _| Ok(true));
    m.subscriptions
        .expect_purge_due()
        .returning(|_, _| Ok(Vec::new()));
    let report = m.scheduler().tick().await.unwrap();
    assert_eq!((report.claimed, report.suspended), (1, 1), "{report:?}");
}

#[tokio::test]
async fn a_subscription_ended_during_its_run_makes_no_upstream_call() {
    let t = tenant("SE");
    let s = subscription(SubscriptionKind::Company);
    let mut m = Mocks::new();
    let run = claimed(&s, t.id);
    m.subscriptions
        .expect_claim_due()
        .returning(move |_, _, _| Ok(vec![run.clone()]));
    let tenant_row = t.clone();
    m.tenants
        .expect_tenant_with_key()
        .returning(move |_| Ok((tenant_row.clone(), data_key())));
    let identifier_ref = IdentifierRef::generate();
    let subject_id = s.subject_id;
    m.subjects.expect_subject().returning(move |_, _| {
        Ok(SubjectRecord {
            subject_id,
            kind: SubjectKind::Company,
            created_at: now(),
            identifiers: vec![SubjectIdentifier {
                identifier_ref,
                id_type: crate::fixtures::schemes::ORG,
                country: Country::Se,
                valid_from: now(),
                valid_to: None,
            }],
            refs: Vec::new(),
            aliases: Vec::new(),
            evidence: evidence(),
        })
    });
    m.subjects
        .expect_identifier_holder()
        .returning(move |_, _| {
            Ok(Some(IdentifierHolder {
                subject: SubjectHandle {
                    subject_id,
                    aliases: Vec::new(),
                },
                kind: SubjectKind::Company,
                id_type: crate::fixtures::schemes::ORG,
                country: Country::Se,
                sealed: vec![1, 2, 3],
            }))
        });
    m.vault
        .expect_reveal()
        .returning(|_, _, _, _| Ok(Identifier::parse_company("5560021361").unwrap()));
    // Ended by the consumer after the claim.
    let ended = s.clone().ended(now(), Duration::days(90));
    m.subscriptions
        .expect_subscription()
        .returning(move |_, _| Ok(Some(ended.clone())));
    m.subscriptions
        .expect_purge_due()
        .returning(|_, _| Ok(Vec::new()));
    // No expectation on the registry, the budget, record_reading or complete_run: any call
    // of them fails the test.
    let report = m.scheduler().tick().await.unwrap();
    assert_eq!((report.claimed, report.cancelled), (1, 1), "{report:?}");
}
