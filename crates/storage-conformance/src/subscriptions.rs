//! The subscription store: one unended subscription per subject and kind (also when creates
//! race), each change written with its event, ending once, lists by kind and status.

use super::events::event;
use super::*;
use domain::ids::SubscriptionId;
use domain::monitoring::subscription::{
    ClaimedRun, LegalBasis, Subscription, SubscriptionFilter, SubscriptionKind, SubscriptionStatus,
};

pub(super) fn subscription(subject: SubjectId, kind: SubscriptionKind) -> Subscription {
    Subscription {
        id: SubscriptionId::generate(),
        subject_id: subject,
        aliases: Vec::new(),
        kind,
        legal_basis: LegalBasis::AmlCdd,
        legal_basis_ref: Some("ref-1".into()),
        status: SubscriptionStatus::Active,
        check_days: 1,
        full_refresh_days: 30,
        country: Country::Se,
        created_at: t0(),
        suspended_at: None,
        suspension_reason: None,
        ended_at: None,
        purge_after: None,
        next_run_at: Some(t0()),
    }
}

pub async fn check_one_unended_subscription_per_subject_and_kind(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let subject = company_subject(stores, &t).await;
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let store = stores.subscriptions.clone();
            let id = t.id;
            tokio::spawn(async move {
                store
                    .create_subscription(
                        &id,
                        &subscription(subject, SubscriptionKind::Company),
                        &event(&format!("c{i}"), "subscription.created", Country::Se),
                    )
                    .await
            })
        })
        .collect();
    let mut made = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(_) => made += 1,
            Err(StoreError::SubscriptionExists) => {}
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(made, 1);
    // Only the winner's event was logged.
    let page = stores
        .events
        .events_page(
            &t.id,
            &domain::monitoring::event::EventQuery {
                after: 0,
                limit: 100,
                scan_window: 100,
                countries: CountrySet::parse_list("SE").unwrap(),
                types: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(page.events.len(), 1);

    // Ending frees the place; ending twice does not end again.
    let list = stores
        .subscriptions
        .subscriptions(
            &t.id,
            &SubscriptionFilter {
                kinds: vec![SubscriptionKind::Company, SubscriptionKind::Person],
                status: None,
                limit: 10,
            },
        )
        .await
        .unwrap();
    assert_eq!(list.len(), 1);
    let ended = list[0]
        .clone()
        .ended(t0() + Duration::hours(1), Duration::days(90));
    let (stored, now) = stores
        .subscriptions
        .end_subscription(
            &t.id,
            &ended,
            &event("end", "subscription.ended", Country::Se),
        )
        .await
        .unwrap()
        .unwrap();
    assert!(now);
    assert_eq!(stored, ended);
    let (_, again) = stores
        .subscriptions
        .end_subscription(
            &t.id,
            &ended,
            &event("end2", "subscription.ended", Country::Se),
        )
        .await
        .unwrap()
        .unwrap();
    assert!(!again);
    stores
        .subscriptions
        .create_subscription(
            &t.id,
            &subscription(subject, SubscriptionKind::Company),
            &event("c-new", "subscription.created", Country::Se),
        )
        .await
        .unwrap();
    let active = stores
        .subscriptions
        .subscriptions(
            &t.id,
            &SubscriptionFilter {
                kinds: vec![SubscriptionKind::Company],
                status: Some(SubscriptionStatus::Active),
                limit: 10,
            },
        )
        .await
        .unwrap();
    assert_eq!(active.len(), 1);
    let persons = stores
        .subscriptions
        .subscriptions(
            &t.id,
            &SubscriptionFilter {
                kinds: vec![SubscriptionKind::Person],
                status: None,
                limit: 10,
            },
        )
        .await
        .unwrap();
    assert!(persons.is_empty());
    // Another tenant sees none of it.
    let (other, _) = tenant(stores, "SE").await;
    assert!(stores
        .subscriptions
        .subscription(&other.id, &active[0].id)
        .await
        .unwrap()
        .is_none());
}

/// The scheduler's queue: concurrent claims are disjoint, a lease keeps a run from being
/// claimed again until it passes (a dead replica's run comes back), a completion counts only
/// while its lease holds, and ended or future subscriptions are never claimed.
pub async fn check_the_queue_is_shared_safely_by_replicas(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let mut ids = Vec::new();
    for i in 0..12 {
        let subject = company_subject(stores, &t).await;
        let mut s = subscription(subject, SubscriptionKind::Company);
        s.next_run_at = Some(t0() + Duration::seconds(i));
        stores
            .subscriptions
            .create_subscription(
                &t.id,
                &s,
                &event(&format!("q{i}"), "subscription.created", Country::Se),
            )
            .await
            .unwrap();
        ids.push(s.id);
    }
    // Not yet due: nothing.
    let early = stores
        .subscriptions
        .claim_due(
            t0() - Duration::seconds(1),
            t0() + Duration::minutes(5),
            100,
        )
        .await
        .unwrap();
    assert!(early.iter().all(|r| r.tenant_id != t.id));

    // Two replicas at once: disjoint claims covering everything due.
    let now = t0() + Duration::minutes(1);
    let lease = now + Duration::minutes(10);
    let (a, b) = tokio::join!(
        stores.subscriptions.claim_due(now, lease, 7),
        stores.subscriptions.claim_due(now, lease, 7)
    );
    let mine = |runs: Vec<ClaimedRun>| -> Vec<ClaimedRun> {
        runs.into_iter().filter(|r| r.tenant_id == t.id).collect()
    };
    let (a, b) = (mine(a.unwrap()), mine(b.unwrap()));
    let mut claimed: Vec<_> = a.iter().chain(&b).map(|r| r.subscription.id).collect();
    claimed.sort();
    let before = claimed.len();
    claimed.dedup();
    assert_eq!(claimed.len(), before, "a run claimed twice");
    assert_eq!(claimed.len(), 12);
    // Leased: nobody claims them again meanwhile.
    assert!(mine(
        stores
            .subscriptions
            .claim_due(now + Duration::minutes(5), now + Duration::minutes(15), 100)
            .await
            .unwrap()
    )
    .is_empty());

    // One completes; one ends while claimed; the others' replica dies.
    let done = &a[0];
    assert_eq!(done.due_at, done.subscription.next_run_at.unwrap());
    let outcome = domain::monitoring::subscription::RunOutcome {
        next_run_at: now + Duration::days(1),
        checked_at: Some(now),
        full_refresh_at: None,
    };
    assert!(stores
        .subscriptions
        .complete_run(done, &outcome)
        .await
        .unwrap());
    let ending = &a[1];
    let ended = ending.subscription.clone().ended(now, Duration::days(90));
    stores
        .subscriptions
        .end_subscription(
            &t.id,
            &ended,
            &event("end-q", "subscription.ended", Country::Se),
        )
        .await
        .unwrap();
    assert!(!stores
        .subscriptions
        .complete_run(ending, &outcome)
        .await
        .unwrap());

    // After the lease: the dead replica's runs come back, with the same due times; the
    // completed and the ended ones do not.
    let later = lease + Duration::seconds(1);
    let again = mine(
        stores
            .subscriptions
            .claim_due(later, later + Duration::minutes(10), 100)
            .await
            .unwrap(),
    );
    assert_eq!(again.len(), 10);
    assert!(again
        .iter()
        .all(|r| r.subscription.id != done.subscription.id));
    assert!(again
        .iter()
        .all(|r| r.subscription.id != ending.subscription.id));
    let first_claim = b
        .iter()
        .chain(&a)
        .find(|r| r.subscription.id == again[0].subscription.id)
        .unwrap();
    assert_eq!(again[0].due_at, first_claim.due_at);
    // The old claim's completion no longer counts.
    assert!(!stores
        .subscriptions
        .complete_run(first_claim, &outcome)
        .await
        .unwrap());
}

/// An event of subscription `s` under key `key`.
fn event_of(s: &Subscription, key: &str, type_name: &str) -> domain::monitoring::event::NewEvent {
    let mut e = event(key, type_name, Country::Se);
    e.subscription_id = Some(s.id);
    e
}

pub async fn check_a_reading_and_its_events_are_written_together_and_only_while_active(
    stores: &Stores,
) {
    use domain::companies::paid::PaidData;
    use domain::monitoring::subscription::MonitoringBaseline;
    let (t, _) = tenant(stores, "SE").await;
    let subject = company_subject(stores, &t).await;
    let s = subscription(subject, SubscriptionKind::Company);
    let created = event_of(&s, "created", "subscription.created");
    stores
        .subscriptions
        .create_subscription(&t.id, &s, &created)
        .await
        .unwrap();
    let store = &stores.subscriptions;
    assert!(store.baseline(&t.id, &s.id).await.unwrap().is_empty());

    let evidence = super::companies::record_profile_calls(stores, &t, t0()).await;
    let profile = super::companies::profile("Första AB", "doc-1", &evidence, t0());
    let PaidData::Officers(officers) =
        super::paid::officers("5560021361", evidence[0].clone()).data
    else {
        unreachable!()
    };
    let reading = MonitoringBaseline {
        profile: Some(profile.clone()),
        officers: Some(officers.clone()),
        owners: None,
    };
    let events = [
        event_of(&s, "run-1:company.changed", "company.changed"),
        event_of(&s, "run-1:refresh.completed", "refresh.completed"),
    ];
    let seqs = store
        .record_reading(&t.id, &s.id, None, &reading, &events)
        .await
        .unwrap()
        .expect("written while active");
    assert_eq!(seqs, [2, 3]);
    assert_eq!(store.baseline(&t.id, &s.id).await.unwrap(), reading);

    // A run redone after a crash: its events are kept once; a part it did not read stays.
    let renamed = super::companies::profile("Andra AB", "doc-1", &evidence, t0());
    let again = store
        .record_reading(
            &t.id,
            &s.id,
            None,
            &MonitoringBaseline {
                profile: Some(renamed.clone()),
                officers: None,
                owners: None,
            },
            &events,
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again, [2, 3]);
    let kept = store.baseline(&t.id, &s.id).await.unwrap();
    assert_eq!(kept.profile, Some(renamed));
    assert_eq!(kept.officers, Some(officers));
    // The baseline is the subscription's: another tenant's reads see nothing.
    let (other, _) = tenant(stores, "SE").await;
    assert!(store.baseline(&other.id, &s.id).await.unwrap().is_empty());

    // Ended: a late reading writes nothing, neither baseline nor events.
    let ended = s.clone().ended(t0(), Duration::days(90));
    store
        .end_subscription(&t.id, &ended, &event_of(&s, "ended", "subscription.ended"))
        .await
        .unwrap();
    let late = store
        .record_reading(
            &t.id,
            &s.id,
            None,
            &reading,
            &[event_of(&s, "run-2:refresh.completed", "refresh.completed")],
        )
        .await
        .unwrap();
    assert_eq!(late, None);
    assert_eq!(store.baseline(&t.id, &s.id).await.unwrap(), kept);
    let page = stores
        .events
        .events_page(&t.id, &super::events::query(0, 100, "SE"))
        .await
        .unwrap();
    assert_eq!(page.events.len(), 4, "created, two of the run, ended");
    assert!(page
        .events
        .iter()
        .all(|e| e.event.subscription_id == Some(s.id)));
}

pub async fn check_a_purge_comes_after_the_retention_and_once(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let subject = company_subject(stores, &t).await;
    let s = subscription(subject, SubscriptionKind::Company);
    let store = &stores.subscriptions;
    store
        .create_subscription(&t.id, &s, &event_of(&s, "created", "subscription.created"))
        .await
        .unwrap();
    // An event of no subscription, which no purge touches.
    stores
        .events
        .append_events(&t.id, &[event("other", "subject.merged", Country::Se)])
        .await
        .unwrap();
    let ended = s.clone().ended(t0(), Duration::days(3));
    store
        .end_subscription(&t.id, &ended, &event_of(&s, "ended", "subscription.ended"))
        .await
        .unwrap();

    assert!(store
        .purge_due(t0() + Duration::days(2), 10)
        .await
        .unwrap()
        .is_empty());
    // Two replicas purging at once: the subscription is purged by one of them.
    let after = t0() + Duration::days(4);
    let (a, b) = tokio::join!(store.purge_due(after, 10), store.purge_due(after, 10));
    let mut purged = a.unwrap();
    purged.extend(b.unwrap());
    assert_eq!(purged, [(t.id, s.id)]);
    assert!(store.purge_due(after, 10).await.unwrap().is_empty());

    let page = stores
        .events
        .events_page(&t.id, &super::events::query(0, 100, "SE"))
        .await
        .unwrap();
    let seqs: Vec<i64> = page.events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [1, 2, 3], "seq and the envelope stay");
    for e in &page.events {
        let purged = e.event.subscription_id == Some(s.id);
        let data = &e.event.data;
        let is_purged = *data
            == domain::monitoring::event::EventData::Object(vec![(
                "purged".to_owned(),
                domain::monitoring::event::EventData::Bool(true),
            )]);
        assert_eq!(is_purged, purged, "{}", e.event.type_name);
    }
}

