//! Subjects: resolve on first and second sight, concurrent first sightings, customer references,
//! reads, and tenant isolation.

use super::*;

pub(super) async fn check_resolve_creates_on_first_sight_and_finds_on_the_second(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let id = identifier(IdentifierType::Orgnr);
    let first = company(t0());
    let created = stores
        .subjects
        .resolve_or_create_subject(&t.id, &id, None, &first)
        .await
        .unwrap();
    assert!(created.created);
    assert_eq!(created.subject_id, first.subject_id);
    assert_eq!(created.identifier_ref, first.identifier_ref);
    assert!(created.aliases.is_empty());

    let second = company(t0() + Duration::minutes(1));
    let found = stores
        .subjects
        .resolve_or_create_subject(&t.id, &id, None, &second)
        .await
        .unwrap();
    assert!(!found.created);
    assert_eq!(found.subject_id, first.subject_id);
    assert_eq!(found.identifier_ref, first.identifier_ref);
    assert!(found.aliases.is_empty());
    assert_eq!(stores.backing.subject_count(t.id).await, 1);
    assert_eq!(stores.backing.identifier_count(t.id).await, 1);

    // The blind index alone finds the subject: a new ciphertext of the same identifier (a
    // fresh nonce) is the same identifier.
    let resealed = ProtectedIdentifier {
        sealed: random_bytes(48),
        ..id.clone()
    };
    let again = stores
        .subjects
        .resolve_or_create_subject(&t.id, &resealed, None, &company(t0()))
        .await
        .unwrap();
    assert_eq!((again.subject_id, again.created), (first.subject_id, false));
}

pub(super) async fn check_concurrent_first_sightings_make_one_subject(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let id = identifier(IdentifierType::Personnummer);
    let tasks: Vec<_> = (0..20)
        .map(|_| {
            let (subjects, id, tenant) = (stores.subjects.clone(), id.clone(), t.id);
            let fresh = fresh(SubjectKind::Person, t0());
            tokio::spawn(async move {
                subjects
                    .resolve_or_create_subject(&tenant, &id, None, &fresh)
                    .await
            })
        })
        .collect();
    let mut resolutions = Vec::new();
    for task in tasks {
        resolutions.push(task.await.unwrap().expect("every resolve succeeds"));
    }
    let first = &resolutions[0];
    for r in &resolutions {
        assert_eq!(r.subject_id, first.subject_id);
        assert_eq!(r.identifier_ref, first.identifier_ref);
    }
    assert_eq!(resolutions.iter().filter(|r| r.created).count(), 1);
    assert_eq!(stores.backing.subject_count(t.id).await, 1);
    assert_eq!(stores.backing.identifier_count(t.id).await, 1);
}

pub(super) async fn check_one_blind_index_at_two_tenants_is_two_unrelated_subjects(
    stores: &Stores,
) {
    let (a, _) = tenant(stores, "SE").await;
    let (b, _) = tenant(stores, "SE").await;
    let id = identifier(IdentifierType::Orgnr);
    let at_a = stores
        .subjects
        .resolve_or_create_subject(&a.id, &id, Some("crm-1"), &company(t0()))
        .await
        .unwrap();
    let at_b = stores
        .subjects
        .resolve_or_create_subject(&b.id, &id, Some("crm-1"), &company(t0()))
        .await
        .unwrap();
    assert!(at_a.created && at_b.created);
    assert_ne!(at_a.subject_id, at_b.subject_id);
    assert_ne!(at_a.identifier_ref, at_b.identifier_ref);
    assert_eq!(
        stores.subjects.subject(&a.id, &at_b.subject_id).await,
        Err(StoreError::NotFound)
    );
    assert_eq!(
        stores.subjects.subject(&b.id, &at_a.subject_id).await,
        Err(StoreError::NotFound)
    );
    assert_eq!(stores.backing.subject_count(a.id).await, 1);
    assert_eq!(stores.backing.subject_count(b.id).await, 1);
}

