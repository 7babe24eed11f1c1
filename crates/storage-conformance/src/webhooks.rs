//! Webhook endpoints: the cursor starts where it is asked to (never past the log's head), an
//! endpoint is its grant's alone, the dispatcher's queue is shared safely and skips endpoints
//! with nothing to send, and an attempt moves the cursor with it, only under its claim.

use super::events::event;
use super::*;
use domain::ids::{EventId, WebhookEndpointId};
use domain::webhooks::endpoint::{
    AttemptResult, ClaimedEndpoint, Delivery, DisabledReason, EndpointStatus, EndpointUrl,
    SealedWebhookSecret, WebhookEndpoint,
};
use domain::webhooks::ports::{AfterAttempt, StartAt};

fn endpoint(t: &Tenant, g: &Grant, at: DateTime<Utc>) -> WebhookEndpoint {
    WebhookEndpoint {
        id: WebhookEndpointId::generate(),
        tenant_id: t.id,
        grant_id: g.id,
        url: EndpointUrl::stored("https://hooks.example.com/idreg".into()),
        types: Some(vec!["company.changed".into(), "subscription.*".into()]),
        description: Some("ops pager".into()),
        status: EndpointStatus::Active,
        disabled_reason: None,
        disabled_at: None,
        cursor: 0,
        failures: 0,
        failing_since: None,
        next_attempt_at: at,
        attempts: 0,
        created_at: at,
        secret_rotated_at: None,
    }
}

fn sealed(b: u8) -> SealedWebhookSecret {
    SealedWebhookSecret(vec![b; 44])
}

async fn append(stores: &Stores, t: &Tenant, n: usize) {
    let batch: Vec<_> = (0..n)
        .map(|_| {
            event(
                &EventId::generate().to_string(),
                "company.changed",
                Country::Se,
            )
        })
        .collect();
    stores.events.append_events(&t.id, &batch).await.unwrap();
}

fn attempt(
    claim: &ClaimedEndpoint,
    seq: i64,
    result: AttemptResult,
    at: DateTime<Utc>,
) -> Delivery {
    Delivery {
        number: 0,
        endpoint_id: claim.endpoint.id,
        event_id: EventId::generate(),
        seq,
        type_name: "company.changed".into(),
        attempt: claim.endpoint.failures + 1,
        attempted_at: at,
        result,
        duration_ms: 12,
        next_attempt_at: None,
    }
}