pub async fn check_a_reading_of_a_run_taken_over_writes_nothing(stores: &Stores) {
    use domain::monitoring::subscription::MonitoringBaseline;
    let (t, _) = tenant(stores, "SE").await;
    let subject = company_subject(stores, &t).await;
    let s = subscription(subject, SubscriptionKind::Company);
    let store = &stores.subscriptions;
    store
        .create_subscription(&t.id, &s, &event_of(&s, "created", "subscription.created"))
        .await
        .unwrap();
    // Replica A claims the run; its lease runs out; replica B takes the run over.
    let first = store
        .claim_due(t0(), t0() + Duration::minutes(5), 10)
        .await
        .unwrap();
    let later = t0() + Duration::minutes(6);
    let second = store
        .claim_due(later, later + Duration::minutes(5), 10)
        .await
        .unwrap();
    let (a, b) = (
        first.iter().find(|r| r.subscription.id == s.id).unwrap(),
        second.iter().find(|r| r.subscription.id == s.id).unwrap(),
    );
    assert_eq!(a.due_at, b.due_at, "the same run");
    let evidence = super::companies::record_profile_calls(stores, &t, t0()).await;
    let reading = |name: &str| MonitoringBaseline {
        profile: Some(super::companies::profile(name, "doc-1", &evidence, t0())),
        officers: None,
        owners: None,
    };
    // A, late, writes nothing; B's reading stands.
    let late = store
        .record_reading(
            &t.id,
            &s.id,
            Some(a.lease_until),
            &reading("Gammal AB"),
            &[event_of(&s, "run-a:refresh.completed", "refresh.completed")],
        )
        .await
        .unwrap();
    assert_eq!(late, None);
    let current = store
        .record_reading(
            &t.id,
            &s.id,
            Some(b.lease_until),
            &reading("Ny AB"),
            &[event_of(&s, "run-b:refresh.completed", "refresh.completed")],
        )
        .await
        .unwrap();
    assert!(current.is_some());
    let kept = store.baseline(&t.id, &s.id).await.unwrap();
    assert_eq!(kept.profile.unwrap().data.name, "Ny AB");
    let page = stores
        .events
        .events_page(&t.id, &super::events::query(0, 100, "SE"))
        .await
        .unwrap();
    assert_eq!(page.events.len(), 2, "created and B's run");
}

