//! The screening use cases: the refusals that come before anything is read or stored, the
//! bands under the policy and a tenant's override, the whitelist, masking, and the operator's
//! four eyes. Every port is mocked; a port a rule must not reach has no expectation, so
//! reaching it fails the test.

use crate::access::ports::MockTenantStore;
use crate::companies::ports::MockCompanyStore;
use crate::companies::service::CompanyService;
use crate::countries::registry::Countries;
use crate::error::ErrorCode;
use crate::fixtures::{caller, clock, now};
use crate::ids::{OverrideVersionId, PolicyVersionId, SourceVersionId, WhitelistEntryId};
use crate::persons::ports::{MockPersonStore, MockPersonVault};
use crate::persons::service::PersonService;
use crate::screening::admin::ScreeningAdmin;
use crate::screening::check::{CheckRequest, SealedCheckInput, StoredCheck};
use crate::screening::policy::{
    Band, OverrideConfig, OverrideStatus, OverrideVersion, PolicyConfig, PolicyVersion,
};
use crate::screening::ports::{
    MockSanctionsListStore, MockScreeningStore, MockScreeningVault, ScreeningContext,
};
use crate::screening::sanctions::{
    ActiveList, EntryKind, ListEntry, ListSource, ListedDate, ListedName, NameQuality,
    SourceVersion,
};
use crate::screening::service::ScreeningService;
use crate::screening::whitelist::WhitelistEntry;
use crate::subjects::ports::{MockIdentifierVault, MockSubjectStore};
use crate::subjects::service::SubjectService;
use chrono::{Duration, NaiveDate};
use std::sync::{Arc, Mutex};

fn version() -> SourceVersion {
    SourceVersion {
        id: SourceVersionId::generate(),
        source: ListSource::UnConsolidated,
        digest: "sha256:00".into(),
        published_at: None,
        imported_at: now() - Duration::days(1),
        entry_count: 2,
        skipped_count: 0,
    }
}

fn entry(id: &str, name: &str, born: Option<NaiveDate>) -> ListEntry {
    ListEntry {
        source_entry_id: id.into(),
        kind: EntryKind::Person,
        names: vec![ListedName {
            full: name.into(),
            quality: NameQuality::Strong,
        }],
        birth_dates: born.map(ListedDate::Day).into_iter().collect(),
        nationalities: vec![],
        countries: vec![],
        identifiers: vec![],
        programs: vec!["Synthetic".into()],
        listed_on: None,
        exposure: None,
    }
}

fn policy() -> PolicyVersion {
    PolicyVersion {
        id: PolicyVersionId::generate(),
        version: 1,
        config: PolicyConfig::default(),
        created_by: "ops-a".into(),
        created_at: now() - Duration::days(2),
        active: true,
    }
}

pub(crate) struct World {
    store: MockScreeningStore,
    lists: MockSanctionsListStore,
    vault: MockScreeningVault,
}

impl World {
    pub(crate) fn new() -> World {
        World {
            store: MockScreeningStore::new(),
            lists: MockSanctionsListStore::new(),
            vault: MockScreeningVault::new(),
        }
    }

    /// A loaded list (two synthetic entries) and a vault that seals and hashes.
    fn loaded(&mut self, context: ScreeningContext) -> SourceVersion {
        let v = version();
        let active = ActiveList {
            version: v.clone(),
            activated_at: v.imported_at,
            failed_since: None,
        };
        self.store
            .expect_screening_context()
            .returning(move |_, _| Ok(context.clone()));
        self.lists
            .expect_active_lists()
            .returning(move || Ok(vec![active.clone()]));
        self.lists.expect_version_entries().returning(|_| {
            Ok(vec![
                entry(
                    "QDi.901",
                    "Ivan Petrovich Synthetikov",
                    NaiveDate::from_ymd_opt(1961, 4, 2),
                ),
                entry("QDi.902", "Marta Examplova", None),
            ])
        });
        self.vault
            .expect_input_hash()
            .returning(|_, _, c| Ok(format!("hmac-sha256:{:064x}", c.len())));
        self.vault
            .expect_seal_check_input()
            .returning(|_, _, i| Ok(SealedCheckInput(i.name.clone().unwrap_or_default().into())));
        v
    }

