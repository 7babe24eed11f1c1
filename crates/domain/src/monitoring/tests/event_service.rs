//! The event log's read: cursor and limit rules before the store is asked, the caller's
//! countries as the bound, the change types preselected, a cursor that never moves back.

use crate::error::ErrorCode;
use crate::fixtures::caller;
use crate::monitoring::event::{EventPage, CHANGE_TYPES, DEFAULT_PAGE_LIMIT, PAGE_SCAN_WINDOW};
use crate::monitoring::event_service::{EventService, EventsRequest};
use crate::monitoring::ports::MockEventStore;
use std::sync::Arc;

fn request(cursor: Option<&str>, limit: Option<&str>, types: Option<&str>) -> EventsRequest {
    EventsRequest {
        cursor: cursor.map(str::to_owned),
        limit: limit.map(str::to_owned),
        types: types.map(str::to_owned),
    }
}

#[tokio::test]
async fn malformed_input_never_reaches_the_store() {
    let mut store = MockEventStore::new();
    store.expect_events_page().never();
    let service = EventService {
        store: Arc::new(store),
    };
    let c = caller("SE", "events:read", "SE");
    for (r, code) in [
        (request(Some("01"), None, None), ErrorCode::InvalidCursor),
        (request(Some("-3"), None, None), ErrorCode::InvalidCursor),
        (request(None, Some("0"), None), ErrorCode::BadRequest),
        (request(None, None, Some("x.y")), ErrorCode::BadRequest),
    ] {
        assert_eq!(service.page(&c, &r).await.unwrap_err().code, code);
    }
    let kyb = caller("SE", "kyb:read", "SE");
    assert_eq!(
        service
            .page(&kyb, &request(None, None, None))
            .await
            .unwrap_err()
            .code,
        ErrorCode::Forbidden
    );
}

#[tokio::test]
async fn the_query_is_bounded_by_the_callers_countries_and_the_cursor_never_moves_back() {
    let mut store = MockEventStore::new();
    store
        .expect_events_page()
        .times(1)
        .withf(|_, q| {
            q.after == 42
                && q.limit == DEFAULT_PAGE_LIMIT
                && q.scan_window == PAGE_SCAN_WINDOW
                && q.countries.iter().map(|c| c.code()).collect::<Vec<_>>() == ["SE"]
                && q.types.is_none()
        })
        .returning(|_, _| {
            Ok(EventPage {
                events: Vec::new(),
                next_cursor: 7,
            })
        });
    store
        .expect_events_page()
        .times(1)
        .withf(|_, q| q.types.as_ref().map(Vec::len) == Some(CHANGE_TYPES.len()) && q.after == 0)
        .returning(|_, _| {
            Ok(EventPage {
                events: Vec::new(),
                next_cursor: 0,
            })
        });
    let service = EventService {
        store: Arc::new(store),
    };
    // The tenant provisions SE and LT; the grant carries SE only.
    let c = caller("SE,LT", "events:read", "SE");
    let page = service
        .page(&c, &request(Some("42"), None, None))
        .await
        .unwrap();
    assert_eq!(page.next_cursor, 42);
    let changes = service
        .changes(&c, &request(None, None, Some("ignored.by.changes")))
        .await
        .unwrap();
    assert_eq!(changes.next_cursor, 0);
}
