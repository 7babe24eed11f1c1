//! The consumer event types of the per-tenant event log, and which of them this build emits.
//!
//! The interface declares the types; whether one is emitted is a fact about the code. A use
//! case that starts appending a type names itself in [`EventType::emitter`] in the same
//! change, so the contract snapshot (`contract/event-types.json`), which reads `emitted` from
//! here, always says what the running service does.

/// One event type of the interface.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EventType {
    CompanyChanged,
    CompanyStatusChanged,
    SignatoryChanged,
    UboChanged,
    PersonChanged,
    RefreshCompleted,
    RefreshDeferred,
    SubscriptionSuspended,
    /// The other subscription lifecycle events, whose names the interface leaves open.
    SubscriptionLifecycle,
    /// A subscription was made (`active`).
    SubscriptionCreated,
    /// A suspended subscription is `active` again (its country was restored).
    SubscriptionResumed,
    /// A subscription was ended by the consumer.
    SubscriptionEnded,
    /// Two subjects were found to be one: the older id is now an alias of the other.
    SubjectMerged,
    /// A sanctions list changed and a monitored subject's screening outcome changed with it.
    ScreeningChanged,
    /// A webhook endpoint was disabled by the service (it kept failing, or its grant lapsed).
    WebhookEndpointDisabled,
}

impl EventType {
    pub const ALL: [EventType; 15] = [
        EventType::CompanyChanged,
        EventType::CompanyStatusChanged,
        EventType::SignatoryChanged,
        EventType::UboChanged,
        EventType::PersonChanged,
        EventType::RefreshCompleted,
        EventType::RefreshDeferred,
        EventType::SubscriptionSuspended,
        EventType::SubscriptionLifecycle,
        EventType::SubscriptionCreated,
        EventType::SubscriptionResumed,
        EventType::SubscriptionEnded,
        EventType::SubjectMerged,
        EventType::ScreeningChanged,
        EventType::WebhookEndpointDisabled,
    ];

