//! The dispatcher's rules, each alone, with every port mocked and time fixed.

use crate::access::ports::MockGrantStore;
use crate::evidence::{Evidence, EvidenceSource};
use crate::fixtures::{self, now};
use crate::ids::{CallRef, EventId, WebhookEndpointId};
use crate::monitoring::event::{EventData, EventPage, LoggedEvent, NewEvent};
use crate::monitoring::ports::MockEventStore;
use crate::webhooks::dispatcher::WebhookDispatcher;
use crate::webhooks::endpoint::{
    AttemptResult, ClaimedEndpoint, DisabledReason, EndpointStatus, EndpointUrl, RetrySchedule,
    SealedWebhookSecret, WebhookEndpoint, WebhookSecret,
};
use crate::webhooks::ports::{AfterAttempt, MockWebhookSender, MockWebhookStore, MockWebhookVault};
use crate::webhooks::service::WebhookSettings;
use chrono::Duration;
use std::sync::{Arc, Mutex};

fn endpoint(
    tenant: &crate::access::tenant::Tenant,
    grant: &crate::access::grant::Grant,
) -> WebhookEndpoint {
    WebhookEndpoint {
        id: WebhookEndpointId::generate(),
        tenant_id: tenant.id,
        grant_id: grant.id,
        url: EndpointUrl::stored("https://hooks.example.com/in".into()),
        types: None,
        description: None,
        status: EndpointStatus::Active,
        disabled_reason: None,
        disabled_at: None,
        cursor: 10,
        failures: 0,
        failing_since: None,
        next_attempt_at: now(),
        attempts: 0,
        created_at: now() - Duration::days(1),
        secret_rotated_at: None,
    }
}

fn logged(seq: i64) -> LoggedEvent {
    LoggedEvent {
        seq,
        recorded_at: now(),
        subject: None,
        event: NewEvent {
            id: EventId::generate(),
            idempotency_key: format!("k{seq}"),
            type_name: "subscription.created".into(),
            country: crate::countries::country::Country::Se,
            subject_id: None,
            subject_ref: None,
            subscription_id: None,
            occurred_at: now(),
            data: EventData::Null,
            evidence: Evidence {
                source: EvidenceSource::SERVICE_DERIVED,
                source_timestamp: now(),
                call_ref: CallRef::generate(),
                upstream_ref: None,
                digest: None,
                schema_version: None,
                retrieved_at: now(),
            },
        },
    }
}

struct World {
    store: MockWebhookStore,
    events: MockEventStore,
    grants: MockGrantStore,
    sender: MockWebhookSender,
    claim: ClaimedEndpoint,
}

/// A tenant with one endpoint of a live `events:read` grant over Sweden, whose log holds
/// events 11 to 13 after the cursor (10).
fn world(failures: i32, failing_since: Option<chrono::DateTime<chrono::Utc>>) -> World {
    let tenant = fixtures::tenant("SE,LT");
    let grant = fixtures::grant(&tenant, "events:read", "SE");
    let mut ep = endpoint(&tenant, &grant);
    ep.failures = failures;
    ep.failing_since = failing_since;
    let claim = ClaimedEndpoint {
        endpoint: ep,
        sealed_secret: SealedWebhookSecret(vec![1, 2, 3]),
        lease_until: now() + Duration::minutes(2),
    };
    let mut grants = MockGrantStore::new();
    let access = fixtures::access(&grant, &tenant);
    grants
        .expect_grant_access()
        .returning(move |_, _| Ok(Some(access.clone())));
    let mut events = MockEventStore::new();
    events.expect_events_page().returning(|_, q| {
        // The grant's countries, as the tenant provisions them, bound the page.
        assert_eq!(q.countries, fixtures::countries("SE"));
        assert_eq!(q.after, 10);
        Ok(EventPage {
            events: (11..=13).map(logged).collect(),
            next_cursor: 13,
        })
    });
    let mut store = MockWebhookStore::new();
    let claimed = claim.clone();
    store
        .expect_claim_due_endpoints()
        .returning(move |_, _, _| Ok(vec![claimed.clone()]));
    World {
        store,
        events,
        grants,
        sender: MockWebhookSender::new(),
        claim,
    }
}