/// The scheduler's backlog, as the probe reports it: the runs due at a time and not held
/// under a lease (the claim's own predicate), and the oldest one's due time; a lease that ran
/// out puts its run back. And the connections the store holds, without a round trip.
pub async fn check_the_backlog_counts_the_runs_due_and_unclaimed(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    for (i, due) in [
        t0(),
        t0() + Duration::seconds(10),
        t0() + Duration::hours(1),
    ]
    .into_iter()
    .enumerate()
    {
        let subject = company_subject(stores, &t).await;
        let mut s = subscription(subject, SubscriptionKind::Company);
        s.next_run_at = Some(due);
        stores
            .subscriptions
            .create_subscription(
                &t.id,
                &s,
                &event(&format!("b{i}"), "subscription.created", Country::Se),
            )
            .await
            .unwrap();
    }
    let none = stores
        .probe
        .backlog(t0() - Duration::seconds(1))
        .await
        .unwrap();
    assert_eq!((none.due, none.oldest_due_at), (0, None));
    let now = t0() + Duration::minutes(1);
    let backlog = stores.probe.backlog(now).await.unwrap();
    assert_eq!((backlog.due, backlog.oldest_due_at), (2, Some(t0())));

    let lease = now + Duration::minutes(10);
    let claimed = stores.subscriptions.claim_due(now, lease, 1).await.unwrap();
    assert_eq!(claimed.len(), 1);
    let backlog = stores.probe.backlog(now).await.unwrap();
    assert_eq!(
        (backlog.due, backlog.oldest_due_at),
        (1, Some(t0() + Duration::seconds(10)))
    );
    // The lease ran out (its replica died): the run is due again.
    let later = lease + Duration::seconds(1);
    let backlog = stores.probe.backlog(later).await.unwrap();
    assert_eq!((backlog.due, backlog.oldest_due_at), (2, Some(t0())));

    let pool = stores.probe.pool_use();
    assert!(pool.max >= 4, "{pool:?}");
    assert!(
        pool.in_use <= pool.open && pool.open <= pool.max,
        "{pool:?}"
    );
}

