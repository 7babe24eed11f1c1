//! The company store: call records and the evidence they give, the per-tenant profile cache
//! (one read returns the profile, both evidence groups and the subject), and the document ids
//! a tenant was handed.

use super::*;
use domain::companies::profile::{
    ActivityCode, Address, AnnualReportRef, CachedProfile, CompanyProfile, CompanyRegisterData,
    CompanyStatus, OptionalGroup, TaxGroup, TaxKind, TaxRegistrations, UpstreamCall, SNI_2007,
};
use domain::evidence::EvidenceSource;
use domain::subjects::subject::SubjectHandle;

pub(super) const ORGNR: &str = "5560021361";
const ROUTE: &str = "/v1/companies/{orgnr}";

/// The register call and the tax call a profile rests on, under fresh call refs.
fn profile_calls(at: DateTime<Utc>) -> [(CallRef, UpstreamCall); 2] {
    [
        (
            CallRef::generate(),
            call(
                EvidenceSource::declared("companyreg.vardefulla-datamangder"),
                "POST /organisationer",
                at,
            ),
        ),
        (
            CallRef::generate(),
            call(
                EvidenceSource::declared("taxauth.uppgifter"),
                "GetForetagsuppgifter",
                at,
            ),
        ),
    ]
}

/// Records the calls a profile rests on and returns their evidence.
pub(super) async fn record_profile_calls(
    stores: &Stores,
    t: &Tenant,
    at: DateTime<Utc>,
) -> Vec<Evidence> {
    stores
        .companies
        .record_calls(&t.id, ROUTE, &profile_calls(at))
        .await
        .expect("record_calls")
}

pub(super) fn profile(
    name: &str,
    document_id: &str,
    evidence: &[Evidence],
    at: DateTime<Utc>,
) -> CompanyProfile {
    CompanyProfile {
        country: Country::Se,
        data: CompanyRegisterData {
            orgnr: ORGNR.to_owned(),
            name: name.to_owned(),
            legal_form: "AB".to_owned(),
            status: CompanyStatus::Active,
            registered_at: NaiveDate::from_ymd_opt(1999, 4, 1),
            address: Address {
                street: Some("Testgatan 1".to_owned()),
                postal_code: Some("85102".to_owned()),
                city: Some("Sundsvall".to_owned()),
                country: "SE".to_owned(),
            },
            activity_codes: vec![
                ActivityCode::new(SNI_2007, "62010"),
                ActivityCode::new(SNI_2007, "62020"),
            ],
            employees_band: None,
            latest_annual_report: Some(AnnualReportRef {
                year: 2025,
                document_id: document_id.to_owned(),
            }),
        },
        tax: Some(TaxGroup {
            registrations: TaxRegistrations::of(&[
                (TaxKind::BusinessTax, true),
                (TaxKind::Vat, true),
                (TaxKind::Employer, false),
            ]),
            evidence: evidence[1].clone(),
        }),
        unchecked: vec![OptionalGroup::EmployeesBand],
        evidence: evidence[0].clone(),
        fetched_at: at,
    }
}

fn handle(subject_id: SubjectId) -> SubjectHandle {
    SubjectHandle {
        subject_id,
        aliases: Vec::new(),
    }
}

pub async fn check_recorded_calls_come_back_as_their_evidence(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    // A usable call, and a failed one that still is recorded.
    let [register, _] = profile_calls(t0());
    let failed = UpstreamCall {
        status: None,
        digest: None,
        upstream_ref: None,
        usable: false,
        ..call(
            EvidenceSource::declared("statsoffice.foretagsregister"),
            "POST /hamtaforetag",
            t0(),
        )
    };
    let calls = [register, (CallRef::generate(), failed)];
    let evidence = stores
        .companies
        .record_calls(&t.id, ROUTE, &calls)
        .await
        .unwrap();
    assert_eq!(evidence.len(), 2);
    for ((call_ref, c), e) in calls.iter().zip(&evidence) {
        assert_eq!(
            e,
            &Evidence {
                source: c.source,
                source_timestamp: c.source_timestamp,
                call_ref: *call_ref,
                upstream_ref: c.upstream_ref.clone(),
                digest: c.digest.clone(),
                schema_version: c.schema_version.clone(),
                retrieved_at: c.retrieved_at,
            }
        );
    }
    assert_eq!(stores.backing.call_record_count(t.id).await, 2);
    // Nothing to record writes nothing.
    assert!(stores
        .companies
        .record_calls(&t.id, ROUTE, &[])
        .await
        .unwrap()
        .is_empty());
    assert_eq!(stores.backing.call_record_count(t.id).await, 2);
}

