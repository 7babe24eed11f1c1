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