/// A new endpoint's cursor is the log's head, or the `seq` asked for (never past the head);
/// it reads back whole, to its grant only; a grant holds at most the number allowed.
pub async fn check_an_endpoint_starts_where_asked_and_is_its_grants_alone(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let (g, _) = grant(stores, &t, "SE").await;
    let (other, _) = grant(stores, &t, "SE").await;
    append(stores, &t, 3).await;
    let store = &stores.webhooks;

    let head = endpoint(&t, &g, t0());
    let stored = store
        .create_endpoint(&head, &sealed(1), StartAt::Head, 3)
        .await
        .unwrap()
        .expect("stored");
    assert_eq!(
        stored,
        WebhookEndpoint {
            cursor: 3,
            ..head.clone()
        }
    );
    let from_one = store
        .create_endpoint(
            &endpoint(&t, &g, t0() + Duration::seconds(1)),
            &sealed(2),
            StartAt::After(1),
            3,
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(from_one.cursor, 1);
    let capped = store
        .create_endpoint(
            &endpoint(&t, &g, t0() + Duration::seconds(2)),
            &sealed(3),
            StartAt::After(99),
            3,
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(capped.cursor, 3);
    // The grant holds three: a fourth is refused and nothing is written.
    let fourth = endpoint(&t, &g, t0());
    assert_eq!(
        store
            .create_endpoint(&fourth, &sealed(4), StartAt::Head, 3)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store.endpoint(&t.id, &g.id, &fourth.id).await.unwrap(),
        None
    );
    // Its grant sees them, oldest first; another grant of the tenant sees none.
    let listed = store.endpoints(&t.id, &g.id).await.unwrap();
    assert_eq!(
        listed.iter().map(|e| e.cursor).collect::<Vec<_>>(),
        vec![3, 1, 3]
    );
    assert_eq!(listed[0].id, head.id);
    assert!(store.endpoints(&t.id, &other.id).await.unwrap().is_empty());
    assert_eq!(
        store.endpoint(&t.id, &other.id, &head.id).await.unwrap(),
        None
    );
    assert_eq!(
        store
            .disable_endpoint(
                &t.id,
                &other.id,
                &head.id,
                DisabledReason::Consumer,
                t0(),
                None
            )
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .deliveries(&t.id, &other.id, &head.id, 0, 100)
            .await
            .unwrap(),
        vec![]
    );
    // A rotated secret replaces the old one.
    let rotated = store
        .replace_secret(
            &t.id,
            &g.id,
            &head.id,
            &sealed(9),
            t0() + Duration::hours(1),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(rotated.secret_rotated_at, Some(t0() + Duration::hours(1)));
    let (t2, _) = tenant(stores, "SE").await;
    append(stores, &t2, 1).await;
    let (g2, _) = grant(stores, &t2, "SE").await;
    store
        .create_endpoint(&endpoint(&t2, &g2, t0()), &sealed(5), StartAt::After(0), 3)
        .await
        .unwrap()
        .unwrap();
    append(stores, &t, 1).await;
    let claims = store
        .claim_due_endpoints(t0(), t0() + Duration::minutes(2), 10)
        .await
        .unwrap();
    let ours = claims.iter().find(|c| c.endpoint.id == head.id).unwrap();
    assert_eq!(ours.sealed_secret, sealed(9));
}

/// The queue: only active, due, unleased endpoints whose tenant's log holds an event past
/// their cursor are claimed, each by one claimer; a lease that passed frees it.
pub async fn check_the_dispatch_queue_is_shared_safely(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let (g, _) = grant(stores, &t, "SE").await;
    let store = &stores.webhooks;
    let lease = Duration::minutes(2);
    let mut ids = Vec::new();
    for _ in 0..6 {
        let e = endpoint(&t, &g, t0());
        store
            .create_endpoint(&e, &sealed(1), StartAt::Head, 10)
            .await
            .unwrap()
            .unwrap();
        ids.push(e.id);
    }
    // Nothing past their cursors: nothing to claim.
    assert!(store
        .claim_due_endpoints(t0(), t0() + lease, 10)
        .await
        .unwrap()
        .is_empty());
    append(stores, &t, 1).await;
    // Not yet due.
    assert!(store
        .claim_due_endpoints(t0() - Duration::seconds(1), t0() + lease, 10)
        .await
        .unwrap()
        .is_empty());
    // Claimers racing: each endpoint claimed once.
    let tasks: Vec<_> = (0..4)
        .map(|_| {
            let store = stores.webhooks.clone();
            tokio::spawn(async move {
                store
                    .claim_due_endpoints(t0(), t0() + lease, 2)
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut claimed: Vec<WebhookEndpointId> = Vec::new();
    for task in tasks {
        for c in task.await.unwrap() {
            assert_eq!(c.lease_until, t0() + lease);
            claimed.push(c.endpoint.id);
        }
    }
    claimed.sort();
    let before = claimed.len();
    claimed.dedup();
    assert_eq!(claimed.len(), before, "an endpoint was claimed twice");
    assert!(claimed.len() <= 6);
    // The rest are claimed by the next claimer; the held ones only after their lease.
    let rest = store
        .claim_due_endpoints(t0(), t0() + lease, 10)
        .await
        .unwrap();
    assert_eq!(claimed.len() + rest.len(), 6);
    assert!(store
        .claim_due_endpoints(t0() + Duration::seconds(30), t0() + lease, 10)
        .await
        .unwrap()
        .is_empty());
    let again = store
        .claim_due_endpoints(t0() + lease, t0() + lease * 2, 10)
        .await
        .unwrap();
    assert_eq!(again.len(), 6);
    // A disabled endpoint is never claimed.
    for id in &ids {
        store
            .disable_endpoint(&t.id, &g.id, id, DisabledReason::Consumer, t0(), None)
            .await
            .unwrap();
    }
    assert!(store
        .claim_due_endpoints(t0() + lease * 3, t0() + lease * 4, 10)
        .await
        .unwrap()
        .is_empty());
}

/// An attempt is written with what it does to the endpoint, in one transaction, only under
/// the claim that made it: a failure counts and schedules, a success moves the cursor and
/// clears the failures, giving up disables with an event; the delivery log pages in order.
pub async fn check_an_attempt_moves_the_cursor_with_it_under_its_claim(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let (g, _) = grant(stores, &t, "SE").await;
    let store = &stores.webhooks;
    let lease = Duration::minutes(2);
    let e = endpoint(&t, &g, t0());
    store
        .create_endpoint(&e, &sealed(1), StartAt::Head, 10)
        .await
        .unwrap()
        .unwrap();
    append(stores, &t, 3).await;

    // A failure: counted, scheduled, the lease released.
    let claim = store
        .claim_due_endpoints(t0(), t0() + lease, 10)
        .await
        .unwrap()
        .remove(0);
    let retry_at = t0() + Duration::seconds(5);
    let mut failed = attempt(&claim, 1, AttemptResult::Refused { status: 503 }, t0());
    failed.next_attempt_at = Some(retry_at);
    assert!(store
        .record_attempt(
            &claim,
            &failed,
            &AfterAttempt::Retry {
                next_attempt_at: retry_at
            }
        )
        .await
        .unwrap());
    let now = store.endpoint(&t.id, &g.id, &e.id).await.unwrap().unwrap();
    assert_eq!(
        (
            now.cursor,
            now.failures,
            now.failing_since,
            now.next_attempt_at,
            now.attempts
        ),
        (0, 1, Some(t0()), retry_at, 1)
    );
    // The claim no longer holds: a late write changes nothing.
    let late = attempt(&claim, 1, AttemptResult::Delivered { status: 200 }, t0());
    assert!(!store
        .record_attempt(&claim, &late, &AfterAttempt::Advance)
        .await
        .unwrap());
    assert!(!store.release_endpoint(&claim, 3, t0()).await.unwrap());
    assert_eq!(
        store.endpoint(&t.id, &g.id, &e.id).await.unwrap().unwrap(),
        now
    );

    // Due again: a success moves the cursor and clears the failures.
    assert!(store
        .claim_due_endpoints(t0(), t0() + lease, 10)
        .await
        .unwrap()
        .is_empty());
    let claim = store
        .claim_due_endpoints(retry_at, retry_at + lease, 10)
        .await
        .unwrap()
        .remove(0);
    assert_eq!(claim.endpoint.failures, 1);
    let ok = attempt(
        &claim,
        1,
        AttemptResult::Delivered { status: 204 },
        retry_at,
    );
    assert!(store
        .record_attempt(&claim, &ok, &AfterAttempt::Advance)
        .await
        .unwrap());
    let now = store.endpoint(&t.id, &g.id, &e.id).await.unwrap().unwrap();
    assert_eq!(
        (now.cursor, now.failures, now.failing_since, now.attempts),
        (1, 0, None, 2)
    );
    // The page's end: the cursor moves past what was looked at, never back.
    assert!(store.release_endpoint(&claim, 2, retry_at).await.unwrap());
    assert_eq!(
        store
            .endpoint(&t.id, &g.id, &e.id)
            .await
            .unwrap()
            .unwrap()
            .cursor,
        2
    );

    // Failing for too long: disabled, with its event in the log, in one transaction.
    let claim = store
        .claim_due_endpoints(retry_at, retry_at + lease, 10)
        .await
        .unwrap()
        .remove(0);
    let mut gone = event("disabled-1", "webhook.endpoint_disabled", Country::Se);
    gone.occurred_at = retry_at;
    let last = attempt(
        &claim,
        3,
        AttemptResult::Failed {
            error: "timeout".into(),
        },
        retry_at,
    );
    assert!(store
        .record_attempt(
            &claim,
            &last,
            &AfterAttempt::Disable {
                event: Box::new(gone)
            }
        )
        .await
        .unwrap());
    let now = store.endpoint(&t.id, &g.id, &e.id).await.unwrap().unwrap();
    assert_eq!(
        (
            now.status,
            now.disabled_reason,
            now.disabled_at,
            now.cursor,
            now.failures
        ),
        (
            EndpointStatus::Disabled,
            Some(DisabledReason::Failing),
            Some(retry_at),
            2,
            1
        )
    );
    let log = stores
        .events
        .events_page(&t.id, &super::events::query(0, 100, "SE"))
        .await
        .unwrap();
    assert_eq!(
        log.events.last().unwrap().event.type_name,
        "webhook.endpoint_disabled"
    );

    // The delivery log, in order, paged by attempt number.
    let all = store.deliveries(&t.id, &g.id, &e.id, 0, 100).await.unwrap();
    assert_eq!(
        all.iter().map(|d| d.number).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    assert_eq!(all[0].result, AttemptResult::Refused { status: 503 });
    assert_eq!(all[0].next_attempt_at, Some(retry_at));
    assert_eq!(all[1].result, AttemptResult::Delivered { status: 204 });
    assert_eq!(
        all[2].result,
        AttemptResult::Failed {
            error: "timeout".into()
        }
    );
    assert_eq!(all[2].seq, 3);
    let page = store.deliveries(&t.id, &g.id, &e.id, 1, 1).await.unwrap();
    assert_eq!(page.len(), 1);
    assert_eq!(page[0].number, 2);
    // The retention forgets the attempts made before its bound, and only those.
    assert_eq!(store.purge_deliveries(t0(), 100).await.unwrap(), 0);
    assert_eq!(
        store
            .purge_deliveries(retry_at + Duration::microseconds(1), 100)
            .await
            .unwrap(),
        3
    );
    assert!(store
        .deliveries(&t.id, &g.id, &e.id, 0, 100)
        .await
        .unwrap()
        .is_empty());

    // Enabled again: active at its cursor, failures cleared, due at once.
    let later = retry_at + Duration::hours(1);
    let back = store
        .enable_endpoint(&t.id, &g.id, &e.id, later)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (
            back.status,
            back.disabled_reason,
            back.cursor,
            back.failures,
            back.failing_since,
            back.next_attempt_at
        ),
        (EndpointStatus::Active, None, 2, 0, None, later)
    );
    // Disabling by the consumer logs nothing; disabling twice keeps the first.
    let before = stores
        .events
        .events_page(&t.id, &super::events::query(0, 100, "SE"))
        .await
        .unwrap()
        .events
        .len();
    let off = store
        .disable_endpoint(&t.id, &g.id, &e.id, DisabledReason::Consumer, later, None)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(off.disabled_reason, Some(DisabledReason::Consumer));
    let again = store
        .disable_endpoint(
            &t.id,
            &g.id,
            &e.id,
            DisabledReason::GrantLapsed,
            later + Duration::hours(1),
            Some(event(
                "disabled-2",
                "webhook.endpoint_disabled",
                Country::Se,
            )),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again, off);
    assert_eq!(
        stores
            .events
            .events_page(&t.id, &super::events::query(0, 100, "SE"))
            .await
            .unwrap()
            .events
            .len(),
        before
    );
}