pub async fn check_a_saved_profile_reads_back_whole_with_its_subject(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let subject = company_subject(stores, &t).await;
    assert_eq!(
        stores
            .companies
            .cached_profile(&t.id, Country::Se, ORGNR)
            .await
            .unwrap(),
        None
    );
    let evidence = record_profile_calls(stores, &t, t0()).await;
    let saved = profile("Testbolaget AB", "doc-1_paket", &evidence, t0());
    stores
        .companies
        .save_profile(&t.id, &subject, &saved)
        .await
        .unwrap();
    let read = stores
        .companies
        .cached_profile(&t.id, Country::Se, ORGNR)
        .await
        .unwrap();
    assert_eq!(
        read,
        Some(CachedProfile {
            profile: saved,
            subject: handle(subject),
        })
    );
}

/// A profile whose country has no source for some groups (no tax registrations, no activity
/// codes): it reads back with those groups absent and named, and a later profile with them
/// replaces it whole (and the other way round).
pub async fn check_a_profile_without_tax_reads_back_without_it(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let subject = company_subject(stores, &t).await;
    let evidence = record_profile_calls(stores, &t, t0()).await;
    let mut without = profile("Bendrovė", "doc-1_paket", &evidence, t0());
    without.tax = None;
    without.data.activity_codes.clear();
    without.unchecked = vec![OptionalGroup::ActivityCodes, OptionalGroup::Tax];
    let with = profile("Bendrovė", "doc-1_paket", &evidence, t0());
    // A register with another classification that reports VAT alone.
    let mut vat_only = with.clone();
    vat_only.data.activity_codes = vec![ActivityCode::new("SN", "62.010")];
    vat_only.tax.as_mut().unwrap().registrations = TaxRegistrations::of(&[(TaxKind::Vat, true)]);
    for saved in [&without, &with, &vat_only, &without] {
        stores
            .companies
            .save_profile(&t.id, &subject, saved)
            .await
            .unwrap();
        let read = stores
            .companies
            .cached_profile(&t.id, Country::Se, ORGNR)
            .await
            .unwrap()
            .expect("cached");
        assert_eq!(&read.profile, saved);
    }
}

pub async fn check_saving_again_replaces_the_profile_and_its_evidence(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let subject = company_subject(stores, &t).await;
    let first = record_profile_calls(stores, &t, t0()).await;
    let old = profile("Gamla Namnet AB", "doc-old_paket", &first, t0());
    stores
        .companies
        .save_profile(&t.id, &subject, &old)
        .await
        .unwrap();

    let later = t0() + Duration::hours(25);
    let second = record_profile_calls(stores, &t, later).await;
    let new = CompanyProfile {
        unchecked: Vec::new(),
        ..profile("Nya Namnet AB", "doc-new_paket", &second, later)
    };
    stores
        .companies
        .save_profile(&t.id, &subject, &new)
        .await
        .unwrap();

    let read = stores
        .companies
        .cached_profile(&t.id, Country::Se, ORGNR)
        .await
        .unwrap()
        .expect("cached");
    assert_eq!(read.profile, new);
    // Both document ids stay the subject's: an answer handed the old one out earlier.
    for doc in ["doc-old_paket", "doc-new_paket"] {
        assert_eq!(
            stores.companies.document_owner(&t.id, doc).await.unwrap(),
            Some((handle(subject), Country::Se)),
            "{doc}"
        );
    }
}