fn dispatcher(w: World) -> WebhookDispatcher {
    let mut vault = MockWebhookVault::new();
    vault
        .expect_open_webhook_secret()
        .returning(|_, _, _| Ok(WebhookSecret::new("whsec_dGVzdA==".into())));
    WebhookDispatcher {
        meter: Arc::new(crate::meter::NoMeter),
        store: Arc::new(w.store),
        events: Arc::new(w.events),
        grants: Arc::new(w.grants),
        vault: Arc::new(vault),
        sender: Arc::new(w.sender),
        clock: fixtures::clock(),
        settings: WebhookSettings::default(),
    }
}

#[tokio::test]
async fn events_go_out_in_order_and_the_first_failure_stops_the_turn() {
    let mut w = world(0, None);
    let sent = Arc::new(Mutex::new(Vec::new()));
    let s = sent.clone();
    w.sender.expect_send().returning(move |o| {
        s.lock().unwrap().push(o.event.seq);
        if o.event.seq == 12 {
            (AttemptResult::Refused { status: 503 }, 4)
        } else {
            (AttemptResult::Delivered { status: 204 }, 3)
        }
    });
    let recorded = Arc::new(Mutex::new(Vec::new()));
    let r = recorded.clone();
    w.store.expect_record_attempt().returning(move |_, d, a| {
        r.lock()
            .unwrap()
            .push((d.seq, d.attempt, a.clone(), d.next_attempt_at));
        Ok(true)
    });
    // The turn ends at the failure: the claim is not released past it.
    w.store.expect_release_endpoint().never();
    let report = dispatcher(w).tick().await.unwrap();
    assert_eq!(*sent.lock().unwrap(), vec![11, 12]);
    let recorded = recorded.lock().unwrap();
    assert_eq!(recorded[0].0, 11);
    assert_eq!(recorded[0].2, AfterAttempt::Advance);
    let first_retry = now() + Duration::seconds(5);
    assert_eq!(
        recorded[1],
        (
            12,
            1,
            AfterAttempt::Retry {
                next_attempt_at: first_retry
            },
            Some(first_retry)
        )
    );
    assert_eq!(
        (report.delivered, report.failed, report.disabled),
        (1, 1, 0)
    );
}

#[tokio::test]
async fn a_retry_waits_longer_each_time_and_counts_the_attempt() {
    let mut w = world(3, Some(now() - Duration::hours(1)));
    w.sender.expect_send().returning(|_| {
        (
            AttemptResult::Failed {
                error: "timeout".into(),
            },
            10_000,
        )
    });
    w.store.expect_record_attempt().returning(|_, d, a| {
        assert_eq!(d.seq, 11);
        assert_eq!(d.attempt, 4);
        // The fourth failure in a row waits the schedule's fourth delay.
        assert_eq!(
            *a,
            AfterAttempt::Retry {
                next_attempt_at: now() + Duration::hours(2)
            }
        );
        Ok(true)
    });
    let report = dispatcher(w).tick().await.unwrap();
    assert_eq!((report.delivered, report.failed), (0, 1));
}

#[tokio::test]
async fn an_endpoint_failing_for_days_is_disabled_with_an_event_at_its_cursor() {
    let since = now() - RetrySchedule::default().disable_after;
    let mut w = world(14, Some(since));
    w.sender
        .expect_send()
        .returning(|_| (AttemptResult::Refused { status: 500 }, 8));
    w.store.expect_record_attempt().returning(move |_, d, a| {
        assert_eq!(d.next_attempt_at, None);
        let AfterAttempt::Disable { event } = a else {
            panic!("not disabled: {a:?}")
        };
        assert_eq!(event.type_name, "webhook.endpoint_disabled");
        let EventData::Object(fields) = &event.data else {
            panic!()
        };
        let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        assert_eq!(get("reason"), Some(EventData::Text("failing".into())));
        // Nothing was delivered past the cursor: the consumer resumes from there.
        assert_eq!(get("last_delivered_seq"), Some(EventData::Int(10)));
        assert_eq!(get("failed_attempts"), Some(EventData::Int(15)));
        Ok(true)
    });
    let report = dispatcher(w).tick().await.unwrap();
    assert_eq!(report.disabled, 1);
}

