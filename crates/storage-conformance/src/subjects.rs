//! Subjects: resolve on first and second sight, concurrent first sightings, customer references,
//! reads, and tenant isolation.

use super::*;

pub async fn check_resolve_creates_on_first_sight_and_finds_on_the_second(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let id = identifier(adapters_se::identifiers::ORGNR);
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

pub async fn check_concurrent_first_sightings_make_one_subject(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let id = identifier(adapters_se::identifiers::PERSONNUMMER);
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

pub async fn check_one_blind_index_at_two_tenants_is_two_unrelated_subjects(stores: &Stores) {
    let (a, _) = tenant(stores, "SE").await;
    let (b, _) = tenant(stores, "SE").await;
    let id = identifier(adapters_se::identifiers::ORGNR);
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

pub async fn check_a_customer_ref_attaches_and_reattaching_it_is_fine(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let id = identifier(adapters_se::identifiers::ORGNR);
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

pub async fn check_a_ref_of_another_subject_conflicts_and_creates_nothing(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let (first_id, second_id) = (
        identifier(adapters_se::identifiers::ORGNR),
        identifier(adapters_se::identifiers::ORGNR),
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
    let new_id = identifier(adapters_se::identifiers::ORGNR);
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

pub async fn check_resolves_racing_for_one_new_ref_attach_it_once(stores: &Stores) {
    // Ten new identifiers claim one new reference at once: one wins, the others conflict and
    // leave nothing behind.
    let (t, _) = tenant(stores, "SE").await;
    let tasks: Vec<_> = (0..10)
        .map(|_| {
            let (subjects, tenant) = (stores.subjects.clone(), t.id);
            tokio::spawn(async move {
                let id = identifier(adapters_se::identifiers::ORGNR);
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

pub async fn check_customer_refs_are_per_tenant(stores: &Stores) {
    let (a, _) = tenant(stores, "SE").await;
    let (b, _) = tenant(stores, "SE").await;
    stores
        .subjects
        .resolve_or_create_subject(
            &a.id,
            &identifier(adapters_se::identifiers::ORGNR),
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
            &identifier(adapters_se::identifiers::ORGNR),
            Some("crm-1"),
            &company(t0()),
        )
        .await
        .unwrap();
    assert!(at_b.created);
}

pub async fn check_a_subject_reads_back_with_identifiers_refs_and_evidence(stores: &Stores) {
    let (t, _) = tenant(stores, "SE,LT").await;
    let id = identifier(adapters_lt::identifiers::IMONES_KODAS);
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
    assert_eq!(stored.id_type, adapters_lt::identifiers::IMONES_KODAS);
    assert_eq!(stored.country, adapters_lt::identifiers::LT);
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
            &identifier(adapters_lt::identifiers::ASMENS_KODAS),
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

pub async fn check_another_tenants_subject_is_not_found(stores: &Stores) {
    let (a, _) = tenant(stores, "SE").await;
    let (b, _) = tenant(stores, "SE").await;
    let fresh = company(t0());
    stores
        .subjects
        .resolve_or_create_subject(
            &a.id,
            &identifier(adapters_se::identifiers::ORGNR),
            None,
            &fresh,
        )
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

/// A merge with the subscriptions the use case plans to end (each with its event).
fn merge_of(
    from: SubjectId,
    into: SubjectId,
    ended: Vec<(
        domain::monitoring::subscription::Subscription,
        domain::monitoring::event::NewEvent,
    )>,
) -> domain::subjects::merge::SubjectMerge {
    domain::subjects::merge::SubjectMerge {
        from,
        into,
        event: super::events::event(
            &format!("merge:{from}:{into}"),
            "subject.merged",
            Country::Se,
        ),
        ended,
    }
}

pub async fn check_a_merge_moves_subscriptions_and_ends_the_planned_ones(stores: &Stores) {
    use domain::monitoring::subscription::{SubscriptionKind, SubscriptionStatus};
    let (t, _) = tenant(stores, "SE").await;
    let from = company_subject(stores, &t).await;
    let into = company_subject(stores, &t).await;
    let of_from = super::subscriptions::subscription(from, SubscriptionKind::Company);
    let of_into = super::subscriptions::subscription(into, SubscriptionKind::Company);
    let person_of_from = super::subscriptions::subscription(from, SubscriptionKind::Person);
    for (i, s) in [&of_from, &of_into, &person_of_from]
        .into_iter()
        .enumerate()
    {
        let stored = stores
            .subscriptions
            .create_subscription(
                &t.id,
                s,
                &super::events::event(&format!("c{i}"), "subscription.created", Country::Se),
            )
            .await
            .unwrap();
        assert_eq!(
            (stored.subject_id, stored.aliases.clone()),
            (s.subject_id, vec![])
        );
    }
    let gone = of_from.clone().ended(t0(), Duration::days(90));
    let ended_event = super::events::event("end-merged", "subscription.ended", Country::Se);
    stores
        .subjects
        .merge_subjects(
            &t.id,
            &merge_of(from, into, vec![(gone.clone(), ended_event)]),
        )
        .await
        .unwrap();

    // The ended one ended; every one names the canonical id and its alias.
    let read = |id| {
        let store = stores.subscriptions.clone();
        let t = t.id;
        async move { store.subscription(&t, &id).await.unwrap().unwrap() }
    };
    let ended = read(of_from.id).await;
    assert_eq!(ended.status, SubscriptionStatus::Ended);
    assert_eq!(ended.ended_at, gone.ended_at);
    assert_eq!(ended.next_run_at, None);
    for s in [&of_from, &of_into, &person_of_from] {
        let r = read(s.id).await;
        assert_eq!(
            (r.subject_id, r.aliases),
            (into, vec![from]),
            "{:?}",
            s.kind
        );
    }
    // Beneath the port too: the rows moved (the unique index keeps holding).
    let moved = stores
        .backing
        .count(
            "subscriptions",
            &format!("tenant_id = '{}' AND subject_id = '{into}'", t.id),
        )
        .await;
    assert_eq!(moved, 3);

    // Asked by either id: one unended subscription of each kind.
    for id in [from, into] {
        let unended = stores
            .subscriptions
            .unended_subscriptions(&t.id, &id)
            .await
            .unwrap();
        let mut ids: Vec<_> = unended.iter().map(|s| s.id).collect();
        ids.sort_by_key(ToString::to_string);
        let mut want = vec![of_into.id, person_of_from.id];
        want.sort_by_key(ToString::to_string);
        assert_eq!(ids, want);
        let active = stores
            .subscriptions
            .active_subscription(&t.id, &id, SubscriptionKind::Company)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(active.id, of_into.id);
    }
    // A create asked under the alias is refused as a duplicate, and once the survivor ends
    // it is stored under the canonical id.
    let again = super::subscriptions::subscription(from, SubscriptionKind::Company);
    let refused = stores
        .subscriptions
        .create_subscription(
            &t.id,
            &again,
            &super::events::event("again", "subscription.created", Country::Se),
        )
        .await;
    assert_eq!(refused.unwrap_err(), StoreError::SubscriptionExists);
    stores
        .subscriptions
        .end_subscription(
            &t.id,
            &of_into.clone().ended(t0(), Duration::days(90)),
            &super::events::event("end-into", "subscription.ended", Country::Se),
        )
        .await
        .unwrap();
    let stored = stores
        .subscriptions
        .create_subscription(
            &t.id,
            &again,
            &super::events::event("again-2", "subscription.created", Country::Se),
        )
        .await
        .unwrap();
    assert_eq!((stored.subject_id, stored.aliases), (into, vec![from]));

    // The merge and the end were logged in the merge's transaction, under the right keys.
    let page = stores
        .events
        .events_page(&t.id, &super::events::query(0, 100, "SE"))
        .await
        .unwrap();
    let keys: Vec<&str> = page
        .events
        .iter()
        .map(|e| e.event.idempotency_key.as_str())
        .collect();
    assert!(
        keys.contains(&format!("merge:{from}:{into}").as_str()),
        "{keys:?}"
    );
    assert!(keys.contains(&"end-merged"), "{keys:?}");
}

pub async fn check_a_merge_that_would_leave_two_unended_subscriptions_writes_nothing(
    stores: &Stores,
) {
    use domain::monitoring::subscription::SubscriptionKind;
    let (t, _) = tenant(stores, "SE").await;
    let from = company_subject(stores, &t).await;
    let into = company_subject(stores, &t).await;
    for (i, subject) in [from, into].into_iter().enumerate() {
        stores
            .subscriptions
            .create_subscription(
                &t.id,
                &super::subscriptions::subscription(subject, SubscriptionKind::Company),
                &super::events::event(&format!("c{i}"), "subscription.created", Country::Se),
            )
            .await
            .unwrap();
    }
    // Planned as if `from` had none (a subscription made after the plan).
    let refused = stores
        .subjects
        .merge_subjects(&t.id, &merge_of(from, into, Vec::new()))
        .await;
    assert_eq!(refused.unwrap_err(), StoreError::SubscriptionExists);
    let record = stores.subjects.subject(&t.id, &from).await.unwrap();
    assert_eq!((record.subject_id, record.aliases), (from, vec![]));
    let page = stores
        .events
        .events_page(&t.id, &super::events::query(0, 100, "SE"))
        .await
        .unwrap();
    assert_eq!(page.events.len(), 2, "only the two creates");
}

pub async fn check_cached_data_paid_objects_and_documents_follow_a_merge(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let from = company_subject(stores, &t).await;
    let into = company_subject(stores, &t).await;
    let evidence = super::companies::record_profile_calls(stores, &t, t0()).await;
    let saved = super::companies::profile("Testbolaget AB", "doc-of-from", &evidence, t0());
    stores
        .companies
        .save_profile(&t.id, &from, &saved)
        .await
        .unwrap();
    let paid_evidence = stores
        .companies
        .record_calls(
            &t.id,
            "/v1/companies/{orgnr}/officers",
            &[(
                CallRef::generate(),
                call(
                    domain::evidence::EvidenceSource::declared("companyreg.foretagsinformation"),
                    "POST /organisationer",
                    t0(),
                ),
            )],
        )
        .await
        .unwrap()
        .remove(0);
    let paid_key = domain::companies::paid::PaidKey {
        kind: domain::companies::paid::PaidKind::Officers,
        country: Country::Se,
        key: super::companies::ORGNR.into(),
    };
    stores
        .paid
        .save_paid(
            &t.id,
            &paid_key,
            &from,
            &super::paid::officers(super::companies::ORGNR, paid_evidence),
        )
        .await
        .unwrap();
    stores
        .subjects
        .merge_subjects(&t.id, &merge_of(from, into, Vec::new()))
        .await
        .unwrap();
    for table in ["company_profiles", "company_documents", "paid_objects"] {
        let rows = stores
            .backing
            .column(table, "subject_id", &format!("tenant_id = '{}'", t.id))
            .await;
        assert!(!rows.is_empty(), "{table}");
        assert!(
            rows.iter().all(|r| r["subject_id"] == into.to_string()),
            "{table}: {rows:?}"
        );
    }
    let (owner, _) = stores
        .companies
        .document_owner(&t.id, "doc-of-from")
        .await
        .unwrap()
        .unwrap();
    assert_eq!((owner.subject_id, owner.aliases), (into, vec![from]));
    let cached = stores
        .companies
        .cached_profile(&t.id, Country::Se, super::companies::ORGNR)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (cached.subject.subject_id, cached.subject.aliases),
        (into, vec![from])
    );
    let paid = stores
        .paid
        .cached_paid(&t.id, &paid_key)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (paid.subject.subject_id, paid.subject.aliases),
        (into, vec![from])
    );
}