    /// The type as events carry it (`subscription.*` for the family not named yet).
    pub fn name(self) -> &'static str {
        match self {
            EventType::CompanyChanged => "company.changed",
            EventType::CompanyStatusChanged => "company.status.changed",
            EventType::SignatoryChanged => "signatory.changed",
            EventType::UboChanged => "ubo.changed",
            EventType::PersonChanged => "person.changed",
            EventType::RefreshCompleted => "refresh.completed",
            EventType::RefreshDeferred => "refresh.deferred",
            EventType::SubscriptionSuspended => "subscription.suspended",
            EventType::SubscriptionLifecycle => "subscription.*",
            EventType::SubscriptionCreated => "subscription.created",
            EventType::SubscriptionResumed => "subscription.resumed",
            EventType::SubscriptionEnded => "subscription.ended",
            EventType::SubjectMerged => "subject.merged",
            EventType::ScreeningChanged => "screening.changed",
            EventType::WebhookEndpointDisabled => "webhook.endpoint_disabled",
        }
    }

    /// What the interface says emits the type.
    pub fn declared_emitter(self) -> &'static str {
        const CHANGE: &str = "scheduled monitoring, or POST /v1/companies/{orgnr}/refresh under an active subscription";
        match self {
            EventType::CompanyChanged
            | EventType::CompanyStatusChanged
            | EventType::SignatoryChanged
            | EventType::UboChanged => CHANGE,
            EventType::PersonChanged => "declared, not yet emitted",
            EventType::RefreshCompleted => "a refresh",
            EventType::RefreshDeferred => {
                "scheduled work reaching the tenant's monitoring share of the daily budget"
            }
            EventType::SubscriptionSuspended
            | EventType::SubscriptionLifecycle
            | EventType::SubscriptionCreated
            | EventType::SubscriptionResumed
            | EventType::SubscriptionEnded => "subscription lifecycle",
            EventType::SubjectMerged => "a subject merge (operator)",
            EventType::ScreeningChanged => {
                "a sanctions list version becoming active (added in 1.8.0, not in the specification)"
            }
            EventType::WebhookEndpointDisabled => {
                "webhook delivery: an endpoint failing for days, or its grant lapsed (added in 1.8.0, not in the specification)"
            }
        }
    }

    pub fn notes(self) -> &'static str {
        match self {
            EventType::CompanyChanged => "field diff with values",
            EventType::PersonChanged => "the scheduled person source does not exist; paths and new values, or the marker alone under identity protection",
            EventType::RefreshDeferred => "work resumes in the next window",
            EventType::SubscriptionSuspended => {
                "reason `country_deprovisioned` or `permit_lapsed`"
            }
            EventType::SubscriptionLifecycle => {
                "the lifecycle family: subscription.created, .suspended, .resumed, .ended \
                 (names decided by this service; the specification names only .suspended)"
            }
            EventType::SubscriptionResumed => {
                "the country was restored, or a permit in force was recorded again"
            }
            EventType::SubjectMerged => "the merge event (its name is not fixed by the specification); filed under the canonical subject's country, or the tenant's own",
            EventType::ScreeningChanged => "candidates that appeared, disappeared or changed band, the checks before and after, and the list, policy and matcher versions",
            EventType::WebhookEndpointDisabled => "the endpoint id, the reason (`failing` or `grant_lapsed`), since when it failed and the last seq delivered; enabling it again resumes there",
            _ => "",
        }
    }

    /// The use case of this build that appends events of this type, if any.
    pub fn emitter(self) -> Option<&'static str> {
        match self {
            EventType::SubscriptionCreated | EventType::SubscriptionEnded => {
                Some("subscription_service")
            }
            EventType::SubscriptionSuspended | EventType::SubscriptionResumed => {
                Some("admin: the tenant's countries and permit; scheduler: a permit lapsed by date")
            }
            EventType::SubjectMerged => Some("admin: subject merge"),
            EventType::CompanyChanged
            | EventType::CompanyStatusChanged
            | EventType::SignatoryChanged
            | EventType::UboChanged
            | EventType::RefreshCompleted => {
                Some("refresh_service (on demand) and scheduler (scheduled)")
            }
            EventType::RefreshDeferred => Some("scheduler: the monitoring share reached"),
            EventType::ScreeningChanged => Some("ongoing screening: a list change re-screened"),
            EventType::WebhookEndpointDisabled => Some("webhook dispatcher"),
            EventType::PersonChanged | EventType::SubscriptionLifecycle => None,
        }
    }

    /// Whether this build emits the type.
    pub fn emitted(self) -> bool {
        self.emitter().is_some()
    }
}

/// Who caused a change: the consumer's own refresh, or the monitoring cadence.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Trigger {
    OnDemand,
    Scheduled,
}

impl Trigger {
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::OnDemand => "on_demand",
            Trigger::Scheduled => "scheduled",
        }
    }
}

/// An event cursor: `0` or the decimal spelling of a `seq` up to 2^63-1, without leading
/// zeros ([`parse_cursor`]).
pub fn cursor_pattern() -> String {
    format!("^(?:{})$", decimal_at_most(i64::MAX as u64))
}