pub async fn check_the_company_cache_and_documents_are_per_tenant(stores: &Stores) {
    let (a, _) = tenant(stores, "SE").await;
    let (b, _) = tenant(stores, "SE").await;
    let subject = company_subject(stores, &a).await;
    let evidence = record_profile_calls(stores, &a, t0()).await;
    let saved = profile("Testbolaget AB", "doc-a_paket", &evidence, t0());
    stores
        .companies
        .save_profile(&a.id, &subject, &saved)
        .await
        .unwrap();

    assert_eq!(
        stores
            .companies
            .cached_profile(&b.id, Country::Se, ORGNR)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        stores
            .companies
            .document_owner(&b.id, "doc-a_paket")
            .await
            .unwrap(),
        None
    );
    // The country is part of the key: the same digits in another country are another company.
    assert_eq!(
        stores
            .companies
            .cached_profile(&a.id, adapters_lt::identifiers::LT, ORGNR)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        stores
            .companies
            .document_owner(&a.id, "doc-unknown")
            .await
            .unwrap(),
        None
    );
}

pub async fn check_a_subject_first_seen_by_a_registry_read_is_evidenced_by_that_call(
    stores: &Stores,
) {
    let (t, _) = tenant(stores, "SE").await;
    let evidence = record_profile_calls(stores, &t, t0()).await;
    let fresh = FreshSubject {
        sighting: FirstSighting::RegistryRead(evidence[0].call_ref),
        ..company(t0())
    };
    let created = stores
        .subjects
        .resolve_or_create_subject(
            &t.id,
            &identifier(adapters_se::identifiers::ORGNR),
            None,
            &fresh,
        )
        .await
        .unwrap();
    assert!(created.created);
    let record = stores
        .subjects
        .subject(&t.id, &created.subject_id)
        .await
        .unwrap();
    assert_eq!(record.evidence, evidence[0]);
    // No identity event was invented: the registry call is the only record.
    assert_eq!(stores.backing.call_record_count(t.id).await, 2);
}

/// A company the register withdrew is forgotten for the tenant: its cached profile and its
/// cached officers and owners go, its call records stay, another tenant's copy stays (each
/// tenant forgets on its own reading), and forgetting what is not kept is no error.
pub async fn check_forgetting_a_company_drops_the_tenants_copies_only(stores: &Stores) {
    use domain::companies::paid::{OwnerList, PaidData, PaidKey, PaidKind};
    let (a, _) = tenant(stores, "SE").await;
    let (b, _) = tenant(stores, "SE").await;
    let mut keys = Vec::new();
    for t in [&a, &b] {
        let subject = company_subject(stores, t).await;
        let evidence = record_profile_calls(stores, t, t0()).await;
        let saved = profile("Testbolaget AB", "doc-1_paket", &evidence, t0());
        stores
            .companies
            .save_profile(&t.id, &subject, &saved)
            .await
            .unwrap();
        for kind in [PaidKind::Officers, PaidKind::BeneficialOwners] {
            let key = PaidKey {
                kind,
                country: Country::Se,
                key: ORGNR.into(),
            };
            let mut object = super::paid::officers(ORGNR, evidence[0].clone());
            if kind == PaidKind::BeneficialOwners {
                object.data = PaidData::BeneficialOwners(OwnerList {
                    orgnr: ORGNR.into(),
                    owners: Vec::new(),
                    no_ubo_reported: true,
                });
            }
            stores
                .paid
                .save_paid(&t.id, &key, &subject, &object)
                .await
                .unwrap();
            keys.push(key);
        }
    }
    stores
        .companies
        .forget_company(&a.id, Country::Se, ORGNR)
        .await
        .unwrap();
    let cached = |t: TenantId| async move {
        stores
            .companies
            .cached_profile(&t, Country::Se, ORGNR)
            .await
            .unwrap()
    };
    assert_eq!(cached(a.id).await, None);
    assert!(cached(b.id).await.is_some());
    for key in &keys[..2] {
        assert!(stores.paid.cached_paid(&a.id, key).await.unwrap().is_none());
        assert!(stores.paid.cached_paid(&b.id, key).await.unwrap().is_some());
    }
    // Forgetting again, or a company never kept, is no error.
    stores
        .companies
        .forget_company(&a.id, Country::Se, ORGNR)
        .await
        .unwrap();
    stores
        .companies
        .forget_company(&a.id, Country::Se, "5567037485")
        .await
        .unwrap();
}
