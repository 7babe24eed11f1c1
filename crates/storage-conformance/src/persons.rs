//! The person store: the per-tenant cache of sealed person profiles (one read returns the
//! sealed profile, its evidence and its subject) and the daily person-lookup counter, whose
//! counts are atomic with the ceiling check.

use super::*;
use domain::evidence::EvidenceSource;
use domain::persons::profile::SealedPerson;

fn day() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 23).unwrap()
}

/// Concurrent lookups against one ceiling: exactly `ceiling` of them are counted.
pub async fn check_concurrent_person_lookups_never_pass_the_ceiling(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let attempts: Vec<_> = (0..24)
        .map(|_| {
            let persons = stores.persons.clone();
            let id = t.id;
            tokio::spawn(async move { persons.spend_person_lookup(&id, day(), 5).await })
        })
        .collect();
    let mut counted = 0;
    for a in attempts {
        if a.await.unwrap().unwrap() {
            counted += 1;
        }
    }
    assert_eq!(counted, 5);
    assert_eq!(
        stores.persons.person_lookups(&t.id, day()).await.unwrap(),
        5
    );
    assert!(!stores
        .persons
        .spend_person_lookup(&t.id, day(), 5)
        .await
        .unwrap());
}

/// Days and tenants are counted apart, and apart from the paid company budget; a ceiling of
/// zero counts nothing.
pub async fn check_person_lookups_are_counted_apart(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let (other, _) = tenant(stores, "SE").await;
    assert!(!stores
        .persons
        .spend_person_lookup(&t.id, day(), 0)
        .await
        .unwrap());
    assert!(stores
        .persons
        .spend_person_lookup(&t.id, day(), 1)
        .await
        .unwrap());
    let next_day = day().succ_opt().unwrap();
    assert_eq!(
        stores
            .persons
            .person_lookups(&t.id, next_day)
            .await
            .unwrap(),
        0
    );
    assert_eq!(
        stores
            .persons
            .person_lookups(&other.id, day())
            .await
            .unwrap(),
        0
    );
    assert_eq!(
        stores.paid.budget_usage(&t.id, day()).await.unwrap(),
        domain::companies::budget::BudgetUsage::default()
    );
}

/// The ref's holder reads back with no profile before one is saved; a sealed profile reads
/// back with its evidence under its tenant and ref only; a later save replaces it.
pub async fn check_a_sealed_person_round_trips_per_tenant(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let (other, _) = tenant(stores, "SE").await;
    let resolution = stores
        .subjects
        .resolve_or_create_subject(
            &t.id,
            &identifier(adapters_se::identifiers::PERSONNUMMER),
            None,
            &fresh(SubjectKind::Person, t0()),
        )
        .await
        .unwrap();
    let before = stores
        .persons
        .person_at_ref(&t.id, &resolution.identifier_ref)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(before.cached, None);
    assert_eq!(before.holder.subject.subject_id, resolution.subject_id);
    assert_eq!(before.holder.kind, SubjectKind::Person);
    assert_eq!(
        before.holder.id_type,
        adapters_se::identifiers::PERSONNUMMER
    );
    assert_eq!(before.holder.country, Country::Se);
    let route = "/v1/persons/{ref}";
    let calls = [(
        CallRef::generate(),
        call(
            EvidenceSource::declared("personreg.personsokning"),
            "SOAP PersonSok",
            t0(),
        ),
    )];
    let evidence = stores
        .companies
        .record_calls(&t.id, route, &calls)
        .await
        .unwrap()
        .remove(0);
    let sealed = SealedPerson(random_bytes(120));
    stores
        .persons
        .save_person(
            &t.id,
            &resolution.identifier_ref,
            &resolution.subject_id,
            &sealed,
            &evidence.call_ref,
            t0(),
        )
        .await
        .unwrap();
    let found = stores
        .persons
        .person_at_ref(&t.id, &resolution.identifier_ref)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.holder, before.holder);
    let cached = found.cached.unwrap();
    assert_eq!(cached.sealed, sealed);
    assert_eq!(cached.evidence, evidence);
    assert_eq!(cached.fetched_at, t0());
    assert!(stores
        .persons
        .person_at_ref(&other.id, &resolution.identifier_ref)
        .await
        .unwrap()
        .is_none());
    assert!(stores
        .persons
        .person_at_ref(&t.id, &IdentifierRef::generate())
        .await
        .unwrap()
        .is_none());

    let newer = SealedPerson(random_bytes(90));
    let later = t0() + Duration::hours(25);
    stores
        .persons
        .save_person(
            &t.id,
            &resolution.identifier_ref,
            &resolution.subject_id,
            &newer,
            &evidence.call_ref,
            later,
        )
        .await
        .unwrap();
    let cached = stores
        .persons
        .person_at_ref(&t.id, &resolution.identifier_ref)
        .await
        .unwrap()
        .unwrap()
        .cached
        .unwrap();
    assert_eq!(cached.sealed, newer);
    assert_eq!(cached.fetched_at, later);
}