/// Ongoing screening's pages: the active subscriptions of every tenant in `(tenant,
/// subscription)` order, after a cursor; an ended one is left out.
pub async fn check_active_subscriptions_are_paged_across_tenants_in_order(stores: &Stores) {
    let store = &stores.subscriptions;
    let mut expected: Vec<(TenantId, SubscriptionId)> = Vec::new();
    for _ in 0..2 {
        let (t, _) = tenant(stores, "SE").await;
        for n in 0..2 {
            let subject = company_subject(stores, &t).await;
            let s = subscription(subject, SubscriptionKind::Company);
            store
                .create_subscription(&t.id, &s, &event_of(&s, "created", "subscription.created"))
                .await
                .unwrap();
            if n == 1 {
                // Ended: not worked.
                let ended = s
                    .clone()
                    .ended(t0() + Duration::hours(1), Duration::days(90));
                store
                    .end_subscription(&t.id, &ended, &event_of(&s, "ended", "subscription.ended"))
                    .await
                    .unwrap()
                    .unwrap();
            } else {
                expected.push((t.id, s.id));
            }
        }
    }
    expected.sort_by_key(|(t, s)| (t.to_string(), s.to_string()));
    let keys = |page: Vec<(TenantId, Subscription)>| -> Vec<(TenantId, SubscriptionId)> {
        page.into_iter().map(|(t, s)| (t, s.id)).collect()
    };
    let first = store.active_subscriptions_after(None, 1).await.unwrap();
    assert_eq!(first[0].1.status, SubscriptionStatus::Active);
    assert_eq!(keys(first), expected[..1]);
    let rest = store
        .active_subscriptions_after(Some(expected[0]), 10)
        .await
        .unwrap();
    assert_eq!(keys(rest), expected[1..]);
    assert!(store
        .active_subscriptions_after(Some(expected[1]), 10)
        .await
        .unwrap()
        .is_empty());
}