pub(super) async fn check_a_customer_ref_attaches_and_reattaching_it_is_fine(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let id = identifier(IdentifierType::Orgnr);
    let created = stores
        .subjects
        .resolve_or_create_subject(&t.id, &id, Some("crm-1"), &company(t0()))
        .await
        .unwrap();
    let again = stores
        .subjects
        .resolve_or_create_subject(
            &t.id,
            &id,
            Some("crm-1"),
            &company(t0() + Duration::hours(1)),
        )
        .await
        .unwrap();
    assert_eq!(
        (again.subject_id, again.created),
        (created.subject_id, false)
    );
    // A second reference to the same subject is attached too.
    let later = t0() + Duration::hours(2);
    stores
        .subjects
        .resolve_or_create_subject(&t.id, &id, Some("crm-2"), &company(later))
        .await
        .unwrap();
    let record = stores
        .subjects
        .subject(&t.id, &created.subject_id)
        .await
        .unwrap();
    let refs: Vec<(&str, DateTime<Utc>)> = record
        .refs
        .iter()
        .map(|r| (r.value.as_str(), r.created_at))
        .collect();
    assert_eq!(refs, [("crm-1", t0()), ("crm-2", later)]);
}

pub(super) async fn check_a_ref_of_another_subject_conflicts_and_creates_nothing(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let (first_id, second_id) = (
        identifier(IdentifierType::Orgnr),
        identifier(IdentifierType::Orgnr),
    );
    let first = stores
        .subjects
        .resolve_or_create_subject(&t.id, &first_id, Some("crm-1"), &company(t0()))
        .await
        .unwrap();
    let second = stores
        .subjects
        .resolve_or_create_subject(&t.id, &second_id, None, &company(t0()))
        .await
        .unwrap();

    // An existing subject cannot take another subject's reference.
    assert_eq!(
        stores
            .subjects
            .resolve_or_create_subject(&t.id, &second_id, Some("crm-1"), &company(t0()))
            .await,
        Err(StoreError::RefConflict)
    );

    // A new identifier naming a taken reference: refused, and no subject is created.
    let (subjects_before, identifiers_before) = (
        stores.backing.subject_count(t.id).await,
        stores.backing.identifier_count(t.id).await,
    );
    let new_id = identifier(IdentifierType::Orgnr);
    let refused_fresh = company(t0());
    assert_eq!(
        stores
            .subjects
            .resolve_or_create_subject(&t.id, &new_id, Some("crm-1"), &refused_fresh)
            .await,
        Err(StoreError::RefConflict)
    );
    assert_eq!(stores.backing.subject_count(t.id).await, subjects_before);
    assert_eq!(
        stores.backing.identifier_count(t.id).await,
        identifiers_before
    );
    assert_eq!(
        stores
            .subjects
            .subject(&t.id, &refused_fresh.subject_id)
            .await,
        Err(StoreError::NotFound)
    );
    // The identifier is still unknown: the next resolve creates it afresh.
    let later = stores
        .subjects
        .resolve_or_create_subject(&t.id, &new_id, None, &company(t0()))
        .await
        .unwrap();
    assert!(later.created);

    // The reference stayed where it was.
    let owner = stores
        .subjects
        .subject(&t.id, &first.subject_id)
        .await
        .unwrap();
    assert_eq!(owner.refs.len(), 1);
    assert_eq!(owner.refs[0].value, "crm-1");
    let other = stores
        .subjects
        .subject(&t.id, &second.subject_id)
        .await
        .unwrap();
    assert!(other.refs.is_empty());
}

pub(super) async fn check_resolves_racing_for_one_new_ref_attach_it_once(stores: &Stores) {
    // Ten new identifiers claim one new reference at once: one wins, the others conflict and
    // leave nothing behind.
    let (t, _) = tenant(stores, "SE").await;
    let tasks: Vec<_> = (0..10)
        .map(|_| {
            let (subjects, tenant) = (stores.subjects.clone(), t.id);
            tokio::spawn(async move {
                let id = identifier(IdentifierType::Orgnr);
                subjects
                    .resolve_or_create_subject(&tenant, &id, Some("crm-race"), &company(t0()))
                    .await
            })
        })
        .collect();
    let mut won = Vec::new();
    for task in tasks {
        match task.await.unwrap() {
            Ok(resolution) => won.push(resolution),
            Err(e) => assert_eq!(e, StoreError::RefConflict),
        }
    }
    assert_eq!(won.len(), 1, "{won:?}");
    assert_eq!(stores.backing.subject_count(t.id).await, 1);
    assert_eq!(stores.backing.identifier_count(t.id).await, 1);
    let owner = stores
        .subjects
        .subject(&t.id, &won[0].subject_id)
        .await
        .unwrap();
    assert_eq!(owner.refs.len(), 1);
}