#[tokio::test]
async fn a_lapsed_grant_disables_its_endpoint_and_nothing_is_sent() {
    let tenant = fixtures::tenant("SE");
    let mut grant = fixtures::grant(&tenant, "events:read", "SE");
    grant.revoked_at = Some(now() - Duration::minutes(1));
    let mut w = world(0, None);
    w.claim.endpoint.tenant_id = tenant.id;
    let access = fixtures::access(&grant, &tenant);
    w.grants = MockGrantStore::new();
    w.grants
        .expect_grant_access()
        .returning(move |_, _| Ok(Some(access.clone())));
    w.events = MockEventStore::new();
    w.events.expect_events_page().never();
    w.sender.expect_send().never();
    w.store
        .expect_disable_endpoint()
        .withf(|_, _, _, reason, _, event| {
            *reason == DisabledReason::GrantLapsed
                && event
                    .as_ref()
                    .is_some_and(|e| e.type_name == "webhook.endpoint_disabled")
        })
        .times(1)
        .returning(|_, _, _, _, _, _| Ok(None));
    let report = dispatcher(w).tick().await.unwrap();
    assert_eq!(report.disabled, 1);
}

#[tokio::test]
async fn events_the_endpoint_does_not_receive_are_passed_over() {
    let mut w = world(0, None);
    w.events = MockEventStore::new();
    // A page whose window held only events of other types or countries.
    w.events.expect_events_page().returning(|_, _| {
        Ok(EventPage {
            events: vec![],
            next_cursor: 42,
        })
    });
    w.sender.expect_send().never();
    w.store
        .expect_release_endpoint()
        .withf(|_, cursor, due| *cursor == 42 && *due == now())
        .times(1)
        .returning(|_, _, _| Ok(true));
    dispatcher(w).tick().await.unwrap();
}

#[tokio::test]
async fn a_turn_sends_nothing_that_could_outlast_its_lease() {
    let mut w = world(0, None);
    // A claim whose lease ends before one more delivery could finish.
    w.claim.lease_until = now() + Duration::seconds(10);
    let claim = w.claim.clone();
    w.store = MockWebhookStore::new();
    w.store
        .expect_claim_due_endpoints()
        .returning(move |_, _, _| Ok(vec![claim.clone()]));
    w.sender.expect_send().never();
    w.store.expect_record_attempt().never();
    // Released at its cursor, not past the events it did not send.
    w.store
        .expect_release_endpoint()
        .withf(|_, cursor, due| *cursor == 10 && *due == now())
        .times(1)
        .returning(|_, _, _| Ok(true));
    let report = dispatcher(w).tick().await.unwrap();
    assert_eq!((report.delivered, report.failed), (0, 0));
}

#[tokio::test]
async fn a_lost_claim_stops_the_turn() {
    let mut w = world(0, None);
    let sent = Arc::new(Mutex::new(0));
    let s = sent.clone();
    w.sender.expect_send().returning(move |_| {
        *s.lock().unwrap() += 1;
        (AttemptResult::Delivered { status: 200 }, 1)
    });
    // Another replica took the endpoint over (or it was disabled) after the first send.
    w.store
        .expect_record_attempt()
        .returning(|_, _, _| Ok(false));
    w.store.expect_release_endpoint().never();
    dispatcher(w).tick().await.unwrap();
    assert_eq!(*sent.lock().unwrap(), 1);
}
