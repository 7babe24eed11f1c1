//! The event log: gap-free `seq` per tenant under concurrent appends, idempotency keys, a
//! rolled-back append leaving no hole, and pages bounded by country, type and scan window.

use super::*;
use domain::evidence::EvidenceSource;
use domain::ids::EventId;
use domain::monitoring::event::{EventData, EventQuery, NewEvent};

/// An event of `type_name` in `country` under idempotency key `key`, dated [`t0`](crate).
pub fn event(key: &str, type_name: &str, country: Country) -> NewEvent {
    NewEvent {
        id: EventId::generate(),
        idempotency_key: key.to_owned(),
        type_name: type_name.to_owned(),
        country,
        subject_id: None,
        subject_ref: None,
        subscription_id: None,
        occurred_at: t0(),
        data: EventData::Object(vec![
            ("field".to_owned(), EventData::Text("name".into())),
            ("n".to_owned(), EventData::Int(3)),
        ]),
        evidence: Evidence {
            source: EvidenceSource::SERVICE_DERIVED,
            source_timestamp: t0(),
            call_ref: CallRef::generate(),
            upstream_ref: None,
            digest: None,
            schema_version: Some("1.6.0".into()),
            retrieved_at: t0(),
        },
    }
}

pub(super) fn query(after: i64, limit: u32, countries: &str) -> EventQuery {
    EventQuery {
        after,
        limit,
        scan_window: 5000,
        countries: CountrySet::parse_list(countries).unwrap(),
        types: None,
    }
}

/// Appends racing from many tasks: every event gets a distinct `seq`, and together they are
/// exactly 1..=n.
pub async fn check_concurrent_appends_leave_no_gap_and_no_duplicate(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let tasks: Vec<_> = (0..16)
        .map(|i| {
            let events = stores.events.clone();
            let id = t.id;
            tokio::spawn(async move {
                let batch: Vec<NewEvent> = (0..5)
                    .map(|j| event(&format!("k-{i}-{j}"), "company.changed", Country::Se))
                    .collect();
                events.append_events(&id, &batch).await.unwrap()
            })
        })
        .collect();
    let mut seqs = Vec::new();
    for t in tasks {
        let batch = t.await.unwrap();
        // A batch's events are consecutive, in order.
        assert!(batch.windows(2).all(|w| w[1] == w[0] + 1), "{batch:?}");
        seqs.extend(batch);
    }
    seqs.sort_unstable();
    assert_eq!(seqs, (1..=80).collect::<Vec<i64>>());
    // Another tenant's log starts at 1.
    let (other, _) = tenant(stores, "SE").await;
    let s = stores
        .events
        .append_events(&other.id, &[event("x", "refresh.completed", Country::Se)])
        .await
        .unwrap();
    assert_eq!(s, [1]);
}

/// An idempotency key is logged once; a failed append leaves no hole.
pub async fn check_keys_are_logged_once_and_a_failed_append_leaves_no_hole(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let first = stores
        .events
        .append_events(&t.id, &[event("a", "company.changed", Country::Se)])
        .await
        .unwrap();
    let again = stores
        .events
        .append_events(
            &t.id,
            &[
                event("a", "company.changed", Country::Se),
                event("b", "company.changed", Country::Se),
                event("b", "company.changed", Country::Se),
            ],
        )
        .await
        .unwrap();
    assert_eq!(first, [1]);
    assert_eq!(again, [1, 2, 2]);
    // An event about a subject the tenant does not have fails the whole append.
    let mut bad = event("c", "company.changed", Country::Se);
    bad.subject_id = Some(SubjectId::generate());
    assert!(stores
        .events
        .append_events(&t.id, &[event("d", "company.changed", Country::Se), bad])
        .await
        .is_err());
    let next = stores
        .events
        .append_events(&t.id, &[event("e", "company.changed", Country::Se)])
        .await
        .unwrap();
    assert_eq!(next, [3], "no hole where the failed append was");
    let page = stores
        .events
        .events_page(&t.id, &query(0, 100, "SE"))
        .await
        .unwrap();
    let keys: Vec<&str> = page
        .events
        .iter()
        .map(|e| e.event.idempotency_key.as_str())
        .collect();
    assert_eq!(keys, ["a", "b", "e"]);
}