/// A regular expression (without anchors) of the decimal spellings of 0 to `max`, without
/// leading zeros.
pub fn decimal_at_most(max: u64) -> String {
    let digits: Vec<u8> = max.to_string().bytes().map(|b| b - b'0').collect();
    let n = digits.len();
    let mut alternatives = vec!["0".to_owned()];
    // Every length shorter than max's: any number of that length.
    for len in 1..n {
        alternatives.push(if len == 1 {
            "[1-9]".to_owned()
        } else {
            format!("[1-9][0-9]{{{}}}", len - 1)
        });
    }
    // max's length: the same prefix as max, then a smaller digit, then anything.
    for i in 0..n {
        let low = if i == 0 { 1 } else { 0 };
        if digits[i] > low {
            let prefix: String = digits[..i].iter().map(|d| char::from(b'0' + d)).collect();
            let class = if digits[i] - 1 == low {
                format!("{low}")
            } else {
                format!("[{low}-{}]", digits[i] - 1)
            };
            let rest = n - i - 1;
            let tail = match rest {
                0 => String::new(),
                1 => "[0-9]".to_owned(),
                _ => format!("[0-9]{{{rest}}}"),
            };
            alternatives.push(format!("{prefix}{class}{tail}"));
        }
    }
    alternatives.push(digits.iter().map(|d| char::from(b'0' + d)).collect());
    alternatives.dedup();
    alternatives.join("|")
}

