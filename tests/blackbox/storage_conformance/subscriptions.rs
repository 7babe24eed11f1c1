//! The subscription store: one unended subscription per subject and kind (also when creates
//! race), each change written with its event, ending once, lists by kind and status.

use super::events::event;
use super::*;
use domain::ids::SubscriptionId;
use domain::subscription::{
    LegalBasis, Subscription, SubscriptionFilter, SubscriptionKind, SubscriptionStatus,
};

fn subscription(subject: SubjectId, kind: SubscriptionKind) -> Subscription {
    Subscription {
        id: SubscriptionId::generate(),
        subject_id: subject,
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
    let subject = super::companies::company_subject(stores, &t).await;
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
            Ok(()) => made += 1,
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
            &domain::event::EventQuery {
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
        let subject = super::companies::company_subject(stores, &t).await;
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
    let mine =
        |runs: Vec<domain::subscription::ClaimedRun>| -> Vec<domain::subscription::ClaimedRun> {
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
    let outcome = domain::subscription::RunOutcome {
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