pub(super) async fn check_customer_refs_are_per_tenant(stores: &Stores) {
    let (a, _) = tenant(stores, "SE").await;
    let (b, _) = tenant(stores, "SE").await;
    stores
        .subjects
        .resolve_or_create_subject(
            &a.id,
            &identifier(IdentifierType::Orgnr),
            Some("crm-1"),
            &company(t0()),
        )
        .await
        .unwrap();
    // Another tenant's identical reference names its own, different subject.
    let at_b = stores
        .subjects
        .resolve_or_create_subject(
            &b.id,
            &identifier(IdentifierType::Orgnr),
            Some("crm-1"),
            &company(t0()),
        )
        .await
        .unwrap();
    assert!(at_b.created);
}

pub(super) async fn check_a_subject_reads_back_with_identifiers_refs_and_evidence(stores: &Stores) {
    let (t, _) = tenant(stores, "SE,LT").await;
    let id = identifier(IdentifierType::ImonesKodas);
    let at = t0() + Duration::days(1);
    let fresh = company(at);
    stores
        .subjects
        .resolve_or_create_subject(&t.id, &id, Some("crm-9"), &fresh)
        .await
        .unwrap();
    let record = stores
        .subjects
        .subject(&t.id, &fresh.subject_id)
        .await
        .unwrap();
    assert_eq!(record.subject_id, fresh.subject_id);
    assert_eq!(record.kind, SubjectKind::Company);
    assert_eq!(record.created_at, at);
    assert_eq!(record.identifiers.len(), 1);
    let stored = &record.identifiers[0];
    assert_eq!(stored.identifier_ref, fresh.identifier_ref);
    assert_eq!(stored.id_type, IdentifierType::ImonesKodas);
    assert_eq!(stored.country, Country::Lt);
    assert_eq!(stored.valid_from, at);
    assert_eq!(stored.valid_to, None);
    assert_eq!(record.refs.len(), 1);
    assert_eq!(
        (record.refs[0].value.as_str(), record.refs[0].created_at),
        ("crm-9", at)
    );
    assert!(record.aliases.is_empty());
    // Evidence: the consumer's own identity event, pointing at the call record.
    assert_eq!(
        record.evidence,
        Evidence::identity_event(fresh.sighting.call_ref(), at)
    );
    assert_eq!(record.evidence.source.as_str(), "customer.identity_event");

    let person = fresh_person_kind(stores, &t).await;
    assert_eq!(person, SubjectKind::Person);
}

/// Resolves a new person identifier and reads back the kind stored.
async fn fresh_person_kind(stores: &Stores, t: &Tenant) -> SubjectKind {
    let fresh = fresh(SubjectKind::Person, t0());
    stores
        .subjects
        .resolve_or_create_subject(
            &t.id,
            &identifier(IdentifierType::AsmensKodas),
            None,
            &fresh,
        )
        .await
        .unwrap();
    stores
        .subjects
        .subject(&t.id, &fresh.subject_id)
        .await
        .unwrap()
        .kind
}

pub(super) async fn check_another_tenants_subject_is_not_found(stores: &Stores) {
    let (a, _) = tenant(stores, "SE").await;
    let (b, _) = tenant(stores, "SE").await;
    let fresh = company(t0());
    stores
        .subjects
        .resolve_or_create_subject(&a.id, &identifier(IdentifierType::Orgnr), None, &fresh)
        .await
        .unwrap();
    assert!(stores
        .subjects
        .subject(&a.id, &fresh.subject_id)
        .await
        .is_ok());
    assert_eq!(
        stores.subjects.subject(&b.id, &fresh.subject_id).await,
        Err(StoreError::NotFound)
    );
    assert_eq!(
        stores.subjects.subject(&a.id, &SubjectId::generate()).await,
        Err(StoreError::NotFound)
    );
}