/// The names monitoring holds of a page of subscriptions, read at once: each subject's cached
/// profiles (country, number, name, when fetched) and its baseline's officers and owners;
/// nothing for a subscription without them, or for a key of another tenant.
pub async fn check_a_pages_known_names_are_read_at_once(stores: &Stores) {
    use domain::companies::paid::PaidData;
    use domain::monitoring::subscription::{KnownProfile, MonitoringBaseline};
    let store = &stores.subscriptions;
    assert!(store.known_names(&[]).await.unwrap().is_empty());
    let (t, _) = tenant(stores, "SE").await;
    let (other, _) = tenant(stores, "SE").await;
    let subject = company_subject(stores, &t).await;
    let s = subscription(subject, SubscriptionKind::Company);
    store
        .create_subscription(&t.id, &s, &event_of(&s, "created", "subscription.created"))
        .await
        .unwrap();
    let bare = subscription(company_subject(stores, &t).await, SubscriptionKind::Company);
    store
        .create_subscription(
            &t.id,
            &bare,
            &event_of(&bare, "created", "subscription.created"),
        )
        .await
        .unwrap();
    let evidence = super::companies::record_profile_calls(stores, &t, t0()).await;
    let profile = super::companies::profile("Första Namnet AB", "doc-1", &evidence, t0());
    stores
        .companies
        .save_profile(&t.id, &subject, &profile)
        .await
        .unwrap();
    let PaidData::Officers(officers) =
        super::paid::officers("5560021361", evidence[0].clone()).data
    else {
        unreachable!()
    };
    let reading = MonitoringBaseline {
        profile: Some(profile.clone()),
        officers: Some(officers.clone()),
        owners: None,
    };
    store
        .record_reading(&t.id, &s.id, None, &reading, &[])
        .await
        .unwrap()
        .expect("written while active");

    let known = store
        .known_names(&[(t.id, s.id), (t.id, bare.id), (other.id, s.id)])
        .await
        .unwrap();
    let names: Vec<_> = known.iter().filter(|(_, id, _)| *id == s.id).collect();
    assert_eq!(names.len(), 1, "{known:?}");
    let (tenant_id, _, names) = names[0];
    assert_eq!(*tenant_id, t.id);
    assert_eq!(
        names.profiles,
        [KnownProfile {
            country: Country::Se,
            orgnr: profile.data.orgnr.clone(),
            name: "Första Namnet AB".into(),
            fetched_at: profile.fetched_at,
        }]
    );
    assert_eq!(names.officers.as_ref(), Some(&officers));
    assert!(names.owners.is_none());
    // The subscription without a profile or a baseline holds no names; the other tenant's
    // key names nothing.
    for (tenant_id, id, names) in &known {
        if *id != s.id {
            assert_eq!((*tenant_id, *id), (t.id, bare.id));
            assert!(
                names.profiles.is_empty() && names.officers.is_none(),
                "{names:?}"
            );
        }
    }
}