    pub(crate) fn service(self) -> ScreeningService {
        let subjects = Arc::new(SubjectService {
            store: Arc::new(MockSubjectStore::new()),
            vault: Arc::new(MockIdentifierVault::new()),
            clock: clock(),
        });
        ScreeningService {
            meter: std::sync::Arc::new(crate::meter::NoMeter),
            store: Arc::new(self.store),
            lists: Arc::new(self.lists),
            vault: Arc::new(self.vault),
            subject_store: Arc::new(MockSubjectStore::new()),
            subjects: subjects.clone(),
            companies: Arc::new(CompanyService {
                meter: std::sync::Arc::new(crate::meter::NoMeter),
                countries: Arc::new(Countries::none()),
                store: Arc::new(MockCompanyStore::new()),
                subjects: subjects.clone(),
                clock: clock(),
                revalidate_after: Duration::hours(1),
            }),
            persons: Arc::new(PersonService {
                calendar: Default::default(),
                meter: std::sync::Arc::new(crate::meter::NoMeter),
                countries: Arc::new(Countries::none()),
                store: Arc::new(MockPersonStore::new()),
                calls: Arc::new(MockCompanyStore::new()),
                vault: Arc::new(MockPersonVault::new()),
                subjects,
                clock: clock(),
                revalidate_after: Duration::hours(1),
            }),
            clock: clock(),
            loaded: Mutex::new(None),
            building: Default::default(),
        }
    }
}

fn adhoc(name: &str) -> CheckRequest {
    CheckRequest {
        name: Some(name.into()),
        ..CheckRequest::default()
    }
}

/// Stores what the check inserts, for the test to read.
fn capture(world: &mut World) -> Arc<Mutex<Vec<StoredCheck>>> {
    let stored = Arc::new(Mutex::new(Vec::new()));
    let s = stored.clone();
    world.store.expect_insert_check().returning(move |c| {
        s.lock().unwrap().push(c.clone());
        Ok(())
    });
    stored
}

#[tokio::test]
async fn a_name_holding_a_personal_number_is_refused_before_anything_is_read() {
    // No port has an expectation: reaching any of them fails the test.
    let service = World::new().service();
    let c = caller("SE", "screening:run", "SE");
    let err = service
        .run(&c, adhoc("Anna Testsson 19811130-9285"))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NameIsIdentifier);
    assert!(!err.message.contains("9285"), "the value is never echoed");
}

#[tokio::test]
async fn no_active_policy_or_no_list_is_screening_unavailable_and_nothing_is_stored() {
    let mut w = World::new();
    w.store
        .expect_screening_context()
        .returning(|_, _| Ok(ScreeningContext::default()));
    w.lists.expect_active_lists().returning(|| Ok(vec![]));
    let service = w.service();
    let c = caller("SE", "screening:run", "SE");
    let err = service.run(&c, adhoc("Marta Examplova")).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::ScreeningUnavailable);
    assert!(err.message.contains("policy"));

    let mut w = World::new();
    w.store.expect_screening_context().returning(|_, _| {
        Ok(ScreeningContext {
            policy: Some(policy()),
            ..ScreeningContext::default()
        })
    });
    w.lists.expect_active_lists().returning(|| Ok(vec![]));
    let err = w
        .service()
        .run(&c, adhoc("Marta Examplova"))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::ScreeningUnavailable);
    assert!(err.message.contains("list"));
}

#[tokio::test]
async fn bad_ad_hoc_fields_are_refused_naming_the_field() {
    let service = World::new().service();
    let c = caller("SE", "screening:run", "SE");
    let cases = [
        (
            CheckRequest {
                name: Some("X".into()),
                birth_date: Some("1961-13-01".into()),
                ..CheckRequest::default()
            },
            "birth_date",
        ),
        (
            CheckRequest {
                name: Some("X".into()),
                nationalities: Some(vec!["Sweden".into()]),
                ..CheckRequest::default()
            },
            "nationalities",
        ),
        (
            CheckRequest {
                subject_id: Some("01J00000000000000000000000".into()),
                name: Some("X".into()),
                ..CheckRequest::default()
            },
            "subject_id",
        ),
        (CheckRequest::default(), "name"),
    ];
    for (request, field) in cases {
        let err = service.run(&c, request).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::BadRequest, "{field}");
        assert!(err.message.contains(field), "{}", err.message);
    }
    let err = service
        .run(
            &c,
            CheckRequest {
                orgnr: Some("5560360794".into()),
                ..CheckRequest::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidIdentifier);
    let err = service
        .run(&caller("SE", "kyb:read", "SE"), adhoc("Marta Examplova"))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Forbidden);
}