/// `types` of `GET /v1/events`: event type names separated by commas, white space around
/// each ignored, empty items skipped, at least one name
/// ([`parse_types`]).
pub fn event_types_pattern() -> String {
    let names = EventType::ALL
        .iter()
        .map(|t| crate::pattern::regex_escape(t.name()))
        .collect::<Vec<_>>()
        .join("|");
    format!("^(?:\\s*,)*\\s*(?:{names})\\s*(?:,\\s*(?:(?:{names})\\s*)?)*$")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_type_is_listed() {
        let names: Vec<&str> = EventType::ALL.iter().map(|t| t.name()).collect();
        // The interface's event types, written out.
        assert_eq!(
            names,
            [
                "company.changed",
                "company.status.changed",
                "signatory.changed",
                "ubo.changed",
                "person.changed",
                "refresh.completed",
                "refresh.deferred",
                "subscription.suspended",
                "subscription.*",
                "subscription.created",
                "subscription.resumed",
                "subscription.ended",
                "subject.merged",
                "screening.changed",
                "webhook.endpoint_disabled",
            ]
        );
        // A variant left out of `ALL` fails to compile here (the match is exhaustive) or
        // leaves its number out of the range below.
        let mut ordinals: Vec<usize> = EventType::ALL
            .iter()
            .map(|t| match t {
                EventType::CompanyChanged => 0,
                EventType::CompanyStatusChanged => 1,
                EventType::SignatoryChanged => 2,
                EventType::UboChanged => 3,
                EventType::PersonChanged => 4,
                EventType::RefreshCompleted => 5,
                EventType::RefreshDeferred => 6,
                EventType::SubscriptionSuspended => 7,
                EventType::SubscriptionLifecycle => 8,
                EventType::SubscriptionCreated => 9,
                EventType::SubscriptionResumed => 10,
                EventType::SubscriptionEnded => 11,
                EventType::SubjectMerged => 12,
                EventType::ScreeningChanged => 13,
                EventType::WebhookEndpointDisabled => 14,
            })
            .collect();
        ordinals.sort_unstable();
        assert_eq!(ordinals, (0..15).collect::<Vec<_>>());
    }

    #[test]
    fn the_emitted_types_are_those_this_build_appends() {
        // Written out from the use cases that append events (see `emitter`): every type but
        // the declared-only `person.changed` and the `subscription.*` family placeholder.
        let emitted: Vec<&str> = EventType::ALL
            .iter()
            .filter(|t| t.emitted())
            .map(|t| t.name())
            .collect();
        assert_eq!(
            emitted,
            [
                "company.changed",
                "company.status.changed",
                "signatory.changed",
                "ubo.changed",
                "refresh.completed",
                "refresh.deferred",
                "subscription.suspended",
                "subscription.created",
                "subscription.resumed",
                "subscription.ended",
                "subject.merged",
                "screening.changed",
                "webhook.endpoint_disabled",
            ]
        );
        // A type not emitted says so where the interface documents its emitter.
        for t in EventType::ALL.iter().filter(|t| !t.emitted()) {
            assert!(
                t.declared_emitter().contains("not yet emitted")
                    || *t == EventType::SubscriptionLifecycle,
                "{}",
                t.name()
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// The event log.

use crate::countries::country::{Country, CountrySet};
use crate::error::Failure;
use crate::evidence::Evidence;
use crate::ids::{EventId, SubjectId};
use crate::subjects::subject::SubjectHandle;
use chrono::{DateTime, Utc};

/// An event's `data`: an open tree of values (each event type's use case builds its own),
/// kept free of any serialisation library. Object members keep their order.
#[derive(Clone, Debug, PartialEq)]
pub enum EventData {
    Null,
    Bool(bool),
    Int(i64),
    Number(f64),
    Text(String),
    List(Vec<EventData>),
    Object(Vec<(String, EventData)>),
}

impl EventData {
    /// The data of a purged event: its envelope stays, this replaces its payload.
    pub fn purged() -> EventData {
        EventData::Object(vec![("purged".to_owned(), EventData::Bool(true))])
    }
}

/// An event to append. `seq` and `recorded_at` are given by the log when it is appended.
#[derive(Clone, Debug, PartialEq)]
pub struct NewEvent {
    pub id: EventId,
    /// The producer's key for "the same event": appending a key twice keeps the first event
    /// (producers may retry; consumers still dedupe on `id`).
    pub idempotency_key: String,
    /// The type's name (`company.changed`, ...).
    pub type_name: String,
    /// The country of the source that produced the event.
    pub country: Country,
    pub subject_id: Option<SubjectId>,
    /// The consumer's reference of the subject, when it has one.
    pub subject_ref: Option<String>,
    /// The subscription the event belongs to (lifecycle and change events): a purge after
    /// the subscription's retention replaces these events' data.
    pub subscription_id: Option<crate::ids::SubscriptionId>,
    pub occurred_at: DateTime<Utc>,
    pub data: EventData,
    pub evidence: Evidence,
}

/// An event as the log holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct LoggedEvent {
    pub seq: i64,
    pub recorded_at: DateTime<Utc>,
    pub event: NewEvent,
    /// The subject's canonical id and aliases now (after merges), when the event has one.
    pub subject: Option<SubjectHandle>,
}

/// The default number of events in a page.
pub const DEFAULT_PAGE_LIMIT: u32 = 100;
/// The largest page.
pub const MAX_PAGE_LIMIT: u32 = 1000;
/// How many events past the cursor one page looks at, at most, when filters (the grant's
/// countries, `types`) pass over some: the page then comes back short while `next_cursor`
/// advances, so a page costs the same whatever the log holds.
pub const PAGE_SCAN_WINDOW: u32 = 5000;

/// The change types `list_changes` preselects.
pub const CHANGE_TYPES: [EventType; 5] = [
    EventType::CompanyChanged,
    EventType::CompanyStatusChanged,
    EventType::SignatoryChanged,
    EventType::UboChanged,
    EventType::PersonChanged,
];

/// One page asked of the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventQuery {
    /// Events with a `seq` greater than this.
    pub after: i64,
    pub limit: u32,
    /// At most this many events past `after` are looked at.
    pub scan_window: u32,
    /// Only events filed under these countries.
    pub countries: CountrySet,
    /// Only events of these types (`None`: every type). A name ending in `.*` matches the
    /// family (`subscription.*`).
    pub types: Option<Vec<String>>,
}

/// A page of the log.
#[derive(Clone, Debug, PartialEq)]
pub struct EventPage {
    pub events: Vec<LoggedEvent>,
    /// The cursor to ask with next: the last `seq` looked at (the cursor asked with when
    /// nothing lies beyond it).
    pub next_cursor: i64,
}

/// A cursor as the interface takes it: `0` or the exact decimal spelling of a `seq` (no
/// sign, no leading zero, no fraction, at most `i64::MAX`).
pub fn parse_cursor(s: &str) -> Result<i64, Failure> {
    let bad = || {
        Failure::new(
            crate::error::ErrorCode::InvalidCursor,
            "`cursor` must be 0 or a next_cursor returned earlier, spelled exactly; restart from \
             cursor 0",
        )
    };
    let well_formed = s == "0"
        || (!s.is_empty()
            && s.len() <= 19
            && s.bytes().all(|b| b.is_ascii_digit())
            && !s.starts_with('0'));
    if !well_formed {
        return Err(bad());
    }
    s.parse::<i64>().map_err(|_| bad())
}

/// `limit`: a whole number from 1 to [`MAX_PAGE_LIMIT`]; absent is [`DEFAULT_PAGE_LIMIT`].
pub fn parse_limit(s: Option<&str>) -> Result<u32, Failure> {
    match s {
        None => Ok(DEFAULT_PAGE_LIMIT),
        Some(v) => v
            .trim()
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_PAGE_LIMIT).contains(n))
            .ok_or_else(|| {
                Failure::bad_request(
                    "limit",
                    &format!("must be a whole number from 1 to {MAX_PAGE_LIMIT}"),
                )
            }),
    }
}