/// Pages: in `seq` order after the cursor, the event read back whole; bounded by country and
/// type (a family by its prefix); a page is short while the cursor advances when the scan
/// window passes over filtered events; beyond the newest the cursor comes back unchanged.
pub async fn check_pages_follow_the_cursor_and_the_filters(stores: &Stores) {
    let (t, _) = tenant(stores, "SE,LT").await;
    let subject = company_subject(stores, &t).await;
    let mut with_subject = event("s", "company.changed", Country::Se);
    with_subject.subject_id = Some(subject);
    with_subject.subject_ref = Some("customer-1".into());
    let mut batch = vec![with_subject.clone()];
    for i in 0..10 {
        let country = if i % 2 == 0 {
            adapters_lt::identifiers::LT
        } else {
            Country::Se
        };
        batch.push(event(&format!("e{i}"), "company.changed", country));
    }
    batch.push(event("sub", "subscription.suspended", Country::Se));
    stores.events.append_events(&t.id, &batch).await.unwrap();

    let page = stores
        .events
        .events_page(&t.id, &query(0, 3, "SE,LT"))
        .await
        .unwrap();
    assert_eq!(
        page.events.iter().map(|e| e.seq).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert_eq!(page.next_cursor, 3);
    let first = &page.events[0];
    assert_eq!(first.event, with_subject);
    assert_eq!(first.subject.as_ref().unwrap().subject_id, subject);

    // Sweden only: the LT events are passed over.
    let se = stores
        .events
        .events_page(&t.id, &query(1, 100, "SE"))
        .await
        .unwrap();
    assert!(se.events.iter().all(|e| e.event.country == Country::Se));
    assert_eq!(se.events.len(), 6);
    assert_eq!(se.next_cursor, 12);

    // A family filter.
    let mut q = query(0, 100, "SE,LT");
    q.types = Some(vec!["subscription.*".into()]);
    let subs = stores.events.events_page(&t.id, &q).await.unwrap();
    assert_eq!(subs.events.len(), 1);
    assert_eq!(subs.events[0].event.type_name, "subscription.suspended");

    // A small scan window: a short (here empty) page, the cursor still advancing.
    let mut q = query(0, 100, "SE,LT");
    q.types = Some(vec!["subscription.suspended".into()]);
    q.scan_window = 4;
    let short = stores.events.events_page(&t.id, &q).await.unwrap();
    assert!(short.events.is_empty());
    assert_eq!(short.next_cursor, 4);

    // Beyond the newest: empty, the same cursor back. Another tenant sees nothing.
    let beyond = stores
        .events
        .events_page(&t.id, &query(40, 100, "SE,LT"))
        .await
        .unwrap();
    assert!(beyond.events.is_empty());
    assert_eq!(beyond.next_cursor, 40);
    let (other, _) = tenant(stores, "SE").await;
    let none = stores
        .events
        .events_page(&other.id, &query(0, 100, "SE"))
        .await
        .unwrap();
    assert!(none.events.is_empty() && none.next_cursor == 0);
}

/// An event naming a subject without a reference is logged with the subject's first customer
/// reference (the earliest attached; of two attached at once, the lesser); a reference the
/// producer gives is kept; a subject without references gives none.
pub async fn check_events_name_the_subjects_first_customer_reference(stores: &Stores) {
    let (t, _) = tenant(stores, "SE").await;
    let id = identifier(adapters_se::identifiers::ORGNR);
    let first = company(t0());
    let subject = stores
        .subjects
        .resolve_or_create_subject(&t.id, &id, Some("z-earliest"), &first)
        .await
        .unwrap()
        .subject_id;
    // A later reference, lesser by spelling, does not displace the earliest.
    stores
        .subjects
        .resolve_or_create_subject(
            &t.id,
            &id,
            Some("a-later"),
            &company(t0() + Duration::minutes(5)),
        )
        .await
        .unwrap();
    // Two references of another subject attached at the same moment: the lesser.
    let other_id = identifier(adapters_se::identifiers::ORGNR);
    let tie = company(t0());
    let other = stores
        .subjects
        .resolve_or_create_subject(&t.id, &other_id, Some("m-tie"), &tie)
        .await
        .unwrap()
        .subject_id;
    stores
        .subjects
        .resolve_or_create_subject(&t.id, &other_id, Some("k-tie"), &company(t0()))
        .await
        .unwrap();
    let bare = company_subject(stores, &t).await;

    let about = |key: &str, s: SubjectId, given: Option<&str>| NewEvent {
        subject_id: Some(s),
        subject_ref: given.map(str::to_owned),
        ..event(key, "company.changed", Country::Se)
    };
    stores
        .events
        .append_events(
            &t.id,
            &[
                about("e1", subject, None),
                about("e2", subject, Some("given")),
                about("e3", other, None),
                about("e4", bare, None),
                event("e5", "refresh.completed", Country::Se),
            ],
        )
        .await
        .unwrap();
    let page = stores
        .events
        .events_page(&t.id, &query(0, 10, "SE"))
        .await
        .unwrap();
    let refs: Vec<Option<&str>> = page
        .events
        .iter()
        .map(|e| e.event.subject_ref.as_deref())
        .collect();
    assert_eq!(
        refs,
        [Some("z-earliest"), Some("given"), Some("k-tie"), None, None]
    );
}