#[tokio::test]
async fn a_listed_name_is_a_candidate_banded_by_the_policy_and_named_with_every_version() {
    let mut w = World::new();
    let p = policy();
    let v = w.loaded(ScreeningContext {
        policy: Some(p.clone()),
        ..ScreeningContext::default()
    });
    let stored = capture(&mut w);
    let service = w.service();
    let c = caller("SE", "screening:run", "SE");
    let request = CheckRequest {
        name: Some("Ivan Petrovich Synthetikov".into()),
        birth_date: Some("1961-04-02".into()),
        ..CheckRequest::default()
    };
    let served = service.run(&c, request.clone()).await.unwrap();
    let check = &served.check;
    assert_eq!(check.band, Band::Hit);
    assert_eq!(check.candidates[0].source_entry_id, "QDi.901");
    assert_eq!(check.candidates[0].source_version_id, v.id);
    assert!(check.candidates[0]
        .reasons
        .iter()
        .any(|r| r.code.contains("birth")));
    assert_eq!(check.policy_version_id, p.id);
    assert_eq!(check.tenant_override_version_id, None);
    assert_eq!(check.source_version_ids, vec![v.id]);
    assert_eq!(check.visibility, None, "a name alone carries no country");
    assert!(!check.input_verified);
    assert_eq!(stored.lock().unwrap().len(), 1);

    // The same input under the same versions: the same result.
    let again = service.run(&c, request).await.unwrap();
    assert_eq!(again.check.candidates, served.check.candidates);
    assert_eq!(again.check.input_hash, served.check.input_hash);
    assert_ne!(again.check.id, served.check.id);
}

#[tokio::test]
async fn a_whitelisted_candidate_stays_marked_and_no_longer_raises_the_band() {
    let c = caller("SE", "screening:run", "SE");
    // First run: learn the input hash.
    let mut w = World::new();
    w.loaded(ScreeningContext {
        policy: Some(policy()),
        ..ScreeningContext::default()
    });
    capture(&mut w);
    let first = w.service().run(&c, adhoc("Marta Examplova")).await.unwrap();
    assert_eq!(first.check.band, Band::Hit);
    let hash = first.check.input_hash.clone().unwrap();

    let entry = WhitelistEntry {
        id: WhitelistEntryId::generate(),
        tenant_id: c.tenant_id,
        subject_id: None,
        input_hash: Some(hash),
        source: ListSource::UnConsolidated,
        source_entry_id: "QDi.902".into(),
        reason: "a different person".into(),
        created_by: "ops-a".into(),
        approved_by: Some("ops-b".into()),
        created_at: now() - Duration::days(1),
        expires_at: now() + Duration::days(30),
        revoked_at: None,
    };
    let mut w = World::new();
    w.loaded(ScreeningContext {
        policy: Some(policy()),
        whitelist: vec![entry.clone()],
        ..ScreeningContext::default()
    });
    capture(&mut w);
    let second = w.service().run(&c, adhoc("Marta Examplova")).await.unwrap();
    let candidate = &second.check.candidates[0];
    assert!(candidate.whitelisted);
    assert_eq!(candidate.whitelist_id, Some(entry.id));
    assert_eq!(
        candidate.band,
        Band::Hit,
        "the candidate keeps its own band"
    );
    assert_eq!(second.check.band, Band::Clear);
}

#[tokio::test]
async fn the_tenants_active_override_bands_the_check_and_is_named_on_it() {
    let c = caller("SE", "screening:run", "SE");
    let o = OverrideVersion {
        id: OverrideVersionId::generate(),
        tenant_id: c.tenant_id,
        version: 1,
        config: OverrideConfig {
            thresholds: Some((0.999, 1.0)),
            ..OverrideConfig::default()
        },
        proposed_by: "ops-a".into(),
        approved_by: Some("ops-b".into()),
        status: OverrideStatus::Active,
        effective_from: Some(now() - Duration::hours(1)),
        created_at: now() - Duration::days(1),
    };
    let mut w = World::new();
    w.loaded(ScreeningContext {
        policy: Some(policy()),
        override_version: Some(o.clone()),
        ..ScreeningContext::default()
    });
    capture(&mut w);
    let served = w.service().run(&c, adhoc("Marta Examplowa")).await.unwrap();
    assert_eq!(served.check.tenant_override_version_id, Some(o.id));
    assert!(served.check.candidates[0].score < 0.999);
    assert_eq!(served.check.band, Band::Clear);
}