/// `types`: event type names separated by commas (`subscription.*` for that family).
pub fn parse_types(s: Option<&str>) -> Result<Option<Vec<String>>, Failure> {
    let Some(s) = s else { return Ok(None) };
    let mut types = Vec::new();
    for name in s.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if !EventType::ALL.iter().any(|t| t.name() == name) {
            return Err(Failure::bad_request(
                "types",
                "must be event type names separated by commas (see contract/event-types.json)",
            ));
        }
        types.push(name.to_owned());
    }
    if types.is_empty() {
        return Err(Failure::bad_request(
            "types",
            "must name at least one event type",
        ));
    }
    Ok(Some(types))
}

#[cfg(test)]
mod log_tests {
    use super::*;

    #[test]
    fn cursors_are_spelled_exactly() {
        assert_eq!(parse_cursor("0").unwrap(), 0);
        assert_eq!(parse_cursor("17").unwrap(), 17);
        assert_eq!(parse_cursor("9223372036854775807").unwrap(), i64::MAX);
        for bad in [
            "",
            "01",
            "+1",
            "-1",
            "1.0",
            "1e3",
            " 1",
            "1 ",
            "9223372036854775808",
            "99999999999999999999",
            "abc",
            "0x10",
            "00",
        ] {
            assert_eq!(
                parse_cursor(bad).unwrap_err().code,
                crate::error::ErrorCode::InvalidCursor,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn limits_and_types() {
        assert_eq!(parse_limit(None).unwrap(), DEFAULT_PAGE_LIMIT);
        assert_eq!(parse_limit(Some("1000")).unwrap(), 1000);
        for bad in ["0", "1001", "-1", "x", "1.5"] {
            assert!(parse_limit(Some(bad)).is_err(), "{bad}");
        }
        assert_eq!(parse_types(None).unwrap(), None);
        assert_eq!(
            parse_types(Some("company.changed,subscription.*")).unwrap(),
            Some(vec![
                "company.changed".to_owned(),
                "subscription.*".to_owned()
            ])
        );
        assert!(parse_types(Some("company.renamed")).is_err());
        assert!(parse_types(Some(",")).is_err());
    }
}

/// Counts events a store call confirmed written, by type, for operators. Called where the
/// port answered that the write happened; an event a retried run re-sends under a key the log
/// already holds is counted again (the log keeps it once).
pub(crate) fn meter_appended<'a>(
    meter: &dyn crate::meter::Meter,
    events: impl IntoIterator<Item = &'a NewEvent>,
) {
    let mut counted: Vec<(&str, u64)> = Vec::new();
    for e in events {
        match counted.iter_mut().find(|(t, _)| *t == e.type_name) {
            Some((_, n)) => *n += 1,
            None => counted.push((&e.type_name, 1)),
        }
    }
    for (type_name, n) in counted {
        meter.events_appended(type_name, n);
    }
}
