//! The event log's read: `GET /v1/events`, and the tools `list_events` and `list_changes`.
//!
//! A page is bounded by the caller's countries (the grant's, as the tenant still provisions
//! them) and the `types` filter; it looks at most [`PAGE_SCAN_WINDOW`] events past the cursor,
//! so its cost does not grow with the log, and it may come back short while `next_cursor`
//! advances. A well-formed cursor beyond the newest visible event answers an empty page and
//! the same cursor. Cursors are `seq` values of the tenant's log: they never expire and hold
//! across purges and across the tenant's grants.

use crate::access::caller::Caller;
use crate::error::Failure;
use crate::monitoring::event::{
    parse_cursor, parse_limit, parse_types, EventPage, EventQuery, CHANGE_TYPES, PAGE_SCAN_WINDOW,
};
use crate::monitoring::ports::EventStore;
use crate::operation::Operation;
use std::sync::Arc;

pub struct EventService {
    pub store: Arc<dyn EventStore>,
}

/// A page request as the surfaces received it (query parameters or tool arguments).
#[derive(Clone, Debug, Default)]
pub struct EventsRequest {
    pub cursor: Option<String>,
    pub limit: Option<String>,
    pub types: Option<String>,
}

impl EventService {
    /// `GET /v1/events` and `list_events`.
    pub async fn page(
        &self,
        caller: &Caller,
        request: &EventsRequest,
    ) -> Result<EventPage, Failure> {
        caller.require_operation(Operation::ListEvents)?;
        let types = parse_types(request.types.as_deref())?;
        self.read(caller, request, types).await
    }

    /// `list_changes`: the change types preselected (company, status, signatory, UBO and
    /// person changes).
    pub async fn changes(
        &self,
        caller: &Caller,
        request: &EventsRequest,
    ) -> Result<EventPage, Failure> {
        caller.require_operation(Operation::ListEvents)?;
        let types = Some(CHANGE_TYPES.iter().map(|t| t.name().to_owned()).collect());
        self.read(caller, request, types).await
    }

    async fn read(
        &self,
        caller: &Caller,
        request: &EventsRequest,
        types: Option<Vec<String>>,
    ) -> Result<EventPage, Failure> {
        let after = match request.cursor.as_deref() {
            None => 0,
            Some(c) => parse_cursor(c)?,
        };
        let limit = parse_limit(request.limit.as_deref())?;
        let query = EventQuery {
            after,
            limit,
            scan_window: PAGE_SCAN_WINDOW.max(limit),
            countries: caller.visible_countries(),
            types,
        };
        let page = self
            .store
            .events_page(&caller.tenant_id, &query)
            .await
            .map_err(Failure::internal)?;
        // The cursor never moves back.
        Ok(EventPage {
            next_cursor: page.next_cursor.max(after),
            events: page.events,
        })
    }
}