#[tokio::test]
async fn an_orgnr_is_masked_for_a_reader_without_kyc_read() {
    for (scopes, masked) in [("screening:run", true), ("screening:run kyc:read", false)] {
        let mut w = World::new();
        w.loaded(ScreeningContext {
            policy: Some(policy()),
            ..ScreeningContext::default()
        });
        capture(&mut w);
        let c = caller("SE", scopes, "SE");
        let served = w
            .service()
            .run(
                &c,
                CheckRequest {
                    name: Some("Examplova Trading AB".into()),
                    orgnr: Some("5560360793".into()),
                    ..CheckRequest::default()
                },
            )
            .await
            .unwrap();
        assert_eq!(served.identifier_masked, masked, "{scopes}");
        assert_eq!(served.input.orgnr.is_none(), masked, "{scopes}");
        assert!(served.check.has_identifier);
        assert_eq!(
            served.check.visibility,
            Some(crate::countries::country::Country::Se)
        );
    }
}

fn admin(store: MockScreeningStore) -> ScreeningAdmin {
    let mut tenants = MockTenantStore::new();
    tenants
        .expect_tenant()
        .returning(|id| Ok(crate::fixtures::tenant_with_id(*id)));
    ScreeningAdmin {
        store: Arc::new(store),
        tenants: Arc::new(tenants),
        subjects: Arc::new(MockSubjectStore::new()),
        clock: clock(),
    }
}

#[tokio::test]
async fn the_proposer_never_approves_their_own_override_nor_the_maker_their_whitelist_entry() {
    let tenant = crate::ids::TenantId::generate();
    let draft = OverrideVersion {
        id: OverrideVersionId::generate(),
        tenant_id: tenant,
        version: 1,
        config: OverrideConfig::default(),
        proposed_by: "ops-a".into(),
        approved_by: None,
        status: OverrideStatus::Draft,
        effective_from: None,
        created_at: now(),
    };
    let entry = WhitelistEntry {
        id: WhitelistEntryId::generate(),
        tenant_id: tenant,
        subject_id: None,
        input_hash: Some(format!("hmac-sha256:{}", "a".repeat(64))),
        source: ListSource::OfacSdn,
        source_entry_id: "36".into(),
        reason: "a different person".into(),
        created_by: "ops-a".into(),
        approved_by: None,
        created_at: now(),
        expires_at: now() + Duration::days(30),
        revoked_at: None,
    };
    let mut store = MockScreeningStore::new();
    let d = draft.clone();
    store
        .expect_override_version()
        .returning(move |_, _| Ok(Some(d.clone())));
    let e = entry.clone();
    store
        .expect_whitelist_entry()
        .returning(move |_, _| Ok(Some(e.clone())));
    // Neither move may reach the store.
    let admin = admin(store);
    let t = tenant.to_string();
    let err = admin
        .approve_override(&t, &draft.id.to_string(), "ops-a")
        .await
        .unwrap_err();
    assert!(err.message.contains("four eyes"), "{}", err.message);
    let err = admin
        .approve_whitelist_entry(&t, &entry.id.to_string(), " ops-a ")
        .await
        .unwrap_err();
    assert!(err.message.contains("four eyes"), "{}", err.message);
    // A draft cannot skip approval.
    let err = admin
        .activate_override(&t, &draft.id.to_string())
        .await
        .unwrap_err();
    assert!(
        err.message.contains("cannot become active"),
        "{}",
        err.message
    );
}

/// The pre-screen of ongoing screening counts every raw score a check would band `review`:
/// the lowest one that rounds up to the threshold, and none below it.
#[test]
fn the_lowest_score_rounding_to_a_threshold_is_exactly_that() {
    use crate::screening::policy::PolicyConfig;
    use crate::screening::service::{lowest_rounding_to, rounded};
    for threshold in [0.8, 0.85, 0.9123, 0.92] {
        let floor = lowest_rounding_to(threshold);
        assert!(rounded(floor) >= threshold, "{threshold}");
        assert!(rounded(floor - 1e-9) < threshold, "{threshold}");
        let policy = PolicyConfig {
            review: threshold,
            hit: 1.0,
            ..PolicyConfig::default()
        };
        assert_eq!(
            policy.band(rounded(floor)),
            crate::screening::policy::Band::Review
        );
    }
}
